"""Readable playthroughs of seeded games, and the golden files that pin the rules down.

    python -m uno_env.tools.playthrough --rules classic --num-players 3 --seed 7
    python -m uno_env.tools.playthrough --rules house --set uno_call=explicit --num-players 4 --seed 1 --max-decisions 60
    python -m uno_env.tools.playthrough --agents heuristic random --seed 3     # bots instead of the seeded player
    python -m uno_env.tools.playthrough --regen      # rewrite tests/golden/*.txt (review with git diff)
    python -m uno_env.tools.playthrough --check      # compare them; exit 1 at the first differing line

A playthrough (OpenSpiel's "playthrough" files, for UNO) is plain text: a header (rules,
players, seed, dealer, policy), the public events of the deal, then one block per decision::

    [12] player_1  turn
      view   phase turn  top red-5  colour red  pending none  direction clockwise
             my hand (6): red-3 yellow-7 ...
             +1: 7 cards
             rules: RuleFlags(official)  players 2
      legal  play red-3, play wild red, play wild yellow, play wild green, play wild blue, draw
      action play red-3
      -> player_1 plays red-3

``view`` is the acting player's observation decoded by :func:`uno_env.agents.view.decode`
(what that player knows, nothing more); ``legal`` names its legal actions; the ``->`` lines
are the public events that followed (:mod:`uno_env.game.events`; never a drawn card, never a
window answer before the window closes). The last line says how the game ended: over
(winner and ``Engine.returns``), truncated, or stopped at the decision cap.

**The seeded player** (the default, and the player of the golden files) decides from the
legal actions and one ``random.Random(seed)`` for the whole table: ``uno`` with probability
1/2 when legal; else a uniformly random playable card (wild colours included) with
probability 3/4 when one is legal; else a uniformly random legal action. It needs no agent
code, so a golden file changes only when the rules, the events, the observation or its
summary change. ``--agents SPEC ...`` seats agents instead (``random``, ``heuristic``,
``checkpoint:<path>``; one per seat), each seeded ``seed + 1 + seat``.

**Golden files.** :data:`GOLDEN` lists the games of ``tests/golden/``: for each preset
(``classic``, ``tmnt``, ``house``), its explicit-UNO variant and the everything-on
variant (house + explicit UNO + Team Attack), a 2-player and a 3- or 4-player game, the
first :data:`GOLDEN_DECISIONS` decisions. Their seeds were picked once from 0-299: each game
ends within the cap and shows the most kinds of events and phases. ``tests/tools/test_golden.py`` compares them line
by line; after an intended change of the rules or the text, regenerate them with
``--regen`` and review the diff.

Exit codes: 0 done (``--check``: every file matches), 1 ``--check`` found a difference,
2 bad arguments.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import textwrap
from typing import Any, NamedTuple, Sequence

import numpy as np

from uno_env import _files
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import PHASE_NAMES, Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import Rules, make_rules
from uno_env.agents.view import decode
from uno_env.tools.narrate import Narrator

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          "tests", "golden")
GOLDEN_DECISIONS = 150
MAX_GOLDEN_BYTES = 4 << 20  # one golden file (the largest: ~75 KB)
REGEN_COMMAND = "python -m uno_env.tools.playthrough --regen"
WIDTH = 100  # legal-action lines are wrapped at this width
EXPLICIT = {"uno_call": "explicit"}
EVERYTHING = {"uno_call": "explicit", "count_team_attack": 4}  # on top of house: every option on


class Golden(NamedTuple):
    """One golden game: ``tests/golden/<name>.txt``."""

    name: str
    preset: str
    overrides: dict
    players: int
    seed: int


GOLDEN: tuple[Golden, ...] = (
    Golden("classic-2p", "classic", {}, 2, 262),
    Golden("classic-4p", "classic", {}, 4, 44),
    Golden("tmnt-2p", "tmnt", {}, 2, 43),
    Golden("tmnt-3p", "tmnt", {}, 3, 68),
    Golden("house-2p", "house", {}, 2, 90),
    Golden("house-4p", "house", {}, 4, 14),
    Golden("classic-explicit-2p", "classic", EXPLICIT, 2, 93),
    Golden("classic-explicit-3p", "classic", EXPLICIT, 3, 147),
    Golden("tmnt-explicit-2p", "tmnt", EXPLICIT, 2, 43),
    Golden("tmnt-explicit-4p", "tmnt", EXPLICIT, 4, 215),
    Golden("house-explicit-2p", "house", EXPLICIT, 2, 263),
    Golden("house-explicit-3p", "house", EXPLICIT, 3, 147),
    Golden("everything-2p", "house", EVERYTHING, 2, 260),
    Golden("everything-4p", "house", EVERYTHING, 4, 77),
)


def seeded_choice(rng: random.Random, legal: Sequence[int]) -> int:
    """The seeded player's action (see the module docstring)."""
    if A.UNO in legal and rng.random() < 0.5:
        return A.UNO
    plays = [a for a in legal if a < A.DRAW]
    if plays and rng.random() < 0.75:
        return plays[rng.randrange(len(plays))]
    return legal[rng.randrange(len(legal))]


