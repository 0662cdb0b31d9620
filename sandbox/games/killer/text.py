"""Rules text and one-line event descriptions for the Killer game."""

from __future__ import annotations

from collections.abc import Mapping

from sandbox.core.events import Event
from sandbox.games.killer import events as ev
from sandbox.games.killer.config import KillerConfig, lineup


def rules_text(config: KillerConfig) -> str:
    counts = lineup(config.players)
    answer = (
        "the suspect's exact role (killer, police or civilian)"
        if config.check_answer == "identity"
        else "only whether the suspect is a killer or not"
    )
    reveal = "with their role" if config.reveal_role_on_death else "without their role"
    barred = (
        f" In this game seat {config.previous_first_victim} may not be the night-1 victim."
        if config.previous_first_victim is not None
        else ""
    )
    lines = [
        f"Killer, {config.players} players: {counts['killer']} killers, "
        f"{counts['police']} police, {counts['civilian']} civilians (KG-1).",
        "KG-2 Roles are dealt secretly. Killers know each other; police know each other; "
        "civilians know only themselves.",
        "KG-3 Night: each living killer gives a sealed opinion (a living player, or none). "
        "The majority of the opinions given is killed; a tie is broken by a seeded draw; "
        "no opinions, no kill. Killers then see each other's opinions.",
        f"KG-4 Police, the same way, choose a living non-police suspect; the judge tells them "
        f"privately {answer}.",
        f"KG-5 Series: the first-night victim may not be the previous game's.{barred}",
        f"KG-6 At dawn the judge announces the night's victim, {reveal}.",
        f"KG-7 The first {counts['killer']} dead (night kills and vote-outs together) "
        "give last words.",
        "KG-8 Each living player speaks once, starting from the first living seat after "
        "the victim (next higher seat, wrapping); with no victim, after the previous day's "
        "first speaker (seat 1 on day 1).",
        "KG-9 Sealed ballots for a living other player, or abstain; every ballot is "
        "announced afterwards. Most votes is out (with last words if the quota allows); "
        "nobody votes, nobody out.",
        "KG-10 Tie: the tied speak again and everyone revotes among the tied; tied again: "
        "the others speak and everyone revotes among the tied; tied again: forced draw.",
        "KG-11 Night and day repeat until the game ends.",
        f"KG-12 All killers dead: police and civilians win. All police dead: killers win. "
        f"All civilians dead: draw. Checked after every death. After day {config.day_limit} "
        "the game is a draw by limit.",
        "KG-13 Only a police player or killer whose side is down to one living member may "
        "concede (in their day speech); their side loses at once.",
        "KG-14 The dead never act again (last words aside). Claims are only words; the judge "
        "never confirms a card.",
        "KG-15 Speak only when given the floor; do not swear oaths to win trust.",
    ]
    return "\n".join(lines)


def describe(event: Event) -> str | None:
    """One readable line per Killer event, or None for events of other kinds."""
    if isinstance(event, ev.GameStarted):
        return (f"Killer with {event.players} players: {event.killers} killers, "
                f"{event.police} police.")
    if isinstance(event, ev.RoleCard):
        return f"Seat {event.seat} is dealt the {event.role} card."
    if isinstance(event, ev.TeamList):
        return f"The {event.role} team is seats {list(event.members)}."
    if isinstance(event, ev.NightFell):
        return f"Night {event.night} falls."
    if isinstance(event, ev.Opinions):
        return f"Night {event.night} {event.role} opinions: {_pairs(event.opinions)}."
    if isinstance(event, ev.KillChosen):
        who = "nobody" if event.target is None else f"seat {event.target}"
        return f"The killers choose {who}{' (seeded draw)' if event.tie_break else ''}."
    if isinstance(event, ev.PoliceTurn):
        return "The killers close their eyes; the police open theirs."
    if isinstance(event, ev.CheckResult):
        if event.suspect is None:
            return "The police check nobody."
        return f"The judge tells the police: seat {event.suspect} is {event.answer}."
    if isinstance(event, ev.Dawn):
        if event.victim is None:
            return f"Day {event.day} dawns; nobody died in the night."
        return f"Day {event.day} dawns; seat {event.victim} was killed{_role(event.role)}."
    if isinstance(event, ev.PhaseStarted):
        return _phase(event)
    if isinstance(event, ev.Speech):
        return f"Seat {event.seat} says: {event.text or '(pass)'}"
    if isinstance(event, ev.LastWords):
        return f"Seat {event.seat}'s last words: {event.text or '(pass)'}"
    if isinstance(event, ev.Ballots):
        return f"Ballots (round {event.round}): {_pairs(event.ballots)}."
    if isinstance(event, ev.VotedOut):
        return f"Seat {event.seat} is voted out{_role(event.role)}."
    if isinstance(event, ev.NobodyOut):
        return "Nobody voted; nobody is out."
    if isinstance(event, ev.Tied):
        return f"Tie between seats {list(event.tied)} (tie round {event.round})."
    if isinstance(event, ev.ForcedDraw):
        return f"Still tied between {list(event.tied)}: the game is a forced draw."
    if isinstance(event, ev.Conceded):
        return f"Seat {event.seat} concedes for the {event.side} side."
    if isinstance(event, ev.DayLimitReached):
        return f"Day {event.day} was the last day: draw by limit."
    return None


def _phase(event: ev.PhaseStarted) -> str:
    if event.phase == "last_words":
        return f"Seat {event.order[0]} may give last words."
    if event.phase == "speeches":
        return f"Speeches ({event.context}) in order {list(event.order)}."
    return f"Vote (round {event.round}) among {list(event.candidates)}."


def _role(role: str | None) -> str:
    return f" (a {role})" if role else ""


def _pairs(values: object) -> str:
    assert isinstance(values, Mapping)
    shown = [f"{k}→{'none' if v is None else v}" for k, v in values.items()]
    return ", ".join(shown) or "none"
