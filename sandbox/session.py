"""Game sessions: play, series, resume, replay and fork, all through transcripts.

The CLI is a thin shell over this module. Everything here works on files and
the engine contract only (Game, Runner, TranscriptWriter), so it can be tested
without a terminal.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

import sandbox
from sandbox.agents.base import Agent, AgentAnswer, DecisionContext
from sandbox.agents.factory import build_agents
from sandbox.config import LoadedConfig, parse_config
from sandbox.core.errors import ConfigError, RefereeError
from sandbox.core.events import DecisionMade, Event, StepResolved
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import Outcome, Variant
from sandbox.core.visibility import Visibility
from sandbox.runner import EventHook, Runner, RunStats
from sandbox.transcript import Transcript, TranscriptError, TranscriptWriter, load

# Agents whose answers depend only on their seed and what they were asked: on
# resume/fork they are re-asked every recorded question (answers discarded) so
# their random generators and script positions end where the original run left them.
REPLAYABLE_KINDS = frozenset({"random", "scripted", "baseline"})
SECRET_MARKERS = ("secret", "password", "token", "api_key")


class SessionError(Exception):
    """A session that cannot go on (bad transcript, bad fork point, mismatch). One line."""


@dataclass
class GameRecord:
    """What one finished (or interrupted) game produced."""

    path: Path
    variant: str
    seed: int
    roles: dict[int, str]
    outcome: Outcome | None
    stats: RunStats
    final_state: Any = None
    game_config: BaseModel | None = None

    def to_json(self) -> dict[str, Any]:
        out = self.outcome
        return {
            "variant": self.variant,
            "seed": self.seed,
            "reason": out.reason if out else None,
            "summary": out.summary if out else None,
            "seats": {
                str(s): {"role": role, "result": out.results.get(s) if out else None}
                for s, role in sorted(self.roles.items())
            },
            "transcript": str(self.path),
            "stats": self.stats.to_json(),
        }


@dataclass
class LiveHooks:
    """Callbacks the CLI uses to show a game as it goes."""

    on_start: Callable[[Game, Path], None] = lambda game, path: None
    on_event: Callable[[Game, int, Event], None] = lambda game, seq, event: None
    # May wrap the seats' agents (e.g. the host panel's switchable seats) once the
    # transcript is open, before its header is written.
    seat_agents: Callable[[Game, dict[int, Agent], TranscriptWriter], dict[int, Agent]] = (
        lambda game, agents, writer: agents
    )


# ---------------------------------------------------------------------- header


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def random_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31)


def transcript_path(out: Path, variant: str, seed: int) -> Path:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return out / f"{variant}-s{seed}-{stamp}.jsonl"


def scrub(describe: Mapping[str, Any]) -> dict[str, Any]:
    """Drop anything that looks like a secret from an agent's self-description."""
    clean: dict[str, Any] = {}
    for key, value in describe.items():
        lowered = key.lower()
        if any(m in lowered for m in SECRET_MARKERS) and not lowered.endswith("_env"):
            continue
        clean[key] = scrub(value) if isinstance(value, Mapping) else value
    return clean


def build_header(
    loaded: LoadedConfig,
    game_config: BaseModel,
    seed: int,
    roles: Mapping[int, str],
    agents: Mapping[int, Agent],
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "variant": loaded.variant.name,
        "seed": seed,
        "name": loaded.file.name,
        "config": loaded.to_json(),
        "game_config": game_config.model_dump(mode="json"),
        "roles": {str(s): r for s, r in sorted(roles.items())},
        "agents": {str(s): scrub(a.describe()) for s, a in sorted(agents.items())},
        "sandbox_version": sandbox.__version__,
        "started": utc_now(),
        **(extra or {}),
    }


def outcome_line(outcome: Outcome, stats: RunStats) -> dict[str, Any]:
    return {
        "reason": outcome.reason,
        "results": {str(s): r for s, r in sorted(outcome.results.items())},
        "summary": outcome.summary,
        "stats": stats.to_json(),
        "ended": utc_now(),
    }


def rules_for(loaded: LoadedConfig, game_config: BaseModel) -> str:
    return loaded.variant.rules_text(game_config, language=loaded.file.llm.language)


# ------------------------------------------------------------------------ play


