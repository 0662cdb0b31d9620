"""What an event changes on the seat board of the viewer: deaths, HP (Four
Factions), roles learned, claims made.

An event's effects travel with that event, so an audience's board is the fold of
the effects of the events it may see: a seat's board can never show a death, an
HP or a role it did not learn (the referee's board takes true roles from the
header instead).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sandbox.core.words import Lang, Words

# {"dead": [seat], "hp": {seat: hp}, "role": {seat: words}, "claim": {seat: words}}
Effects = dict[str, Any]


def effects_of(kind: str, data: Mapping[str, Any], words: Words, language: str = "en") -> Effects:
    L = Lang(language)
    fx: Effects = {}
    maker = _MAKERS.get(kind)
    if maker is not None:
        maker(fx, data, L)
    if words.claims and words.speaker is not None:
        fx["claim"] = {str(words.speaker): L.items(words.claims)}
    return {k: v for k, v in fx.items() if v}


def _ff_role(fx: Effects, d: Mapping[str, Any], L: Lang) -> None:
    rank = L.term("elite" if d.get("elite") else "regular")
    faction = L.term(d.get("faction"))
    fx["role"] = {str(d["seat"]): f"{faction}{rank}" if L.zh else f"{faction} {rank}"}
    fx["hp"] = {str(d["seat"]): d.get("max_hp")}


def _ff_elite_knowledge(fx: Effects, d: Mapping[str, Any], L: Lang) -> None:  # FF-9
    fx["role"] = {str(s): L.term(f) for s, f in (d.get("regulars") or {}).items()}


def _ff_elite_known(fx: Effects, d: Mapping[str, Any], L: Lang) -> None:  # FF-10
    fx["role"] = {str(d["elite_seat"]): L.say(en="elite (own faction)", zh="本阵营最强精英")}


def _ff_duel(fx: Effects, d: Mapping[str, Any], L: Lang) -> None:  # referee only
    fx["hp"] = {str(s["struck"]): s["hp_after"] for s in d.get("strikes") or ()}


def _ff_report(fx: Effects, d: Mapping[str, Any], L: Lang) -> None:  # FF-12: own HP
    fx["hp"] = {str(d["seat"]): d.get("hp_after")}


def _ff_dawn(fx: Effects, d: Mapping[str, Any], L: Lang) -> None:  # FF-28
    fx["dead"] = [int(s) for s in d.get("dead") or ()]
    fx["role"] = {str(s): L.term(f) for s, f in (d.get("factions") or {}).items()}


def _k_role(fx: Effects, d: Mapping[str, Any], L: Lang) -> None:  # KG-2
    fx["role"] = {str(d["seat"]): L.term(d.get("role"))}


def _k_team(fx: Effects, d: Mapping[str, Any], L: Lang) -> None:  # KG-2
    fx["role"] = {str(s): L.term(d.get("role")) for s in d.get("members") or ()}


def _k_check(fx: Effects, d: Mapping[str, Any], L: Lang) -> None:  # KG-4
    if d.get("suspect") is not None and d.get("answer"):
        fx["role"] = {str(d["suspect"]): L.term(d["answer"])}


def _k_death(fx: Effects, d: Mapping[str, Any], L: Lang) -> None:  # KG-6/KG-9
    seat = d.get("victim", d.get("seat"))
    if seat is None:
        return
    fx["dead"] = [int(seat)]
    if d.get("role"):
        fx["role"] = {str(seat): L.term(d["role"])}


_MAKERS = {
    "ff.role": _ff_role,
    "ff.elite_knowledge": _ff_elite_knowledge,
    "ff.elite_known": _ff_elite_known,
    "ff.duel": _ff_duel,
    "ff.attack_report": _ff_report,
    "ff.defence_report": _ff_report,
    "ff.dawn": _ff_dawn,
    "killer.role": _k_role,
    "killer.team": _k_team,
    "killer.check": _k_check,
    "killer.dawn": _k_death,
    "killer.voted_out": _k_death,
}
