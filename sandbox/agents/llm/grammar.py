"""The constrained route's answer grammar: a GBNF grammar (llama.cpp's
``grammar`` request field) under which an answer cannot be invalid in the ways
a grammar can say, converted back to the referee's fields before any check.

What the grammar says (each also checked by the referee, as always):

- **Lists without repeats.** A list field is written in the request's option
  order, each option at most once (strictly increasing by option index).
- **Disjoint lists.** List fields over the same options (Killer's and
  Werewolf's ``accuse``/``vouch``, KG-14) are written as one object keyed by
  option, ``{"3":"accuse","7":"vouch"}``: a seat is named once, with the list
  it goes to, so naming it in both is unrepresentable. The random seat reads
  such lists as disjoint too (``agents/simple.py``).
- **Text that ends in time.** No whitespace between the JSON's tokens, string
  characters without escapes, and every string bounded: the longest answer the
  grammar allows has at most ``max_tokens`` bytes, and a token is never shorter
  than a byte, so the JSON closes before the call's ``max_tokens``. Text
  fields come last (a cut could only ever fall in the longest part).
- **No empty speeches.** Free text is either the word ``pass`` (a pass, said
  explicitly; :meth:`Plan.decode` turns it into the rules' pass, the empty
  text) or at least ``MIN_TEXT_CHARS`` characters (fewer where the field
  allows fewer) starting with a visible character, so never blank.
- **Speeches about the game** (``open_with_seat``, the compact style's limits):
  free text other than a pass opens by naming a seat ("Seat 4", "I suspect seat
  4", "我怀疑4号"; a seat among the request's options where it has any), the rest
  in the model's own words (issue 40 item 5: a small model's speech otherwise
  drifts away from the table).

What it cannot say (rule-level checks such as KG-13's concession, or the
probe's beliefs) keeps the repair turn; a request the grammar cannot fit in
``max_tokens`` goes the schema route as before (:func:`plan_for` gives None).
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from cachetools import LRUCache, cached
from cachetools.keys import hashkey
from pydantic import BaseModel, model_validator

from sandbox.core.requests import Choice, DecisionRequest, Field, MultiChoice, Scalar, Text

REASONING = "reasoning"  # the private note's key (answer_format.REASONING)
# Free text shorter than this is refused by the grammar (``pass`` excepted).
MIN_TEXT_CHARS = 12
PASS = "pass"
MIN_REASONING_CHARS = 8  # a note shorter than this is not worth the tokens
# The longest string bound written into a grammar (as answer_format's
# GRAMMAR_MAX_LENGTH): llama.cpp expands a bounded repetition rule by rule, and
# a shorter bound only narrows what the referee allows.
MAX_STRING_CHARS = 256
# Characters a string may hold. English: printable ASCII without '"' and '\'
# (one byte each); other languages: any character but controls, '"' and '\'
# (at most four UTF-8 bytes each).
ASCII_CHARS = r"[\x20\x21\x23-\x5B\x5D-\x7E]"
ANY_CHARS = r"[^\x00-\x1F\x22\x5C\x7F]"
# A text's first character: the same, but not a space (a blank text is a pass).
ASCII_VISIBLE = r"[\x21\x23-\x5B\x5D-\x7E]"
ANY_VISIBLE = r"[^\x00-\x20\x22\x5C\x7F\u00A0\u3000]"
BYTES_PER_CHAR = {"ascii": 1, "any": 4}
# A seat in the shared record's example answer (Plan.shared_example).
SEAT_PLACEHOLDER = "N"
# The openings a speech may start with under ``open_with_seat``, each followed by a
# seat (and, in Chinese, 号).
OPENINGS = {
    "en": ("Seat ", "I suspect seat ", "I trust seat ", "I think seat "),
    "zh": ("", "我怀疑", "我相信", "我认为"),
}
SEAT_SUFFIX = {"en": "", "zh": "号"}
AFTER_SEAT_ASCII = r"[\x20\x21\x23-\x2F\x3A-\x5B\x5D-\x7E]"
AFTER_SEAT_ANY = r"[^\x00-\x1F\x22\x5C\x7F0-9]"
# Characters a speech keeps for its own words after the longest opening; a field
# too short for them opens freely.
MIN_OWN_CHARS = 16
HINT_LEAD = {
    "en": "Answer exactly in this form (each seat at most once):",
    "zh": "严格按此格式回答（每个座位最多出现一次）：",
}


@dataclass(frozen=True)
class Group:
    """List fields over the same options, written as one object keyed by option
    (each option named once, with the list it belongs to)."""

    key: str  # the wire key, e.g. "accuse_or_vouch"
    members: tuple[str, ...]  # the request's list fields, in request order
    options: tuple[Scalar, ...]


@dataclass(frozen=True)
class Plan:
    """One request's constrained answer: the grammar, the bound it gives each
    string, and how a wire answer becomes the referee's fields."""

    grammar: str
    order: tuple[str, ...]  # wire keys in the order written
    text_chars: tuple[tuple[str, int], ...]  # (key, characters at most), reasoning first
    groups: tuple[Group, ...]
    max_bytes: int  # the longest answer the grammar allows, in bytes
    example: str  # one answer of the grammar's shape (for the prompt's hint)
    # The same with every seat written SEAT_PLACEHOLDER: alike for every seat
    # of a step (their options differ by their own seat), so the shared
    # record's layout can show it before the seats' own parts.
    shared_example: str = ""

    def decode(self, data: Any) -> Any:
        """A wire answer with each group object turned back into its lists (in
        option order) and a text's explicit ``pass`` into the rules' pass (the
        empty text); anything else is left as it is for the checks to judge."""
        if not isinstance(data, dict):
            return data
        out = dict(data)
        for key, _ in self.text_chars:
            if key != REASONING and out.get(key) == PASS:  # a note is never a pass
                out[key] = ""
        for group in self.groups:
            named = out.get(group.key)
            if not isinstance(named, dict):
                continue
            del out[group.key]
            keys = [_key(o) for o in group.options]
            for member in group.members:
                chosen = [
                    o for o, k in zip(group.options, keys, strict=True) if named.get(k) == member
                ]
                unknown = [k for k, v in named.items() if v == member and k not in keys]
                out[member] = [*chosen, *unknown]  # an unknown key is the checks' to refuse
        return out

    def hint(self, language: str, shared: bool = False) -> str:
        """The grammar's shape in the prompt, only where it differs from the
        fields the prompt lists (a group object): elsewhere they are the same,
        and every extra prompt token is read again at every decision.
        ``shared``: the example with placeholder seats (``shared_example``)."""
        if not self.groups:
            return ""
        example = self.shared_example if shared else self.example
        return f"\n{HINT_LEAD.get(language, HINT_LEAD['en'])}\n{example}"


