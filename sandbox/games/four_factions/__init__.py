"""Four Factions (FF-1..FF-29).

``VARIANT`` is the instance the registry finds through the ``sandbox.variants``
entry point ``four_factions`` (see :mod:`sandbox.games.registry`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sandbox.games.four_factions.events as ev
import sandbox.games.four_factions.resolve as resolve
import sandbox.games.four_factions.state as requests
import sandbox.games.four_factions.words as wording
from sandbox.core.discussion import OpenDay
from sandbox.core.events import DecisionMade, Event, GameEnded, GraveyardMessage
from sandbox.core.folds import detached
from sandbox.core.variant import HistoryItem, Research, Rules, SeatView, Variant, ViewFold
from sandbox.core.words import VariantWords
from sandbox.games.four_factions.config import (
    INFO,
    SEATS,
    FourFactionsConfig,
    Phase,
    Stage,
    role_label,
)
from sandbox.games.four_factions.state import FFState, apply_event
from sandbox.words.rules import rules_from_template

# ---------------------------------------------------------------- the declaration
# Four Factions' modules: config.py (what it declares once: name, seats,
# factions, pairs, decisions, the enums, INFO; then the rulings, [[seat]] tables
# and the seat slots), events.py,
# state.py (the fold; the decisions, checks and fallbacks), resolve.py (the deal,
# FF-8; steps into events; the strike table, FF-21, and the duel, FF-22; endings
# and results), words.py and page.py (its words: every event's sentence; the
# card, the attack notes and the board); its rules text and vocabulary are data
# beside its prompts (prompts/four_factions/: <lang>/rules.j2, vocabulary.toml,
# loaded by vocabulary.py); bot.py (the baseline bot and its reference levels,
# reading the table with evidence.py and fighting by tactics.py, where the ladder
# is) and metrics.py (behaviour metrics) are imported only when asked for. This
# module declares the variant: its rules, its research hooks, its rules text and
# its seat views.


class FourFactionsRules(Rules[FFState, FourFactionsConfig]):
    # The referee calls these after every event or answer: the module functions
    # themselves, not methods that only pass their arguments on (one call less).
    apply = staticmethod(apply_event)
    open_requests = staticmethod(requests.open_requests)
    check = staticmethod(requests.check)
    outcome = staticmethod(resolve.outcome)
    setup = staticmethod(resolve.setup_events)
    fallback = staticmethod(requests.fallback)
    resolve = staticmethod(resolve.resolve)

    def seat_count(self, config: FourFactionsConfig) -> int:
        return SEATS  # FF-1

    def initial_state(self, config: FourFactionsConfig) -> FFState:
        return FFState()

    def roles(self, state: FFState) -> Mapping[int, str]:
        return {s: role_label(f, state.elite[s]) for s, f in sorted(state.faction.items())}


class FourFactionsResearch(Research):
    def side_of(self, role: str) -> str:
        return role.split("/")[0]  # "wolves/elite" plays for the wolves (FF-2)

    def known_seats(self, private: Mapping[str, Any]) -> set[int]:
        """FF-9: an elite is told the regulars' factions; FF-10: a regular knows its elite."""
        known = {int(s) for s in (private.get("known_factions") or {})}
        elite = private.get("my_elite")
        return known | ({int(elite)} if elite is not None else set())


class FourFactions(Variant[FFState, FourFactionsConfig]):
    info = INFO
    config_model = FourFactionsConfig
    rules = FourFactionsRules()
    research = FourFactionsResearch(
        INFO,
        bot="sandbox.games.four_factions.bot:BaselineBot",
        metrics="sandbox.games.four_factions.metrics:METRICS",
        statements="sandbox.games.four_factions.metrics:STATEMENTS",
    )

    def view_fold(self, seat: int) -> ViewFold:
        return seat_fold(self, seat)

    def rules_text(self, config: FourFactionsConfig, language: str = "en") -> str:
        """The templates ``prompts/four_factions/<lang>/rules.j2`` with this config's rulings."""
        per_seat = any(s.hp is not None for s in config.seat)  # FF-7: [[seat]] tables' own hp
        return rules_from_template(self.name, language, c=config, per_seat=per_seat)

    def words(self) -> VariantWords:
        return wording.WORDS


