"""The layers of ``uno_env`` import only what they may (every module parsed with ``ast``).

=========  ===========================================================================
layer      may import
=========  ===========================================================================
game       the standard library, numpy, yaml, ``uno_env.game`` and the ``uno_env._*``
           utilities (the bounded file readers of ``_files``); numba in
           ``uno_env.game.batched`` only (the batched engine's compiled kernels)
agents     game, agents, the ``uno_env._*`` utilities, numpy; safetensors only inside
           functions (what plays a checkpoint needs neither torch nor Stable-Baselines3)
envs       game, agents, envs, the utilities, numpy, gymnasium, pettingzoo
tools      game, agents, envs, tools, the utilities, any third-party package but the
           learning libraries (torch, stable_baselines3, sb3_contrib)
learn      game, agents, envs, tools, learn, the utilities, any third-party package (the
           learning layer: training configs, run folders, imitation, the SB3 side)
integrations  game, agents, envs, tools, learn, integrations, the utilities, any third-party
           package (adapters to other libraries' stacks, e.g. RLlib: importable only where that
           library is)
root       ``uno_env/__init__.py`` and ``uno_env/registration.py`` (the envs' ids): anything
           in ``uno_env``, gymnasium, pettingzoo; the utilities ``uno_env/_*.py``: the
           standard library
=========  ===========================================================================

The package itself (``import uno_env``, e.g. for ``__version__``) is the top of the tree:
tools, learn and integrations may import it anywhere, agents and envs only inside functions,
game never. Nothing
in ``uno_env`` imports ``training`` (the scripts above the package), and nothing outside
``uno_env.integrations`` imports it (so ``import uno_env`` never needs ray).

**The battle-card games** (``uno_env.battle``) have the same layers inside, each importing
the battle layers below it and the UNO layers of its level (``battle.game``: the UNO game
layer's pure helpers; ``battle.agents``: UNO's ``Agent`` and arena record; ...):

==============  ===========================================================================
layer           may import
==============  ===========================================================================
battle.game     battle.game, game, the utilities; the standard library, numpy, yaml
battle.agents   battle.game, battle.agents, game, agents, the utilities; numpy
battle.envs     battle.game, battle.agents, battle.envs, game, agents, envs, the utilities;
                numpy, gymnasium, pettingzoo
battle.tools    every battle layer, game, agents, envs, tools, the utilities, the package;
                any third-party package
battle.root     ``uno_env/battle/__init__.py`` (registration with string entry points):
                nothing of uno_env; pettingzoo
==============  ===========================================================================

Nothing in the UNO product imports ``uno_env.battle`` but the registration (``root`` may
import ``battle.root``) and the shared tools (``tools`` may import ``battle.root`` and
``battle.tools``: ``uno-evaluate --game``).
"""

from __future__ import annotations

import ast
import os
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "uno_env"
LAYERS = ("game", "agents", "envs", "tools", "learn", "integrations")
# uno_env layers each layer may import (besides the utilities uno_env._*)
MAY_IMPORT = {
    "game": {"game", "utilities"},
    "agents": {"game", "agents", "utilities"},
    "envs": {"game", "agents", "envs", "utilities"},
    "tools": {"game", "agents", "envs", "tools", "utilities", "package"},
    "learn": {"game", "agents", "envs", "tools", "learn", "utilities", "package"},
    "integrations": {"game", "agents", "envs", "tools", "learn", "integrations", "utilities", "package"},
    "root": {"game", "agents", "envs", "tools", "utilities", "package", "root"},
    "utilities": {"utilities"},
}
# layers that may import the package itself inside functions only
PACKAGE_LAZILY = {"agents", "envs"}
ANY = None  # any third-party package
LEARNING_LIBRARIES = {"torch", "stable_baselines3", "sb3_contrib"}  # the learn layer's and above
THIRD_PARTY = {
    "game": {"numpy", "yaml"},
    "agents": {"numpy"},
    "envs": {"numpy", "gymnasium", "pettingzoo"},
    "tools": ANY,  # but LEARNING_LIBRARIES
    "learn": ANY,
    "integrations": ANY,
    "root": {"gymnasium", "pettingzoo"},
    "utilities": set(),
}
THIRD_PARTY_LAZILY = {"agents": {"safetensors"}}
NOT_THIRD_PARTY = {"tools": LEARNING_LIBRARIES, "battle.tools": LEARNING_LIBRARIES}
# subpackages that may import more than their layer
SUBPACKAGE_THIRD_PARTY = {"uno_env.game.batched": {"numba"}}

