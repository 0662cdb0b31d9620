"""Where the prompt templates are and how one is found: the jinja2
environment over the packaged ``prompts/`` folder and the lookup order.

Their source is the repository's top-level ``prompts/`` folder, installed as
the resource package ``sandbox.prompts`` (see pyproject.toml). They are read
through ``importlib.resources`` only, never by a path relative to this file,
so an editable install and a wheel install behave the same from any directory.

Template lookup, first match wins (``<lang>`` falls back to ``en``; a variant
without a template falls back to ``_generic``; the compact style tries
``compact/<name>`` before ``<name>`` at each step)::

    <variant>/<lang>/<name>  <variant>/en/<name>
    _generic/<lang>/<name>   _generic/en/<name>

``<variant>/`` is the variant's folder here or, for a variant from another
package, the folder its ``Variant.prompt_templates()`` gives. The functions
take the variant object (its own folder is remembered by its name, as the
loader sees only names) or, from a caller that holds only a name, the name.

The events of a seat's record are not worded here: each is its variant's
sentence (:mod:`sandbox.words`); ``events.j2`` lays the record out, its phase
headers in the words of :func:`sandbox.words.phase_title` (``phase_title(day,
phase)`` inside the template: :func:`record_macros`), as the viewer, the pages
and the terminal say them.

Decision templates are ``decisions/<decision>.j2``; a decision without one
uses ``_generic``'s template of that name if there is one (``message``, an open
day's ask), else ``decisions/_default.j2``. Player text is always a template variable,
never a template.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from jinja2 import BaseLoader, Environment, Template, TemplateNotFound
from jinja2.loaders import split_template_path

from sandbox.agents.llm.prompt.escaping import safe_json
from sandbox.core.variant import Variant
from sandbox.core.words import one_line
from sandbox.words import phase_title
from sandbox.words.rules import text_environment

# The installed templates (tests may point this at a copy: any Traversable,
# e.g. a pathlib.Path, will do). Always read as templates.PROMPTS_DIR, at call
# time, so such a change reaches every stage.
PROMPTS_DIR: Traversable = resources.files("sandbox.prompts")
GENERIC = "_generic"
FALLBACK_LANGUAGE = "en"
COMPACT = "compact"


class ResourceLoader(BaseLoader):
    """Templates read from a package's resources (``importlib.resources``), so
    they load wherever the package is installed, a zip archive included."""

    def __init__(self, root: Traversable) -> None:
        self.root = root

    def get_source(
        self, environment: Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        resource = _find(self.root, template)
        if resource is None:
            raise TemplateNotFound(template)
        # Read once per process (auto_reload is off), so never out of date.
        return resource.read_text(encoding="utf-8"), str(resource), lambda: True


def _find(root: Traversable, name: str) -> Traversable | None:
    """The resource ``name`` ("a/b/c.j2") under ``root``, if it is a file, else
    in the own templates of the variant its first part names (a variant from
    another package: ``Variant.prompt_templates``). split_template_path refuses
    ".." and other ways out of the root."""
    parts = split_template_path(name)
    resource = root
    for part in parts:
        resource = resource.joinpath(part)
    if resource.is_file():
        return resource
    own = _OWN_FOLDERS.get(parts[0]) if len(parts) > 1 else None
    if own is None:
        return None
    for part in parts[1:]:
        own = own.joinpath(part)
    return own if own.is_file() else None


# The variants' own template folders (``Variant.prompt_templates``), by name, as
# the seats rendering for them handed the variants in: the loader is given only
# template names, and finds a variant's folder here, never in a registry.
_OWN_FOLDERS: dict[str, Traversable | None] = {}


def _folder_of(variant: Variant[Any, Any]) -> str:
    """``variant``'s folder name, its own templates noted for the loader."""
    if variant.name not in _OWN_FOLDERS:
        _OWN_FOLDERS[variant.name] = variant.prompt_templates()
    return variant.name


# One environment per templates root (keyed by its text: a Traversable need
# not be hashable).
_ENVIRONMENTS: dict[str, Environment] = {}


def environment() -> Environment:
    """The shared environment for the current ``PROMPTS_DIR`` (tests may point
    it at a copy)."""
    env = _ENVIRONMENTS.get(str(PROMPTS_DIR))
    if env is None:
        env = _ENVIRONMENTS[str(PROMPTS_DIR)] = _new_environment(PROMPTS_DIR)
    return env


def _new_environment(root: Traversable) -> Environment:
    env = text_environment(
        ResourceLoader(root), trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True
    )
    env.filters["json"] = safe_json
    env.filters["oneline"] = one_line
    env.filters["omit"] = omit
    env.filters["skip_false"] = skip_false
    return env


