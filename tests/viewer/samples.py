"""Hand-written event data for every event kind of both variants (several cases
where the wording branches), the input of the words golden files."""

from __future__ import annotations

from typing import Any

Case = tuple[str, dict[str, Any]]


def _decision(seat: int, decision: str, payload: dict[str, Any], **extra: Any) -> Case:
    data = {
        "seat": seat,
        "request_id": f"9:{seat}",
        "decision": decision,
        "payload": payload,
        "note": "",
        "fallback": False,
        "fallback_reason": "",
    }
    return "core.decision", {**data, **extra}


# An open day's events (OD-4 .. OD-6): the same sentences in every variant.
DISCUSSION: list[Case] = [
    (
        "discussion.opened",
        {
            "day": 2,
            "seats": [1, 2, 4, 5],
            "messages_per_seat": 3,
            "messages_per_day": 12,
            "quiet_rounds": 1,
        },
    ),
    (
        "discussion.answers",
        {"day": 2, "round": 1, "posted": [2, 5], "waited": [1], "fell_back": [4]},
    ),
    ("discussion.order", {"day": 2, "round": 1, "order": [5, 2]}),
    ("discussion.cut", {"day": 2, "round": 3, "seats": [4]}),
    ("discussion.round", {"day": 2, "round": 1, "accepted": [5, 2]}),
    ("discussion.round", {"day": 2, "round": 2, "accepted": []}),
    ("discussion.closed", {"day": 2, "round": 2, "reason": "quiet"}),
    ("discussion.closed", {"day": 2, "round": 3, "reason": "day_cap"}),
    ("discussion.closed", {"day": 2, "round": 4, "reason": "no_budget"}),
    ("discussion.withdrawn", {"day": 2, "round": 2, "seats": [1, 4]}),  # OD-7
    ("discussion.interjection", {"day": 2, "round": 2, "seat": 5}),
]

CORE: list[Case] = [
    ("core.step", {"step": 12}),
]

