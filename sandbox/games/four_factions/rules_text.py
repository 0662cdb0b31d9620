"""The rules as players read them, with the active rulings, citing rule IDs."""

from __future__ import annotations

from sandbox.core.variant import for_language
from sandbox.games.four_factions.config import FourFactionsConfig


def rules_text(cfg: FourFactionsConfig, language: str = "en") -> str:
    """The full rules in `language` ("en" or "zh") with this config's rulings."""
    return for_language(language, {"en": _english, "zh": _chinese})(cfg)


def _english(cfg: FourFactionsConfig) -> str:
    knowledge = (
        "the faction of every one of the twelve regulars"
        if cfg.elite_knowledge == "all"
        else "the seats of its own faction's three regulars"
    )
    weapons = (
        "each faction's three regulars hold rock, scissors and paper, one each"
        if cfg.weapon_assignment == "balanced"
        else "each regular's weapon is drawn at random"
    )
    defender = (
        "and also the attacker's seat"
        if cfg.defender_learns_attacker
        else "but NOT who the attacker was"
    )
    wounds = (
        "This applies to every strike, also between two regulars"
        if cfg.wounds_between_regulars
        else "Between two regulars a would-be light wound has no effect (option)"
    )
    reveal = "and their factions" if cfg.reveal_faction_on_death else "but not their factions"
    per_seat = (
        " Some seats may have their own maximum HP."
        if any(s.hp is not None for s in cfg.seat)
        else ""
    )
    return f"""FOUR FACTIONS — rules (IDs in brackets)
[FF-1/2/3] 16 seats (1-16). Four factions of four: wolves, spies, justice, army. Each
faction has one elite and three regulars. Roles are dealt secretly [FF-8]; {weapons}.
[FF-4] Weapons rock, scissors, paper; rock beats scissors, scissors beats paper, paper
beats rock. Shields: anti-rock, anti-scissors, anti-paper.
[FF-5] An elite picks one weapon and one shield each fighting night; both hold all night.
[FF-6] A regular always has one weapon W and the shield anti-W.
[FF-7] Every seat starts at its maximum HP: {cfg.hp}.{per_seat}
[FF-9] An elite knows it is the elite and {knowledge}, never their weapons.
[FF-10] A regular knows its faction, weapon, shield and its faction's elite seat.
[FF-11] Everyone knows the rules, every public speech and announcement.
[FF-12] After a duel the attacker learns the target, the weapon it was struck back with and
every outcome; the defender learns it was attacked, the weapon used and every outcome,
{defender}.
[FF-13] Day 1: each seat says which ONE faction it is (denying the other three) and argues.
Lying is allowed; claims are never checked.
[FF-14] Day 2: each seat accuses a living other seat of a faction that seat denied on day 1
(any faction if it gave no proofs).
[FF-15] Day 3: each seat protects a living other seat that gave proofs, backing its claim.
[FF-16/17] No fighting before night 4. From day 4, each living seat may speak once or pass.
[FF-18] Day d speeches start at seat ((d-1) mod 16)+1 and go up, skipping the dead.
[FF-19] From night 4: elites choose weapon and shield first. First half: each living odd
seat may attack one even seat or stay home. Second half: even seats attack odd seats.
Choices are sealed and simultaneous.
[FF-20] Duels resolve in ascending attacker seat; attacking a dead seat finds a corpse.
[FF-21/23] A strike with weapon W on a shield guarding G: G = W no effect; W beats G kill
(whatever the HP); G beats W light wound (HP - 1; at 0 the seat dies). {wounds}.
[FF-22] The attacker strikes first; a surviving defender strikes back once. [FF-24]
Attacking one's own faction is allowed.
[FF-25/26] Pairs: wolves vs justice, spies vs army. When all of one side is dead and the
other has a survivor, the survivor's side wins; if both are wiped out, both draw. Checked
after each half-night; the result is final and is announced publicly at dawn, after the dead.
[FF-27] The game ends when both pairs are decided, or after day {cfg.day_limit}: then every
undecided pair draws by limit.
[FF-28] At dawn the referee announces who died, {reveal}.
[FF-29] A seat that gives no valid statement on days 1-3 is recorded as having given none.
"""