def skip_false(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """A copy without flags left at false: an option the seat did not use (e.g.
    KG-13 concede) says nothing when its answer is shown back to it."""
    return {k: v for k, v in mapping.items() if v is not False}


def omit(mapping: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    """A copy without ``keys`` (e.g. a recorded answer without its speech, which
    the history already quotes)."""
    return {k: v for k, v in mapping.items() if k not in keys}


def candidates(
    variant: Variant[Any, Any], language: str, name: str, style: str = "full"
) -> list[str]:
    """Template names to try, most specific first. A compact style tries
    ``compact/<name>`` before the full template, per variant and language."""
    return _names((_folder_of(variant), GENERIC), language, name, style)


def _names(folders: Sequence[str], language: str, name: str, style: str) -> list[str]:
    langs = [language] if language == FALLBACK_LANGUAGE else [language, FALLBACK_LANGUAGE]
    styles = [f"{COMPACT}/{name}", name] if style == COMPACT else [name]
    return [f"{v}/{lang}/{n}" for v in folders for lang in langs for n in styles]


def decision_candidates(
    variant: Variant[Any, Any], language: str, decision: str, style: str = "full"
) -> list[str]:
    """A decision's own template (zh, then en), else a generic template of that
    decision (e.g. an open day's ``message``, OD-5, shared by every variant),
    else the generic default."""
    named = candidates(variant, language, f"decisions/{decision}.j2", style)
    own = [n for n in named if not n.startswith(GENERIC)]
    shared = [n for n in named if n.startswith(GENERIC)]
    return own + shared + candidates(variant, language, "decisions/_default.j2", style)


# Template lookups already made: a failed lookup is a file-system search and
# an exception each time, and every decision asks for the same few names.
_RESOLVED: dict[tuple[str, tuple[str, ...]], str] = {}


def resolve(names: Sequence[str]) -> str:
    """The first of ``names`` that exists under ``PROMPTS_DIR``."""
    key = (str(PROMPTS_DIR), tuple(names))
    found = _RESOLVED.get(key)
    if found is None:
        found = _RESOLVED[key] = _first_existing(PROMPTS_DIR, key[1])
    return found


def _first_existing(root: Traversable, names: Sequence[str]) -> str:
    for name in names:
        if _find(root, name) is not None:
            return name
    raise TemplateNotFound(names[0] if names else "(none)")


def template(variant: Variant[Any, Any], language: str, name: str, style: str = "full") -> Template:
    """The compiled template ``name`` for a variant, language and style."""
    return environment().get_template(resolve(candidates(variant, language, name, style)))


# The record macros of each (templates root, variant, language), made once.
_RECORD_MACROS: dict[tuple[str, str, str], Any] = {}
RECORD = "events.j2"


def record_macros(variant: Variant[Any, Any], language: str) -> Any:
    """The macros of the variant's ``events.j2`` (its record's phase headers and
    speech labels), with ``phase_title(day, phase)`` in the template's scope:
    the phase's title in this language and the variant's words, the one
    source of phase titles (:func:`sandbox.words.phase_title`)."""
    key = (str(PROMPTS_DIR), variant.name, language)
    found = _RECORD_MACROS.get(key)
    if found is None:

        def title(day: int | None, phase: str | None) -> str:
            return phase_title(day, phase, language, variant)

        found = template(variant, language, RECORD).make_module({"phase_title": title})
        _RECORD_MACROS[key] = found
    return found


def generic_template(language: str, name: str) -> Template:
    """A template no variant has its own of (``_generic/<lang>/<name>``)."""
    return environment().get_template(resolve(_names((GENERIC,), language, name, "full")))


def precompile(variant: Variant[Any, Any], language: str) -> None:
    """Compile every template a seat of ``variant`` may use, once per process
    (at seat setup, so no decision pays for it)."""
    env = environment()
    langs = {language, FALLBACK_LANGUAGE}
    for folder in (_folder_of(variant), GENERIC):
        for lang in langs:
            for name in _template_names(PROMPTS_DIR / folder / lang, f"{folder}/{lang}"):
                env.get_template(name)


def _template_names(root: Traversable, prefix: str) -> list[str]:
    """Every ``*.j2`` below ``root`` (a packaged folder), as loader names."""
    if not root.is_dir():
        return []
    names: list[str] = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            names += _template_names(entry, f"{prefix}/{entry.name}")
        elif entry.name.endswith(".j2"):
            names.append(f"{prefix}/{entry.name}")
    return names
