#!/usr/bin/env python3
"""Fault tests of --config=remote-cache and tools/remote_cache's nginx.

(a) The cache is down (nothing listens on its port) or answers every request with HTTP 500:
    the build still succeeds, locally, and Bazel prints a remote-cache warning.
(b) A cache entry is corrupted on the server (bytes of a CAS blob flipped, same length):
    Bazel notices that the downloaded blob does not match its digest, says so, rebuilds
    locally, and the output holds the original bytes, never the corrupted ones.
(c) The cache outgrew its cap: `tools/remote_cache start` evicts the least recently used
    entries down to TORCH_CUDA_REMOTE_CACHE_MAX_GB, and refuses a cap that is no size.

Each case builds a genrule in a temporary copy of fixture_ws/ with a nested Bazel that has
its own --output_user_root, the repo's own `build:remote-cache` lines from .bazelrc, no
disk cache, and --remote_cache pointing at a cache of its own: a throwaway nginx started
by tools/remote_cache with TORCH_CUDA_REMOTE_CACHE_DIR/_PORT, so the shared cache is never
touched, let alone corrupted.

Why a script that .ci/run runs, not a test under //tests/...: what it tests is tools/bazel,
tools/remote_cache and the installed Bazel and nginx prefixes, which live outside the build
graph. Inside a test action HOME is the test's temporary directory and PATH is minimal, so
the test would have to reach out of its sandbox to the user's cache to find them; Bazel
would cache its result keyed on declared inputs that do not include those prefixes; and a
nested Bazel server started from a test action outlives the action when a test timeout
kills it. As a plain script it runs the tools exactly as a developer does, every time.

Usage: python3 tests/remote_cache/fault_test.py [-v]   (about 20-30 s)
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

REPO = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).resolve().parent / "fixture_ws"
BAZEL = REPO / "tools" / "bazel"
REMOTE_CACHE = REPO / "tools" / "remote_cache"
# What fixture_ws's genrule writes; computed here independently of Bazel.
EXPECTED = "".join(f"line {i} of the remote cache fixture\n" for i in range(1, 4001)).encode()
CACHE_HIT = re.compile(r"^INFO: \d+ processes?: .*\b(\d+) remote cache hits?\b", re.MULTILINE)
REMOTE_WARNING = "WARNING: Remote Cache:"


def free_port() -> int:
    """A port nothing listens on (bound and released; a race with another program is moot)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class FailingCache(BaseHTTPRequestHandler):
    """Answers every request with 500, over HTTP/1.1 as Bazel's HTTP cache client requires."""

    protocol_version = "HTTP/1.1"
    requests: ClassVar[list[str]] = []

    def fail(self) -> None:
        self.requests.append(f"{self.command} {self.path}")
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.send_response(500)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_PUT = do_HEAD = do_POST = fail

    def log_message(self, format: str, *args: object) -> None:
        pass


