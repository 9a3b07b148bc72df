"""The OpInfo conformance run's parent side (op_conformance.py): worker processes fed op
names one after another, and a run that survives their crashes and hangs, so one segfault
hides nothing."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import tempfile
import time
from collections.abc import Callable


class Worker:
    """A worker process: reads op names on stdin, writes JSON events to a pipe."""

    def __init__(self, command: list[str]):
        read_fd, write_fd = os.pipe()
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [*command, "--worker", str(write_fd)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self.stderr,
            pass_fds=(write_fd,), text=True)
        os.close(write_fd)
        self.results = os.fdopen(read_fd, "r")
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.results, selectors.EVENT_READ)
        self.buffer = ""

    def read(self, timeout: float) -> dict | None:
        """The next event; {"eof": True} when the worker died; None on timeout."""
        deadline = time.monotonic() + timeout
        while "\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                return None
            chunk = os.read(self.results.fileno(), 65536).decode()
            if not chunk:
                return {"eof": True}
            self.buffer += chunk
        line, self.buffer = self.buffer.split("\n", 1)
        return json.loads(line)

    def send(self, key: str) -> None:
        self.process.stdin.write(key + "\n")
        self.process.stdin.flush()

    def stop(self) -> str:
        """Ends the worker; returns how it ended and the tail of its stderr."""
        if self.process.poll() is None:
            try:
                self.process.stdin.close()
                self.process.wait(timeout=10)
            except Exception:
                self.process.kill()
                self.process.wait()
        code = self.process.returncode
        self.stderr.seek(0)
        tail = self.stderr.read().decode(errors="replace").strip().splitlines()[-3:]
        how = f"signal {-code}" if code < 0 else f"exit {code}"
        return how + (": " + " | ".join(tail) if tail else "")


def start_worker(command: list[str]) -> tuple[Worker, list[str]]:
    """A new worker, once it has loaded op_db, and the op names it listed."""
    worker = Worker(command)
    ready = worker.read(timeout=600)
    if "ops" not in (ready or {}):
        raise RuntimeError("the conformance worker did not start: " + worker.stop())
    return worker, ready["ops"]


def run_all(keys: list[str], command: list[str], op_timeout: float, worker: Worker | None = None,
            log: Callable[[str], None] = print) -> list[dict]:
    """Runs `keys` in `worker` (started and ready), then in new ones after a crash or an op
    that gave no result in `op_timeout` seconds."""
    rows: dict[str, dict] = {}
    pending = list(keys)
    while pending:
        if worker is None:
            worker, _ = start_worker(command)
        for key in pending:  # the pipe holds them all; the worker reads at its pace
            worker.send(key)
        worker.process.stdin.flush()
        current = None
        while pending:
            event = worker.read(timeout=op_timeout)
            if event is None or "eof" in event:  # hung on `current`, or died
                hung = event is None
                if hung:
                    worker.process.kill()
                how = worker.stop()
                if current is None:
                    raise RuntimeError("the conformance worker died between ops: " + how)
                rows[current] = {"op": current, "class": "crash", "fallback": [], "samples": 0,
                                 "dtypes": [],
                                 "detail": (f"no result in {op_timeout:.0f} s"
                                            if hung else "worker died: " + how)}
                log(f"  {current}: crash ({rows[current]['detail']})")
                pending.remove(current)
                worker = None
                break
            if "start" in event:
                current = event["start"]
            elif "result" in event:
                row = event["result"]
                rows[row["op"]] = row
                pending.remove(row["op"])
                current = None
        else:
            worker.stop()
    if worker is not None and worker.process.poll() is None:
        worker.stop()
    return [rows[k] for k in keys]
