"""A Four Factions seat's card said to the seat (its faction, elite knowledge,
HP and loadout), and the seat-ordered reading of a table of seats."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.words import Lang

D = Mapping[str, Any]


def by_seat(table: object) -> list[tuple[str, Any]]:
    assert isinstance(table, Mapping)
    return sorted(((str(k), v) for k, v in table.items()), key=lambda kv: int(kv[0]))


# ------------------------------------------------------------- the card
# A seat's card said to the seat (FF-5..FF-10, FF-12): faction and rank, kit,
# HP, the elite it knows or the factions an elite knows (duels: a table).


def card(p: D, L: Lang) -> list[tuple[str, str]]:
    faction, rank = p.get("faction"), "elite" if p.get("elite") else "regular"
    seat, article = p.get("seat"), "an" if p.get("elite") else "a"
    rows = [
        (
            L.say(en="You are", zh="你是"),
            L.say(en=f"{L.seat(seat, capital=True)}: {faction}, {article} {rank}",
                  zh=f"{L.seat(seat)}：{L.term(faction)}{L.term(rank)}"),
        ),
        (L.say(en="HP", zh="生命值"),
         L.say(en=f"{p.get('hp')} of {p.get('max_hp')}", zh=f"{p.get('hp')}/{p.get('max_hp')}")
         + ("" if p.get("alive", True) else L.say(en=" (dead)", zh="（已死亡）"))),
    ]  # fmt: skip
    kit = kit_words(p, L)
    if kit:
        rows.append((L.say(en="Weapon and shield", zh="武器和盾牌"), kit))
    if p.get("my_elite") is not None and not p.get("elite"):
        rows.append(
            (L.say(en="Your elite", zh="本阵营最强精英"), L.seat(p["my_elite"], capital=True))
        )
    known = p.get("known_factions") or {}
    if known:
        shown = L.items(f"{L.seat(s, capital=True)} {L.term(f)}" for s, f in by_seat(known))
        rows.append((L.say(en="Factions you know", zh="已知阵营"), shown))
    return rows


def kit_words(p: D, L: Lang) -> str:
    """The weapon and shield a seat fights with now: a regular's own, an elite's
    chosen loadout for the night (FF-5); '' while an elite has none."""
    loadout = p.get("loadout") or {}
    weapon = p.get("weapon") or loadout.get("weapon")
    shield = p.get("shield") or loadout.get("shield")
    if not weapon:
        return ""
    return L.say(en=f"{weapon} and {shield}", zh=f"武器{L.term(weapon)}、盾牌{L.term(shield)}")


def team_of(p: D) -> tuple[int, ...]:
    """FF-9/FF-10: a regular knows its elite; an elite knows its faction's regulars."""
    own = p.get("faction")
    seats = [int(s) for s, f in (p.get("known_factions") or {}).items() if f == own]
    if p.get("my_elite") is not None:
        seats.append(int(p["my_elite"]))
    return tuple(sorted(s for s in set(seats) if s != p.get("seat")))