def _rule_changes(rules: Rules, preset: str) -> str:
    """The options of ``rules`` that differ from ``preset`` (``none`` if it is the preset)."""
    try:
        base = make_rules(preset).to_dict()
    except ValueError:  # a YAML file: compare with the official rules
        base = Rules().to_dict()
    mine = rules.to_dict()
    diff = [f"{k}={mine[k]}" for k in mine if k != "name" and mine[k] != base.get(k)]
    return ", ".join(diff) or "none"


def playthrough(rules: Rules | str, players: int, seed: int, max_decisions: int = GOLDEN_DECISIONS,
                agents: Sequence[str] | None = None, preset: str | None = None) -> list[str]:
    """The text lines of the playthrough of game ``seed`` (see the module docstring).

    The engine's RNG is ``numpy.random.default_rng(seed)`` (shuffle and dealer, as
    ``raw_env.reset(seed=seed)``); the seeded player's is ``random.Random(seed)``.
    """
    rules = make_rules(rules)
    if max_decisions < 1:
        raise ValueError(f"max_decisions must be >= 1, got {max_decisions}")
    engine = Engine(rules, players, record_events=True)
    if agents is not None and len(agents) != players:
        raise ValueError(f"{len(agents)} agents for {players} players: give one spec per seat")
    seats = None
    if agents is not None:
        from uno_env.agents import make_agent

        seats = [make_agent(spec, rules, players, seed=seed + 1 + i) for i, spec in enumerate(agents)]
    encoder = ObservationEncoder(engine)
    colors = rules.color_names
    card_names = C.card_names(colors)
    action_names = A.action_names(colors)
    player_names = [f"player_{i}" for i in range(players)]
    narrator = Narrator(card_names, colors, player_names)
    pick = random.Random(seed)
    state = engine.new_state(np.random.default_rng(seed))
    policy = ("agents " + " ".join(agents)) if agents is not None else \
        "seeded player (uno 1/2 when legal, else a random playable card 3/4, else uniform)"
    lines = [f"# playthrough: rules {rules.name}, {players} players, seed {seed}; "
             f"generated by uno_env.tools.playthrough (do not edit)",
             f"# regenerate the golden files: {REGEN_COMMAND}",
             f"rules {rules.name}; options changed: {_rule_changes(rules, preset or rules.name)}",
             f"players {players}; dealer {player_names[state.dealer]}; deck {len(engine.deck)} cards",
             f"policy {policy}; at most {max_decisions} decisions"]
    seen = 0

    def new_events() -> list[str]:
        nonlocal seen
        out = [f"  -> {narrator.sentence(ev)}" for ev in state.events[seen:]]
        seen = len(state.events)
        return out

    lines += new_events()
    decision = 0
    while not state.game_over and not engine.truncated(state) and decision < max_decisions:
        legal = engine.legal_actions(state)
        actor = state.actor
        mask = A.legal_mask(legal)
        obs = encoder.encode(state, actor)
        view = decode(obs, mask).describe(colors).splitlines()
        if seats is not None:
            action = int(seats[actor].act(obs, mask))
        else:
            action = seeded_choice(pick, legal)
        decision += 1
        lines.append(f"[{decision}] {player_names[actor]}  {PHASE_NAMES[state.phase]}")
        lines.append(f"  view   {view[0]}")
        lines += [f"         {v}" for v in view[1:]]
        legal_text = textwrap.wrap(", ".join(action_names[a] for a in legal), WIDTH - 9,
                                   break_on_hyphens=False)
        lines.append(f"  legal  {legal_text[0]}")
        lines += [f"         {t}" for t in legal_text[1:]]
        lines.append(f"  action {action_names[action]}")
        engine.step(state, action)
        lines += new_events()
    returns = " ".join(f"{r:+.3f}" for r in engine.returns(state))
    if state.game_over:
        end = f"game over after {decision} decisions: winner {player_names[state.winner]}"
    elif engine.truncated(state):
        end = f"truncated after {decision} decisions (max_steps {rules.max_steps})"
    else:
        end = f"stopped at the cap of {decision} decisions, game running"
    lines.append(f"end: {end}; returns {returns}")
    return lines


