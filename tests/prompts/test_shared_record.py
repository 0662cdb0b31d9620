"""The shared record (``[llm] shared_record``, compact style): every seat's
prompt starts with the same primer and the same public record, and the role
card and the seat's secret events come after it, so one table's seats share a
prefix in a server's cache. The no-leak audit renders this layout too
(test_no_leak.py)."""

from __future__ import annotations

import itertools
import json
import random
import re

import pytest

from sandbox.agents.llm.answer_format import grammar_format
from sandbox.agents.llm.prompt import render
from sandbox.agents.llm.prompt import shared as layout
from sandbox.agents.llm.prompt.record import RecordMemo, current_step, summarized_record
from sandbox.agents.llm.prompt.render import render_prompt
from sandbox.agents.llm.prompt.shared import secret_record, secret_view
from sandbox.agents.llm.settings import limits_for
from sandbox.core.variant import HistoryItem, SeatView
from sandbox.core.visibility import PUBLIC
from sandbox.games.registry import get_variant
from tests.core.toy import Toy
from tests.prompts.harness import Captured, new_game, play

# Killer's lines that its card or public record says again (card_kinds, restated_answers)
# What the card and the seat's own answers say again: lines told to the seat
# itself ("You are dealt the police card", "You vote for seat 5") and its team.
RESTATED = re.compile(r"⟦REFEREE⟧ You |⟦REFEREE⟧ The \w+ team is ")


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
    assert len(heads) == 1, "every seat's record, now, question and options up to its card"
    (head,) = heads
    # what the whole step reads alike comes before the card: the situation, the
    # question, the answer's fields and the step's own items so far
    assert head.index("# Now") < head.index("# Question") < head.index("# Your answer")
    assert head.index("# Your answer") < head.index("# This step so far")
    assert "sealed ballot (KG-9)" in head[head.index("# Question") :]
    # the options every seat reads alike: the living seats, never one's own
    living = list(views[0].view.public["living"])
    assert f'- "target": one of {json.dumps(living)} or null, never your own seat.' in head
    step = head[head.index("# This step so far") :]
    assert "--- Day 1 · vote ---" in step and "--- Day 1 · speeches ---" not in step
    for c, user in zip(views, users, strict=True):
        tail = user[len(head) :]
        assert tail.startswith(f"# Your role card (seat {c.seat}, secret)")
        # the card says which seat is one's own: the options are exact with it
        assert sorted([*c.request.fields[0].options, c.seat]) == sorted(living)
        if c.role != "civilian":  # a civilian's secrets are all restated (below)
            assert tail.index("# Your secret record") > tail.index("# Your role card")


def test_each_speaker_re_reads_only_the_newest_speech_and_its_own_tail() -> None:
    """Within a step that seats take in turn, the next speaker's prompt starts
    with the previous speaker's up to that speaker's card: only the newest
    speech (and the card and secrets) come after the part they share."""
    game = new_game("killer", 4)
    captured = play(game, random.Random(4), pick=lambda g, r: r.decision == "speech")
    first_day = [c for c in captured if c.view.public["day"] == 1]
    assert len(first_day) >= 6
    users = [
        render_prompt(c.view, c.request, style="compact", shared_record=True).messages[1]["content"]
        for c in first_day
    ]
    for before, after, c in zip(users, users[1:], first_day[1:], strict=False):
        # up to the end of its last line before the card (the blank line is not shared)
        head = before[: before.index("# Your role card")].rstrip("\n") + "\n"
        assert after.startswith(head), "the previous speaker's prompt up to its card"
        new = after[len(head) : after.index("# Your role card")]
        said = [line for line in new.splitlines() if " said (speech): " in line]
        assert len(said) == 1, new  # the one speech since, nothing else of the record
        assert "# Question" not in new and "# Now" not in new
        assert after[len(head) :].count("# Your role card (seat ") == 1
        assert f"(seat {c.seat}, secret)" in after[len(head) :]


