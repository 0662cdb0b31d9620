"""Setting up a Four Factions game: dealing roles (FF-8), a seeded shuffle of
seats onto the sixteen role slots respecting every fixed [[seat]] entry (a
perfect matching by augmenting paths honours any satisfiable set of fixed
seats), then the role cards, the elites' knowledge (FF-9, FF-10) and day 1."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import sandbox.games.four_factions.events as ev
from sandbox.core.events import Event
from sandbox.games.four_factions.info import WEAPONS, Phase, Stage
from sandbox.games.four_factions.slots import FixedSeat, match_seats
from sandbox.games.four_factions.strikes import shield_of

if TYPE_CHECKING:  # only for annotations: the config check needs slots.py, not this
    from sandbox.games.four_factions.config import FourFactionsConfig


def deal(
    specs: Sequence[FixedSeat], balanced: bool, rng: random.Random
) -> dict[int, tuple[str, bool, str | None]]:
    """Seat -> (faction, elite, weapon). Random mode draws unfixed weapons (FF-8)."""
    slots = match_seats(specs, balanced=balanced, order=rng)
    fixed_weapon = {s.seat: s.weapon for s in specs if s.weapon is not None}
    roles: dict[int, tuple[str, bool, str | None]] = {}
    for seat in sorted(slots):
        slot = slots[seat]
        weapon = slot.weapon
        if not slot.elite and weapon is None:
            weapon = fixed_weapon.get(seat) or rng.choice(WEAPONS)
        roles[seat] = (slot.faction, slot.elite, weapon)
    return roles


def setup_events(config: FourFactionsConfig, rng: random.Random) -> Iterator[Event]:
    roles = deal(config.seat, config.weapon_assignment == "balanced", rng)  # FF-8
    for seat, (faction, elite, weapon) in roles.items():
        shield = None if weapon is None else shield_of(weapon)  # FF-6
        yield ev.RoleDealt(seat, faction, elite, weapon, shield, config.seat_hp(seat))
    elites = {f: s for s, (f, e, _) in roles.items() if e}
    for seat, (faction, elite, _) in roles.items():
        if elite:
            yield ev.EliteKnowledge(seat, _known_regulars(config, roles, faction))  # FF-9
        else:
            yield ev.EliteKnown(seat, elites[faction])  # FF-10
    yield ev.PhaseStarted(1, Phase.DAY, Stage.PROOFS)


def _known_regulars(
    config: FourFactionsConfig,
    roles: Mapping[int, tuple[str, bool, str | None]],
    faction: str,
) -> dict[str, str]:
    own_only = config.elite_knowledge == "own_faction"
    return {
        str(s): f
        for s, (f, elite, _) in sorted(roles.items())
        if not elite and (not own_only or f == faction)
    }
