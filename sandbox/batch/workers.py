"""Worker processes that each keep several games of a batch in flight.

The parent (``sandbox batch`` / ``sandbox study``) starts ``workers`` processes
with the "spawn" context and talks to each over a pipe: it sends a worker plain
``GameJob`` objects, at most ``in_flight`` at a time, and gets a ``GameResult``
back as each game finishes. A worker plays its games as asyncio tasks on one
event loop, so they share the loop's HTTP client pools and per-model
concurrency limits (sandbox/models/pool.py, client.model_semaphore), and
writes transcripts through the background line writer (sandbox/transcript/jsonl.py).

Scheduling stays in the parent: provider limits (``admit``), the cost cap
(``halt``) and "no new game after Ctrl-C" hold however many games are in flight,
since a job is only sent when it may start at once.

Stopping. The parent stops a worker with SIGTERM: the worker cancels every
game it plays (each transcript is closed cleanly and resumable, the game
reported as interrupted) and exits. A worker also stops its games when the
parent disappears (its pipe ends), so none is left playing for nobody. A worker
that dies fails only its own games, and a fresh one takes its place.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection, wait
from multiprocessing.context import SpawnContext, SpawnProcess
from types import FrameType

from sandbox.batch.jobs import Admit, BatchResult, GameJob, GameResult, Halt, OnResult

# How a worker plays one job (sandbox.batch.run.play_one_async), and the result of a
# job whose worker died (sandbox.batch.run.lost_game); passed in by sandbox.batch.run.
Play = Callable[["GameJob"], Awaitable["GameResult"]]
Lost = Callable[["GameJob", str], "GameResult"]

STOP_WAIT_S = 15.0  # after a stop, how long games may take to close their transcripts
JOIN_WAIT_S = 10.0  # after the last game, how long a worker may take to exit


@dataclass
class _Worker:
    process: SpawnProcess
    conn: Connection
    running: dict[str, GameJob] = field(default_factory=dict)  # ident -> job


# ------------------------------------------------------------------ parent


def run_pool(
    jobs: Sequence[GameJob],
    workers: int,
    in_flight: int,
    batch: BatchResult,
    on_result: OnResult,
    admit: Admit,
    halt: Halt,
    play: Play,
    lost: Lost,
) -> None:
    """Play ``jobs`` on ``workers`` processes, ``in_flight`` games each at most.
    A KeyboardInterrupt (Ctrl-C, SIGTERM, or raised by ``on_result``) stops
    every game in flight, collects what they left, and propagates."""
    if not jobs:
        return
    context = multiprocessing.get_context("spawn")
    size = min(workers, -(-len(jobs) // in_flight))  # no idle workers for a short batch
    pool = [_spawn(context, play) for _ in range(size)]
    waiting = list(jobs)
    try:
        while True:
            _hand_out(pool, waiting, in_flight, batch, admit, halt)
            if not any(w.running for w in pool):
                break  # nothing admitted and nothing left to wait for
            for result in _next_results(pool, context, play, lost, bool(waiting)):
                batch.results.append(result)
                on_result(result)
        _close(pool)
    except KeyboardInterrupt:
        _stop(pool, batch)
        raise
    finally:
        _reap(pool)


def _spawn(context: SpawnContext, play: Play) -> _Worker:
    ours, theirs = context.Pipe()
    process = context.Process(target=worker_main, args=(theirs, play), name="sandbox-batch-worker")
    # The new process inherits a blocked SIGINT and keeps it blocked while it
    # starts (imports): Ctrl-C in that window stays pending until worker_main
    # ignores it, so no worker prints a KeyboardInterrupt traceback. Here it
    # is delivered as soon as start() returns. The first start() of a run
    # would also launch multiprocessing's resource tracker, which unblocks
    # SIGINT again once the tracker is up, before the worker itself is
    # spawned: so the tracker is started first, outside the blocked window.
    resource_tracker.ensure_running()
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        process.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    theirs.close()
    return _Worker(process, ours)


def _hand_out(
    pool: list[_Worker],
    waiting: list[GameJob],
    in_flight: int,
    batch: BatchResult,
    admit: Admit,
    halt: Halt,
) -> None:
    """Send jobs to the least busy workers while there is room and nothing says stop."""
    while waiting and pool and not batch.stopped:
        worker = min(pool, key=lambda w: len(w.running))
        if len(worker.running) >= in_flight:
            return
        running = [job for w in pool for job in w.running.values()]
        batch.stopped = halt(running)
        job = None if batch.stopped else _next_job(waiting, running, admit)
        if job is None:
            return
        worker.running[job.ident] = job  # if the send fails, the worker is dead: see _lost
        try:
            worker.conn.send(job)
        except OSError:
            return


def _next_job(waiting: list[GameJob], running: Sequence[GameJob], admit: Admit) -> GameJob | None:
    for index, job in enumerate(waiting):
        if admit(job, running):
            return waiting.pop(index)
    return None


def _next_results(
    pool: list[_Worker], context: SpawnContext, play: Play, lost: Lost, replace_dead: bool
) -> Iterator[GameResult]:
    """Wait for at least one result (or a worker's death); yield what arrived.
    A dead worker's games fail (one line each) and a fresh worker replaces it."""
    busy = [w.conn for w in pool if w.running]
    ready = set(wait(busy + [w.process.sentinel for w in pool]))
    for worker in list(pool):
        if worker.conn in ready:
            yield from _drain(worker)
        if not worker.process.is_alive():
            yield from _drain(worker)
            yield from _lost(worker, lost)
            pool.remove(worker)
            worker.conn.close()
            if replace_dead:
                pool.append(_spawn(context, play))


def _drain(worker: _Worker) -> Iterator[GameResult]:
    """Every result the worker has sent so far (without blocking)."""
    try:
        while worker.conn.poll():
            result: GameResult = worker.conn.recv()
            worker.running.pop(result.ident, None)
            yield result
    except (EOFError, OSError):
        return


def _lost(worker: _Worker, lost: Lost) -> Iterator[GameResult]:
    worker.process.join(1.0)
    code = worker.process.exitcode
    for job in worker.running.values():
        yield lost(job, f"WorkerLost: the worker process playing this game died (exit code {code})")
    worker.running.clear()


def _close(pool: Sequence[_Worker]) -> None:
    """All games are done: tell every worker to exit."""
    for worker in pool:
        with contextlib.suppress(OSError):  # already gone
            worker.conn.send(None)


def _stop(pool: Sequence[_Worker], batch: BatchResult) -> None:
    """Stop every game in flight (SIGTERM to each worker) and collect the results
    they leave: interrupted games with resumable transcripts, and games that
    finished meanwhile. Results already counted are not counted again."""
    for worker in pool:
        if worker.process.is_alive():
            worker.process.terminate()
    seen = {r.ident for r in batch.results}
    deadline = time.monotonic() + STOP_WAIT_S
    live = [w for w in pool if w.running]
    while live and time.monotonic() < deadline:
        wait(
            [w.process.sentinel for w in live] + [w.conn for w in live],
            timeout=deadline - time.monotonic(),
        )
        for worker in live:
            for result in _drain(worker):
                if result.ident not in seen:
                    seen.add(result.ident)
                    batch.results.append(result)
        live = [w for w in live if w.running and w.process.is_alive()]


def _reap(pool: Sequence[_Worker]) -> None:
    """No worker outlives the batch: join each, kill one that does not exit."""
    deadline = time.monotonic() + JOIN_WAIT_S
    for worker in pool:
        worker.process.join(max(0.0, deadline - time.monotonic()))
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.conn.close()


# ------------------------------------------------------------------ worker


def worker_main(conn: Connection, play: Play) -> None:
    """A worker process: play the jobs the parent sends until it says stop."""
    os.setpgrp()  # Ctrl-C at the terminal reaches the parent only; it stops us
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # _spawn started us with SIGINT blocked; one sent meanwhile is now ignored.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGTERM, _exit_now)  # until the event loop takes over
    from sandbox.transcript import write_in_background

    write_in_background(True)
    asyncio.run(_serve(conn, play))


def _exit_now(signum: int, frame: FrameType | None) -> None:
    sys.exit(0)  # stopped before any game started: nothing to close


async def _serve(conn: Connection, play: Play) -> None:
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[GameJob | None] = asyncio.Queue()
    games: set[asyncio.Task[None]] = set()
    stopping = threading.Event()

    def stop() -> None:
        """Cancel every game: each closes its transcript and reports itself interrupted."""
        if stopping.is_set():
            return
        stopping.set()
        # Stopping mid-call leaves the provider's coroutine unawaited: expected, not news.
        warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
        for task in games:
            task.cancel()
        inbox.put_nowait(None)

    loop.add_signal_handler(signal.SIGTERM, stop)
    reader = threading.Thread(target=_read_jobs, args=(conn, loop, inbox, stop), daemon=True)
    reader.start()
    while (job := await inbox.get()) is not None and not stopping.is_set():
        task = loop.create_task(_play_and_report(play, job, conn))
        games.add(task)
        task.add_done_callback(games.discard)
    if games:
        await asyncio.wait(set(games))


def _read_jobs(
    conn: Connection,
    loop: asyncio.AbstractEventLoop,
    inbox: asyncio.Queue[GameJob | None],
    stop: Callable[[], None],
) -> None:
    """The pipe is read in a thread so the loop never blocks on it. The end of
    the pipe (the parent died) stops every game."""
    while True:
        try:
            message: GameJob | None = conn.recv()
        except (EOFError, OSError):
            loop.call_soon_threadsafe(stop)
            return
        loop.call_soon_threadsafe(inbox.put_nowait, message)
        if message is None:
            return


async def _play_and_report(play: Play, job: GameJob, conn: Connection) -> None:
    result = await play(job)
    with contextlib.suppress(OSError):  # the parent is gone; the transcript remains
        conn.send(result)