# ---------------------------------------------------------------- seat views
# A seat's view, built only from the events it was allowed to see.
#
# ``private`` (the seat's own facts):
#   seat, faction, elite (bool), weapon and shield (regulars; None for elites),
#   max_hp, hp (current, as the seat knows it from its own duels), alive,
#   known_factions (elite: {seat: faction} of the regulars it knows, FF-9; else {}),
#   my_elite (regular: its faction's elite seat, FF-10; else None),
#   loadout (elite: {"weapon", "shield"} chosen for the current night, else None),
#   duels (its own duel knowledge, FF-12/20: dicts with day, half, role
#   "attacker"/"defender"/"corpse", opponent (None when the defender does not
#   learn it), weapon_struck_with, weapon_struck_back_with, outcomes, hp_after).
# ``public`` (what everybody knows at this moment):
#   day, phase ("day"/"night"), stage (proofs, accusation, protection, open,
#   quiet, loadout, first_half, second_half), living (seats not announced dead),
#   dead (announced dead seats), dead_factions ({seat: faction}, only with the
#   reveal option), claims ({seat: faction} from day 1), accusations and
#   protections (lists of {seat, target[, faction]}), no_statement ({stage: [seats]},
#   FF-29), decided_pairs ({"wolves/justice": {faction: result}}), game_over,
#   open_day (only with ``discussion = "open"``, from the first open day on:
#   day, round, left (this seat's messages), left_today (the table's), over; OD-4).
# ``history``: one HistoryItem per visible event. Player text appears only as
# ``speech`` with ``speaker``; everything in ``facts`` is the referee's.


class _ViewBuilder:
    def __init__(self, variant: Variant[Any, Any], seat: int) -> None:
        self.variant = variant
        self.seat = seat
        self.private: dict[str, Any] = {
            "seat": seat,
            "faction": None,
            "elite": False,
            "weapon": None,
            "shield": None,
            "max_hp": None,
            "hp": None,
            "alive": True,
            "known_factions": {},
            "my_elite": None,
            "loadout": None,
            "duels": [],
        }
        self.public: dict[str, Any] = {
            "day": 0,
            "phase": Phase.SETUP,
            "stage": Stage.SETUP,
            "living": list(range(1, SEATS + 1)),
            "dead": [],
            "dead_factions": {},
            "claims": {},
            "accusations": [],
            "protections": [],
            "no_statement": {},
            "decided_pairs": {},
            "game_over": False,
        }
        self.history: list[HistoryItem] = []
        self.open = OpenDay()  # folded from the public discussion.* events (OD-4)

    def snapshot(self) -> SeatView:
        public = self.public
        day = self.open
        if day.budget is not None:  # open mode only: a turns game's view is as before
            alive = self.private["alive"]
            public = {
                **public,
                "open_day": {
                    "day": day.day,
                    "round": day.round,
                    "left": day.left(self.seat) if alive else 0,
                    "left_today": max(0, day.budget.per_day - day.total),
                    "over": not day.open,
                },
            }
        return SeatView(
            self.variant,
            self.seat,
            detached(self.private),
            detached(public),
            tuple(self.history),
        )

    def add(self, seq: int, event: Event) -> None:
        facts = self._fold(event)
        speaker, speech = _speech_of(event)
        day, phase = self.public["day"], self.public["phase"]
        public = event.visibility().scope == "public"
        self.history.append(
            HistoryItem(seq, event.kind, day, phase, speaker, speech, facts, public)
        )

    def _fold(self, event: Event) -> dict[str, Any]:
        """Update private/public knowledge; return the referee facts to show."""
        facts = _facts(event)
        self.open.apply(event)  # only the discussion.* events change it
        folder = _FOLDERS.get(type(event))
        if folder is not None:
            folder(self, event)
        return facts


def _speech_of(event: Event) -> tuple[int | None, str | None]:
    if isinstance(event, ev.ProofsGiven | ev.AccusationMade | ev.ProtectionMade | ev.Spoke):
        return event.seat, event.speech
    if isinstance(event, GraveyardMessage):  # FF-19 ruling: player text, quoted data
        return event.seat, event.text
    return None, None


def _facts(event: Event) -> dict[str, Any]:
    """The event's referee-stated fields (speech text excluded: it is player data)."""
    if isinstance(event, GraveyardMessage):
        return {}  # its text is the speech; its audience is the dead
    data = dict(event.to_json()["data"])
    data.pop("speech", None)
    if isinstance(event, DecisionMade):
        data.pop("note", None)  # the seat's own reasoning is not a referee fact
    return data


def _role(b: _ViewBuilder, e: ev.RoleDealt) -> None:
    b.private.update(
        faction=e.faction,
        elite=e.elite,
        weapon=e.weapon,
        shield=e.shield,
        max_hp=e.max_hp,
        hp=e.max_hp,
    )


def _elite_knowledge(b: _ViewBuilder, e: ev.EliteKnowledge) -> None:
    b.private["known_factions"] = {str(k): v for k, v in sorted(e.regulars.items(), key=_num)}


def _num(item: tuple[str, str]) -> int:
    return int(item[0])


def _elite_known(b: _ViewBuilder, e: ev.EliteKnown) -> None:
    b.private["my_elite"] = e.elite_seat


