"""A referee's refusal said to a person: in words, with the rule ID beside it,
and which of the answer's fields it was about (so only those are asked again).

The engine's messages are written for models ("[KG-3] Missing field 'target'.
Legal options — target: [1, 2, null]"); a person is told "Please answer
“target”: the player you vote out, or nobody to abstain. (rule KG-3)".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sandbox.core.discussion import SPEAK
from sandbox.core.errors import IllegalDecision
from sandbox.core.requests import DecisionRequest, Field
from sandbox.core.words import Lang
from sandbox.words.discussion import empty_message

EMPTY_RULE = "OD-2"  # an open day's message that says nothing
NULL_WORD = re.compile(r"\bnull\b")
_MISSING = re.compile(r"Missing field '(\w+)'\.")
_NOT_ALLOWED = re.compile(r"(?:Field '(\w+)'|(\w+)) = (.+) is not allowed\.")
_MAX_DISTINCT = re.compile(r"Field '(\w+)' must hold at most (\d+) distinct values\.")
_BAD_VALUES = re.compile(r"(?:Field '(\w+)' has values|(\w+) =) \[([^\]]*)\] (?:that )?are not")
_SEAT_LIST = re.compile(r"Seat\(s\) \[([\d, ]*)\]")
_QUOTED = re.compile(r"'(\w+)'")


def refused_fields(err: IllegalDecision, request: DecisionRequest) -> tuple[str, ...]:
    """The request's fields a refusal is about: those it lists legal values for
    or names; none found (a rule about the whole answer): every field."""
    names = [f.name for f in request.fields]
    detail = err.detail.lower()
    named = {n for n in err.legal if n in names}
    named |= {n for n in _QUOTED.findall(err.detail) if n in names}
    if not named:  # "both accused and vouched for": the fields by their stem
        named = {n for n in names if re.search(rf"\b{re.escape(n.lower())}", detail)}
    return tuple(n for n in names if n in named) or tuple(names)


def refusal_words(err: IllegalDecision, request: DecisionRequest, language: str = "en") -> str:
    """The refusal in words, the rule ID beside it (never the model's list of
    legal options)."""
    L = Lang(language)
    # OD-2: each variant's OD-2 refusal is of an empty message, worded for models
    # ("speak: false"); a person waits with a button or Enter alone (issue 42)
    empty = err.rule == EMPTY_RULE and SPEAK in (f.name for f in request.fields)
    text = empty_message(L) if empty else _said(err.detail, request, L)
    return L.say(en=f"{text} (rule {err.rule})", zh=f"{text}（规则 {err.rule}）")


def _said(detail: str, request: DecisionRequest, L: Lang) -> str:
    found = _MISSING.fullmatch(detail)
    if found:
        f = _field(request, found.group(1))
        about = f" {_describe(f)}" if f is not None else ""
        return L.say(en=f"Please answer “{_name(found.group(1))}”:{about}.",
                     zh=f"请回答“{_name(found.group(1))}”：{_describe(f)}。")  # fmt: skip
    found = _MAX_DISTINCT.fullmatch(detail)
    if found:
        name, most = _name(found.group(1)), found.group(2)
        return L.say(en=f"“{name}”: name each at most once, and at most {most}.",
                     zh=f"“{name}”：每个最多选一次，最多选{most}个。")  # fmt: skip
    found = _NOT_ALLOWED.fullmatch(detail)
    if found:
        name, value = _name(found.group(1) or found.group(2)), _value(found.group(3), L)
        return L.say(en=f"{value} is not one of the choices for “{name}” now.",
                     zh=f"{value}现在不是“{name}”的可选项。")  # fmt: skip
    found = _BAD_VALUES.search(detail)
    if found:
        name = _name(found.group(1) or found.group(2))
        seats = L.seats(_numbers(found.group(3)), capital=True)
        return L.say(en=f"“{name}”: {seats} cannot be chosen now.",
                     zh=f"“{name}”：现在不能选{seats}。")  # fmt: skip
    said = _SEAT_LIST.sub(lambda m: L.seats(_numbers(m.group(1)), capital=True), detail)
    return NULL_WORD.sub("nobody", said)


def _field(request: DecisionRequest, name: str) -> Field | None:
    return next((f for f in request.fields if f.name == name), None)


def _describe(f: Field | None) -> str:
    return NULL_WORD.sub("nobody", f.description) if f is not None else ""


def _name(name: str) -> str:
    return name.replace("_", " ")


def _numbers(text: str) -> Sequence[int]:
    return [int(n) for n in re.findall(r"\d+", text)]


def _value(text: str, L: Lang) -> str:
    if text.isdigit():
        return L.seat(int(text), capital=True)
    if text in ("None", "null"):
        return L.say(en="Nobody", zh="无人")
    return text.strip("'\"")
