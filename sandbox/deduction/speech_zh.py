"""The Chinese grammar of :mod:`.speech`: seat references (``4号``, ``四号``,
``玩家4``), then the patterns of claims (我是…, 我跳…), statements (4号是/不是…),
check reports (验了4号，是…; 查杀; 金水), votes (我投6号), accusations (我怀疑4号)
and vouches (我相信4号) over one normalised sentence (``@N`` a seat, ``%k%`` a
role word)."""

from __future__ import annotations

import re

from sandbox.deduction.reading import (
    ROLE_NAMED,
    SEATS,
    SEATS_NAMED,
    Reading,
    Rule,
    accused,
    claimed,
    cleared,
    found,
    mark_checks,
    reported,
    resolve_pronouns,
    run,
    stated,
    tokens,
    voted,
    vouched,
)

_DIGIT = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_NUMERAL = r"\d{1,2}|[一二两三四五六七八九十]{1,3}"


def number(text: str) -> int:
    """A seat number written in digits or Chinese numerals (一 … 十九)."""
    if text.isdigit():
        return int(text)
    if "十" not in text:
        return _DIGIT.get(text, 0)
    tens, _, ones = text.partition("十")
    return _DIGIT.get(tens, 1) * 10 + _DIGIT.get(ones, 0)


# --------------------------------------------------------------- seats
_LISTED = re.compile(rf"({_NUMERAL})\s*(?:、|和|跟|与)\s*(?=(?:{_NUMERAL})\s*号)")
_HAO = re.compile(rf"(?:玩家|座位|第)?\s*({_NUMERAL})\s*号(?:位|玩家|座位)?")
_PLAYER = re.compile(r"(?:玩家|座位)\s*(\d{1,2})")
_VERB_NUMBER = re.compile(
    r"(验了?|验过|查验了?|查了?|投给?|怀疑|相信|保|踩|查杀|金水)\s*(\d{1,2})"
    r"(?![\d个人天晚票次轮名夜号位.])"
)
_HEAD_NUMBER = re.compile(r"(^|[。；，,！]\s*)(\d{1,2})\s*(?=(?:是|不是|肯定|一定|应该|绝对))")


def seats(text: str) -> str:
    """``text`` with every Chinese seat reference as ``@N``."""
    text = _LISTED.sub(lambda m: f"@{number(m.group(1))}和", text)
    text = _HAO.sub(lambda m: f"@{number(m.group(1))}", text)
    text = _PLAYER.sub(lambda m: f"@{m.group(1)}", text)
    text = _VERB_NUMBER.sub(lambda m: f"{m.group(1)}@{m.group(2)}", text)
    return _HEAD_NUMBER.sub(lambda m: f"{m.group(1)}@{m.group(2)}", text)


# --------------------------------------------------------------- grammar
ADV = (
    r"(?:肯定|一定|应该|绝对|就|必然|真的|其实|确实|很可能|可能|大概|也|才|铁定|明显|八成|"
    r"多半|百分百|显然|都|还|本来|当然|铁|只|只不过)*"
)
_ONE = r"(?:一个|一名|个|名|一|真正的|真的|真)?"
_S = SEATS_NAMED
_R = ROLE_NAMED
_NOT_IS = rf"(?!{ADV}不?(?:是|像|为))"  # "我相信4号是狼" is a statement, not a vouch
_CHECK_VERB = r"(?:验了|验过|查验了|查验过|查了|验|查验)(?:一下)?"

_REPORTED = re.compile(
    rf"(?:{SEATS}|他们|他|她|它|有人|别人|大家|对方)(?:也|还|刚才|之前|一直|都|刚刚|昨天|今天)*"
    r"(?:说(?!谎)|称|声称|自称|表示|认为|觉得|跳了?|起跳|指认|怀疑|讲|报了?|宣称|投了|验了|"
    r"踩了?|指控|报出)[^，,；;]*"
    # and the clauses going on without a new subject ("3号跳预言家，查杀5号")
    r"(?:[，,](?:又|还|并|也|并且)?(?:说(?!谎)|称|表示|查杀|金水|验了|发了?金水)[^，,；;]*)*"
)
_CONDITION = re.compile(r"(?:如果|假如|要是|假设|万一|若是|倘若)[^，,；;]*")
_ASKED = re.compile(r"[^，,；;]*(?:是不是|是否)[^，,；;]*")
_DOUBT = re.compile(rf"我(?:并)?不(?:觉得|认为|相信|信)({SEATS})(?=是|像)")
_PRONOUN = re.compile(rf"(?:它|他|她)(?={ADV}不?(?:是|像))")
_CHECK_WORD = re.compile(r"验过|验了|查验|我验|查过|查了|验的|验出")
_CHECKED = re.compile(rf"{_CHECK_VERB}{SEATS}")


