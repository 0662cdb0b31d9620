"""The Werewolf rules text, in English and Chinese, with the active rulings
(every rule WW-1..WW-24 by its ID)."""

from __future__ import annotations

from sandbox.core.variant import for_language
from sandbox.games.werewolf.config import WerewolfConfig


def rules_text(config: WerewolfConfig, language: str = "en") -> str:
    """The full rules in ``language`` ("en" or "zh") with this config's rulings."""
    return for_language(language, {"en": _english, "zh": _chinese})(config)


_REVEAL_EN = {"role": "with its role", "team": "with its team", "none": "without its role"}
_REVEAL_ZH = {"role": "并公布其身份", "team": "并公布其阵营", "none": "不公布其身份"}
_VOTE_EN = {
    "sequential": "one at a time in ascending seat order, each seeing the targets named before it",
    "sealed": "all at once, sealed",
    "one_wolf": "one living werewolf, drawn by the seeded generator each night, names the "
    "target alone",
}
_VOTE_ZH = {
    "sequential": "按座位号从小到大依次给出，每只狼人都能看到之前的狼人所选的目标",
    "sealed": "同时秘密给出",
    "one_wolf": "每晚由随机种子抽出一只存活的狼人，单独决定目标",
}
_FIRST_EN = {
    "random": "a seeded draw among the living, once per day",
    "rotate": "day 1 the lowest living seat, each later day the next living seat after the "
    "previous day's first speaker",
    "fixed": "the lowest living seat",
}
_FIRST_ZH = {
    "random": "每天由随机种子在存活者中抽一次",
    "rotate": "第1天从存活的最小座位号开始，之后每天从前一天首位发言者之后的下一名存活者开始",
    "fixed": "存活的最小座位号",
}


