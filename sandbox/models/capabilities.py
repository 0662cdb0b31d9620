"""What a model family takes, consulted before every call: which sampling
parameters it refuses, what its answer limit is called, how it reasons, which
rung of the structured-output ladder it stands on, and how long a call may take.

The table is ours, by model family (a pattern over the model string); litellm's
own model table answers what it knows besides (``remote.takes_json_schema``,
``remote.takes_json_mode``). A parameter the family refuses is dropped or
renamed with a warning the seat records once (never silently, never fatal);
one the provider still refuses at run time (HTTP 400 "unsupported parameter")
is learned by the seat's :class:`Learned` and dropped from then on.

docs/config.md ("Capability table") shows this table; keep them in step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Rung = Literal["schema", "json", "prompt"]
# How a family is asked to reason: OpenAI's ``reasoning_effort``; a token
# budget (Anthropic's and Gemini's ``thinking``, which litellm maps); "fixed":
# it always reasons and takes no setting (DeepSeek R1); "none": it does not.
ReasoningStyle = Literal["effort", "budget", "fixed", "none", "pass"]
RUNGS: tuple[Rung, ...] = ("schema", "json", "prompt")
THINKING_TIMEOUT_S = 600.0  # a long-thinking model's default per-call timeout
BUDGET_FOR_EFFORT = {"low": 1024, "medium": 4096, "high": 16384}  # docs/config.md
# The sampling parameters the table may refuse, in the order an error's
# words are checked against (the first named wins).
# ``response_format`` is never dropped here: a refused one steps down the
# structured-output ladder (the schema then goes into the prompt).
TUNABLE = ("temperature", "top_p", "max_tokens", "reasoning_effort", "thinking")
FORMAT = "response_format"


@dataclass(frozen=True)
class Family:
    """One row of the table."""

    name: str
    pattern: str  # matched (re.search) against the lowered model string
    reasoning: ReasoningStyle = "pass"
    refuses: tuple[str, ...] = ()  # dropped with a warning
    max_tokens_as: str = "max_tokens"  # what the answer limit is called
    best_rung: Rung | None = None  # None: ask litellm's model table
    timeout_s: float | None = None  # default per-call timeout (None: the setting's default)
    # Anthropic: while thinking, temperature must stay unset and no tool may be forced
    # (so litellm's tool-mode JSON is refused); the answer limit covers the thinking.
    thinking_excludes: tuple[str, ...] = ()
    thinking_in_max_tokens: bool = False
    thinking_rung: Rung | None = None  # the highest rung while it thinks


def _always_reasoning(name: str, pattern: str, max_tokens_as: str = "max_tokens") -> Family:
    """A family that always reasons and takes no setting for it ("fixed"): it
    refuses sampling parameters and an effort, answers only through the
    prompt rung, and thinks long."""
    return Family(
        name,
        pattern,
        reasoning="fixed",
        refuses=("temperature", "top_p", "reasoning_effort"),
        max_tokens_as=max_tokens_as,
        best_rung="prompt",
        timeout_s=THINKING_TIMEOUT_S,
    )


def _openai_reasoning(name: str, pattern: str) -> Family:
    """An OpenAI reasoning family: it takes an effort, calls its answer limit
    ``max_completion_tokens``, refuses sampling parameters and thinks long."""
    return Family(
        name,
        pattern,
        reasoning="effort",
        refuses=("temperature", "top_p"),
        max_tokens_as="max_completion_tokens",
        best_rung="schema",
        timeout_s=THINKING_TIMEOUT_S,
    )


FAMILIES: tuple[Family, ...] = (
    _always_reasoning(
        "openai o1-mini/o1-preview", r"(^|/)o1-(mini|preview)", "max_completion_tokens"
    ),
    _openai_reasoning("openai o-series", r"(^|/)o[1-9](-|$)"),
    _openai_reasoning("openai gpt-5 (reasoning)", r"(^|/)gpt-5(?!.*chat)"),
    _always_reasoning("deepseek reasoner / r1", r"deepseek-(reasoner|r1)"),
    Family(
        "anthropic claude with extended thinking",
        r"claude-(3-7|(sonnet|opus|haiku)-4|4)",
        reasoning="budget",
        thinking_excludes=("temperature", "top_p"),
        thinking_in_max_tokens=True,
        thinking_rung="prompt",
        best_rung="schema",
        timeout_s=THINKING_TIMEOUT_S,
    ),
    Family("anthropic claude", r"claude", reasoning="none", best_rung="schema"),
    Family(
        "gemini 2.5 and later (thinking)",
        r"gemini-(2\.5|[3-9])",
        reasoning="budget",
        best_rung="schema",
        timeout_s=300.0,
    ),
    Family("gemini", r"gemini", reasoning="none", best_rung="schema"),
    Family(
        "qwen3 / qwq",
        r"(qwen3|qwq)",
        reasoning="pass",
        timeout_s=THINKING_TIMEOUT_S,
    ),
)
DEFAULT = Family("any other model", "", reasoning="pass")


def family_of(model: str) -> Family:
    """The first row whose pattern matches ``model`` (else :data:`DEFAULT`)."""
    lowered = model.lower()
    for family in FAMILIES:
        if re.search(family.pattern, lowered):
            return family
    return DEFAULT


@dataclass
class Learned:
    """What one seat learned its model refuses at run time (an HTTP 400 naming a
    parameter), and which warnings it has recorded already (each once)."""

    refused: set[str] = field(default_factory=set)
    renamed: dict[str, str] = field(default_factory=dict)
    rung_cap: Rung | None = None  # the ladder's highest rung still allowed
    warned: set[str] = field(default_factory=set)

    def fresh(self, warnings: list[str]) -> list[str]:
        """The warnings not recorded yet by this seat (then they count as recorded)."""
        out = [w for w in warnings if w not in self.warned]
        self.warned.update(out)
        return out

    def refuse(self, param: str, rename: str | None = None) -> bool:
        """Learn that ``param`` is refused (renamed to ``rename`` if given).
        False when it was learned already (no second retry for it)."""
        if param in self.refused or param in self.renamed:
            return False
        if rename:
            self.renamed[param] = rename
        else:
            self.refused.add(param)
        return True

    def step_down(self, rung: Rung) -> Rung | None:
        """After the provider refused ``rung``: the next rung down (None at the bottom)."""
        at = RUNGS.index(rung)
        if at + 1 >= len(RUNGS):
            return None
        self.rung_cap = RUNGS[at + 1]
        return self.rung_cap


@dataclass(frozen=True)
class Reasoning:
    """A seat's reasoning settings: effort (low/medium/high/none) and budget (tokens)."""

    effort: str | None = None
    budget: int | None = None

    @property
    def on(self) -> bool:
        return (self.effort not in (None, "none")) or bool(self.budget)