def _phase(b: _ViewBuilder, e: ev.PhaseStarted) -> None:
    b.public.update(day=e.day, phase=e.phase, stage=e.stage)
    if e.stage == Stage.LOADOUT:
        b.private["loadout"] = None


def _proofs(b: _ViewBuilder, e: ev.ProofsGiven) -> None:
    b.public["claims"] = {**b.public["claims"], str(e.seat): e.am}


def _accusation(b: _ViewBuilder, e: ev.AccusationMade) -> None:
    entry = {"seat": e.seat, "target": e.target, "faction": e.faction}
    b.public["accusations"] = [*b.public["accusations"], entry]


def _protection(b: _ViewBuilder, e: ev.ProtectionMade) -> None:
    b.public["protections"] = [*b.public["protections"], {"seat": e.seat, "target": e.target}]


def _no_statement(b: _ViewBuilder, e: ev.NoStatement) -> None:
    table = {k: list(v) for k, v in b.public["no_statement"].items()}
    table.setdefault(e.stage, []).append(e.seat)
    b.public["no_statement"] = table


def _loadout(b: _ViewBuilder, e: ev.LoadoutChosen) -> None:
    b.private["loadout"] = {"weapon": e.weapon, "shield": e.shield}


def _duel_entry(
    b: _ViewBuilder,
    e: ev.AttackReport | ev.DefenceReport | ev.CorpseFound,
    role: str,
    opponent: int | None,
    weapons: tuple[str | None, str | None] = (None, None),
) -> None:
    """One entry of the seat's duels (as attacker, defender, or finding a
    corpse), each with the same keys; the seat's hp follows its report."""
    struck_with, struck_back_with = weapons
    hp_after = None if isinstance(e, ev.CorpseFound) else e.hp_after
    entry = {
        "day": e.day,
        "half": e.half,
        "role": role,
        "opponent": opponent,
        "weapon_struck_with": struck_with,
        "weapon_struck_back_with": struck_back_with,
        "outcomes": [] if isinstance(e, ev.CorpseFound) else [dict(o) for o in e.outcomes],
        "hp_after": hp_after,
    }
    b.private["duels"] = [*b.private["duels"], entry]
    if hp_after is not None:
        b.private["hp"] = hp_after
        b.private["alive"] = hp_after > 0


def _attack(b: _ViewBuilder, e: ev.AttackReport) -> None:
    _duel_entry(b, e, "attacker", e.target, (e.weapon, e.struck_back_with))


def _defence(b: _ViewBuilder, e: ev.DefenceReport) -> None:
    _duel_entry(b, e, "defender", e.attacker, (e.struck_with, _back_weapon(e)))


def _back_weapon(e: ev.DefenceReport) -> str | None:
    mine = [o["weapon"] for o in e.outcomes if o["by"] == "you"]
    return str(mine[0]) if mine else None


def _corpse(b: _ViewBuilder, e: ev.CorpseFound) -> None:
    _duel_entry(b, e, "corpse", e.target)


def _pair(b: _ViewBuilder, e: ev.PairDecided) -> None:
    b.public["decided_pairs"] = {**b.public["decided_pairs"], e.pair: dict(e.results)}


def _dawn(b: _ViewBuilder, e: ev.DawnReport) -> None:
    dead = sorted({*b.public["dead"], *e.dead})
    b.public["dead"] = dead
    b.public["living"] = [s for s in range(1, SEATS + 1) if s not in dead]
    b.public["dead_factions"] = {**b.public["dead_factions"], **dict(e.factions)}
    if b.seat in e.dead:
        b.private["alive"] = False


def _ended(b: _ViewBuilder, e: GameEnded) -> None:
    b.public["game_over"] = True


_FOLDERS: dict[type[Event], Any] = {
    ev.RoleDealt: _role,
    ev.EliteKnowledge: _elite_knowledge,
    ev.EliteKnown: _elite_known,
    ev.PhaseStarted: _phase,
    ev.ProofsGiven: _proofs,
    ev.AccusationMade: _accusation,
    ev.ProtectionMade: _protection,
    ev.NoStatement: _no_statement,
    ev.LoadoutChosen: _loadout,
    ev.AttackReport: _attack,
    ev.DefenceReport: _defence,
    ev.CorpseFound: _corpse,
    ev.PairDecided: _pair,
    ev.DawnReport: _dawn,
    GameEnded: _ended,
}


def seat_fold(variant: Variant[Any, Any], seat: int) -> _ViewBuilder:
    """The incremental form of build_view, used by the core to serve views fast."""
    return _ViewBuilder(variant, seat)


VARIANT = FourFactions()

__all__ = ["VARIANT", "FourFactions"]
