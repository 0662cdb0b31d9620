"""The sentences of an open day's events (kinds ``discussion.*``, OD-4 …
OD-6), in English and Chinese, shared by every variant: :mod:`sandbox.words.say`
looks them up before a variant's own words. Each is built from the event's
JSON ``data`` alone, like every other sentence. :func:`message_phrase` says a
seat's answer to an open day's ask for a variant's decision phrases."""

from __future__ import annotations

from sandbox.core.words import Answer, D, DecisionPhrase, Lang, Sentence, Words
from sandbox.words.parts import Template, ending, from_templates, referee

_NOTHING: tuple[object, ...] = (None, "", (), [], False, "none")  # a field left empty
# the ask's own field and the referee's marks (OD-7, OD-8): never words a seat held back
_MARKS = ("speak", "fell_back", "interjected", "withdrawn")

# OD-6: why the day ended, in plain words
_REASONS = {
    "day_cap": ("the day's messages ran out", "全天的消息已用完"),
    "quiet": ("a round passed with nobody posting", "一轮无人发言"),
    "no_budget": ("nobody has messages left", "没有人还能发消息"),
}


def _round(d: D, L: Lang) -> str:
    number = d.get("round")
    return L.say(en=f"round {number}", zh=f"第{number}轮")


def answers(d: D, L: Lang) -> Words:  # OD-5, OD-8 (the referee alone)
    posted, waited, fell = d.get("posted", ()), d.get("waited", ()), d.get("fell_back", ())
    text = L.say(
        en=f"{_round(d, L).capitalize()}: {L.seats(posted)} posted, {L.seats(waited)} waited, "
        f"{L.seats(fell)} fell back",
        zh=f"{_round(d, L)}：发言 {L.seats(posted)}；等待 {L.seats(waited)}；"
        f"未作答（按等待处理）{L.seats(fell)}",
    )
    return referee("discussion.answers", L.end(text))


def closed_round(d: D, L: Lang) -> Words:  # OD-5, OD-6
    accepted = d.get("accepted", ())
    posted = (
        L.say(en=f" with messages from {L.seats(accepted)}", zh=f"，发言的有{L.seats(accepted)}")
        if accepted
        else L.say(en=": nobody posted", zh="：无人发言")
    )
    text = L.say(en=f"{_round(d, L).capitalize()} closes{posted}", zh=f"{_round(d, L)}结束{posted}")
    return referee("discussion.round", L.end(text))


def ended(d: D, L: Lang) -> Words:  # OD-6
    reason = str(d.get("reason"))
    en, zh = _REASONS.get(reason, (reason, reason))
    text = L.say(
        en=f"The open discussion of day {d.get('day')} ends after {_round(d, L)}: {en}",
        zh=f"第{d.get('day')}天的自由讨论在{_round(d, L)}后结束：{zh}",
    )
    return referee("discussion.closed", L.end(text))


# The sentences that say the event's data fields alone.
TEMPLATES: dict[str, Template] = {
    "discussion.opened": Template(  # OD-4, OD-5
        "The open discussion of day {day} begins: any living seat may post (up to "
        "{messages_per_seat} messages each, {messages_per_day} in all; it ends after "
        "{quiet_rounds} quiet round(s))",
        "第{day}天的自由讨论开始：存活的人随时可以发言（每人最多{messages_per_seat}条，"
        "全天共{messages_per_day}条；连续{quiet_rounds}轮无人发言即结束）",
    ),
    "discussion.order": Template(  # OD-5
        "Messages of round {round} in the drawn order: {order:seats}",
        "第{round}轮的消息按抽签顺序：{order:seats}",
    ),
    "discussion.cut": Template(  # OD-5 (the referee alone)
        "Cut at the day's cap in round {round}: {seats:seats}",
        "第{round}轮超出全天上限而未发出的消息：{seats:seats}",
    ),
    "discussion.interjection": Template(  # OD-7
        "Seat {seat} spoke up and closed round {round}: their message comes first",
        "{seat}号插话，第{round}轮随即结束：其消息排在最前",
    ),
    "discussion.withdrawn": Template(  # OD-7 (the referee alone)
        "Asks withdrawn unanswered in round {round}: {seats:seats}",
        "第{round}轮撤回未作答的询问：{seats:seats}",
    ),
}

SENTENCES: dict[str, Sentence] = {
    "discussion.answers": answers,
    "discussion.round": closed_round,
    "discussion.closed": ended,
    **from_templates(TEMPLATES),
}


def message_phrase(post: DecisionPhrase) -> DecisionPhrase:
    """What a seat answered to an open day's ask (OD-5): "waits", or what it
    posted in the words of ``post`` (the variant's phrase of a day speech)."""

    def phrase(a: Answer, L: Lang, you: bool) -> str:
        if a.get("speak") is True:
            return post(a, L, you)
        waits = L.say(en=f"wait{ending(you)}", zh="等待")
        held = [name for name in a if name not in _MARKS and a[name] not in _NOTHING]
        if not held:
            return waits
        # a wait ignores its other fields (OD-5); what it held back is still said
        return waits + L.say(en=", holding back: ", zh="，未发出：") + post(a, L, you)

    return phrase


# ---------------------------------------------------------------- said to a person
# OD-5, OD-7: the ask and its refusal in plain words, for the people's side
# alone (the models' instruction names the answer's field: "speak: true").


def ask_words(L: Lang, known: tuple[int, int, int] | None) -> str:
    """An open day's ask said to a person: "Day 2, round 3: post a message
    whenever you like (2 left today), or wait this round." ``known``: the day,
    the round and the messages left (None: not known, the choice alone)."""
    if known is None:
        return L.say(
            en="Post a message whenever you like, or wait this round.",
            zh="想发言就随时发一条消息，或者这一轮先等待。",
        )
    day, number, left = known
    return L.say(
        en=f"Day {day}, round {number}: post a message whenever you like ({left} left today), "
        "or wait this round.",
        zh=f"第{day}天第{number}轮：想发言就随时发一条消息（今天还剩{left}条），或者这一轮先等待。",
    )


def empty_message(L: Lang) -> str:
    """OD-2's refusal of a message that says nothing, said to a person."""
    return L.say(
        en="Your message is empty: write something, or wait this round.",
        zh="你的消息是空的：请写点内容，或者这一轮先等待。",
    )
