"""A transcript turned into what one audience may read, grouped by day and phase.

Both the terminal and the HTML viewers draw from a :class:`Timeline`, so what a
seat's view shows is decided in one place: only events whose recorded
visibility admits the seat are ever looked at (never the referee's calls, the
seed or other seats' roles).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sandbox.agents.llm.beliefs import UNKNOWN
from sandbox.core.events import DecisionMade, Event, GameEnded, StepResolved
from sandbox.core.variant import HistoryItem, Variant
from sandbox.core.visibility import Visibility
from sandbox.games.registry import get_variant
from sandbox.render.readable import fact_lines
from sandbox.transcript import Transcript

SPEECH = "speech"
REFEREE = "referee"
DECISION = "decision"
BOOKKEEPING = "bookkeeping"
ENDING = "ending"


@dataclass(frozen=True)
class CallLine:
    """One model call under its decision (referee only): usage in a line and, with
    the belief probe, what the seat privately believed about the others."""

    summary: str
    beliefs: str | None = None


@dataclass(frozen=True)
class Entry:
    """One line of the story."""

    seq: int
    category: str
    text: str
    speaker: int | None = None
    audience: str = "public"
    calls: tuple[CallLine, ...] = ()


@dataclass
class Section:
    day: int
    phase: str
    entries: list[Entry] = field(default_factory=list)

    @property
    def title(self) -> str:
        return f"Day {self.day} · {self.phase}" if self.day else self.phase.capitalize()


@dataclass
class OutcomeRow:
    seat: int
    role: str | None
    agent: str | None
    result: str | None


@dataclass
class Timeline:
    title: str
    audience: str  # "referee" or "seat N"
    facts: list[tuple[str, str]]
    private: Mapping[str, Any]
    sections: list[Section]
    outcome_summary: str | None
    outcome_rows: list[OutcomeRow]
    finished: bool

    @property
    def card(self) -> list[tuple[str, str]]:
        """The seat's role card as (label, words) lines, for people to read."""
        return fact_lines(self.private)


def audience_text(raw: object) -> str:
    try:
        vis = Visibility.from_json(raw)
    except ValueError:
        return "unknown"
    if vis.scope == "seats":
        return "seats " + ", ".join(str(s) for s in sorted(vis.seats))
    return vis.scope


def visible_pairs(transcript: Transcript, seat: int | None) -> list[tuple[int, Event]]:
    """(seq, event) pairs the audience may see, judged by each line's recorded visibility.
    An unreadable visibility counts as referee-only (never shown to a seat)."""
    pairs: list[tuple[int, Event]] = []
    for seq, (event, raw) in enumerate(zip(transcript.events, transcript.visibility, strict=True)):
        if seat is None or _visible(raw, seat):
            pairs.append((seq, event))
    return pairs


def _visible(raw: object, seat: int) -> bool:
    try:
        return Visibility.from_json(raw).visible_to(seat)
    except ValueError:
        return False


def seat_numbers(transcript: Transcript) -> list[int]:
    roles = transcript.header.get("roles") or {}
    return sorted(int(s) for s in roles)


def history_index(
    variant: Variant[Any], transcript: Transcript, seats: Sequence[int]
) -> dict[int, HistoryItem]:
    """seq -> how a seat's view presents that event (day, phase, speech)."""
    index: dict[int, HistoryItem] = {}
    for seat in seats:
        view = variant.build_view(seat, visible_pairs(transcript, seat))
        for item in view.history:
            index.setdefault(item.seq, item)
    return index


def build_timeline(transcript: Transcript, seat: int | None) -> Timeline:
    variant = get_variant(str(transcript.header["variant"]))
    pairs = visible_pairs(transcript, seat)
    if seat is None:
        index = history_index(variant, transcript, seat_numbers(transcript))
        private: Mapping[str, Any] = {}
    else:
        view = variant.build_view(seat, pairs)
        index = {item.seq: item for item in view.history}
        private = view.private
    calls = _calls_by_request(transcript) if seat is None else {}
    sections = _sections(variant, pairs, index, transcript, calls)
    return Timeline(
        title=f"{variant.title} — {transcript.path.name}",
        audience="referee" if seat is None else f"seat {seat}",
        facts=_facts(transcript, seat),
        private=private,
        sections=sections,
        outcome_summary=_summary(pairs),
        outcome_rows=_outcome_rows(transcript, pairs, seat),
        finished=transcript.finished,
    )


def _sections(
    variant: Variant[Any],
    pairs: Sequence[tuple[int, Event]],
    index: Mapping[int, HistoryItem],
    transcript: Transcript,
    calls: Mapping[str, list[CallLine]],
) -> list[Section]:
    sections: list[Section] = []
    current = Section(0, "setup")
    carried: tuple[CallLine, ...] = ()  # calls of a decision whose line the next one repeats
    for position, (seq, event) in enumerate(pairs):
        item = index.get(seq)
        if item is not None and (item.day, item.phase) != (current.day, current.phase):
            if current.entries:
                sections.append(current)
            current = Section(item.day, item.phase)
        following = pairs[position + 1][1] if position + 1 < len(pairs) else None
        if isinstance(event, DecisionMade) and quoted_by(event, following):
            carried += tuple(calls.get(event.request_id, ()))
            continue
        entry = _entry(variant, seq, event, item, transcript.visibility[seq], calls)
        if entry is not None:
            if carried:
                entry = dataclasses.replace(entry, calls=carried + entry.calls)
                carried = ()
            current.entries.append(entry)
    if current.entries:
        sections.append(current)
    return sections


