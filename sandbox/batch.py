"""Batches of independent games (``sandbox batch``), optionally in worker processes.

Game k of a batch is ``session.play_game`` with seed ``first_seed + k`` and the
game file's own config: unlike a series (KG-5) no game depends on another, so
they can be played in any order, in parallel, and each transcript is the one
``sandbox run --seed`` would write for that seed.

Workers are started with the "spawn" context (no forked copies of the parent's
threads or event loop) and each plays whole games. LLM seats with the built-in
fake provider or a local model start their server inside each worker process.
A game that raises is recorded with its seed and one-line error; the others go on.

Re-running a batch into the same folder plays only what is missing: each game's
header records ``batch = {config: <digest>, seed}`` (sandbox/study/identity.py),
finished games are skipped and interrupted ones are finished from their
transcripts. At most ``workers`` games are handed to the pool at a time, so after
Ctrl-C no new game starts.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import signal
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from sandbox.config import LoadedConfig, llm_specs, parse_config
from sandbox.session import GameRecord, LiveHooks, play_game, resume
from sandbox.stats import gather, role_group, summarise
from sandbox.study.identity import config_digest, plan_of, scan

LOCAL_PREFIXES = ("local/", "local:")


@dataclass(frozen=True)
class GameJob:
    """Everything a worker needs to play one game; plain data so it pickles."""

    raw_config: Mapping[str, Any]
    seed: int
    out: str
    header_extra: Mapping[str, Any] | None = None
    resume: str | None = None  # an interrupted transcript of this game, to finish
    key: str = ""  # the game's identity (sandbox/study/identity.py)
    providers: tuple[str, ...] = ()  # model providers its seats call

    @property
    def ident(self) -> str:
        return self.key or str(self.seed)


@dataclass(frozen=True)
class GameResult:
    """What one game of a batch produced (plain data, sent back from workers)."""

    seed: int
    transcript: str | None
    reason: str | None = None
    winners: tuple[str, ...] = ()  # role groups with at least one winning seat
    error: str | None = None
    interrupted: bool = False
    key: str = ""
    cost: float = 0.0
    resumed: bool = False

    @property
    def finished(self) -> bool:
        return self.error is None and not self.interrupted

    @property
    def ident(self) -> str:
        return self.key or str(self.seed)

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "key": self.key,
            "cost": round(self.cost, 6),
            "resumed": self.resumed,
            "transcript": self.transcript,
            "reason": self.reason,
            "winners": list(self.winners),
            "error": self.error,
            "interrupted": self.interrupted,
        }


@dataclass
class BatchResult:
    """All games of a batch, sorted by seed, whatever order they finished in."""

    results: list[GameResult] = field(default_factory=list)
    interrupted: bool = False
    skipped: list[str] = field(default_factory=list)  # transcripts of games already finished
    stopped: str | None = None  # why scheduling stopped early (e.g. the cost cap)

    @property
    def finished(self) -> list[GameResult]:
        return [r for r in self.results if r.finished]

    @property
    def failed(self) -> list[GameResult]:
        return [r for r in self.results if r.error is not None]

    @property
    def cut_short(self) -> list[GameResult]:
        """Games stopped by Ctrl-C: their transcripts are unfinished but resumable."""
        return [r for r in self.results if r.interrupted]


# ---------------------------------------------------------------- one game

# Worker processes only (see _worker_setup): whether a game is being played, and
# whether it has been asked to stop.
_in_worker = False
_playing = False
_stopping = False


def play_one(job: GameJob) -> GameResult:
    """Play (or finish) one game; every failure becomes a one-line error in the result.

    Runs in a worker process or in the caller's: the config is parsed here from
    plain data, the way ``resume`` rebuilds a game file from a transcript header.
    """
    started: list[Path] = []
    hooks = LiveHooks(on_start=lambda game, path: started.append(path))
    base = GameResult(job.seed, None, key=job.key, resumed=job.resume is not None)
    try:
        with _interruptible():
            record = _play_or_resume(job, hooks)
    except KeyboardInterrupt:
        return _with(base, transcript=_first(started) or job.resume, interrupted=True)
    except Exception as err:  # a broken game must not end the batch
        return _with(base, transcript=_first(started) or job.resume, error=one_line(err))
    outcome = record.outcome
    winners: tuple[str, ...] = ()
    if outcome is not None:
        wins = {role_group(record.roles[s]) for s, r in outcome.results.items() if r == "win"}
        winners = tuple(sorted(wins))
    reason = outcome.reason if outcome else None
    return _with(
        base, transcript=str(record.path), reason=reason, winners=winners, cost=record.stats.cost
    )


def _play_or_resume(job: GameJob, hooks: LiveHooks) -> GameRecord:
    if job.resume is not None:
        return resume(Path(job.resume), hooks=hooks)
    loaded = parse_config(job.raw_config)
    return play_game(loaded, job.seed, Path(job.out), hooks=hooks, header_extra=job.header_extra)


def _with(base: GameResult, **changes: Any) -> GameResult:
    return dataclasses.replace(base, **changes)


def _first(paths: Sequence[Path]) -> str | None:
    return str(paths[0]) if paths else None


def one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _worker_setup() -> None:
    """Workers leave the terminal's process group: Ctrl-C reaches the parent
    only, which stops running games with SIGTERM (see _stop_workers)."""
    global _in_worker
    _in_worker = True
    os.setpgrp()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop_game)


@contextmanager
def _interruptible() -> Iterator[None]:
    """In a worker, a game in progress takes SIGINT with Python's default handler,
    so asyncio.run installs its own and a stop cancels the game the way Ctrl-C
    cancels ``sandbox run``: the transcript is closed cleanly and resumable."""
    global _playing
    if _in_worker:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    _playing = True
    try:
        yield
    finally:
        _playing = False
        if _in_worker:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop_game(signum: int, frame: FrameType | None) -> None:
    global _stopping
    if _playing and not _stopping:  # once: a second SIGINT would skip asyncio's cleanup
        _stopping = True
        # Stopping mid-call leaves the provider's coroutine unawaited: expected, not news.
        warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
        signal.raise_signal(signal.SIGINT)


# ------------------------------------------------------------------- batch


def first_seed(loaded: LoadedConfig, seed: int | None) -> int:
    """--seed, else the game file's seed, else 0 (a batch is always reproducible)."""
    if seed is not None:
        return seed
    return loaded.file.seed if loaded.file.seed is not None else 0


