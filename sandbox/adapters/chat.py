"""The chat an external seat sees, message by message: shared by the adapters
that put the game to a model as a conversation (TextArena, verifiers,
OpenEnv), so each frames the sandbox's own prompt the same way.

A seat's first message is the LLM seat's system text (the rules, its role
card); each question then brings the record's new lines and the question
with its answer format (the JSON schema, as an LLM seat without structured
output is given it). A refused answer brings the referee's repair message
back; the last refused one, the note that the fallback was applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from sandbox.adapters.external import Verdict
from sandbox.adapters.step import SteppedGame
from sandbox.agents.llm import answer_format
from sandbox.agents.llm.parse import render_repair
from sandbox.agents.llm.settings import limits_for
from sandbox.core.requests import DecisionRequest

Role = Literal["system", "user"]
FALLBACK_NOTE = "The referee applied the fallback for this decision."


@dataclass(frozen=True)
class Message:
    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass
class SeatChats:
    """What each external seat of one game has been sent so far (its record)."""

    language: str = "en"
    _sent: dict[int, str] = field(default_factory=dict)

    def reset(self) -> None:
        self._sent.clear()

    def question(self, stepped: SteppedGame, seat: int) -> list[Message]:
        """The messages that put ``seat``'s open question (none when it is
        being asked again: the refusal was the message)."""
        obs = stepped.observation(seat)
        if obs["attempt"]:
            return []
        prompt = obs["prompt"]
        user, cut = prompt["user"], prompt["record_chars"]
        record, question = user[:cut], user[cut:]
        messages: list[Message] = []
        sent = self._sent.get(seat)
        if sent is None:
            messages.append(Message("system", prompt["system"]))
            sent = ""
        # The record only grows between a seat's decisions; were it ever
        # rewritten (condensed), it is sent again whole.
        new = record[len(sent) :] if record.startswith(sent) else record
        self._sent[seat] = record
        request = stepped.desk.question(seat).ctx.request  # frozen: safe to read here
        text = (new + question + hint(request, self.language)).strip("\n")
        messages.append(Message("user", text))
        return messages

    def verdict(self, verdict: Verdict) -> Message | None:
        """The referee's answer to a refused answer (None when accepted): the
        repair message, or the fallback note after the last attempt."""
        if verdict.accepted:
            return None
        if verdict.fallback:
            return Message("user", f"{verdict.error} {FALLBACK_NOTE}")
        return Message("user", render_repair(str(verdict.error), self.language))


def hint(request: DecisionRequest, language: str) -> str:
    """The answer format in words, as an LLM seat without structured output
    gets it after the question (its schema holds ``reasoning`` first)."""
    return answer_format.schema_instructions(request, None, limits_for("full"), language)
