"""What a Killer seat's page shows beside the sentences: the seat's card said to
the seat (KG-2, KG-3, KG-4), the words of a police check's answer (also said by
the check's sentence in words.py) and of the rulings a game started under, and
what each event changes on the viewer's seat board: deaths, roles learned or
revealed, checks, ballots (KG-4, KG-6, KG-9). ``words.py`` puts these into
:data:`~sandbox.games.killer.words.WORDS`."""

from __future__ import annotations

from sandbox.core.words import BoardEffects, BoardMaker, D, Lang
from sandbox.words.cards import by_night, identity
from sandbox.words.parts import board_ballots, board_death, board_role, board_team


def answer_en(answer: object) -> str:
    if answer in ("killer", "police", "civilian"):
        return f"a {answer}"
    return "not a killer" if answer == "not killer" else str(answer)


def answer_zh(answer: object, L: Lang) -> str:
    return "不是杀手" if answer == "not killer" else f"是{L.term(answer)}"


# ------------------------------------------------------------- the card
# A seat's card said to the seat (KG-2, KG-3, KG-4): who it is, its team, what
# it has learned and what it has said at night.


def card(p: D, L: Lang) -> list[tuple[str, str]]:
    role = p.get("role")
    partners = p.get("fellow_killers") or p.get("fellow_police") or ()
    rows = [
        identity(L, p.get("seat"), en=_ROLE_EN.get(str(role), str(role)), zh=L.term(role),
                 partners=partners)
    ]  # fmt: skip
    if "kills" in p:  # KG-3
        rows.append(by_night(L, ("Kills so far", "已杀"), [
            (k.get("night"), L.seat(k.get("target"))) for k in p["kills"]]))  # fmt: skip
    if "checks" in p:  # KG-4
        rows.append(by_night(L, ("Checks so far", "查验结果"), [
            (c.get("night"), L.say(en=_checked_en(c), zh=_checked_zh(c, L)))
            for c in p["checks"]]))  # fmt: skip
    rows.append(by_night(L, ("Your night opinions", "你夜里的意见"), [
        (o.get("night"), _night_opinion(o, L)) for o in p.get("my_opinions") or ()]))  # fmt: skip
    return rows


_ROLE_EN = {"killer": "a killer", "police": "a police officer", "civilian": "a civilian"}


def _checked_en(c: D) -> str:
    if c.get("suspect") is None:
        return "nobody checked"
    return f"seat {c['suspect']} is {answer_en(c.get('answer'))}"


def _checked_zh(c: D, L: Lang) -> str:
    if c.get("suspect") is None:
        return "没有查验"
    return f"{L.seat(c['suspect'])}{answer_zh(c.get('answer'), L)}"


def _night_opinion(o: D, L: Lang) -> str:
    target, killing = o.get("target"), o.get("about") == "killer"
    if target is None:
        return L.say(en="no opinion", zh="不给意见")
    return L.say(
        en=f"{'kill' if killing else 'check'} {L.seat(target)}",
        zh=f"{'杀' if killing else '查验'}{L.seat(target)}",
    )


def team_of(p: D) -> tuple[int, ...]:
    """KG-2: killers know each other, and so do the police."""
    return tuple(int(s) for s in (*p.get("fellow_killers", ()), *p.get("fellow_police", ())))


def rulings(d: D, L: Lang) -> list[str]:
    """The rulings a game started under, a sentence each (KG-5..KG-7, KG-15);
    a transcript from before they were recorded says none of them."""
    exact, shown, barred = (
        d.get("check_answer") == "identity",
        d.get("reveal_role_on_death"),
        d.get("barred_first_victim"),
    )
    said = [
        (
            d.get("last_words_quota"),
            f"Last-words quota: {d.get('last_words_quota')}",
            f"遗言名额：{d.get('last_words_quota')}",
        ),
        (d.get("day_limit"), f"Day limit: {d.get('day_limit')}", f"天数上限：{d.get('day_limit')}"),
        (
            d.get("check_answer"),
            f"Police checks reveal {'the exact role' if exact else 'only killer or not killer'}",
            f"警察查验{'得知确切身份' if exact else '只得知是否杀手'}",
        ),
        (
            shown,
            f"Roles are {'' if shown else 'not '}revealed on death",
            f"死亡时{'' if shown else '不'}公布身份",
        ),
        (
            barred,
            f"{L.seat(barred, capital=True)} may not be the first night's victim (KG-5)",
            f"{L.seat(barred)}不能成为第一夜的死者（KG-5）",
        ),
        # table talk, said only when on (KG-3 ruling, KG-14 ruling)
        (d.get("killer_chat") or None, "The killers talk at night", "杀手夜里可以私聊"),
        (d.get("graveyard_chat") or None, "The dead talk among themselves", "亡者之间可以交谈"),
    ]
    return [L.end(L.say(en=en, zh=zh)) for known, en, zh in said if known is not None]


# ------------------------------------------------------------ seat board
# What an event tells an audience about the seats (the viewer's board).


def _board_check(d: D, L: Lang) -> BoardEffects:  # KG-4
    if d.get("suspect") is not None and d.get("answer"):
        return {"role": {str(d["suspect"]): L.term(d["answer"])}}
    return {}


BOARD: dict[str, BoardMaker] = {
    "killer.ballots": board_ballots,  # KG-9: every ballot is announced
    "killer.role": board_role,  # KG-2
    "killer.team": board_team,  # KG-2
    "killer.check": _board_check,
    "killer.dawn": board_death("role"),  # KG-6/KG-9: the role, if revealed
    "killer.voted_out": board_death("role"),
}
