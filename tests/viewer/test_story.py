"""The story at the end (issue 38, item 6): a night-by-night recap of what the
referee saw, each claim marked true or false against the roles, one vote tally
per day; in the viewer's reader mode and only once the game is over."""

from __future__ import annotations

import re
from pathlib import Path

from sandbox.transcript import read_transcript
from sandbox.viewer.site import game_page
from sandbox.viewer.story import Story, build_story
from tests.viewer.games import cut, played_transcript

ROOT = Path(__file__).parents[2]
SAMPLE = ROOT / "docs" / "sample" / "killer-sample.jsonl"


def lines(story: Story, title: str) -> list[str]:
    return next(c for c in story.chapters if c.title == title).lines  # type: ignore[return-value]


def test_the_nights_say_the_kill_and_the_check() -> None:
    story = build_story(read_transcript(SAMPLE), "en")
    assert story is not None and story.title == "The story of the game"
    night = [line.text for line in lines(story, "Night 1")]
    assert "The killers choose seat 3 (by a seeded draw)." in night
    assert "The judge tells the police: seat 1 is a killer." in night
    assert all(line.label is None for line in lines(story, "Night 1"))  # no claims at night
    assert story.summary is not None and "conceded" in story.summary


def test_each_claim_is_marked_against_the_roles() -> None:
    story = build_story(read_transcript(SAMPLE), "en")
    assert story is not None
    day = {line.text: line for line in lines(story, "Day 1")}
    # seat 5 (police) told the truth about its check; seat 11 (killer) framed seat 8
    checked = day["Seat 5 says it checked seat 1: killer; seat 1 is killer"]
    assert (checked.label, checked.mark) == ("true", "true")
    framed = day["Seat 11 accuses seat 8 (killer); seat 8 is civilian"]
    assert (framed.label, framed.mark) == ("lie", "false")
    assert framed.why == "false, and the speaker knew it"
    mistaken = day["Seat 4 accuses seat 8 (killer); seat 8 is civilian"]
    assert (mistaken.label, mistaken.mark) == ("error", "false")


def test_one_vote_tally_per_day_then_the_verdict() -> None:
    story = build_story(read_transcript(SAMPLE), "en")
    assert story is not None
    texts = [line.text for line in lines(story, "Day 1")]
    tallies = [t for t in texts if t.startswith("Day 1 vote:")]
    assert tallies == [
        "Day 1 vote: seat 1: 7 votes (seats 4, 5, 6, 7, 8, 9, 10); seat 8: 1 vote (seat 11); "
        "no vote: seats 1, 2"
    ]
    assert texts.index(tallies[0]) + 1 == texts.index("Seat 1 is voted out.")
    assert texts[0] == "Day 1 dawns; seat 3 was killed."


def test_the_story_in_chinese() -> None:
    story = build_story(read_transcript(SAMPLE), "zh")
    assert story is not None and story.title == "本局回顾"
    day = [line.text for line in lines(story, "第1天")]
    assert "11号指认8号（杀手）；8号实为平民" in day
    assert any(t.startswith("第1天投票：1号：7 票") for t in day)


def test_a_werewolf_night_says_the_protection_and_the_check(tmp_path: Path) -> None:
    story = build_story(played_transcript(tmp_path, "werewolf", 3), "en")
    assert story is not None
    night = " ".join(line.text for line in lines(story, "Night 1"))
    assert "protects" in night and "checks" in night
    day = lines(story, "Day 1")
    assert sum(1 for line in day if line.text.startswith("Day 1 vote:")) == 1
    assert any(line.label in ("true", "lie", "error") for line in day)
    # a promised vote is kept or broken, not "true" or "false"
    kept = [line for line in day if line.text == "Seat 5 promises a vote for seat 1"]
    assert [(line.label, line.mark) for line in kept] == [("true", "kept")]


def test_an_unfinished_game_has_no_story(tmp_path: Path) -> None:
    transcript = read_transcript(SAMPLE)
    assert build_story(cut(tmp_path, transcript, 60, "cut.jsonl"), "en") is None


def test_reader_mode_of_the_referee_page() -> None:
    page = game_page(read_transcript(SAMPLE), None, None, "docs/sample/killer-sample.jsonl")
    assert 'id="reader"' in page and 'id="show-forks"' in page
    assert '<section class="recap" id="recap">' in page
    assert "body.reader:not(.forks) button.fork{display:none}" in page  # forks only when asked
    assert "body.reader .cat-decision" in page  # one tally a day, not each ballot


def test_a_seat_page_carries_no_story() -> None:
    """A seat's file holds that seat's data only: the referee's recap stays out."""
    page = game_page(read_transcript(SAMPLE), 4, None, None)
    assert 'class="recap"' not in page
    assert not re.search(r"The judge tells the police", page)


def test_reader_mode_keeps_the_last_ballots_of_each_day(tmp_path: Path) -> None:
    """Werewolf announces each ballot on its own (WW-14): reader mode hides all
    but the day's last announcement, which carries the whole round."""
    transcript = played_transcript(tmp_path, "werewolf", 3)
    page = game_page(transcript, None, None, None)
    ballots = [e for e in transcript.events if e.kind.endswith(".ballots")]
    days = {getattr(e, "day", None) for e in ballots}
    assert len(ballots) > len(days)
    assert page.count('data-tally="extra" data-speaker') == len(ballots) - len(days)
    # the last carries the day's whole tally, shown in reader mode in its stead
    assert page.count('data-tally="last" data-speaker') == len(days)
    assert page.count('<span class="tally reader-only">Day 1 vote: seat 5: 6 votes') == 1
