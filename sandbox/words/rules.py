"""A variant's rules text as a template: ``prompts/<variant>/<lang>/rules.j2``,
rendered from its config (the variant's ``rules_text`` method hands the
template the config and what it derives from it, e.g. the line-up).

The templates use expressions only (``{{ … if … else … }}``), never block
tags, so every line of a template is one line of the rules, as written.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from jinja2 import Environment, FunctionLoader, StrictUndefined, TemplateNotFound
from jinja2.loaders import split_template_path

from sandbox.core.variant import for_language

RULES = "rules.j2"


def _source(name: str) -> str:
    """A template's text from the packaged ``sandbox.prompts`` resources."""
    found = resources.files("sandbox.prompts")
    for part in split_template_path(name):  # refuses ".." and the like
        found = found.joinpath(part)
    if not found.is_file():
        raise TemplateNotFound(name)
    return found.read_text(encoding="utf-8")


# Rules are plain text: no escaping; an unknown name is an error, never blank.
_ENV = Environment(
    loader=FunctionLoader(_source),
    undefined=StrictUndefined,
    autoescape=False,
    keep_trailing_newline=False,
    auto_reload=False,
)


def rules_from_template(variant: str, language: str, **context: Any) -> str:
    """``prompts/<variant>/<language>/rules.j2`` rendered with ``context``; a
    language without rules is refused with a ValueError naming the allowed ones."""
    folder = for_language(language, {"en": "en", "zh": "zh"})
    return _ENV.get_template(f"{variant}/{folder}/{RULES}").render(**context)
