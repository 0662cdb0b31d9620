"""Running a study: one ordinary game per planned (cell, seed), resumable.

Each game is ``session.play_game`` on the study's game file with one extra
``[[agent]]`` entry per contestant naming the seats it holds; the header records
``study = {name, cell, index, sides}`` and ``contestants`` (seat -> name). A
re-run of the same study skips the games that finished, finishes interrupted
ones from their transcripts, and never plays a game twice (identity = study,
cell, seed; sandbox/transcript/identity.py).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.batch.backends import Backend, BackendOptions, backend_for
from sandbox.batch.jobs import BatchResult, GameJob, GameResult, OnResult
from sandbox.batch.policy import Capacity, agent_specs, capacity
from sandbox.core.errors import ConfigError
from sandbox.session.agent_specs import AgentSpec, LLMSpec
from sandbox.study.schedule import Planned, plan
from sandbox.study.spec import Study
from sandbox.transcript import read_game
from sandbox.transcript.identity import plan_of, scan


def provider_of(spec: AgentSpec) -> str | None:
    """'openai' for 'openai/gpt-4o'; None for seats that call no model."""
    if not isinstance(spec, LLMSpec):
        return None
    return spec.model.replace(":", "/").split("/", 1)[0]


def game_config_for(study: Study, game: Planned) -> dict[str, Any]:
    """The study's game file with every seat given to its contestant."""
    raw = study.game.to_json()
    entries = list(raw.get("agent", []))
    for name in study.names:
        seats = sorted(s for s, who in game.seats.items() if who == name)
        if seats:
            entries.append({**study.spec_json(name), "seats": seats})
    raw["agent"] = entries
    return raw


def job_for(study: Study, game: Planned, out: Path) -> GameJob:
    extra = {
        "study": {
            "name": study.name,
            "cell": game.cell,
            "index": game.index,
            "sides": game.sides,
            "specs": {n: study.spec_json(n) for n in sorted(set(game.seats.values()))},
            # people (issue 39, item 4): their pseudonymous ids, and whether they
            # were told which seats are models (blind: no, and asked at the end)
            **people_of(study, game),
        },
        "contestants": {str(s): who for s, who in sorted(game.seats.items())},
    }
    providers = {provider_of(study.specs[who]) for who in game.seats.values()}
    return GameJob(
        game_config_for(study, game),
        game.seed,
        str(out),
        header_extra=extra,
        key=f"study:{study.name}:{game.cell}:{game.seed}",
        providers=tuple(sorted(p for p in providers if p)),
    )


def people_of(study: Study, game: Planned) -> dict[str, Any]:
    """The header's ``people`` (the ids of the persons this game seats) and
    ``blind``; nothing for a game of models only (its header as before)."""
    seated = sorted({who for who in game.seats.values() if who in study.people})
    if not seated:
        return {}
    return {"people": seated, "blind": study.file.blind}


def planned_games(study: Study) -> list[Planned]:
    f = study.file
    return plan(
        study.game.variant,
        study.game.game_config,
        f.schedule,
        study.names,
        f.games_per_cell,
        f.seed,
    )


@dataclass
class Plan:
    """What a (re-)run of a study will do."""

    total: int
    todo: list[GameJob]
    done: list[str]  # transcripts of games already finished
    resuming: int


def changed_contestants(recorded: Any, now: Mapping[str, Any]) -> set[str]:
    """The contestants whose spec in a recorded game's header (``study.specs``)
    differs from ``now`` (name -> the spec this run would play): a study file
    edited between runs (e.g. a bot contestant moved from the baseline to a
    level). A header written before specs were recorded has nothing to compare."""
    then = recorded.get("specs") if isinstance(recorded, dict) else None
    if not isinstance(then, dict):
        return set()
    return {name for name in now.keys() & then.keys() if now[name] != then[name]}


