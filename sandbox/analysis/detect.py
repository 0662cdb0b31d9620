"""Can people tell the models from people? The detectability table of a blind
study (issue 39, item 4; docs/study-reference.md, "People: detectability").

In a blind study each person is asked at the end "which seats were played by
AI?". The answer is recorded referee-only on the game's outcome line, under
``end_answers`` (seat of the person -> ``{"ai_seats": [seats named]}``); a
transcript without it reads as before. Per answer, with O the other seats of
the game, A ⊆ O the seats a model (any agent not a person) played and N ⊆ O
the seats named:

* hits = |N ∩ A|, and the *share of AI seats named* = Σ hits / Σ |A| over
  answers, with its 95% Wilson interval
  ((p̂ + z²/2n) ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n), n = Σ |A|;
* *chance*: a person naming |N| of the |O| seats at random names each AI
  seat with probability |N|/|O|, so chance = Σ |A|·|N|/|O| / Σ |A| — the share
  a guesser naming as many seats would reach; ``above_chance`` when the
  interval's low end exceeds it;
* false alarms: people's seats named as AI, Σ |N ∩ (O∖A)| / Σ |O∖A|.

The seats named in one answer are not independent (one person named them
all): the Wilson interval treats them as if they were, so it is a little
narrow when answers are few; the table says how many answers it rests on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sandbox.analysis.intervals import wilson
from sandbox.transcript import EventRow, Transcript

ANSWERS = "end_answers"  # the outcome line's key
QUESTION = "which seats were played by AI?"


@dataclass(frozen=True)
class Answer:
    """One person's end answer in one game, against the truth."""

    game: str
    person: str  # the person's pseudonymous id
    others: tuple[int, ...]  # every other seat of the game
    ai: tuple[int, ...]  # the other seats a model played
    named: tuple[int, ...]  # the seats the person named as AI
    by_seat: Mapping[int, str]  # seat -> contestant

    @property
    def hits(self) -> int:
        return len(set(self.named) & set(self.ai))

    @property
    def false_alarms(self) -> int:
        return len(set(self.named) - set(self.ai))

    @property
    def chance_hits(self) -> float:
        """Hits expected from naming as many of the other seats at random."""
        return len(self.ai) * len(self.named) / len(self.others) if self.others else 0.0


def is_person(agent: Mapping[str, Any]) -> bool:
    """A seat a person played (a human seat, in a terminal or a page)."""
    return agent.get("kind") == "human"


def answers_of(game: Transcript[EventRow]) -> list[Answer]:
    """The end answers recorded in ``game`` (none in a game without them)."""
    found = (game.outcome or {}).get(ANSWERS)
    if not isinstance(found, Mapping):
        return []
    agents, who = game.agents, game.contestants
    out: list[Answer] = []
    for seat_key, answer in sorted(found.items(), key=lambda kv: int(kv[0])):
        seat = int(seat_key)
        raw = answer.get("ai_seats") if isinstance(answer, Mapping) else None
        if seat not in game.roles or not isinstance(raw, list):
            continue  # not a seat of this game, or no answer given
        others = tuple(s for s in sorted(game.roles) if s != seat)
        ai = tuple(s for s in others if not is_person(agents.get(s, {})))
        named = tuple(sorted({int(s) for s in raw if int(s) in others}))
        out.append(Answer(game.game_id, who.get(seat, str(seat)), others, ai, named, who))
    return out


def _share(hits: int, n: int) -> dict[str, Any]:
    ci = wilson(hits, n)
    return {
        "named": hits,
        "of": n,
        "share": round(hits / n, 4) if n else None,
        "ci95": None if ci is None else [round(ci[0], 4), round(ci[1], 4)],
    }


def _row(answers: Sequence[Answer]) -> dict[str, Any]:
    """The table's figures over ``answers``."""
    ai = sum(len(a.ai) for a in answers)
    people = sum(len(a.others) - len(a.ai) for a in answers)
    row = _share(sum(a.hits for a in answers), ai)
    chance = sum(a.chance_hits for a in answers) / ai if ai else None
    row["chance"] = None if chance is None else round(chance, 4)
    low = (row["ci95"] or [None])[0]
    row["above_chance"] = low is not None and chance is not None and low > chance
    row["answers"] = len(answers)
    row["false_alarms"] = _share(sum(a.false_alarms for a in answers), people)
    return row


def by_model(answers: Iterable[Answer]) -> dict[str, dict[str, Any]]:
    """contestant -> how often people named its seats as AI (its seats faced
    by an answering person; chance as above, per seat |N|/|O|)."""
    tally: dict[str, list[float]] = {}
    for a in answers:
        for seat in a.ai:
            cell = tally.setdefault(a.by_seat.get(seat, str(seat)), [0, 0, 0.0])
            cell[0] += int(seat in a.named)
            cell[1] += 1
            cell[2] += len(a.named) / len(a.others)
    out: dict[str, dict[str, Any]] = {}
    for who, (hits, n, chance) in sorted(tally.items()):
        row = _share(int(hits), int(n))
        row["chance"] = round(chance / n, 4)
        row["above_chance"] = bool(row["ci95"] and row["ci95"][0] > row["chance"])
        out[who] = row
    return out


def detectability(games: Sequence[Transcript[EventRow]]) -> dict[str, Any] | None:
    """The detectability table (overall, by person, by model); None when no
    game recorded an end answer."""
    answers = [a for g in games for a in answers_of(g)]
    if not answers:
        return None
    people = sorted({a.person for a in answers})
    return {
        "question": QUESTION,
        "games": len({a.game for a in answers}),
        "overall": _row(answers),
        "by_person": {p: _row([a for a in answers if a.person == p]) for p in people},
        "by_model": by_model(answers),
    }
