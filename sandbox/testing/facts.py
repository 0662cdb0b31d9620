"""Which facts events state, and which of them a seat may not know: the
no-leak check's idea of a secret.

A fact is a pair (seat, label), labels being the words of ``Variant.rules.roles``.
A seat may know what the events it saw state, read generously
(:func:`stated_facts`: every seat number in an event paired with every role
word in it; a true flag counts as the word of its key; in its texts, each
sentence's seat numbers with that sentence's role words). It may not know what
the events it did not see state, read strictly (:func:`plainly_stated_facts`:
only unambiguous pairs: ``{"4": "killer"}``, ``"elite_seat": 10``, or one
field of seats beside role words, as in ``{"seat": 4, "role": "killer"}``).
So the generic reading errs towards missing a leak, not towards a false
alarm; a variant's own reading (``facts=``) gives an exact audit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Any

from sandbox.core.events import Event
from sandbox.core.game import Game

Fact = tuple[int, str]
_NUMBER = re.compile(r"\d+")
_SENTENCE = re.compile(r"(?<=[.!?;。！？；])\s*|\n")
# event -> the (seat, label) facts it states
FactReader = Callable[[Event], Iterable[Fact]]


def role_words(labels: Iterable[str]) -> frozenset[str]:
    """The words of role labels ("wolves/elite" gives "wolves" and "elite")."""
    return frozenset(w for label in labels for w in re.split(r"[/:\s]+", label.lower()) if w)


def stated_facts(words: Collection[str]) -> FactReader:
    """The generous generic reading of an event (what a seat that saw it may
    know): each seat number in its data paired with each role word in it
    (string values, and keys of true flags)."""

    def read(event: Event) -> Iterable[Fact]:
        seats: set[int] = set()
        found: set[str] = set()
        named: set[Fact] = set()
        data = event.to_json()["data"]
        _collect(data, seats, found, named)
        paired = {(s, w) for s in seats for w in found} | named
        return {(s, w) for s, w in paired if w in words} | set(said_facts(data, words))

    return read


def said_facts(
    data: Any, words: Collection[str], aliases: Mapping[str, str] | None = None
) -> Iterator[Fact]:
    """What the words of a text in ``data`` say (a seat's speech: "seat 4 is a
    killer", "4号是杀手"): each seat number written in a sentence paired with
    each role word of that sentence. A seat that heard it may repeat it: a
    player's claim is the player's word, not the referee's (issue 37, the
    no-leak audit over games of bots that speak), and a ``claim`` beside a
    ``seat`` is that seat's claim of its own role. ``aliases``: label -> another
    word for it (a translation), read as the label."""
    if isinstance(data, str):
        other = aliases or {}
        for sentence in _SENTENCE.split(data):
            lower = sentence.lower()
            named = {w for w in words if w in lower or (w in other and other[w] in sentence)}
            yield from ((int(n), w) for n in _NUMBER.findall(sentence) for w in named)
    elif isinstance(data, Mapping):
        seat, claim = data.get("seat"), data.get("claim")
        if isinstance(seat, int) and isinstance(claim, str):  # the speaker's own claim
            yield from ((seat, w) for w in role_words([claim]) if w in words)
        for item in data.values():
            yield from said_facts(item, words, aliases)
    elif isinstance(data, list | tuple):
        for item in data:
            yield from said_facts(item, words, aliases)


def plainly_stated_facts(words: Collection[str]) -> FactReader:
    """The strict generic reading of an event (what a seat that did not see it
    may not know): only unambiguous pairs: ``{"4": "killer"}`` entries, a key
    naming a role over seats (``"elite_seat": 10``), and an event whose data
    has exactly one field of seats (a number or a list of numbers) beside its
    role words (``{"seat": 4, "role": "killer"}``, ``{"role": ..., "members": [...]}``)."""

    def read(event: Event) -> Iterable[Fact]:
        data: Mapping[str, Any] = event.to_json()["data"]
        seats: set[int] = set()
        found: set[str] = set()
        named: set[Fact] = set()
        _collect(data, seats, found, named)  # only for ``named``
        pairs = set(named) | set(_entries(data))
        seat_fields = [v for v in data.values() if _seat_numbers(v) is not None]
        if len(seat_fields) == 1:
            top = {w for key, value in data.items() for w in _top_words(key, value)}
            pairs |= {(s, w) for s in _seat_numbers(seat_fields[0]) or () for w in top}
        return {(s, w) for s, w in pairs if w in words}

    return read


def forbidden_facts(
    game: Game,
    seat: int,
    upto: int,
    facts: FactReader,
    *,
    unseen: FactReader | None = None,
    learned: Callable[[Game, int, Event], Iterable[Fact]] | None = None,
) -> set[Fact]:
    """Facts about other seats stated by events before ``upto`` that ``seat``
    could not see, less those stated by events it saw. ``unseen``: another
    (stricter) reading for the events it could not see; ``learned``: what it
    may infer from an event it saw (e.g. a teammate's role)."""
    known: set[Fact] = set()
    hidden: set[Fact] = set()
    for event in game.events[:upto]:
        if event.visibility().visible_to(seat):
            known.update(facts(event))
            if learned is not None:
                known.update(learned(game, seat, event))
        else:
            hidden.update((unseen or facts)(event))
    return {(t, label) for t, label in hidden - known if t != seat}


def _seat_numbers(value: Any) -> list[int] | None:
    """The numbers of a field holding a number or a list of numbers, else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if (
        isinstance(value, list | tuple)
        and value
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return list(value)
    return None


def _top_words(key: str, value: Any) -> set[str]:
    if value is True:
        return {key.lower()}
    return set(role_words([value])) if isinstance(value, str) else set()


def _entries(value: Any) -> Iterator[Fact]:
    """(seat, word) of every ``"<seat>": "<words>"`` entry, at any depth."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if str(key).isdigit() and isinstance(item, str):
                yield from ((int(key), w) for w in role_words([item]))
            yield from _entries(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _entries(item)


def _collect(value: Any, seats: set[int], words: set[str], named: set[Fact]) -> None:
    """Seat numbers and words in ``value``; ``named``: seats under a key that
    names a role ("elite_seat": 10 gives (10, "elite"))."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        seats.add(value)
    elif isinstance(value, str):
        words.update(role_words([value]))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if str(key).isdigit():
                seats.add(int(key))
            key_words = [w for w in re.split(r"[_\W]+", str(key).lower()) if w]
            if item is True:
                words.update(key_words)
            inner: set[int] = set()
            _collect(item, inner, words, named)
            seats |= inner
            named.update((s, w) for s in inner for w in key_words)
    elif isinstance(value, list | tuple):
        for item in value:
            _collect(item, seats, words, named)
