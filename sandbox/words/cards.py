"""A seat's card in plain words (issue 38, item 3): "You are a werewolf,
seat 2. Your partner: seat 8." and what it did or learned at night as one
sentence a row ("Night 1: seat 4."), never a row of raw fields. Each
variant's ``page.py`` builds its card from these."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sandbox.core.words import Lang


def identity(
    L: Lang, seat: object, en: str, zh: str, partners: Sequence[object] = ()
) -> tuple[str, str]:
    """The card's first row: who the seat is (``en``: "a werewolf", ``zh``:
    "狼人") and the partners it knows, as sentences."""
    said = L.say(
        en=f"You are {en}, {L.seat(seat)}.",
        zh=f"你是{L.seat(seat)}，{zh}。",
    )
    if partners:
        many = len(partners) > 1
        said += L.say(
            en=f" Your partner{'s' if many else ''}: {L.seats(partners)}.",
            zh=f"你的同伴：{L.seats(partners)}。",
        )
    return L.say(en="Who you are", zh="你的身份"), said


def by_night(
    L: Lang, label: tuple[str, str], said: Iterable[tuple[object, str]]
) -> tuple[str, str]:
    """A row of what the seat did or learned, night by night ("Night 1: seat 4;
    night 2: seat 1."), or "none yet"."""
    parts = [L.say(en=f"night {night}: {text}", zh=f"第{night}夜：{text}") for night, text in said]
    text = L.say(en="; ", zh="；").join(parts)
    if text:
        text = L.end(text[:1].upper() + text[1:] if not L.zh else text)
    return L.say(en=label[0], zh=label[1]), text or L.say(en="none yet", zh="暂无")
