"""Werewolf (WW-1..WW-24): werewolves against a village with a seer and a doctor.

``VARIANT`` is the instance the registry finds through the ``sandbox.variants``
entry point ``werewolf`` (see :mod:`sandbox.games.registry`). The rules are
stated in RULES-WEREWOLF (docs/rules-werewolf.md maps them to the code).

Seat view (``SeatView`` built by ``core.folds.SeatFold`` from ``VIEW`` below, only from the
events the seat was allowed to see):

``private``
    ``seat``; ``role`` ("werewolf", "seer", "doctor" or "villager"); ``team``
    ("werewolves" or "village").
    Werewolves: ``pack`` (every werewolf's seat, WW-4), ``fellow_werewolves``,
    ``kills`` (``[{night, target, how}]``, the pack's chosen targets, WW-7) and
    ``pack_votes_tonight`` (``{seat: target|None}``, the kill votes seen so far
    tonight).
    Seer: ``inspections`` (``[{night, seat, result}]``; ``result`` a role, or a
    team with ``seer_reveals = "team"``, WW-10).
    Doctor: ``protections`` (``[{night, seat}]``, WW-8) and ``saves``
    (``[{night, seat}]``, the nights its protection stopped the kill, WW-9).

``public``
    ``day`` (night n precedes day n), ``phase`` ("night", "dawn", "last_words",
    "bidding", "discussion", "vote", "over"), ``players``, ``lineup`` (role
    counts), ``rules`` (every active ruling, WW-4), ``living``, ``dead``
    (``[{seat, day, cause: "night"|"exile", revealed}]``; ``revealed`` is a role, a
    team or None per ``reveal_on_death``/``reveal_on_exile``), ``speaking_order``
    (speeches still to come today, the current speaker first), ``floor``
    (bidding: ``{turn, turns, bidders, speaker}``), ``vote`` (``{mode, order,
    candidates}``), ``open_day`` (only with ``discussion = "open"``, once a day
    opened: ``{day, round, left, left_today, over}``: the round under way, the
    messages this seat and the whole table may still post, OD-4),
    ``ballots_today`` (``{seat: target|None}``, the ballots made public so far),
    ``roles`` (every seat's role, once announced at the end, WW-20).

``history``
    One ``HistoryItem`` per visible event. Speeches and last words carry
    ``speaker`` and ``speech`` (the text as shown, softened per WW-13; never what
    the seat wrote) and, in ``facts``, the structured claims as recorded
    (``claim``, ``accuse``, ``vouch``) plus ``turn`` (speeches) or ``cause`` (last
    words). A werewolf's pack messages carry ``speaker`` and ``speech``. Everything
    else carries the referee's ``facts`` (the event's fields, without the
    audience). The seat's own decisions appear as ``core.decision`` items with
    ``facts = {decision, payload, fallback}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import sandbox.games.werewolf.events as ev
import sandbox.games.werewolf.requests as requests
import sandbox.games.werewolf.resolve as resolve
import sandbox.games.werewolf.words as wording
from sandbox.core.events import Event, GameEnded, GraveyardMessage, OpenDayStarted, StepResolved
from sandbox.core.folds import DaysRecord, FoldHooks, SeatFold, claims_of, referee_facts
from sandbox.core.variant import HistoryItem, Research, Rules, Variant, ViewFold
from sandbox.core.words import VariantWords
from sandbox.games.werewolf.config import WerewolfConfig
from sandbox.games.werewolf.info import DOCTOR, INFO, ROLES, SEER, WEREWOLF, Phase, team_of
from sandbox.games.werewolf.state import WerewolfState, fold, outcome
from sandbox.words.rules import rules_from_template

# ---------------------------------------------------------------- the declaration
# Werewolf's modules: info.py (name, seats, roles, decisions, the enums),
# config.py (rulings, presets), events.py, state.py (the fold), requests.py (open
# decisions, checks, fallbacks; WW-13's softened words), resolve.py (the deal,
# WW-2; steps into events; endings and results), words.py and page.py (its
# words: every event's sentence; the card and the board); its rules text and
# vocabulary are data beside its prompts (prompts/werewolf/: <lang>/rules.j2,
# vocabulary.toml); bot.py (the baseline bot) and metrics.py (behaviour metrics)
# are imported only when asked for. This module declares the variant: its rules,
# its research hooks, its rules text and its seat views.


class WerewolfRules(Rules[WerewolfState, WerewolfConfig]):
    # Called after every event or answer: the module functions themselves.
    apply = staticmethod(fold)
    open_requests = staticmethod(requests.open_requests)
    check = staticmethod(requests.check)
    outcome = staticmethod(outcome)
    setup = staticmethod(resolve.setup_events)
    fallback = staticmethod(requests.fallback)
    resolve = staticmethod(resolve.resolve)

    def seat_count(self, config: WerewolfConfig) -> int:
        return config.players

    def initial_state(self, config: WerewolfConfig) -> WerewolfState:
        return WerewolfState()  # the rulings arrive in the public GameStarted event

    def roles(self, state: WerewolfState) -> Mapping[int, str]:
        return dict(state.roles)


class WerewolfResearch(Research):
    def side_of(self, role: str) -> str:
        return team_of(role)  # WW-3

    def belief_labels(self) -> tuple[str, ...]:
        """The roles, not the two teams: a werewolf hunting the seer and a
        villager weighing a seer's claim are the findings (the analysis scores
        a guess against the target's role)."""
        return ROLES

    def known_seats(self, private: Mapping[str, Any]) -> set[int]:
        """WW-4: a werewolf knows the pack."""
        return {int(s) for s in private.get("fellow_werewolves") or ()}


