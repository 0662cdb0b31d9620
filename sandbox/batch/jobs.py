"""The jobs of a batch as plain data: the job a worker plays, the result it sends
back, the whole batch's results, and the scheduling callbacks (with their
defaults: admit every job, never halt). Plain, so that they pickle to worker
processes and Ray tasks, and every backend speaks them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GameJob:
    """Everything a worker needs to play one game; plain data so it pickles."""

    raw_config: Mapping[str, Any]
    seed: int
    out: str
    header_extra: Mapping[str, Any] | None = None
    resume: str | None = None  # an interrupted transcript of this game, to finish
    key: str = ""  # the game's identity (sandbox/transcript/identity.py)
    providers: tuple[str, ...] = ()  # model providers its seats call

    @property
    def ident(self) -> str:
        return self.key or str(self.seed)


@dataclass(frozen=True)
class GameResult:
    """What one game of a batch produced (plain data, sent back from workers)."""

    seed: int
    transcript: str | None
    reason: str | None = None
    winners: tuple[str, ...] = ()  # role groups with at least one winning seat
    error: str | None = None
    interrupted: bool = False
    key: str = ""
    cost: float = 0.0
    resumed: bool = False
    # Why no game should start after this one (a provider's quota is spent);
    # the game itself stopped with a resumable transcript.
    stop: str | None = None
    # The disk stopped this game (full, read-only): not the game's failure; its
    # transcript, if begun, is a resumable prefix (docs/faults.md).
    fault: str | None = None

    @property
    def finished(self) -> bool:
        return self.error is None and not self.interrupted and self.fault is None

    @property
    def ident(self) -> str:
        return self.key or str(self.seed)

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "key": self.key,
            "cost": round(self.cost, 6),
            "resumed": self.resumed,
            "transcript": self.transcript,
            "reason": self.reason,
            "winners": list(self.winners),
            "error": self.error,
            "interrupted": self.interrupted,
            "stop": self.stop,
            "fault": self.fault,
        }


@dataclass
class BatchResult:
    """All games of a batch, sorted by seed, whatever order they finished in."""

    results: list[GameResult] = field(default_factory=list)
    interrupted: bool = False
    skipped: list[str] = field(default_factory=list)  # transcripts of games already finished
    stopped: str | None = None  # why scheduling stopped early (e.g. the cost cap)
    fault: str | None = None  # the first disk fault, which stopped scheduling

    @property
    def finished(self) -> list[GameResult]:
        return [r for r in self.results if r.finished]

    @property
    def failed(self) -> list[GameResult]:
        return [r for r in self.results if r.error is not None]

    @property
    def cut_short(self) -> list[GameResult]:
        """Games stopped by Ctrl-C: their transcripts are unfinished but resumable."""
        return [r for r in self.results if r.interrupted]


OnResult = Callable[[GameResult], None]
# May this job start now, given the jobs in flight? (per-provider limits)
Admit = Callable[[GameJob, Sequence[GameJob]], bool]
# Why no further job may start (e.g. the cost cap), or None to go on.
Halt = Callable[[Sequence[GameJob]], str | None]


def admit_all(job: GameJob, running: Sequence[GameJob]) -> bool:
    """The default ``Admit``: every job may start as soon as a worker is free."""
    return True


def never_halt(running: Sequence[GameJob]) -> str | None:
    """The default ``Halt``: scheduling goes on until every job has started."""
    return None


def halting_on_stop(on_result: OnResult, halt: Halt) -> tuple[OnResult, Halt]:
    """``on_result`` and ``halt`` such that once a result says ``stop`` (a
    provider's quota is spent), no further job starts; the games in flight end
    on their own (each stops at its next call to that provider)."""
    said: list[str] = []

    def seen(result: GameResult) -> None:
        if result.stop and not said:
            said.append(result.stop)
        on_result(result)

    def stopped(running: Sequence[GameJob]) -> str | None:
        return said[0] if said else halt(running)

    return seen, stopped