def _key(option: Scalar) -> str:
    return option if isinstance(option, str) else json.dumps(option)


def _shape(request: DecisionRequest, *limits: Hashable, **named: Hashable) -> Hashable:
    """A plan's cache key: the request's fields and the limits, never its id or
    its seat (a sealed step asks many seats the same shape)."""
    return hashkey(request.fields, *limits, **named)


@cached(LRUCache(maxsize=1024), key=_shape, lock=threading.Lock())
def plan_for(
    request: DecisionRequest,
    reasoning_chars: int,
    text_cap: int | None,
    max_tokens: int | None,
    language: str,
    leave_out: frozenset[str] = frozenset(),
    open_with_seat: bool = False,
) -> Plan | None:
    """The grammar plan of ``request``, or None when it cannot fit ``max_tokens``
    (or holds a list shape the grammar does not cover); the caller then takes
    the schema route. ``leave_out``: fields its shared example does not show
    (the shared record states them after the seat's card). ``open_with_seat``:
    free text opens by naming a seat (OPENINGS)."""
    fields = request.fields
    chars = "ascii" if language == "en" else "any"
    per_char = BYTES_PER_CHAR[chars]
    choices = [f for f in fields if isinstance(f, Choice)]
    texts = [f for f in fields if isinstance(f, Text)]
    groups, lone = _groups([f for f in fields if isinstance(f, MultiChoice)])
    if groups is None:
        return None
    rules: dict[str, str] = {}
    parts: list[tuple[str, str, int]] = []  # (wire key, value rule, its longest bytes)
    for f in choices:
        values = [_json(v) for v in f.legal()] or ["null"]
        rule = _rule_name(f.name, "v")
        rules[rule] = " | ".join(_lit(v) for v in values)
        parts.append((f.name, rule, max(len(v.encode()) for v in values)))
    for m in lone:
        parts.append((m.name, *_list_rules(rules, m)))
    for group in groups:
        parts.append((group.key, *_group_rules(rules, group)))
    # Every byte but the strings' characters: braces, keys, colons, values,
    # the strings' quotes and the commas between members.
    noted = reasoning_chars > 0  # 0: no private note is asked ([llm] private_note)
    text_keys = [REASONING] * noted + [f.name for f in texts]
    fixed = 2 + sum(len(_json(key).encode()) + 1 + longest for key, _, longest in parts)
    fixed += sum(len(_json(key).encode()) + 1 + 2 for key in text_keys)
    fixed += max(0, len(parts) + len(text_keys) - 1)
    wanted = [min(f.max_chars, text_cap or f.max_chars, MAX_STRING_CHARS) for f in texts]
    # "pass" is 4 bytes whatever the bound (a field of fewer characters allows it)
    fixed += sum(max(0, len(PASS) - per_char * w) for w in wanted)
    bounds = _fit(min(reasoning_chars, MAX_STRING_CHARS), wanted, fixed, per_char, max_tokens)
    if bounds is None:
        return None
    note, text_bounds = bounds
    rules["ch"] = ASCII_CHARS if chars == "ascii" else ANY_CHARS
    if noted:
        rules["note"] = f'"\\"" ch{{0,{note}}} "\\""'
    if texts:
        rules["first"] = ASCII_VISIBLE if chars == "ascii" else ANY_VISIBLE
    for t, want, most in zip(texts, wanted, text_bounds, strict=True):
        rule = _rule_name(t.name, "t")
        least = min(MIN_TEXT_CHARS, want)
        said = f" | first ch{{{least - 1},{most - 1}}}" if most >= 1 else ""  # 0: only a pass
        if open_with_seat:
            said = _opening(rules, fields, language, least, most) or said
        rules[rule] = f'"\\"" ( "{PASS}"{said} ) "\\""'
        parts.append((t.name, rule, 0))
    members = [f"{_lit(_json(REASONING) + ':')} note"] * noted
    members += [f"{_lit(_json(key) + ':')} {rule}" for key, rule, _ in parts]
    lines = ['root ::= "{" ' + ' "," '.join(members) + ' "}"']
    lines += [f"{name} ::= {rule}" for name, rule in rules.items()]
    return Plan(
        grammar="\n".join(lines) + "\n",
        order=(*[REASONING] * noted, *(key for key, _, _ in parts)),
        text_chars=(
            *[(REASONING, note)] * noted,
            *((f.name, b) for f, b in zip(texts, text_bounds, strict=True)),
        ),
        groups=tuple(groups),
        max_bytes=fixed + per_char * (note + sum(text_bounds)),
        example=_example(choices, lone, groups, texts, noted=noted),
        shared_example=_example(
            [f for f in choices if f.name not in leave_out],
            [m for m in lone if m.name not in leave_out],
            [g for g in groups if g.key not in leave_out],
            [t for t in texts if t.name not in leave_out],
            SEAT_PLACEHOLDER,
            noted=noted,
        ),
    )