BATTLE = "battle"  # uno_env.battle: the battle-card games, with layers of its own
BATTLE_LAYERS = ("game", "agents", "envs", "tools")
MAY_IMPORT.update({
    "battle.game": {"battle.game", "game", "utilities"},
    "battle.agents": {"battle.game", "battle.agents", "game", "agents", "utilities"},
    "battle.envs": {"battle.game", "battle.agents", "battle.envs", "game", "agents", "envs", "utilities"},
    "battle.tools": {"battle.game", "battle.agents", "battle.envs", "battle.tools", "battle.root", "game", "agents",
                     "envs", "tools", "utilities", "package"},
    "battle.root": set(),
})
MAY_IMPORT["root"] = MAY_IMPORT["root"] | {"battle.root"}  # the registration
MAY_IMPORT["tools"] = MAY_IMPORT["tools"] | {"battle.root", "battle.tools"}  # the shared tools
THIRD_PARTY.update({"battle.game": {"numpy", "yaml"}, "battle.agents": {"numpy"},
                    "battle.envs": {"numpy", "gymnasium", "pettingzoo"}, "battle.tools": ANY,
                    "battle.root": {"pettingzoo"}})


def module_name(root: str, path: str) -> str:
    rel = os.path.relpath(path, root)[:-len(".py")].split(os.sep)
    if rel[-1] == "__init__":
        rel = rel[:-1]
    return ".".join(rel)


def layer_of(module: str) -> str:
    """``game``/``agents``/``envs``/``tools``, ``package`` (``uno_env`` itself), ``utilities``
    (``uno_env._name``) or ``root`` (other top-level modules)."""
    parts = module.split(".")
    if parts == [PACKAGE]:
        return "package"
    if parts[1] == BATTLE:
        return f"battle.{parts[2]}" if len(parts) > 2 and parts[2] in BATTLE_LAYERS else "battle.root"
    if parts[1] in LAYERS:
        return parts[1]
    return "utilities" if parts[1].startswith("_") else "root"


