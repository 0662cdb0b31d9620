"""Which contestant plays which side in which game (pure; no I/O).

A *cell* gives each side of the variant one contestant. Two schedules:

- ``matrix`` (pairwise): for every ordered pair (A, B) of different contestants
  and every side S, A plays S and B plays every other side. Duplicate cells are
  dropped (in Killer, "A plays killer, B the rest" is "B plays police, A the
  rest"). Every contestant meets every other one on every side.
- ``round_robin``: n rotations of the pool over the sides (n contestants): in
  rotation r, side i goes to contestant (i + r) mod n. Each contestant plays
  each side exactly once per round; with fewer contestants than sides one
  contestant plays several sides of a game.
- ``i3``: every assignment of a contestant to each *role* (not side) the deal
  has: I^R cells for I contestants and R distinct roles, a contestant allowed
  on several roles of one game — the I³ line-ups of Mini-Mafia (arXiv
  2509.23023: mafioso, detective, villager; every seat of a role gets the
  role's contestant). The cell's mapping is then role -> contestant.

Role rotation: in both schedules each contestant plays each side in the same
number of cells. Seat balance: game j of *every* cell uses seed ``seed + j``,
so the same deal is replayed with the contestants swapped; over a study each
contestant sits on each seat equally often.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations, product
from typing import Any

from pydantic import BaseModel

from sandbox.core.game import Game
from sandbox.core.variant import Variant
from sandbox.transcript.sides import side_of, sides_of

Cell = Mapping[str, str]  # side -> contestant


def matrix_cells(names: Sequence[str], sides: Sequence[str]) -> list[dict[str, str]]:
    cells: list[dict[str, str]] = []
    for first, second in permutations(names, 2):
        for focus in sides:
            cell = {side: (first if side == focus else second) for side in sides}
            if cell not in cells:
                cells.append(cell)
    return cells


def round_robin_cells(names: Sequence[str], sides: Sequence[str]) -> list[dict[str, str]]:
    count = len(names)
    return [{side: names[(i + r) % count] for i, side in enumerate(sides)} for r in range(count)]


def i3_cells(names: Sequence[str], roles: Sequence[str]) -> list[dict[str, str]]:
    """Every role -> contestant assignment, in lexicographic order of the names."""
    return [dict(zip(roles, pick, strict=True)) for pick in product(names, repeat=len(roles))]


def cells_for(schedule: str, names: Sequence[str], sides: Sequence[str]) -> list[dict[str, str]]:
    if schedule == "i3":
        return i3_cells(names, sides)
    if schedule == "round_robin":
        return round_robin_cells(names, sides)
    return matrix_cells(names, sides)


def cell_id(cell: Cell, sides: Sequence[str]) -> str:
    """'killer=A,police=B': stable, readable, and the key of the game's identity."""
    return ",".join(f"{side}={cell[side]}" for side in sides)


@dataclass(frozen=True)
class Planned:
    """One game of a study: its cell, index within the cell, seed and seating."""

    cell: str
    sides: dict[str, str]  # side (schedule i3: role) -> contestant
    index: int
    seed: int
    seats: dict[int, str]  # seat -> contestant


def deal(variant: Variant[Any], config: BaseModel, seed: int) -> dict[int, str]:
    """The roles the referee deals for ``seed`` (setup only; pure and cheap)."""
    return dict(Game.new(variant, config, seed).roles())


def plan(
    variant: Variant[Any],
    config: BaseModel,
    schedule: str,
    names: Sequence[str],
    games_per_cell: int,
    seed: int,
) -> list[Planned]:
    """Every game of the study, cell by cell."""
    deals = [deal(variant, config, seed + j) for j in range(games_per_cell)]
    by_role = schedule == "i3"
    sides = sorted(set(deals[0].values())) if by_role else sides_of(variant.name, deals[0])
    planned: list[Planned] = []
    for cell in cells_for(schedule, names, sides):
        ident = cell_id(cell, sides)
        for index, roles in enumerate(deals):
            seats = {
                s: cell[r if by_role else side_of(variant.name, r)]
                for s, r in sorted(roles.items())
            }
            planned.append(Planned(ident, dict(cell), index, seed + index, seats))
    return planned
