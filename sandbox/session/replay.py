"""Re-refereeing a recorded game: rebuild it from its seed and decisions, find the
first divergence, check visibility and the outcome line; where it may be forked."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sandbox.core.discussion import WITHDRAWN
from sandbox.core.errors import ConfigError, RefereeError
from sandbox.core.events import DecisionMade, Event
from sandbox.core.game import Game, fork_points
from sandbox.core.requests import DecisionRequest
from sandbox.core.seat import Agent, DecisionContext
from sandbox.core.variant import Variant
from sandbox.core.visibility import Visibility
from sandbox.games.registry import get_variant
from sandbox.session.driver import run_sync
from sandbox.session.errors import SessionError
from sandbox.session.gamefile import LoadedConfig, parse_config
from sandbox.session.hearing import Hearing, hearing_of
from sandbox.session.runner import RunStats
from sandbox.transcript import Transcript, read_transcript


@dataclass
class Rebuilt:
    """A fresh game fed the recorded decisions, and where (if anywhere) it parted ways."""

    game: Game
    divergence: str | None = None
    problems: list[str] = field(default_factory=list)


def game_config_of(transcript: Transcript) -> tuple[Variant[Any], BaseModel]:
    """The variant and the exact game config a transcript was played with."""
    header = transcript.header
    variant = get_variant(str(header["variant"]))
    raw = header.get("game_config")
    try:
        if raw is None:  # older headers: rebuild from the game file
            return variant, loaded_of(transcript).game_config
        return variant, variant.config_model.model_validate(raw)
    except ValueError as err:
        raise SessionError(f"{transcript.path}: header config is not valid: {err}") from None


def loaded_of(transcript: Transcript) -> LoadedConfig:
    """The game file a transcript was played from (its agents, to go on with)."""
    if transcript.header.get("played_from") == "python":
        raise SessionError(
            f"{transcript.path}: this game was played from Python, whose agents a game "
            "file cannot rebuild; fork it with --config naming the seats' agents"
        )
    try:
        return parse_config(transcript.header["config"])
    except (KeyError, ConfigError) as err:
        raise SessionError(f"{transcript.path}: header holds no valid game file: {err}") from None


async def rebuild(
    variant: Variant[Any],
    config: BaseModel,
    seed: int,
    recorded: Sequence[Event],
    agents: Mapping[int, Agent] | None = None,
    hearing: Hearing | None = None,
) -> Rebuilt:
    """Play a fresh game by submitting the recorded decisions in order, then compare.

    With ``agents``, replayable agents (``Agent.replayable``) are asked each recorded
    question first (the answer is dropped) so that they end in the state the
    original run left them in: with the views they had then, less what
    ``hearing`` (the transcript's, :func:`hearing_of`) says they never heard.
    """
    game = Game.new(variant, config, seed)
    decisions = [e for e in recorded if isinstance(e, DecisionMade)]
    index = 0
    try:
        while index < len(decisions) and not game.over:
            pending = {r.id: r for r in game.pending()}
            batch = _batch(decisions, index, pending)
            if not batch:
                first = decisions[index]
                raise RefereeError(f"recorded decision {first.request_id} is not open here")
            _check_order(batch, list(pending))
            if agents is not None:
                # an ask withdrawn by a person's message (OD-7) was never answered
                asked = [pending[d.request_id] for d in batch if d.fallback_reason != WITHDRAWN]
                await _warm(game, asked, agents, hearing or Hearing())
            for made in batch:
                _submit(game, made)
            index += len(batch)
    except RefereeError as err:
        return Rebuilt(game, first_divergence(recorded, game.events, str(err)))
    return Rebuilt(game, first_divergence(recorded, game.events, None))


def _check_order(batch: Sequence[DecisionMade], open_ids: Sequence[str]) -> None:
    """Answers of one step are recorded in the referee's own order (the runner submits
    them by seat, however fast each seat answered); another order was not played."""
    positions = [open_ids.index(made.request_id) for made in batch]
    if positions != sorted(positions):
        raise RefereeError(
            f"decisions {', '.join(m.request_id for m in batch)} are recorded out of the "
            "referee's order"
        )


def _batch(
    decisions: Sequence[DecisionMade], start: int, pending: Mapping[str, DecisionRequest]
) -> list[DecisionMade]:
    """The run of recorded decisions that answer currently open requests."""
    batch: list[DecisionMade] = []
    for made in decisions[start:]:
        if made.request_id not in pending:
            break
        batch.append(made)
    return batch


def _submit(game: Game, made: DecisionMade) -> None:
    game.redo(made)  # an OD-7 interjection or withdrawn ask as it was recorded


async def _warm(
    game: Game,
    requests: Sequence[DecisionRequest],
    agents: Mapping[int, Agent],
    hearing: Hearing,
) -> None:
    """Ask replayable agents, in the runner's order, and drop the answers."""
    wanted = [r for r in requests if agents[r.seat].replayable]
    contexts = (hearing.context(DecisionContext.for_request(game, r), game) for r in wanted)
    await asyncio.gather(*(agents[c.request.seat].decide(c) for c in contexts))


def first_divergence(
    recorded: Sequence[Event], rebuilt: Sequence[Event], error: str | None
) -> str | None:
    """None when ``recorded`` is a prefix of ``rebuilt`` (and no error happened)."""
    for seq, (old, new) in enumerate(zip(recorded, rebuilt, strict=False)):
        if old.to_json() != new.to_json():
            return (
                f"seq {seq}: recorded {_short(old.to_json())} but the referee "
                f"produced {_short(new.to_json())}"
            )
    if error is not None:
        return f"seq {len(rebuilt)}: {error}"
    if len(rebuilt) < len(recorded):
        extra = recorded[len(rebuilt)]
        return f"seq {len(rebuilt)}: recorded {_short(extra.to_json())} but the game had ended"
    return None