class RemoteCacheFaultTest(unittest.TestCase):
    tmp: Path
    workspace: Path
    env: dict[str, str]
    cache_url: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.tmp = Path(tempfile.mkdtemp(prefix="remote_cache_fault_test-"))
        cls.addClassCleanup(shutil.rmtree, cls.tmp, ignore_errors=True)
        cls.workspace = cls.tmp / "ws"
        shutil.copytree(FIXTURE, cls.workspace)
        (cls.workspace / "BUILD.fixture").rename(cls.workspace / "BUILD.bazel")
        rc_lines = [
            line for line in (REPO / ".bazelrc").read_text().splitlines()
            if re.match(r"(build|common):remote-cache\s", line)
        ]
        assert rc_lines, "the repo's .bazelrc defines no build:remote-cache lines"
        (cls.workspace / ".bazelrc").write_text("\n".join(rc_lines) + "\n")

        port = free_port()
        cls.cache_url = f"http://127.0.0.1:{port}"
        cls.env = {
            **os.environ,
            "TORCH_CUDA_REMOTE_CACHE_DIR": str(cls.tmp / "remote_cache"),
            "TORCH_CUDA_REMOTE_CACHE_PORT": str(port),
        }
        cls.env.pop("TORCH_CUDA_REMOTE_CACHE", None)  # tools/bazel then writes the default
        cls.addClassCleanup(cls.bazel, "shutdown")
        cls.addClassCleanup(
            subprocess.run, [str(REMOTE_CACHE), "stop"], env=cls.env, check=False,
            capture_output=True,
        )
        started = subprocess.run(
            [str(REMOTE_CACHE), "start"], env=cls.env, capture_output=True, text=True,
            check=False,
        )
        assert started.returncode == 0, f"tools/remote_cache start failed:\n{started.stderr}"

    @classmethod
    def bazel(cls, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BAZEL), f"--output_user_root={cls.tmp / 'output_user_root'}",
             "--max_idle_secs=120", *args],
            cwd=cls.workspace, env=cls.env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, check=False,
        )

    def clean_build(self, cache_url: str) -> str:
        """`bazel clean` (outputs and action cache gone), then build //:blob from scratch."""
        self.assertEqual(self.bazel("clean").returncode, 0)
        result = self.bazel(
            "build", "--config=remote-cache", f"--remote_cache={cache_url}",
            "--disk_cache=", "--lockfile_mode=off", "--color=no", "--curses=no", "//:blob",
        )
        self.assertEqual(result.returncode, 0, f"the build failed:\n{result.stdout}")
        return result.stdout

    def output(self) -> bytes:
        return (self.workspace / "bazel-bin" / "blob.bin").read_bytes()

    def remote_hits(self, log: str) -> int:
        match = CACHE_HIT.search(log)
        return int(match.group(1)) if match else 0

    def test_cache_down_builds_locally_with_warning(self) -> None:
        log = self.clean_build(f"http://127.0.0.1:{free_port()}")
        self.assertEqual(self.output(), EXPECTED)
        self.assertRegex(log, rf"{REMOTE_WARNING} .*Connection refused")
        self.assertEqual(self.remote_hits(log), 0, log)

    def test_cache_answering_500_builds_locally_with_warning(self) -> None:
        FailingCache.requests = []
        server = ThreadingHTTPServer(("127.0.0.1", 0), FailingCache)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            log = self.clean_build(f"http://127.0.0.1:{server.server_address[1]}")
        finally:
            server.shutdown()
            server.server_close()
        self.assertEqual(self.output(), EXPECTED)
        # Bazel did ask this cache (else the warning below would prove nothing) ...
        self.assertTrue(any(r.startswith("GET /ac/") for r in FailingCache.requests))
        # ... and said that it failed.
        self.assertRegex(log, rf"{REMOTE_WARNING}(.|\n)*500 Internal Server Error")
        self.assertEqual(self.remote_hits(log), 0, log)

    def test_corrupted_blob_is_detected_and_not_used(self) -> None:
        digest = hashlib.sha256(EXPECTED).hexdigest()
        blob = Path(self.env["TORCH_CUDA_REMOTE_CACHE_DIR"]) / "data" / "cas" / digest

        self.clean_build(self.cache_url)  # populates the cache (or finds it populated)
        self.assertEqual(self.output(), EXPECTED)
        self.assertEqual(blob.read_bytes(), EXPECTED, "nginx did not store the output blob")
        # Control: a clean rebuild is served from this cache, so the next step tests a hit.
        log = self.clean_build(self.cache_url)
        self.assertEqual(self.remote_hits(log), 1, log)

        corrupted = bytearray(EXPECTED)
        for offset in (0, len(corrupted) // 2, len(corrupted) - 2):
            corrupted[offset] ^= 0xFF
        blob.write_bytes(corrupted)  # same length, different bytes
        corrupted_digest = hashlib.sha256(corrupted).hexdigest()

        log = self.clean_build(self.cache_url)
        self.assertEqual(self.output(), EXPECTED, "the corrupted blob reached the output")
        self.assertIn(
            f"Expected digest '{digest}/{len(EXPECTED)}' does not match received digest "
            f"'{corrupted_digest}/{len(EXPECTED)}'",
            log,
        )
        self.assertEqual(self.remote_hits(log), 0, log)

    def test_start_evicts_least_recently_used_entries_beyond_the_cap(self) -> None:
        state = self.tmp / "capped_cache"
        entries = {f"cas/{index:064x}": index for index in range(5)}  # age order: 0 oldest
        for name, index in entries.items():
            path = state / "data" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"x" * 1000)
            os.utime(path, (1_000_000 + index, 1_000_000 + index))
        env = {**self.env, "TORCH_CUDA_REMOTE_CACHE_DIR": str(state),
               "TORCH_CUDA_REMOTE_CACHE_PORT": str(free_port()),
               "TORCH_CUDA_REMOTE_CACHE_MAX_GB": "0.0000025"}  # 2500 bytes: two entries fit
        self.addCleanup(subprocess.run, [str(REMOTE_CACHE), "stop"], env=env, check=False,
                        capture_output=True)
        started = subprocess.run([str(REMOTE_CACHE), "start"], env=env, capture_output=True,
                                 text=True, check=False)
        self.assertEqual(started.returncode, 0, started.stderr)
        self.assertIn("evicted 3 least recently used entries", started.stdout)
        kept = sorted(str(p.relative_to(state / "data")) for p in (state / "data").rglob("*")
                      if p.is_file())
        self.assertEqual(kept, [f"cas/{3:064x}", f"cas/{4:064x}"])

    def test_start_refuses_a_cap_that_is_not_a_size(self) -> None:
        env = {**self.env, "TORCH_CUDA_REMOTE_CACHE_DIR": str(self.tmp / "unused_cache"),
               "TORCH_CUDA_REMOTE_CACHE_MAX_GB": "lots"}
        started = subprocess.run([str(REMOTE_CACHE), "start"], env=env, capture_output=True,
                                 text=True, check=False)
        self.assertEqual(started.returncode, 1)
        self.assertIn("TORCH_CUDA_REMOTE_CACHE_MAX_GB='lots' is not a positive number",
                      started.stderr)
        self.assertFalse((self.tmp / "unused_cache").exists(), "a refused start left state")


if __name__ == "__main__":
    unittest.main()
