"""Study-level ablations (``sandbox ablate``, docs/studies.md, "What if"): a
sample of a study's speeches, each removed (``remove_speech``) and replaced by a
neutral pass (``pass_speech``) beside the control, K branch seeds per arm, and
the causal effect per speaker's contestant and side next to the observational
per-speech persuasion.

Per sampled speech s and arm A, the speech's effect on an outcome is
``d(s) = mean over A's branches − mean over the control's branches`` (both
from the step after the speech, the same branch seeds). A contestant's (or a
side's) effect is the mean of d(s) over its speeches, with a 95% cluster
bootstrap over source games (a game's speeches resampled together;
``analysis.metrics.figure``). Outcomes: ``votes_for_accused`` (ballots of the
next vote against a seat the speech accused), ``votes_against_speaker`` (the
next vote's ballots against the speaker), ``speaker_side_won`` and, with belief
probes, ``p_truth`` (listeners' p(truth) at their first probe after the
speech). The sign reads "what the speech did": an effect of −2 on
votes_for_accused means two ballots fewer against the accused without it.

Budgeted like a study: the study's cost cap (spent + the mean branch cost ×
the branches running and the next > cap: no new branch), its provider limits
(branches in flight per provider) and resume (branch files are named by
game, speech, arm and seed; a finished one is never played again, an
interrupted one is finished).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sandbox.models.remote as remote
from sandbox.analysis.effects import listener_truth, next_vote
from sandbox.analysis.intervals import BOOTSTRAP_SEED, cluster_bootstrap
from sandbox.analysis.persuasion import speech_persuasion_summary
from sandbox.analysis.tables import SPEECH_KINDS, winning_sides
from sandbox.core.errors import ConfigError
from sandbox.session.errors import SessionError
from sandbox.transcript import EventRow, Transcript, read_game
from sandbox.what_if.branches import branch_path, finished_on_disk, play_branch
from sandbox.what_if.intervention import CONTROL, Intervention, Prepared, prepare

ARMS = ("remove_speech", "pass_speech")
STRATA = ("contestant", "side", "kind", "claim")
OUTCOMES = ("votes_for_accused", "votes_against_speaker", "speaker_side_won", "p_truth")
RESULTS = "ablation.json"  # in the study folder: the report reads it
FREE_PREFIXES = ("fake/", "openai/fake-", "local/", "local:")


@dataclass(frozen=True)
class Speech:
    """One sampled speech of a study game."""

    path: Path
    game_id: str
    seq: int
    speaker: int
    contestant: str
    side: str
    kind: str
    claim: str
    accused: tuple[int, ...]

    def folder(self, out: Path) -> Path:
        return out / self.path.stem / f"s{self.seq:04d}"

    def to_json(self) -> dict[str, Any]:
        return {
            "transcript": str(self.path),
            "game_id": self.game_id,
            "seq": self.seq,
            "speaker": self.speaker,
            "contestant": self.contestant,
            "side": self.side,
            "kind": self.kind,
            "claim": self.claim,
        }


def speeches_of(game: Transcript[EventRow]) -> list[Speech]:
    # A branch starts at the first fork point after the speech: a step's end
    # with a decision still to come (core.game.fork_points). A speech after
    # the last such end has nothing to play again: the game's last step, or
    # a step the speech itself ended (a KG-13 concession).
    last = max((int(e["seq"]) for e in game.of_kind("core.decision")), default=0)
    steps = [int(e["seq"]) for e in game.of_kind("core.step")]
    ends = max((seq for seq in steps if seq < last), default=0)
    found = []
    for event in game.of_kind(*SPEECH_KINDS):
        seat = event.get("seat")
        if not isinstance(seat, int) or int(event["seq"]) >= ends:
            continue  # no fork point after it: nothing to play again
        found.append(
            Speech(
                game.path,
                game.game_id,
                int(event["seq"]),
                seat,
                game.contestants.get(seat, "?"),
                game.sides.get(seat, "?"),
                str(event.get("kind")),
                str(event.get("claim") or "none"),
                tuple(int(s) for s in event.get("accuse") or ()),
            )
        )
    return found


def sample(games: Sequence[Transcript[EventRow]], count: int, by: str, seed: int) -> list[Speech]:
    """``count`` speeches, spread evenly over the strata of ``by`` (seeded):
    one from each stratum in turn, each stratum's speeches in a shuffled order."""
    if by not in STRATA:
        raise ConfigError(f"--by must be one of {', '.join(STRATA)}; got '{by}'")
    rng = random.Random(seed)
    strata: dict[str, list[Speech]] = {}
    for game in games:
        for speech in speeches_of(game):
            strata.setdefault(str(getattr(speech, by)), []).append(speech)
    for members in strata.values():
        rng.shuffle(members)
    chosen: list[Speech] = []
    while len(chosen) < count and any(strata.values()):
        for name in sorted(strata):
            if strata[name] and len(chosen) < count:
                chosen.append(strata[name].pop())
    return sorted(chosen, key=lambda s: (str(s.path), s.seq))