def imports_of(tree: ast.Module, module: str, is_package: bool, root: str):
    """Yield (line, imported module, inside a function) for every import in ``tree``;
    ``from X import name`` yields ``X.name`` when that is a module of the package."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, lazy = stack.pop()
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield child.lineno, alias.name, lazy
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:  # relative: from the module's package
                    pkg = module.split(".") if is_package else module.split(".")[:-1]
                    pkg = pkg[:len(pkg) - (child.level - 1)]
                    base = ".".join(pkg + ([base] if base else []))
                for alias in child.names:
                    sub = f"{base}.{alias.name}"
                    path = os.path.join(root, *sub.split("."))
                    is_module = os.path.isfile(path + ".py") or os.path.isdir(path)
                    yield child.lineno, sub if is_module else base, lazy
            stack.append((child, inner))


def package_imports(root: str = ROOT):
    """Yield (relative path, module, line, imported module, inside a function) for every
    import of every module in ``root/uno_env``."""
    for folder, _, files in sorted(os.walk(os.path.join(root, PACKAGE))):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            module = module_name(root, path)
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
            rel = os.path.relpath(path, root)
            for line, target, lazy in imports_of(tree, module, name == "__init__.py", root):
                yield rel, module, line, target, lazy


def layer_violations(root: str = ROOT) -> list[str]:
    """Every import in ``root/uno_env`` that its layer may not make, one line each."""
    out = []
    stdlib = sys.stdlib_module_names
    for rel, module, line, target, lazy in package_imports(root):
        layer = layer_of(module)
        if layer == "package":
            layer = "root"
        top = target.split(".")[0]
        where = f"{rel}:{line}: {module} imports {target}"
        if top == "training":
            out.append(f"{where} (nothing in uno_env imports the training scripts)")
        elif top == PACKAGE:
            target_layer = layer_of(target)
            allowed = MAY_IMPORT[layer] | ({"package"} if lazy and layer in PACKAGE_LAZILY else set())
            if target_layer not in allowed:
                shown = sorted(x for x in MAY_IMPORT[layer] if x in LAYERS or x.startswith("battle."))
                if not MAY_IMPORT[layer]:
                    out.append(f"{where} ({layer} may import nothing of {PACKAGE})")
                    continue
                out.append(f"{where} ({layer} may import only {', '.join(shown)}"
                           + (", the utilities" if "utilities" in MAY_IMPORT[layer] else "")
                           + (", the package inside functions" if layer in PACKAGE_LAZILY else "") + ")")
        elif top in stdlib or top == "__future__":
            continue
        else:
            allowed = THIRD_PARTY[layer]
            if top in NOT_THIRD_PARTY.get(layer, ()):
                out.append(f"{where} ({layer} may not import {top}: learning is uno_env.learn's)")
                continue
            if allowed is ANY or top in allowed:
                continue
            if any(top in extra for sub, extra in SUBPACKAGE_THIRD_PARTY.items()
                   if module == sub or module.startswith(sub + ".")):
                continue
            if lazy and top in THIRD_PARTY_LAZILY.get(layer, ()):
                continue
            if top in THIRD_PARTY_LAZILY.get(layer, ()):
                out.append(f"{where} ({top} only inside functions in {layer})")
            else:
                out.append(f"{where} ({layer} may not import {top})")
    return out


def import_graph(root: str = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of the package it imports, at the top or inside a function (an
    import of a name from a package is an import of that package's ``__init__``; a module's
    parent packages, which Python runs first, are not edges)."""
    graph: dict[str, set[str]] = {}
    for _, module, _, target, _ in package_imports(root):
        graph.setdefault(module, set())
        parts = target.split(".")
        if parts[0] != PACKAGE:
            continue
        while parts and not (os.path.isfile(os.path.join(root, *parts) + ".py")
                             or os.path.isdir(os.path.join(root, *parts))):
            parts = parts[:-1]  # ``import uno_env.x.name`` of a name that is not a module
        if parts and ".".join(parts) != module:
            graph[module].add(".".join(parts))
    return graph


def import_cycles(root: str = ROOT) -> list[str]:
    """One line per group of modules that import each other (a strongly connected component
    of :func:`import_graph`), showing one cycle through its first module: ``a -> b -> a``."""
    graph = import_graph(root)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for group in sorted(groups):
        start, members = group[0], set(group)
        path, seen = [start], {start}
        while True:  # walk inside the group until the path closes at its start
            nxt = sorted(w for w in graph[path[-1]] if w in members)
            if start in nxt:
                break
            step = next((w for w in nxt if w not in seen), None) or nxt[0]
            if step in seen:  # closes elsewhere: show that cycle
                path = path[path.index(step):]
                start = step
                break
            path.append(step)
            seen.add(step)
        out.append(" -> ".join(path + [start]))
    return out


def test_every_module_imports_only_what_its_layer_may():
    violations = layer_violations()
    assert not violations, "layering violations:\n" + "\n".join(violations)


def test_no_modules_import_each_other():
    cycles = import_cycles()
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_an_injected_import_cycle_is_named(tmp_path):
    """Three modules that import each other in a ring (one of them inside a function) are one
    cycle; the parent package a module runs first (here ``uno_env.game``, whose ``__init__``
    imports ``cards``) is not an import of that module."""
    game = tmp_path / PACKAGE / "game"
    game.mkdir(parents=True)
    (tmp_path / PACKAGE / "__init__.py").write_text("")
    (game / "__init__.py").write_text("from uno_env.game.cards import NUM_KINDS\n")
    (game / "cards.py").write_text("import numpy\nfrom uno_env.game import rules\n")
    (game / "rules.py").write_text("from . import engine\n")
    (game / "engine.py").write_text("def f():\n    from uno_env.game.cards import NUM_KINDS\n")
    assert import_cycles(str(tmp_path)) == [
        "uno_env.game.cards -> uno_env.game.rules -> uno_env.game.engine -> uno_env.game.cards"]
    (game / "engine.py").write_text("import uno_env\n")
    assert import_cycles(str(tmp_path)) == []


