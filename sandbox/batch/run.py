"""Batches of independent games (``sandbox batch``), optionally in worker processes.

Game k of a batch is ``session.play_game`` with seed ``first_seed + k`` and the
game file's own config: unlike a series (KG-5) no game depends on another, so
they can be played in any order, in parallel, and each transcript is the one
``sandbox run --seed`` would write for that seed.

How many workers and games in flight is decided by sandbox/batch/policy.py;
this module plays what it is told. With one worker and one game in flight the
games are played here, one after the other. Otherwise worker processes
(sandbox/batch/workers.py, "spawn" context) each play up to ``in_flight`` games
at once on one event loop; LLM seats with the built-in fake provider or a
local model start their server inside each worker. A game that raises is
recorded with its seed and one-line error; the others go on.

Re-running a batch into the same folder plays only what is missing: each game's
header records ``batch = {config: <digest>, seed}`` (sandbox/transcript/identity.py),
finished games are skipped and interrupted ones are finished from their
transcripts. A job is handed to a worker only when it may start at once, so
after Ctrl-C (or SIGTERM, handled the same way) no new game starts.
"""

from __future__ import annotations

import asyncio
import dataclasses
import signal
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from sandbox.analysis.stats import gather, summarise
from sandbox.batch.jobs import (
    Admit,
    BatchResult,
    GameJob,
    GameResult,
    Halt,
    OnResult,
    admit_all,
    halting_on_stop,
    never_halt,
)
from sandbox.core.signals import handling
from sandbox.core.words import one_line
from sandbox.models.client import QuotaExhausted
from sandbox.session import (
    LiveHooks,
    PlayResult,
    play_game,
    play_game_async,
    resume,
    resume_async,
)
from sandbox.session.gamefile import LoadedConfig, parse_config
from sandbox.transcript import TranscriptWriteError
from sandbox.transcript.identity import config_digest, plan_of, scan
from sandbox.transcript.sides import role_group

# ---------------------------------------------------------------- one game


def play_one(job: GameJob) -> GameResult:
    """Play (or finish) one game; every failure becomes a one-line error in the result.

    Runs in the caller's process (or a Ray task): the config is parsed here from
    plain data, the way ``resume`` rebuilds a game file from a transcript header.
    Ctrl-C cancels the game the way it cancels ``sandbox run``: the transcript
    is closed cleanly and resumable.
    """
    started: list[Path] = []
    hooks = LiveHooks(on_start=lambda game, path: started.append(path))
    base = GameResult(job.seed, None, key=job.key, resumed=job.resume is not None)
    try:
        record = _play_or_resume(job, hooks)
    except KeyboardInterrupt:
        return _with(base, transcript=_first(started) or job.resume, interrupted=True)
    except Exception as err:  # a broken game must not end the batch
        return _failed(base, _first(started) or job.resume, err)
    return _finished(base, record)


async def play_one_async(job: GameJob) -> GameResult:
    """:func:`play_one` as a task of an event loop that plays several games at
    once (sandbox/batch/workers.py): cancelling the task stops the game with a
    resumable transcript, reported as ``interrupted``."""
    started: list[Path] = []
    hooks = LiveHooks(on_start=lambda game, path: started.append(path))
    base = GameResult(job.seed, None, key=job.key, resumed=job.resume is not None)
    try:
        if job.resume is not None:
            record = await resume_async(Path(job.resume), hooks=hooks)
        else:
            loaded = parse_config(job.raw_config)
            record = await play_game_async(
                loaded, job.seed, Path(job.out), hooks=hooks, header_extra=job.header_extra
            )
    except asyncio.CancelledError:
        return _with(base, transcript=_first(started) or job.resume, interrupted=True)
    except Exception as err:  # a broken game must not end the batch
        return _failed(base, _first(started) or job.resume, err)
    return _finished(base, record)


def _failed(base: GameResult, transcript: str | None, err: Exception) -> GameResult:
    """The result of a game that raised ``err`` (``transcript``: its file, if
    it has one yet), shared by :func:`play_one` and :func:`play_one_async`."""
    if isinstance(err, QuotaExhausted):  # resumable; no further game starts
        return _quota(base, transcript, err)
    if isinstance(err, TranscriptWriteError):  # the disk, not the game: stop the batch
        return _with(base, transcript=transcript, fault=str(err))
    return _with(base, transcript=transcript, error=error_line(err))


def _quota(base: GameResult, transcript: str | None, err: QuotaExhausted) -> GameResult:
    """A game stopped by a spent provider quota: failed for now, its transcript
    resumable (a re-run of the batch finishes it), and the batch stops starting games."""
    line = error_line(err)
    return _with(base, transcript=transcript, error=line, stop=f"provider quota exhausted: {line}")


def lost_game(job: GameJob, error: str) -> GameResult:
    """The result of a game whose worker process died under it: failed, with its
    seed, pointing at its partial transcript when it was a resumed one."""
    return GameResult(
        job.seed, job.resume, error=error, key=job.key, resumed=job.resume is not None
    )


def _finished(base: GameResult, record: PlayResult) -> GameResult:
    outcome = record.outcome
    winners: tuple[str, ...] = ()
    if outcome is not None:
        wins = {role_group(record.roles[s]) for s, r in outcome.results.items() if r == "win"}
        winners = tuple(sorted(wins))
    reason = outcome.reason if outcome else None
    return _with(
        base, transcript=str(record.path), reason=reason, winners=winners, cost=record.stats.cost
    )


