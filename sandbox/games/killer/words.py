"""Killer in words: every event's sentence in English and Chinese and the
decision phrases (rule IDs as in RULES-SPEC). :data:`WORDS` is what
``Killer.words()`` returns: these with the vocabulary
(``prompts/killer/vocabulary.toml``) and what a seat's page shows beside them
(``page.py``: the card, the board). Log lines (``Variant.describe_event``) are
the English sentences, a speech quoted after its sentence.

Speeches and last words may carry structured claims (``claim``, ``accuse``,
``vouch``); older transcripts lack the keys, and the referee never confirms them
(KG-14): they are said as the speaker's claims.
"""

from __future__ import annotations

from sandbox.core.words import (
    TEXT_FIELDS,
    Answer,
    D,
    DecisionPhrase,
    Lang,
    Sentence,
    VariantWords,
    Words,
)
from sandbox.games.killer.info import INFO, Decision
from sandbox.games.killer.page import BOARD, answer_en, answer_zh, card, rulings, team_of
from sandbox.words.discussion import message_phrase
from sandbox.words.parts import (
    NIGHT_FALLS,
    Template,
    choices,
    dawn_words,
    ending,
    from_templates,
    referee,
    seat_choice,
    spoke,
    spoken,
)
from sandbox.words.talk import graveyard_phrase, team_phrase
from sandbox.words.vocabulary import load_vocabulary

# The game words: the data file prompts/killer/vocabulary.toml.
VOCABULARY = load_vocabulary(INFO.name)


def game_started(d: D, L: Lang) -> Words:  # KG-1
    players, killers, police = d.get("players"), d.get("killers"), d.get("police")
    text = L.end(
        L.say(
            en=f"Killer with {players} players: {killers} killers, {police} police",
            zh=f"杀人游戏，共{players}名玩家：{killers}名杀手、{police}名警察",
        )
    )
    return referee("killer.game_started", L.say(en=" ", zh="").join([text, *rulings(d, L)]))


def opinions(d: D, L: Lang) -> Words:  # KG-3/KG-4
    n, role = d.get("night"), d.get("role")
    text = L.say(
        en=f"Night {n}, the {role} opinions: {choices(d.get('opinions', {}), L)}",
        zh=f"第{n}夜{L.term(role)}的意见：{choices(d.get('opinions', {}), L)}",
    )
    return referee("killer.opinions", L.end(text))


def kill_chosen(d: D, L: Lang) -> Words:  # KG-3
    target = L.seat(d.get("target"))
    draw = (
        L.say(en=" (by a seeded draw)", zh="（平票，按随机种子抽签）") if d.get("tie_break") else ""
    )
    text = L.say(en=f"The killers choose {target}{draw}", zh=f"杀手选定{target}{draw}")
    if d.get("target") is None:  # no opinion given: no kill (KG-3)
        text = L.say(en="The killers choose nobody", zh="杀手没有选定任何人")
    return referee("killer.kill_chosen", L.end(text))


def check(d: D, L: Lang) -> Words:  # KG-4
    if d.get("suspect") is None:
        return referee(
            "killer.check", L.end(L.say(en="The police check nobody", zh="警察没有查验任何人"))
        )
    suspect, answer = L.seat(d["suspect"]), d.get("answer")
    draw = (  # KG-4 as KG-3: a tie among the opinions is drawn
        L.say(en=" (chosen by a seeded draw)", zh="（平票，按随机种子抽签选出）")
        if d.get("tie_break")
        else ""
    )
    text = L.say(
        en=f"The judge tells the police: {suspect}{draw} is {answer_en(answer)}",
        zh=f"法官告诉警察：{suspect}{draw}{answer_zh(answer, L)}",
    )
    return referee("killer.check", L.end(text))


def _role_shown(role: object, L: Lang) -> str:
    if not role:
        return ""
    return L.say(en=f" (a {role})", zh=f"（身份：{L.term(role)}）")


