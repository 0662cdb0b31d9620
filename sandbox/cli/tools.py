"""The commands that help write and try a game file: ``rules`` (the rules with a
file's rulings), ``validate`` (check a file and summarise it) and ``fake-llm``
(an offline model server to play LLM seats against)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from sandbox.cli.errors import EXIT_BAD_INPUT, bad_input_is_one_line, error_text, fail, say_error
from sandbox.cli.options import ConfigArgument
from sandbox.core.errors import ConfigError
from sandbox.games.registry import get_variant, variant_names
from sandbox.session.agent_specs import AgentSpec, HumanSpec, LLMSpec, ScriptedSpec
from sandbox.session.gamefile import (
    GameFile,
    LoadedConfig,
    check_setup,
    config_warnings,
    describe_error,
    load_config,
    non_default_rules,
    uses_llm,
)
from sandbox.words import LANGUAGES


def _either(names: list[str]) -> str:
    """'a or b', 'a, b or c'."""
    return " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def rules(
    # the variants installed now, so a game added by another package is listed too
    variant: Annotated[str, typer.Argument(help=_either(variant_names()))],
    config: Annotated[Path | None, typer.Option(help="game file whose rulings to apply")] = None,
    language: Annotated[str, typer.Option(help=_either(list(LANGUAGES)))] = "en",
) -> None:
    """Print the rules with the active rulings."""
    with bad_input_is_one_line():
        if language not in LANGUAGES:
            allowed = ", ".join(LANGUAGES)
            fail(f"--language: '{language}' is not supported; allowed: {allowed}")
        game = get_variant(variant)
        game_config = game.parse_config({})
        if config is not None:
            loaded = load_config(config)
            if loaded.variant.name != game.name:
                fail(f"{config} plays '{loaded.variant.name}', not '{game.name}'")
            game_config = loaded.game_config
        print(game.rules_text(game_config, language=language))


def validate(config: ConfigArgument) -> None:
    """Check a game file and summarise it (or list every error found in it)."""
    with bad_input_is_one_line():
        try:
            loaded = load_config(config)
        except ConfigError as err:
            *others, last = every_error(err, config)
            for line in others:
                say_error(error_text(line), EXIT_BAD_INPUT)
            fail(last)
        check_setup(loaded)  # everything `run` checks before its first event
        seats = loaded.variant.rules.seat_count(loaded.game_config)
        print(f"ok: {config}")
        print(f"variant: {loaded.variant.name} ({loaded.variant.title}), seats: {seats}")
        print(f"seed: {loaded.file.seed if loaded.file.seed is not None else 'random'}")
        print(f"rules: {_rules_summary(loaded)}")
        print(f"default agent: {agent_summary(loaded.file.default_agent)}")
        for spec in loaded.file.agent:
            print(f"  {_selector(spec)}: {agent_summary(spec)}")
        if uses_llm(loaded.file):
            print("llm: " + ", ".join(f"{k}={v}" for k, v in _llm_settings(loaded).items()))
        run = loaded.file.run
        print(f"run: out={run.out}, series={run.series}, abort_share={run.abort_share}")
        for warning in config_warnings(loaded.file):
            print(f"warning: {warning}", file=sys.stderr)


def every_error(err: ConfigError, path: Path) -> list[str]:
    """Each error of a game file the schema refused, one line each, as the
    one-line message words the first (which ends "[+N more error(s)]"); any
    other error alone. The schema's errors are the ConfigError's context."""
    found = err.__context__
    if not isinstance(found, ValidationError):
        return [str(err)]
    section = None if found.title == GameFile.__name__ else "rules"
    lines = []
    for detail in found.errors(include_url=False):
        raw: dict[str, Any] = dict(detail)
        keep = {k: raw[k] for k in ("type", "loc", "input", "ctx") if k in raw}
        one = ValidationError.from_exception_data(found.title, [keep])  # type: ignore[list-item]
        lines.append(f"{path}: {describe_error(one, section=section)}")
    return lines


def _selector(spec: AgentSpec) -> str:
    if spec.seats is not None:
        return "seats " + ", ".join(str(s) for s in spec.seats)
    return f"role '{spec.role}'"


def agent_summary(spec: AgentSpec) -> str:
    """The kind and what matters for it: the model of an llm seat, the interface of
    a human, the script length of a scripted seat."""
    if isinstance(spec, LLMSpec):
        return f"llm ({spec.model})"
    if isinstance(spec, HumanSpec):
        port = f", port {spec.port}" if spec.interface == "browser" and spec.port else ""
        return f"human ({spec.interface}{port})"
    if isinstance(spec, ScriptedSpec):
        skip = ", skip_unlisted" if spec.skip_unlisted else ""
        return f"scripted ({len(spec.decisions)} decisions, then {spec.then}{skip})"
    return spec.kind


def _rules_summary(loaded: LoadedConfig) -> str:
    changed = non_default_rules(loaded.variant, loaded.game_config)
    fixed = f"; {len(loaded.file.seat)} fixed seat(s)" if loaded.file.seat else ""
    if not changed:
        return f"defaults{fixed}"
    shown = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in changed.items())
    return f"{shown} (others default){fixed}"


def _llm_settings(loaded: LoadedConfig) -> dict[str, Any]:
    llm = loaded.file.llm
    return {
        "language": llm.language,
        "belief_probe": str(llm.belief_probe).lower(),
        "probe_after_speech": str(llm.probe_after_speech).lower(),
        "max_repairs": llm.max_repairs,
        "prompt_style": llm.prompt_style,
        "concurrency": llm.concurrency,
    }


def fake_llm(
    port: Annotated[int, typer.Option(min=0, max=65535, help="port on 127.0.0.1")] = 8000,
    host: Annotated[str, typer.Option(help="address to bind")] = "127.0.0.1",
    policy: Annotated[str, typer.Option(help="how it answers, e.g. legal-random")] = "legal-random",
    latency: Annotated[float, typer.Option(help="seconds to wait before each answer")] = 0.0,
) -> None:
    """Serve an OpenAI-compatible fake model for offline runs (Ctrl-C stops it)."""
    try:
        module = importlib.import_module("sandbox.models.fake")
    except ModuleNotFoundError:
        fail("the fake model server (sandbox.models.fake) is not installed in this checkout")
    # The server prints its own address once it is bound; a banner here would
    # claim success before a bad policy or a taken port is known.
    try:
        module.run_server(host, port, policy, latency)
    except KeyboardInterrupt:
        print("stopped.")
    except (ValueError, OverflowError, OSError) as err:
        fail(str(err))