# ---------------------------------------------------------------------- golden files
def golden_lines(g: Golden) -> list[str]:
    """The lines of golden game ``g`` as the code now plays it."""
    return playthrough(make_rules(g.preset, **g.overrides), g.players, g.seed, GOLDEN_DECISIONS,
                       preset=g.preset)


def golden_path(g: Golden, directory: str = GOLDEN_DIR) -> str:
    return os.path.join(directory, f"{g.name}.txt")


def first_difference(expected: Sequence[str], got: Sequence[str]) -> str | None:
    """``None`` if equal, else a message naming the first differing line (1-based)."""
    for i, (a, b) in enumerate(zip(expected, got)):
        if a != b:
            return f"line {i + 1}:\n  golden: {a}\n  now:    {b}"
    if len(expected) != len(got):
        i = min(len(expected), len(got))
        extra = ("golden", expected) if len(expected) > len(got) else ("now", got)
        return f"line {i + 1}: only the {extra[0]} text goes on:\n  {extra[0]}: {extra[1][i]}"
    return None


def regen(directory: str = GOLDEN_DIR) -> list[str]:
    """Write every golden file; the paths written."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for g in GOLDEN:
        path = golden_path(g, directory)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write("\n".join(golden_lines(g)) + "\n")
        paths.append(path)
    return paths


def check(directory: str = GOLDEN_DIR) -> list[str]:
    """One message per golden file that is missing or differs (empty: all match)."""
    problems = []
    for g in GOLDEN:
        path = golden_path(g, directory)
        if not os.path.exists(path):
            problems.append(f"{path}: missing")
            continue
        expected = _files.read_bounded_text(path, MAX_GOLDEN_BYTES, "golden playthrough").splitlines()
        diff = first_difference(expected, golden_lines(g))
        if diff:
            problems.append(f"{path}: {diff}")
    return problems


# ---------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m uno_env.tools.playthrough",
                                 description="Print a readable playthrough of a seeded game, or "
                                             "regenerate / check the golden files.")
    ap.add_argument("--rules", default="classic", help="preset (classic, tmnt, house) or YAML file")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="override one rule option (repeatable), e.g. --set uno_call=explicit")
    ap.add_argument("--num-players", "--players", dest="players", type=int, default=None,
                    help="2..10 (default: one per --agents spec, else 2)")
    ap.add_argument("--seed", type=int, default=0, help="game seed (default 0)")
    ap.add_argument("--max-decisions", type=int, default=GOLDEN_DECISIONS,
                    help=f"stop after this many decisions (default {GOLDEN_DECISIONS})")
    ap.add_argument("--agents", nargs="+", metavar="SPEC", help="one agent spec per seat instead of "
                    "the seeded player (random, greedy, heuristic, checkpoint:<path>)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--regen", action="store_true", help="rewrite the golden files")
    mode.add_argument("--check", action="store_true", help="compare the golden files with the code")
    ap.add_argument("--golden-dir", default=GOLDEN_DIR, help=argparse.SUPPRESS)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.regen:
        for path in regen(args.golden_dir):
            print(f"wrote {path}")
        return 0
    if args.check:
        problems = check(args.golden_dir)
        for p in problems:
            print(p)
        if problems:
            print(f"{len(problems)} golden file(s) differ; after an intended change: {REGEN_COMMAND}")
            return 1
        print(f"{len(GOLDEN)} golden files match")
        return 0
    from uno_env.tools.play import parse_overrides

    if args.seed < 0:
        ap.error(f"--seed must be >= 0, got {args.seed}")
    try:
        rules = make_rules(args.rules, **parse_overrides(args.overrides))
        players = args.players or (len(args.agents) if args.agents else 2)
        lines = playthrough(rules, players, args.seed, args.max_decisions, args.agents, preset=args.rules)
    except (ValueError, OSError, ImportError) as e:
        ap.error(str(e))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
