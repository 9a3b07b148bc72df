"""Fails (with the offending lines) when an audit report is non-empty.

With --expect-violation it checks the opposite, so each audit is proven able to fail
on a fixture that breaks its rule.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("report", type=Path)
    parser.add_argument("--rule", required=True, help="what the audit enforces, for messages")
    parser.add_argument("--expect-violation", action="store_true")
    args = parser.parse_args()
    report = Path(os.environ.get("TEST_SRCDIR", ".")) / os.environ.get("TEST_WORKSPACE", "")
    lines = [line for line in (report / args.report).read_text().splitlines() if line.strip()]
    if args.expect_violation:
        if not lines:
            print(f"FAILED: the audit '{args.rule}' found nothing in a fixture that breaks it")
            return 1
        print(f"audit '{args.rule}' catches the fixture:\n  " + "\n  ".join(lines))
        print("1 passed, 0 failed")
        return 0
    if lines:
        print(f"FAILED: {args.rule}. Offending:\n  " + "\n  ".join(lines))
        return 1
    print(f"audit '{args.rule}': clean\n1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
