"""One game as an RL episode: the seats a trained model plays, their chats,
their tallies and the reward, shared by the verifiers and OpenEnv adapters.

The model plays one seat (``seat``, else one drawn from the game's seed, so
every role comes up) or every seat of one side (``side``: self-play); the
other seats are ``opponents`` (see :func:`opponent_factory`). Each played
seat has its own chat (``sandbox.adapters.chat``: the sandbox's own prompt,
the seat's legal view through the templates); an answer is judged by the
referee through the stepping interface, so a refused answer gets the repair
message and, after the attempts allowed, the recorded fallback.

The reward of an episode (:meth:`Episode.reward`), averaged over the played
seats::

    result * R[seat's result] - invalid * refused/answers - fallback * fallbacks/decisions

``R`` is the stepping interface's table (win 1, draw 0, lose -1); a seat that
fell back on more than 25 % of its decisions (``sandbox.adapters.validity``)
has its result counted at most as a draw: its side's win is not its own. The
default weights (``RewardWeights``) make silence never pay: a seat that fell
back on every decision scores ``R - 0.5 - 2.0``, at most -1.5, below a seat
that answered every decision validly and lost (-1). A refused answer that was
then repaired costs little (the decision was still the model's), a fallback
much more (the referee played for it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sandbox import Agent, BaselineAgent, LLMAgent, RandomAgent, new_game
from sandbox.adapters.chat import SeatChats
from sandbox.adapters.step import DEFAULT_ATTEMPTS, External, SteppedGame
from sandbox.adapters.validity import SeatTally, invalid_reason
from sandbox.core.seat import FALLBACK_INVALID

FAKE = "fake"
FAKE_LEGAL = "fake/legal-random"
BOTS = ("baseline", "random")


@dataclass(frozen=True)
class RewardWeights:
    """The weights of the reward's three parts (see the module docstring)."""

    result: float = 1.0
    invalid: float = 0.5
    fallback: float = 2.0


@dataclass
class Tally:
    """One played seat's answers: given, refused (repaired or not), and the
    decisions it was asked and those that fell back."""

    answers: int = 0
    refused: int = 0
    decisions: int = 0
    fallbacks: int = 0

    @property
    def invalid_share(self) -> float:
        return self.refused / self.answers if self.answers else 0.0

    @property
    def fallback_share(self) -> float:
        return self.fallbacks / self.decisions if self.decisions else 0.0

    @property
    def valid_answer_rate(self) -> float:
        return 1.0 - self.invalid_share if self.answers else 0.0

    @property
    def invalid(self) -> bool:
        """The silent-seat rule (``sandbox.adapters.validity``): more than 25 %
        of the seat's decisions fell back, so its result is not the model's."""
        seat = SeatTally(self.decisions, {FALLBACK_INVALID: self.fallbacks}, self.answers)
        return invalid_reason(seat) is not None


def opponent_factory(
    opponents: str | Sequence[str], api_base: str | None = None
) -> Callable[[int, str], Agent]:
    """The agents of the seats the model does not play, dealt round robin by
    seat from the entries (a comma-separated string or a list): ``baseline``
    (the variant's bot), ``random``, ``fake`` (the built-in fake model,
    answering legally), ``fake/<policy>``, or any model string for an LLM
    seat (``api_base``: its OpenAI-compatible server, e.g. ``sandbox fake-llm``)."""
    entries = (
        [e.strip() for e in opponents.split(",")]
        if isinstance(opponents, str)
        else [str(e).strip() for e in opponents]
    )
    if not entries or not all(entries):
        raise ValueError(f"opponents: an empty entry in {opponents!r}")

    def build(seat: int, role: str) -> Agent:
        entry = entries[(seat - 1) % len(entries)]
        if entry == "baseline":
            return BaselineAgent()
        if entry == "random":
            return RandomAgent()
        model = FAKE_LEGAL if entry == FAKE else entry
        base = None if model.startswith("fake/") else api_base
        return LLMAgent(model, api_base=base)

    return build


