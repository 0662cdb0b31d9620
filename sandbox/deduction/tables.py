"""A variant's roles and its words for them, as data.

A table is a TOML file (the shipped ones are in ``sandbox/deduction/tables/``,
one per variant, taken from that variant's vocabulary and prompts):

.. code-block:: toml

    roles = ["a", "b", "c"]      # every role label the variant deals
    hidden = ["a"]               # what an accusation says a seat is (may be empty)
    checker = "b"                # the role whose checks are reported ("" if none)
    plain = "c"                  # the role with no power of its own ("" if none)
    [groups]                     # more labels, each a set of roles
    good = ["b", "c"]
    [words.en]                   # label (a role or a group) -> its words
    a = ["a", "the a"]
    [words.zh]
    a = ["甲"]
    [say.en]                     # optional: how a bot's speech names a label
    a = "an a"
    [behaviour]                  # optional: likelihood parameters for this table
    claim_false_honest = 0.2

The code never names a role: it reads them from here.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

Roles = frozenset[str]


@dataclass(frozen=True)
class RoleTable:
    """What the deduction knows of a variant's roles and their words."""

    roles: tuple[str, ...]
    hidden: Roles = frozenset()
    checker: str = ""
    plain: str = ""  # the role with no power (Mini-Mafia's third part)
    groups: Mapping[str, Roles] = field(default_factory=dict)
    words: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    # language -> label -> how a bot's speech names it ("a werewolf", "好人")
    say: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # likelihood parameters that differ at this table (behaviour.toml's names)
    behaviour: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        known = set(self.roles)
        named = [r for r in (self.checker, self.plain) if r]
        if not self.hidden <= known or not set(named) <= known:
            raise ValueError("hidden roles, the checker and the plain role must be table roles")
        for name, members in self.groups.items():
            if not members <= known:
                raise ValueError(f"group {name!r} names unknown roles {sorted(members - known)}")
        for lang, labels in self.words.items():
            for label in labels:
                self.resolve(label)  # raises on an unknown label
            if not labels:
                raise ValueError(f"no words for language {lang!r}")

    @property
    def every(self) -> Roles:
        return frozenset(self.roles)

    @property
    def honest(self) -> Roles:
        """The roles that are not hidden."""
        return self.every - self.hidden

    def resolve(self, label: str) -> Roles:
        """The roles a label (a role or a group) stands for."""
        if label in self.roles:
            return frozenset((label,))
        if label in self.groups:
            return self.groups[label]
        raise ValueError(
            f"unknown label {label!r}; roles {self.roles}, groups {sorted(self.groups)}"
        )

    def not_(self, roles: Roles) -> Roles:
        """The complement: what "is not <roles>" leaves."""
        return self.every - roles

    def noun(self, roles: Roles, language: str) -> str:
        """How a speech names ``roles``: the ``say`` phrase of the label that
        stands for exactly them, else its first word, else the roles listed."""
        labels = [*self.roles, *self.groups]
        for label in labels:
            if self.resolve(label) == roles:
                said = self.say.get(language, {}).get(label)
                if said:
                    return said
                words = self.words.get(language, {}).get(label)
                if words:
                    return words[0]
        return " / ".join(sorted(roles))

    def vocabulary(self, language: str) -> tuple[tuple[str, Roles], ...]:
        """(word, roles) pairs of ``language``, longest word first, so a longer
        word wins over a word it contains."""
        pairs = [
            (word.lower(), self.resolve(label))
            for label, words in self.words.get(language, {}).items()
            for word in words
        ]
        return tuple(sorted(pairs, key=lambda p: (-len(p[0]), p[0])))


def table_from_mapping(raw: Mapping[str, Any]) -> RoleTable:
    """A table from its parsed TOML (or any mapping of the same shape)."""
    groups = {str(k): frozenset(map(str, v)) for k, v in dict(raw.get("groups", {})).items()}
    words = {
        str(lang): {str(label): tuple(map(str, ws)) for label, ws in dict(labels).items()}
        for lang, labels in dict(raw.get("words", {})).items()
    }
    say = {
        str(lang): {str(label): str(text) for label, text in dict(labels).items()}
        for lang, labels in dict(raw.get("say", {})).items()
    }
    return RoleTable(
        say=say,
        behaviour={str(k): float(v) for k, v in dict(raw.get("behaviour", {})).items()},
        roles=tuple(map(str, raw["roles"])),
        hidden=frozenset(map(str, raw.get("hidden", ()))),
        checker=str(raw.get("checker", "")),
        plain=str(raw.get("plain", "")),
        groups=groups,
        words=words,
    )


def load_table(name: str) -> RoleTable:
    """The shipped table ``tables/<name>.toml`` (a variant's name)."""
    resource = files("sandbox.deduction") / "tables" / f"{name}.toml"
    if not resource.is_file():
        raise ValueError(f"no role table {name!r} in sandbox/deduction/tables")
    return table_from_mapping(tomllib.loads(resource.read_text(encoding="utf-8")))