def test_the_answers_shape_is_shared_too_before_the_step_and_the_card() -> None:
    """The grammar's shape hint (a speech's accuse/vouch object) goes after the
    answer's fields with no seat in it, so the speakers' prompts as sent still
    extend each other up to the card (it used to follow the card)."""
    game = new_game("killer", 4)
    captured = play(game, random.Random(4), pick=lambda g, r: r.decision == "speech")
    first_day = [c for c in captured if c.view.public["day"] == 1]
    sent = []
    for c in first_day:
        rendered = render_prompt(c.view, c.request, style="compact", shared_record=True)
        fmt = grammar_format(c.request, limits_for("compact"), 448, "en", shared=True)
        assert fmt is not None and fmt.hint
        sent.append(fmt.messages(rendered.messages, rendered.answer_chars)[1]["content"])
    for before, after in itertools.pairwise(sent):
        assert after.startswith(before[: before.index("# Your role card")].rstrip("\n"))
    for user in sent:
        shape = user.index(fmt.hint.strip())
        assert user.index("# Your answer") < shape < user.index("# Your role card")
        if "# This step so far" in user:
            assert shape < user.index("# This step so far")
        assert not user.rstrip().endswith("}"), "nothing after the card and secrets"
    # the seat layout keeps it last, with the seat's own options
    c = first_day[1]
    rendered = render_prompt(c.view, c.request, style="compact")
    assert rendered.answer_chars is None
    fmt = grammar_format(c.request, limits_for("compact"), 448, "en")
    assert fmt is not None
    assert fmt.messages(rendered.messages, rendered.answer_chars)[1]["content"].endswith(fmt.hint)


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
    assert user.index("# 现在") < user.index("# 问题") < user.index("# 你的回答")
    assert user.index("# 你的回答") < user.index("# 本阶段至此") < user.index("# 你的身份卡")
    assert user.index("# 你的身份卡") < user.index("# 你的秘密记录")
    assert "，不能是你自己。" in user


def test_the_shared_record_leaves_out_what_the_card_and_public_record_restate() -> None:
    killer = next(c for c in vote_views("killer", 4) if c.role == "killer")
    prompt = render_prompt(killer.view, killer.request, style="compact", shared_record=True)
    user = prompt.messages[1]["content"]
    secret = user[user.index("# Your secret record") :]
    assert not RESTATED.search(secret)
    assert "Night 1, the killer opinions" in secret  # the team's night is kept
    # the answers and the card are still in the seat's view, only not said twice
    kinds = {i.kind for i in secret_view(killer.view).history}
    assert {"killer.role", "killer.team", "core.decision"} <= kinds


def test_a_fallback_answer_stays_in_the_secret_record(monkeypatch: pytest.MonkeyPatch) -> None:
    def echo(seq: int, fallback: bool) -> HistoryItem:
        facts = {"decision": "vote", "fallback": fallback, "payload": {"target": 3}}
        return HistoryItem(seq, "core.decision", 1, "vote", facts=facts)

    items = (
        HistoryItem(0, "killer.role", 0, "setup"),
        echo(1, fallback=False),
        echo(2, fallback=True),  # "recorded as the judge's fallback": nowhere else
        HistoryItem(3, "killer.ballots", 1, "vote", public=True),
    )
    view = SeatView(get_variant("killer"), 1, {}, {}, items)
    assert [i.seq for i in secret_record(view).history] == [2]
    # a variant that declares nothing restated keeps every secret item
    # TOY_INFO declares nothing
    other = SeatView(Toy(), 1, {}, {}, (HistoryItem(0, "toy.role", 0, "setup"), echo(1, False)))
    assert secret_record(other).history == secret_view(other).history


# Which events state again each answer a variant declares restated (the
# independent evidence for its ``restated_answers``): the seat's next such item.
RESTATERS = {
    "killer": {
        "kill_opinion": {"killer.opinions"},  # KG-3
        "check_opinion": {"killer.opinions"},  # KG-4
        "speech": {"killer.speech"},  # KG-8, KG-14
        "last_words": {"killer.last_words"},  # KG-6
        "vote": {"killer.ballots"},  # KG-9
    },
    "werewolf": {
        "protect": {"werewolf.protection"},  # WW-8
        "inspect": {"werewolf.inspection"},  # WW-10
        "wolf_message": {"werewolf.wolf_message"},  # WW-6
        "kill": {"werewolf.wolf_votes"},  # WW-7
        "speech": {"werewolf.speech"},  # WW-12
        "last_words": {"werewolf.last_words"},  # WW-11
        "vote": {"werewolf.ballots"},  # WW-14
    },
    "four_factions": {
        "proofs": {"ff.proofs", "ff.no_statement"},  # FF-13, FF-29
        "accusation": {"ff.accusation", "ff.no_statement"},  # FF-14
        "protection": {"ff.protection", "ff.no_statement"},  # FF-15
        "speak": {"ff.speech", "ff.pass"},  # FF-17
        "loadout": {"ff.loadout"},  # FF-5
    },
}
TEXT_KEYS = {"speech", "message"}  # shown as the item's quoted words, not as facts


