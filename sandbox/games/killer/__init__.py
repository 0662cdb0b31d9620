"""Killer (KG-1..KG-15): police, killers and civilians; the judge is the referee.

``VARIANT`` is the instance the registry finds through the ``sandbox.variants``
entry point ``killer`` (see :mod:`sandbox.games.registry`).

Seat view (``SeatView`` built by ``core.folds.SeatFold`` from ``VIEW`` below, only from the
events the seat was allowed to see):

``private``
    ``seat``: own seat number. ``role``: "killer", "police" or "civilian".
    ``fellow_killers`` (killers only): the other killers' seats.
    ``kills`` (killers only): ``[{night, target}]``, the victims the killers chose.
    ``fellow_police`` (police only): the other police seats.
    ``checks`` (police only): ``[{night, suspect, answer}]``, the judge's answers;
    ``answer`` is a role, or "killer"/"not killer" with ``check_answer = "killer_or_not"``.
    ``my_opinions``: ``[{night, about, target}]``, the seat's own night opinions
    (``about`` is "killer" or "police"; ``target`` None = no opinion).

``public``
    ``day`` (night n precedes day n), ``phase`` ("night", "dawn", "last_words",
    "speeches", "vote", "over"), ``players``, ``rules`` (line-up counts, quota,
    day limit, check mode, reveal option, the KG-5 barred seat, the KG-13 concede
    scope; ``killer_chat`` and ``graveyard_chat`` only when on), ``living``,
    ``dead`` (``[{seat, day, cause: "night"|"vote", role}]``; ``role`` is None unless
    roles are revealed), ``last_words_quota``, ``last_words_used``,
    ``ballots_today`` (``[{round, ballots: {seat: target|None}}]``, announced votes
    of the current day), ``speaking_order`` (speakers still to speak in the current
    phase, the current speaker first; empty in an open day), ``vote_candidates``
    (who may be voted for). In a game with ``discussion = "open"`` only, from its
    first open day: ``open_day`` (``{day, round, open, left, messages_left_today}``:
    the round under way, whether the day is still open, the seat's own messages
    left and the day's, OD-4, OD-5).

``history``
    One ``HistoryItem`` per visible event: speeches and last words carry
    ``speaker`` and ``speech`` (player text, quoted data) and, in ``facts``, the
    speaker's structured claims as recorded, never confirmed (KG-14): ``claim``
    ("none", "police", "killer" or "civilian"), ``accuse`` and ``vouch`` (sorted
    seat lists); a speech also has ``context``. The killers' night messages
    (``talk.team``, KG-3 ruling, seen by the living killers) and the graveyard's
    (``talk.graveyard``, KG-14 ruling, seen by the dead) carry a speaker and a
    speech only. Everything else carries
    the referee's ``facts`` (the event's fields; group events without their
    audience). The seat's own accepted decisions appear as ``core.decision``
    items with ``facts = {decision, payload, fallback}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sandbox.games.killer.requests as requests
import sandbox.games.killer.resolve as resolve
import sandbox.games.killer.words as wording
from sandbox.core.discussion import OPEN
from sandbox.core.events import Event, GameEnded, GraveyardMessage, StepResolved, TeamMessage
from sandbox.core.folds import DaysRecord, FoldHooks, SeatFold, claims_of, referee_facts
from sandbox.core.talk import TALK_CHARS
from sandbox.core.variant import HistoryItem, Research, Rules, Variant, ViewFold
from sandbox.core.words import VariantWords
from sandbox.games.killer.config import OWN_SIDE, TALK, KillerConfig, lineup
from sandbox.games.killer.events import (
    Ballots,
    CheckResult,
    Dawn,
    GameStarted,
    KillChosen,
    KillerState,
    LastWords,
    NightFell,
    Opinions,
    PhaseStarted,
    RoleCard,
    Speech,
    TeamList,
    VotedOut,
    fold,
)
from sandbox.games.killer.info import INFO, KILLER, POLICE, Context, Phase
from sandbox.words.rules import rules_from_template

# ---------------------------------------------------------------- the declaration
# Killer's modules: info.py (name, seats, roles, decisions, the enums), config.py
# (rulings), events.py (with the state, their fold), requests.py (open decisions,
# checks, fallbacks), resolve.py (the deal, KG-2; steps into events; endings and results),
# words.py and page.py (its words: every event's sentence; the card and the board);
# its rules text and vocabulary are data beside its prompts (prompts/killer/:
# <lang>/rules.j2, vocabulary.toml); bot.py with talk.py and evidence.py (the
# baseline bot) and metrics.py (behaviour metrics) are imported only when asked
# for. This module declares the variant: its rules, its research hooks, its rules
# text and its seat views.


class KillerRules(Rules[KillerState, KillerConfig]):
    # The referee calls these after every event or answer: the module functions
    # themselves, not methods that only pass their arguments on (one call less).
    apply = staticmethod(fold)
    open_requests = staticmethod(requests.open_requests)
    check = staticmethod(requests.check)
    outcome = staticmethod(resolve.outcome)
    setup = staticmethod(resolve.setup_events)
    fallback = staticmethod(requests.fallback)
    resolve = staticmethod(resolve.resolve)

    def seat_count(self, config: KillerConfig) -> int:
        return config.players

    def initial_state(self, config: KillerConfig) -> KillerState:
        return KillerState()  # the rulings arrive in the public GameStarted event

    def roles(self, state: KillerState) -> Mapping[int, str]:
        return dict(state.roles)

    def next_in_series(self, config: KillerConfig, finished_state: KillerState) -> KillerConfig:
        """KG-5: the next game bars this game's first-night victim on its night 1."""
        return config.model_copy(
            update={"previous_first_victim": finished_state.first_night_victim}
        )


