"""The pretrained agents shipped in the package (``uno_env.agents.shipped``): listed from their
cards, loaded by name from the package data, checked against the table they are asked to play,
and carried by the built wheel into a venv that has no repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

from uno_env.agents import make_agent, parse_spec, pretrained
from uno_env.agents import shipped
from uno_env.agents.arena import play_game
from uno_env.game.engine import Engine
from uno_env.game.rules import make_rules

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "uno_env", "pretrained")


def repo_card(name: str) -> dict:
    with open(os.path.join(ROOT, "checkpoints", name, "card.json")) as fh:
        return json.load(fh)


def test_every_listed_agent_has_its_folder_in_the_package_and_no_other_folder_is_there():
    assert sorted(os.listdir(DATA)) == sorted(shipped.SHIPPED)
    for name in shipped.SHIPPED:  # in the source tree: a link to the checkpoint training wrote
        assert os.path.islink(os.path.join(DATA, name))
        assert os.path.realpath(os.path.join(DATA, name)) == os.path.realpath(os.path.join(ROOT, "checkpoints", name))


def test_the_repository_takes_in_exactly_the_shipped_checkpoints_and_ignores_a_users_runs():
    """checkpoints/ holds the shipped agents and the user's own runs (scripts/main.sh writes
    checkpoints/quick/): .gitignore ignores the folder but for one exception per shipped agent,
    so a checkpoint that ships is listed in SHIPPED and a run of one's own is never committed."""
    lines = [line.strip() for line in open(os.path.join(ROOT, ".gitignore"), encoding="utf-8")]
    assert "checkpoints/*" in lines
    kept = sorted(line.removeprefix("!checkpoints/").strip("/") for line in lines if line.startswith("!checkpoints/"))
    assert kept == sorted(shipped.SHIPPED)


def test_a_users_run_in_checkpoints_does_not_break_the_shipped_agent_tests():
    """The README's two commands in order: scripts/main.sh leaves checkpoints/quick/ (with the
    run's lock and SB3's model.zip), then scripts/test.sh runs the suite. The tests of the shipped
    agents take them from SHIPPED, so a run of one's own beside them changes nothing."""
    run = os.path.join(ROOT, "checkpoints", f"user-run-{os.getpid()}")  # ignored by .gitignore
    os.makedirs(run)
    try:
        for name in ("card.json", "model.zip", ".uno-lock"):
            with open(os.path.join(run, name), "w") as fh:
                fh.write("{}")
        tests = ["tests/agents/test_shipped.py::"
                 "test_every_listed_agent_has_its_folder_in_the_package_and_no_other_folder_is_there",
                 "tests/agents/test_checkpoint.py::test_shipped_checkpoint_is_safe_and_plays_without_torch[classic-2p]",
                 "tests/agents/test_checkpoint.py::test_every_shipped_checkpoint_folder_is_checked"]
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
                              cwd=ROOT, capture_output=True, text=True, timeout=600)
    finally:
        shutil.rmtree(run)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "3 passed" in done.stdout


def test_an_unknown_pretrained_name_is_refused_naming_the_shipped_ones():
    with pytest.raises(ValueError, match="no pretrained agent 'classic-2p-layout0'; shipped: classic-2p, "):
        make_agent("pretrained:classic-2p-layout0", "classic", 2)  # the 0.2 agent, retired in 0.5.14


def test_pretrained_lists_rules_players_and_results_from_the_cards():
    listed = pretrained()
    assert [p.name for p in listed] == list(shipped.SHIPPED)
    for p in listed:
        card = repo_card(p.name)
        assert p.spec == f"pretrained:{p.name}"
        assert p.rules == card["rules"]["name"] and p.num_players == card["num_players"]
        assert set(p.results) == set(card["evaluation"])
        for opponent, result in p.results.items():
            assert result["win_rate"] == card["evaluation"][opponent]["win_rate"]
            assert result["games"] == card["evaluation"][opponent]["games"]


@pytest.mark.parametrize("name", shipped.SHIPPED)
def test_a_pretrained_agent_plays_as_its_checkpoint_does(name):
    """``pretrained:<name>`` is the policy of ``checkpoint:checkpoints/<name>``: same actions."""
    card = repo_card(name)
    rules, n = make_rules(card["rules"]["name"]), card["num_players"]
    engine = Engine(rules, n)
    for spec in (f"pretrained:{name}", f"checkpoint:{os.path.join(ROOT, 'checkpoints', name)}"):
        seats = [make_agent(spec, rules, n, seed=0)] + [make_agent("heuristic", rules, n, seed=s) for s in range(1, n)]
        record = play_game(engine, seats, np.random.default_rng(3), dealer=n - 1, record_actions=True)
        if spec.startswith("pretrained"):
            first = record.actions
        else:
            assert record.actions == first


