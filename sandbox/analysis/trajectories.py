"""Training data: ``sandbox export --format trajectories`` (docs/frameworks.md,
"Trajectories").

One row per decision: what the seat was shown (the observation text), what
it answered, whether the referee took it (else the recorded fallback and the
referee's last error), how many repair turns it took, the seat's role and
side, and the seat's final reward; one row per game: the roles revealed and
the outcome.

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

from sandbox.agents.llm.prompt import RecordMemo
from sandbox.agents.observation import observe
from sandbox.core.events import DecisionMade
from sandbox.core.game import Game
from sandbox.core.seat import DecisionContext
from sandbox.session.replay import game_config_of
from sandbox.transcript import EventRow, Transcript, read_transcript

Row = dict[str, Any]
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
    texts = dict(observation_texts(game))
    calls = _calls_by_request(game.calls)
    rows: list[Row] = []
    for index, event in enumerate(game.of_kind("core.decision")):
        seat = int(event["seat"])
        request_id = str(event["request_id"])
        mine = calls.get((seat, request_id), [])
        errors = [str(c["error"]) for c in mine if str(c.get("error") or "").startswith(INVALID)]
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
                "observation": texts.get(request_id),
                "answer": json.dumps(event.get("payload"), ensure_ascii=False, sort_keys=True),
                "valid": not event.get("fallback"),
                "fallback_reason": event.get("fallback_reason") or "",
                "referee_error": errors[-1][len(INVALID) :] if errors else None,
                "repairs": sum(1 for c in mine if _is_repair(c)),
                "note": event.get("note") or "",
                "result": results.get(seat),
                "reward": reward_of(results.get(seat), rewards),
            }
        )
    return rows, game_row(game, rewards, len(rows))


def game_row(game: Transcript[EventRow], rewards: Mapping[str, float], decisions: int) -> Row:
    outcome = game.outcome or {}
    results = game.results
    return {
        "game_id": game.game_id,
        "path": str(game.path),
        "variant": game.variant,
        "seed": game.header.get("seed"),
        "players": len(game.roles),
        "roles": json.dumps({str(s): r for s, r in sorted(game.roles.items())}),
        "sides": json.dumps({str(s): r for s, r in sorted(game.sides.items())}),
        "outcome": outcome.get("reason"),
        "summary": outcome.get("summary"),
        "results": json.dumps({str(s): r for s, r in sorted(results.items())}),
        "rewards": json.dumps({str(s): reward_of(r, rewards) for s, r in sorted(results.items())}),
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


def observation_texts(game: Transcript[EventRow]) -> Iterator[tuple[str, str]]:
    """(request id, the observation text) of every decision of ``game``."""
    recorded: dict[str, str] = {}
    for call in game.calls:
        messages = call.get("messages")
        if call.get("probe") or not isinstance(messages, list) or int(call.get("repair") or 0):
            continue
        request_id = str(call.get("request_id"))
        if request_id not in recorded:
            recorded[request_id] = prompt_text(messages)
    yield from recorded.items()
    wanted = {
        str(e["request_id"])
        for e in game.of_kind("core.decision")
        if str(e["request_id"]) not in recorded
    }
    if wanted:
        yield from _rendered(game, wanted)


def prompt_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """A conversation's messages as one text (system, then user, a blank line apart)."""
    return "\n\n".join(str(m.get("content") or "") for m in messages)


def _rendered(game: Transcript[EventRow], wanted: set[str]) -> Iterator[tuple[str, str]]:
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
            memo, items = memos.setdefault(made.seat, (RecordMemo(), {}))
            ctx = DecisionContext.for_request(rebuilt, request)
            obs = observe(ctx, languages.get(made.seat, "en"), memo=memo, items=items)
            yield (
                made.request_id,
                prompt_text(
                    [{"content": obs["prompt"]["system"]}, {"content": obs["prompt"]["user"]}]
                ),
            )
        if made.fallback:
            rebuilt.submit_fallback(made.request_id, made.fallback_reason, made.note)
        else:
            rebuilt.submit(made.request_id, made.payload, made.note)


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