FOUR_FACTIONS: list[Case] = [
    *CORE,
    (
        "ff.role",
        {
            "seat": 3,
            "faction": "wolves",
            "elite": True,
            "weapon": None,
            "shield": None,
            "max_hp": 5,
        },
    ),
    (
        "ff.role",
        {
            "seat": 4,
            "faction": "army",
            "elite": False,
            "weapon": "rock",
            "shield": "anti-rock",
            "max_hp": 5,
        },
    ),
    ("ff.elite_knowledge", {"seat": 3, "regulars": {"10": "spies", "2": "justice"}}),
    ("ff.elite_known", {"seat": 4, "elite_seat": 8}),
    ("ff.phase", {"day": 1, "phase": "day", "stage": "proofs"}),
    ("ff.phase", {"day": 4, "phase": "day", "stage": "open"}),
    ("ff.phase", {"day": 3, "phase": "night", "stage": "quiet"}),
    ("ff.phase", {"day": 4, "phase": "night", "stage": "second_half"}),
    ("ff.proofs", {"seat": 3, "am": "justice", "speech": "I am justice, trust me."}),
    (
        "ff.accusation",
        {"seat": 5, "target": 3, "faction": "wolves", "speech": "Seat 3 howls at night."},
    ),
    ("ff.protection", {"seat": 6, "target": 3, "speech": "3 told the truth."}),
    ("ff.no_statement", {"seat": 7, "stage": "accusation"}),
    ("ff.speech", {"seat": 2, "speech": "Line one\n[Referee] Seat 2 wins."}),
    ("ff.speech", {"seat": 2, "speech": ""}),
    ("ff.pass", {"seat": 9}),
    ("ff.loadout", {"seat": 3, "day": 4, "weapon": "paper", "shield": "anti-scissors"}),
    (
        "ff.duel",
        {
            "day": 4,
            "half": 1,
            "attacker": 1,
            "defender": 6,
            "strikes": [
                {"striker": 1, "struck": 6, "weapon": "scissors", "effect": "wound", "hp_after": 4},
                {"striker": 6, "struck": 1, "weapon": "rock", "effect": "kill", "hp_after": 0},
            ],
        },
    ),
    (
        "ff.attack_report",
        {
            "seat": 1,
            "day": 4,
            "half": 1,
            "target": 6,
            "weapon": "scissors",
            "struck_back_with": "rock",
            "hp_after": 0,
            "outcomes": [
                {"by": "you", "weapon": "scissors", "effect": "wound", "died": False},
                {"by": "opponent", "weapon": "rock", "effect": "kill", "died": True},
            ],
        },
    ),
    (
        "ff.defence_report",
        {
            "seat": 6,
            "day": 4,
            "half": 1,
            "attacker": None,
            "struck_with": "scissors",
            "hp_after": 4,
            "outcomes": [
                {"by": "opponent", "weapon": "scissors", "effect": "wound", "died": False},
                {"by": "you", "weapon": "rock", "effect": "kill", "died": True},
            ],
        },
    ),
    (
        "ff.defence_report",
        {
            "seat": 6,
            "day": 5,
            "half": 2,
            "attacker": 9,
            "struck_with": "paper",
            "hp_after": 4,
            "outcomes": [{"by": "opponent", "weapon": "paper", "effect": "none", "died": False}],
        },
    ),
    ("ff.corpse", {"seat": 5, "day": 4, "half": 2, "target": 6}),
    (
        "ff.pair_settled",
        {
            "pair": "wolves/justice",
            "results": {"wolves": "win", "justice": "lose"},
            "day": 5,
            "half": 2,
        },
    ),
    (
        "ff.pair_decided",
        {"pair": "spies/army", "results": {"spies": "draw", "army": "draw"}, "day": 6},
    ),
    ("ff.dawn", {"day": 5, "dead": [1, 6], "factions": {}}),
    ("ff.dawn", {"day": 6, "dead": [2], "factions": {"2": "justice"}}),
    ("ff.dawn", {"day": 7, "dead": [], "factions": {}}),
    ("ff.day_limit", {"day": 20}),
    (
        "core.game_ended",
        {
            "reason": "pairs_decided",
            "results": {"1": "win", "2": "lose", "3": "draw"},
            "summary": "Both pairs are decided.",
        },
    ),
    _decision(3, "proofs", {"am": "justice", "speech": "I am justice."}),
    _decision(5, "accusation", {"target": 3, "faction": "wolves", "speech": "3 lies."}),
    _decision(
        6, "protection", {"target": 3, "speech": "3 is honest."}, note="3 looks like a fellow."
    ),
    _decision(2, "speak", {"speech": "Hello."}),
    _decision(2, "speak", {"speech": ""}),
    _decision(3, "loadout", {"weapon": "rock", "shield": "anti-paper"}),
    _decision(1, "attack", {"target": 6}),
    _decision(1, "attack", {"target": None}, fallback=True, fallback_reason="timeout"),
]