def test_every_module_of_the_package_is_checked():
    names = {module_name(ROOT, os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(ROOT, PACKAGE))
             for f in fs if f.endswith(".py")}
    assert {"uno_env", "uno_env.game.engine", "uno_env.agents.heuristic", "uno_env.envs.aec_env",
            "uno_env.tools.evaluate", "uno_env.learn.configs", "uno_env.learn.sb3.policy"} <= names
    assert {layer_of(m) for m in names if m.startswith("uno_env.learn")} == {"learn"}


BAD = {
    "game/cards.py": "import gymnasium\n",
    "game/rules.py": "from uno_env.agents import bots\n",
    "agents/bots.py": "import torch\nfrom uno_env.envs import aec_env\n",
    "agents/view.py": "def f():\n    import torch\n    import uno_env\n    from ..tools import play\n",
    "envs/aec_env.py": "from uno_env.tools.evaluate import evaluate\nimport torch\n",
    "tools/play.py": "import torch\nfrom training import train\n",
    "tools/report.py": "from uno_env.integrations import rllib\n",
    "tools/stats.py": "from uno_env.learn import sb3\ndef f():\n    import sb3_contrib\n",
    "agents/policy.py": "from uno_env.learn import sb3\n",
    "learn/sb3.py": "import torch\nfrom uno_env.tools.evaluate import evaluate\nfrom uno_env.integrations import rllib\n",
    "integrations/rllib.py": "import ray\nfrom uno_env.tools.evaluate import evaluate\nfrom uno_env.learn import sb3\n"
                             "from training import train\n",
}


@pytest.mark.parametrize("relative,expected", [
    ("game/cards.py", ["uno_env/game/cards.py:1: uno_env.game.cards imports gymnasium (game may not import gymnasium)"]),
    ("game/rules.py", ["uno_env/game/rules.py:1: uno_env.game.rules imports uno_env.agents.bots (game may import only game, the utilities)"]),
    ("agents/bots.py", ["uno_env/agents/bots.py:1: uno_env.agents.bots imports torch (agents may not import torch)",
                        "uno_env/agents/bots.py:2: uno_env.agents.bots imports uno_env.envs.aec_env (agents may import "
                        "only agents, game, the utilities, the package inside functions)"]),
    ("agents/view.py", ["uno_env/agents/view.py:2: uno_env.agents.view imports torch (agents may not import torch)",
                        "uno_env/agents/view.py:4: uno_env.agents.view imports uno_env.tools.play (agents may import "
                        "only agents, game, the utilities, the package inside functions)"]),
    ("agents/policy.py", ["uno_env/agents/policy.py:1: uno_env.agents.policy imports uno_env.learn.sb3 (agents may "
                          "import only agents, game, the utilities, the package inside functions)"]),
    ("envs/aec_env.py", ["uno_env/envs/aec_env.py:1: uno_env.envs.aec_env imports uno_env.tools.evaluate (envs may "
                         "import only agents, envs, game, the utilities, the package inside functions)",
                         "uno_env/envs/aec_env.py:2: uno_env.envs.aec_env imports torch (envs may not import torch)"]),
    ("tools/play.py", ["uno_env/tools/play.py:1: uno_env.tools.play imports torch (tools may not import torch: "
                       "learning is uno_env.learn's)",
                       "uno_env/tools/play.py:2: uno_env.tools.play imports training (nothing in uno_env "
                       "imports the training scripts)"]),
    ("tools/report.py", ["uno_env/tools/report.py:1: uno_env.tools.report imports uno_env.integrations.rllib "
                         "(tools may import only agents, battle.root, battle.tools, envs, game, tools, the utilities)"]),
    ("tools/stats.py", ["uno_env/tools/stats.py:1: uno_env.tools.stats imports uno_env.learn.sb3 "
                        "(tools may import only agents, battle.root, battle.tools, envs, game, tools, the utilities)",
                        "uno_env/tools/stats.py:3: uno_env.tools.stats imports sb3_contrib (tools may not import "
                        "sb3_contrib: learning is uno_env.learn's)"]),
    ("learn/sb3.py", ["uno_env/learn/sb3.py:3: uno_env.learn.sb3 imports uno_env.integrations.rllib (learn may "
                      "import only agents, envs, game, learn, tools, the utilities)"]),
    ("integrations/rllib.py", ["uno_env/integrations/rllib.py:4: uno_env.integrations.rllib imports training "
                               "(nothing in uno_env imports the training scripts)"]),
])
def test_an_injected_bad_import_is_named(tmp_path, relative, expected):
    """The check run on a small package with one bad module names its module, line and import."""
    for layer in LAYERS:
        (tmp_path / PACKAGE / layer).mkdir(parents=True)
        (tmp_path / PACKAGE / layer / "__init__.py").write_text("")
    (tmp_path / PACKAGE / "__init__.py").write_text("from uno_env.envs import aec_env\n")
    for rel in BAD:
        (tmp_path / PACKAGE / rel).write_text("import numpy\n")
    (tmp_path / PACKAGE / "tools" / "evaluate.py").write_text("")
    (tmp_path / PACKAGE / relative).write_text(textwrap.dedent(BAD[relative]))
    assert layer_violations(str(tmp_path)) == expected


