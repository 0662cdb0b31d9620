"""What Four Factions shows beside its sentences: a seat card's duel table
(FF-12) and what each event changes on the viewer's seat board (deaths, HP,
factions learned)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sandbox.core.words import (
    BoardEffects,
    BoardMaker,
    CardTable,
    Lang,
)

D = Mapping[str, Any]


# ------------------------------------------------------------ seat card


def duel_table(duels: Sequence[Mapping[str, Any]], L: Lang) -> list[tuple[str, ...]]:
    """A seat's duels (its card's ``duels``) as a table, header row first,
    instead of one long paragraph (FF-12)."""
    header = tuple(
        L.say(en=en, zh=zh)
        for en, zh in (
            ("night", "夜"),
            ("half", "半夜"),
            ("role", "身份"),
            ("opponent", "对手"),
            ("struck with", "对方武器"),
            ("struck back with", "反击武器"),
            ("outcomes", "结果"),
            ("HP after", "之后生命值"),
        )
    )
    table: list[tuple[str, ...]] = [header]
    for duel in duels:
        outcomes = L.join(
            L.say(
                en=f"{o.get('by')} {o.get('weapon')}: {o.get('effect')}"
                f"{' (died)' if o.get('died') else ''}",
                zh=f"{L.term(o.get('by'))}{L.term(o.get('weapon'))}：{L.term(o.get('effect'))}"
                f"{'（死亡）' if o.get('died') else ''}",
            )
            for o in duel.get("outcomes") or []
        )
        table.append(
            (
                str(duel.get("day")),
                str(duel.get("half")),
                L.term(duel.get("role")),
                L.seat(duel.get("opponent")) if duel.get("opponent") is not None else "?",
                L.value(duel.get("weapon_struck_with")),
                L.value(duel.get("weapon_struck_back_with")),
                outcomes or "-",
                L.value(duel.get("hp_after")),
            )
        )
    return table


CARD_TABLES: dict[str, CardTable] = {"duels": duel_table}


# ------------------------------------------------------------ seat board
# What an event tells an audience about the seats (the viewer's board).


def _board_role(d: D, L: Lang) -> BoardEffects:  # FF-5..FF-7
    rank = L.term("elite" if d.get("elite") else "regular")
    faction = L.term(d.get("faction"))
    return {
        "role": {str(d["seat"]): f"{faction}{rank}" if L.zh else f"{faction} {rank}"},
        "hp": {str(d["seat"]): d.get("max_hp")},
    }


def _board_elite_knowledge(d: D, L: Lang) -> BoardEffects:  # FF-9
    return {"role": {str(s): L.term(f) for s, f in (d.get("regulars") or {}).items()}}


def _board_elite_known(d: D, L: Lang) -> BoardEffects:  # FF-10
    return {"role": {str(d["elite_seat"]): L.say(en="elite (own faction)", zh="本阵营最强精英")}}


def _board_duel(d: D, L: Lang) -> BoardEffects:  # referee only
    return {"hp": {str(s["struck"]): s["hp_after"] for s in d.get("strikes") or ()}}


def _board_report(d: D, L: Lang) -> BoardEffects:  # FF-12: own HP
    return {"hp": {str(d["seat"]): d.get("hp_after")}}


def _board_dawn(d: D, L: Lang) -> BoardEffects:  # FF-28
    return {
        "dead": [int(s) for s in d.get("dead") or ()],
        "role": {str(s): L.term(f) for s, f in (d.get("factions") or {}).items()},
    }


BOARD: dict[str, BoardMaker] = {
    "ff.role": _board_role,
    "ff.elite_knowledge": _board_elite_knowledge,
    "ff.elite_known": _board_elite_known,
    "ff.duel": _board_duel,
    "ff.attack_report": _board_report,
    "ff.defence_report": _board_report,
    "ff.dawn": _board_dawn,
}
