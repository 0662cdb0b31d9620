"""A baseline Killer player that decides only from its view and the request.

It talks in a small fixed phrasebook ("I suspect seat 5.", "Seat 5 is a killer:
I am police and checked it.") and reads the same phrases in others' speeches, so
baseline seats can follow each other's accusations. Heuristics follow the
source's strategy notes (秘籍): killers kill quietly or strike whoever threatens
them and always name a suspect by day; police either share their checks or hide
them (a seeded policy); civilians always name a suspect and vote on the evidence
(accusations, last words, police claims, ballots).
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from sandbox.agents.base import FALLBACK_INVALID, Agent, AgentAnswer, DecisionContext
from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import Choice
from sandbox.core.variant import SeatView

SUSPECT_RE = re.compile(r"suspect seat (\d+)", re.IGNORECASE)
CLAIM_RE = re.compile(r"seat (\d+) is a killer: i am police", re.IGNORECASE)
CLEAR_RE = re.compile(r"seat (\d+) is not a killer: i am police", re.IGNORECASE)

# Evidence weights: a police claim outweighs any number of plain accusations.
W_ACCUSE = 1.0
W_LAST_WORDS = 2.0
W_BALLOT = 0.5
W_CLAIM = 10.0


class BaselineBot(Agent):
    kind = "baseline"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.shares_checks = self.rng.random() < 0.5  # police policy, fixed per seat

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        payload = self._choose(ctx)
        try:
            return AgentAnswer(ctx.validate(payload))
        except IllegalDecision:
            # Our choice was illegal after all; the referee's fallback is always legal.
            return AgentAnswer(None, fallback_reason=FALLBACK_INVALID)

    # -------------------------------------------------------------- dispatch
    def _choose(self, ctx: DecisionContext) -> dict[str, Any]:
        decision = ctx.request.decision
        view = ctx.view
        if decision == "kill_opinion":
            return {"target": self._kill(view, _options(ctx, "target"))}
        if decision == "check_opinion":
            return {"suspect": self._suspect(view, _options(ctx, "suspect"))}
        if decision == "vote":
            return {"target": self._vote(view, _options(ctx, "target"))}
        payload: dict[str, Any] = {"speech": self._speech(view, decision == "last_words")}
        if any(f.name == "concede" for f in ctx.request.fields):
            payload["concede"] = False  # a lone survivor still plays on
        return payload

    # ----------------------------------------------------------------- night
    def _kill(self, view: SeatView, options: list[int]) -> int | None:
        """Strike a suspected police player or an accuser; else a quiet player."""
        mates = set(view.private.get("fellow_killers", [])) | {view.seat}
        targets = [s for s in options if s not in mates]
        if not targets:
            return None
        threat = _threats(view, mates)
        words = _words_spoken(view)
        return max(targets, key=lambda s: (threat[s], -words[s], self.rng.random()))

    def _suspect(self, view: SeatView, options: list[int]) -> int | None:
        checked = {c["suspect"] for c in view.private.get("checks", [])}
        fresh = [s for s in options if s not in checked]
        if not fresh:
            return None
        score = _suspicion(view)
        return max(fresh, key=lambda s: (score[s], self.rng.random()))

    # ------------------------------------------------------------------- day
    def _vote(self, view: SeatView, options: list[int]) -> int | None:
        if not options:
            return None
        role = view.private.get("role")
        if role == "killer":
            mates = set(view.private.get("fellow_killers", []))
            innocent = [s for s in options if s not in mates]
            pool = innocent or options
            score = _suspicion(view)
            choice: int = max(pool, key=lambda s: (score[s], self.rng.random()))
            return choice
        known = _known_killers(view)
        cleared = _known_innocent(view)
        pool = [s for s in options if s in known] or [s for s in options if s not in cleared]
        score = _suspicion(view)
        best: int = max(pool or options, key=lambda s: (score[s], self.rng.random()))
        return best

    def _speech(self, view: SeatView, last_words: bool) -> str:
        role = view.private.get("role")
        if role == "police" and (self.shares_checks or last_words):
            shared = _police_claims(view)
            if shared:
                return shared
        target = self._day_suspect(view)
        if target is None:
            return "I have nothing to add. Pass."
        return f"I suspect seat {target}. Pass."

    def _day_suspect(self, view: SeatView) -> int | None:
        living: list[int] = [int(s) for s in view.public.get("living", []) if s != view.seat]
        if not living:
            return None
        if view.private.get("role") == "killer":
            mates = set(view.private.get("fellow_killers", []))
            living = [s for s in living if s not in mates] or living
        else:
            known = [s for s in living if s in _known_killers(view)]
            if known:
                return known[0]
        score = _suspicion(view)
        pick: int = max(living, key=lambda s: (score[s], self.rng.random()))
        return pick


# ---------------------------------------------------------------- evidence
def _options(ctx: DecisionContext, name: str) -> list[int]:
    field = ctx.request.field(name)
    assert isinstance(field, Choice)
    return [o for o in field.options if isinstance(o, int) and not isinstance(o, bool)]


def _speeches(view: SeatView) -> list[tuple[int, str, bool]]:
    """(speaker, text, is_last_words) for every visible speech."""
    return [
        (item.speaker, item.speech or "", item.kind == "killer.last_words")
        for item in view.history
        if item.speaker is not None
    ]


def _suspicion(view: SeatView) -> defaultdict[int, float]:
    """How strongly the table points at each seat (own knowledge not included)."""
    score: defaultdict[int, float] = defaultdict(float)
    for speaker, text, last in _speeches(view):
        for seat in SUSPECT_RE.findall(text):
            score[int(seat)] += W_LAST_WORDS if last else W_ACCUSE
        for seat in CLAIM_RE.findall(text):
            if speaker != int(seat):
                score[int(seat)] += W_CLAIM
        for seat in CLEAR_RE.findall(text):
            score[int(seat)] -= W_CLAIM
    # 秘籍: watch the hands. Piling on a player the police cleared, or sparing a
    # player they exposed, is what a killer does.
    cleared = {seat for seat, s in score.items() if s <= -W_CLAIM}
    exposed = {seat for seat, s in score.items() if s >= W_CLAIM}
    for item in view.history:
        if item.kind == "killer.ballots":
            for voter, target in _ballots(item.facts).items():
                if target in cleared or (exposed and target not in exposed):
                    score[voter] += W_BALLOT
    score.pop(view.seat, None)
    return score


def _ballots(facts: Mapping[str, Any]) -> dict[int, int | None]:
    return {int(k): v for k, v in dict(facts.get("ballots", {})).items()}


def _threats(view: SeatView, mates: set[int]) -> defaultdict[int, float]:
    """Killers fear police claimants and whoever accused or voted for a killer."""
    threat: defaultdict[int, float] = defaultdict(float)
    for speaker, text, _ in _speeches(view):
        if CLAIM_RE.search(text) or CLEAR_RE.search(text):
            threat[speaker] += W_CLAIM
        threat[speaker] += sum(W_ACCUSE for s in SUSPECT_RE.findall(text) if int(s) in mates)
    for item in view.history:
        if item.kind == "killer.ballots":
            for voter, target in _ballots(item.facts).items():
                if target in mates:
                    threat[voter] += W_BALLOT
    return threat


def _words_spoken(view: SeatView) -> Counter[int]:
    words: Counter[int] = Counter()
    for speaker, text, _ in _speeches(view):
        words[speaker] += len(text.split())
    return words


def _known_killers(view: SeatView) -> set[int]:
    checks = view.private.get("checks", [])
    return {c["suspect"] for c in checks if c["answer"] == "killer"}


def _known_innocent(view: SeatView) -> set[int]:
    checks = view.private.get("checks", [])
    cleared = {c["suspect"] for c in checks if c["answer"] != "killer"}
    return cleared | set(view.private.get("fellow_police", []))


def _police_claims(view: SeatView) -> str:
    living = set(view.public.get("living", []))
    parts = []
    for check in view.private.get("checks", []):
        seat = check["suspect"]
        if seat not in living:
            continue
        verdict = "is a killer" if check["answer"] == "killer" else "is not a killer"
        parts.append(f"Seat {seat} {verdict}: I am police and checked it.")
    return " ".join(parts) + " Pass." if parts else ""
