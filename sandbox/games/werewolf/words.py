"""Werewolf in words: every event's sentence in English and Chinese and the
decision phrases (rule IDs as in RULES-WEREWOLF). :data:`WORDS` is what
``Werewolf.words()`` returns: these with the vocabulary
(``prompts/werewolf/vocabulary.toml``) and what a seat's page shows beside them
(``page.py``: the card, the board). Log lines (``Variant.describe_event``) are
the English sentences, a speech quoted after its sentence.

Speeches carry structured claims (WW-12), said as the speaker's claims, never
confirmed; a speech is quoted as it was shown (softened, WW-13).
"""

from __future__ import annotations

from sandbox.core.words import (
    SPEECH,
    Answer,
    D,
    DecisionPhrase,
    Lang,
    Sentence,
    VariantWords,
    Words,
    speech_claims,
)
from sandbox.games.werewolf.info import INFO, Decision
from sandbox.games.werewolf.page import BOARD, card, team_of
from sandbox.games.werewolf.requests import shown_speech
from sandbox.words.parts import (
    NIGHT_FALLS,
    Template,
    choices,
    claims_said,
    dawn_words,
    ending,
    from_templates,
    referee,
    seat_choice,
    spoke,
    spoken,
)
from sandbox.words.talk import graveyard_phrase, talk_phrase
from sandbox.words.vocabulary import load_vocabulary

# The game words: the data file prompts/werewolf/vocabulary.toml.
VOCABULARY = load_vocabulary(INFO.name)


def _shown(revealed: object, L: Lang) -> str:
    if not revealed:
        return ""
    return L.say(en=f" ({revealed})", zh=f"（{L.term(revealed)}）")


def game_started(d: D, L: Lang) -> Words:  # WW-1, WW-4
    p, w, s, doc, v = (d.get(k) for k in ("players", "werewolves", "seers", "doctors", "villagers"))
    text = L.say(
        en=f"Werewolf with {p} seats: {w} werewolves, {s} seer, {doc} doctor, {v} villagers",
        zh=f"狼人杀，共{p}个座位：{w}名狼人、{s}名预言家、{doc}名医生、{v}名村民",
    )
    limit = (d.get("rulings") or {}).get("day_limit")  # WW-21
    if limit is not None:
        text = L.end(text) + L.say(en=f" Day limit: {limit}", zh=f"天数上限：{limit}")
    return referee("werewolf.game_started", L.end(text))


def pack_turn(d: D, L: Lang) -> Words:  # WW-6, WW-7
    order, mode = L.seats(d.get("order", ())), str(d.get("mode"))
    if d.get("stage") == "chat":
        text = L.say(en=f"The pack talks, in order: {order}", zh=f"狼队私聊，顺序：{order}")
    elif mode == "one_wolf":
        text = L.say(
            en=f"{L.seat(d['order'][0], capital=True)} is drawn to choose the kill",
            zh=f"抽中{L.seat(d['order'][0])}决定今晚的目标",
        )
    else:
        how = L.say(
            en="one after another" if mode == "sequential" else "at once",
            zh="依次" if mode == "sequential" else "同时",
        )
        text = L.say(en=f"The pack names the kill {how}: {order}", zh=f"狼队{how}指定目标：{order}")
    return referee("werewolf.pack_turn", L.end(text))


def wolf_message(d: D, L: Lang) -> Words:  # WW-6
    seat = L.seat(d.get("seat"), capital=True)
    text = str(d.get("text", ""))
    if not text.strip():
        return referee(
            "werewolf.wolf_message",
            L.end(L.say(en=f"{seat} tells the pack nothing", zh=f"{seat}没有对狼队说话")),
        )
    return Words(
        "werewolf.wolf_message",
        SPEECH,
        L.say(en=f"{seat} tells the pack", zh=f"{seat}对狼队说"),
        d.get("seat"),
        text,
    )


def wolf_votes(d: D, L: Lang) -> Words:  # WW-7
    text = L.say(
        en=f"Kill votes: {choices(d.get('votes', {}), L, nobody=ABSTAIN)}",
        zh=f"杀人票：{choices(d.get('votes', {}), L, nobody=ABSTAIN)}",
    )
    return referee("werewolf.wolf_votes", L.end(text))


ABSTAIN = ("abstain", "弃权")  # a seat that chose no one
# WW-7/WW-15: a choice the seeded draw made; WW-5: a fixed first night's victim
DRAWS = ("tie_draw", "abstain_draw", "fixed_night")


def _drawn(how: str, L: Lang) -> str:
    """`` (tie, seeded draw)`` after a drawn kill or exile, in the vocabulary's words."""
    if how not in DRAWS:
        return ""
    return L.say(en=f" ({L.term(how)})", zh=f"（{L.term(how)}）")


def kill_chosen(d: D, L: Lang) -> Words:  # WW-7
    if d.get("target") is None:
        text = L.say(
            en="Every werewolf abstained: nobody is attacked", zh="所有狼人都弃权：今晚无人被袭击"
        )
    else:
        how = str(d.get("how"))
        text = L.say(
            en=f"The werewolves choose {L.seat(d['target'])}{_drawn(how, L)}",
            zh=f"狼人选定{L.seat(d['target'])}{_drawn(how, L)}",
        )
    return referee("werewolf.kill_chosen", L.end(text))


