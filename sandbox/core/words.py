"""The building blocks of the words renderer: what one event becomes (:class:`Words`),
the language it is said in (:class:`Lang`), the shared vocabulary, the table of
words a variant declares (:class:`VariantWords`), and the one sanitiser for
player text on a terminal.

Nothing here knows the engine: sentences are built from an event's JSON form
(``kind`` + ``data``), so saved transcripts, live games and seat views all go
through the same words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

LANGUAGES = ("en", "zh")

# What a line is, for styling and filtering.
SPEECH = "speech"  # a player's own words (always quoted data, never the referee's voice)
REFEREE = "referee"  # the referee states a fact (public or private)
DECISION = "decision"  # a seat's answer to a request (seen by that seat and the referee)
ENDING = "ending"  # the result of the game
BOOKKEEPING = "bookkeeping"  # engine housekeeping (a step resolved)
CATEGORIES = (SPEECH, REFEREE, DECISION, ENDING, BOOKKEEPING)


@dataclass(frozen=True)
class Words:
    """One event in words.

    ``sentence`` is the referee's voice and never contains player text; a player's
    text is kept apart in ``speech`` (quoted when shown) and the model's private
    reasoning in ``note``. ``claims`` are the structured claims a speech carries
    (also said in ``sentence``), listed for boards and filters.
    """

    kind: str
    category: str
    sentence: str
    speaker: int | None = None
    speech: str | None = None
    claims: tuple[str, ...] = ()
    note: str | None = None


@dataclass(frozen=True)
class Tag:
    """Where a line sits: its event number, day and phase, and — for the referee
    audience only — the speaker's true role and controller (model, bot, human)."""

    seq: int | None = None
    day: int | None = None
    phase: str | None = None
    role: str | None = None
    controller: str | None = None


