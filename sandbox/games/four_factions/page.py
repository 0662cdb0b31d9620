"""What a Four Factions seat's page shows beside the sentences: the seat's card
said to the seat (its faction, elite knowledge, HP and loadout, its duels as a
table), what it is shown beside its night attack question, and what each event
changes on the viewer's seat board (deaths, HP, factions learned). ``words.py``
puts these into :data:`~sandbox.games.four_factions.words.WORDS`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sandbox.core.words import BoardEffects, BoardMaker, CardTable, D, Lang
from sandbox.games.four_factions.resolve import BEATS, STRIKE_TABLE, guarded, shield_of
from sandbox.words.cards import identity


def by_seat(table: object) -> list[tuple[str, Any]]:
    assert isinstance(table, Mapping)
    return sorted(((str(k), v) for k, v in table.items()), key=lambda kv: int(kv[0]))


# ------------------------------------------------------------ the card
# A seat's card said to the seat (FF-5..FF-10, FF-12): faction and rank, kit,
# HP, the elite it knows or the factions an elite knows (duels: a table).


def card(p: D, L: Lang) -> list[tuple[str, str]]:
    faction, rank = p.get("faction"), "elite" if p.get("elite") else "regular"
    seat, article = p.get("seat"), "an" if p.get("elite") else "a"
    who, said = identity(L, seat, en=f"{article} {rank} of the {L.term(faction)} faction",
                         zh=f"{L.term(faction)}{L.term(rank)}")  # fmt: skip
    if p.get("my_elite") is not None and not p.get("elite"):  # FF-10: a regular knows its elite
        said += L.say(en=f" Your elite: {L.seat(p['my_elite'])}.",
                      zh=f"本阵营最强精英：{L.seat(p['my_elite'])}。")  # fmt: skip
    rows = [
        (who, said),
        (L.say(en="HP", zh="生命值"),
         L.say(en=f"{p.get('hp')} of {p.get('max_hp')}", zh=f"{p.get('hp')}/{p.get('max_hp')}")
         + ("" if p.get("alive", True) else L.say(en=" (dead)", zh="（已死亡）"))),
    ]  # fmt: skip
    kit = kit_words(p, L)
    if kit:
        rows.append((L.say(en="Weapon and shield", zh="武器和盾牌"), kit))
    known = p.get("known_factions") or {}
    if known:
        shown = L.items(f"{L.seat(s, capital=True)} {L.term(f)}" for s, f in by_seat(known))
        rows.append((L.say(en="Factions you know", zh="已知阵营"), shown))
    return rows


def kit(p: D) -> tuple[Any, Any]:
    """The weapon and shield a seat fights with now: a regular's own, an elite's
    chosen loadout for the night (FF-5); None while an elite has none."""
    loadout = p.get("loadout") or {}
    return p.get("weapon") or loadout.get("weapon"), p.get("shield") or loadout.get("shield")


def kit_words(p: D, L: Lang) -> str:
    """:func:`kit` in words; '' while the seat has no weapon."""
    weapon, shield = kit(p)
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


# ------------------------------------------------------------ the duel table


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


# ------------------------------------------------------------ attack notes
# FF-19's attack question, with what the seat itself knows: its own weapon and
# shield (a regular's kit, an elite's loadout for the night, FF-5/6), and the rows
# of the FF-21 strike table that involve them; FF-22's order of strikes.

_EFFECT_EN = {"kill": "kills {x}", "wound": "wounds {x} (HP − 1)", "none": "does nothing to {x}"}
_EFFECT_ZH = {"kill": "秒杀", "wound": "轻伤（生命值 − 1）", "none": "无效"}


def duel_notes(p: D, L: Lang) -> list[tuple[str, str]]:
    """The seat's weapon and shield, what its strike does to each shield, what
    each weapon does to it (FF-21), and who strikes first (FF-22); no rows while
    it has no weapon (an elite before its loadout)."""
    weapon, shield = kit(p)
    if not weapon or not shield:
        return []
    mine = [(shield_of(g), STRIKE_TABLE[(str(weapon), g)]) for g in BEATS]
    theirs = [(w, STRIKE_TABLE[(w, guarded(str(shield)))]) for w in BEATS]
    strike_en = "; ".join(_EFFECT_EN[e].format(x=f"one with {s}") for s, e in mine)
    strike_zh = "；".join(f"对{L.term(s)}：{_EFFECT_ZH[e]}" for s, e in mine)
    struck_en = "; ".join(f"{w} " + _EFFECT_EN[e].format(x="you") for w, e in theirs)
    struck_zh = "；".join(f"{L.term(w)}：{_EFFECT_ZH[e]}" for w, e in theirs)
    return [
        (L.say(en="You fight with", zh="你的武器和盾牌"), kit_words(p, L)),
        (L.say(en="HP", zh="生命值"), f"{p.get('hp')}/{p.get('max_hp')}"),
        (L.say(en=f"Your strike ({weapon})", zh=f"你的攻击（{L.term(weapon)}）"),
         L.say(en=strike_en, zh=strike_zh)),
        (L.say(en=f"Strikes at you ({shield})", zh=f"打你（{L.term(shield)}）"),
         L.say(en=struck_en, zh=struck_zh)),
        (L.say(en="A duel", zh="决斗"),
         L.say(en="the attacker strikes first; a defender still alive strikes back once "
                  "(FF-21, FF-22); between two regulars a wound only if the rules allow it "
                  "(FF-23)",
               zh="攻击者先出手；防守者若还活着，反击一次（FF-21、FF-22）；"
                  "两名普通成员之间是否轻伤，依本局规则（FF-23）")),
    ]  # fmt: skip