def dawn(d: D, L: Lang) -> Words:  # KG-6
    shown = _role_shown(d.get("role"), L)
    return dawn_words("killer.dawn", d, L, ("was killed", "昨夜被杀"), shown)


_CONTEXT_EN = {
    "day": "the day's speeches",
    "tie_tied": "the tied players speak again",
    "tie_others": "the others speak",
    "night": "the night's victim",
    "vote": "voted out",
}
_CONTEXT_ZH = {
    "day": "白天发言",
    "tie_tied": "平票者再次发言",
    "tie_others": "平票者以外的人发言",
    "night": "夜里的被杀者",
    "vote": "被公决出局者",
}


def phase(d: D, L: Lang) -> Words:  # KG-7..KG-10
    order, candidates = d.get("order", ()), d.get("candidates", ())
    if d.get("phase") == "last_words":
        first = order[0] if order else None
        text = L.say(
            en=f"{L.seat(first, capital=True)} may give last words (KG-7)",
            zh=f"{L.seat(first)}可以留遗言（KG-7）",
        )
    elif d.get("phase") == "speeches" and d.get("context") == "open":
        text = L.say(  # OD-1: an open day, nobody's turn
            en="The day's discussion is open: any living seat may post (OD-2)",
            zh="白天自由讨论：存活的人随时可以发言（OD-2）",
        )
    elif d.get("phase") == "speeches":
        context = str(d.get("context"))
        text = L.say(
            en=f"Speeches ({_CONTEXT_EN.get(context, context)}) in order: {L.seats(order)}",
            zh=f"依次发言（{_CONTEXT_ZH.get(context, context)}）：{L.seats(order)}",
        )
    else:
        name = _vote_name(d.get("round", 0), L)
        text = L.say(
            en=f"{name[0].upper()}{name[1:]} among {L.seats(candidates)}",
            zh=f"{name}，候选：{L.seats(candidates)}",
        )
    return referee("killer.phase", L.end(text))


def _vote_name(round_: object, L: Lang) -> str:
    """Rounds count from 0 in events; people count revotes from 1 (KG-10)."""
    if not round_:
        return L.say(en="the vote", zh="投票")
    return L.say(en=f"revote {round_}", zh=f"第{round_}次重新投票")


def speech(d: D, L: Lang) -> Words:  # KG-8/KG-10
    return spoken("killer.speech", d, L, str(d.get("text", "")))


def last_words(d: D, L: Lang) -> Words:  # KG-6/KG-7
    return spoken("killer.last_words", d, L, str(d.get("text", "")), last_words=True)


def ballots(d: D, L: Lang) -> Words:  # KG-9: every ballot is announced
    name = _vote_name(d.get("round", 0), L)
    tally = d.get("tally") or {}
    counts = L.items(
        L.say(en=f"{L.seat(s)}: {n}", zh=f"{L.seat(s)}{n}票")
        for s, n in sorted(tally.items(), key=lambda kv: (-int(kv[1]), int(kv[0])))
    )
    text = L.say(
        en=f"Ballots of {name}: {choices(d.get('ballots', {}), L)} (tally: {counts or 'none'})",
        zh=f"{name}的选票：{choices(d.get('ballots', {}), L)}（计票：{counts or '无'}）",
    )
    return referee("killer.ballots", L.end(text))


def voted_out(d: D, L: Lang) -> Words:  # KG-9
    seat, role = L.seat(d["seat"], capital=True), _role_shown(d.get("role"), L)
    text = L.say(en=f"{seat} is voted out{role}", zh=f"{seat}被公决出局{role}")
    return referee("killer.voted_out", L.end(text), d["seat"])


def tied(d: D, L: Lang) -> Words:  # KG-10
    seats, name = L.seats(d.get("tied", ())), _vote_name(d.get("round", 1), L)
    text = L.say(en=f"Tie between {seats}: {name} follows", zh=f"{seats}平票：接下来{name}")
    return referee("killer.tied", L.end(text))


