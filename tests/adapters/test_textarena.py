"""The TextArena environments (``sandbox.adapters.textarena``): registered in
TextArena's own registry, made with ``ta.make``, played by TextArena's loop
with its LLM observation wrapper and agents written as ``ta.Agent``s."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

ta = pytest.importorskip("textarena")  # the envs extra (installed by make setup)

from sandbox.adapters import textarena as adapter  # noqa: E402
from sandbox.core.errors import ConfigError  # noqa: E402
from sandbox.session.replay import replay  # noqa: E402
from sandbox.transcript import read_transcript  # noqa: E402

IDS = {"killer": "Killer-v0", "four_factions": "FourFactions-v0", "werewolf": "Werewolf-v0"}
SEATS = {"killer": 12, "four_factions": 16, "werewolf": 8}


class RandomLegal(ta.Agent):  # type: ignore[misc]
    """Reads the answer's JSON schema from the end of the observation (the
    format an LLM seat without structured output is given) and draws legal
    values for it: one option of each choice, a few of each list, empty text."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, observation: str) -> str:
        schema = last_schema(observation)
        answer: dict[str, Any] = {}
        for name, prop in schema["properties"].items():
            answer[name] = self._draw(prop)
        answer["reasoning"] = "random"
        return json.dumps(answer)

    def _draw(self, prop: dict[str, Any]) -> Any:
        if "enum" in prop:
            return self.rng.choice(prop["enum"])
        if "anyOf" in prop:
            options = [v for p in prop["anyOf"] for v in p.get("enum", [None])]
            return self.rng.choice(options)
        if prop.get("type") == "array":
            pool = prop["items"]["enum"]
            return self.rng.sample(pool, self.rng.randint(0, min(1, len(pool))))
        return ""


def last_schema(observation: str) -> dict[str, Any]:
    """The last JSON schema in the text (after a refusal, the repair follows it)."""
    for line in reversed(observation.splitlines()):
        if line.startswith('{"') and '"properties"' in line:
            found: dict[str, Any] = json.loads(line)
            return found
    raise AssertionError("no answer schema in the observation")


class Garbage(ta.Agent):  # type: ignore[misc]
    def __call__(self, observation: str) -> str:
        return "I refuse to answer in JSON, ha ha."


def loop(env_id: str, players: int, agent: Any, seed: int, **kwargs: Any) -> tuple[Any, Any]:
    """TextArena's own loop, as its README gives it."""
    env = ta.make(env_id, **kwargs)
    agents = {pid: agent(pid) for pid in range(players)}
    env.reset(num_players=players, seed=seed)
    done = False
    turns = 0
    while not done:
        player_id, observation = env.get_observation()
        assert isinstance(observation, str)  # the LLM observation wrapper's string
        done, _info = env.step(action=agents[player_id](observation))
        turns += 1
    rewards, game_info = env.close()
    assert turns > players
    return rewards, game_info


def test_importing_registers_an_id_per_variant_in_textarenas_registry() -> None:
    from textarena.envs.registration import ENV_REGISTRY

    assert set(IDS.values()) <= set(adapter.ENV_IDS)
    for ident in IDS.values():
        for suffix in ("", "-train", "-raw"):
            assert ident + suffix in ENV_REGISTRY
    assert adapter.register() == adapter.ENV_IDS  # registering twice changes nothing
    wrapped = ta.make("Killer-v0", transcript=None)
    assert isinstance(wrapped, ta.wrappers.LLMObservationWrapper)
    assert isinstance(ta.make("Killer-v0-raw", transcript=None), adapter.SandboxTextArenaEnv)


@pytest.mark.parametrize("variant", list(IDS))
def test_a_random_legal_agent_finishes_with_a_reward_for_every_seat(
    variant: str, tmp_path: Any
) -> None:
    players = SEATS[variant]
    rewards, info = loop(IDS[variant], players, RandomLegal, 5, transcript=str(tmp_path))
    assert sorted(rewards) == list(range(players))
    table = {"win": 1.0, "draw": 0.0, "lose": -1.0}
    assert all(rewards[pid] == table[info[pid]["result"]] for pid in rewards)
    assert [info[pid]["seat"] for pid in range(players)] == list(range(1, players + 1))
    paths = {info[pid]["transcript"] for pid in range(players)}
    assert len(paths) == 1
    path = Path(paths.pop())
    transcript = read_transcript(path)
    assert replay(path) is None
    roles = transcript.header["roles"]
    assert all(info[pid]["role"] == roles[str(pid + 1)] for pid in range(players))
    assert transcript.outcome is not None
    assert all(info[pid]["outcome"] == transcript.outcome["reason"] for pid in range(players))
    # schema-legal answers (some refused by the rules): each seat answered
    assert all(0.0 < info[pid]["valid_answer_rate"] <= 1.0 for pid in range(players))
    assert all(info[pid]["invalid"] == bool(info[pid]["invalid_reason"]) for pid in range(players))