def _play_or_resume(job: GameJob, hooks: LiveHooks) -> PlayResult:
    if job.resume is not None:
        return resume(Path(job.resume), hooks=hooks)
    loaded = parse_config(job.raw_config)
    return play_game(loaded, job.seed, Path(job.out), hooks=hooks, header_extra=job.header_extra)


def _with(base: GameResult, **changes: Any) -> GameResult:
    return dataclasses.replace(base, **changes)


def _first(paths: Sequence[Path]) -> str | None:
    return str(paths[0]) if paths else None


def error_line(err: BaseException) -> str:
    """A game's failure as its result records it: the error's type and message."""
    text = one_line(str(err))
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


# ------------------------------------------------------------------- batch


def jobs_for(loaded: LoadedConfig, seeds: Sequence[int], out: Path) -> list[GameJob]:
    """One job per seed, each header marked with the batch identity (game file
    digest, seed) so a re-run in the same folder knows what is already played."""
    raw = loaded.to_json()
    digest = config_digest(raw)
    return [
        GameJob(
            raw,
            seed,
            str(out),
            header_extra={"batch": {"config": digest, "seed": seed}},
            key=f"batch:{digest}:{seed}",
        )
        for seed in seeds
    ]


def skip_done(jobs: Sequence[GameJob], out: Path) -> tuple[list[GameJob], list[str]]:
    """Drop the jobs whose game already finished in ``out``; point the ones left
    interrupted there at their transcript. Returns (jobs to run, finished transcripts)."""
    on_disk = scan(out)
    todo: list[GameJob] = []
    skipped: list[str] = []
    for job in jobs:
        plan, path = plan_of(on_disk.get(job.key))
        if plan == "done":
            skipped.append(str(path))
        elif plan == "resume":
            todo.append(dataclasses.replace(job, resume=str(path)))
        else:
            todo.append(job)
    return todo, skipped


def run_batch(
    jobs: Sequence[GameJob],
    workers: int,
    on_result: OnResult,
    admit: Admit = admit_all,
    halt: Halt = never_halt,
    in_flight: int = 1,
) -> BatchResult:
    """Play every job; ``on_result`` sees each result as it arrives. Ctrl-C or
    SIGTERM (or a KeyboardInterrupt from ``on_result``) stops the batch: no new
    game starts and running ones are stopped with resumable transcripts.
    ``admit`` and ``halt`` let a study hold jobs back (provider limits) or stop
    scheduling (cost cap). ``in_flight``: games each worker process plays at
    once on its event loop (sandbox/batch/workers.py). A disk fault (a game's
    transcript cannot be written) starts no new game either; the games in
    flight end on their own (on that disk, most at their next line) and the
    batch's ``fault`` says what happened."""
    batch = BatchResult()
    on_result, halt = _stop_on_fault(batch, *halting_on_stop(on_result, halt))
    try:
        with _sigterm_as_ctrl_c():
            if workers <= 1 and in_flight <= 1:
                _run_here(jobs, batch, on_result, halt)
            else:
                from sandbox.batch.workers import run_pool

                run_pool(
                    jobs,
                    max(workers, 1),
                    in_flight,
                    batch,
                    on_result,
                    admit,
                    halt,
                    play_one_async,
                    lost_game,
                )
    except KeyboardInterrupt:
        batch.interrupted = True
    batch.results.sort(key=lambda r: (r.seed, r.key))
    return batch


def _stop_on_fault(batch: BatchResult, on_result: OnResult, halt: Halt) -> tuple[OnResult, Halt]:
    """``on_result`` and ``halt`` that record the first disk fault and then halt."""

    def record(result: GameResult) -> None:
        if result.fault is not None and batch.fault is None:
            batch.fault = result.fault
        on_result(result)

    def halted(running: Sequence[GameJob]) -> str | None:
        return batch.fault or halt(running)

    return record, halted


@contextmanager
def _sigterm_as_ctrl_c() -> Iterator[None]:
    """SIGTERM (a service manager, ``kill``) stops a batch the way Ctrl-C does:
    games in flight are stopped with resumable transcripts and no worker outlives
    the batch. Only the main thread may set handlers; elsewhere nothing changes."""
    with handling(signal.SIGTERM, _raise_ctrl_c):
        yield


def _raise_ctrl_c(signum: int, frame: FrameType | None) -> None:
    signal.raise_signal(signal.SIGINT)  # whatever handles Ctrl-C now (asyncio's, Python's)


def _run_here(jobs: Iterable[GameJob], batch: BatchResult, on_result: OnResult, halt: Halt) -> None:
    for job in jobs:
        batch.stopped = halt(())
        if batch.stopped:
            return
        result = play_one(job)
        batch.results.append(result)
        if result.interrupted:
            raise KeyboardInterrupt
        on_result(result)


# ----------------------------------------------------------------- summary


def win_counts(results: Iterable[GameResult]) -> Counter[str]:
    """Games won per role group so far; a game nobody won counts as 'draw'."""
    counts: Counter[str] = Counter()
    for result in results:
        if result.finished:
            counts.update(result.winners or ("draw",))
    return counts


def summary_of(batch: BatchResult, bootstrap_seed: int) -> dict[str, Any]:
    """sandbox.analysis.stats over the transcripts of the finished games."""
    paths = [Path(p) for p in batch.skipped]
    paths += [Path(r.transcript) for r in batch.finished if r.transcript]
    if not paths:
        return {}
    per_variant, _ = gather(paths)
    return summarise(per_variant, bootstrap_seed)