def _names(item: HistoryItem, seat: int) -> bool:
    facts = item.facts
    keyed = any(isinstance(v, dict) and str(seat) in v for v in facts.values())
    named = any(facts.get(key) == seat for key in ("seat", "doctor", "seer"))
    return item.speaker == seat or named or keyed


def _states(item: HistoryItem, seat: int, key: str, value: object) -> bool:
    """Whether the item says the seat's answer ``key = value`` (a list in any
    order: the events sort them)."""

    def same(stated: object) -> bool:
        if isinstance(value, tuple | list) and isinstance(stated, tuple | list):
            return sorted(value) == sorted(stated)
        return stated == value

    if key in item.facts:
        return same(item.facts[key])
    return any(
        isinstance(v, dict) and str(seat) in v and same(v[str(seat)]) for v in item.facts.values()
    )


@pytest.mark.parametrize("variant", sorted(RESTATERS))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_answer_the_shared_record_drops_is_stated_by_a_later_item(
    variant: str, seed: int
) -> None:
    game = new_game(variant, seed)
    play(game, random.Random(seed))
    restaters = RESTATERS[variant]
    dropped = 0
    for seat in game.seats:
        view = game.view(seat)
        kept = {i.seq for i in secret_record(view).history}
        history = view.history
        for n, echo in enumerate(history):
            if echo.public or echo.kind != "core.decision" or echo.seq in kept:
                continue
            decision = str(echo.facts["decision"])
            assert decision in restaters, f"{variant}: {decision} dropped with no restating event"
            later = [
                i for i in history[n + 1 :] if i.kind in restaters[decision] and _names(i, seat)
            ]
            assert later, f"{variant} seed {seed} seat {seat}: {decision} is said nowhere else"
            for key, value in echo.facts["payload"].items():
                if key not in TEXT_KEYS and key != "concede":
                    assert _states(later[0], seat, key, value), (decision, key, later[0])
            dropped += 1
    assert dropped, "some answers were dropped"


def _scalars(value: object) -> list[str]:
    # a flag is worded ("the faction's ELITE", "a regular"); an elite has no single weapon
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, dict):
        return [*map(str, value), *(s for v in value.values() for s in _scalars(v))]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _scalars(v)]
    return [str(value)]


@pytest.mark.parametrize("variant", sorted(RESTATERS))
def test_every_card_item_the_shared_record_drops_is_on_the_role_card(variant: str) -> None:
    """``card_kinds``: each fact of such an item (seats, roles, factions) is
    written on the seat's role card, which the shared layout shows instead."""
    game = new_game(variant, 2)
    last = {c.seat: c for c in play(game, random.Random(2), pick=lambda g, r: True)}
    card_kinds = get_variant(variant).info.card_kinds
    checked = 0
    for c in last.values():
        prompt = render_prompt(c.view, c.request, style="compact", shared_record=True)
        text = prompt.messages[1]["content"]
        start = text.index("# Your role card")
        end = text.find("\n# ", start)
        card = text[start : end if end >= 0 else None].lower()
        for item in c.view.history:
            if item.kind in card_kinds:
                for fact in _scalars(list(item.facts.values())):
                    assert fact.lower() in card, (variant, c.seat, item.kind, fact)
                checked += 1
    assert checked > len(last), "every seat has a card item, some more"


def _field(kind: str, options: list[object]) -> dict[str, object]:
    return {"name": "f", "kind": kind, "options": options, "not_self": False}


def test_options_are_written_alike_only_where_they_are_the_living_but_ones_own() -> None:
    view = SeatView(get_variant("killer"), 4, {}, {"living": [1, 2, 4, 7]}, ())
    shared = layout.shared_options(_field("choice", [1, 2, 7]), view)
    assert shared["options"] == [1, 2, 4, 7] and shared["not_self"] is True
    assert layout.shared_options(_field("multi", [1, 2, 7]), view)["not_self"] is True
    # a revote between two other seats, a list that holds the seat, words, free
    # text, a dead seat: left as they are (still exact, only not shared)
    for kind, options in [
        ("choice", [2, 7]),
        ("choice", [1, 2, 4, 7]),
        ("choice", ["none", "police"]),
        ("text", []),
    ]:
        assert layout.shared_options(_field(kind, options), view) == _field(kind, options)
    dead = SeatView(get_variant("killer"), 3, {}, {"living": [1, 2, 4, 7]}, ())
    assert layout.shared_options(_field("choice", [1, 2, 4, 7]), dead)["not_self"] is False


