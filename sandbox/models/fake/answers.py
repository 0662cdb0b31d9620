"""How the fake server answers: draws from a JSON schema, and the answer policies.

The answer policy is picked per request from the model name (``fake-<policy>``),
so one server can play legal, illegal and garbage seats in the same game.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

POLICIES = (
    "legal-random",
    "legal-fenced",
    "reactive",
    "quiet",
    "liar",
    "scripted",
    "garbage",
    "illegal",
    "down",
)
ILLEGAL_VALUE = 999_999
FILLER = (
    "I keep my counsel for now; the votes so far tell me more than the speeches. "
    "Seat behaviour will show itself soon."
)


def policy_for(model: str, default: str) -> str:
    """'fake-illegal' → 'illegal'; a model name without a known policy → ``default``."""
    name = model.rsplit("/", 1)[-1]
    if name.startswith("fake-") and name[5:] in POLICIES:
        return name[5:]
    return default


def schema_from_request(body: Mapping[str, Any]) -> dict[str, Any] | None:
    """The schema in response_format (OpenAI or llama.cpp form), else one in the prompt."""
    fmt = body.get("response_format")
    if isinstance(fmt, Mapping):
        inner = fmt.get("json_schema")
        if isinstance(inner, Mapping) and isinstance(inner.get("schema"), Mapping):
            return dict(inner["schema"])
        if isinstance(fmt.get("schema"), Mapping):
            return dict(fmt["schema"])
    return schema_in_messages(body.get("messages") or [])


def schema_in_messages(messages: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The last JSON object with 'properties' written anywhere in the prompt."""
    decoder = json.JSONDecoder()
    for message in reversed(messages):
        text = str(message.get("content") or "")
        found = None
        for match in re.finditer(r"\{", text):
            try:
                obj, _ = decoder.raw_decode(text, match.start())
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict) and isinstance(obj.get("properties"), dict):
                found = obj
        if found is not None:
            return found
    return None


def draw(schema: Mapping[str, Any], rng: random.Random, defs: Mapping[str, Any]) -> Any:
    """A random value that satisfies ``schema`` (the subset the sandbox produces)."""
    if "$ref" in schema:
        return draw(defs[str(schema["$ref"]).rsplit("/", 1)[-1]], rng, defs)
    if "enum" in schema:
        return rng.choice(list(schema["enum"]))
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return draw(rng.choice(list(schema[key])), rng, defs)
    kind = schema.get("type", "object")
    if kind == "object":
        props = schema.get("properties") or {}
        out = {name: draw(sub, rng, defs) for name, sub in props.items()}
        if isinstance(out.get("reasoning"), str):
            # A unique mark, so tests can prove a private note never reaches another seat.
            out["reasoning"] += f" [note {rng.randrange(10**9):09d}]"
        if _is_distribution(props):
            # A belief probe's {label: probability}: random weights that sum to 1.
            out = _spread(list(props), rng)
        if isinstance(out.get("accuse"), list) and isinstance(out.get("vouch"), list):
            # Killer (KG-14): a speech never accuses and vouches for the same seat.
            out["vouch"] = [s for s in out["vouch"] if s not in out["accuse"]]
        return out
    if kind == "array":
        return _draw_array(schema, rng, defs)
    return _draw_scalar(str(kind), schema, rng)


def _is_distribution(props: Mapping[str, Any]) -> bool:
    """An object of numbers bounded by 0 and 1 (the probe's per-seat distribution)."""
    return bool(props) and all(
        isinstance(sub, Mapping) and sub.get("type") == "number" and sub.get("maximum") == 1
        for sub in props.values()
    )


def _spread(labels: Sequence[str], rng: random.Random) -> dict[str, Any]:
    """A distribution over ``labels``: random weights, normalised, 3 decimals
    (their sum is 1 within the probe's tolerance)."""
    weights = [rng.random() + 0.05 for _ in labels]
    total = sum(weights)
    return {label: round(w / total, 3) for label, w in zip(labels, weights, strict=True)}


def _draw_array(schema: Mapping[str, Any], rng: random.Random, defs: Mapping[str, Any]) -> Any:
    items = schema.get("items") or {}
    most = int(schema.get("maxItems", 3))
    if "enum" in items:
        options = list(items["enum"])
        return rng.sample(options, rng.randint(0, min(most, len(options))))
    return [draw(items, rng, defs) for _ in range(rng.randint(0, most))]


