"""The Four Factions strike table (FF-21) as data, and the duel procedure (FF-22)
that reads it. Pure functions, no state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Effect = Literal["none", "kill", "wound"]

# FF-4: what each weapon beats.
BEATS: Mapping[str, str] = {"rock": "scissors", "scissors": "paper", "paper": "rock"}

# FF-21, the one strike table: (striking weapon, weapon the struck shield guards
# against) -> effect. Same weapon: no effect; the weapon beats the guarded one:
# kill whatever the HP; the guarded weapon beats the strike: light wound (HP - 1).
STRIKE_TABLE: Mapping[tuple[str, str], Effect] = {
    ("rock", "rock"): "none",
    ("rock", "scissors"): "kill",
    ("rock", "paper"): "wound",
    ("scissors", "scissors"): "none",
    ("scissors", "paper"): "kill",
    ("scissors", "rock"): "wound",
    ("paper", "paper"): "none",
    ("paper", "rock"): "kill",
    ("paper", "scissors"): "wound",
}


def shield_of(weapon: str) -> str:
    """The shield guarding against ``weapon`` (FF-6: a regular's own shield)."""
    return f"anti-{weapon}"


def guarded(shield: str) -> str:
    """The weapon a shield guards against ('anti-paper' -> 'paper')."""
    return shield.removeprefix("anti-")


# The same table keyed by the struck one's shield as the duel meets it, built once
# from STRIKE_TABLE: a strike is then one lookup (there is one per duel strike).
_BY_SHIELD: Mapping[tuple[str, str], Effect] = {
    (weapon, shield_of(guarded_weapon)): effect
    for (weapon, guarded_weapon), effect in STRIKE_TABLE.items()
}


@dataclass(frozen=True, slots=True)
class Fighter:
    """One side of a duel, as the referee knows it for this night."""

    seat: int
    elite: bool
    weapon: str
    shield: str
    hp: int


@dataclass(frozen=True, slots=True)
class Strike:
    """One strike of a duel and its result on the struck fighter."""

    striker: int
    struck: int
    weapon: str
    effect: Effect
    hp_after: int

    @property
    def killed(self) -> bool:
        return self.hp_after <= 0


def strike_effect(weapon: str, shield: str, *, regular_vs_regular: bool, wounds: bool) -> Effect:
    """FF-21 for one strike; the FF-23 ruling option turns regular-vs-regular
    wounds into no effect when ``wounds`` is False."""
    effect = _BY_SHIELD.get((weapon, shield)) or STRIKE_TABLE[(weapon, guarded(shield))]
    if effect == "wound" and regular_vs_regular and not wounds:
        return "none"
    return effect


def strike(a: Fighter, b: Fighter, wounds: bool) -> Strike:
    """``a`` strikes ``b`` once (FF-21). HP 0 is death; a kill sets HP to 0."""
    both_regular = not a.elite and not b.elite
    effect = strike_effect(a.weapon, b.shield, regular_vs_regular=both_regular, wounds=wounds)
    if effect == "none":
        hp = b.hp
    elif effect == "wound":
        hp = max(b.hp - 1, 0)
    else:
        hp = 0
    return Strike(a.seat, b.seat, a.weapon, effect, hp)


def duel(attacker: Fighter, defender: Fighter, wounds: bool) -> tuple[Strike, ...]:
    """FF-22: the attacker strikes first; a surviving defender strikes back once
    (also at a faction-mate, FF-24); then the duel ends."""
    first = strike(attacker, defender, wounds)
    if first.killed:
        return (first,)
    return (first, strike(defender, attacker, wounds))
