"""The shared record (``[llm] shared_record``, compact style): every seat's
prompt starts with the same primer and the same public record, and the role
card and the seat's secret events come after it, so one table's seats share a
prefix in a server's cache. The no-leak audit renders this layout too
(test_no_leak.py)."""

from __future__ import annotations

import random
import re

import pytest

from sandbox.agents.llm.prompt.render import render_prompt, secret_record, secret_view
from sandbox.core.variant import HistoryItem, SeatView
from sandbox.core.visibility import PUBLIC
from tests.prompts.harness import Captured, new_game, play

# Killer's lines that its card or public record says again (card_kinds, restated_answers)
RESTATED = re.compile(r"You received your card|You opened your eyes|Your answer \(")


def vote_views(variant: str, seed: int) -> list[Captured]:
    """The captured requests of one sealed step: every living seat's view at once."""
    game = new_game(variant, seed)
    captured = play(game, random.Random(seed), pick=lambda g, r: r.decision in ("vote", "attack"))
    first = captured[0].step
    return [c for c in captured if c.step == first]


@pytest.mark.parametrize("variant", ["killer", "werewolf"])
def test_history_items_say_whether_every_seat_saw_them(variant: str) -> None:
    game = new_game(variant, 3)
    play(game, random.Random(3))
    view = game.view(1)
    public = {seq for seq, e in enumerate(game.events) if e.visibility() == PUBLIC}
    assert view.history, "a whole game leaves a history"
    for item in view.history:
        assert item.public == (item.seq in public), item
    assert any(item.public for item in view.history)
    assert any(not item.public for item in view.history)  # its card, its own answers


def test_four_factions_items_are_marked_too() -> None:
    game = new_game("four_factions", 2)
    play(game, random.Random(2))
    public = {seq for seq, e in enumerate(game.events) if e.visibility() == PUBLIC}
    items = game.view(5).history
    assert [i.seq for i in items if i.public] == [i.seq for i in items if i.seq in public]
    assert any(not i.public for i in items)


def test_seats_of_one_step_share_the_whole_public_record() -> None:
    views = vote_views("killer", 4)
    assert len(views) >= 6
    prompts = [render_prompt(c.view, c.request, style="compact", shared_record=True) for c in views]
    systems = {p.messages[0]["content"] for p in prompts}
    assert len(systems) == 1, "the system message names no seat"
    assert "role card" not in systems.pop()
    users = [p.messages[1]["content"] for p in prompts]
    heads = {u[: u.index("# Your role card")] for u in users}
    assert len(heads) == 1, "every seat's record up to its card is the same text"
    (head,) = heads
    assert "Your answer" not in head  # a seat's own answers are secret, after the card
    for c, user in zip(views, users, strict=True):
        tail = user[len(head) :]
        assert tail.startswith(f"# Your role card (seat {c.seat}, secret)")
        assert tail.index("# Now") < tail.index("# Question")
        if c.role != "civilian":  # a civilian's secrets are all restated (below)
            assert tail.index("# Your secret record") < tail.index("# Now")


def test_the_seat_layout_keeps_the_card_in_the_system_message() -> None:
    c = vote_views("killer", 4)[0]
    seat = render_prompt(c.view, c.request, style="compact")
    shared = render_prompt(c.view, c.request, style="compact", shared_record=True)
    assert f"# Your role card (seat {c.seat}, secret)" in seat.messages[0]["content"]
    assert "# Your secret record" not in seat.messages[1]["content"]
    # the full style has no shared layout: the option is ignored there
    full = render_prompt(c.view, c.request, shared_record=True)
    assert full.messages == render_prompt(c.view, c.request).messages
    # the same facts, laid out differently: every referee line of one is in
    # the other, but for what the card and the public record say again
    seat_lines = set("\n".join(m["content"] for m in seat.messages).splitlines())
    shared_lines = set("\n".join(m["content"] for m in shared.messages).splitlines())
    missing = {line for line in seat_lines if line.startswith("⟦")} - shared_lines
    assert missing and all(RESTATED.search(line) for line in missing), missing


def test_chinese_shared_record_has_its_own_headings() -> None:
    c = next(c for c in vote_views("killer", 4) if c.role != "civilian")
    user = render_prompt(
        c.view, c.request, language="zh", style="compact", shared_record=True
    ).messages[1]["content"]
    assert f"# 你的身份卡（{c.seat}号，保密）" in user
    assert user.index("# 你的身份卡") < user.index("# 你的秘密记录") < user.index("# 现在")


def test_the_shared_record_leaves_out_what_the_card_and_public_record_restate() -> None:
    killer = next(c for c in vote_views("killer", 4) if c.role == "killer")
    prompt = render_prompt(killer.view, killer.request, style="compact", shared_record=True)
    user = prompt.messages[1]["content"]
    secret = user[user.index("# Your secret record") : user.index("# Now")]
    assert not RESTATED.search(secret)
    assert "The killer opinions of night 1" in secret  # the team's night is kept
    # the answers and the card are still in the seat's view, only not said twice
    kinds = {i.kind for i in secret_view(killer.view).history}
    assert {"killer.role", "killer.team", "core.decision"} <= kinds


def test_a_fallback_answer_stays_in_the_secret_record() -> None:
    def echo(seq: int, fallback: bool) -> HistoryItem:
        facts = {"decision": "vote", "fallback": fallback, "payload": {"target": 3}}
        return HistoryItem(seq, "core.decision", 1, "vote", facts=facts)

    items = (
        HistoryItem(0, "killer.role", 0, "setup"),
        echo(1, fallback=False),
        echo(2, fallback=True),  # "recorded as the judge's fallback": nowhere else
        HistoryItem(3, "killer.ballots", 1, "vote", public=True),
    )
    view = SeatView("killer", 1, {}, {}, items)
    assert [i.seq for i in secret_record(view).history] == [2]
    # a variant that declares nothing restated keeps every secret item
    other = SeatView(
        "werewolf", 1, {}, {}, (HistoryItem(0, "werewolf.role", 0, "setup"), echo(1, False))
    )
    assert secret_record(other).history == secret_view(other).history
