"""The words of the story at the end of a game (issue 38, item 6): the recap's
headings, each claim and how it held against the deal, and one vote tally per
day. The recap's other lines are the events' own sentences
(:func:`sandbox.words.words_for`); this module says only what no event says.

Roles are said through the variant's vocabulary (``Lang.term``), so no
variant is named here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sandbox.core.words import Lang

# How a claim held (the statements table's labels, docs/study-reference.md): the mark
# people read, and the longer words behind it.
VERDICTS: Mapping[str, tuple[str, str, str, str]] = {
    # label: (en mark, en words, zh mark, zh words)
    "true": ("true", "true", "真", "属实"),
    "lie": ("false", "false, and the speaker knew it", "假", "不实，且发言者明知"),
    "error": ("false", "false, though the speaker could not know", "假", "不实，但发言者无从得知"),
    "unknowable": ("?", "the deal does not settle it", "？", "身份无法判定"),
}


def heading(key: str, L: Lang, day: int = 0) -> str:
    """A heading of the recap: ``story``, ``night``, ``day``, ``claims``, ``vote``."""
    return {
        "story": L.say(en="The story of the game", zh="本局回顾"),
        "night": L.say(en=f"Night {day}", zh=f"第{day}夜"),
        "day": L.say(en=f"Day {day}", zh=f"第{day}天"),
        "claims": L.say(en="Claims, checked against the roles", zh="发言中的声明（对照真实身份）"),
        "vote": L.say(en="The vote", zh="投票"),
        "hint": L.say(
            en="The referee's knowledge, shown now that the game is over.",
            zh="裁判视角，仅在对局结束后显示。",
        ),
    }[key]


def verdict(label: str, L: Lang, kind: str = "") -> tuple[str, str]:
    """(the mark, the words) of a claim's label; a promise is kept or broken."""
    if kind == "promise" and label in ("true", "lie"):
        kept = label == "true"
        return (
            L.say(en="kept" if kept else "broken", zh="兑现" if kept else "食言"),
            L.say(en="the promised vote was cast" if kept else "the vote went elsewhere",
                  zh="按承诺投了票" if kept else "票投给了别人"),
        )  # fmt: skip
    en_mark, en_words, zh_mark, zh_words = VERDICTS.get(label, VERDICTS["unknowable"])
    return L.say(en=en_mark, zh=zh_mark), L.say(en=en_words, zh=zh_words)


def roles_said(roles: Iterable[str], L: Lang) -> str:
    """Roles in words, "a or b" (a claim may name several)."""
    names = [L.term(r) for r in sorted(roles)]
    return L.say(en=" or ".join(names), zh="或".join(names))


def claim_words(kind: str, speaker: int, target: int, said: str, truth: str | None, L: Lang) -> str:
    """One claim of ``speaker`` about ``target`` in words: ``said``, the roles
    it names (in words), and ``truth``, the target's true role (in words)
    where the claim names roles."""
    who, whom = L.seat(speaker, capital=True), L.seat(target)
    if kind == "role":
        text = L.say(en=f"{who} claims to be {said}", zh=f"{who}自称{said}")
    elif kind == "check":
        text = L.say(en=f"{who} says it checked {whom}: {said}", zh=f"{who}称查验了{whom}：{said}")
    elif kind == "accuse":
        text = L.say(en=f"{who} accuses {whom} ({said})", zh=f"{who}指认{whom}（{said}）")
    elif kind == "vouch":
        text = L.say(en=f"{who} vouches for {whom} ({said})", zh=f"{who}为{whom}担保（{said}）")
    elif kind == "promise":
        text = L.say(en=f"{who} promises a vote for {whom}", zh=f"{who}承诺投票给{whom}")
    else:
        text = L.say(en=f"{who} says something of {whom}", zh=f"{who}谈到{whom}")
    if truth is not None and kind != "promise":
        text += L.say(en=f"; {whom} is {truth}", zh=f"；{whom}实为{truth}")
    return text


def tally_words(day: int, ballots: Mapping[int, int | None], L: Lang) -> str:
    """The day's deciding round of votes in one line: each seat voted for,
    most votes first, with its voters; then the abstentions."""
    voters: dict[int, list[int]] = {}
    for seat, target in sorted(ballots.items()):
        if target is not None:
            voters.setdefault(target, []).append(seat)
    parts = [
        L.say(
            en=f"{L.seat(target)}: {len(by)} vote{'s' if len(by) != 1 else ''} ({L.seats(by)})",
            zh=f"{L.seat(target)}：{len(by)} 票（{L.seats(by)}）",
        )
        for target, by in sorted(voters.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]
    none = [s for s, t in sorted(ballots.items()) if t is None]
    if none:
        parts.append(L.say(en=f"no vote: {L.seats(none)}", zh=f"弃票：{L.seats(none)}"))
    return L.say(en=f"Day {day} vote: ", zh=f"第{day}天投票：") + L.say(en="; ", zh="；").join(
        parts
    )
