"""Who may see an event: everyone, a set of seats, or only the referee."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Scope = Literal["public", "seats", "referee"]


@dataclass(frozen=True, slots=True)
class Visibility:
    """The audience of one event. The referee sees every event."""

    scope: Scope
    seats: frozenset[int] = frozenset()

    def visible_to(self, seat: int) -> bool:
        return self.scope == "public" or (self.scope == "seats" and seat in self.seats)

    def to_json(self) -> str | list[int]:
        if self.scope == "seats":
            return sorted(self.seats)
        return self.scope

    @staticmethod
    def from_json(raw: object) -> Visibility:
        if raw == "public":
            return PUBLIC
        if raw == "referee":
            return REFEREE
        if isinstance(raw, list) and all(isinstance(s, int) for s in raw):
            return only(*raw)
        raise ValueError(f"bad visibility: {raw!r}")


PUBLIC = Visibility("public")
REFEREE = Visibility("referee")


def only(*seats: int) -> Visibility:
    """Visible to exactly these seats (and the referee)."""
    if len(seats) == 1 and type(seats[0]) is int:
        return _only_one(seats[0])
    return Visibility("seats", frozenset(seats))


@lru_cache(maxsize=256)
def _only_one(seat: int) -> Visibility:
    """One seat's audience (each seat's own decisions and cards), built once: a
    Visibility is immutable, so every event of that seat may share it."""
    return Visibility("seats", frozenset((seat,)))
