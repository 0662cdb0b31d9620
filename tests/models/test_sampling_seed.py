"""Sampling seeds (issue 21, item 2): a what-if branch's model calls each carry a
seed derived from (game seed, branch seed, seat, decision, attempt), sent to the
provider and recorded on the call line; a game played as usual sends none. The
fake provider's draw depends on that seed, and its ``reactive`` policy follows
the accusations in the prompt."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import sandbox.models.remote as remote
from sandbox.core.events import DecisionMade
from sandbox.core.game import Game
from sandbox.models.client import CallSettings, ModelClient, RetryPolicy, attempt_seed
from sandbox.models.endpoints import Endpoint
from sandbox.models.fake import FakeLLMServer
from sandbox.models.fake.answers import most_accused, reactive_answer
from sandbox.session.seating import branch_seat_seed, seat_agent, seat_seed
from tests.agents.llm.conftest import TOY, context, llm_spec, toy_loaded

RETRY = RetryPolicy(attempts=2, max_wait_s=0.01, total_s=5.0)
MESSAGES = [{"role": "user", "content": "pick a number"}]


def _client(server: FakeLLMServer, seed: int | None) -> ModelClient:
    endpoint = Endpoint("openai/fake-legal-random", server.base_url, "k", "fake", "openai")
    return ModelClient(endpoint, CallSettings(timeout_s=5.0, seed=seed), RETRY, 4, [])


async def test_the_direct_route_sends_the_seed_and_the_call_line_records_it() -> None:
    with FakeLLMServer() as server:
        calls: list[dict[str, Any]] = []
        await _client(server, 1234).complete(MESSAGES, 0, calls)
        await _client(server, 1234).complete(MESSAGES, 1, calls)
        sent = [r["seed"] for r in server.requests]
    assert sent == [attempt_seed(1234, 0, 1), attempt_seed(1234, 1, 1)]
    assert [c["seed"] for c in calls] == sent
    assert sent[0] != sent[1]  # another repair turn, another draw


async def test_without_a_seed_nothing_is_sent_and_nothing_recorded() -> None:
    with FakeLLMServer() as server:
        calls: list[dict[str, Any]] = []
        await _client(server, None).complete(MESSAGES, 0, calls)
        body = server.requests[0]
    assert "seed" not in body and "seed" not in calls[0]


def test_litellm_route_passes_the_seed_only_to_providers_that_take_one() -> None:
    openai = Endpoint("openai/gpt-4o", None, "k")
    claude = Endpoint("anthropic/claude-3-5-sonnet-20240620", None, "k")
    settings = CallSettings(timeout_s=5.0, seed=7)
    kwargs: dict[str, dict[str, Any]] = {}
    for endpoint in (openai, claude):
        client = ModelClient(endpoint, settings, RETRY, 1, [])
        captured: dict[str, Any] = {}

        async def fake_acompletion(captured: dict[str, Any] = captured, **given: Any) -> None:
            captured.update(given)

        module = remote.litellm_module()
        original = module.acompletion
        module.acompletion = fake_acompletion
        try:
            asyncio.run(client._send(MESSAGES, None, attempt_seed(7, 0, 1)))
        finally:
            module.acompletion = original
        kwargs[endpoint.model] = captured
    assert kwargs["openai/gpt-4o"]["seed"] == attempt_seed(7, 0, 1)
    assert "seed" not in kwargs["anthropic/claude-3-5-sonnet-20240620"]


def test_the_fake_draw_depends_on_the_request_seed_only_when_one_is_sent() -> None:
    server = FakeLLMServer(seed=5)
    try:
        schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 10**6}}}
        body: dict[str, Any] = {
            "model": "fake-legal-random",
            "messages": MESSAGES,
            "response_format": {"type": "json_schema", "json_schema": {"schema": schema}},
        }
        plain = server.answer_text(body)[1]
        seeded = [server.answer_text({**body, "seed": s})[1] for s in (1, 1, 2)]
    finally:
        server.stop()
    from sandbox.models.fake.server import prompt_digest

    # no seed: the draw is the one a game has always had (prompt digest alone)
    expected = random.Random(f"5:{prompt_digest(body)}").randint(0, 10**6)
    assert json.loads(plain) == {"n": expected}
    assert seeded[0] == seeded[1] and seeded[0] != seeded[2]


def test_branch_seat_seeds_differ_per_branch_and_branch_zero_is_the_game() -> None:
    assert branch_seat_seed(9, 0, 3) == seat_seed(9, 3)
    seeds = {branch_seat_seed(9, b, s) for b in range(1, 6) for s in range(1, 5)}
    assert len(seeds) == 20 and seat_seed(9, 3) not in seeds


async def test_an_llm_seat_in_a_branch_sends_a_seed_per_decision_and_branch() -> None:
    """The seed comes from (game seed, branch seed, seat, decision id, attempt):
    the same branch twice sends the same seeds; another branch other ones."""
    with FakeLLMServer(seed=1) as server:
        loaded = toy_loaded(llm_spec(server, "legal-random"))
        sent: dict[int, list[int]] = {}
        for branch in (0, 1, 1, 2):
            game = Game.new(TOY, loaded.game_config, 4)
            request = game.pending()[0]
            agent = seat_agent(loaded, loaded.file.default_agent, request.seat, 4, branch)
            answer = await agent.decide(context(game, request))
            await agent.close()
            seeds = [c.get("seed") for c in answer.calls]
            if branch == 0:
                assert seeds == [None] * len(seeds)  # a game played as usual: no seed
                assert "seed" not in server.requests[-1]
            elif branch in sent:
                assert seeds == sent[branch]
            else:
                sent[branch] = [s for s in seeds if s is not None]
                assert len(sent[branch]) == len(seeds)
    assert sent[1] != sent[2]


# --------------------------------------------------------------- reactive policy

PROMPT = [
    {"role": "system", "content": "rules"},
    {
        "role": "user",
        "content": (
            "⟦REFEREE⟧ Seat 2 accuses seats 4, 6; vouches for seat 1.\n"
            "⟦REFEREE⟧ Seat 3 accuses seat 6 (unconfirmed claim).\n"
            "⟦REFEREE⟧ Seat 5 accuses seats 4, 6, 7; claims the role police.\n"
            'Seat 7 said (speech): "Seat 1 accuses seats 2, 2, 2, 2 (quoted, not the referee)"\n'
        ),
    },
]
VOTE = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string", "maxLength": 50},
        "target": {"anyOf": [{"enum": [1, 2, 3, 4, 6, 7]}, {"type": "null"}]},
    },
}
SPEECH = {
    "type": "object",
    "properties": {
        "speech": {"type": "string", "maxLength": 50},
        "accuse": {"type": "array", "items": {"enum": [1, 2, 3, 4, 6]}, "maxItems": 5},
        "vouch": {"type": "array", "items": {"enum": [1, 2, 3, 4, 6]}, "maxItems": 5},
    },
}


def _vote(prompt: list[dict[str, str]], seed: int) -> Any:
    return json.loads(reactive_answer(VOTE, prompt, random.Random(seed)))["target"]


def test_most_accused_counts_the_referee_lines_only() -> None:
    # seat 6: 3 accusations, seat 4: 2, seat 7: 1; the quoted speech imitating a
    # referee line (seat 2 four times) counts for nothing
    assert most_accused(PROMPT[:1]) is None
    assert most_accused(PROMPT) == 6
    tie = [{"role": "user", "content": "⟦REFEREE⟧ Seat 1 accuses seats 5, 3."}]
    assert most_accused(tie) == 3  # a tie goes to the lowest seat


def test_reactive_votes_for_the_most_accused_with_probability_point_nine() -> None:
    prompt = PROMPT
    picks = [
        json.loads(reactive_answer(VOTE, prompt, random.Random(i)))["target"] for i in range(400)
    ]
    share = picks.count(6) / len(picks)
    # 0.9 + 0.1 × (1/7: the random draw also lands on 6) ≈ 0.91
    assert 0.86 < share < 0.96
    speeches = [json.loads(reactive_answer(SPEECH, PROMPT, random.Random(i))) for i in range(200)]
    alone = sum(1 for s in speeches if s["accuse"] == [6])
    assert alone > 160 and all(6 not in s["vouch"] for s in speeches if s["accuse"] == [6])


def test_reactive_without_accusations_is_random_legal() -> None:
    quiet = [{"role": "user", "content": 'Seat 3 said (speech): "hello"'}]
    picks = [
        json.loads(reactive_answer(VOTE, quiet, random.Random(i)))["target"] for i in range(300)
    ]
    assert set(picks) <= {1, 2, 3, 4, 6, 7, None}
    # the draw picks a branch of anyOf, then a value: about half abstain, and no
    # seat is a favourite (~25 each)
    assert 110 < picks.count(None) < 190
    assert max(picks.count(p) for p in set(picks) - {None}) < 50


# the referee's lines as the Chinese prompts of Killer and Werewolf word them
# (prompts/killer/zh/events.j2, claims_line, before issue 36), copied from a real prompt
PROMPT_ZH = [
    {
        "role": "user",
        "content": (
            "⟦裁判⟧ 2号指认4、6号；担保1号（自称，未经确认）。\n"
            "⟦裁判⟧ 3号指认6号（自称，未经确认）。\n"
            "⟦裁判⟧ 5号指认4、6、7号；声称自己是警察（自称，未经确认）。\n"
            "⟦裁判⟧ 8号担保7号（自称，未经确认）。\n"
            '7号说（发言）："1号指认2、2、2、2号"\n'
        ),
    },
]


def test_most_accused_reads_the_chinese_referee_lines_too() -> None:
    # as in English: seat 6 three times, seat 4 twice, seat 7 once; a vouch and
    # a quoted speech imitating the line count for nothing
    assert most_accused(PROMPT_ZH) == 6
    assert most_accused([{"role": "user", "content": "⟦裁判⟧ 1号指认5、3号（…）。"}]) == 3
    assert most_accused([{"role": "user", "content": "⟦裁判⟧ 8号担保7号（…）。"}]) is None
    picks = [_vote(PROMPT_ZH, i) for i in range(400)]
    assert 0.86 < picks.count(6) / len(picks) < 0.96


def test_reactive_follows_the_accusations_of_a_chinese_killer_game(tmp_path: Any) -> None:
    """A real game with Chinese prompts: the speeches made after an accusation
    line reached the prompt accuse the seat ``most_accused`` finds there (the
    policy's 0.9), so the policy reads what the zh templates write."""
    from sandbox.session.gamefile import load_config
    from sandbox.session.play import play_game
    from sandbox.transcript import read_transcript

    game_file = tmp_path / "zh.toml"
    game_file.write_text(
        'variant = "killer"\n[rules]\nplayers = 11\nday_limit = 1\n'
        '[default_agent]\nkind = "llm"\nmodel = "fake/reactive"\ntimeout_s = 10\n'
        '[llm]\nlanguage = "zh"\nmax_repairs = 0\n',
        encoding="utf-8",
    )
    record = play_game(load_config(game_file), 3, tmp_path / "out")
    assert record.path is not None
    transcript = read_transcript(record.path)
    made = {e.request_id: e for e in transcript.events if isinstance(e, DecisionMade)}
    followed = []
    for call in transcript.calls:
        decision = made[str(call["request_id"])]
        top = most_accused(call["messages"])
        if "accuse" in decision.payload and top is not None and top != decision.seat:
            followed.append(list(decision.payload["accuse"]) == [top])
    assert len(followed) >= 5 and sum(followed) >= 0.7 * len(followed), followed


def test_most_accused_reads_an_accusation_inside_a_speech_line() -> None:
    """Issue 36: a speech's claims are its words' sentence, "Seat 3 says
    (accuses …)", in both languages; a vouch still counts for nothing."""
    en = "⟦REFEREE⟧ Seat 3 says (accuses seats 5, 6; vouches for seat 2; claims police)."
    zh = "⟦裁判⟧ 4号说（指认6号；担保5号）。"
    assert most_accused([{"role": "user", "content": en}]) == 5
    assert most_accused([{"role": "user", "content": f"{en}\n{zh}"}]) == 6
    vouch = "⟦REFEREE⟧ Seat 3 says (vouches for seat 2)."
    assert most_accused([{"role": "user", "content": vouch}]) is None
