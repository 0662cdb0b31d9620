"""Plays a game: asks the seats, feeds their answers to the referee, writes the
transcript as it goes. Sealed simultaneous decisions are asked concurrently;
their answers are submitted in seat order so the event log is deterministic."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from sandbox.agents.llm.beliefs import is_living, probe_request
from sandbox.core.errors import IllegalDecision
from sandbox.core.events import DecisionMade, Event, StepResolved
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import (
    FALLBACK_INVALID,
    FALLBACK_PROVIDER,
    Agent,
    AgentAnswer,
    DecisionContext,
    rules_book,
)
from sandbox.core.variant import Outcome
from sandbox.session.open_clock import OPEN_PACE_S, play_round, with_people
from sandbox.transcript import TranscriptWriter

ABORTED = "aborted"
# The abort rule only looks at the share once this many decisions were asked,
# so a single early provider hiccup cannot end a game.
ABORT_MIN_DECISIONS = 8

EventHook = Callable[[int, Event], None]


@dataclass
class RunStats:
    """Counters a study needs: decisions, repairs, fallbacks (per seat, per reason), usage."""

    decisions: int = 0
    repairs: int = 0
    fallbacks: dict[int, dict[str, int]] = field(default_factory=dict)
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    # Prompt tokens the provider read from its cache (of ``tokens_in``).
    tokens_cached: int = 0

    def add_call(self, record: Mapping[str, Any]) -> None:
        """Count one model call record (an HTTP attempt): its tokens and cost."""
        self.calls += 1
        self.tokens_in += int(record.get("tokens_in") or 0)
        self.tokens_out += int(record.get("tokens_out") or 0)
        self.cost += float(record.get("cost") or 0.0)
        self.tokens_cached += int(record.get("cached_tokens") or 0)

    def __add__(self, other: RunStats) -> RunStats:
        """Counters of two parts of one game (before and after a resume, say)."""
        total = RunStats(
            self.decisions + other.decisions,
            self.repairs + other.repairs,
            {},
            self.calls + other.calls,
            self.tokens_in + other.tokens_in,
            self.tokens_out + other.tokens_out,
            self.cost + other.cost,
            self.tokens_cached + other.tokens_cached,
        )
        for part in (self, other):
            for seat, reasons in part.fallbacks.items():
                for reason, count in reasons.items():
                    for _ in range(count):
                        total.count_fallback(seat, reason)
        return total

    def count_fallback(self, seat: int, reason: str) -> None:
        per_seat = self.fallbacks.setdefault(seat, {})
        per_seat[reason] = per_seat.get(reason, 0) + 1

    def fallback_count(self, reason: str | None = None) -> int:
        return sum(
            n for per in self.fallbacks.values() for r, n in per.items() if reason in (None, r)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "repairs": self.repairs,
            "fallbacks": {str(s): dict(v) for s, v in sorted(self.fallbacks.items())},
            "calls": self.calls,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost": round(self.cost, 6),
            "tokens_cached": self.tokens_cached,
        }


class Runner:
    """Drives one game to its end (or until an agent raises)."""

    def __init__(
        self,
        game: Game,
        agents: Mapping[int, Agent],
        writer: TranscriptWriter | None = None,
        *,
        on_event: EventHook | None = None,
        abort_share: float | None = 0.25,
        abort_seat: int | None = None,
        open_pace_s: float = OPEN_PACE_S,
    ) -> None:
        missing = [s for s in game.seats if s not in agents]
        if missing:
            raise ValueError(f"no agent for seats {missing}")
        if abort_seat is not None and abort_seat not in game.seats:
            raise ValueError(f"abort_seat {abort_seat} is not a seat of this game")
        self.game = game
        self.agents = agents
        self.writer = writer
        self.on_event = on_event
        self.abort_share = abort_share
        # The abort rule counts this seat's decisions alone (an evaluation of one
        # seat, issue 41), else every seat's.
        self.abort_seat = abort_seat
        # OD-7: how long an open day's round waits for a person without a time limit.
        self.open_pace_s = open_pace_s
        self._asked: dict[int, int] = {}
        # Every seat reads the rules of this game in its own language (KG/FF rule texts).
        self.rules = rules_book(game)
        self.stats = RunStats()
        self._emitted = 0
        self._recorded_calls: list[Mapping[str, Any]] | None = None

    async def run(self) -> Outcome:
        self._flush()
        if self._recorded_calls is not None:
            await self.finish_probes(self._recorded_calls)
            self._recorded_calls = None
        while not self.game.over:
            requests = self.game.pending()
            if not requests:
                raise RuntimeError("the referee asks nobody anything but the game is not over")
            step_start = len(self.game.events)
            if with_people(requests, self.agents):
                await play_round(self, requests)  # OD-7: on the wall clock
            else:
                answers = await asyncio.gather(*(self._ask(r) for r in requests))
                for request, answer in zip(requests, answers, strict=True):
                    self._submit(request, answer)
                    self._flush()
            self._maybe_abort()
            self._flush()
            await self._probe_after_speech(step_start)
        outcome = self.game.outcome()
        assert outcome is not None
        return outcome

    async def _ask(self, request: DecisionRequest) -> AgentAnswer:
        ctx = DecisionContext.for_request(self.game, request, self.rules)
        return await self.agents[request.seat].decide(ctx)

    async def ask(self, request: DecisionRequest) -> AgentAnswer:
        """The seat's answer to ``request`` (for the wall-clock round, OD-7)."""
        return await self._ask(request)

    def submit(self, request: DecisionRequest, answer: AgentAnswer) -> None:
        """Hand the seat's answer to the referee, counted (a fallback if refused)."""
        self._submit(request, answer)
        self._flush()

    def interject(self, request: DecisionRequest, answer: AgentAnswer) -> None:
        """OD-7: a person's message that closes the round under way, already
        checked as legal (``open_clock``), counted like any answer."""
        assert answer.payload is not None
        self._count(request, answer)
        self.game.interject(request.id, answer.payload, answer.note)
        self._flush()

    def _count(self, request: DecisionRequest, answer: AgentAnswer) -> None:
        self.stats.decisions += 1
        self._asked[request.seat] = self._asked.get(request.seat, 0) + 1
        self.stats.repairs += answer.repairs
        for record in answer.calls:
            self._record_call(request, record)

    def _submit(self, request: DecisionRequest, answer: AgentAnswer) -> None:
        self._count(request, answer)
        if answer.payload is not None:
            try:
                self.game.submit(request.id, answer.payload, answer.note)
                return
            except IllegalDecision as err:
                # An agent that skipped validation: the referee still decides.
                answer = AgentAnswer(
                    None, f"{answer.note}\n[referee] {err}".strip(), FALLBACK_INVALID
                )
        reason = answer.fallback_reason or FALLBACK_INVALID
        self.stats.count_fallback(request.seat, reason)
        self.game.submit_fallback(request.id, reason, answer.note)

    def _record_call(self, request: DecisionRequest, record: Mapping[str, Any]) -> None:
        self.stats.add_call(record)
        if self.writer is not None:
            line = {
                "seat": request.seat,
                "request_id": request.id,
                "decision": request.decision,
                **record,
            }
            self.writer.call(line)

    async def _probe_after_speech(self, start: int, done: Collection[int] = ()) -> None:
        """``probe_after_speech``: when the events from ``start`` hold a public
        speech, every living seat whose agent asks for it (not the speaker, not
        the seats in ``done``) gets a probe-only call, all at once, recorded in
        seat order at ``seq`` = the events so far. Nothing reaches the referee."""
        events = self.game.events
        speeches = self.game.variant.info.speech_kinds  # the public speeches (VariantInfo)
        speakers = {getattr(e, "seat", None) for e in events[start:] if e.kind in speeches}
        if not speakers or self.game.over:
            return
        seq = len(events)
        probers = {
            seat: cast(SpeechProber, agent)
            for seat, agent in sorted(self.agents.items())
            if getattr(agent, "probes_after_speech", False)
            and seat not in speakers
            and seat not in done
        }
        contexts = {
            seat: DecisionContext.for_request(self.game, probe_request(seat, seq), self.rules)
            for seat in probers
        }
        listeners = [seat for seat in probers if is_living(contexts[seat].view)]
        answers = await asyncio.gather(*(probers[s].probe(contexts[s]) for s in listeners))
        for seat, records in zip(listeners, answers, strict=True):
            request = contexts[seat].request
            for record in records:
                self._record_call(request, {**record, "probe": "after_speech", "seq": seq})

    async def finish_probes(self, recorded: Iterable[Mapping[str, Any]]) -> None:
        """For resume: the probes still owed after the last recorded step (a game
        cut while its listeners were being probed). Seats with a probe line at
        the current ``seq`` (answered or failed) are not asked again."""
        seq = len(self.game.events)
        done = {int(c.get("seat") or 0) for c in recorded if c.get("probe") and c.get("seq") == seq}
        await self._probe_after_speech(last_step_start(self.game.events), done)

    def _maybe_abort(self) -> None:
        if self.abort_share is None or self.game.over:
            return
        seat = self.abort_seat
        if seat is None:
            asked, whose = self.stats.decisions, ""
            failed = self.stats.fallback_count(FALLBACK_PROVIDER)
        else:
            asked = self._asked.get(seat, 0)
            failed = self.stats.fallbacks.get(seat, {}).get(FALLBACK_PROVIDER, 0)
            whose = f"seat {seat}: "
        if asked >= ABORT_MIN_DECISIONS and failed / asked > self.abort_share:
            self.game.abort(
                ABORTED,
                f"{whose}{failed} of {asked} decisions fell back because the model provider "
                f"failed (limit {self.abort_share:.0%}); exclude this game from studies.",
            )

    def _flush(self) -> None:
        events = self.game.events
        while self._emitted < len(events):
            seq, event = self._emitted, events[self._emitted]
            if self.writer is not None:
                self.writer.event(seq, event)
            if self.on_event is not None:
                self.on_event(seq, event)
            self._emitted += 1

    def start_from(self, seq: int, calls: Iterable[Mapping[str, Any]] | None = None) -> None:
        """For resume: events before ``seq`` are already in the transcript, and
        so are ``calls`` (then probes still owed at ``seq`` are asked first)."""
        self._emitted = seq
        self._recorded_calls = None if calls is None else list(calls)


class SpeechProber(Protocol):
    """An agent with ``probe_after_speech`` (the LLM seat)."""

    async def probe(self, ctx: DecisionContext) -> list[dict[str, Any]]: ...


def last_step_start(events: Sequence[Event]) -> int:
    """Where the last resolved step's events begin: its decisions (recorded
    together, the resolution after the last of them). ``len(events)`` when the
    log does not end with a resolved step."""
    if not events or not isinstance(events[-1], StepResolved):
        return len(events)
    index = max((i for i, e in enumerate(events) if isinstance(e, DecisionMade)), default=-1)
    if index < 0:
        return len(events)
    while index > 0 and isinstance(events[index - 1], DecisionMade):
        index -= 1
    return index
