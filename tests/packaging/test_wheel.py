"""A normal (non-editable) install works away from the repository.

Builds the wheel from a copy of the sources, installs it into a fresh venv in
a temporary folder, and from there (cwd outside the repository) plays a game
of each built-in variant on the built-in fake provider through the installed
``sandbox`` command, and renders every template with the installed package
(tests/packaging/render_all.py).

Offline and quick: the wheel is built with the test venv's setuptools (no
build isolation, nothing downloaded), and the fresh venv has no pip and no
copies of the dependencies: a .pth file puts the test venv's site-packages
after its own, so ``sandbox`` itself can only come from the wheel (the
editable install's hook in the test venv is a .pth file there, which Python
does not run for a folder added that way).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SOURCES = ("pyproject.toml", "README.md", "sandbox", "prompts")
FF_SHORT = "\n[rules]\nday_limit = 2                 # a short game\n"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv outside the repository with the wheel installed; returns its bin/."""
    base = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(base)
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(
        run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], base
        ).strip()
    )
    (site / "_test_venv_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        base,
    )
    return env_dir / "bin"


def build_wheel(base: Path) -> Path:
    src = base / "src"
    src.mkdir()
    for name in SOURCES:
        origin = ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(origin, src / name)
    dist = base / "dist"
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "-w",
            str(dist),
            str(src),
        ],
        base,
    )
    (wheel,) = dist.glob("*.whl")
    return wheel


def clean_env() -> dict[str, str]:
    """This environment without what would point Python at the repository."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def run(args: list[str], cwd: Path, timeout: float = 240) -> str:
    done = subprocess.run(
        args, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{args[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    assert ROOT not in tmp_path.parents
    return tmp_path


def test_the_wheel_ships_every_template_and_the_web_page(installed: Path) -> None:
    package = Path(
        run(
            [
                str(installed / "python"),
                "-c",
                "import sandbox, pathlib; print(pathlib.Path(sandbox.__file__).parent)",
            ],
            installed,
        ).strip()
    )
    templates = {
        p.relative_to(ROOT / "prompts").as_posix() for p in (ROOT / "prompts").rglob("*.j2")
    }
    shipped = {
        p.relative_to(package / "prompts").as_posix() for p in (package / "prompts").rglob("*.j2")
    }
    assert templates and shipped == templates
    assets = package / "web" / "assets"
    for name in (
        *("page.html", "host.html", "_form.html", "_view.html", "_end.html"),
        *("_lobby_base.html", "lobby.html", "lobby_table.html", "lobby_seat.html"),
        "lobby_refused.html",
    ):
        assert (assets / "templates" / name).is_file(), name
    for name in ("app.js", "common.js", "host.js", "app.css"):
        assert (assets / "static" / name).is_file(), name
    assert installed.parent in package.parents  # the venv's own copy


def test_an_installed_bot_reads_its_phrasebook(installed: Path, outside: Path) -> None:
    """Each built-in bot's phrases.toml ships as package data and loads from the
    installed package (games/phrasebook.py), the same phrasebook as the source's."""
    books = sorted(p.parent.name for p in (ROOT / "sandbox" / "games").glob("*/phrases.toml"))
    script = (
        "import json, sys; from sandbox.games.phrasebook import load_phrases; "
        "print(json.dumps({v: load_phrases('sandbox.games.' + v) for v in sys.argv[1:]}))"
    )
    loaded = json.loads(run([str(installed / "python"), "-c", script, *books], outside))
    with_source = {
        v: tomllib.loads((ROOT / "sandbox" / "games" / v / "phrases.toml").read_text("utf-8"))
        for v in books
    }
    assert books == ["four_factions", "killer", "werewolf"] and loaded == with_source


CONFIGS = ("killer_fake.toml", "four_factions_fake.toml")


@pytest.fixture(scope="module")
def games(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Both games played at once (each mostly waits on its seats' HTTP calls),
    each in its own folder outside the repository; returns each folder."""
    folders: dict[str, Path] = {}
    running: list[tuple[str, subprocess.Popen[str]]] = []
    for config in CONFIGS:
        folder = folders[config] = tmp_path_factory.mktemp(config.removesuffix(".toml"))
        text = (ROOT / "configs" / config).read_text(encoding="utf-8")
        (folder / config).write_text(
            text + (FF_SHORT if "four" in config else ""), encoding="utf-8"
        )
        args = [str(installed / "sandbox"), "run", config, "--seed", "1", "--json"]
        with (folder / "out.json").open("w") as out, (folder / "err.txt").open("w") as err:
            running.append(
                (
                    config,
                    subprocess.Popen(
                        args, cwd=folder, env=clean_env(), stdout=out, stderr=err, text=True
                    ),
                )
            )
    for config, process in running:
        code = process.wait(timeout=300)
        err = (folders[config] / "err.txt").read_text(encoding="utf-8")
        assert code == 0, f"sandbox run {config} failed ({code}):\n{err[-3000:]}"
    return folders


@pytest.mark.parametrize("config", CONFIGS)
def test_an_installed_sandbox_plays_a_fake_provider_game(
    games: dict[str, Path], config: str
) -> None:
    folder = games[config]
    result: dict[str, Any] = json.loads((folder / "out.json").read_text(encoding="utf-8"))
    assert ROOT not in folder.parents
    assert result["variant"] == config.removesuffix("_fake.toml")
    assert result["reason"] and set(result["seats"]) == {
        str(s) for s in range(1, len(result["seats"]) + 1)
    }
    assert {seat["result"] for seat in result["seats"].values()} <= {"win", "lose", "draw"}
    assert result["stats"]["calls"] >= result["stats"]["decisions"] > 0
    assert result["stats"]["tokens_in"] > 0  # real prompts were rendered and sent
    transcript = folder / result["transcript"]
    assert transcript.is_file() and folder in transcript.parents


def test_an_installed_package_renders_every_template(installed: Path, outside: Path) -> None:
    shutil.copy(HERE / "render_all.py", outside / "render_all.py")
    configs: dict[str, list[Any]] = {}  # each variant's golden configs, for render_all
    for golden in sorted((ROOT / "tests" / "testing" / "golden").glob("*/*.json")):
        case = json.loads(golden.read_text(encoding="utf-8"))
        configs.setdefault(case["variant"], []).append(case["config"])
    (outside / "configs.json").write_text(json.dumps(configs), encoding="utf-8")
    done: dict[str, Any] = json.loads(run([str(installed / "python"), "render_all.py"], outside))
    assert installed.parent in Path(done["sandbox"]).parents
    assert installed.parent in Path(done["prompts_root"]).parents
    shipped = set(done["templates"])
    assert shipped == {
        p.relative_to(ROOT / "prompts").as_posix() for p in (ROOT / "prompts").rglob("*.j2")
    }
    assert set(done["used"]) <= shipped and len(done["used"]) > len(shipped) // 2
    for variant, kinds in done["decisions"].items():
        own = {p.stem for p in (ROOT / "prompts" / variant / "en" / "decisions").glob("*.j2")}
        assert own and own <= set(kinds), (variant, own - set(kinds))
    assert done["prompts"] > 0 and done["repairs"] and done["page"]