def _opening(
    rules: dict[str, str], fields: Sequence[Field], language: str, least: int, most: int
) -> str:
    """The alternative of a text that opens by naming a seat (writing its rules
    into ``rules``), or "" where the field is too short to keep MIN_OWN_CHARS of
    its own words after the longest opening."""
    openings = OPENINGS.get(language, OPENINGS["en"])
    suffix = SEAT_SUFFIX.get(language, "")
    seats = sorted(
        {o for f in fields if isinstance(f, Choice | MultiChoice) for o in f.options
         if isinstance(o, int) and not isinstance(o, bool)}
    )  # fmt: skip
    widest = max(len(str(s)) for s in seats) if seats else 2
    longest = max(len(o) for o in openings) + widest + len(suffix)
    if most - longest < MIN_OWN_CHARS:
        return ""
    rules["open"] = " | ".join(_lit(o) for o in openings)
    rules["seat"] = " | ".join(_lit(f"{s}{suffix}") for s in seats) if seats else (
        f'[1-9] [0-9]? {_lit(suffix)}' if suffix else "[1-9] [0-9]?"
    )  # fmt: skip
    # The character after the seat is no digit: "Seat 1" never reads as seat 12.
    rules["after"] = AFTER_SEAT_ASCII if language == "en" else AFTER_SEAT_ANY
    shortest = min(len(o) for o in openings) + 1 + len(suffix)
    own = most - longest - 1
    return f" | open seat after ch{{{max(0, min(least - shortest - 1, own))},{own}}}"


