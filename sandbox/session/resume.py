"""Going on from a transcript: resume an interrupted game in its own file, or fork
a new game that shares a prefix of events and then plays on with other agents."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sandbox.core.events import DecisionMade, Event
from sandbox.core.game import Game
from sandbox.core.seat import Agent
from sandbox.core.variant import Outcome
from sandbox.session.driver import blocking
from sandbox.session.errors import SessionError
from sandbox.session.gamefile import LoadedConfig
from sandbox.session.header import build_header, outcome_line, transcript_path
from sandbox.session.hearing import hearing_of
from sandbox.session.play import LiveHooks, PlayResult, run_to_end, runner_for
from sandbox.session.replay import (
    check_fork_point,
    check_header,
    check_hearing,
    check_visibility,
    counters_of,
    game_config_of,
    loaded_of,
    rebuild,
)
from sandbox.session.runner import RunStats
from sandbox.session.seating import build_agents
from sandbox.transcript import Transcript, TranscriptWriteError, TranscriptWriter, read_transcript
from sandbox.transcript.lock import LockUnavailable, acquire, release, transcript_lock_path


def drop_torn_tail(path: Path) -> bool:
    """Cut an unparseable last line (a crash mid-write) so appends stay readable.
    A repair the disk refuses (read-only, full) is a TranscriptWriteError."""
    data = path.read_bytes()
    body = data.rstrip(b"\n")
    cut = body.rfind(b"\n") + 1
    last = body[cut:]
    try:
        try:
            json.loads(last)
        except ValueError:
            with path.open("r+b") as fh:
                fh.truncate(cut)
            return True
        if not data.endswith(b"\n"):
            with path.open("ab") as fh:
                fh.write(b"\n")
        return False
    except OSError as err:
        raise TranscriptWriteError(path, err, "repair") from None


async def continue_game(
    game: Game,
    loaded: LoadedConfig,
    agents: Mapping[int, Agent],
    writer: TranscriptWriter,
    start: int,
    hooks: LiveHooks,
    calls: Sequence[Mapping[str, Any]] = (),
) -> tuple[Outcome, RunStats]:
    runner = runner_for(loaded, game, agents, writer, hooks)
    runner.start_from(start, calls)  # with the recorded calls: probes owed are asked first
    return await run_to_end(runner, agents), runner.stats


async def resume_async(path: Path, hooks: LiveHooks | None = None) -> PlayResult:
    """Finish an interrupted game in the same file. The transcript's lock is
    taken before the file is read or repaired: a second resume (or a study
    finishing the same game) is refused with one line naming the holder."""
    if not path.is_file():
        read_transcript(path)  # its one-line error: a folder, no such file
    lock = transcript_lock_path(path)
    try:
        acquire(lock, str(path))
    except LockUnavailable as err:
        raise TranscriptWriteError(path, err, "open") from None
    try:
        return await _resume_locked(path, hooks or LiveHooks())
    finally:
        release(lock)


async def _resume_locked(path: Path, hooks: LiveHooks) -> PlayResult:
    transcript = read_transcript(path)
    if transcript.finished:
        raise SessionError(f"{path}: this game is already finished; nothing to resume")
    # always: a complete last line without its newline (a kill before the last
    # byte) would otherwise have the next line appended onto it
    drop_torn_tail(path)
    loaded = loaded_of(transcript)
    variant, config = game_config_of(transcript)
    seed = int(transcript.header["seed"])
    roles = {int(s): r for s, r in transcript.header["roles"].items()}
    # a what-if branch's seats draw from the branch's seed and stay deaf to what
    # its header hides (sandbox.session.whatif, sandbox.session.hearing)
    branch_seed = int(transcript.header.get("branch_seed") or 0)
    agents = build_agents(loaded, roles, seed, branch_seed, hooks.host)
    problem = check_hearing(transcript)
    if problem:
        raise SessionError(f"{path}: the recorded game does not replay: {problem}")
    hearing = hearing_of(transcript.header)
    rebuilt = await rebuild(variant, config, seed, transcript.events, agents, hearing)
    problem = (
        rebuilt.divergence or check_header(transcript, rebuilt.game) or check_visibility(transcript)
    )
    if problem:
        raise SessionError(f"{path}: the recorded game does not replay: {problem}")
    game = rebuilt.game
    with TranscriptWriter(path, append=True) as writer:
        hooks.on_start(game, path)
        start = len(transcript.events)
        seated = hearing.seat(agents, game)
        outcome, stats = await continue_game(
            game, loaded, seated, writer, start, hooks, transcript.calls
        )
        total = counters_of(transcript, transcript.events) + stats
        writer.outcome(outcome_line(outcome, total))
    return PlayResult(path, variant.name, seed, roles, outcome, total, game.state, config)


resume = blocking(resume_async, "resume", ":func:`resume_async` from synchronous code.")


async def fork_async(
    path: Path,
    at: int,
    other: LoadedConfig | None,
    out: Path | None,
    hooks: LiveHooks | None = None,
) -> PlayResult:
    """A new game that shares the first ``at`` events, then goes on with other agents."""
    hooks = hooks or LiveHooks()
    transcript = read_transcript(path)
    check_fork_point(transcript.events, at)
    variant, config = game_config_of(transcript)
    if other is None:
        loaded = loaded_of(transcript)
    else:
        loaded = other
        # The rules the fork must keep: the game file's (a series game's own config
        # comes from it, KG-5), or the header's for a game played from Python.
        from_file = transcript.header.get("played_from") != "python"
        rules = loaded_of(transcript).game_config if from_file else config
        _same_game(variant.name, rules, other)
    seed = int(transcript.header["seed"])
    prefix = transcript.events[:at]
    rebuilt = await rebuild(variant, config, seed, prefix)
    if rebuilt.divergence:
        raise SessionError(f"{path}: the recorded game does not replay: {rebuilt.divergence}")
    game = rebuilt.game
    roles = dict(game.roles())
    agents = build_agents(loaded, roles, seed, host=hooks.host)
    # a fork of a what-if branch keeps its seats deaf to what the branch hid
    hearing = hearing_of(transcript.header).before(at)
    await rebuild(variant, config, seed, prefix, agents, hearing)  # warm the new agents
    target = transcript_path(out or Path(loaded.file.run.out), variant.name, seed)
    # absolute, so the link still holds when the fork is read from another folder
    # The decisions before ``at`` were made by the original seats: their agents are
    # kept so stats and views credit those decisions to who really made them.
    extra = {
        "forked_from": {
            "transcript": str(path.resolve()),
            "at": at,
            "agents": transcript.header.get("agents") or {},
            **hearing.link(at),
        }
    }
    with TranscriptWriter(target) as writer:
        writer.header(build_header(loaded, config, seed, roles, agents, extra))
        hooks.on_start(game, target)
        for seq, event in enumerate(prefix):
            writer.event(seq, event)
        _copy_calls(transcript, prefix, writer)
        for control in transcript.controls:  # who played the copied decisions
            if int(control.get("seq", at)) < at:
                writer.control({k: v for k, v in control.items() if k != "type"})
        seated = hearing.seat(agents, game)
        outcome, stats = await continue_game(game, loaded, seated, writer, at, hooks)
        total = counters_of(transcript, prefix, _calls_of(transcript, prefix)) + stats
        writer.outcome(outcome_line(outcome, total))
    return PlayResult(target, variant.name, seed, roles, outcome, total, game.state, config)


fork = blocking(fork_async, "fork", ":func:`fork_async` from synchronous code.")


def _same_game(variant: str, rules: BaseModel, other: LoadedConfig) -> None:
    if other.variant.name != variant:
        raise SessionError(
            f"the fork config plays '{other.variant.name}', the transcript "
            f"'{variant}'; a fork must keep the variant"
        )
    if other.game_config != rules:
        differences = config_differences(rules, other.game_config)
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


def _calls_of(transcript: Transcript, prefix: Sequence[Event]) -> list[dict[str, Any]]:
    """The call lines of the decisions a fork keeps (the ones it copies)."""
    ids = {e.request_id for e in prefix if isinstance(e, DecisionMade)}
    # Probe-only calls made before the fork point go too (their ``seq`` < at).
    return [
        call
        for call in transcript.calls
        if call.get("request_id") in ids
        or (call.get("probe") and int(call.get("seq") or 0) < len(prefix))
    ]


def _copy_calls(transcript: Transcript, prefix: Sequence[Event], writer: TranscriptWriter) -> None:
    for call in _calls_of(transcript, prefix):
        writer.call({k: v for k, v in call.items() if k != "type"})