def _draw_scalar(kind: str, schema: Mapping[str, Any], rng: random.Random) -> Any:
    if kind == "null":
        return None
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "integer":
        return rng.randint(int(schema.get("minimum", 0)), int(schema.get("maximum", 9)))
    if kind == "number":
        return round(rng.uniform(0, 1), 3)
    limit = int(schema.get("maxLength", 200))
    start = rng.randrange(0, 40)
    return FILLER[start : start + min(limit, 80)].strip() or "ok"


def legal_answer(schema: Mapping[str, Any] | None, rng: random.Random) -> str:
    if schema is None:
        return "{}"
    return json.dumps(draw(schema, rng, schema.get("$defs") or {}), ensure_ascii=False)


def illegal_answer(schema: Mapping[str, Any] | None, rng: random.Random) -> str:
    """Well-formed JSON with one choice outside its enum (or an unknown field)."""
    if schema is None:
        return json.dumps({"unexpected": ILLEGAL_VALUE})
    answer = draw(schema, rng, schema.get("$defs") or {})
    props = schema.get("properties") or {}
    for name, sub in props.items():
        if _has_enum(sub):
            answer[name] = [ILLEGAL_VALUE] if sub.get("type") == "array" else ILLEGAL_VALUE
            return json.dumps(answer)
    answer["unexpected"] = ILLEGAL_VALUE
    return json.dumps(answer)


def _has_enum(schema: Mapping[str, Any]) -> bool:
    if "enum" in schema:
        return True
    if "enum" in (schema.get("items") or {}):
        return True
    return any(_has_enum(s) for s in schema.get("anyOf", []))


def garbage_answer(rng: random.Random) -> str:
    return rng.choice(
        [
            "Hmm, let me think about who to pick... probably seat 3?",
            '{"pick": 2,, "oops"',
            "```\nnot json at all\n```",
        ]
    )


CHARS_PER_TOKEN = 4


def approx_tokens(text: str, per_token: float = CHARS_PER_TOKEN) -> int:
    """About four characters a token (or ``per_token``): enough for usage
    figures in tests."""
    return max(1, int(len(text) / per_token))


# ``reactive``: a seeded policy whose choices follow the speeches it was shown,
# so a what-if experiment on the fake provider has a cause to find. With
# probability REACTIVE_P it names the seat most accused in the prompt's
# speeches (the referee's accusation lines, which the prompts of Killer and
# Werewolf give in both languages: "⟦REFEREE⟧ Seat N says (accuses seat(s) a,
# b ...)" and "⟦裁判⟧ N号说（指认a、b号..."; ties: the lowest seat) wherever that seat is a
# legal choice: a ballot or night target (``target``), a police suspect
# (``suspect``), a speech's ``accuse`` (then that seat alone, and never vouched
# for). Otherwise, and for everything else, it answers like ``legal-random``.
# A speech's text and a speech without an accusation change nothing it does.
REACTIVE_P = 0.9
REACTIVE_CHOICES = ("target", "suspect")
# only the referee's lines (a quoted speech cannot hold the marker, see
# agents/llm/prompt/escaping.py): one pattern per prompt language, with the
# accused seats in group 1 and the separator between them
ACCUSATIONS = (
    (re.compile(r"⟦REFEREE⟧ Seat \d+\b[^\n]*?\baccuses seats? (\d+(?:, \d+)*)"), ", "),
    (re.compile(r"⟦裁判⟧ \d+号[^\n]*?指认(\d+(?:、\d+)*)号"), "、"),
)


def most_accused(messages: Sequence[Mapping[str, Any]]) -> int | None:
    """The seat named in the most accusations of the prompt (lowest on a tie)."""
    counts: Counter[int] = Counter()
    for message in messages:
        text = str(message.get("content") or "")
        for pattern, separator in ACCUSATIONS:
            for match in pattern.finditer(text):
                counts.update(int(n) for n in match.group(1).split(separator))
    if not counts:
        return None
    top = max(counts.values())
    return min(seat for seat, n in counts.items() if n == top)


def choices(schema: Mapping[str, Any]) -> list[Any]:
    """The values an enum field (or an array's items, or any branch of anyOf) allows."""
    found = list(schema.get("enum") or [])
    found += list((schema.get("items") or {}).get("enum") or [])
    for branch in schema.get("anyOf") or schema.get("oneOf") or []:
        found += choices(branch)
    return found


