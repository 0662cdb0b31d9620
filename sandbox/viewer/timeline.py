"""A transcript turned into what one audience may read, grouped by day and phase.

The terminal and HTML viewers both draw from a :class:`Timeline`, so what a
seat's view shows is decided in one place: only events whose recorded
visibility admits the seat are ever looked at (never the referee's calls and
notes, the seed, or other seats' roles and controllers). Every line is said by
the one words renderer (:mod:`sandbox.words`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sandbox.core.events import DecisionMade, Event, GameEnded, StepResolved
from sandbox.core.variant import HistoryItem, Variant
from sandbox.core.words import LANGUAGES, Lang
from sandbox.games.registry import get_variant
from sandbox.session.hearing import hearing_of
from sandbox.transcript import Transcript
from sandbox.transcript.audience import history_index, seat_numbers, vis_of, visible_pairs
from sandbox.viewer.board import Effects, effects_of, known_variants
from sandbox.viewer.calls import CallLine, calls_by_request
from sandbox.words import (
    BOOKKEEPING,
    DECISION,
    ENDING,
    REFEREE,
    SPEECH,
    Tag,
    Words,
    card_rows,
    controller_of,
    line_text,
    phase_title,
    role_words,
    words_for,
)

__all__ = [
    "BOOKKEEPING",
    "DECISION",
    "ENDING",
    "REFEREE",
    "SPEECH",
    "CallLine",
    "Entry",
    "OutcomeRow",
    "Section",
    "Timeline",
    "build_timeline",
    "seat_numbers",
]


@dataclass(frozen=True)
class Entry:
    """One line of the story, with everything a viewer needs to place and filter it."""

    seq: int
    words: Words
    day: int = 0
    phase: str = "setup"
    vis: tuple[int, ...] | str = "public"  # "public", "referee" or the seats that see it
    you: Words | None = None  # the speaker's own audience reads its decisions as "You …"
    role: str | None = None  # the speaker's true role (referee only)
    controller: str | None = None  # model name, bot, human (referee only)
    note: str | None = None  # the model's private reasoning (referee only)
    calls: tuple[CallLine, ...] = ()
    effects: Effects = field(default_factory=dict)
    fork_at: int | None = None  # `sandbox fork --at N` keeping this line
    data: Mapping[str, Any] = field(default_factory=dict)  # the event's fields

    @property
    def category(self) -> str:
        return self.words.category

    @property
    def speaker(self) -> int | None:
        return self.words.speaker

    @property
    def kind(self) -> str:
        return self.words.kind

    @property
    def text(self) -> str:
        return line_text(self.words)

    @property
    def audience(self) -> str:
        if isinstance(self.vis, str):
            return self.vis
        return "seats " + ", ".join(str(s) for s in self.vis)

    def visible_to(self, seat: int | None) -> bool:
        if seat is None or self.vis == "public":
            return True
        return isinstance(self.vis, tuple) and seat in self.vis


@dataclass
class Section:
    day: int
    phase: str
    entries: list[Entry] = field(default_factory=list)
    language: str = "en"

    @property
    def title(self) -> str:
        return phase_title(self.day, self.phase, self.language, known_variants())


@dataclass
class OutcomeRow:
    seat: int
    role: str | None
    agent: str | None
    result: str | None


@dataclass
class Timeline:
    title: str
    variant: str
    language: str
    seat: int | None  # None: the referee
    facts: list[tuple[str, str]]
    private: Mapping[str, Any]
    cards: list[tuple[int, Mapping[str, Any]]]  # (seq, the seat's card from then on)
    sections: list[Section]
    outcome_summary: str | None
    outcome_rows: list[OutcomeRow]
    finished: bool
    seats: list[int]
    roles: dict[int, str]  # true roles in words (referee only; empty for a seat)
    controllers: dict[int, str]  # referee only
    fork_command: str = "sandbox fork {file} --at {at}"

    @property
    def audience(self) -> str:
        return "referee" if self.seat is None else f"seat {self.seat}"

    @property
    def entries(self) -> list[Entry]:
        return [e for s in self.sections for e in s.entries]

    @property
    def card(self) -> list[tuple[str, str]]:
        """The seat's role card as (label, words) lines, for people to read."""
        return card_rows(self.private, self.language, known_variants())[0]


# ------------------------------------------------------------- the story