def play_game(
    loaded: LoadedConfig,
    seed: int,
    out: Path,
    *,
    game_config: BaseModel | None = None,
    hooks: LiveHooks | None = None,
    header_extra: Mapping[str, Any] | None = None,
) -> GameRecord:
    """Play one game to its end, writing its transcript. KeyboardInterrupt propagates
    (the file stays resumable); the record's path is known from ``hooks.on_start``."""
    hooks = hooks or LiveHooks()
    config = game_config or loaded.game_config
    game = Game.new(loaded.variant, config, seed)
    roles = dict(game.roles())
    agents = build_agents(loaded, roles, seed)
    path = transcript_path(out, loaded.variant.name, seed)
    with TranscriptWriter(path) as writer:
        agents = hooks.seat_agents(game, agents, writer)
        writer.header(build_header(loaded, config, seed, roles, agents, header_extra))
        hooks.on_start(game, path)
        runner = _runner(loaded, game, agents, writer, hooks)
        outcome = _run(runner, agents)
        writer.outcome(outcome_line(outcome, runner.stats))
    return GameRecord(
        path, loaded.variant.name, seed, roles, outcome, runner.stats, game.state, config
    )


def play_series(
    loaded: LoadedConfig,
    seed: int,
    count: int,
    out: Path,
    *,
    hooks: LiveHooks | None = None,
    on_game_done: Callable[[GameRecord], None] = lambda record: None,
) -> list[GameRecord]:
    """K consecutive games; each config comes from the variant's next_in_series (KG-5).
    Game k (0-based) is played with seed ``seed + k``."""
    records: list[GameRecord] = []
    config = loaded.game_config
    for index in range(count):
        extra = {"series": {"index": index + 1, "of": count, "first_seed": seed}}
        record = play_game(
            loaded, seed + index, out, game_config=config, hooks=hooks, header_extra=extra
        )
        records.append(record)
        on_game_done(record)
        config = loaded.variant.next_in_series(config, record.final_state)
    return records


def _runner(
    loaded: LoadedConfig,
    game: Game,
    agents: Mapping[int, Agent],
    writer: TranscriptWriter,
    hooks: LiveHooks,
) -> Runner:
    """The runner of a game file's game: its abort rule and its rules text."""
    return Runner(
        game,
        agents,
        writer,
        on_event=_bind(hooks, game),
        abort_share=loaded.file.run.abort_share,
        rules_text=rules_for(loaded, game.config),
    )


def _bind(hooks: LiveHooks, game: Game) -> EventHook:
    return lambda seq, event: hooks.on_event(game, seq, event)


def _run(runner: Runner, agents: Mapping[int, Agent]) -> Outcome:
    async def go() -> Outcome:
        try:
            return await runner.run()
        finally:
            for agent in agents.values():
                await agent.close()

    return asyncio.run(go())


# ------------------------------------------------------------- rebuild/replay


@dataclass
class Rebuilt:
    """A fresh game fed the recorded decisions, and where (if anywhere) it parted ways."""

    game: Game
    divergence: str | None = None
    problems: list[str] = field(default_factory=list)


def game_config_of(transcript: Transcript) -> tuple[Variant[Any], BaseModel]:
    """The variant and the exact game config a transcript was played with."""
    from sandbox.core.variant import get_variant

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
    try:
        return parse_config(transcript.header["config"])
    except (KeyError, ConfigError) as err:
        raise SessionError(f"{transcript.path}: header holds no valid game file: {err}") from None


def rebuild(
    variant: Variant[Any],
    config: BaseModel,
    seed: int,
    recorded: Sequence[Event],
    agents: Mapping[int, Agent] | None = None,
    kinds: Mapping[int, str] | None = None,
) -> Rebuilt:
    """Play a fresh game by submitting the recorded decisions in order, then compare.

    With ``agents``, seats of a replayable kind are asked each recorded question
    first (the answer is dropped) so that they end in the state the original run
    left them in.
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
            if agents is not None:
                _warm(game, [pending[d.request_id] for d in batch], agents, kinds or {})
            for made in batch:
                _submit(game, made)
            index += len(batch)
    except RefereeError as err:
        return Rebuilt(game, first_divergence(recorded, game.events, str(err)))
    return Rebuilt(game, first_divergence(recorded, game.events, None))


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
    if made.fallback:
        game.submit_fallback(made.request_id, made.fallback_reason, made.note)
    else:
        game.submit(made.request_id, made.payload, made.note)


def _warm(
    game: Game,
    requests: Sequence[DecisionRequest],
    agents: Mapping[int, Agent],
    kinds: Mapping[int, str],
) -> None:
    """Ask replayable agents, in the runner's order, and drop the answers."""

    async def ask_all() -> list[AgentAnswer]:
        wanted = [r for r in requests if kinds.get(r.seat) in REPLAYABLE_KINDS]
        asks = (agents[r.seat].decide(DecisionContext.for_request(game, r)) for r in wanted)
        return list(await asyncio.gather(*asks))

    asyncio.run(ask_all())


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
    return replay_transcript(open_transcript(path))


