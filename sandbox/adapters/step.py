"""The stepping interface: a game played one answer at a time from ordinary
synchronous code, under every framework adapter (docs/frameworks.md).

>>> from sandbox.adapters.step import SteppedGame
>>> game = SteppedGame("killer", external=[1], transcript=None)
>>> game.reset(seed=3)
>>> while not game.over:
...     seat = game.current_seat()
...     move = game.observation(seat)["moves"][0]
...     verdict = game.step(move)
>>> sorted(game.rewards()) == list(range(1, 13))  # every seat, the default 12 players
True
>>> game.close()

Underneath is the real game loop (``session.play.play_seated`` and its
runner) on an event loop of its own thread: the seats driven from outside are
:class:`~sandbox.adapters.external.ExternalSeat` agents, the others normal
agents (bots, scripted, LLM seats) from a mapping, a factory or a game file.
So the transcript, the counters, the fallbacks and the order sealed answers
are recorded in are those of any game, and ``sandbox replay`` re-referees it.

Sealed decisions (a step's requests answered together) are put to the
external seats one seat at a time, in seat order; the answers are revealed
together, when the referee resolves the step.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import numbers
import threading
import weakref
from collections.abc import Callable, Collection, Mapping
from contextlib import nullcontext, suppress
from pathlib import Path
from typing import Any, TypedDict, TypeVar

from sandbox.adapters.external import Desk, ExternalSeat, Verdict
from sandbox.adapters.validity import SeatTally, tallies_from
from sandbox.agents.baseline import BaselineAgent
from sandbox.agents.llm.prompt import RecordMemo
from sandbox.agents.llm.settings import LLMSettings, PromptStyle
from sandbox.agents.observation import legal_moves, observe
from sandbox.core.events import DecisionMade
from sandbox.core.game import Game
from sandbox.core.seat import Agent, AgentSetupError, Seating
from sandbox.core.variant import Outcome
from sandbox.session.api import PLAYED_FROM_PYTHON, new_game
from sandbox.session.gamefile import GameFile, LoadedConfig, load_config
from sandbox.session.header import build_header, random_seed, transcript_path
from sandbox.session.play import GameRecord, play_seated
from sandbox.session.seating import seat_agent, spec_for
from sandbox.transcript import TranscriptWriter
from sandbox.transcript.writer import closed_on_error

DEFAULT_REWARDS: Mapping[str, float] = {"win": 1.0, "draw": 0.0, "lose": -1.0}
# As many answers per decision as an LLM seat gets calls: one, then its repairs.
DEFAULT_ATTEMPTS = 1 + LLMSettings().max_repairs

T = TypeVar("T")
Opponents = Mapping[int, Agent] | Callable[[int, str], Agent]
External = Collection[int] | Callable[[int, str], bool]


class StepOptions(TypedDict, total=False):
    """The :class:`SteppedGame` keywords a framework adapter passes through
    unchanged (their meaning and defaults: ``SteppedGame``)."""

    external: External | None
    opponents: Opponents | None
    max_attempts: int
    rewards: Mapping[str, float] | None
    language: str
    transcript: Path | str | None


STEP_OPTIONS = frozenset(StepOptions.__annotations__)


class SteppedGame:
    """One game at a time of ``variant`` (or of ``game_file``), stepped from
    outside for the seats ``external`` selects (seat numbers, or a test
    ``(seat, role) -> bool``; None: every seat).

    ``opponents``: the agents of the other seats (a mapping seat -> agent, or
    a factory ``(seat, role) -> agent`` called for each game); without it the
    game file's agents, else the variant's baseline bot. ``max_attempts``:
    answers allowed per decision before the fallback. ``rewards``: the reward
    of each result ("win", "draw", "lose"). ``language``/``style``: the
    prompt of the observations. ``transcript``: the folder of the transcripts
    (None: none written).
    """

    def __init__(
        self,
        variant: str | None = None,
        *,
        rules: Mapping[str, Any] | None = None,
        game_file: Path | str | LoadedConfig | None = None,
        external: External | None = None,
        opponents: Opponents | None = None,
        max_attempts: int = DEFAULT_ATTEMPTS,
        rewards: Mapping[str, float] | None = None,
        language: str = "en",
        style: PromptStyle = "full",
        transcript: Path | str | None = "transcripts",
    ) -> None:
        self.loaded = _loaded(game_file)
        if self.loaded is not None:
            if rules:
                raise ValueError("give the rules in the game file or as rules, not both")
            variant = variant or self.loaded.variant.name
        if variant is None:
            raise ValueError("give a variant or a game file")
        self.variant_name = variant
        self._rules = dict(rules or {})
        # bad rules fail here, not at reset
        probe = (
            self._new_game(0) if self.loaded is not None else new_game(variant, 0, **self._rules)
        )
        self.seat_numbers: tuple[int, ...] = tuple(probe.seats)
        self.external = external
        self.opponents = opponents
        self.rewards_table = _rewards(rewards)
        self.language = language
        self.style: PromptStyle = style
        self.out = None if transcript is None else Path(transcript)
        self.desk = Desk(max_attempts)
        self.game: Game | None = None
        self.external_seats: tuple[int, ...] = ()
        self.record: GameRecord | None = None
        self.transcript_path: Path | None = None
        # per external seat: its rendered record and its history items as data
        self._memos: dict[int, tuple[RecordMemo, dict[int, dict[str, Any]]]] = {}
        self._running: concurrent.futures.Future[GameRecord] | None = None
        self._task: asyncio.Task[Any] | None = None
        self._loop = asyncio.new_event_loop()
        thread = threading.Thread(
            target=self._loop.run_forever, name="sandbox-stepped", daemon=True
        )
        thread.start()
        # A game left running (never closed, or at exit) is cancelled as
        # Ctrl-C cancels one: its agents closed, its transcript left resumable.
        self._shutdown = weakref.finalize(self, _shut_down, self._loop, thread)

    # ------------------------------------------------------------- playing
    def reset(self, seed: int | None = None) -> None:
        """Start a new game (the one in progress is stopped, its transcript left
        resumable) and run it until an external seat must answer or it ends."""
        self._stop()
        game = self._new_game(random_seed() if seed is None else seed)
        roles = dict(game.roles())
        external = tuple(s for s in game.seats if self._is_external(s, roles[s]))
        agents = self._agents(game, roles, set(external))
        writer = self._writer(game, agents, external)
        self.game, self.external_seats, self.record = game, external, None
        self.desk.answered.clear()
        self.transcript_path = writer.path if writer is not None else None
        self._memos = {s: (RecordMemo(), {}) for s in external}
        abort = self.loaded.file.run.abort_share if self.loaded is not None else 0.25
        running = asyncio.run_coroutine_threadsafe(
            self._play(game, agents, writer, abort), self._loop
        )
        running.add_done_callback(lambda _: self.desk.poke())
        self._running = running
        self._settle()

    def current_seat(self) -> int | None:
        """The external seat that must answer now (the lowest seat with an open
        question), or None once the game is over."""
        seats = self.desk.open_seats()
        return seats[0] if seats and not self.over else None

    def observation(self, seat: int | None = None) -> dict[str, Any]:
        """The observation of ``seat``'s open question (default: the current
        seat): :func:`sandbox.agents.observation.observe`, plus ``attempt``
        (answers already refused for it) and ``errors`` (the referee's reasons)."""
        seat = self._seat(seat)
        return self._on_loop(lambda: self._observe(seat))

    def step(self, answer: object, seat: int | None = None) -> Verdict:
        """Answer the open question of ``seat`` (default: the current seat) with
        the decision's JSON object (a mapping, or text holding it), or with an
        integer: the index of one of the observation's ``moves``. An answer the
        referee refuses returns its error and the same seat is asked again, up to
        the attempts allowed, then gets the fallback. Returns once an external
        seat must answer again or the game is over."""
        seat = self._seat(seat)
        verdict = self._on_loop(lambda: self._answer(seat, answer))
        if verdict.accepted or verdict.fallback:
            self._settle()
        return verdict

    # --------------------------------------------------------------- results
    @property
    def over(self) -> bool:
        return self._running is not None and self._running.done()

    @property
    def outcome(self) -> Outcome | None:
        return self.record.outcome if self.record is not None else None

    def rewards(self) -> dict[int, float]:
        """Each seat's reward once the game is over (empty before)."""
        if self.outcome is None:
            return {}
        table = self.rewards_table
        return {seat: table[str(r)] for seat, r in sorted(self.outcome.results.items())}

    def tallies(self) -> dict[int, SeatTally]:
        """Each external seat's decisions, fallbacks and answers so far (the
        silent-seat rule's input, ``sandbox.adapters.validity``)."""
        events = self.game.events if self.game is not None else []
        decisions = [
            {"seat": e.seat, "fallback": e.fallback, "fallback_reason": e.fallback_reason}
            for e in events
            if isinstance(e, DecisionMade)
        ]
        calls = [{"seat": seat, **record} for seat, record in self.desk.answered]
        found = tallies_from(decisions, calls)
        return {s: found.get(s, SeatTally()) for s in self.external_seats}

    def roles(self) -> dict[int, str]:
        """Each seat's role: the truth, for after the game (or for a referee)."""
        return dict(self.game.roles()) if self.game is not None else {}

    def sides(self) -> dict[int, str]:
        if self.game is None:
            return {}
        variant = self.game.variant
        return {seat: variant.research.side_of(role) for seat, role in self.roles().items()}

    def close(self) -> None:
        """Stop the game in progress (if any) and the loop's thread."""
        self._stop()
        self._shutdown()

    def __enter__(self) -> SteppedGame:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -------------------------------------------------------------- internal
    def _new_game(self, seed: int) -> Game:
        if self.loaded is not None:
            return Game.new(self.loaded.variant, self.loaded.game_config, seed)
        return new_game(self.variant_name, seed, **self._rules)

    def _is_external(self, seat: int, role: str) -> bool:
        if self.external is None:
            return True
        if callable(self.external):
            return bool(self.external(seat, role))
        return seat in self.external

    def _agents(self, game: Game, roles: Mapping[int, str], external: set[int]) -> dict[int, Agent]:
        agents: dict[int, Agent] = {}
        for seat, role in sorted(roles.items()):
            if seat in external:
                agent: Agent = ExternalSeat(self.desk, self.language)
            elif self.opponents is not None:
                agent = _opponent(self.opponents, seat, role)
            elif self.loaded is not None:
                agents[seat] = seat_agent(
                    self.loaded, spec_for(self.loaded, seat, role), seat, game.seed
                )
                continue
            else:
                agent = BaselineAgent()
            agent.attach(Seating(seat, game.seed, game.variant))
            agents[seat] = agent
        return agents

    def _writer(
        self, game: Game, agents: Mapping[int, Agent], external: tuple[int, ...]
    ) -> TranscriptWriter | None:
        if self.out is None:
            return None
        writer = TranscriptWriter(transcript_path(self.out, game.variant.name, game.seed))
        roles = dict(game.roles())
        # Played from Python: resume and fork ask for a game file naming every
        # seat's agent, since the external seats' code cannot be rebuilt.
        extra = {"played_from": PLAYED_FROM_PYTHON, "stepped": {"external": list(external)}}
        # Without a game file, the header's game file names the variant alone
        # (as the Python API's games do); game_config holds the rulings.
        loaded = self.loaded or LoadedConfig(
            GameFile(variant=game.variant.name), game.variant, game.config
        )
        with closed_on_error(writer):  # a refused header (full disk) keeps no lock behind
            writer.header(build_header(loaded, game.config, game.seed, roles, agents, extra))
        return writer

    async def _play(
        self, game: Game, agents: Mapping[int, Agent], writer: TranscriptWriter | None, abort: float
    ) -> GameRecord:
        self._task = asyncio.current_task()
        with writer or nullcontext():
            return await play_seated(game, agents, writer, abort_share=abort)

    def _settle(self) -> None:
        """Wait until an external seat has an open question or the game ended;
        an error of the game loop (an agent that raised) is raised here."""
        self.desk.wait_for(lambda: bool(self.desk.open_seats()) or self.over)
        running = self._running
        if running is not None and running.done():
            self.record = running.result()  # raises what the game loop raised

    def _seat(self, seat: int | None) -> int:
        if self._running is None:
            raise RuntimeError("no game in progress: call reset() first")
        if self.over:
            raise RuntimeError("the game is over: call reset() for another")
        if seat is None:
            current = self.current_seat()
            assert current is not None  # settled: a question is open
            return current
        if seat not in self.desk.open_seats():
            raise ValueError(f"seat {seat} has no open question; open: {self.desk.open_seats()}")
        return seat

    def _answer(self, seat: int, answer: object) -> Verdict:
        if not isinstance(answer, numbers.Integral) or isinstance(answer, bool):
            return self.desk.answer(seat, answer)
        ctx = self.desk.question(seat).ctx
        moves, _ = legal_moves(ctx.request, ctx.validate)
        index = int(answer)
        if 0 <= index < len(moves):
            return self.desk.answer(seat, moves[index])
        why = f"Move {index} is not one of the {len(moves)} legal moves (0..{len(moves) - 1})."
        return self.desk.answer(seat, index, refused=why)

    def _observe(self, seat: int) -> dict[str, Any]:
        question = self.desk.question(seat)
        memo, items = self._memos[seat]
        obs = observe(question.ctx, self.language, style=self.style, memo=memo, items=items)
        obs["attempt"] = question.attempts
        obs["errors"] = list(question.errors)
        return obs

    def _on_loop(self, work: Callable[[], T]) -> T:
        """Run ``work`` on the loop's thread, between the agents' steps: the
        game is only ever touched from there."""

        async def run() -> T:
            return work()

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result()

    def _stop(self) -> None:
        """Cancel the game in progress and wait until it has unwound (its agents
        closed, its transcript file closed), as Ctrl-C leaves a game."""
        running, self._running = self._running, None
        task, self._task = self._task, None
        if running is None or running.done() or task is None:
            return

        async def cancelled() -> None:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

        asyncio.run_coroutine_threadsafe(cancelled(), self._loop).result(timeout=30)


def _shut_down(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    """Cancel whatever still runs on ``loop``, wait for it to unwind, stop the
    loop and its thread."""
    if loop.is_closed():
        return

    async def cancel_all() -> None:
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    if thread.is_alive():
        with suppress(Exception):
            asyncio.run_coroutine_threadsafe(cancel_all(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
    if not loop.is_running():
        loop.close()


def _loaded(game_file: Path | str | LoadedConfig | None) -> LoadedConfig | None:
    if game_file is None or isinstance(game_file, LoadedConfig):
        return game_file
    return load_config(Path(game_file))


def _opponent(opponents: Opponents, seat: int, role: str) -> Agent:
    if callable(opponents):
        return opponents(seat, role)
    if seat not in opponents:
        raise AgentSetupError(f"no agent for seat {seat} (neither external nor in opponents)")
    return opponents[seat]


def _rewards(rewards: Mapping[str, float] | None) -> dict[str, float]:
    table = {**DEFAULT_REWARDS, **(rewards or {})}
    unknown = sorted(set(table) - set(DEFAULT_REWARDS))
    if unknown:
        raise ValueError(f"rewards: unknown result(s) {unknown}; known: win, draw, lose")
    return {k: float(v) for k, v in table.items()}