def _chinese_rulings(cfg: FourFactionsConfig) -> dict[str, str]:
    """The Chinese wording of each configurable ruling, as set in `cfg`."""
    return {
        "weapons": (  # FF-8
            "每个阵营的三名非最强精英分别持有石头、剪刀、布，各持一种"
            if cfg.weapon_assignment == "balanced"
            else "每名非最强精英的武器各自随机抽取"
        ),
        "knowledge": (  # FF-9
            "全部十二名非最强精英各自所属的阵营"
            if cfg.elite_knowledge == "all"
            else "本阵营三名非最强精英的座位号"
        ),
        "defender": (  # FF-12
            "而且还知道攻击者的座位号" if cfg.defender_learns_attacker else "但不知道攻击者是谁"
        ),
        "wounds": (  # FF-23 ruling
            "这条规则适用于每一次出手，两名非最强精英之间也不例外"
            if cfg.wounds_between_regulars
            else "两名非最强精英之间，本应造成的轻伤不生效（可选裁定）"
        ),
        "reveal": "并公布其阵营" if cfg.reveal_faction_on_death else "但不公布其阵营",  # FF-28
        "per_seat": (  # FF-7: [[seat]] tables may set their own hp
            "部分座位另有各自的最大生命值。" if any(s.hp is not None for s in cfg.seat) else ""
        ),
    }


def _chinese(cfg: FourFactionsConfig) -> str:
    r = _chinese_rulings(cfg)
    lines = [
        "四阵营——规则（方括号内为规则编号）",
        "[FF-1/2/3] 共16个座位（1–16号）。四个阵营各四人：狼人、间谍、司法、军队。"
        "每个阵营有一名最强精英和三名非最强精英。",
        f"[FF-8] 身份由裁判秘密分配；{r['weapons']}。",
        "[FF-4] 武器有石头、剪刀、布三种：石头克剪刀，剪刀克布，布克石头。"
        "盾牌有防石头、防剪刀、防布三种。",
        "[FF-5] 最强精英在每个战斗之夜选定一种武器和一种盾牌，两者整夜（上半夜和下半夜）都不变。",
        "[FF-6] 非最强精英始终只有一种武器W，以及永久的“防W”盾牌。",
        f"[FF-7] 每个座位开局时的生命值等于其最大生命值：{cfg.hp}。{r['per_seat']}",
        f"[FF-9] 最强精英知道自己是本阵营的最强精英，也知道{r['knowledge']}，"
        "但从不知道他们的武器。",
        "[FF-10] 非最强精英知道自己的阵营、武器和盾牌，以及本阵营最强精英的座位号。",
        "[FF-11] 所有人都知道规则、每一次公开发言和每一条公告。",
        "[FF-12] 对决之后，攻击者知道自己攻击了谁、对方反击所用的武器以及每一个结果；"
        f"防守者知道自己遭到了攻击、攻击所用的武器以及每一个结果，{r['defender']}。",
        "[FF-13] 第1天：每个座位声明自己属于哪一个阵营（同时否认另外三个，即“三非一是”），"
        "并陈述理由。允许撒谎，裁判从不核实任何声明。",
        "[FF-14] 第2天：每个座位指控另一名存活玩家，指出他其实属于他第1天否认过的某个阵营"
        "（若对方没有给出证明，可以指任意一个阵营）。",
        "[FF-15] 第3天：每个座位保护另一名给出过证明的存活玩家，为他声明的阵营作证。",
        "[FF-16/17] 第4夜之前不许动武。从第4天起，每名存活玩家每天可以发言一次，也可以说“过”。",
        "[FF-18] 第d天从第 ((d−1) mod 16) + 1 号座位开始发言"
        "（第1天从1号开始，第2天从2号开始，依此类推），"
        "按座位号从小到大轮流，跳过已死亡的座位。",
        "[FF-19] 从第4夜起：最强精英先选定当晚的武器和盾牌。"
        "上半夜：每名存活的奇数号座位可以攻击一名偶数号座位，或留在家中。"
        "下半夜：偶数号座位攻击奇数号座位。同一时段的选择都秘密地同时做出。",
        "[FF-20] 同一时段内的对决按攻击者座位号从小到大依次结算；"
        "攻击已死亡的座位，只会看到一具尸体。",
        "[FF-21/23] 用武器W攻击携带“防G”盾牌的人：G与W相同，攻击无效；"
        "W克G，秒杀（无论对方生命值多少）；G克W，造成轻伤（生命值减1，降到0即死亡）。"
        f"{r['wounds']}。",
        "[FF-22] 攻击者先出手；防守者若仍存活，则无差别反击一次。[FF-24] 允许攻击本阵营的人。",
        "[FF-25/26] 敌对关系两两成对：狼人对司法，间谍对军队。"
        "一方全部死亡而另一方仍有人存活时，存活的一方获胜；双方都全部死亡则双方平局。"
        "上半夜和下半夜各自结束后都进行判定，一经判定即为最终结果，"
        "并在天亮公布死者之后公开宣布。",
        f"[FF-27] 两对敌对关系都分出结果时游戏结束；否则在第{cfg.day_limit}天之后结束，"
        "届时每一对尚未分出结果的敌对关系都因达到天数上限而判为平局。",
        f"[FF-28] 天亮时裁判公布夜里死亡的座位，{r['reveal']}。",
        "[FF-29] 第1–3天没有给出有效声明的座位，会被记录为未给出声明。",
    ]
    return "\n".join(lines) + "\n"