@dataclass
class Episode:
    """One game at a time of ``variant``, played by a model from outside."""

    variant: str
    seat: int | None = None
    side: str | None = None
    opponents: str | Sequence[str] = "baseline"
    opponents_api_base: str | None = None
    rules: Mapping[str, Any] = field(default_factory=dict)
    max_attempts: int = DEFAULT_ATTEMPTS
    rewards: Mapping[str, float] | None = None
    weights: RewardWeights = field(default_factory=RewardWeights)
    language: str = "en"
    transcripts: str | Path | None = "transcripts"

    def __post_init__(self) -> None:
        probe = new_game(self.variant, 0, **dict(self.rules))  # bad rulings fail here
        self.seat_numbers = tuple(probe.seats)
        if self.seat is not None and self.seat not in self.seat_numbers:
            raise ValueError(f"seat {self.seat}: the game's seats are {list(self.seat_numbers)}")
        if self.side is not None and self.seat is not None:
            raise ValueError("give a seat or a side, not both")
        sides = tuple(probe.variant.info.sides)
        if self.side is not None and self.side not in sides:
            raise ValueError(f"side {self.side!r}: the sides of {self.variant} are {list(sides)}")
        side_of = probe.variant.research.side_of
        self._side_of = side_of
        self._chosen: int | None = None
        external: External = (
            (lambda s, role: side_of(role) == self.side)
            if self.side is not None
            else (lambda s, role: s == self._chosen)
        )
        self.stepped = SteppedGame(
            self.variant,
            rules=self.rules,
            external=external,
            opponents=opponent_factory(self.opponents, self.opponents_api_base),
            max_attempts=self.max_attempts,
            rewards=self.rewards,
            language=self.language,
            transcript=self.transcripts,
        )
        self.chats: dict[int, list[dict[str, str]]] = {}
        self.tallies: dict[int, Tally] = {}
        self._seat_chats = SeatChats(self.language)
        self.first_seat: int | None = None

    # ------------------------------------------------------------- playing
    def start(self, seed: int) -> int | None:
        """Deal a new game and run it until a played seat must answer; that
        seat (its chat holds the question), or None if the game ended first."""
        self._chosen = self.seat or random.Random(seed).choice(self.seat_numbers)
        self.stepped.reset(seed)
        if self.side is not None and not self.stepped.external_seats:
            raise ValueError(f"side {self.side!r}: no seat of this game is on it")
        self.chats = {s: [] for s in self.stepped.external_seats}
        self.tallies = {s: Tally() for s in self.stepped.external_seats}
        self._seat_chats.reset()
        self.first_seat = self.current_seat
        self._ask()
        return self.current_seat

    @property
    def current_seat(self) -> int | None:
        return self.stepped.current_seat()

    @property
    def over(self) -> bool:
        return self.stepped.over

    def answer(self, text: str) -> int | None:
        """The current seat's answer: judged, written into its chat (with the
        referee's repair or fallback note when refused); then the game runs
        on. The seat that must answer next, or None once the game is over."""
        seat = self.current_seat
        if seat is None:
            raise RuntimeError("no question is open: the game is over (or not started)")
        tally = self.tallies[seat]
        if not self.stepped.desk.question(seat).attempts:  # a new decision, not a retry
            tally.decisions += 1
        self.chats[seat].append({"role": "assistant", "content": text})
        verdict = self.stepped.step(text, seat)
        tally.answers += 1
        if not verdict.accepted:
            tally.refused += 1
            tally.fallbacks += int(verdict.fallback)
            note = self._seat_chats.verdict(verdict)
            assert note is not None  # refused: the repair or the fallback note
            self.chats[seat].append(note.as_dict())
        self._ask()
        return self.current_seat

    def close(self) -> None:
        self.stepped.close()

    # -------------------------------------------------------------- results
    def reward(self) -> float:
        """The episode's reward (0 before the game ends)."""
        parts = self.reward_parts()
        w = self.weights
        return (
            w.result * parts["result"]
            - w.invalid * parts["invalid"]
            - w.fallback * parts["fallback"]
        )

    def reward_parts(self) -> dict[str, float]:
        """The reward's parts, each averaged over the played seats: the game
        result's reward, the share of refused answers, the share of fallbacks."""
        seats = sorted(self.tallies)
        if not seats or not self.over:
            return {"result": 0.0, "invalid": 0.0, "fallback": 0.0}
        rewards = self.stepped.rewards()
        n = len(seats)
        # A silent seat's side may win without it: that win is never its own.
        result = [min(rewards[s], 0.0) if self.tallies[s].invalid else rewards[s] for s in seats]
        return {
            "result": sum(result) / n,
            "invalid": sum(self.tallies[s].invalid_share for s in seats) / n,
            "fallback": sum(self.tallies[s].fallback_share for s in seats) / n,
        }

    def summary(self) -> dict[str, Any]:
        """The episode as plain data: the played seats with their role, side,
        result and tally, the ending, the reward and its parts, the transcript."""
        outcome = self.stepped.outcome
        roles, sides = self.stepped.roles(), self.stepped.sides()
        path = self.stepped.transcript_path
        return {
            "variant": self.variant,
            "seed": self.stepped.game.seed if self.stepped.game is not None else None,
            "seats": {
                str(s): {
                    "role": roles.get(s),
                    "side": sides.get(s),
                    "result": outcome.results.get(s) if outcome else None,
                    **asdict(t),
                    "valid_answer_rate": t.valid_answer_rate,
                    "invalid": t.invalid,
                }
                for s, t in sorted(self.tallies.items())
            },
            "outcome": outcome.reason if outcome else None,
            "reward": self.reward(),
            "reward_parts": self.reward_parts(),
            "transcript": str(path) if path is not None else None,
        }

    # -------------------------------------------------------------- internal
    def _ask(self) -> None:
        seat = self.current_seat
        if seat is not None:
            messages = self._seat_chats.question(self.stepped, seat)
            self.chats[seat].extend(m.as_dict() for m in messages)
