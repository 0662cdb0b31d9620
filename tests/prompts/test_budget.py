"""The context budget and the cache-friendly layout, on seeded games.

- A prompt over its budget replaces its oldest history with the referee's
  summary: the prompt then fits, the summary only repeats lines the seat's
  own full record holds (so it can state nothing the seat may not know), and
  the same view always gives the same summary.
- Without a budget, a seat's record only grows: everything up to the cache
  mark of one decision starts the seat's next prompt byte for byte.
"""

from __future__ import annotations

import random
import re

import pytest

from sandbox.agents.llm.prompt.budget import (
    ESTIMATE_MARGIN,
    MAX_TOKEN_RATIO,
    SHARED_TOKEN_RATIO,
    SHARED_WINDOW_SHARE,
    SUMMARY_STEP,
    day_starts,
    estimate_tokens,
    prompt_budget,
    shared_room,
    token_ratio,
)
from sandbox.agents.llm.prompt.record import RecordMemo
from sandbox.agents.llm.prompt.render import RenderedPrompt, render_prompt
from sandbox.core.game import Game
from sandbox.core.requests import DecisionRequest
from sandbox.core.variant import HistoryItem
from tests.prompts.harness import Captured, new_game, play

SEEDS = {"four_factions": 5, "killer": 7}


def captured_game(variant: str, seed: int) -> list[Captured]:
    def every(game: Game, request: DecisionRequest) -> bool:
        return True

    return play(new_game(variant, seed), random.Random(seed), pick=every)


def total(prompt: RenderedPrompt) -> str:
    return "".join(m["content"] for m in prompt.messages)


