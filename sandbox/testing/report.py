"""What the conformance kit hands back: the report of a passed run, the error
of a failed check, and the helpers every check raises that error through."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from sandbox.core.game import Game

# The checks, in the order the kit runs them (names as ConformanceError.check).
CHECKS = ("terminates", "answers", "determinism", "visibility", "fold", "replay", "no-leak")


class ConformanceError(AssertionError):
    """A variant failed a check on one game; ``check_game(..., seed)`` repeats it."""

    def __init__(self, variant: str, seed: int, check: str, detail: str) -> None:
        super().__init__(f"{variant}, seed {seed}: check {check!r} failed: {detail}")
        self.variant = variant
        self.seed = seed
        self.check = check
        self.detail = detail


@dataclass
class ConformanceReport:
    """What was checked (all checks passed when you hold one)."""

    variant: str
    seeds: list[int] = field(default_factory=list)
    decisions: int = 0
    fallbacks: int = 0
    events: int = 0
    folds_compared: int = 0
    texts_audited: int = 0
    endings: Counter[str] = field(default_factory=Counter)

    @property
    def games(self) -> int:
        return len(self.seeds)

    def __str__(self) -> str:
        endings = ", ".join(f"{k} {n}" for k, n in sorted(self.endings.items()))
        return (
            f"{self.variant}: {self.games} games, {self.decisions} decisions "
            f"({self.fallbacks} fallbacks), {self.events} events, "
            f"{self.folds_compared} views compared, {self.texts_audited} views and prompts "
            f"audited; endings: {endings}"
        )


def fail(game: Game, seed: int, check: str, detail: str) -> ConformanceError:
    """The error for ``check`` failing on this game (the caller raises it)."""
    return ConformanceError(game.variant.name, seed, check, detail)


@contextmanager
def checking(game: Game, seed: int, check: str) -> Iterator[None]:
    """Any error inside becomes a ConformanceError naming the check and seed."""
    try:
        yield
    except ConformanceError:
        raise
    except Exception as exc:  # a crash in the variant is a failed check too
        raise fail(game, seed, check, f"{type(exc).__name__}: {exc}") from exc