class KillerResearch(Research):
    def known_seats(self, private: Mapping[str, Any]) -> set[int]:
        """KG-2: killers know each other, police know each other."""
        mates = private.get("fellow_killers") or private.get("fellow_police") or []
        return {int(s) for s in mates}


class Killer(Variant[KillerState, KillerConfig]):
    info = INFO
    config_model = KillerConfig
    rules = KillerRules()
    research = KillerResearch(
        INFO,
        bot="sandbox.games.killer.bot:BaselineBot",
        metrics="sandbox.games.killer.metrics:METRICS",
        statements="sandbox.games.killer.metrics:STATEMENTS",
    )

    def view_fold(self, seat: int) -> ViewFold:
        return SeatFold(self, _Fold(seat), VIEW)

    def rules_text(self, config: KillerConfig, language: str = "en") -> str:
        """The templates ``prompts/killer/<lang>/rules.j2`` with this config's rulings."""
        return rules_from_template(
            self.name,
            language,
            c=config,
            n=lineup(config.players),  # KG-1: the line-up for this many players
            own_side=config.concede == OWN_SIDE,  # KG-13
            talk_chars=TALK_CHARS,  # the KG-3 ruling's message limit
        )

    def words(self) -> VariantWords:
        return wording.WORDS


# ---------------------------------------------------------------- seat views
# A seat's view of a Killer game, folded only from the events it may see.
#
# See the package docstring (sandbox/games/killer/__init__.py) for the fields.


@dataclass
class _Fold(DaysRecord):
    team: dict[str, list[int]] = field(default_factory=dict)
    checks: list[dict[str, Any]] = field(default_factory=list)
    opinions: list[dict[str, Any]] = field(default_factory=list)
    kills: list[dict[str, Any]] = field(default_factory=list)
    last_words_used: int = 0
    ballots: list[dict[str, Any]] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    candidates: list[int] = field(default_factory=list)


def _private(fold: _Fold) -> dict[str, Any]:
    private: dict[str, Any] = {"seat": fold.seat, "role": fold.role}
    if fold.role == KILLER:
        private["fellow_killers"] = [s for s in fold.team.get(KILLER, []) if s != fold.seat]
        private["kills"] = fold.kills
    if fold.role == POLICE:
        private["fellow_police"] = [s for s in fold.team.get(POLICE, []) if s != fold.seat]
        private["checks"] = fold.checks
    private["my_opinions"] = fold.opinions
    return private


def _public(fold: _Fold) -> dict[str, Any]:
    public = {
        "day": fold.day,
        "phase": fold.phase,
        "players": fold.players,
        "rules": fold.rules,
        "living": fold.living(),
        "dead": fold.dead,
        "last_words_quota": fold.rules.get("last_words_quota", 0),
        "last_words_used": fold.last_words_used,
        "ballots_today": fold.ballots,
        "speaking_order": fold.order,
        "vote_candidates": fold.candidates,
    }
    budget = fold.open.budget
    if budget is not None:  # only games with open days: the views of others stay as they were
        public["open_day"] = {
            "day": fold.open.day,
            "round": fold.open.round,
            "open": fold.open.open,
            "left": fold.open.left(fold.seat),
            "messages_left_today": max(0, budget.per_day - fold.open.total),
        }
    return public