@pytest.fixture(scope="module", params=sorted(SEEDS))
def variant(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def decisions(variant: str) -> list[Captured]:
    return captured_game(variant, SEEDS[variant])


@pytest.mark.parametrize("language", ["en", "zh"])
def test_late_prompts_over_budget_are_summarized_to_fit(
    decisions: list[Captured], language: str
) -> None:
    late = decisions[-12:]
    for c in late:
        full = render_prompt(c.view, c.request, language=language)
        budget = full.tokens * 2 // 3
        fitted = render_prompt(c.view, c.request, language=language, budget_tokens=budget)
        assert fitted.summarized > 0
        assert fitted.summarized % SUMMARY_STEP == 0 or fitted.summarized == len(c.view.history)
        assert fitted.tokens <= budget and estimate_tokens(total(fitted)) == fitted.tokens
        assert fitted.messages[0] == full.messages[0]  # the cached system text is untouched
        full_lines = set(full.messages[1]["content"].splitlines())
        record = fitted.messages[1]["content"].splitlines()
        extra = [line for line in record if line not in full_lines]
        assert len(extra) <= 1, extra  # only the note saying the record was condensed
        again = render_prompt(c.view, c.request, language=language, budget_tokens=budget)
        assert again == fitted


def test_prompts_within_budget_are_left_whole(decisions: list[Captured]) -> None:
    for c in decisions[-5:]:
        full = render_prompt(c.view, c.request)
        assert render_prompt(c.view, c.request, budget_tokens=full.tokens) == full


def test_a_tiny_budget_still_gives_a_prompt_with_the_question(decisions: list[Captured]) -> None:
    c = decisions[-1]
    fitted = render_prompt(c.view, c.request, budget_tokens=10)
    assert fitted.summarized == len(c.view.history)
    assert c.request.instruction.split()[0] in fitted.messages[1]["content"]


def test_each_prompt_starts_with_the_seats_previous_record(decisions: list[Captured]) -> None:
    """Append-only record: the previous prompt up to its cache mark is a prefix
    of the next (what a provider's prefix cache reuses)."""
    previous: dict[int, RenderedPrompt] = {}
    checked = 0
    for c in decisions:
        prompt = render_prompt(c.view, c.request)
        text = total(prompt)
        before = previous.get(c.seat)
        if before is not None:
            stable = (
                before.messages[0]["content"] + before.messages[1]["content"][: before.cache_chars]
            )
            assert text.startswith(stable)
            checked += 1
        previous[c.seat] = prompt
    assert checked > 20


def test_a_seats_memo_renders_exactly_what_a_fresh_render_does(
    decisions: list[Captured],
) -> None:
    """The seat's rendered record is extended, not redone: same text, in both
    styles (the compact window jumps and restarts the memo)."""
    memos: dict[tuple[int, str], RecordMemo] = {}
    for c in decisions:
        for style, window in (("full", None), ("compact", 6)):
            memo = memos.setdefault((c.seat, style), RecordMemo())
            kwargs = {"style": style, "history_items": window}
            assert render_prompt(c.view, c.request, memo=memo, **kwargs) == render_prompt(
                c.view, c.request, **kwargs
            )


def test_a_seats_condensation_is_kept_while_it_fits(decisions: list[Captured]) -> None:
    """Under a tight budget, a seat with its memo keeps its condensed record
    across decisions (its prompts keep one prefix) and changes it less often
    than a fresh fit per decision would, while every prompt still fits."""
    budget = render_prompt(decisions[-1].view, decisions[-1].request).tokens * 3 // 4
    memos: dict[int, RecordMemo] = {}
    previous: dict[int, tuple[str, str]] = {}
    sticky_breaks = fresh_breaks = pairs = 0
    for c in decisions:
        sticky = render_prompt(
            c.view, c.request, budget_tokens=budget, memo=memos.setdefault(c.seat, RecordMemo())
        )
        fresh = render_prompt(c.view, c.request, budget_tokens=budget)
        assert sticky.tokens <= budget
        if c.seat in previous and sticky.summarized:
            before_sticky, before_fresh = previous[c.seat]
            pairs += 1
            sticky_breaks += not total(sticky).startswith(before_sticky)
            fresh_breaks += not total(fresh).startswith(before_fresh)
        previous[c.seat] = (stable_part(sticky), stable_part(fresh))
    assert pairs > 10
    assert sticky_breaks < fresh_breaks


def stable_part(prompt: RenderedPrompt) -> str:
    return prompt.messages[0]["content"] + prompt.messages[1]["content"][: prompt.cache_chars]


def test_the_budget_is_divided_by_the_providers_tokens_per_estimated_token() -> None:
    # A window of 4096 less a 448-token answer, with the estimate's margin:
    assert prompt_budget(4096, 448, None) == int(3648 * ESTIMATE_MARGIN)
    # The provider counted 1.6 of its tokens per estimated one: the budget, in
    # estimate units, is 1.6 times smaller, so the real prompt still fits.
    assert prompt_budget(4096, 448, None, ratio=1.6) == int(3648 * ESTIMATE_MARGIN / 1.6)
    # What fitted after an overflow is already in estimate units: not divided.
    assert prompt_budget(4096, 448, 900, ratio=1.6) == 900
    assert prompt_budget(None, 448, None, ratio=2.0) is None


def test_the_token_ratio_keeps_the_most_seen_within_its_bounds() -> None:
    assert token_ratio(1.0, 1600, 1000) == 1.6
    assert token_ratio(1.6, 1200, 1000) == 1.6  # a looser call does not loosen it
    assert token_ratio(1.0, 800, 1000) == 1.0  # never below 1: the estimate only tightens
    assert token_ratio(1.0, 90_000, 1000) == MAX_TOKEN_RATIO  # a nonsense usage report
    assert token_ratio(1.3, 0, 1000) == 1.3  # no usage reported


def test_the_shared_room_is_a_share_of_the_window_for_a_denser_tokenizer() -> None:
    # 4,096 x 0.45 / 1.75 = 1,053.3: estimated tokens for the system message and public record
    assert SHARED_WINDOW_SHARE == 0.45 and SHARED_TOKEN_RATIO == 1.75
    assert shared_room(4096) == 1053
    assert shared_room(None) is None
    assert shared_room(100) == 256  # never below the smallest budget


def _step_views(seed: int) -> list[list[Captured]]:
    """Every sealed vote step of a seeded Killer game: each living seat's view at once."""
    captured = play(new_game("killer", seed), random.Random(seed), pick=lambda g, r: True)
    steps: dict[int, list[Captured]] = {}
    for c in captured:
        if c.request.decision == "vote":
            steps.setdefault(c.step, []).append(c)
    return [v for v in steps.values() if len(v) > 3]


def _shared(c: Captured, **kwargs: int) -> RenderedPrompt:
    return render_prompt(c.view, c.request, style="compact", shared_record=True, **kwargs)


def _head(p: RenderedPrompt) -> str:
    """The public record: what the condensation is a function of (the options
    after it differ in a revote, where a tied seat cannot name itself)."""
    user = p.messages[1]["content"]
    return user[: user.index("# Now")]


def test_a_shared_record_condenses_at_the_same_item_for_every_seat_of_a_step() -> None:
    last = _step_views(7)[-1]
    assert {c.role for c in last} >= {"police", "civilian"}
    # a per-seat budget that the civilians' prompts fit and a police seat's
    # (with its longer secret record) does not
    sizes = {c.seat: _shared(c).tokens for c in last}
    police = max(sizes[c.seat] for c in last if c.role == "police")
    civilian = max(sizes[c.seat] for c in last if c.role == "civilian")
    assert civilian < police
    budget = (civilian + police) // 2
    # per seat alone: the police seat condenses, the civilians do not, so their
    # prompts part right after the system message (the defect this fixes)
    apart = {_head(_shared(c, budget_tokens=budget)) for c in last}
    assert len(apart) > 1
    # with the table's shared room, every seat condenses alike first
    room = budget // 2
    prompts = [_shared(c, budget_tokens=budget, shared_room=room) for c in last]
    assert len({_head(p) for p in prompts}) == 1, "one shared prefix for the whole step"
    assert all(p.tokens <= budget for p in prompts)
    (summarized,) = {p.summarized for p in prompts}
    public = [i for i in last[0].view.history if i.public]
    assert summarized in day_starts(public), "it condenses whole days"
    assert summarized <= len(public)


def test_a_shared_records_condensation_moves_forward_a_whole_day_at_a_time() -> None:
    room = 700
    seen: list[int] = []
    for step in _step_views(5):  # a seed whose votes span three days
        (summarized,) = {_shared(c, shared_room=room).summarized for c in step}
        seen.append(summarized)
        starts = day_starts([i for i in step[0].view.history if i.public])
        assert summarized == 0 or summarized in starts, (summarized, starts)
    assert seen == sorted(seen), seen
    assert seen[0] == 0 and seen[-1] > 0, "the early record is whole, a late one condensed"
    assert len(set(seen)) > 2, "it moved more than once: a day at a time"
    # a room the whole record fits changes nothing
    step = _step_views(7)[-1]
    assert _shared(step[0], shared_room=10**6).messages == _shared(step[0]).messages


def test_the_days_of_a_record_start_where_the_day_number_changes() -> None:
    # hand-built: the setup (day 0), night and day 1 (day 1), night 2 (day 2)
    days = [0, 0, 1, 1, 1, 1, 2, 2]
    items = [HistoryItem(seq, "x", day, "p") for seq, day in enumerate(days)]
    assert day_starts(items) == [2, 6]
    assert day_starts(items[:1]) == [] and day_starts([]) == []


def test_a_roomier_shared_record_keeps_yesterday_too() -> None:
    """The least-condensed day start that fits: with more room the record
    keeps more whole days, never part of one."""
    seat = _step_views(5)[-1][0]
    starts = day_starts([i for i in seat.view.history if i.public])
    # (measured on the days before today: the record up to the day start 53;
    # the whole record fits from 1860, its phase headers in the viewer's titles)
    tight, roomy, whole = (_shared(seat, shared_room=r).summarized for r in (700, 1700, 1860))
    assert tight == starts[-1] and roomy == starts[-2], (tight, roomy, starts)
    assert whole == 0, "a room the whole record fits condenses nothing"


def test_past_the_latest_day_the_shared_record_leaves_out_whole_old_days() -> None:
    """When even the latest day start's summary does not fit, the summary's
    oldest days go, a whole day at a time, alike for every seat of a step."""
    step = _step_views(5)[-1]
    seat = step[0]
    whole = _shared(seat, shared_room=10**6)
    condensed = _shared(seat, shared_room=1600)
    fewer_days = _shared(seat, shared_room=1000)
    none_kept = _shared(seat, shared_room=700)
    assert whole.tokens > condensed.tokens > fewer_days.tokens > none_kept.tokens
    record = fewer_days.messages[1]["content"]
    # the summary starts at a day's first header: night 2, day 1 left out whole
    assert record.startswith("# Record\n--- Night 2 ---\n"), record[:80]
    assert "--- Day 1" not in record[: record.index("# Now")]
    assert "oldest lines left out too" in record
    assert len({_head(_shared(c, shared_room=1000)) for c in step}) == 1, "one prefix for all"
    # with no summary left, the record is the day's own items in full
    public = _head(none_kept)
    assert "condensed form" in public and "--- Night 2 ---" not in public


def test_a_shared_records_condensation_changes_only_where_a_day_begins() -> None:
    """Issue 24: the condensation is chosen from the days before today, so
    every step of one day (its last words, speeches, votes) keeps it, and it
    moves at most once a day (each move re-reads the record from its start).
    Measured on the whole record, it moved at a day's vote, then again at the
    next night."""
    captured = play(new_game("killer", 5), random.Random(5), pick=lambda g, r: True)
    by_day: dict[int, set[tuple[int, str]]] = {}
    for c in captured:
        public = [i for i in c.view.history if i.public]
        days = len(day_starts(public))  # which day (a night and the day after it)
        p = _shared(c, shared_room=1500)
        dropped = re.search(r"its (\d+) oldest lines left out", p.messages[1]["content"])
        by_day.setdefault(days, set()).add((p.summarized, dropped[1] if dropped else ""))
    assert all(len(kept) == 1 for kept in by_day.values()), by_day
    moves = [d for d in sorted(by_day)[1:] if by_day[d] != by_day[d - 1]]
    assert len(moves) >= 2, by_day  # the room condenses the late days