def replay_transcript(transcript: Transcript) -> str | None:
    """Re-referee a loaded transcript: the first divergence, or None."""
    variant, config = game_config_of(transcript)
    rebuilt = rebuild(variant, config, int(transcript.header["seed"]), transcript.events)
    if rebuilt.divergence:
        return rebuilt.divergence
    problem = check_visibility(transcript)
    if problem:
        return problem
    if transcript.finished and len(rebuilt.game.events) != len(transcript.events):
        return f"seq {len(transcript.events)}: the transcript ends before the game did"
    return _outcome_divergence(transcript, rebuilt.game)


def _outcome_divergence(transcript: Transcript, game: Game) -> str | None:
    recorded = transcript.outcome
    outcome = game.outcome()
    if recorded is None or outcome is None:
        return None
    results = {str(s): r for s, r in outcome.results.items()}
    if recorded.get("reason") != outcome.reason or recorded.get("results") != results:
        return "outcome line: does not match the game's result"
    return None


# ---------------------------------------------------------------- resume/fork


def drop_torn_tail(path: Path) -> bool:
    """Cut an unparseable last line (a crash mid-write) so appends stay readable."""
    data = path.read_bytes()
    body = data.rstrip(b"\n")
    cut = body.rfind(b"\n") + 1
    last = body[cut:]
    try:
        json.loads(last)
        if not data.endswith(b"\n"):
            with path.open("ab") as fh:
                fh.write(b"\n")
        return False
    except ValueError:
        with path.open("r+b") as fh:
            fh.truncate(cut)
        return True


def seat_kinds(header: Mapping[str, Any]) -> dict[int, str]:
    agents = header.get("agents") or {}
    return {int(s): str(d.get("kind", "")) for s, d in agents.items()}


def continue_game(
    game: Game,
    loaded: LoadedConfig,
    agents: Mapping[int, Agent],
    writer: TranscriptWriter,
    start: int,
    hooks: LiveHooks,
) -> tuple[Outcome, RunStats]:
    runner = _runner(loaded, game, agents, writer, hooks)
    runner.start_from(start)
    return _run(runner, agents), runner.stats


def prior_stats(transcript: Transcript, events: Sequence[Event]) -> RunStats:
    """Counters of the part already played (decisions, fallbacks, calls)."""
    stats = RunStats()
    ids = set()
    for event in events:
        if isinstance(event, DecisionMade):
            ids.add(event.request_id)
            stats.decisions += 1
            if event.fallback:
                stats.count_fallback(event.seat, event.fallback_reason)
    for call in transcript.calls:
        if call.get("request_id") in ids:
            stats.calls += 1
            stats.tokens_in += int(call.get("tokens_in") or 0)
            stats.tokens_out += int(call.get("tokens_out") or 0)
            stats.cost += float(call.get("cost") or 0.0)
    return stats


def merge_stats(a: RunStats, b: RunStats) -> RunStats:
    out = RunStats(
        a.decisions + b.decisions,
        a.repairs + b.repairs,
        {},
        a.calls + b.calls,
        a.tokens_in + b.tokens_in,
        a.tokens_out + b.tokens_out,
        a.cost + b.cost,
    )
    for stats in (a, b):
        for seat, reasons in stats.fallbacks.items():
            for reason, n in reasons.items():
                out.fallbacks.setdefault(seat, {})
                out.fallbacks[seat][reason] = out.fallbacks[seat].get(reason, 0) + n
    return out


def resume(path: Path, hooks: LiveHooks | None = None) -> GameRecord:
    """Finish an interrupted game in the same file."""
    hooks = hooks or LiveHooks()
    transcript = open_transcript(path)
    if transcript.finished:
        raise SessionError(f"{path}: this game is already finished; nothing to resume")
    if transcript.torn_tail:
        drop_torn_tail(path)
    loaded = loaded_of(transcript)
    variant, config = game_config_of(transcript)
    seed = int(transcript.header["seed"])
    roles = {int(s): r for s, r in transcript.header["roles"].items()}
    agents = build_agents(loaded, roles, seed)
    kinds = seat_kinds(transcript.header)
    rebuilt = rebuild(variant, config, seed, transcript.events, agents, kinds)
    if rebuilt.divergence:
        raise SessionError(f"{path}: the recorded game does not replay: {rebuilt.divergence}")
    game = rebuilt.game
    with TranscriptWriter(path, append=True) as writer:
        hooks.on_start(game, path)
        outcome, stats = continue_game(game, loaded, agents, writer, len(transcript.events), hooks)
        total = merge_stats(prior_stats(transcript, transcript.events), stats)
        writer.outcome(outcome_line(outcome, total))
    return GameRecord(path, variant.name, seed, roles, outcome, total, game.state, config)


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


