"""Tiny game's events: frozen dataclasses with JSON-like fields; each says who
may see it. State and views are folds of these (and the core's) events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from sandbox.core.events import Event
from sandbox.core.visibility import Visibility, only


@dataclass(frozen=True, slots=True)
class GameStarted(Event):  # TG-1: public, so views know the table
    kind: ClassVar[str] = "tinygame.started"
    seats: int
    rounds: int


@dataclass(frozen=True, slots=True)
class RoleCard(Event):  # TG-2: only the seat itself learns its role
    kind: ClassVar[str] = "tinygame.role"
    seat: int
    role: str

    def visibility(self) -> Visibility:
        return only(self.seat)


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):  # TG-3
    kind: ClassVar[str] = "tinygame.round"
    day: int
    living: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Speech(Event):  # TG-3: player text, always shown as quoted data
    kind: ClassVar[str] = "tinygame.speech"
    day: int
    seat: int
    text: str


@dataclass(frozen=True, slots=True)
class Ballots(Event):  # TG-4: every ballot is announced
    kind: ClassVar[str] = "tinygame.ballots"
    day: int
    ballots: Mapping[str, int | None]


@dataclass(frozen=True, slots=True)
class Ejected(Event):  # TG-4: the ejected seat's role is revealed
    kind: ClassVar[str] = "tinygame.ejected"
    day: int
    seat: int | None
    role: str | None