BATTLE_BAD = {
    "battle/game/cards.py": "from uno_env.battle.envs import aec_env\n",
    "battle/game/rules.py": "import gymnasium\nfrom uno_env.agents import base\n",
    "battle/agents/bots.py": "from uno_env.battle.tools import evaluate\n",
    "battle/envs/aec_env.py": "from uno_env.tools import play\nimport torch\n",
    "battle/__init__.py": "from uno_env.battle.game import cards\n",
    "game/rules.py": "from uno_env.battle.game import cards\n",
    "envs/aec_env.py": "from uno_env.battle.envs import aec_env\n",
    "tools/play.py": "from uno_env.battle.game import cards\nfrom uno_env.battle.tools import play\n",
}


@pytest.mark.parametrize("relative,expected", [
    ("battle/game/cards.py", ["uno_env/battle/game/cards.py:1: uno_env.battle.game.cards imports "
                              "uno_env.battle.envs.aec_env (battle.game may import only battle.game, game, the utilities)"]),
    ("battle/game/rules.py", ["uno_env/battle/game/rules.py:1: uno_env.battle.game.rules imports gymnasium "
                              "(battle.game may not import gymnasium)",
                              "uno_env/battle/game/rules.py:2: uno_env.battle.game.rules imports uno_env.agents.base "
                              "(battle.game may import only battle.game, game, the utilities)"]),
    ("battle/agents/bots.py", ["uno_env/battle/agents/bots.py:1: uno_env.battle.agents.bots imports "
                               "uno_env.battle.tools.evaluate (battle.agents may import only agents, battle.agents, "
                               "battle.game, game, the utilities)"]),
    ("battle/envs/aec_env.py", ["uno_env/battle/envs/aec_env.py:1: uno_env.battle.envs.aec_env imports "
                                "uno_env.tools.play (battle.envs may import only agents, battle.agents, battle.envs, "
                                "battle.game, envs, game, the utilities)",
                                "uno_env/battle/envs/aec_env.py:2: uno_env.battle.envs.aec_env imports torch "
                                "(battle.envs may not import torch)"]),
    ("battle/__init__.py", ["uno_env/battle/__init__.py:1: uno_env.battle imports uno_env.battle.game.cards "
                            "(battle.root may import nothing of uno_env)"]),
    ("game/rules.py", ["uno_env/game/rules.py:1: uno_env.game.rules imports uno_env.battle.game.cards "
                       "(game may import only game, the utilities)"]),
    ("envs/aec_env.py", ["uno_env/envs/aec_env.py:1: uno_env.envs.aec_env imports uno_env.battle.envs.aec_env "
                         "(envs may import only agents, envs, game, the utilities, the package inside functions)"]),
    ("tools/play.py", ["uno_env/tools/play.py:1: uno_env.tools.play imports uno_env.battle.game.cards (tools may "
                       "import only agents, battle.root, battle.tools, envs, game, tools, the utilities)"]),
])
def test_an_injected_bad_import_of_the_battle_games_is_named(tmp_path, relative, expected):
    """Inside uno_env.battle the layers are checked too, and the UNO product may import the
    battle games only from its registration and its shared tools."""
    for layer in LAYERS:
        (tmp_path / PACKAGE / layer).mkdir(parents=True)
        (tmp_path / PACKAGE / layer / "__init__.py").write_text("")
    for layer in BATTLE_LAYERS:
        (tmp_path / PACKAGE / BATTLE / layer).mkdir(parents=True)
        (tmp_path / PACKAGE / BATTLE / layer / "__init__.py").write_text("")
    (tmp_path / PACKAGE / "__init__.py").write_text("from uno_env.battle import register_envs\n")
    (tmp_path / PACKAGE / BATTLE / "__init__.py").write_text("import pettingzoo\n")
    for rel in BATTLE_BAD:
        if not rel.endswith("__init__.py"):
            (tmp_path / PACKAGE / rel).write_text("import numpy\n")
    for name in ("envs/aec_env.py", "tools/play.py", "tools/evaluate.py", "game/cards.py", "agents/base.py",
                 "battle/envs/aec_env.py", "battle/tools/evaluate.py", "battle/tools/play.py", "battle/game/cards.py"):
        if not (tmp_path / PACKAGE / name).exists():
            (tmp_path / PACKAGE / name).write_text("")
    (tmp_path / PACKAGE / relative).write_text(textwrap.dedent(BATTLE_BAD[relative]))
    assert layer_violations(str(tmp_path)) == expected


