"""The page's own words (buttons, headings) in English and Chinese, and the
plain-words form of answer values ("Seat 9", "nobody").

Game history is not worded here: the referee's sentences come from the
variant's describer (the one ``sandbox view`` uses), passed in as ``describe``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

UI: Mapping[str, Mapping[str, str]] = {
    "en": {
        "seat": "Seat {n}",
        "your_seat": "Seat {n}",
        "your_turn": "Your turn",
        "waiting": "Waiting for the other seats…",
        "left": "You left the game; the referee plays your fallbacks.",
        "handed_back": (
            "This seat was handed back to an AI player; this page keeps following it "
            "as a spectator."
        ),
        "ended": "The game is over",
        "reconnecting": "Connection lost — reconnecting…",
        "not_sent": "Not sent: the connection to the game was lost. Try again.",
        "label_sep": ": ",
        "send": "Send answer",
        "send_message": "Send",  # OD-5: an open day's ask, posted
        "wait": "Wait",  # OD-5: or waited
        "confirm": "Confirm",
        "change": "Change",
        "confirm_intro": "Your answer cannot be taken back:",
        "leave": "Leave game",
        "leave_confirm": "Leave the game? The referee will play your remaining decisions.",
        "rules": "Rules",
        "rulings_differ": "Rules that differ from the standard game:",
        "rulings_standard": "The standard rules of this game.",
        "rules_in_full": "The rules in full",
        "close": "Close",
        "card": "Your card",
        "now": "Now",
        "history": "History",
        "nothing_yet": "Nothing has happened yet.",
        "new_items": "New since your last turn",
        "said": "said",
        "said_nothing": "(said nothing)",
        "you": "You",
        "referee": "Referee",
        "nobody": "nobody",
        "none_option": "Nobody / abstain",
        "yes": "yes",
        "no": "no",
        "day_phase": "Day {day} · {phase}",
        "setup": "Before the game",
        "rule": "rule {rule}",
        "chars": "at most {n} characters",
        "choose_up_to": "choose up to {n}",
        "choose": "choose…",
        "time_left": "Time left",
        "your_answer": "Your {decision}: {values}",
        "your_field": "Your {what}",
        "required": "Please choose: {what}.",
        "fallback": "(the referee's fallback: {reason})",
        "timed_out": "Time ran out: the referee passed for you.",
        "unsent": "Not sent, kept for your next answer:",
        "fallback_timeout": "time ran out",
        "fallback_quit": "you left the game",
        "fallback_other": "no answer was accepted",
        "fallback_invalid": "the answers kept breaking the rules",
        "fallback_provider": "the model was unavailable",
        "words_will_read": "Your words will read:",
        "outcome": "Outcome",
        "role": "Role",
        "result": "Result",
        "whole_game": "The whole game as your seat saw it",
        "winners": "Winners: {who}",
        "no_winner": "Nobody won: the game is a draw.",
        "you_win": "You won (you were {role}).",
        "you_lose": "You lost (you were {role}).",
        "you_draw": "A draw for you (you were {role}).",
        "result_win": "won",
        "result_lose": "lost",
        "result_draw": "draw",
        "you_mark": "you",
        "board": "The table",
        "board_alive": "alive",
        "board_yes": "yes",
        "board_dead": "dead",
        "board_known": "known to you",
        "board_said": "claims and statements",
        "board_votes": "votes",
        "partner_mark": "partner",
        "speaking_now": "speaking now",
        "votes_today": "votes today: {n}",
        "out": "You are out",
        "out_note": (
            "You are out of the game{how}. "
            "Your page keeps following the game as your seat may see it."
        ),
        "out_how": " ({cause}, {when})",
        "cause_night": "killed in the night",
        "cause_vote": "voted out",
        "cause_exile": "exiled",
        "cause_duel": "killed in a duel",
        "server_gone": "The game has finished and its server has closed.",
        "watching": "Watching {who}",
        "referee_view": "the referee's view",
        "narrowed": (
            "A person plays at this table: until the game ends this page shows only "
            "what every player is told."
        ),
        "seat_win": "Seat {n} won (it was {role}).",
        "seat_lose": "Seat {n} lost (it was {role}).",
        "seat_draw": "A draw for seat {n} (it was {role}).",
        "host_panel": "Host panel",
        "controller": "Played by",
        "take_over": "Hand to a person",
        "hand_back": "Hand back to AI",
        "link": "Seat link",
        "watch_seat": "Spectator link",
        "watch_referee": "Referee spectator link",
        "start": "Start the game",
        "host_ready": "Hand seats to people, then start the game.",
        "host_playing": "The game is under way.",
        "host_ended": "The game is over.",
    },
    "zh": {
        "seat": "{n}号",
        "your_seat": "{n}号座位",
        "your_turn": "轮到你了",
        "waiting": "等待其他玩家…",
        "left": "你已离开游戏；之后的决定由裁判按规则代为处理。",
        "handed_back": "这个座位已交还给 AI 玩家；本页会以观战者身份继续跟进这个座位。",
        "ended": "游戏结束",
        "reconnecting": "连接中断，正在重新连接…",
        "not_sent": "未发送：与游戏的连接中断了，请重试。",
        "label_sep": "：",
        "send": "提交",
        "send_message": "发送",
        "wait": "等待",
        "confirm": "确认",
        "change": "修改",
        "confirm_intro": "提交后不能撤回：",
        "leave": "离开游戏",
        "leave_confirm": "确定离开吗？之后的决定由裁判代为处理。",
        "rules": "规则",
        "rulings_differ": "与标准规则不同之处：",
        "rulings_standard": "本局使用标准规则。",
        "rules_in_full": "完整规则",
        "close": "关闭",
        "card": "你的身份",
        "now": "当前",
        "history": "经过",
        "nothing_yet": "还没有发生任何事。",
        "new_items": "上次行动后的新消息",
        "said": "发言",
        "said_nothing": "（没有说话）",
        "you": "你",
        "referee": "裁判",
        "nobody": "无人",
        "none_option": "不选 / 弃权",
        "yes": "是",
        "no": "否",
        "day_phase": "第{day}天 · {phase}",
        "setup": "开局",
        "rule": "规则 {rule}",
        "chars": "最多 {n} 个字",
        "choose_up_to": "最多选 {n} 个",
        "choose": "请选择…",
        "time_left": "剩余时间",
        "your_answer": "你的{decision}：{values}",
        "your_field": "你的{what}",
        "required": "请先选择：{what}。",
        "fallback": "（裁判的默认处理：{reason}）",
        "timed_out": "时间到了：裁判替你跳过了。",
        "unsent": "未发出，已为你的下一次回答保留：",
        "fallback_timeout": "时间到了",
        "fallback_quit": "你已离开游戏",
        "fallback_other": "没有被接受的回答",
        "fallback_invalid": "回答一再违反规则",
        "fallback_provider": "模型不可用",
        "words_will_read": "你的话将显示为：",
        "outcome": "结果",
        "role": "身份",
        "result": "胜负",
        "whole_game": "你的座位看到的整局经过",
        "winners": "获胜：{who}",
        "no_winner": "无人获胜：本局平局。",
        "you_win": "你赢了（你的身份：{role}）。",
        "you_lose": "你输了（你的身份：{role}）。",
        "you_draw": "你这局是平局（你的身份：{role}）。",
        "result_win": "胜",
        "result_lose": "负",
        "result_draw": "平",
        "you_mark": "你",
        "board": "座位一览",
        "board_alive": "存活",
        "board_yes": "是",
        "board_dead": "死亡",
        "board_known": "你所知",
        "board_said": "声明",
        "board_votes": "投票",
        "partner_mark": "同伴",
        "speaking_now": "正在发言",
        "votes_today": "今日得票：{n}",
        "out": "你已出局",
        "out_note": "你已出局{how}。页面会继续按你的座位能看到的内容跟进这局游戏。",
        "out_how": "（{cause}，{when}）",
        "cause_night": "夜里被杀",
        "cause_vote": "被公决出局",
        "cause_exile": "被放逐",
        "cause_duel": "决斗中阵亡",
        "server_gone": "游戏已结束，服务器已关闭。",
        "watching": "观看：{who}",
        "referee_view": "裁判视角",
        "narrowed": "有真人在这局游戏中就座：直到游戏结束，本页只显示所有玩家都能看到的内容。",
        "seat_win": "{n}号赢了（身份：{role}）。",
        "seat_lose": "{n}号输了（身份：{role}）。",
        "seat_draw": "{n}号这局是平局（身份：{role}）。",
        "host_panel": "主持面板",
        "controller": "操控者",
        "take_over": "交给真人",
        "hand_back": "交还 AI",
        "link": "座位链接",
        "watch_seat": "观战链接",
        "watch_referee": "裁判视角观战链接",
        "start": "开始游戏",
        "host_ready": "先把座位交给真人，再开始游戏。",
        "host_playing": "游戏进行中。",
        "host_ended": "游戏已结束。",
    },
}


# Field names as a confirmation says them ("Your accusations: Seat 4").
FIELD_WORDS: Mapping[str, Mapping[str, str]] = {
    "en": {
        "target": "choice",
        "speech": "speech",
        "claim": "claimed role",
        "accuse": "accusations",
        "vouch": "vouches",
        "concede": "concession",
        "am": "claimed faction",
        "faction": "faction named",
        "message": "message",
    },
    "zh": {
        "target": "选择",
        "speech": "发言",
        "claim": "声明的身份",
        "accuse": "指认",
        "vouch": "担保",
        "concede": "认输",
        "am": "声明的阵营",
        "faction": "指控的阵营",
        "message": "消息",
    },
}


def field_words(name: str, language: str) -> str:
    return FIELD_WORDS.get(language, FIELD_WORDS["en"]).get(name) or label(name)


def ui(language: str) -> Mapping[str, str]:
    return UI.get(language, UI["en"])


def label(key: object) -> str:
    """A field or phase name as words: ``kill_opinion`` → ``kill opinion``."""
    return str(key).replace("_", " ")


def value_words(value: Any, t: Mapping[str, str]) -> str:
    """An answer value as a person says it: seats by name, none as nobody."""
    if value is None:
        return t["nobody"]
    if isinstance(value, bool):
        return t["yes"] if value else t["no"]
    if isinstance(value, int):
        return t["seat"].format(n=value)
    if isinstance(value, list | tuple):
        return ", ".join(value_words(v, t) for v in value) or t["nobody"]
    return str(value)


def option_words(option: Any, t: Mapping[str, str]) -> str:
    """A choice as the button says it (None is the explicit abstain option)."""
    return t["none_option"] if option is None else value_words(option, t)
