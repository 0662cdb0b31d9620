"""The end question's seat without a browser (issue 39, item 4): what it
accepts, what it refuses, and what happens when nobody answers."""

from __future__ import annotations

import asyncio

import pytest

from sandbox.web.audience import NoOpenDecision
from sandbox.web.end_question import END_REQUEST, BlindRun, BlindSeat
from sandbox.web.run import WebRun
from tests.web.helpers import quiet


def seat(web: WebRun, record: list[tuple[int, list[int]]], wait_s: float = 5.0) -> BlindSeat:
    found = BlindSeat(3, web.hub(), record=lambda s, n: record.append((s, n)), wait_s=wait_s)
    found.table = [1, 2, 3, 4]
    return found


def test_the_question_is_asked_once_the_game_is_over(web: WebRun) -> None:
    got: list[tuple[int, list[int]]] = []
    person = seat(web, got)
    with pytest.raises(NoOpenDecision):  # the game is not over: nothing to answer
        asyncio.run(person.answer(END_REQUEST, {"ai_seats": [1]}))
    person.finish("<p>results</p>", "<p>final view</p>")
    board = person.board
    assert board.get("status") == "your_turn" and board.get("request_id") == END_REQUEST
    assert board.get("end_html") == ""  # the results wait for the answer
    form = str(board.get("form_html"))
    assert "which seats were played by AI?" in form
    assert 'value="1"' in form and 'value="4"' in form and 'value="3"' not in form
    for wrong in ({"ai_seats": [3]}, {"ai_seats": [9]}, {"ai_seats": "1"}, ["1"]):
        assert asyncio.run(person.check(END_REQUEST, wrong)).refusal
        assert asyncio.run(person.answer(END_REQUEST, wrong))
    assert got == []
    assert asyncio.run(person.check(END_REQUEST, {"ai_seats": []})).refusal == ""
    assert asyncio.run(person.answer(END_REQUEST, {"ai_seats": [2, 1, 1]})) == ""
    assert got == [(3, [1, 2])]
    assert board.get("status") == "ended" and board.get("end_html") == "<p>results</p>"
    with pytest.raises(NoOpenDecision):  # answered once: no second answer
        asyncio.run(person.answer(END_REQUEST, {"ai_seats": [4]}))


def test_unanswered_the_results_come_when_the_wait_ends(web: WebRun) -> None:
    got: list[tuple[int, list[int]]] = []
    person = seat(web, got, wait_s=0.05)
    person.finish("<p>results</p>")
    asyncio.run(person.close())
    assert (
        person.board.get("status") == "ended" and person.board.get("end_html") == "<p>results</p>"
    )
    assert got == []
    with pytest.raises(NoOpenDecision):  # too late: the outcome line is written without it
        asyncio.run(person.answer(END_REQUEST, {"ai_seats": [1]}))
    assert got == []


def test_the_run_gives_the_answers_to_the_outcome_line() -> None:
    run = BlindRun(announce=quiet)
    try:
        assert run.outcome_extra() == {}
        run.answers[4] = [1]
        run.answers[2] = []
        assert run.outcome_extra() == {
            "end_answers": {"2": {"ai_seats": []}, "4": {"ai_seats": [1]}}
        }
    finally:
        run.stop()


def test_the_question_is_worded_in_the_seats_language(web: WebRun) -> None:
    """A Chinese seat's page asks in Chinese (its Send and Confirm already were);
    the answer it gives is the same as an English page's."""
    got: list[tuple[int, list[int]]] = []
    person = BlindSeat(
        3, web.hub(), record=lambda s, n: got.append((s, n)), wait_s=5.0, language="zh"
    )
    person.table = [1, 2, 3, 4]
    person.finish("<p>results</p>")
    form = str(person.board.get("form_html"))
    assert "哪些座位是由AI操控的？" in form and "<legend>由AI操控的座位</legend>" in form
    assert 'data-confirm="由AI操控"' in form and "1号" in form
    assert "played by AI" not in form and "The game is over" not in form
    assert asyncio.run(person.answer(END_REQUEST, {"ai_seats": [4]})) == ""
    assert got == [(3, [4])]