def build_timeline(
    transcript: Transcript, seat: int | None, language: str | None = None
) -> Timeline:
    """What ``seat`` (None: the referee) may read of ``transcript``, in ``language``
    (default: the game's own prompt language, else English)."""
    language = language or default_language(transcript)
    Lang(language)  # refuse an unknown language early, with its name
    variant = get_variant(str(transcript.header["variant"]))
    pairs = seat_pairs(transcript, seat)
    index = history_index(variant, transcript, seat_numbers(transcript))
    entries = _entries(variant, transcript, pairs, index, seat, language)
    private, cards = _cards(variant, transcript, seat, language)
    truth = seat is None
    return Timeline(
        title=f"{variant.title} — {transcript.path.name}",
        variant=variant.name,
        language=language,
        seat=seat,
        facts=_facts(transcript, seat),
        private=private,
        cards=cards,
        sections=_sections(entries, language),
        outcome_summary=_summary(pairs, language, variant),
        outcome_rows=_outcome_rows(transcript, pairs, seat, language),
        finished=transcript.finished,
        seats=seat_numbers(transcript),
        roles=_roles(transcript, language) if truth else {},
        controllers=_controllers(transcript) if truth else {},
    )


def seat_pairs(transcript: Transcript, seat: int | None) -> list[tuple[int, Event]]:
    """The (seq, event) pairs ``seat`` may read (None: the referee, every one):
    those its recorded visibility admits, less any its seats never heard (a
    what-if branch's removed speech, ``sandbox.session.hearing``)."""
    pairs = visible_pairs(transcript, seat)
    return pairs if seat is None else hearing_of(transcript.header).filter(pairs)


def default_language(transcript: Transcript) -> str:
    config = transcript.header.get("config") or {}
    language = (config.get("llm") or {}).get("language")
    return language if language in LANGUAGES else "en"


def _entries(
    variant: Variant[Any],
    transcript: Transcript,
    pairs: Sequence[tuple[int, Event]],
    index: Mapping[int, HistoryItem],
    seat: int | None,
    language: str,
) -> list[Entry]:
    referee = seat is None
    calls = calls_by_request(transcript, language) if referee else {}
    roles = _roles(transcript, language) if referee else {}
    forks = _fork_points(transcript)
    entries: list[Entry] = []
    day, phase = 0, "setup"
    carried: tuple[tuple[CallLine, ...], str | None] = ((), None)
    for position, (seq, event) in enumerate(pairs):
        item = index.get(seq)
        if item is not None:
            day, phase = item.day, item.phase
        if isinstance(event, StepResolved | GameEnded):
            continue  # bookkeeping; the outcome is shown after the story
        following = pairs[position + 1][1] if position + 1 < len(pairs) else None
        data = event.to_json()["data"]
        own_calls = tuple(calls.get(str(data.get("request_id")), ()))
        if isinstance(event, DecisionMade) and quoted_by(event, following):
            # its announcement follows: say it once, with the decision's note and calls
            carried = (carried[0] + own_calls, event.note or carried[1])
            continue
        words = words_for(variant, event.kind, data, language)
        speaker = words.speaker
        note = words.note if referee else None
        entry = Entry(
            seq=seq,
            words=replace(words, note=None),
            day=day,
            phase=phase,
            vis=vis_of(transcript.visibility[seq]),
            you=words_for(variant, event.kind, data, language, you=speaker)
            if isinstance(event, DecisionMade)
            else None,
            role=roles.get(speaker) if speaker is not None else None,
            # who really made it: a fork's copied decisions and a take-over's
            # decisions are credited to the agent that played them then
            controller=controller_of(transcript.agent_at(speaker, seq))
            if referee and speaker is not None
            else None,
            note=(carried[1] or note) if referee else None,
            calls=carried[0] + own_calls,
            effects=effects_of(event.kind, data, words, language),
            fork_at=next((p for p in forks if p > seq), None),
            data=data,
        )
        carried = ((), None)
        entries.append(entry)
    return entries


def _sections(entries: Sequence[Entry], language: str) -> list[Section]:
    sections: list[Section] = []
    for entry in entries:
        if not sections or (sections[-1].day, sections[-1].phase) != (entry.day, entry.phase):
            sections.append(Section(entry.day, entry.phase, language=language))
        sections[-1].entries.append(entry)
    return sections


