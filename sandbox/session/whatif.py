"""What-if branches of a saved game (issue 21): keep its first ``at`` events,
apply one intervention, and play the rest again with a branch seed.

An *arm* is the control (no intervention) or one intervention:

- ``remove_speech`` (event ``seq``): from ``at`` on no seat's view holds the
  speech (nor the speaker's decision that made it); the referee's record keeps
  it (it was said), the seats never heard it.
- ``replace_speech`` (``seq``, ``fields``): the speaker's decision is re-refereed
  with its text (``{"text": ...}``) and claims (``accuse``, ``claim``, ...) set.
- ``pass_speech`` (``seq``): replaced by a neutral pass, the variant's own
  fallback answer for that request with the text "pass" (no claim, no accusation).
- ``change_decision`` (a ``core.decision`` event ``seq``, ``fields``): that
  decision's answer fields set to ``fields`` and re-refereed.
- ``replace_agent`` (``seat``, ``agent``: a game file's agent table): the seat is
  played by that agent from ``at`` on.

Branch ``b`` of an arm seats every agent with the seeds of (game seed, b, seat)
and model seats send a sampling seed per call (``seating.seat_agent``); the
control arm and an intervention arm play the same branch seeds. Each branch is
a normal transcript whose header says where it came from (``forked_from``:
transcript, at, arm, branch_seed, intervention) and carries ``branch_seed``;
its file is ``<arm>-b<NNN>.jsonl`` in the out folder, so a rerun finds it: a
finished branch is never played again, an interrupted one is finished
(:func:`resume_branch`). The effects are measured in ``sandbox.analysis.effects``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sandbox.agents.base import Agent, DecisionContext
from sandbox.core.errors import ConfigError, IllegalDecision, UnknownRequest
from sandbox.core.events import DecisionMade, Event, freeze
from sandbox.core.game import Game, fork_points
from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import SeatView, Variant
from sandbox.core.words import TEXT_FIELDS
from sandbox.session.errors import SessionError, open_transcript
from sandbox.session.gamefile import LoadedConfig, describe_error, parse_agent_spec, parse_config
from sandbox.session.header import build_header, outcome_line
from sandbox.session.play import GameRecord, LiveHooks
from sandbox.session.replay import check_fork_point, counters_of, game_config_of, loaded_of, rebuild
from sandbox.session.resume import continue_game, drop_torn_tail
from sandbox.session.seating import build_agents
from sandbox.transcript import Transcript, TranscriptWriter
from sandbox.transcript.files import read_head

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
    transcript = open_transcript(path)
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
    return prepared


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
    seats = prepared.variant.seat_count(prepared.config)
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
            elif made.fallback:
                game.submit_fallback(made.request_id, made.fallback_reason, made.note)
            else:
                game.submit(made.request_id, made.payload, made.note)
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
        neutral = dict(freeze(dict(prepared.variant.fallback(game.state, request))))
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


# ------------------------------------------------------------------ the branch


class Unheard(Agent):
    """A seat that never heard the events ``hidden``: every view it is given is
    folded from the events it may see, those left out (``remove_speech``)."""

    def __init__(self, inner: Agent, game: Game, hidden: frozenset[int]) -> None:
        self.inner = inner
        self.game = game
        self.hidden = hidden

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    @property
    def probes_after_speech(self) -> bool:
        return bool(getattr(self.inner, "probes_after_speech", False))

    async def decide(self, ctx: DecisionContext) -> Any:
        return await self.inner.decide(self._deaf(ctx))

    async def probe(self, ctx: DecisionContext) -> list[dict[str, Any]]:
        probe = getattr(self.inner, "probe")  # noqa: B009 (only asked when probes_after_speech)
        found: list[dict[str, Any]] = await probe(self._deaf(ctx))
        return found

    async def close(self) -> None:
        await self.inner.close()

    def _deaf(self, ctx: DecisionContext) -> DecisionContext:
        return dataclasses.replace(ctx, view_fn=lambda: self._view(ctx.request.seat))

    def _view(self, seat: int) -> SeatView:
        seen = [(i, e) for i, e in self.game.visible_events(seat) if i not in self.hidden]
        return self.game.variant.build_view(seat, seen)


def branch_path(out: Path, arm: str, branch_seed: int) -> Path:
    return out / f"{arm}-b{branch_seed:03d}.jsonl"


def forked_from(prepared: Prepared, arm: str, branch_seed: int, at: int) -> dict[str, Any]:
    ivn = prepared.intervention if arm != CONTROL else Intervention()
    link: dict[str, Any] = {
        "transcript": str(prepared.source.resolve()),
        "at": at,
        "arm": arm,
        "branch_seed": branch_seed,
        "intervention": ivn.to_json(),
        "agents": prepared.transcript.header.get("agents") or {},
    }
    if at != prepared.at:
        link["source_at"] = prepared.at  # the change added or removed events
    if arm != CONTROL and prepared.hidden:
        link["hidden"] = sorted(prepared.hidden)
    return link


async def play_branch(
    prepared: Prepared, arm: str, branch_seed: int, out: Path, hooks: LiveHooks | None = None
) -> GameRecord:
    """Play branch ``branch_seed`` of ``arm`` to its end (or finish it, if an
    interrupted copy is on disk) into ``out``."""
    hooks = hooks or LiveHooks()
    target = branch_path(out, arm, branch_seed)
    if target.exists():
        return await resume_branch(target, hooks)
    loaded = prepared.loaded_for(arm)
    prefix = prefix_events(prepared, arm)
    variant, config, seed = prepared.variant, prepared.config, prepared.seed
    roles = dict(Game.from_events(variant, config, seed, prefix).roles())
    agents = build_agents(loaded, roles, seed, branch_seed)
    rebuilt = await rebuild(variant, config, seed, prefix, agents)  # warms replayable seats
    if rebuilt.divergence:
        raise SessionError(f"{prepared.source}: does not replay: {rebuilt.divergence}")
    game = rebuilt.game
    hidden = prepared.hidden if arm != CONTROL else frozenset()
    seated = _deafened(agents, game, hidden)
    link = forked_from(prepared, arm, branch_seed, len(prefix))
    extra = {"forked_from": link, "branch_seed": branch_seed}
    calls = _kept_calls(prepared, prefix, arm)
    out.mkdir(parents=True, exist_ok=True)
    with TranscriptWriter(target) as writer:
        writer.header(build_header(loaded, config, seed, roles, agents, extra))
        hooks.on_start(game, target)
        for seq, event in enumerate(prefix):
            writer.event(seq, event)
        for call in calls:
            writer.call({k: v for k, v in call.items() if k != "type"})
        outcome, stats = await continue_game(game, loaded, seated, writer, len(prefix), hooks)
        total = counters_of(prepared.transcript, prefix, calls) + stats
        writer.outcome(outcome_line(outcome, total))
    return GameRecord(target, variant.name, seed, roles, outcome, total, game.state, config)


def _deafened(agents: Mapping[int, Agent], game: Game, hidden: frozenset[int]) -> dict[int, Agent]:
    if not hidden:
        return dict(agents)
    return {seat: Unheard(agent, game, hidden) for seat, agent in agents.items()}


def _kept_calls(prepared: Prepared, prefix: Sequence[Event], arm: str) -> list[dict[str, Any]]:
    """The source's call lines of the decisions the prefix keeps as recorded (not
    those of a re-refereed decision), and probe-only calls before the fork."""
    changed = None
    if arm != CONTROL and prepared.decision_seq is not None and prepared.arm != "remove_speech":
        made = prepared.transcript.events[prepared.decision_seq]
        changed = getattr(made, "request_id", None)
    ids = {e.request_id for e in prefix if isinstance(e, DecisionMade)} - {changed}
    return [
        dict(call)
        for call in prepared.transcript.calls
        if call.get("request_id") in ids
        or (call.get("probe") and int(call.get("seq") or 0) < len(prefix))
    ]


async def resume_branch(path: Path, hooks: LiveHooks | None = None) -> GameRecord:
    """Finish an interrupted branch in its own file, with its branch seed and
    intervention (a finished one is returned as it is, never played again)."""
    hooks = hooks or LiveHooks()
    transcript = open_transcript(path)
    link = transcript.header.get("forked_from") or {}
    variant, config = game_config_of(transcript)
    seed = int(transcript.header["seed"])
    roles = {int(s): r for s, r in transcript.header["roles"].items()}
    if transcript.finished:
        stats = counters_of(transcript, transcript.events)
        game = Game.from_events(variant, config, seed, transcript.events)
        return GameRecord(
            path, variant.name, seed, roles, game.outcome(), stats, game.state, config
        )
    if transcript.torn_tail:
        drop_torn_tail(path)
    loaded = loaded_of(transcript)
    agents = build_agents(loaded, roles, seed, int(transcript.header.get("branch_seed") or 0))
    rebuilt = await rebuild(variant, config, seed, transcript.events, agents)
    if rebuilt.divergence:
        raise SessionError(f"{path}: the recorded branch does not replay: {rebuilt.divergence}")
    game = rebuilt.game
    seated = _deafened(agents, game, frozenset(int(s) for s in link.get("hidden") or ()))
    with TranscriptWriter(path, append=True) as writer:
        hooks.on_start(game, path)
        start = len(transcript.events)
        outcome, stats = await continue_game(
            game, loaded, seated, writer, start, hooks, transcript.calls
        )
        total = counters_of(transcript, transcript.events) + stats
        writer.outcome(outcome_line(outcome, total))
    return GameRecord(path, variant.name, seed, roles, outcome, total, game.state, config)


# ------------------------------------------------------------------ the arms


@dataclass
class Branch:
    """One branch played (or found finished): its arm, seed and transcript."""

    arm: str
    branch_seed: int
    path: Path
    played: bool  # False: it was on disk, finished, before this run


OnBranch = Callable[[Branch], None]


def finished_on_disk(path: Path) -> bool:
    head = read_head(path)
    return head is not None and head.finished


async def run_arms(
    prepared: Prepared,
    branches: int,
    out: Path,
    jobs: int = 1,
    on_branch: OnBranch = lambda branch: None,
    arms: Sequence[str] | None = None,
) -> list[Branch]:
    """Branch seeds 1..``branches`` of the control and the intervention (``arms``
    to choose), ``jobs`` at once. Finished branches on disk are not played again."""
    chosen = list(arms or ([CONTROL, prepared.arm] if prepared.arm != CONTROL else [CONTROL]))
    gate = asyncio.Semaphore(max(1, jobs))

    async def one(arm: str, seed: int) -> Branch:
        path = branch_path(out, arm, seed)
        if finished_on_disk(path):
            branch = Branch(arm, seed, path, played=False)
        else:
            async with gate:
                record = await play_branch(prepared, arm, seed, out)
            branch = Branch(arm, seed, record.path or path, played=True)
        on_branch(branch)
        return branch

    work = [one(arm, b) for arm in chosen for b in range(1, branches + 1)]
    return list(await asyncio.gather(*work))


def check_branches(branches: int) -> None:
    if branches < 2:
        raise ConfigError("--branches must be at least 2 (an interval needs two per arm)")


__all__ = [
    "CONTROL",
    "KINDS",
    "Branch",
    "Intervention",
    "Prepared",
    "Unheard",
    "branch_path",
    "check_branches",
    "finished_on_disk",
    "play_branch",
    "prefix_events",
    "prepare",
    "resume_branch",
    "run_arms",
]