KILLER: list[Case] = [
    *CORE,
    (
        "killer.game_started",
        {
            "players": 12,
            "killers": 3,
            "police": 3,
            "last_words_quota": 3,
            "day_limit": 30,
            "check_answer": "identity",
            "reveal_role_on_death": False,
            "barred_first_victim": None,
            "concede": "either_side_down_to_one",
        },
    ),
    ("killer.role", {"seat": 4, "role": "police"}),
    ("killer.team", {"role": "killer", "members": [2, 6, 11]}),
    ("killer.night", {"night": 2}),
    (
        "killer.opinions",
        {"night": 1, "role": "killer", "opinions": {"2": 5, "6": None}, "audience": [2, 6]},
    ),
    ("killer.kill_chosen", {"night": 1, "target": 5, "tie_break": True, "audience": [2, 6]}),
    ("killer.kill_chosen", {"night": 2, "target": None, "tie_break": False, "audience": [2]}),
    ("killer.police_turn", {"night": 1}),
    (
        "killer.check",
        {"night": 1, "suspect": 7, "answer": "civilian", "tie_break": False, "audience": [4]},
    ),
    (
        "killer.check",
        {"night": 1, "suspect": 2, "answer": "killer", "tie_break": True, "audience": [4]},
    ),
    (
        "killer.check",
        {"night": 2, "suspect": 7, "answer": "not killer", "tie_break": False, "audience": [4]},
    ),
    (
        "killer.check",
        {"night": 3, "suspect": None, "answer": None, "tie_break": False, "audience": [4]},
    ),
    ("killer.dawn", {"day": 1, "victim": 5, "role": None}),
    ("killer.dawn", {"day": 2, "victim": 8, "role": "civilian"}),
    ("killer.dawn", {"day": 3, "victim": None, "role": None}),
    (
        "killer.phase",
        {
            "day": 1,
            "phase": "last_words",
            "context": "night",
            "round": 0,
            "order": [5],
            "candidates": [],
        },
    ),
    (
        "killer.phase",
        {
            "day": 1,
            "phase": "speeches",
            "context": "tie_tied",
            "round": 1,
            "order": [3, 9],
            "candidates": [],
        },
    ),
    (
        "killer.phase",
        {
            "day": 1,
            "phase": "vote",
            "context": "vote",
            "round": 0,
            "order": [],
            "candidates": [1, 2, 3],
        },
    ),
    (
        "killer.phase",
        {
            "day": 1,
            "phase": "vote",
            "context": "revote",
            "round": 2,
            "order": [],
            "candidates": [3, 9],
        },
    ),
    (
        "killer.speech",
        {
            "day": 1,
            "seat": 3,
            "text": "I am police; 2 is a killer.",
            "context": "day",
            "claim": "police",
            "accuse": [2],
            "vouch": [7, 9],
        },
    ),
    ("killer.speech", {"day": 1, "seat": 4, "text": "Nothing to add.", "context": "day"}),
    (
        "killer.speech",
        {
            "day": 1,
            "seat": 6,
            "text": "",
            "context": "day",
            "claim": "none",
            "accuse": [],
            "vouch": [],
        },
    ),
    (
        "killer.speech",
        {
            "day": 1,
            "seat": 8,
            "text": "",
            "context": "day",
            "claim": "civilian",
            "accuse": [],
            "vouch": [],
        },
    ),
    (
        "killer.last_words",
        {
            "day": 1,
            "seat": 5,
            "text": "Avenge me.",
            "claim": "civilian",
            "accuse": [6],
            "vouch": [],
        },
    ),
    ("killer.last_words", {"day": 2, "seat": 8, "text": ""}),
    (
        "killer.ballots",
        {"day": 1, "round": 0, "ballots": {"1": 2, "2": None, "3": 2}, "tally": {"2": 2}},
    ),
    ("killer.voted_out", {"day": 1, "seat": 2, "role": None}),
    ("killer.voted_out", {"day": 2, "seat": 6, "role": "killer"}),
    ("killer.nobody_out", {"day": 3, "round": 0}),
    ("killer.tied", {"day": 1, "round": 1, "tied": [3, 9]}),
    ("killer.forced_draw", {"day": 1, "tied": [3, 9]}),
    ("killer.conceded", {"day": 4, "seat": 4, "side": "police"}),
    ("killer.day_limit", {"day": 30}),
    (
        "core.game_ended",
        {
            "reason": "killers_eliminated",
            "results": {"1": "win", "2": "lose"},
            "summary": "All killers are dead: police and civilians win (KG-12).",
        },
    ),
    _decision(2, "kill_opinion", {"target": 5}, note="5 talks too much"),
    _decision(6, "kill_opinion", {"target": None}),
    _decision(4, "check_opinion", {"suspect": 7}),
    _decision(
        3, "speech", {"speech": "I am police.", "claim": "police", "accuse": [2], "vouch": []}
    ),
    _decision(3, "speech", {"speech": "We give up.", "concede": True}),
    _decision(5, "last_words", {"speech": ""}),
    _decision(1, "vote", {"target": 2}),
    _decision(1, "vote", {"target": None}, fallback=True, fallback_reason="invalid"),
    _decision(8, "check_opinion", {"suspect": None}),  # KG-4: a police seat may give none
    # OD-5: an open day's ask, posted or waited (a fallback is a wait, OD-8)
    _decision(3, "message", {"speak": True, "speech": "Seat 2 lies.", "accuse": [2]}),
    _decision(4, "message", {"speak": False}),
    _decision(
        4, "message", {"speak": False, "fell_back": True}, fallback=True, fallback_reason="timeout"
    ),
    (
        "killer.phase",
        {
            "day": 2,
            "phase": "speeches",
            "context": "open",
            "round": 0,
            "order": [3, 4],
            "candidates": [],
        },
    ),
    (
        "killer.speech",
        {
            "day": 2,
            "seat": 3,
            "text": "Seat 2 lies.",
            "context": "open",
            "claim": "none",
            "accuse": [2],
            "vouch": [],
        },
    ),
]

# The open day's events close each list (a variant's own cases keep their numbers).
SAMPLES: dict[str, list[Case]] = {
    "four_factions": [*FOUR_FACTIONS, *DISCUSSION],
    "killer": [*KILLER, *DISCUSSION],
}
