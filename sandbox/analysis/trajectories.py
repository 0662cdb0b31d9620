"""Training data: ``sandbox export --format trajectories`` (docs/frameworks.md,
"Trajectories").

One row per decision: what the seat was shown (the chat ``messages`` and
the same as one ``observation`` text), what it answered (``answer``, the
payload; ``completion``, the whole answer the prompt asks for: ``reasoning``
first, the decision's fields, the probe's ``beliefs`` when it was asked),
``prompt``/``completion`` in TRL's conversational format, whether the referee
took it (else the recorded fallback and the referee's last error), how many
repair turns it took, the seat's role and side, its final reward, and every
seat's role and result at the game's end (``seats``); one row per game: the
seats revealed and the outcome. The columns and their types are fixed
(``sandbox.analysis.columns``).

The observation text is the prompt the seat was given: for a seat that
called a model, the messages of its first call for that decision, as
recorded; for any other seat (bots, scripted, people, external programs),
the prompt an LLM seat would have been given, rendered again by rebuilding
the game from its seed and recorded decisions (``sandbox.agents.observation``;
in the seat's recorded language, else English).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sandbox.agents.llm.answer_format import BELIEFS, REASONING
from sandbox.agents.llm.prompt import RecordMemo
from sandbox.agents.observation import observe
from sandbox.core.events import DecisionMade
from sandbox.core.game import Game
from sandbox.core.requests import Field, MultiChoice, Text
from sandbox.core.seat import DecisionContext
from sandbox.session.replay import game_config_of
from sandbox.transcript import EventRow, Transcript, read_transcript

Row = dict[str, Any]
Messages = list[dict[str, str]]
REWARDS: Mapping[str, float] = {"win": 1.0, "draw": 0.0, "lose": -1.0}
INVALID = "invalid: "  # how a refused answer's call line starts its error


def reward_of(result: str | None, rewards: Mapping[str, float] = REWARDS) -> float | None:
    """A seat's reward for its result (None: the game has no result)."""
    return None if result is None else float(rewards[result])


def trajectory_rows(
    game: Transcript[EventRow], rewards: Mapping[str, float] = REWARDS
) -> tuple[list[Row], Row]:
    """(one row per decision, the game's row) of one finished game."""
    roles, sides, results = game.roles, game.sides, game.results
    fields: dict[str, tuple[Field, ...]] = {}
    shown = dict(observation_messages(game, fields))
    calls = _calls_by_request(game.calls)
    everyone = seats_of(game, rewards)
    rows: list[Row] = []
    for index, event in enumerate(game.of_kind("core.decision")):
        seat = int(event["seat"])
        request_id = str(event["request_id"])
        mine = calls.get((seat, request_id), [])
        errors = [str(c["error"]) for c in mine if str(c.get("error") or "").startswith(INVALID)]
        messages = shown.get(request_id, [])
        answer = completion_text(event, mine, fields.get(request_id, ()), _asks_note(game, seat))
        completion = [{"role": "assistant", "content": answer}]
        valid = not event.get("fallback")
        rows.append(
            {
                "game_id": game.game_id,
                "step": index,  # the decision's place among the game's decisions
                "seq": event["seq"],
                "seat": seat,
                "role": roles.get(seat),
                "side": sides.get(seat),
                "contestant": game.contestants.get(seat),
                "request_id": request_id,
                "decision": event.get("decision"),
                "observation": prompt_text(messages) if messages else None,
                "messages": [*messages, *completion],
                "prompt": messages,
                "completion": completion,
                "answer": json.dumps(event.get("payload"), ensure_ascii=False, sort_keys=True),
                "valid": valid,
                "validity": 1.0 if valid else 0.0,
                "fallback_reason": event.get("fallback_reason") or "",
                "referee_error": errors[-1][len(INVALID) :] if errors else None,
                "repairs": sum(1 for c in mine if _is_repair(c)),
                "disconnects": sum(1 for c in mine if c.get("link") == "disconnected"),
                "note": event.get("note") or "",
                "result": results.get(seat),
                "reward": reward_of(results.get(seat), rewards),
                "seats": everyone,
            }
        )
    return rows, game_row(game, rewards, len(rows))


def seats_of(game: Transcript[EventRow], rewards: Mapping[str, float]) -> list[Row]:
    """Every seat's role, side, result and reward at the game's end, in seat order."""
    sides, results = game.sides, game.results
    return [
        {
            "seat": seat,
            "role": role,
            "side": sides.get(seat),
            "result": results.get(seat),
            "reward": reward_of(results.get(seat), rewards),
        }
        for seat, role in sorted(game.roles.items())
    ]


def _asks_note(game: Transcript[EventRow], seat: int) -> bool:
    """Whether the seat's prompts asked for the private note (the header says
    ``private_note: false`` only for a seat that was asked for none)."""
    agents = game.header.get("agents")
    agent = agents.get(str(seat)) if isinstance(agents, Mapping) else None
    return not (isinstance(agent, Mapping) and agent.get("private_note") is False)