def test_a_pretrained_agent_refuses_another_table_naming_the_difference():
    with pytest.raises(ValueError, match="num_players 2 \\(the env has 4\\)"):
        make_agent("pretrained:classic-2p", "classic", 4)
    with pytest.raises(ValueError, match="does not match the requested env: rules"):
        make_agent("pretrained:classic-2p", "house", 2)


def test_sample_suffix_samples_a_pretrained_policy_and_names_it():
    greedy = make_agent("pretrained:classic-2p", "classic", 2)
    sampled = make_agent("pretrained:classic-2p#sample", "classic", 2, seed=0)
    assert greedy.deterministic and not sampled.deterministic
    assert sampled.name == "pretrained:classic-2p#sample"
    assert parse_spec("pretrained:classic-2p#sample").checkpoint_dir() == shipped.pretrained_path("classic-2p")


def test_pretrained_without_a_name_is_refused():
    with pytest.raises(ValueError, match="needs a name: pretrained:<name>"):
        make_agent("pretrained", "classic", 2)


# ---------------------------------------------------------------------- the wheel
def _copy_tracked_tree(dest: str) -> None:
    """The files git tracks (links as links): what a release builds from, nothing the
    working tree holds besides (runs, other checkpoints, build folders)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        src, dst = os.path.join(ROOT, rel), os.path.join(dest, rel)
        if not os.path.lexists(src):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.islink(src):
            os.symlink(os.readlink(src), dst)
        else:
            with open(src, "rb") as fin, open(dst, "wb") as fout:
                fout.write(fin.read())


PLAY_EACH = """
import json, sys, uno_env
from uno_env.agents import pretrained
from uno_env.tools.evaluate import evaluate
out = {"file": uno_env.__file__, "path": sys.path, "played": {}}
for p in pretrained():
    r = evaluate([p.spec] + ["random"] * (p.num_players - 1), rules=p.rules, num_players=p.num_players,
                 games=p.num_players * 2, seed=0)
    out["played"][p.name] = [r["games"], r["truncated"], p.results["heuristic"]["win_rate"]]
print(json.dumps(out))
"""


@pytest.mark.slow
def test_the_wheel_carries_every_pretrained_agent_and_plays_them_without_the_repository(tmp_path):
    src, wheels, venv = tmp_path / "src", tmp_path / "wheels", tmp_path / "venv"
    _copy_tracked_tree(str(src))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "--disable-pip-version-check", "-w", str(wheels), str(src)], check=True, timeout=600)
    (wheel,) = wheels.iterdir()
    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    data = sorted(n for n in names if n.startswith("uno_env/pretrained/"))
    expected = []
    for name in shipped.SHIPPED:
        card = repo_card(name)
        expected += [f"uno_env/pretrained/{name}/card.json", f"uno_env/pretrained/{name}/{card['policy']['weights']}"]
    assert data == sorted(expected)
    assert not any("layout0" in n or n.startswith("checkpoints/") for n in names)

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=600)
    site = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # the runtime dependencies from this venv (numpy, gymnasium, ...): its site-packages on the
    # path, where uno_env itself is only an editable finder that a .pth file would start
    with open(os.path.join(site, "deps.pth"), "w") as fh:
        fh.write(sysconfig.get_path("purelib") + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-deps",
                    "-q", "--disable-pip-version-check", str(wheel)], check=True, timeout=600)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    out = subprocess.run([str(venv / "bin" / "python"), "-c", PLAY_EACH], cwd=str(tmp_path), env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["file"].startswith(site)
    assert not [p for p in result["path"] if os.path.realpath(os.path.join(tmp_path, p)) == os.path.realpath(ROOT)]
    assert sorted(result["played"]) == sorted(shipped.SHIPPED)
    for name, (games, truncated, vs_heuristic) in result["played"].items():
        card = repo_card(name)
        assert games == card["num_players"] * 2 and truncated == 0
        assert vs_heuristic == card["evaluation"]["heuristic"]["win_rate"]
