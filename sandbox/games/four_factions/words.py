"""Four Factions in words: every event's sentence in English and Chinese and
the decision phrases (rule IDs as in RULES-SPEC). :data:`WORDS` is what
``FourFactions.words()`` returns: these with the vocabulary
(``prompts/four_factions/vocabulary.toml``) and what a seat's page shows beside
them (``page.py``: the card, its duel table, the attack notes, the board). Log
lines (``Variant.describe_event``) are the English sentences, a speech quoted
after its sentence.

One function per event kind, from the event's JSON ``data``; decisions are one
phrase per decision name. Player text never enters a sentence: it travels in
``Words.speech``.
"""

from __future__ import annotations

from collections.abc import Mapping

from sandbox.core.words import (
    SPEECH,
    TEXT_FIELDS,
    Answer,
    D,
    DecisionPhrase,
    Lang,
    Sentence,
    VariantWords,
    Words,
)
from sandbox.games.four_factions.config import FACTIONS, INFO, Decision
from sandbox.games.four_factions.page import BOARD, CARD_TABLES, by_seat, card, duel_notes, team_of
from sandbox.words.parts import Template, ending, from_templates, referee, seat_choice, spoken
from sandbox.words.talk import graveyard_phrase
from sandbox.words.vocabulary import load_vocabulary

# The game words (factions, ranks, weapons, stages, field labels): the data file
# prompts/four_factions/vocabulary.toml, also read by the bot's talk.
VOCABULARY = load_vocabulary(INFO.name)


def role(d: D, L: Lang) -> Words:  # FF-5/6/7
    rank = "elite" if d.get("elite") else "regular"
    seat, faction, hp = L.seat(d["seat"], capital=True), L.term(d["faction"]), d.get("max_hp")
    if d.get("weapon"):
        w, s = L.term(d["weapon"]), L.term(d.get("shield"))
        kit = f"{d['weapon']} and {d.get('shield')}"
        en = f"{seat} is dealt {d['faction']} {rank} with {kit}, max HP {hp}"
        zh = f"{seat}的身份：{faction}{L.term(rank)}，武器{w}，盾牌{s}，最大生命值{hp}"
    else:
        en = f"{seat} is dealt {d['faction']} {rank}, max HP {hp}"
        zh = f"{seat}的身份：{faction}{L.term(rank)}，最大生命值{hp}"
    return referee("ff.role", L.end(L.say(en=en, zh=zh)), d["seat"])


def elite_knowledge(d: D, L: Lang) -> Words:  # FF-9
    known = L.items(f"{L.seat(s)} {L.term(f)}" for s, f in by_seat(d.get("regulars", {})))
    seat = L.seat(d["seat"], capital=True)
    return referee(
        "ff.elite_knowledge",
        L.end(
            L.say(
                en=f"{seat} (elite) learns the regulars' factions: {known}",
                zh=f"{seat}（最强精英）得知非最强精英的阵营：{known}",
            )
        ),
        d["seat"],
    )


_STAGE_EN = {
    "proofs": "proofs — each seat claims one faction (FF-13)",
    "accusation": "accusations (FF-14)",
    "protection": "protections (FF-15)",
    "open": "open speeches (FF-17)",
    "quiet": "no fighting yet (FF-16)",
    "loadout": "the elites choose weapon and shield (FF-5)",
    "first_half": "first half — odd seats may attack even seats (FF-19)",
    "second_half": "second half — even seats may attack odd seats (FF-19)",
}
_STAGE_ZH = {
    "proofs": "证明：每人声明一个阵营（FF-13）",
    "accusation": "指控（FF-14）",
    "protection": "保护（FF-15）",
    "open": "自由发言（FF-17）",
    "quiet": "今夜不许动武（FF-16）",
    "loadout": "最强精英选择武器和盾牌（FF-5）",
    "first_half": "上半夜：单号可攻击双号（FF-19）",
    "second_half": "下半夜：双号可攻击单号（FF-19）",
}


def phase(d: D, L: Lang) -> Words:
    stage, day = str(d.get("stage")), d.get("day")
    what = L.say(en=_STAGE_EN.get(stage, stage), zh=_STAGE_ZH.get(stage, L.term(stage)))
    if d.get("phase") == "night":
        text = L.say(en=f"Night {day} falls: {what}", zh=f"第{day}夜降临：{what}")
    else:
        text = L.say(en=f"Day {day} begins: {what}", zh=f"第{day}天开始：{what}")
    return referee("ff.phase", L.end(text))