RULES: list[Rule] = [
    # claims: 我是预言家, 我不是狼, 我跳预言家, 警察发言, 本人是平民, 作为警察，我…
    (
        re.compile(rf"我(?:的身份|的阵营|的底牌)?{ADV}(?P<neg>不)?{ADV}(?:是|为|站){_ONE}{_R}"),
        claimed,
    ),
    (re.compile(rf"我(?:要|就|直接|现在)?(?:起跳|跳|认|报|亮)(?:的是|身份)?{_R}"), claimed),
    (re.compile(rf"^\W*{_R}(?:发言|在此|在这里|在这|报到|来了)"), claimed),
    (re.compile(rf"本人(?P<neg>不)?是{_R}"), claimed),
    (re.compile(rf"作为(?:一个|一名)?{_R}[，,]?我"), claimed),
    # check reports: 我验了4号，是狼; 验4号是好人; 查杀4号; 4号是我的金水
    (
        re.compile(
            rf"{_CHECK_VERB}{_S}\s*(?:[，,：:、]\s*)?(?:他|她|它|结果|身份|发现)?{ADV}"
            rf"(?P<neg>不)?(?:是|为|显示是?|出来是|验出来是|出来)\s*{_ONE}{_R}"
        ),
        reported,
    ),
    (re.compile(rf"{_S}(?:被)?(?:验出来|查出来|验出)(?:是|为)?{_ONE}{_R}"), reported),
    (re.compile(rf"查杀{_S}"), found),
    (re.compile(rf"{_S}(?:是)?(?:我的)?查杀"), found),
    (re.compile(rf"(?:给|发)(?:了)?{_S}(?:一个|发)?金水"), cleared),
    (re.compile(rf"金水(?:是)?{_S}"), cleared),
    (re.compile(rf"{_S}(?:是)?(?:我的)?金水"), cleared),
    # statements: 4号是狼, 4号不是狼, 4号像好人
    (
        re.compile(
            rf"{_S}(?:的身份)?(?:在我看来|我看|看起来|看着)?{ADV}(?P<neg>不)?{ADV}(?:是|像|为|像是){_ONE}{_R}"
        ),
        stated,
    ),
    (
        re.compile(
            rf"{_S}(?:很|非常|比较|有点|太|最|特别|真的|一直|总是|还在|又)*"
            r"(?:可疑|奇怪|有问题|在撒谎|撒谎|说谎|在说谎|在骗人|骗人|划水|有鬼)"
        ),
        accused,
    ),
    (re.compile(rf"{_S}(?:在|是)?(?:冒充|假冒|冒认|假跳)"), accused),
    (
        re.compile(
            rf"{_S}(?:很|非常|比较|是|挺)*(?:诚实|可信|靠谱|真诚|在说真话|说的是真话|说真话)"
        ),
        vouched,
    ),
    # verbs: 我怀疑4号, 我相信4号 (not 我相信4号是狼)
    (
        re.compile(
            rf"我(?:{ADV}|很|比较|最|非常|一直)*(?:怀疑|踩|质疑|不信|不相信|盯着|针对)(?:一下)?"
            rf"{_S}{_NOT_IS}(?!对|的)"  # 我怀疑4号对6号的指认: the claim
        ),
        accused,
    ),
    (
        re.compile(
            rf"我(?:{ADV}|很|比较|非常|愿意)*(?:相信|信任|保|认可|支持|站边)(?:一下)?{_S}{_NOT_IS}"
        ),
        vouched,
    ),
    # vote promises: 我投6号, 这票投6号, 投6号, 今天出6号
    (
        re.compile(
            rf"(?:我们|我|大家)(?:{ADV}|会|要|将|准备|打算|今天|一起|这票|这一票|先)*"
            rf"投(?:给|出|票给)?{_S}"
        ),
        voted,
    ),
    (re.compile(rf"(?:这票|这一票|我的票|我这一票)(?:{ADV}|要|会)*(?:投|给)(?:给)?{_S}"), voted),
    (re.compile(rf"(?:^|[，,])\s*投(?:给)?{_S}"), voted),
    (re.compile(rf"(?:我们|大家|今天|先|应该|要)+(?:出|放逐|投出)(?:掉)?{_S}"), voted),
]


def read(sentence: str, reading: Reading) -> None:
    """The evidence of one Chinese sentence (seats already ``@N``)."""
    if re.search(r"吗\W*$", sentence):
        return  # a question states nothing
    text = tokens(sentence, reading, "zh")
    text = _DOUBT.sub(lambda m: f"{m.group(1)}不", text)
    text = _ASKED.sub("，", _CONDITION.sub("，", _REPORTED.sub("，", text)))
    text = resolve_pronouns(text, _PRONOUN)
    mark_checks(text, reading, _CHECKED, _CHECK_WORD)
    run(RULES, text, reading)
