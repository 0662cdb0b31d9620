"""The dataset of a game task: one sample per game, each naming its seed and
the seats the evaluated model plays there.

Who the model plays (at most one of ``side``, ``role``, ``seat``):

- nothing: one seat, rotated: sample i plays seat ``i mod seats`` of the game
  with seed ``seed + i`` (its role is whatever that deal gives it);
- ``seat=N``: seat N of every game (seeds ``seed + i``);
- ``role=R``: one seat dealt R (``R`` matches ``R`` and ``R/...``); with several
  such seats, sample i takes the ``i mod count``-th;
- ``side=S``: every seat on the study side S (``Variant.research.study_sides``);
- ``side=each``: the sides in turn: sample i plays side ``i mod k`` in the game
  with seed ``seed + i div k``, so each seed is played once from every side.

The deal is the referee's own (``new_game`` with the sample's seed), made once
here to name the seats and again by the solver to play them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.dataset import Sample

from sandbox.core.errors import ConfigError
from sandbox.core.game import Game
from sandbox.session.api import new_game
from sandbox.session.gamefile import role_matches

EACH = "each"


@dataclass(frozen=True)
class Casting:
    """Who the evaluated model plays, as the task's arguments say."""

    side: str | None = None
    role: str | None = None
    seat: int | None = None

    def __post_init__(self) -> None:
        given = [name for name in ("side", "role", "seat") if getattr(self, name) is not None]
        if len(given) > 1:
            raise ConfigError(f"give at most one of side, role, seat (got {', '.join(given)})")


@dataclass(frozen=True)
class GamePlan:
    """The games of one task: ``games`` samples from seed ``seed``, ``rules`` the
    variant's rulings (a game file's ``[rules]``)."""

    variant: str
    games: int
    seed: int = 0
    casting: Casting = Casting()
    rules: Mapping[str, Any] = field(default_factory=dict)

    def new_game(self, seed: int) -> Game:
        return new_game(self.variant, seed, **self.rules)


@dataclass(frozen=True)
class Cast:
    """One sample's game: its seed and the seats the model plays there."""

    seed: int
    seats: tuple[int, ...]
    side: str  # the study side of the seats played (the first seat's)
    roles: Mapping[int, str]  # the seats played, with their roles


def cast_all(plan: GamePlan) -> list[Cast]:
    """Every sample's cast, in sample order; ConfigError for a casting that the
    variant cannot give (an unknown side, a seat out of range, a role never dealt)."""
    if plan.games < 1:
        raise ConfigError(f"games: at least 1 (got {plan.games})")
    return [cast_one(plan, i) for i in range(plan.games)]


def cast_one(plan: GamePlan, index: int) -> Cast:
    casting = plan.casting
    sides: Sequence[str] = ()
    seed = plan.seed + index
    if casting.side is not None:
        sides = study_sides(plan)
        if casting.side == EACH:
            seed = plan.seed + index // len(sides)
    game = plan.new_game(seed)
    roles, variant = game.roles(), game.variant
    if casting.side == EACH:
        wanted = sides[index % len(sides)]
        seats = [s for s in game.seats if variant.research.study_side(roles[s]) == wanted]
    elif casting.side is not None:
        seats = [s for s in game.seats if variant.research.study_side(roles[s]) == casting.side]
    elif casting.role is not None:
        found = [s for s in game.seats if role_matches(casting.role, roles[s])]
        if not found:
            known = ", ".join(sorted(set(roles.values())))
            raise ConfigError(f"role: no seat is dealt {casting.role!r} (seed {seed}: {known})")
        seats = [found[index % len(found)]]
    elif casting.seat is not None:
        if casting.seat not in game.seats:
            raise ConfigError(f"seat: {casting.seat} is not a seat here ({seats_text(game)})")
        seats = [casting.seat]
    else:
        seats = [list(game.seats)[index % len(game.seats)]]
    if not seats:
        raise ConfigError(f"side: no seat plays {casting.side!r} (seed {seed})")
    side = variant.research.study_side(roles[seats[0]])
    return Cast(seed, tuple(seats), side, {s: roles[s] for s in seats})


def study_sides(plan: GamePlan) -> Sequence[str]:
    """The variant's study sides; ConfigError unless ``side`` is one (or each)."""
    game = plan.new_game(plan.seed)
    sides = game.variant.research.study_sides() or tuple(
        sorted({game.variant.research.study_side(r) for r in game.roles().values()})
    )
    wanted = plan.casting.side
    if wanted != EACH and wanted not in sides:
        raise ConfigError(f"side: {wanted!r} is not a side; known: {', '.join(sides)}, {EACH}")
    return sides


def seats_text(game: Game) -> str:
    seats = list(game.seats)
    return f"seats {seats[0]}-{seats[-1]}"


def to_sample(plan: GamePlan, index: int, cast: Cast, title: str, opponents: str) -> Sample:
    """The inspect sample of one game: its input says what is played (for the
    log viewer), its metadata how (read back by the solver and the scorer)."""
    who = ", ".join(f"seat {s} ({role})" for s, role in cast.roles.items())
    text = f"{title}, seed {cast.seed}: the model plays {who}; opponents: {opponents}."
    return Sample(
        id=index + 1,
        input=text,
        metadata={
            "variant": plan.variant,
            "seed": cast.seed,
            "seats": list(cast.seats),
            "side": cast.side,
            "roles": {str(s): r for s, r in cast.roles.items()},
            "rules": dict(plan.rules),
        },
    )


def samples_of(plan: GamePlan, title: str, opponents: str) -> list[Sample]:
    return [to_sample(plan, i, cast, title, opponents) for i, cast in enumerate(cast_all(plan))]