def _apply(fold: _Fold, event: Event) -> None:
    fold.open.apply(event)  # the discussion.* kinds alone
    if isinstance(event, GameStarted):
        fold.players = event.players
        fold.rules = {
            "killers": event.killers,
            "police": event.police,
            "last_words_quota": event.last_words_quota,
            "day_limit": event.day_limit,
            "check_answer": event.check_answer,
            "reveal_role_on_death": event.reveal_role_on_death,
            "barred_first_victim": event.barred_first_victim,
            "concede": event.concede,
        }
        if event.discussion == OPEN:  # OD-1, OD-4 (games in turns keep their views)
            fold.rules["discussion"] = event.discussion
            fold.rules["messages_per_seat"] = event.messages_per_seat
            fold.rules["messages_per_day"] = event.messages_per_day
            fold.rules["quiet_rounds"] = event.quiet_rounds
        for key in TALK:  # KG-3, KG-14 rulings: stated only when on (views stay as they were)
            if getattr(event, key):
                fold.rules[key] = True
    elif isinstance(event, RoleCard) and event.seat == fold.seat:
        fold.role = event.role
    elif isinstance(event, TeamList):
        fold.team[event.role] = list(event.members)
    elif isinstance(event, NightFell):
        fold.day, fold.phase = event.night, Phase.NIGHT
        fold.ballots, fold.order, fold.candidates = [], [], []
    elif isinstance(event, Opinions):
        mine = event.opinions.get(str(fold.seat))
        fold.opinions.append({"night": event.night, "about": event.role, "target": mine})
    elif isinstance(event, KillChosen):
        fold.kills.append({"night": event.night, "target": event.target})
    elif isinstance(event, CheckResult) and event.suspect is not None:
        fold.checks.append({"night": event.night, "suspect": event.suspect, "answer": event.answer})
    elif isinstance(event, Dawn):
        fold.phase = Phase.DAWN
        if event.victim is not None:
            fold.dead.append(_death(event.victim, event.day, "night", event.role))
    elif isinstance(event, VotedOut):
        fold.dead.append(_death(event.seat, event.day, "vote", event.role))
    elif isinstance(event, PhaseStarted):
        _phase(fold, event)
    elif isinstance(event, Speech | LastWords) and fold.order:
        fold.order.pop(0)
    elif isinstance(event, Ballots):
        fold.ballots.append({"round": event.round, "ballots": dict(event.ballots)})
    elif isinstance(event, GameEnded):
        fold.phase = Phase.OVER


def _phase(fold: _Fold, event: PhaseStarted) -> None:
    fold.phase = event.phase
    fold.order = [] if event.context == Context.OPEN else list(event.order)  # OD-5: no turns
    fold.candidates = list(event.candidates)
    if event.phase == Phase.LAST_WORDS:
        fold.last_words_used += 1


def _death(seat: int, day: int, cause: str, role: str | None) -> dict[str, Any]:
    return {"seat": seat, "day": day, "cause": cause, "role": role}


def _history_item(fold: _Fold, seq: int, event: Event) -> HistoryItem | None:
    # KG-14: a speech's claims as recorded (claims_of), never confirmed
    if isinstance(event, StepResolved):
        return None
    phase = fold.phase
    if isinstance(event, Speech):
        facts = {"context": event.context, **claims_of(event)}
        return HistoryItem(seq, event.kind, fold.day, phase, event.seat, event.text, facts)
    if isinstance(event, TeamMessage | GraveyardMessage):  # KG-3, KG-14 rulings: player text
        return HistoryItem(seq, event.kind, fold.day, phase, event.seat, event.text, {})
    if isinstance(event, LastWords):
        return HistoryItem(
            seq, event.kind, fold.day, Phase.LAST_WORDS, event.seat, event.text, claims_of(event)
        )
    return HistoryItem(seq, event.kind, fold.day, phase, None, None, referee_facts(event))


# How a seat's view is folded: the hooks core.folds.SeatFold calls.
VIEW = FoldHooks(_apply, _history_item, _private, _public)


VARIANT = Killer()

__all__ = ["VARIANT", "Killer"]
