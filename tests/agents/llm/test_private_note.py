"""``[llm] private_note = false``: the answer holds only the referee's fields.

The prompt, the answer schema, the constrained route's grammar, the header and
the training export all agree that no note was asked; with the note on
(the default) nothing changes (the prompt goldens hold that side)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from sandbox.agents.llm.agent import LLMAgent
from sandbox.agents.llm.answer_format import REASONING, decision_model
from sandbox.agents.llm.grammar import plan_for
from sandbox.agents.llm.parse import AnswerError, parse_answer
from sandbox.agents.llm.prompt import render_prompt
from sandbox.agents.llm.settings import LLMSettings, limits_for
from sandbox.analysis.trajectories import completion_text
from sandbox.core.game import Game
from sandbox.core.seat import DecisionContext
from sandbox.games.killer.config import KillerConfig
from sandbox.games.registry import get_variant
from sandbox.models.fake import FakeLLMServer
from sandbox.session.agent_specs import LLMSpec
from sandbox.session.gamefile import GameFile, LoadedConfig
from sandbox.session.seating import build_agents
from tests.agents.llm.test_grammar import speech_request, vote_request

KILLER = get_variant("killer")


def test_no_note_leaves_the_note_out_of_the_grammar_and_its_byte_count() -> None:
    with_note = plan_for(speech_request(), 48, 160, 448, "en")
    plan = plan_for(speech_request(), 0, 160, 448, "en")
    assert with_note is not None and plan is not None
    assert plan.order == ("claim", "concede", "accuse_or_vouch", "speech")
    assert dict(plan.text_chars) == {"speech": 160}
    assert "reasoning" not in plan.grammar and "note ::=" not in plan.grammar
    assert plan.grammar.startswith('root ::= "{" "\\"claim\\":"')
    assert "reasoning" not in plan.example and "reasoning" not in plan.shared_example
    # the note's key, quotes, comma and 48 characters are gone from the longest answer
    assert with_note.max_bytes - plan.max_bytes == len('"reasoning":"",') + 48
    vote = plan_for(vote_request(), 0, 160, 64, "en")
    assert vote is not None
    assert vote.grammar.splitlines()[0] == 'root ::= "{" "\\"target\\":" v-target "}"'


def test_no_note_a_speech_of_pass_still_decodes_to_the_rules_pass() -> None:
    """The speech is the plan's first text when no note is asked: its "pass" is
    the empty text (KG-8), not a speech of four letters."""
    plan = plan_for(speech_request(), 0, 160, 448, "en")
    assert plan is not None and plan.text_chars[0][0] == "speech"
    assert plan.decode({"speech": "pass"})["speech"] == ""
    assert plan.decode({"speech": "I pass on seat 4"})["speech"] == "I pass on seat 4"
    noted = plan_for(speech_request(), 48, 160, 448, "en")
    assert noted is not None
    # a note of "pass" is a note, never the rules' pass
    assert noted.decode({"reasoning": "pass", "speech": "pass"}) == {
        "reasoning": "pass",
        "speech": "",
    }


def test_no_note_the_schema_has_only_the_fields_and_an_answer_without_it_parses() -> None:
    request = vote_request()
    limits = limits_for("compact", note=False)
    assert limits.reasoning_chars == 0 and limits_for("compact").reasoning_chars == 48
    model = decision_model(request, None, limits)
    assert list(model.model_json_schema()["properties"]) == ["target"]
    parsed = parse_answer('{"target": 4}', model)
    assert parsed.decision == {"target": 4} and parsed.reasoning == ""
    # a note the model writes anyway is kept as the note, not refused
    noted = parse_answer('{"reasoning": "seat 4 lied", "target": 4}', model)
    assert noted.decision == {"target": 4} and noted.reasoning == "seat 4 lied"
    with pytest.raises(AnswerError):
        parse_answer('{"target": 4, "other": 1}', model)  # other extra keys still are


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("style", ["compact", "full"])
@pytest.mark.parametrize("shared", [False, True])
def test_no_note_the_prompt_never_asks_for_reasoning(
    language: str, style: str, shared: bool
) -> None:
    game = Game.new(KILLER, KillerConfig(players=11), 3)
    request = game.pending()[0]
    view = DecisionContext.for_request(game, request).view
    kwargs = {"language": language, "style": style, "shared_record": shared}
    asked = render_prompt(view, request, **kwargs)  # type: ignore[arg-type]
    plain = render_prompt(view, request, note=False, **kwargs)  # type: ignore[arg-type]
    assert "reasoning" in json.dumps(asked.messages, ensure_ascii=False)
    text = json.dumps(plain.messages, ensure_ascii=False)
    assert "reasoning" not in text
    assert "私下推理" not in text and "（私下" not in text  # zh: "private reasoning", "(private"
    # the fields are still listed, in the same order
    assert '"target"' in plain.messages[-1]["content"] or "target" in text


def test_the_export_writes_no_reasoning_for_a_seat_asked_for_none() -> None:
    event = {"note": "", "payload": {"target": 4}}
    assert json.loads(completion_text(event, [], note=False)) == {"target": 4}
    assert json.loads(completion_text(event, [])) == {REASONING: "", "target": 4}


async def test_seats_without_a_note_play_killer_over_the_fake_provider(tmp_path: Path) -> None:
    """Through the real client path: no prompt mentions the note, every answer
    is accepted on its first attempt, the header says so and the export agrees."""
    with FakeLLMServer(seed=3) as fake:
        spec = LLMSpec(kind="llm", model="fake/legal-random", api_base=fake.base_url)
        llm = LLMSettings(private_note=False, prompt_style="compact", shared_record=True)
        file = GameFile(variant="killer", default_agent=spec, llm=llm)
        loaded = LoadedConfig(file, KILLER, KillerConfig(players=11))
        game = Game.new(KILLER, loaded.game_config, 5)
        agents = build_agents(loaded, game.roles(), 5)
        try:
            assert all(isinstance(a, LLMAgent) for a in agents.values())
            assert all(a.describe()["private_note"] is False for a in agents.values())
            calls = 0
            kinds: set[str] = set()
            for _ in range(10):  # night 1 and the first day's speeches
                pending = game.pending()
                if not pending:
                    break
                contexts = [DecisionContext.for_request(game, r) for r in pending]
                answers = await asyncio.gather(
                    *(agents[r.seat].decide(c) for r, c in zip(pending, contexts, strict=True))
                )
                for request, answer in zip(pending, answers, strict=True):
                    assert answer.payload is not None, answer.fallback_reason
                    call = answer.calls[0]
                    assert call["repair"] == 0 and REASONING not in (call["parsed"] or {})
                    assert "reasoning" not in json.dumps(call["messages"])
                    calls += 1
                    kinds.add(request.decision)
                    game.submit(request.id, answer.payload, answer.note)
            assert calls >= 10 and {"kill_opinion", "check_opinion", "speech"} <= kinds
        finally:
            for agent in agents.values():
                await agent.close()