def _groups(lists: Sequence[MultiChoice]) -> tuple[list[Group] | None, list[MultiChoice]]:
    """Lists over the same options become one group; a list alone stays a list.
    None when a group's shape is not covered (a member allowing fewer items
    than there are options, or options whose keys collide)."""
    by_options: dict[tuple[Scalar, ...], list[MultiChoice]] = {}
    for f in lists:
        by_options.setdefault(f.options, []).append(f)
    groups: list[Group] = []
    lone: list[MultiChoice] = []
    for options, members in by_options.items():
        if len(members) == 1:
            lone.append(members[0])
            continue
        keys = [_key(o) for o in options]
        if len(set(keys)) != len(keys) or any(m.max_items < len(options) for m in members):
            return None, []
        names = tuple(m.name for m in members)
        groups.append(Group("_or_".join(names), names, options))
    return groups, lone


def _fit(
    reasoning: int, texts: Sequence[int], fixed: int, per_char: int, max_tokens: int | None
) -> tuple[int, list[int]] | None:
    """The strings' bounds such that the whole answer's bytes fit ``max_tokens``:
    free text keeps what it asks for where it can (down to MIN_TEXT_CHARS each),
    the private note takes what is left (down to MIN_REASONING_CHARS; none
    when ``reasoning`` is 0). None when even the minimums do not fit."""
    least = [max(1, min(t, MIN_TEXT_CHARS)) if t else 0 for t in texts]  # the field's own limit
    wanted = list(texts)
    if max_tokens is None:
        return reasoning, wanted
    room = (max_tokens - fixed) // per_char  # characters all strings may share
    least_note = MIN_REASONING_CHARS if reasoning > 0 else 0
    note = min(reasoning, max(least_note, room - sum(wanted)))
    left = room - note
    bounds: list[int] = []
    for i, asked in enumerate(wanted):
        later = sum(least[i + 1 :])
        bounds.append(min(asked, left - later))
        left -= bounds[-1]
    if note < least_note or left < 0:
        return None
    if any(b < lo for b, lo in zip(bounds, least, strict=True)):
        return None
    return note, bounds


def _alternatives(first: str, rest: Sequence[str]) -> str:
    return "( " + " | ".join([first, *rest]) + " )"


