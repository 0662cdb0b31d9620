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
(:func:`resume_branch`, which is ``sandbox resume``'s own path). What its seats
never heard is read from that header by :mod:`sandbox.session.hearing`, the one
place resume, fork, replay and the viewer take it from (it stays in the playing
layer because they, below this package, read it too). The interventions and
their checks are in :mod:`sandbox.what_if.intervention`; the effects are
measured in ``sandbox.analysis.effects``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.core.errors import ConfigError
from sandbox.core.events import DecisionMade, Event
from sandbox.core.game import Game
from sandbox.session.errors import SessionError
from sandbox.session.header import build_header, outcome_line
from sandbox.session.play import GameRecord, LiveHooks
from sandbox.session.replay import counters_of, game_config_of, rebuild
from sandbox.session.resume import continue_game, resume_async
from sandbox.session.seating import build_agents
from sandbox.transcript import TranscriptWriter, read_transcript
from sandbox.transcript.files import read_head
from sandbox.what_if.intervention import CONTROL, Intervention, Prepared, prefix_events


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
    return {**link, **prepared.hearing_for(arm).link(at)}


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
    hearing = prepared.hearing_for(arm)
    # warms replayable seats (with what they heard, as resume will)
    rebuilt = await rebuild(variant, config, seed, prefix, agents, hearing)
    if rebuilt.divergence:
        raise SessionError(f"{prepared.source}: does not replay: {rebuilt.divergence}")
    game = rebuilt.game
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
        seated = hearing.seat(agents, game)
        outcome, stats = await continue_game(game, loaded, seated, writer, len(prefix), hooks)
        total = counters_of(prepared.transcript, prefix, calls) + stats
        writer.outcome(outcome_line(outcome, total))
    return GameRecord(target, variant.name, seed, roles, outcome, total, game.state, config)


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
    what its seats never heard: ``sandbox resume``'s path, which reads both from
    the header. A finished one is returned as it is, never played again."""
    transcript = read_transcript(path)
    if not transcript.finished:
        return await resume_async(path, hooks)
    variant, config = game_config_of(transcript)
    seed = int(transcript.header["seed"])
    roles = {int(s): r for s, r in transcript.header["roles"].items()}
    stats = counters_of(transcript, transcript.events)
    game = Game.from_events(variant, config, seed, transcript.events)
    return GameRecord(path, variant.name, seed, roles, game.outcome(), stats, game.state, config)


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
    "Branch",
    "OnBranch",
    "branch_path",
    "check_branches",
    "finished_on_disk",
    "forked_from",
    "play_branch",
    "resume_branch",
    "run_arms",
]
