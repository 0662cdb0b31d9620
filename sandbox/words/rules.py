"""A variant's rules text as a template: ``prompts/<variant>/<lang>/rules.j2``,
rendered from its config (the variant's ``rules_text`` method hands the
template the config and what it derives from it, e.g. the line-up).

The templates use expressions only (``{{ … if … else … }}``), never block
tags, so every line of a template is one line of the rules, as written.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from jinja2 import BaseLoader, Environment, FunctionLoader, StrictUndefined, TemplateNotFound
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


def text_environment(loader: BaseLoader, **options: Any) -> Environment:
    """An environment for plain-text templates (the rules here, the prompts in
    sandbox.agents.llm.prompt.templates): no escaping; an unknown name is an
    error, never blank; each template read once per process (no stat per
    render). ``options``: the caller's whitespace settings."""
    return Environment(
        loader=loader, undefined=StrictUndefined, autoescape=False, auto_reload=False, **options
    )


_ENV = text_environment(FunctionLoader(_source))


def rules_from_template(variant: str, language: str, **context: Any) -> str:
    """``prompts/<variant>/<language>/rules.j2`` rendered with ``context``; a
    language without rules is refused with a ValueError naming the allowed ones."""
    folder = for_language(language, {"en": "en", "zh": "zh"})
    return _ENV.get_template(f"{variant}/{folder}/{RULES}").render(**context)
