"""What to install when a command needs an optional dependency that is absent.

The extras and what they hold are read from the installed package's own
metadata (pyproject.toml's ``[project.optional-dependencies]``), so this list
is never written twice."""

from __future__ import annotations

import re
from importlib import metadata

PACKAGE = "sandbox"  # the import name; the distribution's name comes from metadata

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_EXTRA = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _distribution() -> str | None:
    names = metadata.packages_distributions().get(PACKAGE, [])
    return names[0] if names else None


def install_hint(module: str) -> str | None:
    """``needs M, from the 'E' extra: pip install 'dist[E]'`` when an extra of
    this package provides the (top-level) module ``module``; None otherwise
    (a core module missing is a broken install, not a choice)."""
    dist = _distribution()
    if dist is None:
        return None
    wanted = _normal(module.split(".")[0])
    for requirement in metadata.requires(dist) or []:
        name, extra = _NAME.match(requirement), _EXTRA.search(requirement)
        if name is not None and extra is not None and _normal(name.group()) == wanted:
            return f"needs {wanted}, from the '{extra[1]}' extra: pip install '{dist}[{extra[1]}]'"
    return None
