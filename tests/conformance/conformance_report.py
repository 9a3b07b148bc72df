"""The OpInfo conformance harness's report: the Markdown table of a run and the list of
known differences (op_conformance.py)."""

from __future__ import annotations

import collections
from pathlib import Path

# How an op's run is classed (op_conformance.py's docstring says what each means).
CLASSES = ("agree", "differ", "error", "crash", "n/a")


def escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def row_error_inputs(row: dict) -> tuple[int, int, str]:
    """(raised as stock, checked, first mismatch) of a row; nothing checked for a crash."""
    return tuple(row.get("error_inputs", (0, 0, "")))


def row_variants(row: dict) -> tuple[int, int, str]:
    """(agreeing, checked, first mismatch) of a row's noncontiguous, in-place and gradient
    checks."""
    return tuple(row.get("variants", (0, 0, "")))


def markdown(rows: list[dict], title: str, notes: list[str]) -> str:
    """The run's table: counts per class, the native/error_inputs/variants totals, a row per op."""
    counts = collections.Counter(r["class"] for r in rows)
    native = sum(1 for r in rows if r["class"] in ("agree", "differ") and not r["fallback"])
    lines = [f"# {title}", "", *notes, "", "| class | ops |", "| --- | ---: |"]
    lines += [f"| {c} | {counts.get(c, 0)} |" for c in CLASSES]
    checked = [r for r in rows if row_error_inputs(r)[1]]
    as_stock = sum(1 for r in checked if row_error_inputs(r)[0] == row_error_inputs(r)[1])
    variant_checked = [r for r in rows if row_variants(r)[1]]
    variants_agree = sum(1 for r in variant_checked if row_variants(r)[0] == row_variants(r)[1])
    lines += [f"| total | {len(rows)} |", "",
              f"Ops that ran with no CPU fallback at all: {native}.", "",
              f"Ops whose error_inputs all raise as stock expects: {as_stock} of {len(checked)}.",
              "", f"Ops whose noncontiguous samples, in-place variant and gradients all agree: "
              f"{variants_agree} of {len(variant_checked)}.",
              "", "| op | class | path | dtypes | samples | fell back (aten ops) "
              "| error_inputs | variants | detail |",
              "| --- | --- | --- | --- | ---: | --- | --- | --- | --- |"]
    for r in rows:
        ran = r["class"] in ("agree", "differ")
        path = "fallback" if r["fallback"] else ("native" if ran else "")
        dtypes = ", ".join(d.replace("torch.", "") for d in r["dtypes"])
        passed, total, mismatch = row_error_inputs(r)
        errors = f"{passed}/{total}" if total else ""
        agreed, checks, variant_mismatch = row_variants(r)
        variants = f"{agreed}/{checks}" if checks else ""
        detail = "; ".join(d for d in (r["detail"], mismatch, variant_mismatch) if d)
        lines.append(f"| {escape(r['op'])} | {r['class']} | {path} | {dtypes} | {r['samples']} "
                     f"| {escape(', '.join(r['fallback']))} | {errors} | {variants} "
                     f"| {escape(detail)} |")
    return "\n".join(lines) + "\n"


def read_known_differences(path: Path, device_under_test: str) -> dict[str, str]:
    """`op  reason...` per line, `op@device  reason...` for one device under test only;
    '#' starts a comment."""
    known = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            entry, _, reason = line.partition(" ")
            if not reason.strip():
                raise ValueError(f"{path.name}: '{entry}' has no reason")
            op, _, device = entry.partition("@")
            if device in ("", device_under_test):
                known[op] = reason.strip()
    return known
