"""verifiers: a multi-turn environment per variant (the ``rl`` extra), run by
verifiers' own ``vf-eval`` (docs/frameworks.md, "verifiers")::

    vf-eval sandbox.adapters.rl.verifiers_env -a '{"variant": "killer"}' \\
        -m fake-legal-random -b http://127.0.0.1:8000/v1 -k FAKE_KEY -n 2 -r 1

Each dataset row is one game (its seed in ``info``); a rollout plays it to
the end (:class:`~sandbox.adapters.rl.episode.Episode`): the model answers
for one seat (or every seat of a ``side``) against the ``opponents``, each
turn the seat's own chat with the sandbox's prompt. With several seats the
rollout is non-linear: each turn's prompt is the acting seat's chat, and the
rollout's ``completion`` is the chat of the seat that was asked first.

The rubric's reward is the episode's (``result``, ``invalid_answers``,
``fallbacks`` weighted by ``RewardWeights``); ``valid_answer_rate``,
``fallback_count``, ``refused_count``, ``decisions``, ``invalid_seats`` and
``won`` are metrics (weight 0). ``state["sandbox"]`` holds the episode's summary (seats,
roles, results, tallies, reward parts and the transcript's path); pass
``--state-columns sandbox`` to keep it in saved results.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from sandbox.adapters.extras import missing_extra

try:
    import verifiers as vf
    from datasets import Dataset
except ImportError as err:  # the rl extra is optional: say which one
    raise missing_extra(__name__, "verifiers", "rl", err) from err

from sandbox.adapters.rl.episode import Episode, RewardWeights
from sandbox.adapters.step import DEFAULT_ATTEMPTS

EVAL_SEEDS = 1_000_000  # eval games are dealt from seeds apart from the training games'
STATE_KEY = "sandbox"
_EPISODE = "sandbox_episode"  # the live episode, taken out of the state at cleanup


def dataset(variant: str, games: int, first_seed: int = 0) -> Dataset:
    """One row per game: a placeholder prompt (the game's own replaces it at
    setup) and the game's seed in ``info``."""
    return Dataset.from_list(
        [
            {
                "prompt": [{"role": "user", "content": f"{variant} game, seed {seed}"}],
                "answer": "",
                "info": {"seed": seed, "variant": variant},
                "task": variant,
            }
            for seed in range(first_seed, first_seed + games)
        ]
    )


class SandboxEnv(vf.MultiTurnEnv):  # type: ignore[misc]
    """The games of one variant as a verifiers multi-turn environment."""

    def __init__(self, variant: str, *, episode: Mapping[str, Any], **kwargs: Any) -> None:
        self.variant = variant
        self.episode_options = dict(episode)
        Episode(variant, **self.episode_options).close()  # bad options fail at load time
        super().__init__(**kwargs)

    async def setup_state(self, state: vf.State, **kwargs: Any) -> vf.State:
        episode = Episode(self.variant, **self.episode_options)
        state[_EPISODE] = episode
        seat = await asyncio.to_thread(episode.start, int(state["info"]["seed"]))
        if seat is None:  # over before any played seat was asked (never in practice)
            state[STATE_KEY] = episode.summary()
            state["final_env_response"] = [vf.UserMessage(content="The game is over.")]
            return state
        state["prompt"] = _messages(episode.chats[seat])
        return state

    async def get_prompt_messages(self, state: vf.State) -> vf.Messages:
        episode: Episode = state[_EPISODE]
        if state["trajectory"]:
            text = self.parser.parse_answer(state["trajectory"][-1]["completion"]) or ""
            await asyncio.to_thread(episode.answer, text)
        seat = episode.current_seat
        if seat is None:
            summary = episode.summary()
            state[STATE_KEY] = summary
            ending = f"The game is over ({summary['outcome']}); reward {summary['reward']:.3f}."
            state["final_env_response"] = [vf.UserMessage(content=ending)]
            return list(state["prompt"])
        return _messages(episode.chats[seat])

    async def env_response(self, messages: vf.Messages, state: vf.State, **kwargs: Any) -> Any:
        raise NotImplementedError("get_prompt_messages builds each seat's chat")  # never called

    async def render_completion(self, state: vf.State) -> None:
        episode: Episode | None = state.get(_EPISODE)
        if episode is None or episode.first_seat is None:
            state["completion"] = []
            return
        chat = _messages(episode.chats[episode.first_seat])
        final = list(state.get("final_env_response") or [])
        state["completion"] = chat[len(state["prompt"]) :] + final

    @vf.cleanup  # type: ignore[untyped-decorator]
    async def close_episode(self, state: vf.State) -> None:
        episode: Episode | None = state.pop(_EPISODE, None)
        if episode is not None:
            state.setdefault(STATE_KEY, episode.summary())  # a rollout cut short too
            await asyncio.to_thread(episode.close)