def quoted_by(decision: DecisionMade, following: Event | None) -> bool:
    """Whether the next event repeats this decision's text word for word (a speech
    and its public announcement), so that showing both would say it twice. A
    fallback is news of its own and keeps its line; a note moves to the announcement."""
    if following is None or decision.fallback:
        return False
    data = following.to_json()["data"]
    if data.get("seat") != decision.seat:
        return False
    texts = [v for v in decision.payload.values() if isinstance(v, str)]
    shown = list(data.values())
    return bool(texts) and all(text in shown for text in texts)


def _fork_points(transcript: Transcript) -> list[int]:
    from sandbox.core.game import fork_points  # the rule `sandbox fork` checks

    return fork_points(transcript.events)


def card_versions(transcript: Transcript, seat: int) -> list[tuple[int, Mapping[str, Any]]]:
    """Each version of ``seat``'s card, from the event that made it (for the viewer)."""
    variant = get_variant(str(transcript.header["variant"]))
    return _cards(variant, transcript, seat, "en")[1]


def _cards(
    variant: Variant[Any], transcript: Transcript, seat: int | None, language: str
) -> tuple[Mapping[str, Any], list[tuple[int, Mapping[str, Any]]]]:
    """A seat's card at the end, and each version of it from the event that made it."""
    if seat is None:
        return {}, []
    pairs = seat_pairs(transcript, seat)
    fold = variant.view_fold(seat)
    cards: list[tuple[int, Mapping[str, Any]]] = []
    if fold is None:
        view = variant.build_view(seat, pairs)
        return view.private, [(0, view.private)] if view.private else []
    for seq, event in pairs:
        fold.add(seq, event)
        private = fold.snapshot().private
        if not cards or cards[-1][1] != private:
            cards.append((seq, private))
    return (cards[-1][1] if cards else {}), cards


# ------------------------------------------------------------- header facts


def _roles(transcript: Transcript, language: str) -> dict[int, str]:
    roles = transcript.header.get("roles") or {}
    return {int(s): role_words(str(r), language, known_variants()) for s, r in roles.items()}


def _controllers(transcript: Transcript) -> dict[int, str]:
    agents = transcript.header.get("agents") or {}
    return {int(s): controller_of(a) for s, a in agents.items()}


def _facts(transcript: Transcript, seat: int | None) -> list[tuple[str, str]]:
    header = transcript.header
    facts = [("variant", str(header.get("variant"))), ("audience", _aud(seat))]
    if seat is None:
        # The seed and the seat agents reveal the deal: referee only.
        facts += [("seed", str(header.get("seed"))), ("started", str(header.get("started")))]
        for key in ("study", "cell"):
            if header.get(key) is not None:
                facts.append((key, str(header[key])))
        if header.get("forked_from"):
            src = header["forked_from"]
            facts.append(("forked from", f"{src.get('transcript')} at event {src.get('at')}"))
    facts.append(("status", "finished" if transcript.finished else "unfinished"))
    return facts


def _aud(seat: int | None) -> str:
    return "referee (everything)" if seat is None else f"seat {seat} (only what it may see)"


def _summary(
    pairs: Sequence[tuple[int, Event]], language: str, variant: Variant[Any]
) -> str | None:
    for _, event in pairs:
        if isinstance(event, GameEnded):
            if language == "en":
                return f"{event.summary} ({event.reason})"
            return words_for(variant, event.kind, event.to_json()["data"], language).sentence
    return None


def _outcome_rows(
    transcript: Transcript, pairs: Sequence[tuple[int, Event]], seat: int | None, language: str
) -> list[OutcomeRow]:
    """One row per seat. A seat always sees its own role and agent; once the game
    is over every role is revealed (as ``run --as-seat`` shows at the end), while
    the other seats' agents stay referee knowledge."""
    ended = next((e for _, e in pairs if isinstance(e, GameEnded)), None)
    roles = transcript.header.get("roles") or {}
    agents = transcript.header.get("agents") or {}
    rows = []
    for number in seat_numbers(transcript):
        key = str(number)
        own = seat is None or seat == number
        rows.append(
            OutcomeRow(
                number,
                role_words(str(roles.get(key)), language, known_variants())
                if own or ended is not None
                else None,
                controller_of(agents.get(key)) if own else None,
                ended.results.get(key) if ended else None,
            )
        )
    return rows


def tag_of(entry: Entry, referee: bool) -> Tag:
    """The line's tag: its number, and the speaker's role and controller for the referee."""
    if not referee:
        return Tag(seq=entry.seq)
    return Tag(seq=entry.seq, role=entry.role, controller=entry.controller)