def _english(c: WerewolfConfig) -> str:
    n = c.counts()
    save = "may" if c.doctor_self_save else "may not"
    repeat = (
        "may protect the same seat on consecutive nights"
        if c.doctor_repeat
        else "may not protect the seat it protected the night before (a night without a "
        "protection clears this)"
    )
    seer_repeat = "may" if c.seer_repeat else "may not"
    all_abstain = (
        "a seeded draw among the living village-team seats is the target"
        if c.wolf_all_abstain == "random"
        else "nobody dies"
    )
    if c.discussion == "round_robin":
        talk = (
            f"WW-12 Discussion: {c.rounds} round(s); in each round every living seat speaks "
            f"once, in ascending seat order from a starting seat, wrapping. The first speaker: "
            f"{_FIRST_EN[c.first_speaker]}. The order is announced before the first speech."
        )
    else:
        talk = (
            f"WW-12 Discussion by bidding: {c.turns} speeches a day. Before each, every living "
            "seat bids 0-4 (sealed; the previous speaker of the day may not bid); the highest "
            "bid speaks. Only the bidder and the referee see a bid; the winner is announced. "
            "A tie is a seeded draw in which each seat the previous speech accused or vouched "
            "for counts twice."
        )
    exile = (
        f"plurality: the most votes is exiled; a tie: "
        f"{'a seeded draw among the tied' if c.tie == 'random' else 'nobody is exiled'}; "
        f"everyone abstains: "
        f"{'a seeded draw among the living' if c.all_abstain == 'random' else 'nobody'}"
        if c.exile_rule == "plurality"
        else "majority: exiled only with more than half of the living seats' votes "
        "(abstainers count among the living), else nobody"
    )
    lines = [
        f"WW-1 Werewolf, {c.players} seats: {n['werewolf']} werewolves, {n['seer']} seer, "
        f"{n['doctor']} doctor, {n['villager']} villagers.",
        "WW-2 Roles are dealt by the seeded generator; seat numbers are the only identities.",
        "WW-3 The werewolves are one team; the seer, the doctor and the villagers are the "
        "village team.",
        "WW-4 Everyone knows these rules and the role counts. Each seat learns its own role "
        "privately; the werewolves also learn every werewolf's seat.",
        "WW-5 Each night (night 1 comes before day 1) the living seer and doctor decide at "
        "the same time, then the werewolves choose the kill, then the night resolves. A seer "
        "killed that night still learns its result first.",
        "WW-6 "
        + (
            f"Before the kill vote each living werewolf, in ascending seat order, sends one "
            f"message (at most {c.speech_chars} characters) that only the living werewolves see."
            if c.wolf_chat
            else "The werewolves have no private messages."
        ),
        f"WW-7 The kill: each werewolf names a living village-team seat or abstains, "
        f"{_VOTE_EN[c.wolf_vote]}. The target named most often is chosen; a tie is a seeded "
        f"draw among the tied; if every werewolf abstains, {all_abstain}. The werewolves see "
        "each other's choices and the chosen target.",
        f"WW-8 The doctor protects one living seat (werewolves included); it {save} protect "
        f"itself and {repeat}.",
        "WW-9 If the target is protected nobody dies; otherwise the target dies. Only the "
        "doctor learns that it saved someone; the morning announcement is the same for a save "
        "and for a night without a kill.",
        f"WW-10 The seer names a living seat other than itself (it {seer_repeat} name a seat "
        f"it already checked) and learns privately its "
        f"{'role' if c.seer_reveals == 'role' else 'team'}.",
        f"WW-11 At dawn the referee announces who died in the night, "
        f"{_REVEAL_EN[c.reveal_on_death]}, even when that death ends the game. "
        + (
            "The night's victim speaks last words right after dawn, and an exiled seat right "
            "after its exile, unless that death ended the game."
            if c.last_words
            else "There are no last words."
        ),
        talk + f" A speech is at most {c.speech_chars} characters (a longer one is refused), "
        "may be empty (a pass) and may carry structured claims: a claimed role, seats accused "
        "of being werewolves and seats vouched for (never both). Claims are never confirmed.",
        "WW-13 "
        + (
            "The words kill, lynch and murder (and their forms) are shown as eliminate, exile "
            "and remove in speeches and last words."
            if c.soften_words
            else "Speeches are shown exactly as written."
        ),
        f"WW-14 Vote: every living seat votes for one living seat"
        f"{'' if c.self_vote else ' other than itself'}"
        f"{' or abstains' if c.abstain else ' (no abstaining)'}; ballots are "
        + (
            "cast one at a time from a seeded starting seat, in ascending order, wrapping, each "
            "seeing the ballots so far."
            if c.day_vote == "sequential"
            else "sealed and revealed together."
        ),
        f"WW-15 Exile by {exile}. The exiled seat dies at once and is announced "
        f"{_REVEAL_EN[c.reveal_on_exile]}.",
        "WW-16 The dead never decide again and see only public announcements.",
        "WW-17 The end is checked after each night's resolution and after each exile.",
        "WW-18 No werewolf alive: the village team wins.",
        "WW-19 The living werewolves at least as many as the other living seats: the "
        "werewolves win.",
        "WW-20 Every seat of the winning team wins, dead or alive. At the end every role is "
        "announced.",
        f"WW-21 If day {c.day_limit} ends without a winner, the game is a draw for every seat.",
        "WW-22 Requests: protect, inspect, wolf_message, kill by night; bid, speech, last_words, "
        "vote by day. Each states its legal options; an illegal answer is refused.",
        "WW-23 Fallbacks: kill and vote abstain (a seeded legal vote where abstaining is off); "
        "protect and inspect do nothing; a bid is 0; a speech or message is an empty pass.",
        f"WW-24 Preset: {c.preset}; any key given beside it overrides it.",
    ]
    return "\n".join(lines)