# ------------------------------------------------------------------ plan, cost


@dataclass
class Plan:
    speeches: list[Speech]
    arms: tuple[str, ...]
    branches: int
    out: Path

    def units(self) -> list[tuple[Speech, str, int]]:
        return [
            (s, arm, b) for s in self.speeches for arm in (CONTROL, *self.arms)
            for b in range(1, self.branches + 1)
        ]  # fmt: skip

    def path_of(self, speech: Speech, arm: str, branch: int) -> Path:
        return branch_path(speech.folder(self.out), arm, branch)


def estimate(plan: Plan) -> dict[str, Any]:
    """Calls, tokens and cost of the branches still to play: per branch, the
    call lines the source game made after the fork point, at the models' prices."""
    calls = tokens_in = tokens_out = 0
    cost = 0.0
    for speech, arm, branch in plan.units():
        if finished_on_disk(plan.path_of(speech, arm, branch)):
            continue
        for call in _after(speech):
            calls += 1
            t_in, t_out = int(call.get("tokens_in") or 0), int(call.get("tokens_out") or 0)
            tokens_in, tokens_out = tokens_in + t_in, tokens_out + t_out
            price_in, price_out = prices(str(call.get("model") or ""))
            cost += t_in * price_in + t_out * price_out
    todo = sum(1 for u in plan.units() if not finished_on_disk(plan.path_of(*u)))
    return {
        "branches": len(plan.units()),
        "to_play": todo,
        "calls": calls,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "cost": round(cost, 6),
    }


_AFTER: dict[tuple[str, int], list[dict[str, Any]]] = {}


def _after(speech: Speech) -> list[dict[str, Any]]:
    key = (str(speech.path), speech.seq)
    if key not in _AFTER:
        game = read_game(speech.path)
        later = {
            str(e.get("request_id"))
            for e in game.of_kind("core.decision")
            if int(e["seq"]) > speech.seq
        }
        _AFTER[key] = [c for c in game.calls if str(c.get("request_id")) in later]
    return _AFTER[key]


def prices(model: str) -> tuple[float, float]:
    if not model or model.startswith(FREE_PREFIXES):
        return 0.0, 0.0
    return remote.token_prices(model)


def provider_of_model(model: str) -> str:
    return model.replace(":", "/").split("/", 1)[0]


# ------------------------------------------------------------------ running


@dataclass
class Budget:
    cap: float | None
    limits: Mapping[str, int]
    spent: float = 0.0
    costs: list[float] = field(default_factory=list)
    stopped: str | None = None

    def halt(self, running: int) -> bool:
        if self.cap is None or self.stopped:
            return self.stopped is not None
        mean = sum(self.costs) / len(self.costs) if self.costs else 0.0
        if self.spent + mean * (running + 1) > self.cap:
            self.stopped = f"cost cap ${self.cap:g}: spent ${self.spent:.4f}"
        return self.stopped is not None


@dataclass
class Run:
    played: int = 0
    reused: int = 0
    interrupted: bool = False
    stopped: str | None = None


OnUnit = Callable[[Speech, str, int, bool], None]


async def play_plan(plan: Plan, jobs: int, budget: Budget, on_unit: OnUnit) -> Run:
    """Every branch of the plan not finished on disk, ``jobs`` at once, within
    the provider limits and the cost cap."""
    run = Run()
    gate = asyncio.Semaphore(max(1, jobs))
    providers = {p: asyncio.Semaphore(n) for p, n in budget.limits.items()}
    prepared: dict[tuple[str, int, str], Prepared] = {}
    running = [0]

    def prepared_for(speech: Speech, arm: str) -> Prepared:
        key = (str(speech.path), speech.seq, arm)
        if key not in prepared:
            kind = arm if arm != CONTROL else ARMS[0]  # the control of either arm
            prepared[key] = prepare(speech.path, Intervention(kind, seq=speech.seq))
        return prepared[key]

    async def one(speech: Speech, arm: str, branch: int) -> None:
        path = plan.path_of(speech, arm, branch)
        if finished_on_disk(path):
            run.reused += 1
            on_unit(speech, arm, branch, False)
            return
        async with gate:
            if budget.halt(running[0]):
                return
            held = [providers[p] for p in _providers(speech) if p in providers]
            for sem in held:
                await sem.acquire()
            running[0] += 1
            try:
                record = await play_branch(prepared_for(speech, arm), arm, branch, path.parent)
            finally:
                running[0] -= 1
                for sem in held:
                    sem.release()
        budget.spent += record.stats.cost
        budget.costs.append(record.stats.cost)
        run.played += 1
        on_unit(speech, arm, branch, True)

    await asyncio.gather(*(one(*u) for u in plan.units()))
    run.stopped = budget.stopped
    return run


