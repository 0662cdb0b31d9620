"""The Python API (sandbox/__init__.py): new_game, play/play_sync, agents with plain
constructors, the result object, typed transcripts; the README example as a doctest."""

from __future__ import annotations

import asyncio
import doctest
import re
from pathlib import Path
from typing import Any

import pytest

import sandbox
from sandbox import (
    Agent,
    AgentAnswer,
    AgentSetupError,
    BaselineAgent,
    DecisionContext,
    LLMAgent,
    RandomAgent,
    ScriptedAgent,
    load_transcript,
    new_game,
    play,
    play_sync,
)
from sandbox.core.errors import ConfigError
from sandbox.games.registry import get_variant
from sandbox.models.fake import FakeLLMServer
from sandbox.transcript import CallRecord, OutcomeRecord, TranscriptError, TranscriptHeader

ROOT = Path(__file__).resolve().parents[2]


def readme_example() -> str:
    """The README's Python block (the one with doctest prompts)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    doctests = [b for b in blocks if b.lstrip().startswith(">>>")]
    assert len(doctests) == 1, "the README should hold exactly one doctest block"
    return doctests[0]


def run_doctest(source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # its transcript goes into tmp_path/transcripts
    parser = doctest.DocTestParser()
    test = parser.get_doctest(source, {}, "README", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 5 and result.failed == 0


def test_readme_example_runs_as_a_doctest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_doctest(readme_example(), tmp_path, monkeypatch)
    (path,) = (tmp_path / "transcripts").glob("killer-*.jsonl")
    assert load_transcript(path).finished


async def test_readme_example_runs_inside_a_running_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A notebook cell runs inside a loop: asyncio.run would refuse; play_sync must not."""
    asyncio.get_running_loop()  # this test body runs in one
    run_doctest(readme_example(), tmp_path, monkeypatch)


def test_module_docstring_example_runs() -> None:
    import sandbox.session.api

    failed, attempted = doctest.testmod(sandbox.session.api, optionflags=doctest.ELLIPSIS)[:2]
    assert attempted >= 3 and failed == 0


def test_public_names_resolve_and_are_listed() -> None:
    for name in sandbox.__all__:
        assert getattr(sandbox, name) is not None
    with pytest.raises(AttributeError):
        sandbox.no_such_name  # noqa: B018


def test_result_by_role_and_seat_agree_with_the_outcome() -> None:
    game = new_game("killer", seed=11, players=12)
    result = play_sync(game, lambda seat, role: BaselineAgent(), transcript=None)
    assert result.outcome is not None and result.transcript_path is None
    assert result.by_seat() == dict(sorted(result.outcome.results.items()))
    for seat, role in result.roles.items():
        assert result.by_role()[role] == result.by_seat()[seat]
    assert set(result.by_role()) == {"killer", "police", "civilian"}
    assert result.stats.decisions > 0


def test_api_game_equals_the_same_game_from_a_game_file(tmp_path: Path) -> None:
    """Agents built from plain constructors with no seed play exactly as a game file's
    baseline seats do (seeds derived from the game seed and the seat)."""
    from sandbox.session import play_game
    from sandbox.session.gamefile import parse_config

    loaded = parse_config({"variant": "killer", "rules": {"players": 11}})
    record = play_game(loaded, 5, tmp_path / "file")
    api = play_sync(
        new_game("killer", seed=5, players=11), lambda s, r: BaselineAgent(), tmp_path / "api"
    )
    assert record.path is not None and api.transcript_path is not None
    from_file = [e.to_json() for e in load_transcript(record.path).events]
    from_api = [e.to_json() for e in load_transcript(api.transcript_path).events]
    assert len(from_file) > 20 and from_file == from_api
    assert record.outcome == api.outcome


def test_transcript_is_typed_and_complete(tmp_path: Path) -> None:
    game = new_game("four_factions", seed=2)
    result = play_sync(game, lambda seat, role: RandomAgent(), transcript=tmp_path)
    assert result.transcript_path is not None and result.transcript_path.parent == tmp_path
    log = load_transcript(result.transcript_path)
    assert isinstance(log.header, TranscriptHeader) and log.header.seed == 2
    assert log.header.roles == result.roles
    assert isinstance(log.outcome, OutcomeRecord)
    assert log.outcome.results == result.outcome.results  # type: ignore[union-attr]
    assert [e.to_json() for e in log.events] == [e.to_json() for e in game.events]
    assert len(log.visibility) == len(log.events)