class Werewolf(Variant[WerewolfState, WerewolfConfig]):
    info = INFO
    config_model = WerewolfConfig
    rules = WerewolfRules()
    research = WerewolfResearch(
        INFO,
        bot="sandbox.games.werewolf.bot:BaselineBot",
        metrics="sandbox.games.werewolf.metrics:METRICS",
        statements="sandbox.games.werewolf.metrics:STATEMENTS",
    )

    def view_fold(self, seat: int) -> ViewFold:
        return SeatFold(self, _Fold(seat), VIEW)

    def rules_text(self, config: WerewolfConfig, language: str = "en") -> str:
        """The templates ``prompts/werewolf/<lang>/rules.j2`` with this config's
        rulings (WW-1..WW-24)."""
        return rules_from_template(self.name, language, c=config, n=config.counts())

    def words(self) -> VariantWords:
        return wording.WORDS


# ---------------------------------------------------------------- seat views
# A seat's view of a Werewolf game, folded only from the events it may see.
#
# See the package docstring (sandbox/games/werewolf/__init__.py) for the keys.


@dataclass
class _Fold(DaysRecord):
    lineup: dict[str, int] = field(default_factory=dict)
    pack: list[int] = field(default_factory=list)
    kills: list[dict[str, Any]] = field(default_factory=list)
    pack_votes: dict[str, int | None] = field(default_factory=dict)  # tonight's, as seen
    inspections: list[dict[str, Any]] = field(default_factory=list)
    protections: list[dict[str, Any]] = field(default_factory=list)
    saves: list[dict[str, Any]] = field(default_factory=list)
    order: list[int] = field(default_factory=list)  # speakers still to speak
    floor: dict[str, Any] = field(default_factory=dict)
    vote: dict[str, Any] = field(default_factory=dict)
    ballots: dict[str, int | None] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)  # WW-20, once announced


def _private(fold: _Fold) -> dict[str, Any]:
    role = fold.role
    private: dict[str, Any] = {
        "seat": fold.seat,
        "role": role,
        "team": None if role is None else team_of(role),
    }
    if role == WEREWOLF:  # WW-4, WW-7
        private["pack"] = list(fold.pack)
        private["fellow_werewolves"] = [s for s in fold.pack if s != fold.seat]
        private["kills"] = fold.kills
        private["pack_votes_tonight"] = fold.pack_votes
    elif role == SEER:  # WW-10
        private["inspections"] = fold.inspections
    elif role == DOCTOR:  # WW-8, WW-9
        private["protections"] = fold.protections
        private["saves"] = fold.saves
    return private


def _public(fold: _Fold) -> dict[str, Any]:
    public = _board(fold)
    day = fold.open
    if day.budget is not None:  # WW-12 open (OD-4): what this seat and the table have left
        public["open_day"] = {
            "day": day.day,
            "round": day.round,
            "left": day.left(fold.seat) if fold.seat in fold.living() else 0,
            "left_today": max(0, day.budget.per_day - day.total),
            "over": not day.open,
        }
    return public


def _board(fold: _Fold) -> dict[str, Any]:
    return {
        "day": fold.day,
        "phase": fold.phase,
        "players": fold.players,
        "lineup": fold.lineup,
        "rules": fold.rules,
        "living": fold.living(),
        "dead": fold.dead,
        "speaking_order": fold.order,
        "floor": fold.floor,
        "vote": fold.vote,
        "ballots_today": fold.ballots,
        "roles": fold.roles,
    }


def _apply(fold: _Fold, event: Event) -> None:
    fold.open.apply(event)  # OD-4..OD-6: its own kinds, all public
    handler = _APPLY.get(type(event))
    if handler is not None:
        handler(fold, event)
    elif isinstance(event, GameEnded):
        fold.phase = Phase.OVER


def _started(fold: _Fold, e: Any) -> None:
    fold.players = e.players
    fold.lineup = {
        "werewolves": e.werewolves,
        "seers": e.seers,
        "doctors": e.doctors,
        "villagers": e.villagers,
    }
    fold.rules = dict(e.rulings)


def _role(fold: _Fold, e: Any) -> None:
    if e.seat == fold.seat:
        fold.role = e.role


def _pack(fold: _Fold, e: Any) -> None:
    fold.pack = list(e.members)