@pytest.mark.parametrize("variant", list(IDS))
def test_an_agent_that_answers_garbage_finishes_with_recorded_fallbacks(
    variant: str, tmp_path: Any
) -> None:
    players = SEATS[variant]
    # a short day limit: with every answer refused, nobody acts and the limit ends it
    rules = {"day_limit": 3}
    rewards, info = loop(
        IDS[variant], players, lambda pid: Garbage(), 2, transcript=str(tmp_path), **rules
    )
    assert sorted(rewards) == list(range(players))
    path = Path(info[0]["transcript"])
    decisions = [e for e in read_transcript(path).events if e.kind == "core.decision"]
    assert decisions and all(
        e.fallback and e.fallback_reason == "invalid"  # type: ignore[attr-defined]
        for e in decisions
    )
    assert replay(path) is None
    asked = {e.seat for e in decisions}  # type: ignore[attr-defined]
    for pid in range(players):
        if pid + 1 in asked:
            assert info[pid]["invalid_move"] and info[pid]["invalid_moves"] >= 3
            # a silent seat: its result is marked as not the model's
            assert info[pid]["invalid"] and "fell back" in info[pid]["invalid_reason"]
            assert info[pid]["valid_answer_rate"] == 0.0
            mine = [e for e in decisions if e.seat == pid + 1]  # type: ignore[attr-defined]
            assert info[pid]["fallbacks"] == len(mine)


def test_rulings_are_keyword_arguments_and_the_seat_count_must_match() -> None:
    env = ta.make("Killer-v0-raw", players=13, transcript=None)
    with pytest.raises(ValueError, match=r"13 seats are played from outside.*num_players=13"):
        env.reset(num_players=12)
    env.close()
    env = ta.make("Killer-v0-raw", transcript=None)
    env.reset(num_players=14, seed=1)  # no players ruling given: TextArena's count sets it
    assert env.stepped is not None and len(env.stepped.roles()) == 14
    env.close()
    with pytest.raises(ConfigError, match="KG-1"):
        ta.make("Killer-v0", players=3, transcript=None)  # the variant's own check


def test_a_players_first_message_is_the_system_text_then_only_new_lines() -> None:
    env = ta.make("FourFactions-v0-raw", transcript=None)
    env.reset(num_players=16, seed=4)
    pid, messages = env.get_observation()
    kinds = [kind for _, _, kind in messages]
    assert kinds[0] == ta.ObservationType.PROMPT and kinds[1:] == [ta.ObservationType.GAME_MESSAGE]
    system = env.stepped.observation()["prompt"]["system"]
    assert messages[0][1] == system
    first_question = messages[1][1]
    assert "JSON schema" in first_question
    env.step(action="{}")  # refused: the referee's error comes back to the same player
    again, refusal = env.get_observation()
    assert again == pid
    assert [kind for _, _, kind in refusal] == [
        ta.ObservationType.PLAYER_ACTION,
        ta.ObservationType.GAME_ADMIN,
    ]
    assert "Missing field" in refusal[1][1]
    env.close()


def test_fallbacks_is_in_every_players_game_info_zero_included() -> None:
    """The documented ``fallbacks`` key is there for a player that never fell
    back (0), and counts the decisions that did."""
    _, info = loop("Killer-v0", 12, RandomLegal, 3, transcript=None)
    assert all(info[pid]["fallbacks"] == 0 for pid in range(12))
    _, info = loop("Killer-v0", 12, lambda pid: Garbage(), 2, transcript=None, day_limit=1)
    assert all("fallbacks" in info[pid] for pid in range(12))
    assert any(info[pid]["fallbacks"] > 0 for pid in range(12))
