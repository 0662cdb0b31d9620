"""Viewer pages on disk: one game's page, or a folder's index page plus a page
per game (``sandbox view DIR --html site/``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from sandbox.core.events import DecisionMade
from sandbox.transcript import Transcript, TranscriptError, read_transcript
from sandbox.transcript.files import SUFFIX, transcript_files
from sandbox.viewer.html import GameRow, render_html, render_index
from sandbox.viewer.story import build_story
from sandbox.viewer.timeline import build_timeline, card_versions, seat_numbers
from sandbox.words import controller_of


def game_page(
    transcript: Transcript, seat: int | None, language: str | None, fork_file: str | None
) -> str:
    """The viewer page: the referee's (every audience) or only ``seat``'s data."""
    timeline = build_timeline(transcript, seat, language)
    if seat is not None:
        return render_html(timeline)  # a player's page: no transcript path, no fork commands
    cards = {s: card_versions(transcript, s) for s in seat_numbers(transcript)}
    story = build_story(transcript, timeline.language)  # the referee's: every role
    return render_html(timeline, seat_cards=cards, fork_file=fork_file, story=story)


def write_site(folder: Path, out: Path, language: str | None) -> tuple[int, list[tuple[str, str]]]:
    """Write ``out/index.html`` and one page per readable transcript under
    ``folder``; returns the number of games and the (file, reason) skipped."""
    out.mkdir(parents=True, exist_ok=True)
    rows: list[GameRow] = []
    skipped: list[tuple[str, str]] = []
    for path in transcript_files([folder]):
        name = str(path.relative_to(folder))
        try:
            transcript = read_transcript(path)
        except (TranscriptError, ValueError, KeyError, TypeError) as err:
            skipped.append((name, str(err).splitlines()[0] if str(err) else "unreadable"))
            continue
        page = name.replace("/", "__").removesuffix(SUFFIX) + ".html"
        (out / page).write_text(game_page(transcript, None, language, str(path)), "utf-8")
        rows.append(game_row(transcript, name, page))
    (out / "index.html").write_text(render_index(folder, rows, skipped), "utf-8")
    return len(rows), skipped


def game_row(transcript: Transcript, name: str, page: str) -> GameRow:
    """One line of the index: what the game was, who played it, how it ended."""
    header = transcript.header
    outcome = transcript.outcome or {}
    cost = sum(float(c.get("cost") or 0) for c in transcript.calls)
    return GameRow(
        name=name,
        page=page,
        variant=str(header.get("variant")),
        seed=str(header.get("seed", "")),
        study=_text(header.get("study")),
        cell=_text(header.get("cell")),
        players=players_text(header.get("agents") or {}),
        outcome=str(outcome.get("summary") or "unfinished"),
        events=len(transcript.events),
        decisions=sum(isinstance(e, DecisionMade) for e in transcript.events),
        cost=f"{cost:.4f}",
    )


def players_text(agents: dict[str, dict[str, object]]) -> str:
    """``gpt-4o ×8, baseline bot ×3`` (most seats first)."""
    counts = Counter(controller_of(agent) for agent in agents.values())
    return ", ".join(f"{who} ×{n}" for who, n in counts.most_common())


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        return str(value.get("name") or value.get("id") or value)
    return str(value)
