"""A game file's fixed seats (``[[seat]]`` entries, for scenarios) checked
against the line-up the rulings deal, the same way in every variant whose
entries fix a role: Killer (KG-1) and Werewolf (WW-1)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol


class RoleFix(Protocol):
    """A ``[[seat]]`` entry: the seat and the role it is dealt."""

    @property
    def seat(self) -> int: ...

    @property
    def role(self) -> str: ...


def check_fixed_seats(
    fixes: Sequence[RoleFix],
    players: int,
    lineup: Mapping[str, int],
    too_many: Callable[[int, str, int], str],
) -> None:
    """Raise ValueError (a config error naming the key) unless every fixed seat
    is at the table, none is fixed twice, and no role is fixed more often than
    ``lineup`` deals it; ``too_many(fixed, role, allowed)`` words that last
    error with the variant's rule."""
    seats = [fix.seat for fix in fixes]
    outside = [s for s in seats if s > players]
    if outside:
        raise ValueError(f"{outside} out of range; allowed: 1..{players}")
    if len(set(seats)) != len(seats):
        raise ValueError(f"a seat is fixed twice ({sorted(seats)})")
    for role, allowed in lineup.items():
        fixed = sum(1 for fix in fixes if fix.role == role)
        if fixed > allowed:
            raise ValueError(too_many(fixed, role, allowed))
