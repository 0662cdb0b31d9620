"""The Killer rules text, in English and Chinese, with the active rulings."""

from __future__ import annotations

from sandbox.core.variant import for_language
from sandbox.games.killer.config import OWN_SIDE, KillerConfig, lineup


def rules_text(config: KillerConfig, language: str = "en") -> str:
    """The full rules in `language` ("en" or "zh") with this config's rulings."""
    return for_language(language, {"en": _english, "zh": _chinese})(config)


def _english(config: KillerConfig) -> str:
    counts = lineup(config.players)
    answer = (
        "the suspect's exact role (killer, police or civilian)"
        if config.check_answer == "identity"
        else "only whether the suspect is a killer or not"
    )
    reveal = "with their role" if config.reveal_role_on_death else "without their role"
    barred = (
        f" In this game seat {config.previous_first_victim} may not be the night-1 victim."
        if config.previous_first_victim is not None
        else ""
    )
    lines = [
        f"Killer, {config.players} players: {counts['killer']} killers, "
        f"{counts['police']} police, {counts['civilian']} civilians (KG-1).",
        "KG-2 Roles are dealt secretly. Killers know each other; police know each other; "
        "civilians know only themselves.",
        "KG-3 Night: each living killer gives a sealed opinion (a living player, or none). "
        "The majority of the opinions given is killed; a tie is broken by a seeded draw; "
        "no opinions, no kill. Killers then see each other's opinions.",
        f"KG-4 Police, the same way, choose a living non-police suspect; the judge tells them "
        f"privately {answer}.",
        f"KG-5 Series: the first-night victim may not be the previous game's.{barred}",
        f"KG-6 At dawn the judge announces the night's victim, {reveal}.",
        f"KG-7 The first {counts['killer']} dead (night kills and vote-outs together) "
        "give last words.",
        "KG-8 Each living player speaks once, starting from the first living seat after "
        "the victim (next higher seat, wrapping); with no victim, after the previous day's "
        "first speaker (seat 1 on day 1).",
        "KG-9 Sealed ballots for a living other player, or abstain; every ballot is "
        "announced afterwards. Most votes is out (with last words if the quota allows); "
        "nobody votes, nobody out.",
        "KG-10 Tie: the tied speak again and everyone revotes among the tied; tied again: "
        "the others speak and everyone revotes among the tied; tied again: forced draw.",
        "KG-11 Night and day repeat until the game ends.",
        f"KG-12 All killers dead: police and civilians win. All police dead: killers win. "
        f"All civilians dead: draw. Checked after every death. After day {config.day_limit} "
        "the game is a draw by limit.",
        _english_concede(config),
        "KG-14 The dead never act again (last words aside). Claims are only words; the judge "
        "never confirms a card.",
        "KG-15 Speak only when given the floor; do not swear oaths to win trust.",
    ]
    return "\n".join(lines)


def _english_concede(config: KillerConfig) -> str:
    if config.concede == OWN_SIDE:
        return (
            "KG-13 Only a police player or killer whose own side is down to one living member "
            "may concede (in their day speech); their side loses at once."
        )
    return (
        "KG-13 Once the police or the killers are down to one living member, any living "
        "police player or killer may concede (in their day speech); the conceder's side "
        "loses at once."
    )


def _chinese_rulings(config: KillerConfig) -> dict[str, str]:
    """The Chinese wording of each configurable ruling, as set in `config`."""
    victim = config.previous_first_victim
    return {
        "answer": (  # KG-4
            "此人的确切身份（杀手、警察或平民）"
            if config.check_answer == "identity"
            else "此人是不是杀手（只说是或不是）"
        ),
        "reveal": "并公布其身份" if config.reveal_role_on_death else "但不公布其身份",  # KG-6
        "concede": (  # KG-13
            "只有当己方只剩一名存活成员时，那名警察或杀手才可以认输（在白天发言时提出）；"
            "其一方随即判负。"
            if config.concede == OWN_SIDE
            else "当警察或杀手中有一方只剩一名存活成员时，任何一名存活的警察或杀手都可以认输"
            "（在白天发言时提出）；认输者的一方随即判负。"
        ),
        "barred": (  # KG-5
            f"本局中，{victim}号不能成为第一夜的被杀者。" if victim is not None else ""
        ),
    }


def _chinese(config: KillerConfig) -> str:
    counts = lineup(config.players)
    r = _chinese_rulings(config)
    lines = [
        f"KG-1 杀人游戏，共{config.players}名玩家：{counts['killer']}名杀手、"
        f"{counts['police']}名警察、{counts['civilian']}名平民。",
        "KG-2 身份牌秘密发放。杀手互相认识，警察互相认识，平民只知道自己的身份。",
        "KG-3 夜里，每名存活的杀手秘密给出一个意见（一名存活玩家，或不给意见）。"
        "以给出的意见中的多数为准杀人；意见平票时，在平票者中按随机种子抽签决定；"
        "无人给出意见则当晚无人被杀。之后杀手能看到彼此的意见。",
        "KG-4 警察以同样的方式选出一名存活的非警察玩家作为查验对象；"
        f"法官私下告诉警察{r['answer']}。",
        f"KG-5 连续两局中，第一夜被杀的不能是上一局第一夜被杀的同一个人。{r['barred']}",
        f"KG-6 天亮时法官宣布当晚的被杀者，{r['reveal']}。",
        f"KG-7 最先死去的{counts['killer']}人（夜里被杀和白天被公决出局的合并计算）可以留遗言。",
        "KG-8 每名存活玩家依次发言一次：从被杀者之后第一名存活的玩家开始"
        "（座位号依次往上，过了最大号回到1号）；当晚无人被杀时，"
        "从前一天第一位发言者之后开始（第1天从1号开始）。",
        "KG-9 秘密投票：投给另一名存活玩家，或弃权；投票结束后公布每一张选票。"
        "得票最多者被公决出局（遗言名额未用完时可留遗言）；无人投票则无人出局。",
        "KG-10 平票时：平票者再次发言，所有人只在平票者中重新投票；再次平票：由平票者以外的"
        "其他人发言，所有人仍在平票者中重新投票；仍然平票：本局硬性判为平局。",
        "KG-11 黑夜和白天交替进行，直到游戏结束。",
        "KG-12 杀手全部死亡：警察和平民获胜。警察全部死亡：杀手获胜。平民全部死亡：平局。"
        f"每次有人死亡后都进行判定。第{config.day_limit}天过后，本局因达到天数上限判为平局。",
        f"KG-13 {r['concede']}",
        "KG-14 死者不再有任何行动（遗言除外）。声明只是口头说法：不能亮牌，"
        "法官从不确认任何人的牌。",
        "KG-15 只在轮到自己时发言；不要以人格、名誉等赌咒发誓来博取信任。",
    ]
    return "\n".join(lines)