def completion_text(
    event: Mapping[str, Any],
    calls: Sequence[Mapping[str, Any]],
    fields: Sequence[Field] = (),
    note: bool = True,
) -> str:
    """The decision as the prompt asks for it: one JSON object, ``reasoning``
    (the decision's private note) first, then the decision's fields as
    recorded, then the probe's ``beliefs`` when the accepted answer held them.
    ``fields``: the request's, when known (a seat that called no model): an
    optional field its agent left out is written as the prompt demands it,
    empty (a text "", a list [], a choice null or "none"). ``note`` False:
    the seat was asked for no note (``[llm] private_note = false``), so the
    completion has no ``reasoning``."""
    payload = event.get("payload")
    answer: dict[str, Any] = {REASONING: str(event.get("note") or "")} if note else {}
    recorded = dict(payload) if isinstance(payload, Mapping) else {}
    for f in fields:
        if f.name in recorded:
            answer[f.name] = recorded.pop(f.name)
        elif (empty := _empty(f)) is not _UNKNOWN:
            answer[f.name] = empty
    answer.update(recorded)
    accepted = [c for c in calls if c.get("parsed") is not None and not c.get("error")]
    if accepted and isinstance(accepted[-1].get("beliefs"), dict):
        answer[BELIEFS] = accepted[-1]["beliefs"]
    return json.dumps(answer, ensure_ascii=False)


_UNKNOWN = object()  # an omitted field whose default only its variant knows
NO_CLAIM = "none"  # the variants' default of an omitted claim (e.g. KG's NO_CLAIM)


def _empty(f: Field) -> Any:
    """The value of an optional field left out of an answer: empty text, no
    item, no choice; a choice without null takes "none" when it offers it."""
    if isinstance(f, Text):
        return ""
    if isinstance(f, MultiChoice):
        return []
    if f.nullable:
        return None
    return NO_CLAIM if NO_CLAIM in f.options else _UNKNOWN


def game_row(game: Transcript[EventRow], rewards: Mapping[str, float], decisions: int) -> Row:
    outcome = game.outcome or {}
    return {
        "game_id": game.game_id,
        "path": str(game.path),
        "variant": game.variant,
        "seed": game.header.get("seed"),
        "players": len(game.roles),
        "seats": seats_of(game, rewards),
        "outcome": outcome.get("reason"),
        "summary": outcome.get("summary"),
        "decisions": decisions,
    }


def _is_repair(call: Mapping[str, Any]) -> bool:
    # a repair turn: a call of repair turn > 0 on its first HTTP attempt
    # (as the outcome line's counters count them, sandbox.session.replay)
    return int(call.get("repair") or 0) > 0 and int(call.get("attempt") or 1) == 1


def _calls_by_request(calls: Sequence[Mapping[str, Any]]) -> dict[tuple[int, str], list[Any]]:
    found: dict[tuple[int, str], list[Any]] = {}
    for call in calls:
        if call.get("probe"):
            continue  # a probe after a speech belongs to no decision
        key = (int(call.get("seat") or 0), str(call.get("request_id")))
        found.setdefault(key, []).append(call)
    return found


def observation_messages(
    game: Transcript[EventRow], fields: dict[str, tuple[Field, ...]] | None = None
) -> Iterator[tuple[str, Messages]]:
    """(request id, the chat messages the seat was shown) of every decision of
    ``game``; ``fields`` gets the fields of each request rendered again."""
    recorded: dict[str, Messages] = {}
    for call in game.calls:
        messages = call.get("messages")
        if call.get("probe") or not isinstance(messages, list) or int(call.get("repair") or 0):
            continue
        request_id = str(call.get("request_id"))
        if request_id not in recorded:
            recorded[request_id] = [
                {"role": str(m.get("role") or "user"), "content": str(m.get("content") or "")}
                for m in messages
                if isinstance(m, Mapping)
            ]
    yield from recorded.items()
    wanted = {
        str(e["request_id"])
        for e in game.of_kind("core.decision")
        if str(e["request_id"]) not in recorded
    }
    if wanted:
        yield from _rendered(game, wanted, {} if fields is None else fields)


def observation_texts(game: Transcript[EventRow]) -> Iterator[tuple[str, str]]:
    """(request id, the observation text) of every decision of ``game``."""
    for request_id, messages in observation_messages(game):
        yield request_id, prompt_text(messages)


def prompt_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """A conversation's messages as one text (system, then user, a blank line apart)."""
    return "\n\n".join(str(m.get("content") or "") for m in messages)


def _rendered(
    game: Transcript[EventRow], wanted: set[str], fields: dict[str, tuple[Field, ...]]
) -> Iterator[tuple[str, Messages]]:
    """Rebuild the game from its seed and recorded decisions, rendering the
    observation of each decision in ``wanted`` just before it is submitted."""
    transcript = read_transcript(game.path)
    variant, config = game_config_of(transcript)
    rebuilt = Game.new(variant, config, int(transcript.header["seed"]))
    languages = {s: str(a.get("language") or "en") for s, a in game.agents.items()}
    memos: dict[int, tuple[RecordMemo, dict[int, dict[str, Any]]]] = {}
    for made in transcript.events:
        if not isinstance(made, DecisionMade) or rebuilt.over:
            continue
        if made.request_id in wanted:
            request = next(r for r in rebuilt.pending() if r.id == made.request_id)
            fields[made.request_id] = request.fields
            memo, items = memos.setdefault(made.seat, (RecordMemo(), {}))
            ctx = DecisionContext.for_request(rebuilt, request)
            obs = observe(ctx, languages.get(made.seat, "en"), memo=memo, items=items)
            yield (
                made.request_id,
                [
                    {"role": "system", "content": obs["prompt"]["system"]},
                    {"role": "user", "content": obs["prompt"]["user"]},
                ],
            )
        rebuilt.redo(made)  # as recorded (an OD-7 interjection too)


def trajectories(
    games: Sequence[Transcript[EventRow]], rewards: Mapping[str, float] = REWARDS
) -> tuple[list[Row], list[Row]]:
    """(every decision row, every game row) of ``games`` (finished games)."""
    decisions: list[Row] = []
    rows: list[Row] = []
    for game in games:
        mine, row = trajectory_rows(game, rewards)
        decisions.extend(mine)
        rows.append(row)
    return decisions, rows
