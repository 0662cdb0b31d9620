"""How each side behaves: the likelihood of a piece of evidence given a role
assignment, with its parameters as data (``behaviour.toml``).

Every factor depends only on the roles of the one or two seats the evidence
names (:func:`~sandbox.deduction.evidence.seats_of`), and on whether what was
said is true under the assignment. A seat is *hidden* when its role is one of
the table's hidden roles, *honest* otherwise; the table's ``checker`` is the
role whose checks are true. The factors are relative weights (only their
ratios across assignments matter), 1 for the most usual behaviour:

=====================  ======================  =====================================
evidence               speaker's role          factor
=====================  ======================  =====================================
RoleClaim(s, R)        role in R               1
                       hidden, not in R        ``claim_false_hidden``
                       honest, not in R        ``claim_false_honest``
SeatIs(s, t, R)        honest                  1 if t in R else ``said_false_honest``
                       hidden                  ``said_true_hidden`` if t in R else 1
CheckReport(s, t, R)   the checker             1 if t in R else ``check_false_checker``
                       another role            as SeatIs (the claim to be the checker
                                               is weighed as a RoleClaim, once)
VotePromise(s, t)      honest                  1 if t hidden else ``vote_honest_wrong``
Ballot(s, t)           hidden                  ``vote_hidden_partner`` if t hidden else 1
Killed(t)              (t's role)              ``killed_hidden`` if t hidden else 1
=====================  ======================  =====================================

A table without hidden roles makes votes and kills say nothing. Who was proved
wrong needs no rule of its own: once a seat's role is known, every statement
made about it is true or false in every assignment left, so the factor falls
on the speaker's role alone.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from importlib.resources import files
from pathlib import Path
from typing import Any

from sandbox.deduction.evidence import (
    Ballot,
    CheckReport,
    Evidence,
    Killed,
    RoleClaim,
    SeatIs,
    VotePromise,
    seats_of,
)
from sandbox.deduction.tables import RoleTable


@dataclass(frozen=True)
class Behaviour:
    """The likelihood model's parameters (each a weight in (0, 1]; 1 would say
    the evidence tells nothing). The defaults, stored in ``behaviour.toml``,
    are hand-set; :mod:`sandbox.deduction.fit` fits them on recorded games by
    frequency ratios (not adopted) and :mod:`sandbox.deduction.tune` chooses them
    by the belief's Brier score (Killer's table carries such a choice, v4; the
    others keep these: docs/benchmarks.md)."""

    claim_false_hidden: float = 0.35  # a hidden seat claims a role it lacks
    claim_false_honest: float = 0.05  # an honest seat claims a role it lacks
    said_false_honest: float = 0.6  # an honest seat says something false of a seat
    said_true_hidden: float = 0.4  # a hidden seat says something true (bussing a partner)
    check_false_checker: float = 0.02  # the real checker misreports its check
    vote_honest_wrong: float = 0.7  # an honest seat votes for (or promises) an honest seat
    vote_hidden_partner: float = 0.25  # a hidden seat votes for (or promises) a partner
    killed_hidden: float = 0.02  # the night's victim was hidden itself

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not 0.0 < value <= 1.0:
                raise ValueError(f"{f.name} = {value}: a weight must be in (0, 1]")

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> Behaviour:
        known = {f.name for f in fields(cls)}
        unknown = set(raw) - known
        if unknown:
            raise ValueError(f"unknown behaviour parameters {sorted(unknown)}")
        return cls(**{k: float(v) for k, v in raw.items()})


def load_behaviour(path: Path | None = None) -> Behaviour:
    """The parameters in ``path``, or the shipped ``behaviour.toml``."""
    if path is None:
        text = (files("sandbox.deduction") / "behaviour.toml").read_text(encoding="utf-8")
    else:
        text = path.read_text(encoding="utf-8")
    return Behaviour.from_mapping(tomllib.loads(text))


@dataclass(frozen=True)
class Factor:
    """One evidence's log-likelihood as a table: the roles of ``seats`` (in
    that order) -> log weight; a combination not listed weighs 1."""

    seats: tuple[int, ...]
    logs: Mapping[tuple[str, ...], float]


def factor(item: Evidence, table: RoleTable, b: Behaviour) -> Factor:
    """The factor of ``item`` under the model ``b``."""
    seats = seats_of(item)
    roles = table.roles
    if isinstance(item, RoleClaim):
        return Factor(seats, {(r,): _log(_claim(r, item.roles, table, b)) for r in roles})
    if isinstance(item, Killed):
        return Factor(
            seats, {(r,): _log(b.killed_hidden if r in table.hidden else 1.0) for r in roles}
        )
    logs: dict[tuple[str, ...], float] = {}
    for speaker in roles:
        for target in roles:
            logs[(speaker, target)] = _log(_two(item, speaker, target, table, b))
    return Factor(seats, logs)


def _claim(role: str, claimed: frozenset[str], table: RoleTable, b: Behaviour) -> float:
    if role in claimed:
        return 1.0
    return b.claim_false_hidden if role in table.hidden else b.claim_false_honest


def _said(speaker: str, true: bool, table: RoleTable, b: Behaviour) -> float:
    if speaker in table.hidden:
        return b.said_true_hidden if true else 1.0
    return 1.0 if true else b.said_false_honest


def _two(item: Evidence, speaker: str, target: str, table: RoleTable, b: Behaviour) -> float:
    if isinstance(item, SeatIs):
        return _said(speaker, target in item.roles, table, b)
    if isinstance(item, CheckReport):
        true = target in item.roles
        if table.checker and speaker == table.checker:
            return 1.0 if true else b.check_false_checker
        return _said(speaker, true, table, b)
    if isinstance(item, VotePromise | Ballot):
        if not table.hidden:
            return 1.0
        if speaker in table.hidden:
            return b.vote_hidden_partner if target in table.hidden else 1.0
        return 1.0 if target in table.hidden else b.vote_honest_wrong
    raise TypeError(f"no two-seat factor for {item!r}")


def _log(weight: float) -> float:
    return math.log(weight)
