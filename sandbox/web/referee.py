"""The referee spectator's page (issue 38, item 6): every event under its day
and phase heading, the seat board with the true roles, and no "You" badge
(the referee plays no seat: a seat's decision reads "Seat 4 votes …").

Only for a page that may show the referee's whole view (:data:`follow.FULL`:
nobody plays, or the game is over); a narrowed page stays a flat list of the
public lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from sandbox.core.game import Game
from sandbox.core.words import Words
from sandbox.viewer.board import effects_of
from sandbox.web.pages import Entry, Section, fold_days, render
from sandbox.web.table import SeatRow
from sandbox.web.words import ui
from sandbox.words import lang, phase_title, role_words

Phases = dict[int, tuple[int, str]]  # seq -> (day, phase)


def phases_of(game: Game, known: Phases) -> Phases:
    """Each event's day and phase as the seats' views place it (a referee-only
    event takes those of the event before it), ``known`` extended."""
    for seat in game.seats:
        for item in game.view(seat).history:
            known.setdefault(item.seq, (item.day, item.phase))
    return known


def referee_html(
    game: Game,
    entries: Sequence[Entry],
    said: Mapping[int, tuple[Words, Mapping[str, object]]],
    phases: Phases,
    language: str,
) -> str:
    """The board, then the history folded by day (the current day open)."""
    return _board_html(game, said, phases, language) + _history_html(
        game, entries, phases, language
    )


def _history_html(game: Game, entries: Sequence[Entry], phases: Phases, language: str) -> str:
    sections: list[Section] = []
    where: tuple[int, str] = (0, "setup")
    for entry in entries:
        where = phases.get(entry.seq, where)
        day, phase = where
        heading = phase_title(day, phase, language, game.variant)
        if not sections or sections[-1].heading != heading:
            sections.append(Section(heading, day=day))
        # the referee plays no seat: a decision is a referee's line, never "You"
        shown = replace(entry, style="referee") if entry.style == "mine" else entry
        sections[-1].entries.append(shown)
    days = fold_days(sections, language, game.variant)
    return render("_history.html", t=ui(language), days=days)


def _board_html(
    game: Game,
    said: Mapping[int, tuple[Words, Mapping[str, object]]],
    phases: Phases,
    language: str,
) -> str:
    """Every seat: alive or dead, HP, its true role, its claims and votes."""
    variant, L = game.variant, lang(language, game.variant)
    rows = {s: SeatRow(s) for s in game.seats}
    for seat, role in game.roles().items():
        rows[seat].known = role_words(role, language, variant)
    hp = False
    for seq, (words, data) in sorted(said.items()):
        fx = effects_of(game.events[seq].kind, data, words, language, variant)
        when = phase_title(phases.get(seq, (0, ""))[0], "day", language, variant)
        for seat in fx.get("dead", ()):
            _row(rows, seat).alive = False
        for seat, value in (fx.get("hp") or {}).items():
            _row(rows, seat).hp, hp = str(value), True
        for seat, value in (fx.get("claim") or {}).items():
            _row(rows, seat).said.append(f"{when}: {value}")
        for seat, value in (fx.get("vote") or {}).items():
            _row(rows, seat).votes.append(f"{when}: {value}" if not L.zh else f"{when}：{value}")
    board = [rows[s] for s in sorted(rows)]
    return render("_board.html", t=ui(language), board=board, board_hp=hp)


def _row(rows: dict[int, SeatRow], seat: object) -> SeatRow:
    number = int(str(seat))
    return rows.setdefault(number, SeatRow(number))