def test_the_step_under_way_is_its_last_day_and_phase() -> None:
    items = [
        HistoryItem(0, "a", 1, "night", public=True),
        HistoryItem(1, "b", 1, "speeches", public=True),
        HistoryItem(2, "c", 1, "speeches", speaker=3, speech="hi", public=True),
    ]
    assert current_step(items) == 2
    assert current_step(items[:1]) == 1
    assert current_step([]) == 0


def test_a_condensation_ending_inside_the_step_still_moves_the_steps_items() -> None:
    """The shared condensation ends on a multiple of 48 items, which may fall
    inside the step under way: the step's items shown in full still come
    after the question (before, none moved, and every later speaker re-read
    the question and options after the newest speech)."""
    game = new_game("killer", 4)
    captured = play(game, random.Random(4), pick=lambda g, r: r.decision == "speech")
    c = [c for c in captured if c.view.public["day"] == 1][5]  # the sixth speaker
    view = layout.public_view(c.view)
    count = current_step(view.history)
    assert count >= 4
    upto = len(view.history) - 2  # the step's last two items in full
    record = summarized_record(view, "en", upto, None)
    history = record.lines[record.summary_lines :]
    before, step = layout.split_step(view, "en", history, record.first)
    assert before == [] and step == history, "every item in full is the step's"
    assert step[0] == "--- Day 1 · speeches ---"
    assert sum(" said (speech): " in line for line in step) == 2
    assert layout.split_step(view, "en", history) == (history, [])  # the step's start is gone


def test_a_field_only_some_seats_are_asked_comes_after_the_card() -> None:
    """Killer's KG-13 concession (own_fields): a police or killer seat once a
    side is down to one. Its field and sentence follow that seat's card, so
    the question, the fields and the hint read alike for the whole step."""
    game = new_game("killer", 1)
    captured = play(game, random.Random(1), pick=lambda g, r: r.decision == "speech")
    may = [c for c in captured if any(f.name == "concede" for f in c.request.fields)]
    assert may, "seed 1 reaches a side down to one"

    def round_of(c: Captured) -> tuple[int, int]:  # a day's speeches, before any revote
        return c.view.public["day"], len(c.view.public["ballots_today"])

    step = [c for c in captured if round_of(c) == round_of(may[0])]
    assert any(not any(f.name == "concede" for f in c.request.fields) for c in step)
    sent = []
    for c in step:
        rendered = render_prompt(c.view, c.request, style="compact", shared_record=True)
        fmt = grammar_format(
            c.request, limits_for("compact"), 448, "en", shared=True, own_fields=rendered.own_fields
        )
        assert fmt is not None
        user = fmt.messages(rendered.messages, rendered.answer_chars)[1]["content"]
        card = user.index("# Your role card")
        asked = any(f.name == "concede" for f in c.request.fields)
        assert rendered.own_fields == (("concede",) if asked else ())
        assert '"concede"' not in user[:card] and "KG-13" not in user[:card]
        assert ('# Also yours to answer\n- "concede": ' in user[card:]) == asked
        sent.append(user)
    heads = [u[: u.index("# This step so far")] for u in sent]
    assert len(set(heads)) == 1, "now, the question, the fields and the hint: one text"
    # the seat layout keeps the concession in the question, as before
    c = may[0]
    plain = render_prompt(c.view, c.request, style="compact").messages[1]["content"]
    assert "KG-13" in plain[plain.index("# Question") :]


def _sent_with_memos(
    captured: list[Captured], belief_probe: bool = False
) -> dict[tuple[int, int], str]:
    """Each captured request's user message as the agent sends it (the
    grammar's shape inserted), with one memo per seat kept across them."""
    memos: dict[int, RecordMemo] = {}
    sent: dict[tuple[int, int], str] = {}
    for c in captured:
        memo = memos.setdefault(c.seat, RecordMemo())
        rendered = render_prompt(
            c.view,
            c.request,
            style="compact",
            shared_record=True,
            memo=memo,
            belief_probe=belief_probe,
        )
        fmt = grammar_format(c.request, limits_for("compact"), 448, "en", shared=True)
        messages = (
            fmt.messages(rendered.messages, rendered.answer_chars)
            if fmt is not None
            else rendered.messages
        )
        render.hold(memo, rendered, messages)
        sent[c.step, c.seat] = messages[1]["content"]
    return sent