class Vocabulary:
    """Game words in each language: ``terms`` (values such as roles, phases and
    endings: ``{"zh": {"vote": "投票"}}``) and ``labels`` (field names:
    ``{"zh": {"seat": "座位"}}``). A word a language does not list is said as
    itself, underscores as spaces. A variant declares its own in its
    :class:`VariantWords`; :data:`SHARED` holds the words every game uses."""

    def __init__(
        self,
        terms: Mapping[str, Mapping[str, str]] | None = None,
        labels: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        self.terms: dict[str, dict[str, str]] = {k: dict(v) for k, v in (terms or {}).items()}
        self.labels: dict[str, dict[str, str]] = {k: dict(v) for k, v in (labels or {}).items()}

    def __repr__(self) -> str:
        return f"Vocabulary(terms={self.terms!r}, labels={self.labels!r})"

    def term(self, language: str, word: str) -> str | None:
        return self.terms.get(language, {}).get(word)

    def label(self, language: str, key: str) -> str | None:
        return self.labels.get(language, {}).get(key)

    def merged(self, *others: Vocabulary) -> Vocabulary:
        """This vocabulary with ``others`` added (a word listed twice keeps the
        first meaning)."""
        terms: dict[str, dict[str, str]] = {}
        labels: dict[str, dict[str, str]] = {}
        for vocabulary in (self, *others):
            for code, table in vocabulary.terms.items():
                terms.setdefault(code, {}).update(
                    (k, v) for k, v in table.items() if k not in terms.get(code, {})
                )
            for code, table in vocabulary.labels.items():
                labels.setdefault(code, {}).update(
                    (k, v) for k, v in table.items() if k not in labels.get(code, {})
                )
        return Vocabulary(terms, labels)


class Lang:
    """A language: its vocabulary and how it names seats, lists and values.

    ``vocabulary``: the game words to use on top of :data:`SHARED` (a variant's
    own, see :func:`sandbox.words.lang`); without one only the shared
    words are translated."""

    def __init__(self, code: str, vocabulary: Vocabulary | None = None) -> None:
        if code not in LANGUAGES:
            raise ValueError(f"unknown language {code!r} (known: {', '.join(LANGUAGES)})")
        self.code = code
        self.vocabulary = vocabulary

    @property
    def zh(self) -> bool:
        return self.code == "zh"

    def say(self, *, en: str, zh: str) -> str:
        return zh if self.zh else en

    def term(self, word: object) -> str:
        """A game word (role, side, phase, result, …) in this language."""
        text = str(word)
        own = self.vocabulary.term(self.code, text) if self.vocabulary is not None else None
        if own is None:
            own = SHARED.term(self.code, text)
        return own if own is not None else text.replace("_", " ")

    def seat(self, seat: object, *, capital: bool = False) -> str:
        if seat is None:
            return self.say(en="Nobody" if capital else "nobody", zh="无人")
        if self.zh:
            return f"{seat}号"
        return f"{'Seat' if capital else 'seat'} {seat}"

    def seats(self, seats: Iterable[object], *, capital: bool = False) -> str:
        listed = [str(s) for s in seats]
        if not listed:
            return self.say(en="nobody", zh="无人")
        if self.zh:
            return "、".join(listed) + "号"
        word = "Seats" if capital else "seats"
        return (
            f"{word} {', '.join(listed)}"
            if len(listed) > 1
            else self.seat(listed[0], capital=capital)
        )

    def join(self, parts: Iterable[str]) -> str:
        return ("；" if self.zh else "; ").join(parts)

    def items(self, parts: Iterable[str]) -> str:
        return ("、" if self.zh else ", ").join(parts)

    def end(self, sentence: str) -> str:
        """A full stop in this language."""
        return sentence + ("。" if self.zh else ".")

    def value(self, value: Any) -> str:
        """A value in plain words: none/yes/no, lists joined, nested tables flattened."""
        if value is None:
            return self.say(en="none", zh="无")
        if isinstance(value, bool):
            return self.say(en="yes" if value else "no", zh="是" if value else "否")
        if isinstance(value, Mapping):
            if not value:
                return self.say(en="none", zh="无")
            sep = "，" if self.zh else ", "
            return sep.join(f"{self.label(k)} {self.value(v)}" for k, v in value.items())
        if isinstance(value, list | tuple):
            if not value:
                return self.say(en="none", zh="无")
            nested = any(isinstance(v, Mapping | list | tuple) for v in value)
            sep = ("；" if self.zh else "; ") if nested else ("、" if self.zh else ", ")
            return sep.join(self.value(v) for v in value)
        if isinstance(value, str):
            return self.term(value)
        return str(value)

    def label(self, key: object) -> str:
        """A field name as words: ``living_seats`` → ``living seats``; a
        language's own word for it where the vocabulary has one."""
        text = str(key)
        own = self.vocabulary.label(self.code, text) if self.vocabulary is not None else None
        if own is None:
            own = SHARED.label(self.code, text)
        return own if own is not None else text.replace("_", " ")

    def facts(self, facts: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(label, words) per fact, in the order given."""
        return [(self.label(k), self.value(v)) for k, v in facts.items()]


# The words every game shares (phases, results, the referee); a variant's own
# words (its roles, sides, stages, endings) are in its words module.
SHARED = Vocabulary(
    terms={
        "zh": {
            "speech": "发言",
            "speeches": "发言",
            "last_words": "遗言",
            "vote": "投票",
            "revote": "重新投票",
            "dawn": "天亮",
            "over": "结束",
            "none": "无",
            "win": "胜",
            "lose": "负",
            "draw": "平局",
            "day": "白天",
            "night": "夜晚",
            "setup": "开局",
            "day_limit": "达到天数上限",
            "aborted": "中止",
            "referee": "裁判",
            "open": "自由讨论",  # OD-1 .. OD-6: an open day's words
            "message": "消息",
            "day_cap": "消息用完",
            "quiet": "无人发言",
            "no_budget": "无人还能发言",
        },
    },
    labels={
        "zh": {
            "seat": "座位",
            "role": "身份",
            "alive": "存活",
            "day": "天",
            "night": "夜",
            "target": "目标",
            "living": "存活",
            "dead": "死亡",
            "phase": "阶段",
            "stage": "阶段",
            "claims": "声明",
            "speak": "发言",
        },
    },
)


# ----------------------------------------------------------- a variant's words

# An event's data (or a view's table) as a sentence or a page reads it.
D = Mapping[str, Any]
Sentence = Callable[[D, Lang], Words]
"""One event kind in words: the event's JSON ``data`` and the language."""

Phrase = Callable[[str, Mapping[str, Any], Lang, bool], str | None]
"""What a seat answered, as the phrase after its subject ("votes for seat 5"):
(decision, payload, language, said to the seat itself); None: not this one's.
The catch-all form, over the raw payload; :data:`DecisionPhrase` is the
checked one."""


class UndeclaredField(LookupError):
    """A decision's phrase read a field its decision does not declare (a bug in
    the variant's words, so never a KeyError a ``get`` would swallow)."""


class Answer(Mapping[str, Any]):
    """A decision's answer as the fields its variant declares for it
    (``VariantInfo.decisions``), and nothing else: a declared field the payload
    left out reads None, and reading any other name raises
    :class:`UndeclaredField`, so that a phrase cannot read a field the decision
    does not have (and say "no opinion" for every answer)."""

    def __init__(self, decision: str, fields: Sequence[str], payload: Mapping[str, Any]) -> None:
        self.decision = decision
        self.fields = tuple(fields)
        self._payload = payload

    def __getitem__(self, key: str) -> Any:
        if key not in self.fields:
            declared = ", ".join(self.fields) or "none"
            raise UndeclaredField(
                f"decision {self.decision!r} has no field {key!r} (declared: {declared})"
            )
        return self._payload.get(key)

    def get(self, key: str, default: Any = None) -> Any:
        value = self[key]  # an undeclared name raises here too, unlike Mapping.get
        return default if value is None else value

    def __iter__(self) -> Iterator[str]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def __repr__(self) -> str:
        return f"Answer({self.decision!r}, {dict(self)!r})"


DecisionPhrase = Callable[[Answer, Lang, bool], str]
"""What a seat answered to one decision, as the phrase after its subject: (its
answer's declared fields, the language, said to the seat itself)."""

CardTable = Callable[[Sequence[Mapping[str, Any]], Lang], list[tuple[str, ...]]]
"""A private fact holding a list of records (e.g. every duel a seat fought)
as a table: the header row, then one row per record."""

BoardEffects = dict[str, Any]
"""What one event changes on the viewer's seat board: ``{"dead": [seat],
"hp": {seat: hp}, "role": {seat: words}, "vote": {seat: whom, in words}}``
(any part may be left out)."""

BoardMaker = Callable[[Mapping[str, Any], Lang], BoardEffects]

CardWords = Callable[[Mapping[str, Any], Lang], list[tuple[str, str]]]
"""A seat's card (its view's ``private`` facts) as (heading, words) rows said
to the seat: ``("You are", "Seat 2, a killer")``, ``("Fellow killers", "Seats 1, 12")``."""

Team = Callable[[Mapping[str, Any]], tuple[int, ...]]
"""The seats a seat's card names as its own side (its page marks them "partner")."""

Shown = Callable[[Mapping[str, Any], Mapping[str, Any]], Mapping[str, str]]
"""An answer's player text as the other seats will read it, from the answer's
payload and the seat's view's ``public`` facts (its rulings): answer field ->
text, only the fields the referee will change (e.g. softened words)."""


# The answer fields that hold player text unless a variant says otherwise.
TEXT_FIELDS = ("speech", "text")


@dataclass(frozen=True)
class VariantWords:
    """Everything a variant says in words, declared once in its words module and
    returned by :meth:`sandbox.core.variant.Variant.words`. Every part is optional:
    an event kind without a sentence is said by ``Variant.describe_event``, a
    decision without a phrase as its fields, a fact without a table as one row.

    ``sentences``: event kind -> its sentence in every language.
    ``decisions``: decision name -> what a seat answered to it, from the fields
    ``VariantInfo.decisions`` declares for it (see :data:`DecisionPhrase`).
    ``decision_phrase``: the catch-all form over the raw payload, for the
    decisions ``decisions`` does not list (see :data:`Phrase`).
    ``vocabulary``: the variant's own game words and field names per language.
    ``card_tables``: private fact name -> its table on a seat's card.
    ``board``: event kind -> what it changes on the viewer's seat board
    (deaths, HP, roles learned); a speech's claims are added by the viewer.
    ``board_columns``: the extra board columns its effects fill (e.g. ``"hp"``).
    ``text_fields``: the answer fields that carry a player's own words (shown
    quoted beside the sentence, never inside it).
    ``card``: the seat's card in words (:data:`CardWords`; without it, its facts).
    ``team``: the seats the card names as the seat's own side (:data:`Team`).
    ``notes``: decision name -> rows shown beside that question, from the seat's
    own card (:data:`CardWords`), e.g. one's weapon, shield and strikes before a duel.
    ``shown``: decision name -> its player text as the others will read it
    (:data:`Shown`), so that a person sees a change before confirming it.
    """

    sentences: Mapping[str, Sentence] = field(default_factory=dict)
    decisions: Mapping[str, DecisionPhrase] = field(default_factory=dict)
    decision_phrase: Phrase | None = None
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    card_tables: Mapping[str, CardTable] = field(default_factory=dict)
    board: Mapping[str, BoardMaker] = field(default_factory=dict)
    board_columns: tuple[str, ...] = ()
    text_fields: tuple[str, ...] = TEXT_FIELDS
    card: CardWords | None = None
    team: Team | None = None
    notes: Mapping[str, CardWords] = field(default_factory=dict)
    shown: Mapping[str, Shown] = field(default_factory=dict)


# C0/C1 controls and the bidirectional overrides that could reorder a line; \n and
# \t are handled apart (a newline would let a speech start a line of its own).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def speech_claims(d: Mapping[str, Any], L: Lang) -> tuple[str, ...]:
    """The structured claims a speech may carry (``claim``: a role, ``accuse`` and
    ``vouch``: seat lists) in words: the speaker's words, never confirmed by the
    referee (KG-14, WW-12). Absent keys (older transcripts) say nothing.

    The role comes last, so that no list of seats is ever followed by a role
    word ("claims police; vouches for seats 2, 5" reads as if seat 5 were
    police); a seat's record also opens with whom it accuses."""
    claims: list[str] = []
    if d.get("accuse"):
        claims.append(L.say(en=f"accuses {L.seats(d['accuse'])}", zh=f"指认{L.seats(d['accuse'])}"))
    if d.get("vouch"):
        claims.append(
            L.say(en=f"vouches for {L.seats(d['vouch'])}", zh=f"担保{L.seats(d['vouch'])}")
        )
    claim = d.get("claim")
    if claim and claim != "none":
        claims.append(L.say(en=f"claims {claim}", zh=f"自称{L.term(claim)}"))
    return tuple(claims)


# A line about the reader's own seat said to it: "Seat 3 says" -> "You say".
_YOU_VERBS = {"is": "are", "was": "were", "has": "have", "passes": "pass", "concedes": "concede"}
_FIRST_WORD = re.compile(r"([A-Za-z]+)(.*)", re.DOTALL)


def as_you(sentence: str, seat: int, L: Lang) -> str:
    """``sentence`` told to ``seat`` itself when it opens with that seat: "Seat 3
    says" → "You say", "Seat 3's last words" → "Your last words", "3号说" → "你说".
    Any other sentence is returned as it is."""
    subject = L.seat(seat, capital=True)
    if not sentence.startswith(subject):
        return sentence
    rest = sentence[len(subject) :]
    if L.zh:
        return "你" + rest
    if rest.startswith("'s "):
        return "Your " + rest[3:]
    found = _FIRST_WORD.fullmatch(rest[1:]) if rest.startswith(" ") else None
    if found is None:
        return sentence
    verb, tail = found.groups()
    if verb in _YOU_VERBS:
        verb = _YOU_VERBS[verb]
    elif verb.endswith(("sses", "shes", "ches", "xes")):
        verb = verb[:-2]
    elif verb.endswith("s") and not verb.endswith("ss"):
        verb = verb[:-1]
    return f"You {verb}{tail}"


def one_line(text: object) -> str:
    """``text`` on one line: every run of whitespace (newlines too) becomes one
    space. A referee line in a prompt, an error shown to a person and an error
    recorded in a batch result are each one line."""
    return " ".join(str(text).split())


def lead(sentence: str) -> str:
    """A sentence that introduces a quotation loses its full stop: ``Seat 3 speaks: "…"``."""
    return sentence[:-1] if sentence.endswith((".", "。")) else sentence


def sanitise(text: str) -> str:
    """Player text made safe for one terminal line: control and escape characters
    removed, line breaks shown as ``↵`` so a speech can never begin a line of its
    own (and look like a referee line, issue 14)."""
    flat = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    return _CONTROLS.sub("", flat).replace("\n", " ↵ ")
