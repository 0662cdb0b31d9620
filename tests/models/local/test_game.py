"""Integration: Killer on the embedded model through the real client path.

LLM seats → openai SDK → HTTP → llama-server (SmolLM2-135M) on loopback, one
full night and day (``day_limit = 1`` ends the game after day 1, KG-12 ruling,
unless a KG-10 triple tie ends it first).
To stay within minutes on 2 cores, the three killers are played by the model
and the other seats by the baseline bot: every night opinion (KG-3) and the
killers' day speeches and ballots (KG-8, KG-9) still go through the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sandbox.core.seat import FALLBACK_INVALID
from sandbox.models.local import running_servers, stop_all
from sandbox.session import play_game
from sandbox.session.gamefile import parse_config, role_matches
from tests.models.local.conftest import requires_local, wait_gone

pytestmark = [requires_local, pytest.mark.local_model, pytest.mark.slow]

GAME: dict[str, Any] = {
    "variant": "killer",
    "seed": 11,
    "rules": {"players": 11, "day_limit": 1},
    "default_agent": {"kind": "baseline"},
    "agent": [
        {
            "kind": "llm",
            "role": "killer",
            "model": "local/smollm2",
            "temperature": 0.7,
            "max_tokens": 448,  # configs/killer_local.toml: the grammar fits its answers within
            "timeout_s": 300,
        }
    ],
    # each seat's own layout with a 6-item window (configs/killer_local.toml's
    # until it took the shared record, played by the test further down)
    "llm": {
        "language": "en",
        "max_repairs": 1,
        "concurrency": 11,  # sealed decisions go in together (one slot per seat)
        "prompt_style": "compact",
        "history_items": 6,
    },
}


# Every way a Killer game may end on its own terms (docs/rules-killer.md): KG-12,
# KG-13 (SmolLM2 concedes readily when offered), KG-10 and the KG-12 day limit.
# "aborted" (the runner giving up) and any unknown reason fail the test.
LEGAL_ENDS = {
    "day_limit",
    "forced_draw",
    "killers_eliminated",
    "police_eliminated",
    "civilians_eliminated",
    "surrender",
}


def read_transcript(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.timeout(1500)
def test_killer_night_and_day_on_the_local_model(tmp_path: Path) -> None:
    loaded = parse_config(GAME)
    try:
        record = play_game(loaded, 11, tmp_path)
        (server,) = running_servers()  # one server for all model seats
        assert server.process is not None
        server_pid = server.process.pid
    finally:
        stop_all()
    assert wait_gone(server_pid, 15), "the llama.cpp server outlived the run"

    lines = read_transcript(record.path)
    events = [line for line in lines if line["type"] == "event"]
    calls = [line for line in lines if line["type"] == "call"]
    kinds = [e["kind"] for e in events]
    # night 1 resolved (dawn) and day 1 reached its sealed vote; the game then
    # ended on its own terms, not aborted
    assert "killer.dawn" in kinds and "killer.ballots" in kinds, kinds
    assert record.outcome is not None and record.outcome.reason in LEGAL_ENDS, record.outcome

    killers = {seat for seat, role in record.roles.items() if role == "killer"}
    model_decisions = [
        e["data"] for e in events if e["kind"] == "core.decision" and e["data"]["seat"] in killers
    ]
    decided = {d["decision"] for d in model_decisions}
    assert {"kill_opinion", "vote"} <= decided, decided

    for decision in model_decisions:
        asked = [c for c in calls if c["request_id"] == decision["request_id"]]
        assert asked, f"no model call recorded for {decision['request_id']}"
        # no provider failure: the server answered every call
        assert all(c["error"] is None or "provider" not in str(c["error"]) for c in asked)
        if decision["fallback"]:
            # a fallback is allowed only after the recorded repairs failed
            assert decision["fallback_reason"] == FALLBACK_INVALID, decision
            assert len(asked) == 1 + loaded.file.llm.max_repairs
        else:
            assert asked[-1]["parsed"] is not None

    assert record.stats.fallback_count("provider") == 0
    assert record.stats.fallback_count("timeout") == 0
    # issue 24: the constrained route's grammar leaves no invalid answer and no
    # empty speech (a pass is said as "pass"), and no seat named twice
    assert record.stats.fallback_count(FALLBACK_INVALID) == 0
    assert not [d for d in model_decisions if d["fallback"]]
    speeches = [d for d in model_decisions if d["decision"] in ("speech", "last_words")]
    assert speeches, "no model seat spoke"
    for speech in speeches:
        payload = speech["payload"]
        assert str(payload["speech"]).strip(), speech
        accused, vouched = payload.get("accuse", []), payload.get("vouch", [])
        assert len(set(accused)) == len(accused) and len(set(vouched)) == len(vouched)
        assert not set(accused) & set(vouched)  # KG-14
    accepted = [d for d in model_decisions if not d["fallback"]]
    assert accepted, "the model never produced one legal decision"
    assert record.stats.tokens_in > 0 and record.stats.tokens_out > 0


@pytest.mark.timeout(1500)
def test_the_shared_record_with_the_slot_router(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[llm] shared_record`` over the real client path: the model seats'
    prompts start with the public record, the client picks each call's slot
    and copies another slot's prompt into it (without SANDBOX_LOCAL_ROUTE: a
    shared-record seat routes its own calls), and the game plays as cleanly as
    with the seat layout."""
    monkeypatch.delenv("SANDBOX_LOCAL_ROUTE", raising=False)
    game = {**GAME, "llm": {**GAME["llm"], "shared_record": True}}
    del game["llm"]["history_items"]
    try:
        record = play_game(parse_config(game), 11, tmp_path)
        (server,) = running_servers()
        slot_dir = server._slot_dir
        assert slot_dir is not None and slot_dir.is_dir()
        # the router saved slot states to copy them (router.py's slot-N.bin)
        assert list(slot_dir.glob("slot-*.bin")), "no slot was copied"
    finally:
        stop_all()
    assert not slot_dir.exists(), "the slot files outlived the server"
    lines = read_transcript(record.path)
    calls = [line for line in lines if line["type"] == "call"]
    assert calls and not [c for c in calls if "provider" in str(c["error"])]
    assert record.stats.fallback_count() == 0
    for call in calls:
        system, user = (m["content"] for m in call["messages"])
        assert "role card" not in system
        assert user.index("# Record") < user.index(f"# Your role card (seat {call['seat']},")
    votes = [c for c in calls if c["decision"] == "vote"]
    assert votes and all(c["cached_tokens"] > 0 for c in votes)


