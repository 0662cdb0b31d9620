"""The story at the end of a game (issue 38, item 6): night by night what the
referee saw (kills, protections, checks), each claim marked true or false
against the roles, and the day's deciding vote as one tally.

Built once from a finished transcript (or a game just over): it holds the
referee's knowledge, so the pages show it only once the game is over. Its
lines are the events' own sentences (the referee's :class:`Timeline`) and,
for what no event says, :mod:`sandbox.words.story`; the claim labels are the
statements table's (:func:`sandbox.analysis.statements.hearings`, through
each variant's ``Research.statements()``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.analysis.statements import hearings
from sandbox.core.events import Event
from sandbox.core.game import Game
from sandbox.core.words import Lang
from sandbox.games.registry import find_variant
from sandbox.transcript import EventRow, Transcript
from sandbox.transcript.sides import role_group
from sandbox.viewer.timeline import DECISION, SPEECH, Entry, Section, build_timeline
from sandbox.words import lang, role_words
from sandbox.words.story import claim_words, heading, roles_said, tally_words, verdict


@dataclass(frozen=True)
class Line:
    """One line of the recap: a sentence, and for a claim its verdict
    (``label``: true, lie, error; ``mark``: the short word people read)."""

    text: str
    label: str | None = None
    mark: str | None = None
    why: str | None = None


@dataclass
class Chapter:
    """A night, or a day, with its lines in the game's order."""

    title: str
    night: bool
    lines: list[Line] = field(default_factory=list)


@dataclass(frozen=True)
class Story:
    title: str
    hint: str
    summary: str | None
    chapters: list[Chapter]
    language: str
    tallies: dict[int, str] = field(default_factory=dict)  # day -> its vote tally


def build_story(transcript: Transcript, language: str | None = None) -> Story | None:
    """The recap of a finished ``transcript``; None for an unfinished one (its
    lines would spoil a game still going)."""
    if not transcript.finished:
        return None
    timeline = build_timeline(transcript, None, language)
    L = lang(timeline.language, find_variant(timeline.variant))
    placed: dict[tuple[int, bool], list[tuple[int, Line]]] = {}
    order: list[tuple[int, bool]] = []
    at: dict[int, tuple[int, bool]] = {}
    for section in timeline.sections:
        if section.phase == "setup":
            continue
        key = (section.day, _is_night(section))
        if key not in placed:
            placed[key] = []
            order.append(key)
        for entry in section.entries:
            at[entry.seq] = key
    for key in order:
        entries = [e for s in timeline.sections if _key(s) == key for e in s.entries]
        placed[key] += [(e.seq, Line(e.text)) for e in _night_lines(entries, key[1])]
    rows = rows_of(transcript)
    tallies = _tally_lines(rows, L)
    for seq, line in [*_claim_lines(rows, L), *[(i, ln) for i, _, ln in tallies]]:
        if seq in at:
            placed[at[seq]].append((seq, line))
    chapters = [
        Chapter(heading("night" if night else "day", L, day), night, [ln for _, ln in lines])
        for (day, night) in order
        if (lines := sorted(placed[(day, night)], key=lambda p: p[0]))
    ]
    return Story(
        heading("story", L),
        heading("hint", L),
        timeline.outcome_summary,
        chapters,
        L.code,
        {day: line.text for _, day, line in tallies},
    )


def story_of_game(game: Game, language: str) -> Story | None:
    """The recap of a game just over, from its own events (the web pages end
    before the transcript file is closed)."""
    outcome = game.outcome()
    if outcome is None:
        return None
    header: dict[str, Any] = {
        "variant": game.variant.name,
        "roles": {str(s): r for s, r in game.roles().items()},
    }
    record: Transcript = Transcript(Path("game.jsonl"), header)
    for event in game.events:
        record.events.append(event)
        record.visibility.append(event.to_json()["vis"])
    record.outcome = {"results": {str(s): r for s, r in outcome.results.items()}}
    return build_story(record, language)


def rows_of(transcript: Transcript) -> Transcript[EventRow]:
    """The transcript's events as rows (``{"seq", "kind", **data}``), as the
    statements table reads them."""
    out: Transcript[EventRow] = Transcript(transcript.path, transcript.header)
    for seq, event in enumerate(transcript.events):
        out.events.append({"seq": seq, "kind": event.kind, **_data(event)})
    out.visibility = list(transcript.visibility)
    out.outcome = transcript.outcome
    return out


def _data(event: Event) -> dict[str, Any]:
    data = event.to_json()["data"]
    return dict(data) if isinstance(data, dict) else {}


def _is_night(section: Section) -> bool:
    return "night" in section.phase


def _key(section: Section) -> tuple[int, bool]:
    return section.day, _is_night(section)


def _night_lines(entries: list[Entry], night: bool) -> list[Entry]:
    """What the recap keeps of a night or a day's events: at night, the
    referee's own record when it has one (a duel), else what the teams and
    seats were told (a kill, a protection, a check); by day, each death."""
    said = [e for e in entries if e.category not in (DECISION, SPEECH)]
    deaths = [e for e in said if e.vis == "public" and "dead" in e.effects]
    if not night:
        return deaths
    hidden = [e for e in said if e.vis == "referee"] or [e for e in said if e.vis != "public"]
    return sorted([*hidden, *deaths], key=lambda e: e.seq)


def _claim_lines(rows: Transcript[EventRow], L: Lang) -> list[tuple[int, Line]]:
    """Each claim the referee can settle, marked true or false (a lie when
    the speaker's own view ruled it out, an error when it could not know)."""
    out: list[tuple[int, Line]] = []
    variant = find_variant(rows.variant)
    for hearing in hearings(rows):
        for claim, label, _seen in hearing.judged:
            if label == "unknowable":
                continue  # the deal does not settle it: nothing to mark
            truth = rows.roles.get(claim.target) if claim.roles else None
            # a faction's ranks said once ("army", not "army/elite or army/regular")
            said = roles_said({role_group(r) for r in claim.roles}, L)
            true = role_words(truth, L.code, variant) if truth is not None else None
            text = claim_words(claim.kind, claim.speaker, claim.target, said, true, L)
            mark, why = verdict(label, L, claim.kind)
            out.append((hearing.index, Line(text, label, mark, why)))
    return out


def _tally_lines(rows: Transcript[EventRow], L: Lang) -> list[tuple[int, int, Line]]:
    """One tally per day, (event index, day, line): the day's last round of
    ballots (a new round starts at each announcement of candidates), placed
    at its last ballot."""
    variant = find_variant(rows.variant)
    rules = variant.research.statements() if variant is not None else None
    if rules is None:
        return []
    rounds: dict[int, tuple[int, dict[int, int | None]]] = {}
    day = 0
    for index, event in enumerate(rows.events):
        kind = str(event.get("kind"))
        if isinstance(event.get("day"), int):
            day = int(event["day"])  # the day runs on (as the statements table reads it)
        if kind in rules.candidates and event.get("candidates"):
            rounds[day] = (index, {})  # a new round: the tally is its last one
        elif kind in rules.ballots:
            _, cast = rounds.get(day, (index, {}))
            for seat, target in dict(event.get("ballots") or {}).items():
                cast[int(seat)] = None if target is None else int(target)
            rounds[day] = (index, cast)
    return [
        (index, day, Line(tally_words(day, cast, L)))
        for day, (index, cast) in sorted(rounds.items())
        if cast
    ]