def dawn(d: D, L: Lang) -> Words:  # WW-11
    shown = _shown(d.get("revealed"), L)
    return dawn_words("werewolf.dawn", d, L, ("died in the night", "昨夜死亡"), shown)


def bids(d: D, L: Lang) -> Words:  # WW-12: the referee's eyes only
    shown = L.items(
        f"{L.seat(s)}: {b}"
        for s, b in sorted((d.get("bids") or {}).items(), key=lambda kv: int(kv[0]))
    )
    text = L.say(
        en=f"Bids of turn {d.get('turn')}: {shown}", zh=f"第{d.get('turn')}次发言的出价：{shown}"
    )
    return referee("werewolf.bids", L.end(text))


def floor(d: D, L: Lang) -> Words:  # WW-12
    seat = d.get("seat")
    draw = L.say(en=" (tie, seeded draw)", zh="（平局，按随机种子抽签）") if d.get("drawn") else ""
    text = L.say(
        en=f"{L.seat(seat, capital=True)} wins the floor{draw}",
        zh=f"{L.seat(seat)}获得发言权{draw}",
    )
    return referee("werewolf.floor", L.end(text), seat)


def _spoken(kind: str, d: D, L: Lang, *, last_words: bool = False) -> Words:
    text = str(d.get("shown", d.get("text", "")))  # what the table saw (WW-13)
    softened = d.get("shown") is not None and d.get("shown") != d.get("text")
    extra = L.say(en=" [softened]", zh="［已替换用词］") if softened else ""
    return spoken(kind, d, L, text, last_words=last_words, extra=extra)


def speech(d: D, L: Lang) -> Words:  # WW-12, WW-13
    return _spoken("werewolf.speech", d, L)


def last_words(d: D, L: Lang) -> Words:  # WW-11
    return _spoken("werewolf.last_words", d, L, last_words=True)


def vote_opened(d: D, L: Lang) -> Words:  # WW-14
    order = L.seats(d.get("order", ()))
    if d.get("mode") == "sequential":
        text = L.say(
            en=f"The vote, in the open, in order: {order}", zh=f"依次公开投票，顺序：{order}"
        )
    else:
        text = L.say(en=f"A sealed vote of {order}", zh=f"{order}秘密投票")
    return referee("werewolf.vote_opened", L.end(text))


def ballots(d: D, L: Lang) -> Words:  # WW-14
    drawn = d.get("drawn") or ()
    note = (
        L.say(
            en=f" (drawn for {L.seats(drawn)}, WW-23)",
            zh=f"（{L.seats(drawn)}的票由抽签决定，WW-23）",
        )
        if drawn
        else ""
    )
    text = L.say(
        en=f"Ballots: {choices(d.get('ballots', {}), L, nobody=ABSTAIN)}{note}",
        zh=f"选票：{choices(d.get('ballots', {}), L, nobody=ABSTAIN)}{note}",
    )
    return referee("werewolf.ballots", L.end(text))


def exiled(d: D, L: Lang) -> Words:  # WW-15
    seat, how = d["seat"], str(d.get("how"))
    shown = _shown(d.get("revealed"), L)
    why = L.say(en=f" with {d.get('votes')} votes", zh=f"，得{d.get('votes')}票")
    if how in DRAWS:
        why = _drawn(how, L)
    text = L.say(
        en=f"{L.seat(seat, capital=True)} is exiled{why}{shown}",
        zh=f"{L.seat(seat)}被放逐{why}{shown}",
    )
    return referee("werewolf.exiled", L.end(text), seat)


_NO_EXILE_EN = {"tie": "a tie", "all_abstained": "everyone abstained", "no_majority": "no majority"}
_NO_EXILE_ZH = {"tie": "平票", "all_abstained": "全部弃权", "no_majority": "无人过半数"}


def no_exile(d: D, L: Lang) -> Words:  # WW-15
    reason = str(d.get("reason"))
    text = L.say(
        en=f"Nobody is exiled ({_NO_EXILE_EN.get(reason, reason)})",
        zh=f"无人被放逐（{_NO_EXILE_ZH.get(reason, reason)}）",
    )
    return referee("werewolf.no_exile", L.end(text))


def roles_revealed(d: D, L: Lang) -> Words:  # WW-20
    roles = d.get("roles") or {}
    shown = L.items(
        f"{L.seat(s)}: {L.term(r)}" for s, r in sorted(roles.items(), key=lambda kv: int(kv[0]))
    )
    return referee(
        "werewolf.roles_revealed", L.end(L.say(en=f"The roles: {shown}", zh=f"所有身份：{shown}"))
    )