def _list_rules(rules: dict[str, str], f: MultiChoice) -> tuple[str, int]:
    """A list in option order without repeats, of at most ``max_items`` values:
    rule ``<f>-i-k`` writes option i, then ends or goes on to a later option
    with k - 1 values left."""
    options = [_json(o) for o in f.options]
    n, most = len(options), min(f.max_items, len(options))
    base = _rule_name(f.name, "l")
    close = _lit("]")
    for left in range(1, most + 1):
        for i, value in enumerate(options):
            later = [f'"," {base}-{j}-{left - 1}' for j in range(i + 1, n)] if left > 1 else []
            rules[f"{base}-{i}-{left}"] = f"{_lit(value)} {_alternatives(close, later)}"
    starts = [f"{base}-{i}-{most}" for i in range(n)] if most else []
    rules[base] = f'"[" {_alternatives(close, starts)}'
    widest = sorted((len(v.encode()) for v in options), reverse=True)[:most]
    return base, 2 + sum(widest) + max(0, most - 1)


def _group_rules(rules: dict[str, str], group: Group) -> tuple[str, int]:
    """The group's object: keys in option order, each at most once, each with
    the name of the list it belongs to."""
    keys = [_json(_key(o)) for o in group.options]
    base = _rule_name(group.key, "g")
    rules[f"{base}-v"] = " | ".join(_lit(_json(m)) for m in group.members)
    close = _lit("}")
    for i, key in enumerate(keys):
        later = [f'"," {base}-{j}' for j in range(i + 1, len(keys))]
        rules[f"{base}-{i}"] = f"{_lit(key + ':')} {base}-v {_alternatives(close, later)}"
    rules[base] = f'"{{" {_alternatives(close, [f"{base}-{i}" for i in range(len(keys))])}'
    widest = max(len(_json(m).encode()) for m in group.members)
    longest = 2 + sum(len(k.encode()) + 1 + widest for k in keys) + max(0, len(keys) - 1)
    return base, longest


def _example(
    choices: Sequence[Choice],
    lone: Sequence[MultiChoice],
    groups: Sequence[Group],
    texts: Sequence[Text],
    seat: str | None = None,
    noted: bool = True,
) -> str:
    """One answer of the grammar's shape; ``seat``: written for every option
    of a list (the seats are the options that differ between seats)."""
    # "…" stands for a string: in English answers the grammar allows only
    # ASCII, so a small model cannot copy the placeholder into its answer.
    parts = [f'{_json(REASONING)}:"…"'] * noted
    for f in choices:
        legal = f.legal()
        value = legal[0] if legal else None
        if seat is not None and isinstance(value, int) and not isinstance(value, bool):
            value = seat  # a seat among the options: differs between seats
        parts.append(f"{_json(f.name)}:{_json(value)}")
    for m in lone:
        shown = [seat] * 2 if seat is not None else m.options[:2]
        parts.append(f"{_json(m.name)}:[{','.join(_json(o) for o in shown)}]")
    for g in groups:
        keys = [seat or _key(o) for o in g.options]
        pairs = [f"{_json(k)}:{_json(m)}" for k, m in zip(keys, g.members, strict=False)]
        parts.append(f"{_json(g.key)}:{{{','.join(pairs)}}}")
    for t in texts:
        parts.append(f'{_json(t.name)}:"…"')
    return "{" + ",".join(parts) + "}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _lit(text: str) -> str:
    """``text`` as a GBNF string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _rule_name(name: str, kind: str) -> str:
    """A GBNF rule name (letters, digits and dashes only) for a field."""
    cleaned = "".join(c if c.isascii() and c.isalnum() else "-" for c in name).strip("-")
    return f"{kind}-{cleaned or 'x'}"


# ----------------------------------------------------------- the parse side
def wire_model(decision: type[BaseModel], plan: Plan) -> type[BaseModel]:
    """``decision`` (the referee-shaped answer model) that also reads the
    grammar's shape: each group object becomes its lists before validation."""
    return _wire_model(decision, plan)


@functools.lru_cache(maxsize=512)
def _wire_model(decision: type[BaseModel], plan: Plan) -> type[BaseModel]:
    class Wire(decision):  # type: ignore[valid-type,misc]
        @model_validator(mode="before")
        @classmethod
        def _from_wire(cls, data: Any) -> Any:
            return plan.decode(data)

    Wire.__name__ = f"{decision.__name__}_grammar"
    return Wire