def open_day_asks(lines: list[dict[str, Any]], seats: set[int]) -> list[dict[str, Any]]:
    """The open day's asks (OD-5) that reached ``seats``, once the day was seen to
    open and close (OD-6); at least one."""
    events = [line for line in lines if line["type"] == "event"]
    kinds = [e["kind"] for e in events]
    assert "discussion.opened" in kinds and "discussion.closed" in kinds, kinds
    asks = [
        e["data"]
        for e in events
        if e["kind"] == "core.decision"
        and e["data"]["seat"] in seats
        and e["data"]["decision"] == "message"
    ]
    assert asks, "no ask round reached a model seat"
    return asks


@pytest.mark.timeout(1500)
def test_an_open_killer_day_on_the_local_model(tmp_path: Path) -> None:
    """Issue 42: the embedded table finishes a Killer game whose day is open
    (OD-1): the model's killers answer every ask round (speak or wait, OD-5)
    through the real client path, the day closes on a budget (OD-6) and the vote
    and the game's end follow as in a day of turns."""
    rules = {**GAME["rules"], "discussion": "open", "messages_per_seat": 2}
    loaded = parse_config({**GAME, "rules": rules})
    try:
        record = play_game(loaded, 11, tmp_path)
    finally:
        stop_all()
    assert record.outcome is not None and record.outcome.reason in LEGAL_ENDS, record.outcome
    lines = read_transcript(record.path)
    asks = open_day_asks(lines, {s for s, role in record.roles.items() if role == "killer"})
    # the model speaks up, not only waits (it posted in every run seen)
    assert any(a["payload"].get("speak") for a in asks), asks
    calls = [line for line in lines if line["type"] == "call"]
    answered = {c["request_id"] for c in calls}
    assert all(a["request_id"] in answered for a in asks)
    assert record.stats.fallback_count("provider") == 0
    assert record.stats.fallback_count("timeout") == 0
    assert record.stats.fallback_count(FALLBACK_INVALID) == 0


OPEN_TABLES: dict[str, dict[str, Any]] = {
    # WW-1's 8-seat table, the werewolves on the model, one day (WW-21's limit)
    "werewolf": {"players": 8, "role": "werewolf"},
    # the wolves' faction (4 of 16 seats) on the model, one day (FF-27's limit)
    "four_factions": {"role": "wolves"},
}


@pytest.mark.timeout(1500)
@pytest.mark.parametrize("variant", sorted(OPEN_TABLES))
def test_an_open_day_of_each_game_on_the_local_model(tmp_path: Path, variant: str) -> None:
    """Issue 42: Werewolf and Four Factions finish a game with an open day on the
    embedded model too, one role's seats answering every ask through the real
    client path, with no provider, timeout or invalid fallback."""
    table = OPEN_TABLES[variant]
    rules: dict[str, Any] = {"discussion": "open", "messages_per_seat": 1, "day_limit": 1}
    if "players" in table:
        rules["players"] = table["players"]
    agent = {**GAME["agent"][0], "role": table["role"]}
    game = {**GAME, "variant": variant, "rules": rules, "agent": [agent]}
    try:
        record = play_game(parse_config(game), 11, tmp_path)
    finally:
        stop_all()
    assert record.outcome is not None and record.outcome.reason != "aborted", record.outcome
    model_seats = {s for s, r in record.roles.items() if role_matches(table["role"], r)}
    open_day_asks(read_transcript(record.path), model_seats)
    assert record.stats.fallback_count("provider") == 0
    assert record.stats.fallback_count("timeout") == 0
    assert record.stats.fallback_count(FALLBACK_INVALID) == 0
