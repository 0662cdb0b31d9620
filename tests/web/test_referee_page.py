"""The referee spectator's page (issue 38, item 6): day headings, the board
with the true roles, no "You" badge on the bots' decisions, and the story at
the end under the results."""

from __future__ import annotations

import re
from pathlib import Path

from sandbox.transcript import read_transcript
from tests.web.helpers import WAIT_S, Client, panel_table, post


def test_the_referee_page_has_days_a_board_and_no_you(tmp_path: Path) -> None:
    with panel_table(tmp_path) as (_web, game, host):
        status, reply = post(host, "/api/host/watch", {"target": "referee"})
        assert status == 200, reply
        referee = Client.of_url(str(reply["url"]))
        post(host, "/api/host/start", {})
        game.join(WAIT_S)
        end = referee.wait_for(lambda s: s["status"] == "ended")
    assert game.path is not None
    roles = read_transcript(game.path).header["roles"]
    view = end["view_html"]
    # the history under day headings (the last day open), not one flat list
    assert len(re.findall(r'<details class="day" data-day="\d+"', view)) >= 2
    assert "<summary>Day 1</summary>" in view
    # every decision is a referee's line: nobody here is "You"
    assert 'class="tag you"' not in view and 'class="mine' not in view
    assert "votes for seat" in view
    # the board: every seat, with its true role
    assert 'class="seat-grid"' in view and 'class="seat-board"' in view
    for seat, role in roles.items():
        row = re.search(rf'<tr data-seat="{seat}" class="[^"]*"><td>Seat {seat}</td>.*?</tr>', view)
        assert row is not None and f"<td>{role}</td>" in row.group(0)
    # the story at the end, for a spectator too
    assert 'class="recap"' in end["end_html"] and "Night 1</summary>" in end["end_html"]
