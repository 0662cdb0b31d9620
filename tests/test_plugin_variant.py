"""A third variant from another package plays through the whole tool chain, and
nothing in sandbox/ knows it (issue 18).

``tests/plugin_variant`` is a package of its own (``sandbox-tinygame``: rules,
words in English and Chinese, a baseline bot, prompt templates, one metric)
that declares the ``sandbox.variants`` entry point. It is installed here the
way a user would install it (pip, offline, without build isolation, from a copy
so that the repository gets no build files) into a folder of its own, and every
command runs in a subprocess whose ``sys.path`` has that folder: the registry
can only find the variant through the installed entry point. The rest of the
suite never sees it (the folder is on no path of this process).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "tests" / "plugin_variant"

pytestmark = pytest.mark.slow

BOTS = """variant = "tinygame"
seed = 1
name = "tiny-bots"
[rules]
seats = 5
[default_agent]
kind = "{kind}"
[run]
out = "{out}"
"""

FAKE = """variant = "tinygame"
seed = 1
name = "tiny-fake"
[rules]
seats = 4
rounds = 2
[default_agent]
kind = "llm"
model = "fake/legal-random"
timeout_s = 10
[llm]
language = "zh"
probe_after_speech = true
max_repairs = 1
[run]
out = "{out}"
"""

STUDY = """name = "tiny_study"
game = "fake.toml"
schedule = "matrix"
games_per_cell = 1
seed = 100
jobs = 1
out = "{out}"
cost_cap = 1.0
[provider_limits]
fake = 1
[[contestant]]
name = "random"
kind = "llm"
model = "fake/legal-random"
timeout_s = 10
[[contestant]]
name = "bot"
kind = "baseline"
"""


class Plugin:
    """Runs commands with the plugin installed (and the checkout's sandbox)."""

    def __init__(self, site: Path, work: Path) -> None:
        self.site, self.work = site, work

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(self.site), env.get("PYTHONPATH", "")) if p
        )
        env["COLUMNS"] = "200"
        return env

    def run(self, *args: str, timeout: float = 300) -> str:
        done = subprocess.run([sys.executable, *args], cwd=self.work, env=self.env(),
                              capture_output=True, text=True, timeout=timeout)  # fmt: skip
        assert done.returncode == 0, (
            f"{' '.join(args)} failed ({done.returncode}):\n{done.stdout[-2000:]}\n"
            f"{done.stderr[-3000:]}"
        )
        return done.stdout

    def sandbox(self, *args: str) -> str:
        return self.run("-m", "sandbox", *args)

    def python(self, code: str) -> str:
        return self.run("-c", code)


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Plugin:
    base = tmp_path_factory.mktemp("plugin")
    source = base / "src"
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info",
                                                                  "build"))  # fmt: skip
    site = base / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-deps", "--no-index", "--no-build-isolation", "--target", str(site), str(source)],
        cwd=base, check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert list(site.glob("sandbox_tinygame-*.dist-info/entry_points.txt"))
    work = base / "work"
    work.mkdir()
    return Plugin(site, work)


def test_the_variant_comes_only_from_the_installed_entry_point(plugin: Plugin) -> None:
    out = plugin.python(
        "import json\n"
        "from importlib.metadata import entry_points\n"
        "from sandbox.games.registry import BUILTIN, get_variant, variant_names\n"
        "ep = [e.value for e in entry_points(group='sandbox.variants') if e.name == 'tinygame']\n"
        "v = get_variant('tinygame')\n"
        "print(json.dumps({'ep': ep, 'names': variant_names(), 'builtin': sorted(BUILTIN),\n"
        "                  'title': v.title, 'module': type(v).__module__}))\n"
    )
    found = json.loads(out)
    assert found["ep"] == ["tinygame:VARIANT"] and "tinygame" in found["names"]
    assert "tinygame" not in found["builtin"] and found["module"] == "tinygame.variant"
    with pytest.raises(ModuleNotFoundError):  # and this process never sees it
        __import__("tinygame")


def test_no_module_of_sandbox_names_it(plugin: Plugin) -> None:
    """The project's own variant-free check, with the plugin registered: its name,
    kind prefix and labels appear in no module outside the variants' folders."""
    plugin.run("-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
               str(ROOT / "tests" / "test_variant_free.py"))  # fmt: skip


def play(plugin: Plugin, name: str, text: str) -> Path:
    out = plugin.work / f"out-{name}"
    config = plugin.work / f"{name}.toml"
    config.write_text(text.format(out=out.as_posix()), encoding="utf-8")
    result = json.loads(plugin.sandbox("run", str(config), "--json"))
    return Path(result["transcript"])