def _speech(kind: str, d: D, lead: str, claims: tuple[str, ...]) -> Words:
    return Words(kind, SPEECH, lead, d.get("seat"), str(d.get("speech", "")), claims)


def proofs(d: D, L: Lang) -> Words:  # FF-13: one "am", three "am not"
    am = str(d.get("am"))
    denied = L.items(L.term(f) for f in FACTIONS if f != am)
    seat = L.seat(d["seat"], capital=True)
    claim = L.say(en=f"claims {am}", zh=f"声明是{L.term(am)}")
    lead = L.say(
        en=f"{seat} claims to be {am} (denies {denied})",
        zh=f"{seat}声明自己是{L.term(am)}（否认{denied}）",
    )
    return _speech("ff.proofs", d, lead, (claim,))


def accusation(d: D, L: Lang) -> Words:  # FF-14
    seat, target, faction = L.seat(d["seat"], capital=True), L.seat(d["target"]), d.get("faction")
    claim = L.say(en=f"accuses {target} of {faction}", zh=f"指控{target}其实是{L.term(faction)}")
    lead = L.say(
        en=f"{seat} accuses {target} of being {faction}",
        zh=f"{seat}指控{target}其实是{L.term(faction)}",
    )
    return _speech("ff.accusation", d, lead, (claim,))


def protection(d: D, L: Lang) -> Words:  # FF-15
    seat, target = L.seat(d["seat"], capital=True), L.seat(d["target"])
    claim = L.say(en=f"protects {target}", zh=f"保护{target}")
    lead = L.say(
        en=f"{seat} protects {target} (backs its day-1 claim)",
        zh=f"{seat}保护{target}（为其第1天声明的阵营作证）",
    )
    return _speech("ff.protection", d, lead, (claim,))


def spoke(d: D, L: Lang) -> Words:  # FF-17: "Seat 3 says", or "Seat 3 passes."
    return spoken("ff.speech", d, L, str(d.get("speech", "")))


def passed(d: D, L: Lang) -> Words:  # FF-17
    return spoken("ff.pass", d, L, "")


def _when(d: D, L: Lang) -> str:
    half = d.get("half")
    return L.say(
        en=f"Night {d.get('day')}, {'first' if half == 1 else 'second'} half",
        zh=f"第{d.get('day')}夜{'上' if half == 1 else '下'}半夜",
    )


def _effect(effect: object, L: Lang) -> str:
    return L.say(
        en={"none": "no effect", "kill": "killed", "wound": "wounded"}.get(
            str(effect), str(effect)
        ),
        zh={"none": "无效", "kill": "秒杀", "wound": "轻伤"}.get(str(effect), str(effect)),
    )


def duel(d: D, L: Lang) -> Words:  # FF-21/22, referee only
    strikes = L.join(
        L.say(
            en=f"{L.seat(s['striker'])} strikes {L.seat(s['struck'])} with {s['weapon']}: "
            f"{_effect(s['effect'], L)}, HP {s['hp_after']}",
            zh=f"{L.seat(s['striker'])}用{L.term(s['weapon'])}攻击{L.seat(s['struck'])}："
            f"{_effect(s['effect'], L)}，生命值{s['hp_after']}",
        )
        for s in d.get("strikes", ())
    )
    attacker, defender = L.seat(d["attacker"]), L.seat(d["defender"])
    text = L.say(
        en=f"{_when(d, L)}: {attacker} attacks {defender} — {strikes}",
        zh=f"{_when(d, L)}：{attacker}攻击{defender}——{strikes}",
    )
    return referee("ff.duel", L.end(text), d.get("attacker"))


def _outcomes(outcomes: object, own: str, other: str, L: Lang) -> str:
    """Each strike as the reporting seat knows it: ``by`` is "you" (``own``) or
    the opponent (``other``)."""
    assert isinstance(outcomes, list | tuple)
    return L.join(
        L.say(
            en=f"{own if o['by'] == 'you' else other} struck with {o['weapon']}: "
            f"{_effect(o['effect'], L)}{' (died)' if o.get('died') else ''}",
            zh=f"{own if o['by'] == 'you' else other}用{L.term(o['weapon'])}出手："
            f"{_effect(o['effect'], L)}{'（死亡）' if o.get('died') else ''}",
        )
        for o in outcomes
    )


def attack_report(d: D, L: Lang) -> Words:  # FF-12
    seat, target = L.seat(d["seat"], capital=True), L.seat(d["target"])
    strikes = _outcomes(d["outcomes"], L.seat(d["seat"]), target, L)
    text = L.say(
        en=f"{_when(d, L)}: {seat} attacked {target}: {strikes}; "
        f"{L.seat(d['seat'], capital=True)}'s HP is now {d.get('hp_after')}",
        zh=f"{_when(d, L)}：{seat}攻击了{target}：{strikes}；{seat}现在生命值{d.get('hp_after')}",
    )
    return referee("ff.attack_report", L.end(text), d["seat"])