def test_the_battle_games_are_checked_layer_by_layer():
    names = {module_name(ROOT, os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(ROOT, PACKAGE, BATTLE))
             for f in fs if f.endswith(".py")}
    assert {"uno_env.battle", "uno_env.battle.game.base",
            "uno_env.battle.agents.bots", "uno_env.battle.envs.aec_env", "uno_env.battle.tools.evaluate"} <= names
    assert {layer_of(m) for m in names} == {"battle.root", "battle.game", "battle.agents", "battle.envs",
                                            "battle.tools"}


# A program that imports uno_env with Gymnasium and PettingZoo refused by a meta-path finder, as
# if they were not installed: the game layer, the agents and the package itself import and a
# game plays; only the envs need them, and the package imports none of them eagerly.
WITHOUT_ENV_LIBRARIES = r"""
import importlib, importlib.abc, pkgutil, sys

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("gymnasium", "pettingzoo"):
            raise ModuleNotFoundError(f"No module named {name!r} (refused by the test)", name=name)
        return None

sys.meta_path.insert(0, Refuse())
import numpy as np
import uno_env.game.engine
import uno_env.game
for info in pkgutil.iter_modules(uno_env.game.__path__, "uno_env.game."):
    if info.name != "uno_env.game.batched":  # numba, optional: tested elsewhere
        importlib.import_module(info.name)
from uno_env.agents import make_agent
from uno_env.agents.arena import play_game
from uno_env.game.rules import make_rules

rules = make_rules("classic")
engine = uno_env.game.engine.Engine(rules, 3)
seats = [make_agent(spec, rules, 3, seed=i) for i, spec in enumerate(["heuristic", "random", "search:simulations=4"])]
record = play_game(engine, seats, np.random.default_rng(0))
assert record.winner in (0, 1, 2), record
import uno_env
assert uno_env.make_rules("tmnt").name == "tmnt"
assert not {"gymnasium", "pettingzoo", "uno_env.envs"} & set(sys.modules), sorted(sys.modules)
try:
    uno_env.env
except ModuleNotFoundError as e:
    assert e.name in ("gymnasium", "pettingzoo"), e
else:
    raise AssertionError("uno_env.env without pettingzoo")
print("played")
"""


def test_the_game_layer_and_the_agents_work_without_gymnasium_or_pettingzoo():
    import subprocess

    done = subprocess.run([sys.executable, "-c", WITHOUT_ENV_LIBRARIES], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "played", done.stderr[-3000:]


def test_importing_the_package_imports_no_env_and_registers_the_ids():
    import subprocess

    code = ("import sys, uno_env; assert not [m for m in sys.modules if m.startswith('uno_env.envs')], 'envs'; "
            "import gymnasium, pettingzoo; from uno_env import registration as r; "
            "assert r.GYMNASIUM_ID in gymnasium.registry; "
            "assert not hasattr(pettingzoo, 'register') or r.PETTINGZOO_ID in pettingzoo.aec_registry; "
            "assert uno_env.env.__module__ == 'uno_env.envs.aec_env'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
