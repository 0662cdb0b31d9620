"""Setting up a Werewolf game (WW-1, WW-2, WW-4): the public announcement with the
rulings, the dealt role cards, the pack's list, then night 1 (WW-5)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from sandbox.core.events import Event
from sandbox.games.werewolf.config import WerewolfConfig
from sandbox.games.werewolf.events import GameStarted, NightFell, Pack, RoleCard
from sandbox.games.werewolf.info import WEREWOLF

# Keys of the config that are not rulings everyone is told (WW-4): the fixed
# seats are the scenario author's, and they name roles.
PRIVATE_KEYS = frozenset({"seat"})


def rulings(config: WerewolfConfig) -> dict[str, Any]:
    """Every active ruling, as announced to all seats (WW-4)."""
    return {k: v for k, v in config.model_dump(mode="json").items() if k not in PRIVATE_KEYS}


def setup_events(config: WerewolfConfig, rng: random.Random) -> Iterator[Event]:
    counts = config.counts()
    yield GameStarted(
        config.players,
        counts["werewolf"],
        counts["seer"],
        counts["doctor"],
        counts["villager"],
        rulings(config),
    )
    roles = deal(config, rng)
    for seat, role in roles.items():
        yield RoleCard(seat, role)
    # WW-4: the werewolves learn each other's seats; nobody else learns anything.
    yield Pack(WEREWOLF, tuple(s for s, r in roles.items() if r == WEREWOLF))
    yield NightFell(1)  # WW-5: night 1 comes before day 1


def deal(config: WerewolfConfig, rng: random.Random) -> dict[int, str]:
    """WW-2: fixed [[seat]] roles first, the other cards shuffled by the seeded
    generator over the other seats."""
    roles = {fix.seat: str(fix.role) for fix in config.seat}
    deck: list[str] = []
    for role, count in config.counts().items():
        deck += [role] * (count - sum(1 for r in roles.values() if r == role))
    rng.shuffle(deck)
    free = [s for s in range(1, config.players + 1) if s not in roles]
    roles.update(zip(free, deck, strict=True))
    return dict(sorted(roles.items()))