NO_REASONING_SETTINGS = Reasoning()


def reasoning_params(
    model: str, reasoning: Reasoning, family: Family | None = None
) -> tuple[dict[str, Any], list[str]]:
    """The request parameters for ``reasoning`` on ``model``'s family, and the
    warnings for what it cannot take. litellm maps ``reasoning_effort`` and
    ``thinking`` for the providers it knows; for the others both go as given."""
    family = family or family_of(model)
    params: dict[str, Any] = {}
    warnings: list[str] = []
    effort, budget = reasoning.effort, reasoning.budget
    if effort is None and budget is None:
        return params, warnings
    style = family.reasoning
    if style == "none":
        warnings.append(f"{family.name} does not reason: reasoning settings dropped")
    elif style == "fixed":
        warnings.append(f"{family.name} always reasons and takes no setting: reasoning dropped")
    elif style == "effort":
        if budget is not None:
            warnings.append(
                f"{family.name} takes reasoning_effort, not a token budget: thinking_budget dropped"
            )
        if effort is not None:
            params["reasoning_effort"] = effort
    elif style == "budget":
        if effort == "none" or budget == 0:
            params["thinking"] = {"type": "disabled"}
        elif budget is not None:
            params["thinking"] = {"type": "enabled", "budget_tokens": budget}
        elif effort is not None:
            tokens = BUDGET_FOR_EFFORT[effort]
            params["thinking"] = {"type": "enabled", "budget_tokens": tokens}
    else:  # pass: sent as given, for the provider to take or refuse (then learned)
        if effort is not None:
            params["reasoning_effort"] = effort
        if budget is not None:
            params["thinking"] = {"type": "enabled", "budget_tokens": budget}
    return params, warnings


