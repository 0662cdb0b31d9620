"""Setting up a Killer game (KG-1, KG-2, KG-5, KG-7, KG-11): the public line-up and
rulings, the dealt cards, the team lists, then night 1."""

from __future__ import annotations

import random
from collections.abc import Iterator

from sandbox.core.events import Event
from sandbox.games.killer.config import KillerConfig, lineup
from sandbox.games.killer.events import GameStarted, NightFell, RoleCard, TeamList
from sandbox.games.killer.info import KILLER, POLICE


def setup_events(config: KillerConfig, rng: random.Random) -> Iterator[Event]:
    counts = lineup(config.players)
    yield GameStarted(
        config.players,
        counts[KILLER],
        counts[POLICE],
        counts[KILLER],  # KG-7: the quota equals the number of killers at the start
        config.day_limit,
        config.check_answer,
        config.reveal_role_on_death,
        config.previous_first_victim,
        config.concede,
    )
    roles = deal(config, rng)
    for seat, role in roles.items():
        yield RoleCard(seat, role)
    for team in (KILLER, POLICE):
        yield TeamList(team, tuple(s for s, r in roles.items() if r == team))
    yield NightFell(1)  # KG-11: the game starts with night 1


def deal(config: KillerConfig, rng: random.Random) -> dict[int, str]:
    """KG-2: fixed [[seat]] roles first, the remaining cards shuffled over the other seats."""
    roles = {fix.seat: str(fix.role) for fix in config.seat}
    deck: list[str] = []
    for role, count in lineup(config.players).items():
        deck += [role] * (count - sum(1 for r in roles.values() if r == role))
    rng.shuffle(deck)
    free = [s for s in range(1, config.players + 1) if s not in roles]
    roles.update(zip(free, deck, strict=True))
    return dict(sorted(roles.items()))