def _providers(speech: Speech) -> set[str]:
    header = read_game(speech.path).header
    models = [str(a.get("model")) for a in (header.get("agents") or {}).values() if a.get("model")]
    return {provider_of_model(m) for m in models}


# ------------------------------------------------------------------ measuring


def outcomes(game: Transcript[EventRow], speech: Speech) -> dict[str, float]:
    at = int((game.header.get("forked_from") or {}).get("at") or 0)
    ballots = next_vote(game, at) or []
    out = {
        "votes_for_accused": float(sum(1 for t in ballots if t in speech.accused)),
        "votes_against_speaker": float(sum(1 for t in ballots if t == speech.speaker)),
        "speaker_side_won": float(speech.side in winning_sides(game)),
    }
    truth = listener_truth(game, at, speech.speaker)
    if truth is not None:
        out["p_truth"] = truth
    return out


def speech_effects(plan: Plan) -> list[dict[str, Any]]:
    """Per speech, arm and outcome: d(s) = arm mean − control mean (finished branches)."""
    rows = []
    for speech in plan.speeches:
        means: dict[str, dict[str, float]] = {}
        for arm in (CONTROL, *plan.arms):
            found = [
                outcomes(read_game(p), speech)
                for b in range(1, plan.branches + 1)
                if finished_on_disk(p := plan.path_of(speech, arm, b))
            ]
            means[arm] = _means(found)
        for arm in plan.arms:
            for name in OUTCOMES:
                if name in means.get(arm, {}) and name in means.get(CONTROL, {}):
                    effect = means[arm][name] - means[CONTROL][name]
                    rows.append({**speech.to_json(), "arm": arm, "outcome": name, "effect": effect})
    return rows


def _means(found: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Each outcome's mean over the branches that have it (p_truth needs a probe)."""
    names = {k for f in found for k in f}
    return {k: sum(f[k] for f in found if k in f) / sum(1 for f in found if k in f) for k in names}


Row = dict[str, Any]


def effect_figure(rows: Sequence[Row], rng: random.Random) -> dict[str, Any]:
    """Mean of the speeches' effects with a 95% cluster bootstrap over their
    source games (a percentile interval; [0, 0] when every effect is 0)."""
    per_game: dict[str, list[float]] = {}
    for row in rows:
        per_game.setdefault(str(row["game_id"]), []).append(float(row["effect"]))
    ci = cluster_bootstrap([(sum(v), len(v)) for v in per_game.values()], rng)
    values = [v for vs in per_game.values() for v in vs]
    return {
        "value": round(sum(values) / len(values), 4) if values else None,
        "n": len(values),
        "games": len(per_game),
        "ci95": None if ci is None else [round(ci[0], 4), round(ci[1], 4)],
    }


def summarise(plan: Plan, games: Sequence[Transcript[EventRow]], seed: int = 0) -> dict[str, Any]:
    """Effects per arm and outcome, by contestant and by side, with cluster-bootstrap
    intervals over games, and the observational per-speech persuasion beside them."""
    rows = speech_effects(plan)
    rng = random.Random(BOOTSTRAP_SEED + seed)
    table: dict[str, Any] = {}
    for arm in plan.arms:
        for name in OUTCOMES:
            mine = [r for r in rows if r["arm"] == arm and r["outcome"] == name]
            if not mine:
                continue

            def items(key: str, value: str, mine: list[dict[str, Any]] = mine) -> list[Row]:
                return [r for r in mine if str(r[key]) == value]

            table.setdefault(arm, {})[name] = {
                "by_contestant": {
                    c: effect_figure(items("contestant", c), rng)
                    for c in sorted({r["contestant"] for r in mine})
                },
                "by_side": {
                    s: effect_figure(items("side", s), rng)
                    for s in sorted({r["side"] for r in mine})
                },
            }
    observed = speech_persuasion_summary(list(games)) or {}
    return {
        "speeches": [s.to_json() for s in plan.speeches],
        "sampled_by": Counter(s.contestant for s in plan.speeches),
        "branches": plan.branches,
        "arms": list(plan.arms),
        "out": str(plan.out),
        "effects": table,
        "observational": observed.get("by_contestant") or {},
        "per_speech": rows,
    }


def write_results(study_dir: Path, results: Mapping[str, Any]) -> Path:
    path = study_dir / RESULTS
    path.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


def check_plan(speeches: Sequence[Speech], count: int) -> None:
    if not speeches:
        raise SessionError("no speech to ablate in these games (a study with speeches is needed)")
    if count < 1:
        raise ConfigError("--speeches must be at least 1")
