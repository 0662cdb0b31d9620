"""Typed errors raised by the referee. Messages are written to be actionable:
a model or a person must be able to fix its answer from the message alone."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class RefereeError(Exception):
    """Base class of every error the engine raises on purpose."""


class IllegalDecision(RefereeError):
    """A decision that breaks a rule or does not fit the request."""

    def __init__(
        self,
        rule: str,
        message: str,
        legal: Mapping[str, Sequence[object]] | None = None,
    ) -> None:
        self.rule = rule
        self.detail = message
        self.legal: dict[str, list[object]] = {k: list(v) for k, v in (legal or {}).items()}
        super().__init__(self.render())

    def render(self) -> str:
        text = f"[{self.rule}] {self.detail}"
        if self.legal:
            opts = "; ".join(f"{k}: {_fmt(v)}" for k, v in self.legal.items())
            text += f" Legal options — {opts}."
        return text


class UnknownRequest(RefereeError):
    """A decision for a request that is not open (stale, answered, or another seat's)."""


class GameOver(RefereeError):
    """The game has ended; no more decisions are taken."""


class ConfigError(RefereeError):
    """A configuration that cannot be played. The message names the field and allowed values."""


def _fmt(values: Sequence[object]) -> str:
    shown = ", ".join("null" if v is None else str(v) for v in values)
    return f"[{shown}]"
