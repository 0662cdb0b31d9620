"""What a Four Factions seat is shown beside its night attack question
(``VariantWords.notes``), from its own card only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.words import Lang
from sandbox.games.four_factions.resolve import BEATS, STRIKE_TABLE, guarded, shield_of

D = Mapping[str, Any]

# FF-19's attack question, with what the seat itself knows: its own weapon and
# shield (a regular's kit, an elite's loadout for the night, FF-5/6), and the rows
# of the FF-21 strike table that involve them; FF-22's order of strikes.

_EFFECT_EN = {"kill": "kills {x}", "wound": "wounds {x} (HP − 1)", "none": "does nothing to {x}"}
_EFFECT_ZH = {"kill": "秒杀", "wound": "轻伤（生命值 − 1）", "none": "无效"}


def duel_notes(p: D, L: Lang) -> list[tuple[str, str]]:
    """The seat's weapon and shield, what its strike does to each shield, what
    each weapon does to it (FF-21), and who strikes first (FF-22); no rows while
    it has no weapon (an elite before its loadout)."""
    loadout = p.get("loadout") or {}
    weapon = p.get("weapon") or loadout.get("weapon")
    shield = p.get("shield") or loadout.get("shield")
    if not weapon or not shield:
        return []
    mine = [(shield_of(g), STRIKE_TABLE[(str(weapon), g)]) for g in BEATS]
    theirs = [(w, STRIKE_TABLE[(w, guarded(str(shield)))]) for w in BEATS]
    strike_en = "; ".join(_EFFECT_EN[e].format(x=f"one with {s}") for s, e in mine)
    strike_zh = "；".join(f"对{L.term(s)}：{_EFFECT_ZH[e]}" for s, e in mine)
    struck_en = "; ".join(f"{w} " + _EFFECT_EN[e].format(x="you") for w, e in theirs)
    struck_zh = "；".join(f"{L.term(w)}：{_EFFECT_ZH[e]}" for w, e in theirs)
    return [
        (L.say(en="You fight with", zh="你的武器和盾牌"),
         L.say(en=f"{weapon} and {shield}", zh=f"武器{L.term(weapon)}、盾牌{L.term(shield)}")),
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
