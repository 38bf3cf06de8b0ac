"""The pretrained agents shipped inside the package: the ``pretrained:<name>`` agent spec.

    from uno_env.agents import make_agent, pretrained
    for p in pretrained():                    # what is shipped, read from the cards
        print(p.name, p.rules, p.num_players, p.results)
    agent = make_agent("pretrained:classic-2p", "classic", 2)            # greedy
    agent = make_agent("pretrained:classic-2p#sample", "classic", 2, seed=0)

A pretrained agent is a checkpoint (:mod:`.checkpoint`: a JSON card and a safetensors weights
file, loaded without running code) that travels in the wheel as the package data of
``uno_env.pretrained``: one folder per agent, read through :mod:`importlib.resources`, so it
plays from an installed package with no repository around. In the source tree each folder
of ``uno_env/pretrained/`` is a link to the checkpoint in ``checkpoints/`` (where training
writes it and where ``checkpoint:checkpoints/<name>`` names it); the wheel holds the files
themselves (``card.json`` and the weights, not the learning curve or ``eval.csv``).

:data:`SHIPPED` is the list of what ships. Adding an agent: its name there, and its link,
``ln -s ../../checkpoints/<name> uno_env/pretrained/<name>`` (tests/agents/test_shipped.py
checks that the two agree, that every checkpoint in ``checkpoints/`` is listed and that every
card loads).

The card is checked against the rules and player count asked for, as ``checkpoint:<dir>``
does: ``pretrained:classic-2p`` plays the classic rules at 2 players and refuses anything
else with the differences named.
"""

from __future__ import annotations

import atexit
import contextlib
import os
from dataclasses import dataclass
from importlib import resources
from typing import Any

from uno_env.agents import checkpoint as ckpt
from uno_env.agents.base import Agent, parse_spec, register_agent
from uno_env.game.rules import Rules

# The agents the package ships, one line each (their folders: uno_env/pretrained/<name>).
SHIPPED = (
    "classic-2p",
    "classic-4p",
    "house-2p",
    "house-4p",
    "tmnt-2p",
)
DATA_PACKAGE = "uno_env.pretrained"
SPEC_PREFIX = "pretrained"

_EXTRACTED = contextlib.ExitStack()  # folders extracted from a zipped install, for the process
atexit.register(_EXTRACTED.close)


@dataclass(frozen=True)
class Pretrained:
    """A shipped agent as its card describes it."""

    name: str
    spec: str  # "pretrained:<name>"
    rules: str  # the card's rules preset name (its options: card["rules"])
    num_players: int
    results: dict[str, dict[str, Any]]  # opponent -> win_rate, ci95, games, lineup (the card's evaluation)
    total_steps: int | None
    path: str  # the folder it loads from
    card: dict[str, Any]


def pretrained_path(name: str) -> str:
    """The folder of the shipped agent ``name`` (``ValueError`` naming the shipped ones)."""
    if name not in SHIPPED:
        raise ValueError(f"no pretrained agent {name!r}; shipped: {', '.join(SHIPPED)} "
                         f"(checkpoint:<dir> plays a checkpoint of your own)")
    folder = resources.files(DATA_PACKAGE) / name
    if isinstance(folder, os.PathLike):
        path = os.fspath(folder)
    else:  # a zipped install (Python 3.12+ extracts a folder)
        path = os.fspath(_EXTRACTED.enter_context(resources.as_file(folder)))
    if not os.path.isdir(path):
        raise ckpt.CheckpointNotFoundError(f"pretrained agent {name!r} is listed but not installed "
                                           f"(no folder {path!r} in the package)")
    return path


def describe(name: str) -> Pretrained:
    """The :class:`Pretrained` of the shipped agent ``name``, from its validated card."""
    path = pretrained_path(name)
    card = ckpt.load_card(path)
    results = {opponent: {k: r[k] for k in ("win_rate", "ci95", "games", "lineup") if k in r}
               for opponent, r in (card.get("evaluation") or {}).items() if isinstance(r, dict)}
    return Pretrained(name, f"{SPEC_PREFIX}:{name}", card["rules"].get("name", "custom"),
                      card["num_players"], results, card.get("total_steps"), path, card)


def pretrained() -> list[Pretrained]:
    """Every shipped agent, in :data:`SHIPPED` order."""
    return [describe(name) for name in SHIPPED]


def _make_pretrained_agent(spec: str, rules: Rules, num_players: int, seed: int | None) -> Agent:
    from uno_env.agents.policy import CheckpointAgent

    parsed = parse_spec(spec)
    return CheckpointAgent(parsed.checkpoint_dir(), rules, num_players, seed, not parsed.sample,
                           name=f"{SPEC_PREFIX}:{parsed.argument}")


register_agent(SPEC_PREFIX, _make_pretrained_agent, checkpoint_dir=pretrained_path)
