"""Playing the games of a study that seats people (issue 39, item 4).

A person plays at this machine, in a browser page: such a study's games are
played here, one at a time, each with the web pages of a run (its seat's
address announced on stderr, as ``sandbox run`` announces it), whatever
backend was asked for. In a blind study the pages are a
:class:`~sandbox.web.end_question.BlindRun`: each person is asked at the end
which seats were played by AI, and the answers go to the outcome line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from sandbox.batch.backends.base import Backend
from sandbox.batch.jobs import (
    Admit,
    BatchResult,
    GameJob,
    GameResult,
    Halt,
    OnResult,
    admit_all,
    never_halt,
)
from sandbox.batch.run import error_line
from sandbox.session import LiveHooks, play_game, resume
from sandbox.session.gamefile import parse_config
from sandbox.session.play import PlayResult
from sandbox.transcript.sides import role_group
from sandbox.web.end_question import END_WAIT_S, BlindRun
from sandbox.web.hub import print_to_stderr
from sandbox.web.run import WebRun

Announce = Callable[[str], None]


class PeopleBackend(Backend):
    """Plays a study's games here, in turn, with web pages for its people (nothing
    to start or release: each game opens its own pages and closes them)."""

    name = "local"

    def __init__(
        self, blind: bool, announce: Announce = print_to_stderr, wait_s: float = END_WAIT_S
    ) -> None:
        self.blind = blind
        self.announce = announce
        self.wait_s = wait_s

    def run(
        self,
        jobs: Sequence[GameJob],
        on_result: OnResult,
        admit: Admit = admit_all,
        halt: Halt = never_halt,
    ) -> BatchResult:
        batch = BatchResult()
        try:
            for job in jobs:
                if (why := halt([])) is not None:
                    batch.stopped = why
                    break
                result = self.play(job)
                batch.results.append(result)
                on_result(result)
        except KeyboardInterrupt:
            batch.interrupted = True
        batch.results.sort(key=lambda r: r.seed)
        return batch

    def play(self, job: GameJob) -> GameResult:
        """One game with its pages; a failure is the game's, not the study's."""
        web = self.pages()
        started: list[Path] = []
        hooks = web.hooks(
            LiveHooks(
                on_start=lambda game, path: started.append(path),
                outcome_extra=lambda: web.outcome_extra() if isinstance(web, BlindRun) else {},
            )
        )
        self.announce(f"study game {job.key}: each person's seat page is announced below")
        base = GameResult(job.seed, None, key=job.key, resumed=job.resume is not None)
        try:
            if job.resume is not None:
                record = resume(Path(job.resume), hooks=hooks)
            else:
                loaded = parse_config(job.raw_config)
                record = play_game(
                    loaded, job.seed, Path(job.out), hooks=hooks, header_extra=job.header_extra
                )
        except KeyboardInterrupt:
            raise
        except Exception as err:  # a broken game must not end the study
            first = str(started[0]) if started else job.resume
            return GameResult(job.seed, first, error=error_line(err), key=job.key)
        finally:
            web.stop()
        return finished(base, record)

    def pages(self) -> WebRun:
        if self.blind:
            return BlindRun(announce=self.announce, wait_s=self.wait_s)
        return WebRun(announce=self.announce)


def finished(base: GameResult, record: PlayResult) -> GameResult:
    """The batch's result of a game played to its end."""
    outcome = record.outcome
    wins = (
        {role_group(record.roles[s]) for s, r in outcome.results.items() if r == "win"}
        if outcome is not None
        else set()
    )
    return GameResult(
        base.seed,
        str(record.path),
        reason=outcome.reason if outcome else None,
        winners=tuple(sorted(wins)),
        key=base.key,
        cost=record.stats.cost,
        resumed=base.resumed,
    )