def defence_report(d: D, L: Lang) -> Words:  # FF-12: the attacker only under the option
    # The weapon it was struck with is said once, in the strikes (the first is
    # the attacker's, FF-22): a weapon right before a seat reads as its role.
    seat = L.seat(d["seat"], capital=True)
    known = d.get("attacker") is not None
    attacker = L.seat(d["attacker"]) if known else L.say(en="the attacker", zh="攻击者")
    by_en = f" by {attacker}" if known else ""
    by_zh = f"{attacker}的" if known else ""
    strikes = _outcomes(d["outcomes"], L.seat(d["seat"]), attacker, L)
    text = L.say(
        en=f"{_when(d, L)}: {seat} was attacked{by_en}: {strikes}; "
        f"{seat}'s HP is now {d.get('hp_after')}",
        zh=f"{_when(d, L)}：{seat}遭到{by_zh}攻击：{strikes}；{seat}现在生命值{d.get('hp_after')}",
    )
    return referee("ff.defence_report", L.end(text), d["seat"])


def corpse(d: D, L: Lang) -> Words:  # FF-20
    seat, target = L.seat(d["seat"], capital=True), L.seat(d["target"])
    text = L.say(
        en=f"{_when(d, L)}: {seat} finds {target} already dead (FF-20)",
        zh=f"{_when(d, L)}：{seat}发现{target}已经死亡（FF-20）",
    )
    return referee("ff.corpse", L.end(text), d["seat"])


def _results(results: object, L: Lang) -> str:
    assert isinstance(results, Mapping)
    return L.items(f"{L.term(f)} {L.term(r)}" for f, r in results.items())


def _pair(pair: object, L: Lang) -> str:
    return "/".join(L.term(p) for p in str(pair).split("/"))


def pair_settled(d: D, L: Lang) -> Words:  # FF-26, referee only
    pair, results = _pair(d.get("pair"), L), _results(d.get("results", {}), L)
    text = L.say(
        en=f"Pair {pair} is settled after {_when(d, L).lower()} (announced at dawn): {results}",
        zh=f"{pair}这一对在{_when(d, L)}之后分出结果（天亮后公布）：{results}",
    )
    return referee("ff.pair_settled", L.end(text))


def pair_decided(d: D, L: Lang) -> Words:  # FF-26
    pair, results = _pair(d.get("pair"), L), _results(d.get("results", {}), L)
    text = L.say(en=f"Pair {pair} is decided: {results}", zh=f"{pair}这一对已分出结果：{results}")
    return referee("ff.pair_decided", L.end(text))


def dawn(d: D, L: Lang) -> Words:  # FF-28; named after the night that ended (FF-27)
    night = int(d.get("day", 1)) - 1
    dead = list(d.get("dead", ()))
    factions = d.get("factions") or {}
    shown = L.items(f"{L.seat(s)} {L.term(f)}" for s, f in by_seat(factions))
    extra = (L.say(en=f" ({shown})", zh=f"（{shown}）")) if factions else ""
    if dead:
        text = L.say(
            en=f"Dawn after night {night}: {L.seats(dead)} died{extra}",
            zh=f"第{night}夜过后天亮：{L.seats(dead)}死亡{extra}",
        )
    else:
        text = L.say(
            en=f"Dawn after night {night}: nobody died", zh=f"第{night}夜过后天亮：无人死亡"
        )
    return referee("ff.dawn", L.end(text))


# The sentences that say the event's data fields alone.
TEMPLATES: dict[str, Template] = {
    "ff.elite_known": Template(  # FF-10
        "{seat:Seat} learns its elite is {elite_seat:seat}",
        "{seat:Seat}得知本阵营的最强精英是{elite_seat:seat}",
        about="seat",
    ),
    "ff.no_statement": Template(  # FF-29
        "{seat:Seat} gave no valid {stage} statement (FF-29)",
        "{seat:Seat}没有给出有效的{stage:term}声明（FF-29）",
        about="seat",
    ),
    "ff.loadout": Template(  # FF-5
        "{seat:Seat} takes {weapon} and {shield} for night {day}",
        "{seat:Seat}第{day}夜选择武器{weapon:term}、盾牌{shield:term}",
        about="seat",
    ),
    "ff.day_limit": Template(  # FF-27
        "The day limit is reached after day {day} (FF-27)",
        "第{day}天过后达到天数上限（FF-27）",
    ),
}