def _messages(chat: Sequence[Mapping[str, str]]) -> list[Any]:
    kinds = {"system": vf.SystemMessage, "user": vf.UserMessage, "assistant": vf.AssistantMessage}
    return [kinds[m["role"]](content=m["content"]) for m in chat]


def _summary(state: Mapping[str, Any]) -> Mapping[str, Any]:
    found: Mapping[str, Any] = state.get(STATE_KEY) or {}
    return found


async def result(state: vf.State) -> float:
    """The game result's reward of the played seats (win 1, draw 0, lose -1)."""
    return float(_summary(state).get("reward_parts", {}).get("result", 0.0))


async def invalid_answers(state: vf.State) -> float:
    """The share of the played seats' answers the referee refused."""
    return float(_summary(state).get("reward_parts", {}).get("invalid", 0.0))


async def fallbacks(state: vf.State) -> float:
    """The share of the played seats' decisions that fell back."""
    return float(_summary(state).get("reward_parts", {}).get("fallback", 0.0))


def _seats(state: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(_summary(state).get("seats", {}).values())


async def valid_answer_rate(state: vf.State) -> float:
    seats = _seats(state)
    answers = sum(s["answers"] for s in seats)
    return 1.0 - sum(s["refused"] for s in seats) / answers if answers else 0.0


async def fallback_count(state: vf.State) -> float:
    return float(sum(s["fallbacks"] for s in _seats(state)))


async def refused_count(state: vf.State) -> float:
    return float(sum(s["refused"] for s in _seats(state)))


async def decisions(state: vf.State) -> float:
    return float(sum(s["decisions"] for s in _seats(state)))


async def invalid_seats(state: vf.State) -> float:
    """Played seats that fell back on more than 25 % of their decisions
    (``sandbox.adapters.validity``): their result counted at most as a draw."""
    return float(sum(1 for s in _seats(state) if s.get("invalid")))


async def won(state: vf.State) -> float:
    seats = _seats(state)
    return float(bool(seats) and all(s["result"] == "win" for s in seats))


def rubric(weights: RewardWeights) -> vf.Rubric:
    """The reward: ``result`` minus the weighted shares of refused answers and
    fallbacks (``RewardWeights``); the rest are metrics."""
    funcs = [result, invalid_answers, fallbacks]
    scored = [weights.result, -weights.invalid, -weights.fallback]
    metrics = [valid_answer_rate, fallback_count, refused_count, decisions, invalid_seats, won]
    return vf.Rubric(funcs=[*funcs, *metrics], weights=[*scored, *[0.0] * len(metrics)])


def load_environment(
    variant: str,
    *,
    seat: int | None = None,
    side: str | None = None,
    opponents: str | list[str] = "baseline",
    opponents_api_base: str | None = None,
    rules: Mapping[str, Any] | None = None,
    games: int = 100,
    eval_games: int = 20,
    max_attempts: int = DEFAULT_ATTEMPTS,
    rewards: Mapping[str, float] | None = None,
    result_weight: float = RewardWeights.result,
    invalid_weight: float = RewardWeights.invalid,
    fallback_weight: float = RewardWeights.fallback,
    language: str = "en",
    transcripts: str | None = "transcripts",
    **kwargs: Any,
) -> SandboxEnv:
    """verifiers' entry point (``vf-eval``'s ``-a`` JSON gives these
    arguments). ``games``/``eval_games``: the training and evaluation games
    (seeds ``0..games-1`` and from ``EVAL_SEEDS``); ``seat`` or ``side``: who
    the model plays (default: one seat drawn from each game's seed);
    ``opponents``: the other seats (``baseline``, ``random``, ``fake``,
    ``fake/<policy>`` or a model string, round robin; ``opponents_api_base``
    for the model's server); ``rewards``: the result table (win/draw/lose);
    the three weights: the reward's parts (defaults: docs/frameworks.md);
    ``transcripts``: the folder of each rollout's transcript (None: none)."""
    weights = RewardWeights(result_weight, invalid_weight, fallback_weight)
    episode = {
        "seat": seat,
        "side": side,
        "opponents": opponents,
        "opponents_api_base": opponents_api_base,
        "rules": dict(rules or {}),
        "max_attempts": max_attempts,
        "rewards": rewards,
        "weights": weights,
        "language": language,
        "transcripts": transcripts,
    }
    return SandboxEnv(
        variant,
        episode=episode,
        dataset=dataset(variant, games),
        eval_dataset=dataset(variant, eval_games, EVAL_SEEDS),
        rubric=rubric(weights),
        **kwargs,
    )