def adapt(
    model: str, params: Mapping[str, Any], learned: Learned | None = None
) -> tuple[dict[str, Any], list[str]]:
    """``params`` (the optional request parameters, None values already left
    out) as ``model``'s family takes them, and a warning for each change."""
    family = family_of(model)
    out = dict(params)
    warnings: list[str] = []
    thinking = out.get("thinking")
    thinking_on = isinstance(thinking, Mapping) and thinking.get("type") == "enabled"
    refused = set(family.refuses) | (set(family.thinking_excludes) if thinking_on else set())
    for name in TUNABLE:
        if name in out and name in refused:
            del out[name]
            why = " while thinking" if name in family.thinking_excludes else ""
            warnings.append(f"{name} is refused by {family.name}{why}: dropped")
    if thinking_on and family.thinking_in_max_tokens and "max_tokens" in out:
        # The answer limit covers the thinking: keep the answer's own share.
        budget = int(thinking.get("budget_tokens") or 0)  # type: ignore[union-attr]
        out["max_tokens"] = int(out["max_tokens"]) + budget
        warnings.append(f"max_tokens raised by the thinking budget ({budget}) for {family.name}")
    if "max_tokens" in out and family.max_tokens_as != "max_tokens":
        out[family.max_tokens_as] = out.pop("max_tokens")
        warnings.append(f"max_tokens sent as {family.max_tokens_as} for {family.name}")
    if learned is not None:
        for name in sorted(learned.refused & set(out)):
            del out[name]
            warnings.append(f"{name} was refused by the provider: dropped")
        for old, new in sorted(learned.renamed.items()):
            if old in out:
                out[new] = out.pop(old)
                warnings.append(f"{old} was refused by the provider: sent as {new}")
    return out, warnings


def asked_params(
    model: str,
    temperature: float | None,
    max_tokens: int | None,
    response_format: Mapping[str, Any] | None,
    reasoning: Reasoning,
) -> dict[str, Any]:
    """The optional request parameters a seat asks for (None left out), its
    reasoning settings in the form ``model``'s family takes them."""
    think, _ = reasoning_params(model, reasoning)
    asked = {
        "temperature": temperature,
        "max_tokens": max_tokens,
        "response_format": response_format,
        **think,
    }
    return {k: v for k, v in asked.items() if v is not None}


def plan(
    model: str, asked: Mapping[str, Any], reasoning: Reasoning, learned: Learned | None = None
) -> tuple[dict[str, Any], list[str]]:
    """What to send for ``asked`` (:func:`asked_params`), and every warning:
    the reasoning settings' and :func:`adapt`'s."""
    _, reasoning_warnings = reasoning_params(model, reasoning)
    params, warnings = adapt(model, asked, learned)
    return params, reasoning_warnings + warnings


def best_rung(model: str, takes_schema: bool, takes_json: bool, thinking: bool = False) -> Rung:
    """The highest rung ``model`` stands on: the table's word, else litellm's
    (``takes_schema``: strict JSON schema; ``takes_json``: a JSON mode);
    ``thinking``: the seat asked for a thinking budget (Anthropic then refuses
    the forced tool litellm's JSON answers use)."""
    family = family_of(model)
    rung: Rung
    if family.best_rung is not None:
        rung = family.best_rung
    elif takes_schema:
        rung = "schema"
    else:
        rung = "json" if takes_json else "prompt"
    if thinking and family.thinking_rung is not None:
        rung = lower(rung, family.thinking_rung)
    return rung


def lower(a: Rung, b: Rung) -> Rung:
    """The lower of two rungs (further down the ladder)."""
    return a if RUNGS.index(a) >= RUNGS.index(b) else b


def default_timeout(model: str) -> float | None:
    """The family's per-call timeout when the seat sets none (thinking takes long)."""
    return family_of(model).timeout_s


# --------------------------------------------------- run-time refusals (HTTP 400)
REFUSAL_WORDS = (
    "unsupported parameter",
    "unsupported value",
    "not supported",
    "does not support",
    "unrecognized request argument",
    "unknown parameter",
    "extra inputs are not permitted",
    "only the default",
    "may only be set",
    "is not compatible",
)


def refused_param(err: BaseException, sent: Mapping[str, Any]) -> tuple[str, str | None] | None:
    """(parameter, what to send it as instead or None) when ``err`` is a
    provider's 400 refusing one of the optional parameters ``sent``; else None."""
    status = getattr(err, "status_code", None)
    if status not in (400, 422) and type(err).__name__ != "UnsupportedParamsError":
        return None
    text = str(err).lower()
    body = getattr(err, "body", None)
    named = body.get("param") if isinstance(body, Mapping) else None
    if not any(words in text for words in REFUSAL_WORDS) and not named:
        return None
    candidates = [p for p in (*TUNABLE, "max_completion_tokens", FORMAT) if p in sent]
    if isinstance(named, str) and named in candidates:
        found = named
    else:
        quoted = [p for p in candidates if re.search(rf"['\"`]{re.escape(p)}['\"`]", text)]
        bare = [p for p in candidates if re.search(rf"\b{re.escape(p)}\b", text)]
        named_in_text = quoted or bare
        if not named_in_text:
            return None
        found = named_in_text[0]
    if found == "max_tokens" and "max_completion_tokens" in text:
        return found, "max_completion_tokens"
    return found, None