def test_a_vote_after_the_days_speeches_keeps_their_question_in_place() -> None:
    """Issue 24: a vote that follows the day's speeches starts with the head
    every speaker's prompt had (record, now, the speech question, fields and
    shape), then all the speeches, then the vote's own question: its seats
    share the last speaker's prompt up to that speaker's card and re-read
    only the last speech, not the day's speeches after a new question."""
    game = new_game("killer", 4)
    captured = play(game, random.Random(4), pick=lambda g, r: r.decision in ("speech", "vote"))
    day = [c for c in captured if c.view.public["day"] == 1]
    speeches = [c for c in day if c.request.decision == "speech"]
    first_vote = next(c.step for c in day if c.request.decision == "vote")
    votes = [c for c in day if c.step == first_vote]
    assert len(speeches) >= 6 and len(votes) >= 6
    sent = _sent_with_memos(speeches + votes)
    last = sent[speeches[-1].step, speeches[-1].seat]
    head = last[: last.index("# Your role card")].rstrip("\n") + "\n"
    users = [sent[c.step, c.seat] for c in votes]
    for user in users:
        assert user.startswith(head), "the last speaker's prompt up to its card"
        rest = user[len(head) : user.index("# Your role card")]
        said = [line for line in rest.splitlines() if " said (speech): " in line]
        assert said == [s for s in said if s.startswith(f"Seat {speeches[-1].seat} said")]
        assert len(said) == 1, rest  # the last speech, then the vote's own part
        assert rest.index("# Now") < rest.index("# Question") < rest.index("# This step so far")
        assert "sealed ballot (KG-9)" in rest and "your turn to speak" not in rest
        assert user.count("# Question") == 2  # the speeches' question stays where it was
    assert len({u[: u.index("# Your role card")] for u in users}) == 1, "alike for every seat"
    # without the memos (a resumed seat), the usual layout: the record first
    plain = render_prompt(votes[0].view, votes[0].request, style="compact", shared_record=True)
    assert plain.messages[1]["content"].count("# Question") == 1


def test_a_held_head_is_used_only_for_the_next_step_of_the_same_day() -> None:
    """A seat's head is used only by the step right after its own (no other
    step's items between) on the same day: a day's speakers, whose previous
    prompt was another day's vote, get the usual layout; so do a revote's
    seats who did not speak before it (a tie's speeches came between)."""
    game = new_game("killer", 4)
    captured = play(game, random.Random(4), pick=lambda g, r: r.decision in ("speech", "vote"))
    sent = _sent_with_memos(captured)
    voted: set[int] = set()  # days with a vote so far
    by_step: dict[int, list[Captured]] = {}
    for c in captured:
        by_step.setdefault(c.step, []).append(c)
        day = c.view.public["day"]
        user = sent[c.step, c.seat]
        if c.request.decision == "vote":
            voted.add(day)
        elif day not in voted:  # the day's speeches: the day before ended with a vote
            assert user.startswith("# Record") and user.count("# Question") == 1
    votes = [group for group in by_step.values() if group[0].request.decision == "vote"]
    revotes = [g for g in votes if any(sent[c.step, c.seat].count("# Question") > 2 for c in g)]
    assert revotes, "seed 4 has a revote after a tie's speeches"
    for group in revotes:
        plain = [c for c in group if sent[c.step, c.seat].count("# Question") == 1]
        assert plain, "the seats who did not speak in the tie"
        assert all(sent[c.step, c.seat].startswith("# Record") for c in plain)


def test_a_held_prompt_asks_for_beliefs_too_when_the_probe_is_on() -> None:
    """The vote after the speeches keeps the speech's fields in its head and
    lists its own after them, the belief probe's included."""
    game = new_game("killer", 4)
    captured = play(game, random.Random(4), pick=lambda g, r: r.decision in ("speech", "vote"))
    day = [c for c in captured if c.view.public["day"] == 1]
    first_vote = next(c.step for c in day if c.request.decision == "vote")
    votes = [c for c in day if c.step == first_vote]
    sent = _sent_with_memos([c for c in day if c.step <= first_vote], belief_probe=True)
    for c in votes:
        user = sent[c.step, c.seat]
        assert user.count("# Question") == 2
        own = user[user.rindex("# Your answer") : user.index("# Your role card")]
        assert '- "target"' in own and '- "beliefs"' in own, own