def _chinese(c: WerewolfConfig) -> str:
    n = c.counts()
    if c.discussion == "round_robin":
        talk = (
            f"WW-12 讨论：共{c.rounds}轮；每轮每名存活者按座位号从起始座位开始依次发言一次，"
            f"到最大号后回到最小号。首位发言者：{_FIRST_ZH[c.first_speaker]}。"
            "发言顺序在第一次发言前公布。"
        )
    else:
        talk = (
            f"WW-12 竞价发言：每天共{c.turns}次发言。每次发言前，每名存活者秘密出价0到4"
            "（当天上一位发言者不能出价），出价最高者发言。出价只有本人和裁判知道，"
            "只公布谁获得发言权。平局时按随机种子抽签，上一次发言中被指认或被担保的座位算两份。"
        )
    if c.exile_rule == "plurality":
        tie = "在平票者中按随机种子抽签" if c.tie == "random" else "无人出局"
        none = "在存活者中按随机种子抽签" if c.all_abstain == "random" else "无人出局"
        exile = f"相对多数：得票最多者出局；平票时{tie}；全部弃权时{none}"
    else:
        exile = "过半数：只有得票超过存活人数一半（弃权者也算在存活人数内）才出局，否则无人出局"
    lines = [
        f"WW-1 狼人杀，共{c.players}个座位：{n['werewolf']}名狼人、{n['seer']}名预言家、"
        f"{n['doctor']}名医生、{n['villager']}名村民。",
        "WW-2 身份由随机种子发放；座位号是唯一的身份标识。",
        "WW-3 狼人是一方；预言家、医生和村民是好人阵营。",
        "WW-4 所有人都知道本规则和各身份的人数。每个座位私下得知自己的身份；"
        "狼人还知道所有狼人的座位。",
        "WW-5 每晚（第1夜在第1天之前），存活的预言家和医生同时行动，然后狼人决定杀谁，"
        "最后结算。当晚被杀的预言家仍会先得知查验结果。",
        "WW-6 "
        + (
            f"投票杀人前，每只存活的狼人按座位号从小到大各发一条消息（最多{c.speech_chars}个字符），"
            "只有存活的狼人能看到。"
            if c.wolf_chat
            else "狼人之间没有私聊。"
        ),
        f"WW-7 杀人：每只狼人指定一名存活的好人阵营座位或弃权，{_VOTE_ZH[c.wolf_vote]}。"
        "被指定次数最多者为目标；平票时在平票者中按随机种子抽签；所有狼人都弃权时，"
        + (
            "在存活的好人阵营座位中按随机种子抽签决定目标。"
            if c.wolf_all_abstain == "random"
            else "当晚无人死亡。"
        )
        + "狼人能看到彼此的选择和最终目标。",
        "WW-8 医生保护一名存活座位（可以是狼人）；"
        + ("可以保护自己；" if c.doctor_self_save else "不能保护自己；")
        + (
            "可以连续两晚保护同一座位。"
            if c.doctor_repeat
            else "不能保护前一晚保护过的座位（前一晚没有保护则不受限制）。"
        ),
        "WW-9 目标受到保护则无人死亡，否则目标死亡。只有医生知道自己救了人；"
        "被救和当晚无人被杀时，早上的公告完全相同。",
        "WW-10 预言家指定一名除自己以外的存活座位"
        + ("（可以重复查验）" if c.seer_repeat else "（不能重复查验已查过的座位）")
        + f"，私下得知其{'身份' if c.seer_reveals == 'role' else '阵营'}。",
        f"WW-11 天亮时裁判宣布昨夜谁死了，{_REVEAL_ZH[c.reveal_on_death]}，即使这次死亡结束了游戏。"
        + (
            "夜里的死者在天亮公告后留遗言，被放逐者在放逐后留遗言，除非这次死亡结束了游戏。"
            if c.last_words
            else "没有遗言。"
        ),
        talk + f"每次发言最多{c.speech_chars}个字符（超出会被拒绝），可以为空（即过），"
        "并可附带结构化声明：自称的身份、指认为狼人的座位和担保的座位（同一座位不能两者兼有）。"
        "声明从不被确认。",
        "WW-13 "
        + (
            "发言和遗言中的“杀、私刑、谋杀”这三个英文词（kill、lynch、murder 及其变形）"
            "会显示为“淘汰、放逐、移除”（eliminate、exile、remove）。"
            if c.soften_words
            else "发言按原文显示。"
        ),
        "WW-14 投票：每名存活者投给一名存活座位"
        + ("" if c.self_vote else "（不能投自己）")
        + ("或弃权；" if c.abstain else "（不能弃权）；")
        + (
            "从随机种子选出的座位开始按座位号依次公开投票，每人都能看到之前的选票。"
            if c.day_vote == "sequential"
            else "秘密投票，之后一起公布。"
        ),
        f"WW-15 放逐规则：{exile}。被放逐者立即死亡，{_REVEAL_ZH[c.reveal_on_exile]}。",
        "WW-16 死者不再做任何决定，只能看到公开公告。",
        "WW-17 每晚结算后和每次放逐后判定胜负。",
        "WW-18 没有存活的狼人：好人阵营获胜。",
        "WW-19 存活狼人数不少于其他存活座位数：狼人获胜。",
        "WW-20 获胜一方的每个座位都获胜，无论生死。游戏结束时公布所有身份。",
        f"WW-21 第{c.day_limit}天结束仍未分出胜负，则所有座位平局。",
        "WW-22 夜里的请求：保护、查验、狼人私聊、杀人；白天的请求：出价、发言、遗言、投票。"
        "每个请求都列出合法选项；不合法的回答会被拒绝。",
        "WW-23 默认处理：杀人和投票为弃权（不能弃权时按随机种子合法投票）；"
        "保护和查验为不行动；出价为0；发言和消息为空。",
        f"WW-24 预设：{'Kaggle 标准局' if c.preset == 'kaggle_standard' else 'werewolf_arena'}；"
        "与预设同时给出的设置优先。",
    ]
    return "\n".join(lines)