def quoted_by(decision: DecisionMade, following: Event | None) -> bool:
    """Whether the next event repeats this decision word for word (a speech and
    its public announcement), so that showing both would say it twice. A
    fallback or a note is news of its own and always keeps its line."""
    if following is None or decision.fallback or decision.note:
        return False
    data = following.to_json()["data"]
    if data.get("seat") != decision.seat:
        return False
    texts = [v for v in decision.payload.values() if isinstance(v, str)]
    shown = list(data.values())
    return bool(texts) and all(text in shown for text in texts)


def _entry(
    variant: Variant[Any],
    seq: int,
    event: Event,
    item: HistoryItem | None,
    raw_vis: object,
    calls: Mapping[str, list[CallLine]],
) -> Entry | None:
    audience = audience_text(raw_vis)
    if isinstance(event, StepResolved):
        return None
    if item is not None and item.speech is not None:
        return Entry(seq, SPEECH, item.speech, item.speaker, audience)
    if isinstance(event, DecisionMade):
        return Entry(
            seq,
            DECISION,
            _decision_text(event),
            event.seat,
            audience,
            tuple(calls.get(event.request_id, ())),
        )
    if isinstance(event, GameEnded):
        return None  # the outcome is shown after the story, in words and as a table
    return Entry(seq, REFEREE, variant.describe_event(event), None, audience)


def _decision_text(event: DecisionMade) -> str:
    answer = ", ".join(f"{k}={_plain(v)}" for k, v in event.payload.items())
    text = f"seat {event.seat} · {event.decision}: {answer}"
    if event.fallback:
        text += f" (fallback: {event.fallback_reason})"
    if event.note:
        text += f" — note: {event.note}"
    return text


def _plain(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    if isinstance(value, str):
        shown = value if len(value) <= 80 else value[:80] + "…"
        return json.dumps(shown, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _calls_by_request(transcript: Transcript) -> dict[str, list[CallLine]]:
    sides = true_sides(transcript)
    out: dict[str, list[CallLine]] = {}
    for call in transcript.calls:
        line = CallLine(call_summary(call), beliefs_text(call, sides))
        out.setdefault(str(call.get("request_id")), []).append(line)
    return out


def true_sides(transcript: Transcript) -> dict[str, str]:
    """seat -> its side, the role label up to '/' ('wolves' for 'wolves/elite')."""
    roles = transcript.header.get("roles") or {}
    return {str(seat): str(role).split("/", 1)[0] for seat, role in roles.items()}


def beliefs_text(call: Mapping[str, Any], sides: Mapping[str, str]) -> str | None:
    """``2→killer ✓, 6→police ✗, 7→unknown``: each guess, marked against the truth
    (an "unknown" is no guess and gets no mark); a dropped probe says why."""
    beliefs = call.get("beliefs")
    parts = []
    if isinstance(beliefs, Mapping):
        parts = [_guess_text(str(seat), str(side), sides) for seat, side in beliefs.items()]
    if call.get("beliefs_error"):
        parts.append(f"dropped: {call['beliefs_error']}")
    return ", ".join(parts) if parts else None


def _guess_text(seat: str, said: str, sides: Mapping[str, str]) -> str:
    truth = sides.get(seat)
    if said == UNKNOWN or truth is None:
        return f"{seat}→{said}"
    return f"{seat}→{said} {'✓' if said == truth else '✗'}"


def call_summary(call: Mapping[str, Any]) -> str:
    parts = [str(call.get("model") or "model")]
    if call.get("tokens_in") is not None or call.get("tokens_out") is not None:
        parts.append(f"{call.get('tokens_in') or 0}→{call.get('tokens_out') or 0} tok")
    latency = latency_of(call)
    if latency is not None:
        parts.append(f"{latency:.2f}s")
    if call.get("cost"):
        parts.append(f"${float(call['cost']):.5f}")
    for key in ("status", "error", "outcome"):
        if call.get(key):
            parts.append(f"{key}: {call[key]}")
    return " · ".join(parts)


def latency_of(call: Mapping[str, Any]) -> float | None:
    if isinstance(call.get("latency_s"), int | float):
        return float(call["latency_s"])
    if isinstance(call.get("latency_ms"), int | float):
        return float(call["latency_ms"]) / 1000
    return None


def _facts(transcript: Transcript, seat: int | None) -> list[tuple[str, str]]:
    header = transcript.header
    facts = [("variant", str(header.get("variant"))), ("audience", _aud(seat))]
    if seat is None:
        # The seed and the seat agents reveal the deal: referee only.
        facts += [("seed", str(header.get("seed"))), ("started", str(header.get("started")))]
        if header.get("forked_from"):
            src = header["forked_from"]
            facts.append(("forked from", f"{src.get('transcript')} at event {src.get('at')}"))
    facts.append(("status", "finished" if transcript.finished else "unfinished"))
    return facts


def _aud(seat: int | None) -> str:
    return "referee (everything)" if seat is None else f"seat {seat} (only what it may see)"


def _summary(pairs: Sequence[tuple[int, Event]]) -> str | None:
    for _, event in pairs:
        if isinstance(event, GameEnded):
            return f"{event.summary} ({event.reason})"
    return None


def _outcome_rows(
    transcript: Transcript, pairs: Sequence[tuple[int, Event]], seat: int | None
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
                str(roles.get(key)) if own or ended is not None else None,
                str((agents.get(key) or {}).get("kind")) if own else None,
                ended.results.get(key) if ended else None,
            )
        )
    return rows