def _night(fold: _Fold, e: Any) -> None:
    fold.day, fold.phase = e.night, Phase.NIGHT
    fold.order, fold.floor, fold.vote, fold.ballots = [], {}, {}, {}
    fold.pack_votes = {}


def _protection(fold: _Fold, e: Any) -> None:
    if e.target is not None:
        fold.protections.append({"night": e.night, "seat": e.target})


def _wolf_votes(fold: _Fold, e: Any) -> None:
    fold.pack_votes.update(e.votes)


def _kill_chosen(fold: _Fold, e: Any) -> None:
    fold.kills.append({"night": e.night, "target": e.target, "how": e.how})


def _seer_result(fold: _Fold, e: Any) -> None:
    fold.inspections.append({"night": e.night, "seat": e.seat, "result": e.result})


def _saved(fold: _Fold, e: Any) -> None:
    fold.saves.append({"night": e.night, "seat": e.seat})


def _dawn(fold: _Fold, e: Any) -> None:
    fold.phase = Phase.DAWN
    if e.victim is not None:
        fold.dead.append({"seat": e.victim, "day": e.day, "cause": "night", "revealed": e.revealed})


def _last_words_turn(fold: _Fold, e: Any) -> None:
    fold.phase = Phase.LAST_WORDS


def _speaking_order(fold: _Fold, e: Any) -> None:
    fold.phase = Phase.DISCUSSION
    fold.order = list(e.order) * e.rounds


def _open_day(fold: _Fold, e: Any) -> None:
    fold.phase = Phase.DISCUSSION
    fold.order = []


def _bidding_turn(fold: _Fold, e: Any) -> None:
    fold.phase = Phase.BIDDING
    fold.floor = {"turn": e.turn, "turns": e.turns, "bidders": list(e.bidders), "speaker": None}


def _floor(fold: _Fold, e: Any) -> None:
    fold.phase = Phase.DISCUSSION
    fold.floor = {**fold.floor, "speaker": e.seat}
    fold.order = [e.seat]


def _speech(fold: _Fold, e: Any) -> None:
    if fold.order:
        fold.order.pop(0)


def _vote_opened(fold: _Fold, e: Any) -> None:
    fold.phase = Phase.VOTE
    fold.vote = {"mode": e.mode, "order": list(e.order), "candidates": list(e.candidates)}
    fold.ballots = {}


def _ballots(fold: _Fold, e: Any) -> None:
    fold.ballots.update(e.ballots)


def _exiled(fold: _Fold, e: Any) -> None:
    fold.dead.append({"seat": e.seat, "day": e.day, "cause": "exile", "revealed": e.revealed})


def _roles_revealed(fold: _Fold, e: Any) -> None:
    fold.phase = Phase.OVER
    fold.roles = dict(e.roles)


_APPLY: dict[type[Event], Callable[[_Fold, Any], None]] = {
    ev.GameStarted: _started,
    ev.RoleCard: _role,
    ev.Pack: _pack,
    ev.NightFell: _night,
    ev.Protection: _protection,
    ev.WolfVotes: _wolf_votes,
    ev.KillChosen: _kill_chosen,
    ev.SeerResult: _seer_result,
    ev.Saved: _saved,
    ev.Dawn: _dawn,
    ev.LastWordsTurn: _last_words_turn,
    ev.SpeakingOrder: _speaking_order,
    OpenDayStarted: _open_day,
    ev.BiddingTurn: _bidding_turn,
    ev.FloorWon: _floor,
    ev.Speech: _speech,
    ev.VoteOpened: _vote_opened,
    ev.Ballots: _ballots,
    ev.Exiled: _exiled,
    ev.RolesRevealed: _roles_revealed,
}


def _history_item(fold: _Fold, seq: int, event: Event) -> HistoryItem | None:
    # WW-12: a speech's claims as recorded (claims_of), never confirmed
    if isinstance(event, StepResolved):
        return None
    if isinstance(event, ev.Speech):
        facts = {"turn": event.turn, **claims_of(event)}
        return HistoryItem(seq, event.kind, fold.day, fold.phase, event.seat, event.shown, facts)
    if isinstance(event, ev.LastWords):
        facts = {"cause": event.cause, **claims_of(event)}
        return HistoryItem(
            seq, event.kind, fold.day, Phase.LAST_WORDS, event.seat, event.shown, facts
        )
    if isinstance(event, ev.WolfMessage | GraveyardMessage):  # WW-6, WW-16 ruling: player text
        return HistoryItem(seq, event.kind, fold.day, fold.phase, event.seat, event.text, {})
    return HistoryItem(seq, event.kind, fold.day, fold.phase, None, None, referee_facts(event))


# How a seat's view is folded: the hooks core.folds.SeatFold calls.
VIEW = FoldHooks(_apply, _history_item, _private, _public)


VARIANT = Werewolf()

__all__ = ["VARIANT", "Werewolf"]
