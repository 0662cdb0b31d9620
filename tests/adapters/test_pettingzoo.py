"""The PettingZoo environments (``sandbox.adapters.pettingzoo``), checked by
PettingZoo's own test kit (``api_test``, ``seed_test``) for every variant,
then the encoding by hand: moves, masks, free text, refusals, rewards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")  # the envs extra (installed by make setup)

from pettingzoo.test import api_test, seed_test

from sandbox.adapters.pettingzoo import MOVES, SandboxAECEnv, env, envs, raw_env
from sandbox.session.replay import replay
from sandbox.transcript import read_transcript

VARIANTS = ["killer", "four_factions", "werewolf"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoos_api_test_passes(variant: str) -> None:
    e = env(variant, transcript=None)
    try:
        api_test(e, num_cycles=1000)
    finally:
        e.close()


@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoos_seed_test_passes(variant: str) -> None:
    made: list[SandboxAECEnv] = []

    def construct() -> object:
        made.append(raw_env(variant, transcript=None))
        return made[-1]

    try:
        seed_test(construct, num_cycles=200)
    finally:
        for e in made:
            e.close()


def test_every_installed_variant_has_an_environment() -> None:
    assert set(VARIANTS) <= set(envs())


def play(
    e: SandboxAECEnv, choose: object, ends: dict[str, dict[str, Any]] | None = None
) -> dict[str, float]:
    """Play to the end; the rewards each agent was given, summed (``ends``:
    each agent's last info, filled in)."""
    total: dict[str, float] = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        total[agent] = total.get(agent, 0.0) + float(reward)
        if terminated or truncated:
            if ends is not None:
                ends[agent] = dict(info)
            e.step(None)
        else:
            e.step(choose(agent, obs, info))  # type: ignore[operator]
    return total


def test_moves_masks_and_the_final_rewards(tmp_path: Path) -> None:
    e = raw_env("killer", transcript=str(tmp_path), rewards={"win": 3.0, "lose": -0.5})
    e.reset(seed=12)
    obs, _, _, _, info = e.last()
    full = info["observation"]
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].shape == (MOVES,)
    assert int(obs["action_mask"].sum()) == len(full["moves"]) > 0
    assert obs["text"].startswith(full["prompt"]["system"])
    assert obs["text"].endswith(full["prompt"]["user"])
    others = [a for a in e.agents if a != e.agent_selection]
    assert e.observe(others[0])["text"] == "" and not e.observe(others[0])["action_mask"].any()

    def first_move(agent: str, obs: dict, info: dict) -> int:
        return int(np.flatnonzero(obs["action_mask"])[0])

    ends: dict[str, dict[str, Any]] = {}
    total = play(e, first_move, ends)
    results = e.stepped.outcome.results  # type: ignore[union-attr]
    table = {"win": 3.0, "lose": -0.5, "draw": 0.0}
    assert total == {f"seat_{s}": table[r] for s, r in results.items()}
    # every move was legal: no seat is silent, each result stands
    assert set(ends) == set(total)
    assert all(i["invalid"] is False and i["invalid_reason"] == "" for i in ends.values())
    assert all(i["valid_answer_rate"] == 1.0 and i["fallbacks"] == 0 for i in ends.values())
    assert e.agents == []
    path = e.transcript_path
    e.close()
    assert path is not None and replay(path) is None


def test_a_refused_action_is_asked_again_with_the_error_then_falls_back() -> None:
    e = raw_env("four_factions", transcript=None, max_attempts=2)
    e.reset(seed=3)
    agent = e.agent_selection
    e.step(MOVES - 1)  # never a move: the mask is zero there
    obs, _, _, _, info = e.last()
    assert e.agent_selection == agent
    moves = len(info["observation"]["moves"])
    assert info["errors"] == [
        f"Move {MOVES - 1} is not one of the {moves} legal moves (0..{moves - 1})."
    ]
    assert info["errors"][0] in obs["text"]  # as the LLM seat's repair message
    request_id = info["observation"]["request"]["id"]
    e.step("no json here")  # the second and last attempt: the fallback
    game = e.stepped.game
    assert game is not None
    made = [ev for ev in game.events if getattr(ev, "request_id", None) == request_id]
    if made:  # a sealed step records its answers when it resolves
        assert made[0].fallback and made[0].fallback_reason == "invalid"  # type: ignore[attr-defined]
    asked = e.infos[e.agent_selection].get("observation", {})
    assert asked.get("request", {}).get("id") != request_id  # the seat was not asked again
    e.close()


def test_free_text_goes_as_a_json_answer(tmp_path: Path) -> None:
    e = raw_env("killer", transcript=str(tmp_path))
    e.reset(seed=2)
    said = "I am a civilian; seat 3 worries me."

    def speak(agent: str, obs: dict, info: dict) -> object:
        full = info["observation"]
        move = full["moves"][0]
        if "speech" in move:
            return json.dumps({**move, "speech": said, "reasoning": "private"})
        return int(np.flatnonzero(obs["action_mask"])[0])

    play(e, speak)
    path = e.transcript_path
    e.close()
    assert path is not None
    speeches = [ev for ev in read_transcript(path).events if getattr(ev, "text", None) == said]
    assert speeches, "the free text was said in the game"


def test_only_the_selected_seats_are_agents() -> None:
    e = raw_env("werewolf", external=[2, 5], transcript=None)
    assert e.possible_agents == ["seat_2", "seat_5"]
    e.reset(seed=4)
    assert e.agents == ["seat_2", "seat_5"] and e.agent_selection in e.agents
    e.close()