@pytest.fixture(scope="module")
def games(plugin: Plugin) -> dict[str, Path]:
    return {
        "bots": play(plugin, "bots", BOTS.format(kind="baseline", out="{out}")),
        "random": play(plugin, "random", BOTS.format(kind="random", out="{out}")),
        "fake": play(plugin, "fake", FAKE),
    }


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_run_plays_its_bot_random_seats_and_model_seats(games: dict[str, Path]) -> None:
    for name, path in games.items():
        header, *rest = lines(path)
        assert header["variant"] == "tinygame", name
        assert rest[-1]["type"] == "outcome", name
        kinds = {x["kind"] for x in rest if x["type"] == "event"}
        assert {"tinygame.started", "tinygame.speech", "tinygame.ballots"} <= kinds, name
    bots = lines(games["bots"])[0]["agents"]
    assert {a["kind"] for a in bots.values()} == {"baseline"}
    calls = [x for x in lines(games["fake"]) if x["type"] == "call"]
    assert calls and any(c.get("probe") for c in calls)  # a probe after each speech


def test_its_templates_are_found_in_its_package(plugin: Plugin) -> None:
    out = plugin.python(
        "from sandbox.agents.llm.prompt.render import render_prompt\n"
        "from sandbox.session.api import new_game\n"
        "game = new_game('tinygame', seed=2)\n"
        "request = game.pending()[0]\n"
        "for language in ('en', 'zh'):\n"
        "    prompt = render_prompt(game.view(request.seat), request, language=language,\n"
        "                           belief_probe=True)\n"
        "    print('\\n'.join(m['content'] for m in prompt.messages))\n"
    )
    assert "Tiny game: one fox hides among the hens." in out  # en/primer.j2
    assert "your turn to speak (TG-3)" in out  # en/decisions/speech.j2
    assert "小游戏：一只狐狸藏在母鸡中间" in out and "轮到你发言（TG-3）" in out  # zh
    assert '"fox"' in out and '"hen"' in out  # the probe asks for its sides


def test_view_replay_and_rules(plugin: Plugin, games: dict[str, Path]) -> None:
    referee = plugin.sandbox("view", str(games["bots"]))
    assert "Tiny game with 5 seats" in referee and "is ejected" in referee
    seat = plugin.sandbox("view", str(games["fake"]), "--seat", "2", "--language", "zh")
    assert "第1轮" in seat and "号说" in seat
    page = plugin.work / "bots.html"
    plugin.sandbox("view", str(games["bots"]), "--html", str(page))
    assert "Tiny game" in page.read_text(encoding="utf-8")
    site = plugin.work / "site"
    plugin.sandbox("view", str(games["random"].parent), "--html", str(site))
    assert (site / "index.html").is_file()
    for path in games.values():
        assert "OK" in plugin.sandbox("replay", str(path))
    assert "TG-5" in plugin.sandbox("rules", "tinygame", "--language", "zh")


def test_stats_count_its_sides(plugin: Plugin, games: dict[str, Path]) -> None:
    out = json.loads(plugin.sandbox("stats", *(str(p.parent) for p in games.values()), "--json"))
    figures = out["variants"]["tinygame"]
    assert figures["games"] == 3 and set(figures["roles"]) == {"fox", "hen"}


def test_a_study_and_its_report(plugin: Plugin) -> None:
    (plugin.work / "fake.toml").write_text(FAKE.format(out="unused"), encoding="utf-8")
    study = plugin.work / "study.toml"
    out = plugin.work / "study-out"
    study.write_text(STUDY.format(out=out.as_posix()), encoding="utf-8")
    summary = json.loads(plugin.sandbox("study", str(study), "--json"))
    text = json.dumps(summary)
    assert '"fox_votes"' in text  # its metric, from Variant.research.metrics
    assert {"bot@fox", "bot@hen", "random@fox", "random@hen"} <= set(summary["ratings_by_role"])
    page = plugin.work / "report.html"
    plugin.sandbox("report", str(out), "--out", str(page))
    assert "fox_votes" in page.read_text(encoding="utf-8")


def test_the_conformance_kit_passes_it(plugin: Plugin) -> None:
    out = plugin.python(
        "from sandbox.testing import check_variant\n"
        "print(check_variant('tinygame', {'seats': 5}, games=8, languages=('en', 'zh')))\n"
    )
    assert out.startswith("tinygame: 8 games")
