"""Rule failures: decisions that fell back because the seat broke the rules or
its model failed, and the games whose outcome may rest on them.

A *rule failure* is a ``core.decision`` with ``fallback: true`` and a
``fallback_reason`` in :data:`RULE_FAILURES` (an answer still invalid after
repairs, a provider error, a timeout; docs/transcript.md). The referee then
played the documented fallback for the seat, which its opponents may exploit.

A game *hinged on an opponent's rule failure* when some seat won it and at
least one seat that did not win made a rule failure — in any decision. Telling
whether one fallen-back decision changed the result would take a replay per
decision (and knowledge of which decisions are decisive in each variant, which
the analysis does not have), so the rule is deliberately conservative: it
drops every game a loser's failure could have decided, and some it did not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sandbox.transcript import EventRow, Transcript

RULE_FAILURES = ("invalid", "provider", "timeout")
HINGED_RULE = (
    "a game is left out when some seat won it and a seat that did not win made at least "
    "one decision that fell back for a rule failure (invalid, provider, timeout)"
)


def rule_failures(game: Transcript[EventRow]) -> list[dict[str, Any]]:
    """The game's fallen-back decisions with a rule-failure reason, in order:
    seat, contestant, decision, reason, seq."""
    who = game.contestants
    return [
        {
            "seat": int(e["seat"]),
            "contestant": who.get(int(e["seat"]), "?"),
            "decision": e.get("decision"),
            "reason": e.get("fallback_reason"),
            "seq": e.get("seq"),
        }
        for e in game.of_kind("core.decision")
        if e.get("fallback")
        and e.get("fallback_reason") in RULE_FAILURES
        and isinstance(e.get("seat"), int)
    ]


def hinged(game: Transcript[EventRow]) -> bool:
    """Whether the game's outcome hinged on a losing seat's rule failure (the
    module text states the rule)."""
    results = game.results
    if not any(r == "win" for r in results.values()):
        return False  # nobody won: no one profited from a failure
    return any(results.get(f["seat"]) != "win" for f in rule_failures(game))


def failure_summary(games: Sequence[Transcript[EventRow]]) -> dict[str, Any]:
    """Per contestant: its rule failures by reason, the games it made one in,
    the games it won while an opponent's failure was in play (``won_hinged``)
    and lost with a failure of its own (``lost_hinged``); and the hinged games."""
    by_who: dict[str, dict[str, Any]] = {}
    hinged_ids: list[str] = []
    for game in games:
        found = rule_failures(game)
        is_hinged = hinged(game)
        if is_hinged:
            hinged_ids.append(game.game_id)
        played = set(game.contestants.values())
        for who in played:
            cell = by_who.setdefault(who, _empty())
            cell["games"] += 1
        for who in {f["contestant"] for f in found}:
            by_who.setdefault(who, _empty())["games_with_failure"] += 1
        for failure in found:
            cell = by_who.setdefault(failure["contestant"], _empty())
            cell["failures"] += 1
            reasons = cell["by_reason"]
            reasons[failure["reason"]] = reasons.get(failure["reason"], 0) + 1
        if is_hinged:
            results, seated = game.results, game.contestants
            winners = {seated.get(s, "?") for s, r in results.items() if r == "win"}
            losers = {f["contestant"] for f in found if results.get(f["seat"]) != "win"}
            for name in winners:
                by_who.setdefault(name, _empty())["won_hinged"] += 1
            for name in losers:
                by_who.setdefault(name, _empty())["lost_hinged"] += 1
    return {
        "reasons": list(RULE_FAILURES),
        "rule": HINGED_RULE,
        "hinged_games": sorted(hinged_ids),
        "by_contestant": dict(sorted(by_who.items())),
    }


def _empty() -> dict[str, Any]:
    return {
        "games": 0,
        "failures": 0,
        "by_reason": {},
        "games_with_failure": 0,
        "won_hinged": 0,
        "lost_hinged": 0,
    }


def without_hinged(games: Sequence[Transcript[EventRow]]) -> list[Transcript[EventRow]]:
    """The games whose outcome did not hinge on a loser's rule failure."""
    return [g for g in games if not hinged(g)]