# The sentences that say the event's data fields alone.
TEMPLATES: dict[str, Template] = {
    "killer.night": NIGHT_FALLS,  # KG-11
    "killer.role": Template(  # KG-2
        "{seat:Seat} is dealt the {role} card", "{seat:Seat}拿到的身份牌：{role:term}", about="seat"
    ),
    "killer.team": Template(
        "The {role} team is {members:seats}", "{role:term}一方是{members:seats}"
    ),
    "killer.police_turn": Template(  # KG-4
        "The killers close their eyes; the police open theirs", "杀手闭眼；警察睁眼"
    ),
    "killer.nobody_out": Template(
        "Nobody voted; nobody is out", "无人投票，无人出局"
    ),  # KG-9 ruling
    "killer.forced_draw": Template(  # KG-10
        "Still tied between {tied:seats}: a forced draw (KG-10)",
        "{tied:seats}仍然平票：本局硬性判为平局（KG-10）",
    ),
    "killer.conceded": Template(  # KG-13
        "{seat:Seat} concedes for the {side} side (KG-13)",
        "{seat:Seat}代表{side:term}一方认输（KG-13）",
        about="seat",
    ),
    "killer.day_limit": Template(  # KG-12 ruling
        "Day {day} was the last day: draw by limit (KG-12)",
        "第{day}天是最后一天：因达到天数上限判为平局（KG-12）",
    ),
}

SENTENCES: dict[str, Sentence] = {
    "killer.game_started": game_started,
    "killer.opinions": opinions,
    "killer.kill_chosen": kill_chosen,
    "killer.check": check,
    "killer.dawn": dawn,
    "killer.phase": phase,
    "killer.speech": speech,
    "killer.last_words": last_words,
    "killer.ballots": ballots,
    "killer.voted_out": voted_out,
    "killer.tied": tied,
    **from_templates(TEMPLATES),
}


# ------------------------------------------------------------- decisions
# What a seat answered, as "<subject> <phrase>", one phrase per decision, each
# reading only the fields Killer declares for it (info.py); ``you`` for the
# seat's own page.


def _speech(a: Answer, L: Lang, you: bool) -> str:  # KG-8, KG-13, KG-14
    conceded = L.say(en=f" and concede{ending(you)}", zh="并认输") if a["concede"] else ""
    return spoke(a, L, you, conceded)


NO_OPINION = ("give{s} no opinion", "不给意见")
ABSTAINS = ("abstain{s}", "弃权")

DECISIONS: dict[str, DecisionPhrase] = {
    # KG-3, KG-4: a night opinion names a seat, or none
    Decision.KILL: seat_choice("target", ("want{s} {seat} killed", "主张杀{seat}"), NO_OPINION),
    Decision.SUSPECT: seat_choice(
        "suspect", ("want{s} {seat} checked", "主张查验{seat}"), NO_OPINION
    ),
    # KG-9, KG-10
    Decision.VOTE: seat_choice("target", ("vote{s} for {seat}", "投票给{seat}"), ABSTAINS),
    Decision.SPEECH: _speech,
    Decision.LAST_WORDS: spoke,  # KG-6, KG-7: no concession
    Decision.MESSAGE: message_phrase(_speech),  # OD-5: a post, or a wait
    Decision.TEAM_MESSAGE: team_phrase,  # KG-3 ruling: the killers' night talk
    Decision.GRAVEYARD: graveyard_phrase,  # KG-14 ruling: the dead's talk
}


WORDS = VariantWords(
    sentences=SENTENCES,
    decisions=DECISIONS,
    vocabulary=VOCABULARY,
    board=BOARD,
    card=card,
    team=team_of,
    text_fields=(*TEXT_FIELDS, "message"),  # the KG-3, KG-14 rulings: player text
)
