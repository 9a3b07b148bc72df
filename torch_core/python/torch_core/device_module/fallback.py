"""The CPU fallback's policy and counters."""

from __future__ import annotations

from torch_core.device_module.context import DeviceContext


def add_fallback(ctx: DeviceContext) -> None:
    C = ctx.C

    @ctx.export
    def fallback_counts() -> dict[str, int]:
        """{operator: calls that ran on the CPU} since the last reset."""
        return dict(C._fallback_counts())

    @ctx.export
    def reset_fallback_counts() -> None:
        C._reset_fallback_counts()

    @ctx.export
    def set_fallback_policy(policy: str) -> None:
        """'allow', 'warn' (once per operator) or 'error' (NotImplementedError)."""
        C._set_fallback_policy(policy)

    @ctx.export
    def get_fallback_policy() -> str:
        return str(C._get_fallback_policy())
