"""A throwaway apt state over the machine's own Debian mirror.

Bazel 7 is packaged only in Debian sid, while the machine runs bookworm. Both the lock
generator and the installer read sid through a private apt state (own sources list, own
lists and cache, an empty dpkg status), so the system's apt state is never touched and
the package closure does not depend on what the machine happens to have installed.
Other private prefixes (tools/remote_cache's nginx) use the same state with other suites.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
SOURCES_DIRS = (Path("/etc/apt/sources.list.d"), Path("/etc/apt"))
# Suites the private state reads, each with its extra source options. Bazel's default.
BOOKWORM_AND_SID = (
    ("bookworm", ""),
    # The mirror's sid index can be past its Valid-Until date.
    ("sid", " check-valid-until=no"),
)


class AptError(RuntimeError):
    """An apt step failed; the message says what to do about it."""


def system_mirror() -> str:
    """The Debian archive URI the machine's own apt sources use (never written into the tree)."""
    pattern = re.compile(r"^(?:URIs:\s*|deb(?:\s+\[[^\]]*\])?\s+)(\S+)")
    for folder in SOURCES_DIRS:
        for path in sorted(folder.glob("*.sources")) + sorted(folder.glob("*.list")):
            for line in path.read_text().splitlines():
                match = pattern.match(line.strip())
                if match and match.group(1).rstrip("/").endswith("/debian"):
                    return match.group(1).rstrip("/")
    raise AptError(
        "no Debian archive found in /etc/apt/sources.list.d or /etc/apt/sources.list; "
        "tools/bazel and tools/remote_cache install Bazel and nginx from Debian packages "
        "and need the machine's Debian mirror"
    )


class PrivateApt:
    """apt-get / apt-cache / apt-helper over a private state directory."""

    def __init__(
        self,
        state_dir: Path,
        mirror: str,
        suites: tuple[tuple[str, str], ...] = BOOKWORM_AND_SID,
    ) -> None:
        self.state_dir = state_dir
        self.mirror = mirror
        (state_dir / "lists" / "partial").mkdir(parents=True, exist_ok=True)
        (state_dir / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
        (state_dir / "status").touch()
        sources = state_dir / "sources.list"
        sources.write_text(
            "".join(
                f"deb [signed-by={KEYRING}{options}] {mirror} {suite} main\n"
                for suite, options in suites
            )
        )
        self.options = [
            f"-oDir::Etc::SourceList={sources}",
            "-oDir::Etc::SourceParts=/dev/null",
            "-oDir::Etc::Preferences=/dev/null",
            "-oDir::Etc::PreferencesParts=/dev/null",
            f"-oDir::State::Lists={state_dir / 'lists'}",
            f"-oDir::Cache={state_dir / 'cache'}",
            f"-oDir::State::status={state_dir / 'status'}",
            "-oAPT::Get::List-Cleanup=0",
        ]

    def run(self, tool: str, *args: str) -> str:
        result = subprocess.run(
            [tool, *self.options, *args], capture_output=True, text=True, check=False
        )
        if result.returncode != 0:
            raise AptError(
                f"`{tool} {' '.join(args)}` failed (exit {result.returncode}):\n"
                f"{result.stderr.strip()}\n"
                "Check that the machine reaches its Debian mirror (`apt-get update` works)."
            )
        return result.stdout

    def update(self) -> None:
        self.run("apt-get", "update", "-q")

    def download(self, pool_path: str, target: Path, sha256: str) -> None:
        """Fetch one archive file; apt-helper verifies the hash with the machine's apt config."""
        self.run(
            "/usr/lib/apt/apt-helper",
            "download-file",
            f"{self.mirror}/{pool_path}",
            str(target),
            f"SHA256:{sha256}",
        )


if __name__ == "__main__":
    # `python3 debian_apt.py`: the mirror, for repository rules that fetch pinned packages
    # (toolchains/cc/host_gcc_repository.bzl) without writing its host into the tree.
    try:
        print(system_mirror())
    except AptError as error:
        raise SystemExit(str(error)) from None