def _short(obj: object, limit: int = 300) -> str:
    text = str(obj)
    return text if len(text) <= limit else text[:limit] + "…"


def check_visibility(transcript: Transcript) -> str | None:
    """The recorded visibility of every line must match the event's own."""
    for seq, (event, raw) in enumerate(zip(transcript.events, transcript.visibility, strict=True)):
        try:
            recorded = Visibility.from_json(raw)
        except ValueError as err:
            return f"seq {seq}: {err}"
        if recorded != event.visibility():
            return f"seq {seq}: recorded visibility {raw!r}, event says {event.visibility()}"
    return None


def replay(path: Path) -> str | None:
    """Re-referee a transcript file. Returns None when every event is identical."""
    return replay_transcript(read_transcript(path))


def replay_transcript(transcript: Transcript) -> str | None:
    """Re-referee a loaded transcript: the first divergence, or None.

    From the seed and the recorded decisions it re-derives every event, the header's
    roles, the visibility of every line, the order of sealed answers, and for a
    finished game the outcome line (reason, results, summary and counters)."""
    variant, config = game_config_of(transcript)
    seed = int(transcript.header["seed"])
    rebuilt = run_sync(rebuild(variant, config, seed, transcript.events))
    if rebuilt.divergence:
        return rebuilt.divergence
    problem = (
        check_header(transcript, rebuilt.game)
        or check_visibility(transcript)
        or check_hearing(transcript)
    )
    if problem:
        return problem
    if transcript.finished and len(rebuilt.game.events) != len(transcript.events):
        return f"seq {len(transcript.events)}: the transcript ends before the game did"
    return _outcome_divergence(transcript, rebuilt.game)


def check_header(transcript: Transcript, game: Game) -> str | None:
    """The header's roles are the ones the seed deals."""
    dealt = {str(seat): role for seat, role in game.roles().items()}
    recorded = {str(seat): role for seat, role in (transcript.header.get("roles") or {}).items()}
    if recorded != dealt:
        seats = set(dealt) | set(recorded)
        wrong = sorted((s for s in seats if dealt.get(s) != recorded.get(s)), key=int)
        return f"header roles: seat(s) {', '.join(wrong)} differ from the roles the seed deals"
    return None


def check_hearing(transcript: Transcript) -> str | None:
    """What the header says no seat heard (a remove_speech branch) is readable
    and names events recorded before the seats stopped hearing them."""
    try:
        hearing = hearing_of(transcript.header)
    except SessionError as err:
        return str(err)
    for seq, since in sorted(hearing.unheard.items()):
        if not seq < since <= len(transcript.events):
            return (
                f"header forked_from: hidden seq {seq} (from event {since}) is not an event "
                f"recorded before that point of this game ({len(transcript.events)} events)"
            )
    return None


def _outcome_divergence(transcript: Transcript, game: Game) -> str | None:
    recorded = transcript.outcome
    outcome = game.outcome()
    if recorded is None or outcome is None:
        return None
    results = {str(s): r for s, r in outcome.results.items()}
    if recorded.get("reason") != outcome.reason or recorded.get("results") != results:
        return "outcome line: does not match the game's result"
    if recorded.get("summary") != outcome.summary:
        return "outcome line: the summary is not the referee's"
    counted = counters_of(transcript, transcript.events).to_json()
    stated = recorded.get("stats")
    if stated is not None:
        # A counter the writer did not know yet (``tokens_cached`` before issue 40)
        # is no claim of the file; every counter it states must agree.
        differing = sorted(k for k in counted if k in stated and stated[k] != counted[k])
        unknown = sorted(set(stated) - set(counted))
        if differing or unknown:
            named = ", ".join(differing + unknown)
            return f"outcome line: stats {named} differ from the recorded lines"
    return None


def counters_of(
    transcript: Transcript,
    events: Sequence[Event],
    calls: Sequence[Mapping[str, Any]] | None = None,
) -> RunStats:
    """The run's counters as the recorded lines give them: decisions and fallbacks
    (per seat and reason) from ``events``; calls, tokens, cost and repairs from the
    call lines (``calls``, else every call line of the file: a call that was made
    and paid for counts, even one whose decision was asked again after a resume).
    A repair is a repair turn: a call line of repair turn > 0 on its first attempt."""
    stats = RunStats()
    for event in events:
        if isinstance(event, DecisionMade):
            stats.decisions += 1
            if event.fallback:
                stats.count_fallback(event.seat, event.fallback_reason)
    for call in transcript.calls if calls is None else calls:
        stats.add_call(call)
        if int(call.get("repair") or 0) > 0 and int(call.get("attempt") or 1) == 1:
            stats.repairs += 1
    return stats


def check_fork_point(events: Sequence[Event], at: int) -> None:
    points = fork_points(events)
    if at in points:
        return
    if not points:
        raise SessionError("this transcript has no decision to fork before")
    below = [p for p in points if p < at]
    above = [p for p in points if p > at]
    near = ", ".join(str(p) for p in ([*below[-1:], *above[:1]]))
    raise SessionError(
        f"--at {at} is not a step boundary; nearest valid points: {near} "
        f"(valid range {points[0]}..{points[-1]})"
    )