def reactive_answer(
    schema: Mapping[str, Any] | None, messages: Sequence[Mapping[str, Any]], rng: random.Random
) -> str:
    if schema is None:
        return "{}"
    answer = draw(schema, rng, schema.get("$defs") or {})
    target = most_accused(messages)
    if target is None or rng.random() >= REACTIVE_P or not isinstance(answer, dict):
        return json.dumps(answer, ensure_ascii=False)
    props = schema.get("properties") or {}
    for name in REACTIVE_CHOICES:
        if name in props and target in choices(props[name]):
            answer[name] = target
    if "accuse" in props and target in choices(props["accuse"]):
        answer["accuse"] = [target]
        if isinstance(answer.get("vouch"), list):
            answer["vouch"] = [s for s in answer["vouch"] if s != target]
    return json.dumps(answer, ensure_ascii=False)


# ``quiet``: ``legal-random`` with every structured claim of a speech left out
# (``claim`` "none", nobody accused or vouched for), so its seats state nothing
# the statements table could call a lie: a study can plant a contestant that
# lies less than ``legal-random`` (docs/study-reference.md, "Deceive and detect").
QUIET_EMPTY = ("accuse", "vouch")


def quiet_answer(schema: Mapping[str, Any] | None, rng: random.Random) -> str:
    if schema is None:
        return "{}"
    answer = draw(schema, rng, schema.get("$defs") or {})
    if isinstance(answer, dict):
        props = schema.get("properties") or {}
        for name in QUIET_EMPTY:
            if isinstance(answer.get(name), list):
                answer[name] = []
        if "claim" in props and "none" in choices(props["claim"]):
            answer["claim"] = "none"
    return json.dumps(answer, ensure_ascii=False)


# ``liar``: ``legal-random`` whose every speech states one claim, and a false
# one its seat knows to be false: a role (``claim``: Werewolf WW-12, Killer
# KG-14) or faction (``am``: Four Factions FF-13) other than the one its own
# role card names, with nobody accused or vouched for (whether a seat is one of
# the hidden roles the card alone does not say). So every claim it states is a
# lie in the statements table (docs/study-reference.md, "Statements: who lied"): the
# contestant planted to lie most, beside ``quiet`` (docs/study-reference.md, "Deceive
# and detect"). The card is read from the prompt's role-card line, in English
# or Chinese; a prompt without one gets ``claim = "none"`` (a lie it could not
# know to be one is no lie).
LIAR_CLAIMS = ("claim", "am")
OWN_ROLE = tuple(
    re.compile(pattern, re.MULTILINE)
    for pattern in (
        r"^- You are seat \d+\. Your role: ([A-Z_]+)\b",
        r"^- You are seat \d+, faction: ([a-z_]+)\b",
        r"^- 你是\d+号。你的身份：[^（\n]*（([a-z_]+)）",
        r"^- 你是\d+号座位，阵营：[^（\n]*（([a-z_]+)）",
    )
)


def own_role(messages: Sequence[Mapping[str, Any]]) -> str | None:
    """The role (or faction) the prompt's latest role card gives the seat,
    lower case; None without a card. A quoted speech is one JSON-encoded
    line, so it cannot start a card line."""
    found = None
    for message in messages:
        text = str(message.get("content") or "")
        for pattern in OWN_ROLE:
            for match in pattern.finditer(text):
                found = match.group(1).lower()
    return found


def liar_answer(
    schema: Mapping[str, Any] | None, messages: Sequence[Mapping[str, Any]], rng: random.Random
) -> str:
    """``quiet``'s answer (nobody accused or vouched for, no claim), then one
    false claim in each claim field its own card lets it make."""
    answer = json.loads(quiet_answer(schema, rng))
    if not isinstance(answer, dict) or schema is None:
        return json.dumps(answer, ensure_ascii=False)
    props = schema.get("properties") or {}
    role = own_role(messages)
    for name in LIAR_CLAIMS:
        options = choices(props[name]) if name in props else []
        false = [c for c in options if c not in ("none", role)]
        if role in options and false:
            answer[name] = rng.choice(false)
        elif "none" in options:
            answer[name] = "none"
    return json.dumps(answer, ensure_ascii=False)