def plan_run(study: Study) -> Plan:
    """What a run of ``study`` plays, skips and resumes in its folder. A ConfigError
    (one line, nothing played) when the folder holds games of a contestant whose
    spec has changed since: counting those games as done would mix two players
    under one name."""
    out = study.out()
    on_disk = scan(out)
    todo: list[GameJob] = []
    done: list[str] = []
    resuming = 0
    changed: set[str] = set()
    games = planned_games(study)
    for game in games:
        job = job_for(study, game, out)
        now = {n: study.spec_json(n) for n in set(game.seats.values())}
        for copy in on_disk.get(job.key) or ():
            changed |= changed_contestants(copy.header.get("study"), now)
        what, path = plan_of(on_disk.get(job.key))
        if what == "done":
            done.append(str(path))
        elif what == "resume":
            todo.append(dataclasses.replace(job, resume=str(path)))
            resuming += 1
        else:
            todo.append(job)
    if changed:
        names = ", ".join(sorted(changed))
        raise ConfigError(
            f"{out} holds games of contestant(s) {names} as the study file described them "
            "before; restore those entries, or play into a new folder (--out)"
        )
    return Plan(len(games), todo, done, resuming)


@dataclass
class Budget:
    """Per-provider limits and the cost cap, consulted before each game starts."""

    limits: dict[str, int]
    cap: float | None
    spent: float = 0.0
    finished: int = 0
    costs: list[float] = field(default_factory=list)

    def record(self, result: GameResult) -> None:
        if result.finished:
            self.finished += 1
            self.spent += result.cost
            self.costs.append(result.cost)

    def projected(self, starting: int) -> float:
        """Mean cost of the games finished so far times the games that would be running."""
        if not self.costs:
            return 0.0
        return sum(self.costs) / len(self.costs) * starting

    def admit(self, job: GameJob, running: Sequence[GameJob]) -> bool:
        busy = Counter(p for j in running for p in j.providers)
        return all(busy[p] < self.limits[p] for p in job.providers if p in self.limits)

    def halt(self, running: Sequence[GameJob]) -> str | None:
        if self.cap is None:
            return None
        if self.spent + self.projected(len(running) + 1) > self.cap:
            return (
                f"cost cap ${self.cap:g}: spent ${self.spent:.4f}, projected "
                f"${self.projected(len(running) + 1):.4f} more for the games running and the next"
            )
        return None


def study_capacity(study: Study, games_in_flight: int | None, backend: str) -> Capacity:
    """How many of the study's games play at once: the batch policy
    (sandbox/batch/policy.py) over every agent its games seat, with its ``jobs``."""
    return capacity(study_specs(study), study.file.jobs, games_in_flight, backend)


def run_study(
    study: Study, planned: Plan, on_result: OnResult, backend: Backend | None = None
) -> BatchResult:
    """Play what the plan says on ``backend`` (e.g. Ray, docs/scale-out.md; by
    default this machine, as the batch policy says); Ctrl-C starts no new game
    (see sandbox.batch.run). The study's provider limits and cost cap hold on
    any backend."""
    if study.people:
        # A person plays at this machine, in a page: these games are played here,
        # one at a time, whatever backend was asked for (sandbox/study/people.py;
        # imported here: only a study with people needs the web server's modules).
        from sandbox.study.people import PeopleBackend

        if not isinstance(backend, PeopleBackend):
            backend = PeopleBackend(study.file.blind)
    elif backend is None:
        at_once = study_capacity(study, None, "local")
        backend = backend_for(BackendOptions(workers=at_once.workers, in_flight=at_once.in_flight))
    study.out().mkdir(parents=True, exist_ok=True)
    budget = Budget(dict(study.file.provider_limits), study.file.cost_cap)
    budget.spent = spent_on(planned.done)

    def record(result: GameResult) -> None:
        budget.record(result)
        on_result(result)

    result = backend.run(planned.todo, record, budget.admit, budget.halt)
    result.skipped = list(planned.done)
    return result


def study_specs(study: Study) -> list[AgentSpec]:
    """Every agent entry a study's games seat: the game file's and the contestants'."""
    return [*agent_specs(study.game), *study.specs.values()]


def spent_on(paths: Sequence[str]) -> float:
    """What the games already played cost (their transcripts' call lines)."""
    total = 0.0
    for path in paths:
        raw = read_game(Path(path))
        total += sum(float(c.get("cost") or 0.0) for c in raw.calls)
    return total
