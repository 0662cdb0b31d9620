"""The referee: drives a variant, validates every decision, records every event.

``Game`` is pure and deterministic: the same variant, config, seed and
decisions always produce the same events. It never blocks and never does I/O;
a runner asks the seats and feeds their answers back in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from sandbox.core import discussion
from sandbox.core.errors import GameOver, IllegalDecision, UnknownRequest
from sandbox.core.events import DecisionMade, Event, GameEnded, StepResolved, freeze
from sandbox.core.requests import DecisionRequest, Payload, check_shape
from sandbox.core.rng import LazyRandom, derive_rng
from sandbox.core.variant import CoreEnding, Outcome, Result, SeatView, Variant, ViewFold
from sandbox.core.visibility import Visibility

_CORE_EVENTS = (DecisionMade, StepResolved, GameEnded)
_MISSING = object()
# what `validate` returned for a request: (the request, the answer, its items then)
_Checked = tuple[DecisionRequest, dict[str, Any], tuple[tuple[str, Any], ...]]


class Game:
    """One game in progress. Create with :meth:`new` or :meth:`from_events`."""

    def __init__(self, variant: Variant[Any, Any], config: BaseModel, seed: int) -> None:
        self.variant = variant
        self.config = config
        self.seed = seed
        self.state: Any = variant.rules.initial_state(config)
        self.events: list[Event] = []
        self._vis: list[Visibility] = []
        self.step = 0
        self._answers: dict[int, Payload] = {}
        self._requests: tuple[DecisionRequest, ...] | None = None
        self.ended: GameEnded | None = None
        # seat -> (incremental view fold, index of the next event to feed it)
        self._folds: dict[int, tuple[ViewFold, int]] = {}
        # request id -> (the request, the dict `validate` returned, its items then): a
        # submit of that very dict, unchanged, in the same state needs no second check
        self._checked: dict[str, _Checked] = {}
        # the steps' generator: re-armed for each step, seeded only if a step draws
        self._step_rng = LazyRandom(seed, "step", 0)

    # ------------------------------------------------------------------ build
    @classmethod
    def new(cls, variant: Variant[Any, Any], config: BaseModel, seed: int) -> Game:
        variant.info.check_seat_count(variant.rules.seat_count(config))
        game = cls(variant, config, seed)
        for event in variant.rules.setup(config, derive_rng(seed, "setup")):
            game._record(event)
        game._advance()
        return game

    @classmethod
    def from_events(
        cls, variant: Variant[Any, Any], config: BaseModel, seed: int, events: Sequence[Event]
    ) -> Game:
        """Rebuild a game by folding recorded events (resume, fork at event N)."""
        game = cls(variant, config, seed)
        for event in events:
            game._record(event)
        if game.ended is None and game.requests() and not game.pending():
            raise ValueError(
                "the events stop in the middle of a step's resolution; rebuild the game by "
                "replaying its decisions instead (Game.new + submit)"
            )
        game._advance()
        return game

    # ------------------------------------------------------------------ query
    @property
    def over(self) -> bool:
        return self.ended is not None

    @property
    def seats(self) -> range:
        return range(1, self.variant.rules.seat_count(self.config) + 1)

    def requests(self) -> tuple[DecisionRequest, ...]:
        """Every request of the current step, answered or not."""
        if self.ended is not None:
            return ()
        if self._requests is None:
            self._requests = self.variant.rules.open_requests(self.state, self.step)
        return self._requests

    def pending(self) -> tuple[DecisionRequest, ...]:
        """The requests still waiting for an answer, in seat order."""
        answers = self._answers
        if not answers:
            return self.requests()
        return tuple(r for r in self.requests() if r.seat not in answers)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know now: folded from the events visible to it only."""
        cached = self._folds.get(seat)
        if cached is None:
            fold = self.variant.view_fold(seat)
            if fold is None:
                return self.variant.build_view(seat, self.visible_events(seat))
            cached = (fold, 0)
        fold, start = cached
        for i in range(start, len(self.events)):
            if self._vis[i].visible_to(seat):
                fold.add(i, self.events[i])
        self._folds[seat] = (fold, len(self.events))
        return fold.snapshot()

    def visible_events(self, seat: int | None) -> list[tuple[int, Event]]:
        """(seq, event) pairs visible to ``seat``; ``None`` means the referee."""
        return [
            (i, e)
            for i, e in enumerate(self.events)
            if seat is None or self._vis[i].visible_to(seat)
        ]

    def roles(self) -> Mapping[int, str]:
        return self.variant.rules.roles(self.state)

    def outcome(self) -> Outcome | None:
        if self.ended is None:
            return None
        results = {int(k): v for k, v in self.ended.results.items()}
        ending = self.variant.info.ending(self.ended.reason)
        return Outcome(ending, results, self.ended.summary)

    # --------------------------------------------------------------- decide
    def validate(self, request_id: str, payload: object) -> dict[str, Any]:
        """Check an answer without recording it; return it normalised."""
        request = self._open(request_id)
        normalised = self._validate(request, payload)
        self._checked[request_id] = (request, normalised, tuple(normalised.items()))
        return normalised

    def submit(self, request_id: str, payload: object, note: str = "") -> list[Event]:
        """Record a valid answer; resolve the step once every answer is in.

        Returns the events this call produced. Raises IllegalDecision (nothing
        recorded) when the answer breaks a rule.
        """
        reused = self._already_checked(request_id, payload)
        if reused is None:
            request = self._open(request_id)
            normalised = self._validate(request, payload)
        else:
            request, normalised = reused
        made = DecisionMade(request.seat, request.id, request.decision, normalised, note)
        return self._accept(made)

    def submit_fallback(self, request_id: str, reason: str, note: str = "") -> list[Event]:
        """Apply the variant's documented fallback for a seat that gave no valid answer."""
        request = self._open(request_id)
        payload = dict(freeze(dict(self.variant.rules.fallback(self.state, request))))
        made = DecisionMade(request.seat, request.id, request.decision, payload, note, True, reason)
        return self._accept(made)

    def interject(self, request_id: str, payload: object, note: str = "") -> list[Event]:
        """OD-7: a person's message that closes the open-day round under way as
        its first message. Checked as the seat's answer to its ask, and recorded
        with the interjection's mark (one per round). Raises IllegalDecision."""
        request = self._open(request_id)
        marked = discussion.interjection(self._validate(request, payload))
        if any(discussion.interjected(answer) for answer in self._answers.values()):
            raise IllegalDecision(discussion.PERSON_RULE, "This round is already closed.")
        return self._accept(DecisionMade(request.seat, request.id, request.decision, marked, note))

    def withdraw(self, request_id: str, note: str = "") -> list[Event]:
        """OD-7: an open-day ask still unanswered when a person's message closed
        the round; recorded as the referee's answer for it (no budget spent)."""
        request = self._open(request_id)
        if discussion.SPEAK not in {f.name for f in request.fields}:
            raise IllegalDecision(discussion.PERSON_RULE, "Only an open day's ask is withdrawn.")
        payload = discussion.withdrawn()
        made = DecisionMade(
            request.seat, request.id, request.decision, payload, note, True, discussion.WITHDRAWN
        )
        return self._accept(made)

    def redo(self, made: DecisionMade) -> list[Event]:
        """Submit a recorded decision again the way it was made (replay, resume,
        fork, what-if): an answer, a fallback, an interjection or a withdrawn ask."""
        if made.fallback and made.fallback_reason == discussion.WITHDRAWN:
            return self.withdraw(made.request_id, made.note)
        if made.fallback:
            return self.submit_fallback(made.request_id, made.fallback_reason, made.note)
        if discussion.interjected(made.payload):
            return self.interject(made.request_id, discussion.unmarked(made.payload), made.note)
        return self.submit(made.request_id, made.payload, made.note)

    def abort(self, reason: str, summary: str) -> list[Event]:
        """End the game now with a draw for every seat (e.g. too many provider failures).
        ``reason`` must be a :class:`CoreEnding` ("aborted")."""
        if self.ended is not None:
            raise GameOver("the game is already over")
        ending = CoreEnding(reason)
        start = len(self.events)
        results = {str(s): Result.DRAW.value for s in self.seats}
        self._record(GameEnded(ending.value, results, summary))
        return self.events[start:]

    # -------------------------------------------------------------- internal
    def _open(self, request_id: str) -> DecisionRequest:
        if self.ended is not None:
            raise GameOver("the game is over; no more decisions are taken")
        for request in self.requests():
            if request.id == request_id:
                if request.seat in self._answers:
                    raise UnknownRequest(f"request {request_id} was already answered")
                return request
        open_ids = [r.id for r in self.pending()]
        raise UnknownRequest(f"request {request_id} is not open; open requests: {open_ids}")

    def _validate(self, request: DecisionRequest, payload: object) -> dict[str, Any]:
        normalised = check_shape(request, payload)  # a new dict, its values frozen
        self.variant.rules.check(self.state, request, normalised)
        return normalised

    def _already_checked(
        self, request_id: str, payload: object
    ) -> tuple[DecisionRequest, dict[str, Any]] | None:
        """The request and a copy of ``payload`` if it is the very dict ``validate``
        returned for this request since the last event, with the same keys and the
        same value objects (values are immutable once normalised): the check would
        pass again, since it depends only on the state, the request and the payload.
        Else None. (Any event empties ``_checked``, so the request is still open.)"""
        checked = self._checked.get(request_id)
        if checked is None or payload is not checked[1]:
            return None
        request, returned, items = checked
        if len(returned) != len(items):
            return None
        for key, value in items:
            if returned.get(key, _MISSING) is not value:
                return None
        return request, dict(items)  # the event never shares a dict the seat holds

    def _accept(self, made: DecisionMade) -> list[Event]:
        start = len(self.events)
        self._record(made)
        requests, answers = self.requests(), self._answers
        # fewer answers than requests: one is surely open (no scan needed); a step of
        # one request is complete with the answer just accepted for it
        if len(answers) >= len(requests) and (
            len(requests) == 1 or all(r.seat in answers for r in requests)
        ):
            self._resolve_step()
            self._advance()
        return self.events[start:]

    def _resolve_step(self) -> None:
        answers = self._answers  # no copy: core.step rebinds it, no decision comes between
        rng = self._step_rng
        rng.defer(self.seed, "step", self.step)  # = derive_rng(...), seeded on use
        for event in self.variant.rules.resolve(self.state, self.config, answers, rng):
            self._record(event)
        self._record(StepResolved(self.step))

    def _advance(self) -> None:
        """Check for the end; resolve at once any step in which nobody has to decide
        (e.g. a half-night whose every possible attacker is dead)."""
        for _ in range(10_000):
            self._check_end()
            if self.ended is not None or self.requests():
                return
            self._resolve_step()
        raise RuntimeError(f"{self.variant.name}: no decision asked for 10000 steps")

    def _check_end(self) -> None:
        if self.ended is not None:
            return
        outcome = self.variant.rules.outcome(self.state)
        if outcome is not None:
            results = {str(s): str(r) for s, r in sorted(outcome.results.items())}
            self._record(GameEnded(outcome.reason, results, outcome.summary))

    def _record(self, event: Event) -> None:
        self.events.append(event)
        self._vis.append(event.visibility())
        if self._checked:
            self._checked = {}  # the state changes: earlier checks no longer hold
        if isinstance(event, _CORE_EVENTS):  # most events are the variant's: one check
            self._fold_core(event)
        self.variant.rules.apply(self.state, event)

    def _fold_core(self, event: Event) -> None:
        if isinstance(event, DecisionMade):
            self._answers[event.seat] = event.payload
        elif isinstance(event, StepResolved):
            self.step = event.step + 1
            self._answers = {}
            self._requests = None
        elif isinstance(event, GameEnded):
            self.ended = event
            self._requests = None


def fork_points(events: Sequence[Event]) -> list[int]:
    """Event counts N at which a game may be forked: just before a step's first
    decision (after setup, or after a ``core.step``), while decisions remain."""
    decisions = [i for i, e in enumerate(events) if isinstance(e, DecisionMade)]
    if not decisions:
        return []
    last = decisions[-1]
    points = [decisions[0]]
    points += [i + 1 for i, e in enumerate(events) if isinstance(e, StepResolved) and i < last]
    return sorted(set(points))