def fork(
    path: Path,
    at: int,
    other: LoadedConfig | None,
    out: Path | None,
    hooks: LiveHooks | None = None,
) -> GameRecord:
    """A new game that shares the first ``at`` events, then goes on with other agents."""
    hooks = hooks or LiveHooks()
    transcript = open_transcript(path)
    check_fork_point(transcript.events, at)
    original = loaded_of(transcript)
    variant, config = game_config_of(transcript)
    loaded = other or original
    _same_game(original, loaded)
    seed = int(transcript.header["seed"])
    prefix = transcript.events[:at]
    rebuilt = rebuild(variant, config, seed, prefix)
    if rebuilt.divergence:
        raise SessionError(f"{path}: the recorded game does not replay: {rebuilt.divergence}")
    game = rebuilt.game
    roles = dict(game.roles())
    agents = build_agents(loaded, roles, seed)
    kinds = {s: str(a.describe().get("kind", "")) for s, a in agents.items()}
    rebuild(variant, config, seed, prefix, agents, kinds)  # warm the new agents
    target = transcript_path(out or Path(loaded.file.run.out), variant.name, seed)
    # absolute, so the link still holds when the fork is read from another folder
    extra = {"forked_from": {"transcript": str(path.resolve()), "at": at}}
    with TranscriptWriter(target) as writer:
        writer.header(build_header(loaded, config, seed, roles, agents, extra))
        hooks.on_start(game, target)
        for seq, event in enumerate(prefix):
            writer.event(seq, event)
        _copy_calls(transcript, prefix, writer)
        for control in transcript.controls:  # who played the copied decisions
            if int(control.get("seq", at)) < at:
                writer.control({k: v for k, v in control.items() if k != "type"})
        outcome, stats = continue_game(game, loaded, agents, writer, at, hooks)
        total = merge_stats(prior_stats(transcript, prefix), stats)
        writer.outcome(outcome_line(outcome, total))
    return GameRecord(target, variant.name, seed, roles, outcome, total, game.state, config)


def _same_game(original: LoadedConfig, other: LoadedConfig) -> None:
    if other.variant.name != original.variant.name:
        raise SessionError(
            f"the fork config plays '{other.variant.name}', the transcript "
            f"'{original.variant.name}'; a fork must keep the variant"
        )
    if other.game_config != original.game_config:
        differences = config_differences(original.game_config, other.game_config)
        raise SessionError(
            "a fork must keep the rules; the fork config differs from the transcript's in "
            + "; ".join(differences)
        )


def config_differences(original: BaseModel, other: BaseModel) -> list[str]:
    """``rules.day_limit: 5 in the fork config, 30 in the transcript`` per differing key."""
    before = original.model_dump(mode="json")
    after = other.model_dump(mode="json")
    out = []
    for key in sorted(set(before) | set(after)):
        if before.get(key) != after.get(key):
            where = "[[seat]]" if key == "seat" else f"rules.{key}"
            out.append(
                f"{where}: {json.dumps(after.get(key))} in the fork config, "
                f"{json.dumps(before.get(key))} in the transcript"
            )
    return out


def _copy_calls(transcript: Transcript, prefix: Sequence[Event], writer: TranscriptWriter) -> None:
    ids = {e.request_id for e in prefix if isinstance(e, DecisionMade)}
    for call in transcript.calls:
        if call.get("request_id") in ids:
            writer.call({k: v for k, v in call.items() if k != "type"})


def open_transcript(path: Path) -> Transcript:
    """Load, turning every reading problem into a one-line SessionError."""
    if path.is_dir():
        raise SessionError(f"{path}: is a directory, not a transcript file")
    try:
        return load(path)
    except TranscriptError as err:
        raise SessionError(str(err)) from None
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError) as err:
        raise SessionError(f"{path}: not a readable transcript ({err})") from None