def worker_count(jobs: int) -> int:
    return jobs if jobs > 0 else (os.cpu_count() or 1)


def uses_local_model(loaded: LoadedConfig) -> bool:
    """A local model server answers one request at a time: parallel games would
    only queue behind each other (and each worker would load its own copy)."""
    return any(s.model.startswith(LOCAL_PREFIXES) for s in llm_specs(loaded.file))


def seats_a_human(loaded: LoadedConfig) -> bool:
    specs = [loaded.file.default_agent, *loaded.file.agent]
    return any(s.kind == "human" for s in specs)


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


OnResult = Callable[[GameResult], None]
# May this job start now, given the jobs in flight? (per-provider limits)
Admit = Callable[[GameJob, Sequence[GameJob]], bool]
# Why no further job may start (e.g. the cost cap), or None to go on.
Halt = Callable[[Sequence[GameJob]], str | None]


def _always(job: GameJob, running: Sequence[GameJob]) -> bool:
    return True


def _never(running: Sequence[GameJob]) -> str | None:
    return None


def run_batch(
    jobs: Sequence[GameJob],
    workers: int,
    on_result: OnResult,
    admit: Admit = _always,
    halt: Halt = _never,
) -> BatchResult:
    """Play every job; ``on_result`` sees each result as it arrives. Ctrl-C (or a
    KeyboardInterrupt from ``on_result``) stops the batch: no new game starts and
    running ones are stopped with resumable transcripts. ``admit`` and ``halt``
    let a study hold jobs back (provider limits) or stop scheduling (cost cap)."""
    batch = BatchResult()
    try:
        if workers <= 1:
            _run_here(jobs, batch, on_result, halt)
        else:
            _run_pool(jobs, workers, batch, on_result, admit, halt)
    except KeyboardInterrupt:
        batch.interrupted = True
    batch.results.sort(key=lambda r: (r.seed, r.key))
    return batch


