"""The prompt templates (jinja2), shipped inside the package as ``sandbox.prompts``.

The source stays in the repository's top-level ``prompts/`` folder; pyproject.toml
maps it to ``sandbox.prompts`` (``package-dir``) and ships every ``*.j2`` and each
variant's ``vocabulary.toml`` (its game words, :mod:`sandbox.words.vocabulary`) as
package data, so ``importlib.resources.files("sandbox.prompts")`` finds them in an
editable install (this folder) and in a wheel install (site-packages) alike.
"""