SENTENCES: dict[str, Sentence] = {
    "ff.role": role,
    "ff.elite_knowledge": elite_knowledge,
    "ff.phase": phase,
    "ff.proofs": proofs,
    "ff.accusation": accusation,
    "ff.protection": protection,
    "ff.speech": spoke,
    "ff.pass": passed,
    "ff.duel": duel,
    "ff.attack_report": attack_report,
    "ff.defence_report": defence_report,
    "ff.corpse": corpse,
    "ff.pair_settled": pair_settled,
    "ff.pair_decided": pair_decided,
    "ff.dawn": dawn,
    **from_templates(TEMPLATES),
}


# ------------------------------------------------------------- decisions
# What a seat answered, as "<subject> <phrase>", one phrase per decision, each
# reading only the fields Four Factions declares for it (config.py's INFO); ``you`` for
# the seat's own page.


def _proofs(a: Answer, L: Lang, you: bool) -> str:  # FF-13
    am = a["am"]
    return L.say(en=f"claim{ending(you)} to be {am}", zh=f"声明自己是{L.term(am)}")


def _accusation(a: Answer, L: Lang, you: bool) -> str:  # FF-14
    target, faction = L.seat(a["target"]), a["faction"]
    return L.say(
        en=f"accuse{ending(you)} {target} of being {faction}",
        zh=f"指控{target}其实是{L.term(faction)}",
    )


def _speak(a: Answer, L: Lang, you: bool) -> str:  # FF-17
    if not str(a["speech"] or "").strip():
        return L.say(en="pass" + ending(you, "es"), zh="选择过")
    return L.say(en="speak" + ending(you), zh="发言")


def _loadout(a: Answer, L: Lang, you: bool) -> str:  # FF-5
    weapon, shield = a["weapon"], a["shield"]
    return L.say(
        en=f"choose{ending(you)} {weapon} and {shield}",
        zh=f"选择武器{L.term(weapon)}、盾牌{L.term(shield)}",
    )


def _message(a: Answer, L: Lang, you: bool) -> str:  # OD-5; a statement rides on it (OD-3)
    statement = _carried(a, L, you)
    if a["speak"] is True:
        return statement or L.say(en="post" + ending(you) + " a message", zh="发了一条消息")
    if not statement:  # a wait: what it would have said is kept back, never public
        return L.say(en="wait" + ending(you), zh="选择等待")
    return L.say(
        en=f"wait{ending(you)} (unsent: {statement})", zh=f"选择等待（未发出：{statement}）"
    )


def _carried(a: Answer, L: Lang, you: bool) -> str:
    """The statement a message carries (FF-13..FF-15), or "" for a speech alone."""
    if a["am"] is not None:
        return _proofs(a, L, you)
    if a["target"] is not None and a["faction"] is not None:
        return _accusation(a, L, you)
    if a["target"] is not None:
        seat = L.seat(a["target"])
        return L.say(en=f"protect{ending(you)} {seat}", zh=f"保护{seat}")
    if a["faction"] is not None:  # half an accusation: refused (FF-14), said as given
        return L.say(en=f"name{ending(you)} {a['faction']}", zh=f"指出{L.term(a['faction'])}")
    return ""


DECISIONS: dict[str, DecisionPhrase] = {
    Decision.PROOFS: _proofs,
    Decision.ACCUSATION: _accusation,
    # FF-15: the answer names a seat ("nobody", as a seat of None is said, else)
    Decision.PROTECTION: seat_choice(
        "target", ("protect{s} {seat}", "保护{seat}"), ("protect{s} nobody", "保护无人")
    ),
    Decision.SPEAK: _speak,
    Decision.MESSAGE: _message,
    Decision.LOADOUT: _loadout,
    # FF-19: attack a seat, or stay home
    Decision.ATTACK: seat_choice(
        "target", ("attack{s} {seat}", "攻击{seat}"), ("stay{s} home", "留在家中")
    ),
    Decision.GRAVEYARD: graveyard_phrase,  # FF-19 ruling: the dead's talk
}


WORDS = VariantWords(
    sentences=SENTENCES,
    decisions=DECISIONS,
    vocabulary=VOCABULARY,
    card_tables=CARD_TABLES,
    board=BOARD,
    board_columns=("hp",),
    card=card,
    team=team_of,
    notes={Decision.ATTACK: duel_notes},
    text_fields=(*TEXT_FIELDS, "message"),  # the FF-19 ruling's graveyard message
)
