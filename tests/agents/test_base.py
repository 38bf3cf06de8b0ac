"""Agent specs (``uno_env.agents.base``): one parser for every tool (``kind[:argument][#sample]``,
``key=value`` options) and a user's own agent class named by ``module:<package.module>:<Class>``,
built wherever a spec is taken from the user (evaluation and its worker processes, the
Gymnasium opponents, training configs)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from uno_env.agents import AgentSpec, make_agent, parse_spec
from uno_env.envs.gym_env import UnoGymEnv
from uno_env.tools.evaluate import evaluate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
USER_BOTS = """
import numpy as np
from uno_env.agents import Agent

class LastLegal(Agent):
    name = "last-legal"

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[-1])

class Unnamed(LastLegal):
    name = Agent.name

class NotAnAgent:
    pass
"""


@pytest.fixture
def user_bots(tmp_path, monkeypatch):
    """A module of the user's own, importable as ``my_uno_bots`` (as an installed package is)."""
    (tmp_path / "my_uno_bots.py").write_text(textwrap.dedent(USER_BOTS))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "my_uno_bots", raising=False)
    return tmp_path


@pytest.mark.parametrize("text,parsed", [
    ("heuristic", AgentSpec("heuristic", "heuristic", "", False)),
    ("search:simulations=4,z=1", AgentSpec("search:simulations=4,z=1", "search", "simulations=4,z=1", False)),
    ("checkpoint:a/b:c#sample", AgentSpec("checkpoint:a/b:c#sample", "checkpoint", "a/b:c", True)),
    ("pretrained:classic-2p", AgentSpec("pretrained:classic-2p", "pretrained", "classic-2p", False)),
    ("module:pkg.mod:Bot", AgentSpec("module:pkg.mod:Bot", "module", "pkg.mod:Bot", False)),
])
def test_a_spec_reads_as_kind_argument_and_sample(text, parsed):
    assert parse_spec(text) == parsed


def test_only_policy_kinds_are_policies_and_only_module_runs_code():
    assert [parse_spec(s).is_policy for s in ("random", "heuristic", "checkpoint:x", "pretrained:x", "module:a:B")] \
        == [False, False, True, True, False]
    assert [parse_spec(s).runs_code for s in ("random", "checkpoint:x", "module:a:B")] == [False, False, True]


@pytest.mark.parametrize("text,words", [
    ("nobody", "unknown agent spec 'nobody'"),
    ("heuristic#sample", "#sample samples a policy .*heuristic does not sample"),
    ("module:a:B#sample", "module does not sample"),
    ("checkpoint", "needs a path: checkpoint:<dir>"),
    ("checkpoint:#sample", "needs a path"),
    ("pretrained", "needs a name: pretrained:<name>"),
])
def test_a_bad_spec_is_a_value_error_naming_it(text, words):
    with pytest.raises(ValueError, match=words):
        parse_spec(text)


def test_options_are_key_value_pairs_and_a_missing_value_or_repeated_key_is_named():
    assert parse_spec("search: simulations = 4 ,, z=1").options() == {"simulations": "4", "z": "1"}
    with pytest.raises(ValueError, match="search option 'z' has no value"):
        parse_spec("search:z").options("search option")
    with pytest.raises(ValueError, match="'z' is given twice"):
        parse_spec("search:z=1,z=2").options()


def test_a_module_spec_builds_the_users_agent_class(user_bots):
    agent = make_agent("module:my_uno_bots:LastLegal", "classic", 2, seed=3)
    assert type(agent).__name__ == "LastLegal" and agent.name == "last-legal" and agent.num_players == 2
    assert make_agent("module:my_uno_bots:Unnamed", "classic", 2).name == "module:my_uno_bots:Unnamed"


@pytest.mark.parametrize("spec,words", [
    ("module:my_uno_bots", "needs a module and a class: module:<package.module>:<Class>"),
    ("module:my_uno_bots:Missing", "module 'my_uno_bots' has no 'Missing'"),
    ("module:my_uno_bots:NotAnAgent", "is not an Agent subclass"),
    ("module:no_such_module_here:Bot", "no module 'no_such_module_here' .*importable"),
])
def test_a_module_spec_that_names_no_agent_class_is_a_value_error(user_bots, spec, words):
    with pytest.raises(ValueError, match=words):
        make_agent(spec, "classic", 2)


def test_a_module_whose_own_import_fails_shows_its_error(user_bots):
    (user_bots / "broken_uno_bots.py").write_text("import a_dependency_nobody_installed\n")
    with pytest.raises(ModuleNotFoundError, match="a_dependency_nobody_installed"):
        make_agent("module:broken_uno_bots:Bot", "classic", 2)


def test_worker_processes_import_the_users_module(user_bots):
    """Spawned workers (nothing inherited but the path) build it too, and play the same games."""
    lineup = ["module:my_uno_bots:LastLegal", "random"]
    one = evaluate(lineup, games=8, seed=5, workers=1)
    two = evaluate(lineup, games=8, seed=5, workers=2, mp_context="spawn")
    assert one["agents"][0]["wins"] == two["agents"][0]["wins"]
    assert one["agents"][0]["spec"] == "module:my_uno_bots:LastLegal"


def test_a_module_agent_is_a_gymnasium_opponent(user_bots):
    env = UnoGymEnv(rules="classic", num_players=2, opponents="module:my_uno_bots:LastLegal")
    env.reset(seed=0)
    assert type(env.opponents[0]).__name__ == "LastLegal"


def test_uno_evaluate_plays_a_module_agent_from_its_command_line(user_bots):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(user_bots), ROOT]))
    out = subprocess.run([sys.executable, "-m", "uno_env.tools.evaluate_cli", "--agents", "module:my_uno_bots:LastLegal",
                          "random", "--games", "4", "--no-progress", "--quiet", "--out", str(user_bots / "out")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    result = json.loads((user_bots / "out" / "evaluation.json").read_text())
    assert [a["spec"] for a in result["agents"]] == ["module:my_uno_bots:LastLegal", "random"]