def _run_here(
    jobs: Iterable[GameJob], batch: BatchResult, on_result: OnResult, halt: Halt
) -> None:
    for job in jobs:
        batch.stopped = halt(())
        if batch.stopped:
            return
        result = play_one(job)
        batch.results.append(result)
        if result.interrupted:
            raise KeyboardInterrupt
        on_result(result)


def _next_job(
    waiting: list[GameJob], running: Sequence[GameJob], admit: Admit
) -> GameJob | None:
    for index, job in enumerate(waiting):
        if admit(job, running):
            return waiting.pop(index)
    return None


def _run_pool(
    jobs: Sequence[GameJob],
    workers: int,
    batch: BatchResult,
    on_result: OnResult,
    admit: Admit,
    halt: Halt,
) -> None:
    """At most ``workers`` jobs are ever submitted: the executor's own queue
    would start games already handed to it, even after Ctrl-C."""
    if not jobs:
        return
    context = multiprocessing.get_context("spawn")
    size = min(workers, len(jobs))
    pool = ProcessPoolExecutor(size, context, initializer=_worker_setup)
    waiting = list(jobs)
    running: dict[Future[GameResult], GameJob] = {}
    try:
        while waiting or running:
            while waiting and len(running) < size and not batch.stopped:
                batch.stopped = halt(list(running.values()))
                job = None if batch.stopped else _next_job(waiting, list(running.values()), admit)
                if job is None:
                    break
                running[pool.submit(play_one, job)] = job
            if not running:
                break  # nothing admitted and nothing left to wait for
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for future in done:
                job = running.pop(future)
                result = _result_of(future, job)
                batch.results.append(result)
                on_result(result)
    except KeyboardInterrupt:
        _stop_workers(pool, list(running), batch)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _result_of(future: Future[GameResult], job: GameJob) -> GameResult:
    """A worker that died (killed, out of memory) fails its game, not the batch."""
    try:
        return future.result()
    except Exception as err:
        return GameResult(job.seed, job.resume, error=one_line(err), key=job.key)


def _stop_workers(
    pool: ProcessPoolExecutor, futures: Sequence[Future[GameResult]], batch: BatchResult
) -> None:
    """Interrupt running games and collect what they left."""
    for future in futures:
        future.cancel()
    # The pool has no public way to interrupt running calls before Python 3.14.
    processes: Mapping[int, Any] = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        if process.is_alive():
            process.terminate()  # SIGTERM: _stop_game interrupts the game in progress
    seen = {r.ident for r in batch.results}
    for future in futures:
        if future.cancelled() or (not future.done() and not _settles(future)):
            continue
        try:
            result = future.result()
        except Exception:  # a worker that died mid-game left nothing to report
            continue
        if result.ident not in seen:
            batch.results.append(result)


def _settles(future: Future[GameResult], timeout: float = 10.0) -> bool:
    try:
        future.exception(timeout=timeout)
    except Exception:
        return False
    return True


# ----------------------------------------------------------------- summary


def win_counts(results: Iterable[GameResult]) -> Counter[str]:
    """Games won per role group so far; a game nobody won counts as 'draw'."""
    counts: Counter[str] = Counter()
    for result in results:
        if result.finished:
            counts.update(result.winners or ("draw",))
    return counts


def summary_of(batch: BatchResult, bootstrap_seed: int) -> dict[str, Any]:
    """sandbox.stats over the transcripts of the finished games."""
    paths = [Path(p) for p in batch.skipped]
    paths += [Path(r.transcript) for r in batch.finished if r.transcript]
    if not paths:
        return {}
    per_variant, _ = gather(paths)
    return summarise(per_variant, bootstrap_seed)