# The sentences that say the event's data fields alone.
TEMPLATES: dict[str, Template] = {
    "werewolf.night": NIGHT_FALLS,  # WW-5
    "werewolf.role": Template(  # WW-2
        "{seat:Seat} is dealt the {role} card", "{seat:Seat}拿到的身份：{role:term}", about="seat"
    ),
    "werewolf.pack": Template(
        "The werewolves are {members:seats}", "狼人是{members:seats}"
    ),  # WW-4
    "werewolf.protection": Template(  # WW-8
        "The doctor ({doctor:seat}) protects {target:seat}",
        "医生（{doctor:seat}）保护{target:seat}",
    ),
    "werewolf.inspection": Template(  # WW-10
        "The seer ({seer:seat}) checks {target:seat}", "预言家（{seer:seat}）查验{target:seat}"
    ),
    "werewolf.seer_result": Template(  # WW-10
        "The seer learns: {seat:seat} is {result}", "预言家得知：{seat:seat}是{result:term}"
    ),
    "werewolf.saved": Template(  # WW-9
        "The doctor's protection saves {seat:seat}", "医生的保护救下了{seat:seat}"
    ),
    "werewolf.last_words_turn": Template(  # WW-11
        "{seat:Seat} may speak last words (WW-11)", "{seat:seat}可以留遗言（WW-11）", about="seat"
    ),
    "werewolf.speaking_order": Template(  # WW-12
        "{rounds} round(s) of speeches, in order: {order:seats}",
        "发言{rounds}轮，顺序：{order:seats}",
    ),
    "werewolf.bidding_turn": Template(  # WW-12
        "Turn {turn} of {turns}: {bidders:seats} bid for the floor",
        "第{turn}/{turns}次发言：{bidders:seats}竞价",
    ),
    "werewolf.day_limit": Template(  # WW-21
        "Day {day} was the last day: a draw (WW-21)", "第{day}天是最后一天：平局（WW-21）"
    ),
}

SENTENCES: dict[str, Sentence] = {
    "werewolf.game_started": game_started,
    "werewolf.pack_turn": pack_turn,
    "werewolf.wolf_message": wolf_message,
    "werewolf.wolf_votes": wolf_votes,
    "werewolf.kill_chosen": kill_chosen,
    "werewolf.dawn": dawn,
    "werewolf.bids": bids,
    "werewolf.floor": floor,
    "werewolf.speech": speech,
    "werewolf.last_words": last_words,
    "werewolf.vote_opened": vote_opened,
    "werewolf.ballots": ballots,
    "werewolf.exiled": exiled,
    "werewolf.no_exile": no_exile,
    "werewolf.roles_revealed": roles_revealed,
    **from_templates(TEMPLATES),
}


def _bid(a: Answer, L: Lang, you: bool) -> str:  # WW-12 bidding
    return L.say(en=f"bid{ending(you)} {a['bid']}", zh=f"出价{a['bid']}")


def _message(a: Answer, L: Lang, you: bool) -> str:  # WW-12 open (OD-5): posted, or waited
    if a["speak"] is True:
        return spoke(a, L, you)
    # OD-5: a wait's other fields are ignored; the seat's own record still says
    # what it drafted and did not post (its speech is quoted after the line).
    claims = speech_claims(a, L)
    drafted = claims or str(a["speech"] or "").strip()
    unsent = L.say(en=", not posting", zh="，未发出") if drafted else ""
    return L.say(en=f"wait{ending(you)}", zh="选择等待") + unsent + claims_said(claims, L)


ABSTAINS = ("abstain{s}", "弃权")
NOTHING = ("do{es} nothing tonight", "今晚不行动")  # the seer or the doctor

DECISIONS: dict[str, DecisionPhrase] = {
    # WW-7: the pack's kill; WW-8, WW-10: the doctor's and the seer's night
    Decision.KILL: seat_choice("target", ("name{s} {seat} for the kill", "主张杀{seat}"), ABSTAINS),
    Decision.PROTECT: seat_choice("target", ("protect{s} {seat}", "保护{seat}"), NOTHING),
    Decision.INSPECT: seat_choice("target", ("check{s} {seat}", "查验{seat}"), NOTHING),
    # WW-14
    Decision.VOTE: seat_choice("target", ("vote{s} to exile {seat}", "投票放逐{seat}"), ABSTAINS),
    Decision.BID: _bid,
    Decision.WOLF_MESSAGE: talk_phrase(("the pack", "狼队")),  # WW-6
    # WW-11, WW-12: spoke or passed, and the claims (never confirmed)
    Decision.SPEECH: spoke,
    Decision.LAST_WORDS: spoke,
    Decision.MESSAGE: _message,
    Decision.GRAVEYARD: graveyard_phrase,  # WW-16 ruling: the dead's talk
}


WORDS = VariantWords(
    sentences=SENTENCES,
    decisions=DECISIONS,
    vocabulary=VOCABULARY,
    board=BOARD,
    card=card,
    team=team_of,
    # WW-6: the pack's private message is player text, like a speech.
    text_fields=("speech", "message"),
    shown={
        Decision.SPEECH: shown_speech,
        Decision.LAST_WORDS: shown_speech,
        Decision.MESSAGE: shown_speech,
    },
)
