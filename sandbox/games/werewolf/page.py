"""What a Werewolf seat's page shows beside the sentences: the seat's card said
to the seat (WW-2, WW-4), and what each event changes on the viewer's seat
board: deaths, roles learned or revealed, ballots (WW-2, WW-4, WW-10, WW-11,
WW-14, WW-15, WW-20). ``words.py`` puts these into
:data:`~sandbox.games.werewolf.words.WORDS`."""

from __future__ import annotations

from sandbox.core.words import BoardEffects, BoardMaker, D, Lang
from sandbox.words.cards import by_night, identity
from sandbox.words.parts import board_ballots, board_death, board_role, board_team

# ------------------------------------------------------------ the card
# A seat's card said to the seat in sentences (WW-2, WW-4; issue 38): who it
# is and its pack, then what it did or learned night by night.

_CARD_DONE = (
    "seat", "role", "team", "pack", "fellow_werewolves",
    "kills", "pack_votes_tonight", "inspections", "protections", "saves",
)  # fmt: skip
_DRAWN = ("tie_draw", "abstain_draw")  # WW-7: a kill the seeded draw chose


def card(p: D, L: Lang) -> list[tuple[str, str]]:
    role, team = p.get("role"), p.get("team")
    wolf = "fellow_werewolves" in p
    rows = [
        identity(L, p.get("seat"),
                 en=f"a {L.term(role)}" + ("" if wolf else f" of the {L.term(team)} team"),
                 zh=f"{L.term(role)}" + ("" if wolf else f"（{L.term(team)}）"),
                 partners=p.get("fellow_werewolves") or ())
    ]  # fmt: skip
    if "kills" in p:  # WW-7
        rows.append(by_night(L, ("Kills so far", "已杀"), [
            (k.get("night"), _killed(k, L)) for k in p["kills"]]))  # fmt: skip
    if p.get("pack_votes_tonight"):
        votes = [
            L.say(en=f"{L.seat(s)} → {_target(t, L)}", zh=f"{L.seat(s)}→{_target(t, L)}")
            for s, t in sorted(p["pack_votes_tonight"].items(), key=lambda kv: int(kv[0]))
        ]
        rows.append((L.say(en="Pack votes tonight", zh="今晚狼队的票"), L.join(votes)))
    if "inspections" in p:  # WW-10
        rows.append(by_night(L, ("Checks so far", "查验结果"), [
            (c.get("night"), L.say(en=f"{L.seat(c.get('seat'))} is {_a(c.get('result'), L)}",
                                   zh=f"{L.seat(c.get('seat'))}是{L.term(c.get('result'))}"))
            for c in p["inspections"]]))  # fmt: skip
    if "protections" in p:  # WW-8, WW-9
        rows.append(by_night(L, ("Protected so far", "已保护"), [
            (c.get("night"), L.seat(c.get("seat"))) for c in p["protections"]]))  # fmt: skip
        rows.append(by_night(L, ("Saves so far", "成功救下"), [
            (c.get("night"), L.seat(c.get("seat"))) for c in p.get("saves") or ()]))  # fmt: skip
    rows += L.facts({k: v for k, v in p.items() if k not in _CARD_DONE})
    return rows


def _killed(k: D, L: Lang) -> str:
    if k.get("target") is None:
        return L.say(en="nobody (every werewolf abstained)", zh="无人（狼人都弃权）")
    how = L.term(k.get("how"))
    drawn = L.say(en=f" ({how})", zh=f"（{how}）") if str(k.get("how")) in _DRAWN else ""
    return L.seat(k.get("target")) + drawn


def _a(result: object, L: Lang) -> str:
    """A seer's answer: "a villager" (a role), "village" (a team, WW-10)."""
    roles = ("werewolf", "seer", "doctor", "villager")
    return f"a {L.term(result)}" if result in roles else L.term(result)


def _target(target: object, L: Lang) -> str:
    return L.seat(target) if target is not None else L.say(en="abstain", zh="弃权")


def team_of(p: D) -> tuple[int, ...]:
    """WW-4: the werewolves know each other."""
    return tuple(int(s) for s in p.get("fellow_werewolves", ()))


# ------------------------------------------------------------ seat board
# What an event tells its audience about the seats (the viewer's board): the
# dead and the roles learned. A speech's claims are added by the viewer.


def _board_seer(d: D, L: Lang) -> BoardEffects:  # WW-10: a role, or a team
    return {"role": {str(d["seat"]): L.term(d.get("result"))}}


def _board_roles(d: D, L: Lang) -> BoardEffects:  # WW-20
    return {"role": {str(s): L.term(r) for s, r in (d.get("roles") or {}).items()}}


BOARD: dict[str, BoardMaker] = {
    "werewolf.ballots": board_ballots,  # WW-14: the ballots are announced
    "werewolf.role": board_role,  # WW-2
    "werewolf.pack": board_team,  # WW-4
    "werewolf.seer_result": _board_seer,
    "werewolf.dawn": board_death("revealed"),  # WW-11, WW-15: what was revealed
    "werewolf.exiled": board_death("revealed"),
    "werewolf.roles_revealed": _board_roles,
}
