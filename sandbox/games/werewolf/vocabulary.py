"""The Werewolf game words per language: its roles, teams, phases, decisions,
endings and the other values its events and views hold, and the names of its
view fields. Chinese uses the words of the Chinese rules text and prompts
(狼人, 预言家, 医生, 村民, 放逐); English words that read as themselves need no
entry. :data:`VOCABULARY` goes into :data:`sandbox.games.werewolf.words.WORDS`.
"""

from __future__ import annotations

from sandbox.core.words import Vocabulary

VOCABULARY = Vocabulary(
    terms={
        "en": {
            # WW-7/WW-15: how a kill or an exile was decided
            "tie_draw": "tie, seeded draw",
            "abstain_draw": "everyone abstained, seeded draw",
        },
        "zh": {
            # WW-1, WW-3: roles and teams
            "werewolf": "狼人",
            "seer": "预言家",
            "doctor": "医生",
            "villager": "村民",
            "werewolves": "狼人阵营",
            "village": "好人阵营",
            # Phases (info.Phase) and decisions (info.Decision)
            "night_actions": "夜间行动",
            "wolf_chat": "狼队私聊",
            "wolf_kill": "狼人杀人",
            "bidding": "竞价发言",
            "discussion": "讨论",
            "protect": "保护",
            "inspect": "查验",
            "wolf_message": "狼队私聊",
            "kill": "杀人",
            "bid": "出价",
            # Endings (info.Ending); day_limit is a shared word
            "werewolves_eliminated": "狼人全部出局",
            "werewolf_parity": "狼人数量不少于其他存活者",
            # Values the events and views hold
            "exile": "放逐",
            "votes": "得票",
            "tie_draw": "平票，按随机种子抽签",
            "abstain_draw": "全部弃权，按随机种子抽签",
            "sequential": "依次",
            "sealed": "秘密",
            "one_wolf": "一名狼人决定",
            "round_robin": "轮流发言",
            "chat": "私聊",
            "team": "阵营",
            "role": "身份",
        },
    },
    labels={
        "zh": {
            "team": "阵营",
            "pack": "狼队",
            "fellow_werewolves": "同伴狼人",
            "kills": "杀人记录",
            "pack_votes_tonight": "今晚狼队的票",
            "inspections": "查验记录",
            "protections": "保护记录",
            "saves": "救人记录",
            "result": "结果",
            "how": "方式",
            "cause": "死因",
            "revealed": "公开身份",
            "players": "座位数",
            "lineup": "身份配置",
            "werewolves": "狼人",
            "seers": "预言家",
            "doctors": "医生",
            "villagers": "村民",
            "rules": "规则",
            "speaking_order": "发言顺序",
            "floor": "发言权",
            "turn": "轮次",
            "turns": "总次数",
            "bidders": "竞价者",
            "speaker": "发言者",
            "vote": "投票",
            "mode": "方式",
            "order": "顺序",
            "candidates": "候选",
            "ballots_today": "今天的选票",
            "roles": "所有身份",
        },
    },
)