def test_bad_input_is_one_clear_error() -> None:
    with pytest.raises(ConfigError, match="unknown variant 'chess'"):
        new_game("chess")
    with pytest.raises(ConfigError, match="players"):
        new_game("killer", players=99)
    game = new_game("killer", seed=1, players=11)
    with pytest.raises(AgentSetupError, match="no agent for seat"):
        play_sync(game, {1: RandomAgent()})
    shared = RandomAgent()
    with pytest.raises(AgentSetupError, match="two seats"):
        play_sync(game, dict.fromkeys(game.seats, shared))
    with pytest.raises(AgentSetupError, match="temperature"):
        LLMAgent("fake/legal-random", temperature=9)
    with pytest.raises(AgentSetupError, match="unknown fake policy"):
        LLMAgent("fake/nonexistent")


class Exploding(Agent):
    kind = "exploding"

    def __init__(self) -> None:
        self.closed = False

    async def decide(self, ctx: DecisionContext) -> AgentAnswer:
        raise RuntimeError("boom")

    async def close(self) -> None:
        self.closed = True


async def test_play_closes_every_agent_whatever_happens() -> None:
    game = new_game("killer", seed=3, players=11)
    agents: dict[int, Agent] = {s: Exploding() for s in game.seats}
    with pytest.raises(RuntimeError, match="boom"):
        await play(game, agents, transcript=None)
    assert all(a.closed for a in agents.values())  # type: ignore[attr-defined]


def test_scripted_and_random_agents_have_plain_constructors() -> None:
    game = new_game("killer", seed=4, players=11)
    first = game.pending()[0]
    script = [{"decision": first.decision, **_any_legal(first)}]
    seats: dict[int, Agent] = {s: RandomAgent() for s in game.seats}
    seats[first.seat] = ScriptedAgent(script, then="random")
    result = play_sync(game, seats, transcript=None)
    assert result.outcome is not None


def _any_legal(request: Any) -> dict[str, Any]:
    import random

    from sandbox.core.requests import draw_payload

    return draw_payload(request, random.Random(0))


def test_a_zh_seat_reads_chinese_rules_only(fake_server: FakeLLMServer) -> None:
    """Each seat gets the rules in its own language: no English rules in a zh prompt."""
    game = new_game("killer", seed=9, players=11)
    zh_seat = 1
    seats: dict[int, Agent] = {s: BaselineAgent() for s in game.seats}
    seats[zh_seat] = LLMAgent("fake/legal-random", api_base=fake_server.base_url, language="zh")
    play_sync(game, seats, transcript=None)
    variant = get_variant("killer")
    english = variant.rules_text(game.config, "en")
    chinese = variant.rules_text(game.config, "zh")
    systems = [r["messages"][0]["content"] for r in fake_server.requests if "messages" in r]
    assert systems, "the zh seat made no call"
    for system in systems:
        assert chinese in system
        long_english_lines = [line for line in english.splitlines() if len(line) > 30]
        assert long_english_lines and not any(line in system for line in long_english_lines)


@pytest.fixture
def fake_server() -> Any:
    with FakeLLMServer(seed=1) as server:
        yield server


def test_malformed_transcript_lines_are_one_error_naming_the_line(tmp_path: Path) -> None:
    game = new_game("killer", seed=1, players=11)
    path = play_sync(game, lambda s, r: RandomAgent(), transcript=tmp_path).transcript_path
    assert path is not None
    lines = path.read_text(encoding="utf-8").splitlines()
    for bad in (
        "5",
        "[]",
        '{"type":"event","seq":0,"kind":"x","data":[],"vis":"public"}',
        '{"type":"call","seat":1,"request_id":"r","tokens_in":"many"}',
    ):
        broken = tmp_path / "broken.jsonl"
        broken.write_text("\n".join([lines[0], bad, *lines[1:]]) + "\n", encoding="utf-8")
        with pytest.raises(TranscriptError, match=r"broken\.jsonl:2: "):
            load_transcript(broken)
    header = tmp_path / "header.jsonl"
    header.write_text(lines[0].replace('"seed":1', '"seed":"one"') + "\n", encoding="utf-8")
    with pytest.raises(TranscriptError, match=r"header\.jsonl:1: seed"):
        load_transcript(header)
    assert isinstance(CallRecord(seat=1, request_id="r"), CallRecord)
