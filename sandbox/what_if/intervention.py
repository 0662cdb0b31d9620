"""The interventions of a what-if experiment (issue 21) and their checks
against the source game: what an arm changes, where it forks, and the events
its branches start from (re-refereed with the change). The branches are
played by :mod:`sandbox.what_if.branches`; the kinds are listed there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sandbox.core.errors import IllegalDecision, UnknownRequest
from sandbox.core.events import DecisionMade, Event, freeze
from sandbox.core.game import Game, fork_points
from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import Variant
from sandbox.core.words import TEXT_FIELDS
from sandbox.session.agent_specs import parse_agent_spec
from sandbox.session.errors import SessionError
from sandbox.session.gamefile import LoadedConfig, describe_error, parse_config
from sandbox.session.hearing import Hearing, hearing_of
from sandbox.session.replay import check_fork_point, game_config_of, loaded_of
from sandbox.transcript import Transcript, read_transcript

CONTROL = "control"
KINDS = ("remove_speech", "replace_speech", "pass_speech", "change_decision", "replace_agent")
PASS_TEXT = "pass"


@dataclass(frozen=True)
class Intervention:
    """One change to a game (see the module docstring); ``kind`` "control": none."""

    kind: str = CONTROL
    seq: int | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)
    seat: int | None = None
    agent: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.seq is not None:
            out["seq"] = self.seq
        if self.fields:
            out["fields"] = dict(self.fields)
        if self.seat is not None:
            out["seat"] = self.seat
        if self.agent is not None:
            out["agent"] = dict(self.agent)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Intervention:
        agent = data.get("agent")
        return cls(
            str(data.get("kind", CONTROL)),
            data.get("seq"),
            dict(data.get("fields") or {}),
            data.get("seat"),
            dict(agent) if isinstance(agent, Mapping) else None,
        )


@dataclass
class Prepared:
    """An intervention checked against its source game, ready to branch."""

    source: Path
    transcript: Transcript
    variant: Variant[Any]
    config: Any
    seed: int
    at: int
    intervention: Intervention
    loaded: LoadedConfig  # the source's game file
    speaker: int | None = None  # the seat whose speech or decision is changed
    decision_seq: int | None = None  # the decision re-refereed (speech, change)
    hidden: frozenset[int] = frozenset()  # remove_speech: seqs no seat hears of
    accused: tuple[int, ...] = ()  # the changed speech's accusations (as recorded)

    @property
    def arm(self) -> str:
        return self.intervention.kind

    def hearing_for(self, arm: str) -> Hearing:
        """What the seats of a branch of ``arm`` never hear: what the source's own
        seats never heard (a branch of a branch), and for the intervention arm
        of ``remove_speech`` the speech and its decision, from ``at`` on."""
        inherited = hearing_of(self.transcript.header).before(self.at)
        if arm == CONTROL or not self.hidden:
            return inherited
        return inherited.merged(Hearing(dict.fromkeys(self.hidden, self.at)))

    def loaded_for(self, arm: str) -> LoadedConfig:
        """The game file a branch of ``arm`` is played from (replace_agent: the
        seat's new agent entry appended, so the branch's header says who played)."""
        ivn = self.intervention
        if arm == CONTROL or ivn.kind != "replace_agent":
            return self.loaded
        raw = self.loaded.to_json()
        raw["agent"] = [*raw.get("agent", []), {**dict(ivn.agent or {}), "seats": [ivn.seat]}]
        return parse_config(raw, self.loaded.source)


def prepare(path: Path, intervention: Intervention, at: int | None = None) -> Prepared:
    """Check ``intervention`` against the game in ``path`` (SessionError, one line)
    and find the fork point: ``at`` if given, else the first step boundary after
    the changed event."""
    transcript = read_transcript(path)
    variant, config = game_config_of(transcript)
    loaded = loaded_of(transcript)
    events = transcript.events
    kind = intervention.kind
    if kind not in (CONTROL, *KINDS):
        raise SessionError(f"unknown intervention '{kind}'; known: {', '.join(KINDS)}")
    prepared = Prepared(
        path, transcript, variant, config, int(transcript.header["seed"]), 0, intervention, loaded
    )
    if kind in ("remove_speech", "replace_speech", "pass_speech", "change_decision"):
        _check_event(prepared, events)
    if kind == "replace_agent":
        _check_agent(prepared)
    prepared.at = _fork_point(events, at, prepared)
    _check_inherited(prepared)
    return prepared


def _check_inherited(prepared: Prepared) -> None:
    """A change re-referees the prefix from its decision on, so a hiding the
    source inherited (it is a remove_speech branch) must lie before it."""
    changed = prepared.decision_seq
    if changed is None or prepared.intervention.kind == "remove_speech":
        return
    inherited = hearing_of(prepared.transcript.header).before(prepared.at)
    later = sorted(s for s in inherited.unheard if s > changed)
    if later:
        raise SessionError(
            f"seq {changed}: this branch hides seq {later[0]}, after the change; "
            "branch its source game instead"
        )


def _check_event(prepared: Prepared, events: Sequence[Event]) -> None:
    seq = prepared.intervention.seq
    if seq is None or not 0 <= seq < len(events):
        raise SessionError(f"seq {seq} out of range; this game has events 0..{len(events) - 1}")
    event = events[seq]
    if prepared.intervention.kind == "change_decision":
        if not isinstance(event, DecisionMade):
            raise SessionError(f"seq {seq} is a {event.kind} event, not a decision")
        prepared.speaker, prepared.decision_seq = event.seat, seq
        return
    if event.kind not in prepared.variant.info.speech_kinds:
        speeches = ", ".join(sorted(prepared.variant.info.speech_kinds))
        raise SessionError(f"seq {seq} is a {event.kind} event, not a speech ({speeches})")
    speaker = int(getattr(event, "seat"))  # noqa: B009 (speech events name their seat)
    made = [
        i
        for i in range(seq - 1, -1, -1)
        if isinstance(events[i], DecisionMade) and getattr(events[i], "seat", None) == speaker
    ]
    if not made:
        raise SessionError(f"seq {seq}: no decision of seat {speaker} made this speech")
    prepared.speaker, prepared.decision_seq = speaker, made[0]
    prepared.accused = tuple(int(s) for s in getattr(event, "accuse", ()) or ())
    if prepared.intervention.kind == "remove_speech":
        prepared.hidden = frozenset({seq, made[0]})


def _check_agent(prepared: Prepared) -> None:
    ivn = prepared.intervention
    seats = prepared.variant.rules.seat_count(prepared.config)
    if ivn.seat is None or not 1 <= ivn.seat <= seats:
        raise SessionError(f"seat {ivn.seat} out of range; this game has seats 1..{seats}")
    try:
        parse_agent_spec(dict(ivn.agent or {}))
    except ValidationError as err:
        raise SessionError(f"the new agent: {describe_error(err)}") from None


def _fork_point(events: Sequence[Event], at: int | None, prepared: Prepared) -> int:
    points = fork_points(events)
    changed = prepared.intervention.seq
    if at is None:
        if changed is None:
            raise SessionError("give --at N (the step boundary to branch at)")
        later = [p for p in points if p > changed]
        if not later:
            raise SessionError(f"seq {changed}: the game ends in its step; nothing to play again")
        return later[0]
    check_fork_point(events, at)
    if changed is not None and at <= changed:
        raise SessionError(f"--at {at} must come after the changed event (seq {changed})")
    return at


# ------------------------------------------------------------------ the prefix


def prefix_events(prepared: Prepared, arm: str) -> list[Event]:
    """The branch's first events: the source's first ``at`` for the control and
    for arms that change nothing recorded; else re-refereed with the change."""
    events = prepared.transcript.events[: prepared.at]
    ivn = prepared.intervention
    if arm == CONTROL or ivn.kind in ("remove_speech", "replace_agent"):
        return list(events)
    game = Game.new(prepared.variant, prepared.config, prepared.seed)
    for seq, made in enumerate(events):
        if not isinstance(made, DecisionMade):
            continue
        request = _open_request(game, made)
        try:
            if seq == prepared.decision_seq:
                note = f"[what-if: {ivn.kind}]"
                game.submit(made.request_id, _changed_payload(prepared, game, request), note)
            else:
                game.redo(made)  # as recorded (an OD-7 interjection too)
        except (IllegalDecision, UnknownRequest) as err:
            where = "the new answer" if seq == prepared.decision_seq else f"seq {seq}"
            raise SessionError(f"{where} is not legal here: {err}") from None
    return list(game.events)


def _open_request(game: Game, made: DecisionMade) -> DecisionRequest:
    for request in game.pending():
        if request.id == made.request_id:
            return request
    raise SessionError(
        f"after the change, recorded decision {made.request_id} is not asked any more; "
        "branch earlier (a smaller --at)"
    )


def _changed_payload(prepared: Prepared, game: Game, request: DecisionRequest) -> dict[str, Any]:
    made = prepared.transcript.events[prepared.decision_seq or 0]
    assert isinstance(made, DecisionMade)
    ivn = prepared.intervention
    text_field = _text_field(prepared.variant, made.payload)
    if ivn.kind == "pass_speech":
        neutral = dict(freeze(dict(prepared.variant.rules.fallback(game.state, request))))
        return {**_thawed(neutral), text_field: PASS_TEXT}
    fields = dict(ivn.fields)
    if ivn.kind == "replace_speech" and "text" in fields:
        fields[text_field] = fields.pop("text")
    return {**_thawed(dict(made.payload)), **fields}


def _text_field(variant: Variant[Any], payload: Mapping[str, Any]) -> str:
    words = variant.words()
    names = words.text_fields if words is not None else TEXT_FIELDS
    return next((k for k in payload if k in names), names[0])


def _thawed(payload: Mapping[str, Any]) -> dict[str, Any]:
    return dict(json.loads(json.dumps(payload, default=list)))


__all__ = [
    "CONTROL",
    "KINDS",
    "PASS_TEXT",
    "Intervention",
    "Prepared",
    "prefix_events",
    "prepare",
]
