"""Evaluate agents against each other, with sound statistics.

Library use::

    from uno_env.tools.evaluate import evaluate, evaluate_paired, evaluate_vs
    result = evaluate(["heuristic", "random"], rules="classic", games=10_000, seed=0, workers=2)
    result["agents"][0]["win_rate"], result["agents"][0]["win_ci95"]
    evaluate_vs("heuristic", "random", num_players=4, games=10_000)["win_rate"]  # 1 vs 3
    paired = evaluate_paired(["heuristic", "checkpoint:checkpoints/classic-4p"], "random", num_players=4)
    paired["specs"][1]["difference"]  # mean and 95% interval of (checkpoint - heuristic), game by game

Command line (``uno-evaluate`` or ``python training/evaluate.py``; :mod:`uno_env.tools.evaluate_cli`)::

    uno-evaluate --agents heuristic random random random --rules classic --games 10000 \\
        --seed 0 --workers 2 --out runs/eval
    uno-evaluate --pool heuristic greedy random --games 2000 --out runs/pool
    uno-evaluate --paired heuristic checkpoint:checkpoints/classic-4p --opponent random --num-players 4
    uno-evaluate --agents heuristic random --games 1000 --log-dir runs/logs --log-games 20

**Where the parts are.** The games of a line-up (seats rotated, duplicate deals, seeds, game
logs): :mod:`uno_env.tools.table`; many of them in worker processes:
:mod:`uno_env.tools.matches`; their statistics (win rates with Wilson intervals, points,
ranks, lengths): :mod:`uno_env.tools.lineup_stats`; the round robin of a pool with
Bradley-Terry ratings: :mod:`uno_env.tools.pool`; every table's ladder with OpenSkill
ratings: :mod:`uno_env.tools.ladder`.

**Engines.** Every function here takes ``engine="auto"`` (``uno-evaluate --engine``): the games
are played on the batched engine (:mod:`uno_env.tools.batched_table`, the same seats, deals and
seeds) when every agent plays there (:mod:`uno_env.agents.batched`: compiled bots, numpy
policies) and no game log is written, else in the scalar arena;
:func:`~uno_env.tools.matches.choose_engine` decides and the result's ``config`` records
``engine`` and ``engine_note`` (why scalar).

**Paired mode.** ``evaluate_paired`` plays each of several agents in turn in one seat
against the same opponents on the same games (the games of ``evaluate_vs``: only the agent
in entry 0 changes, with the same seed) and reports, beside each agent's win rate, its difference from the
first agent game by game with a 95% interval: the test to tell whether a change to an agent
helps, far tighter than comparing two Wilson intervals.

**Results** are JSON-serialisable dicts (keys below in :func:`evaluate`, :func:`evaluate_paired`,
:func:`uno_env.tools.pool.evaluate_pool`);
:mod:`uno_env.tools.report` prints them as tables and writes JSON, CSV and a PNG chart.
"""

from __future__ import annotations

import os
import time
from typing import Any, Sequence

import numpy as np

from uno_env._files import check_directory
from uno_env.game.rules import make_rules
from uno_env.tools.lineup_stats import aggregate
from uno_env.tools.matches import choose_engine, play_matches
from uno_env.tools.stats import mean_interval, wilson_interval
from uno_env.tools.table import lineup_labels, spec_name


def agent_list(agents: Any, name: str) -> list[Any]:
    """The agents of a line-up as a list; one string (which ``list`` would split into letters)
    is refused, naming the argument."""
    if isinstance(agents, str):
        raise ValueError(f"{name} must be a list of agents, got the string {agents!r}; write [{agents!r}]")
    return list(agents)


def evaluate(agents: Sequence[Any], rules: Any = "classic", num_players: int | None = None,
             games: int = 10_000, seed: int = 0, workers: int = 1, duplicate: bool = True,
             progress: bool = False, mp_context: str | None = None,
             log_dir: str | os.PathLike | None = None, log_games: int | None = None,
             engine: str = "auto", **rule_overrides: Any) -> dict[str, Any]:
    """Play ``games`` games of a line-up of agents (specs such as ``"heuristic"`` or Agent
    instances) and return the statistics as a JSON-serialisable dict.

    ``num_players`` defaults to the number of agents; with more seats than agents the
    line-up repeats (``["heuristic", "random"]`` at 4 players: heuristic, random,
    heuristic, random).

    ``log_dir``: write a replayable JSON Lines log of each of the first ``log_games``
    games (all by default) to ``log_dir/game-XXXXXX.jsonl`` (:func:`game_log_path`); the config
    then has ``log_dir`` and ``logged_games``.

    ``engine``: ``"auto"`` (default) plays on the batched engine when every agent plays there
    and no log is written, else in the scalar arena; ``"batched"`` or ``"scalar"`` forces one
    (:func:`~uno_env.tools.matches.choose_engine`; *Engines* in the module doc).

    The result: ``config`` (``agents``, ``rules``, ``rule_options``, ``num_players``,
    ``games``, ``seed``, ``workers``, ``duplicate``, ``engine``, ``engine_note``: why scalar), ``games``, ``agents`` (per line-up
    entry: ``entry``, ``label``, ``spec``, ``games``, ``wins``, ``win_rate``, ``win_ci95``,
    ``mean_points``, ``mean_rank``, ``seat_games``, ``seat_wins``), ``length`` (``turns``
    and ``steps``: :func:`~uno_env.tools.stats.summarize`), ``seats`` (per seat: ``seat``,
    ``games``, ``wins``, ``win_rate``, ``win_ci95``), ``first_seat``, ``truncated``,
    ``truncated_rate``, ``elapsed_s``, ``games_per_s``.
    """
    r = make_rules(rules, **rule_overrides)
    agents = agent_list(agents, "agents")
    if not agents:
        raise ValueError("evaluate needs at least one agent")
    n = int(num_players) if num_players is not None else len(agents)
    if not 2 <= n <= 10:
        raise ValueError(f"num_players must be in 2..10, got {n}")
    if len(agents) > n:
        raise ValueError(f"{len(agents)} agents do not fit {n} seats")
    lineup = [agents[i % len(agents)] for i in range(n)]
    if games < 1:
        raise ValueError("games must be >= 1")
    if log_games is not None:
        if log_dir is None:
            raise ValueError("log_games needs log_dir")
        if int(log_games) < 0:
            raise ValueError(f"log_games must be >= 0, got {log_games}")
        log_games = int(log_games)
    if log_dir is not None:
        log_dir = check_directory(log_dir, "log_dir", create=True)  # a file there: ValueError
    engine, why = choose_engine([lineup], r, n, engine, log_dir)
    t0 = time.perf_counter()
    (played,) = play_matches([lineup], r, n, games, seed, workers, duplicate, progress,
                                mp_context=mp_context, log_dir=log_dir, log_games=log_games, engine=engine)
    elapsed = time.perf_counter() - t0
    labels = lineup_labels(lineup)
    result = aggregate(played, labels, lineup, n)
    result["config"] = {"agents": [a if isinstance(a, str) else labels[i] for i, a in enumerate(lineup)],
                        "rules": r.name, "rule_options": r.to_dict(), "num_players": n,
                        "games": games, "seed": seed, "workers": workers, "duplicate": duplicate,
                        "engine": engine, "engine_note": why}
    if log_dir is not None:
        result["config"]["log_dir"] = log_dir
        result["config"]["logged_games"] = games if log_games is None else min(games, log_games)
    result["elapsed_s"] = elapsed
    result["games_per_s"] = games / elapsed if elapsed > 0 else float("inf")
    return result


def evaluate_vs(agent: Any, opponent: Any, rules: Any = "classic", num_players: int = 2,
                games: int = 10_000, seed: int = 0, workers: int = 1, engine: str = "auto") -> dict[str, Any]:
    """``agent`` in one seat and ``opponent`` in every other seat (1 vs ``num_players - 1``,
    seats rotated, duplicate deals): what the training scripts record for a checkpoint's card
    and ``eval.csv``: ``games``, ``wins``, ``win_rate``, ``ci95`` (Wilson), ``truncated``,
    ``deterministic``, ``seats``, ``duplicate_deals``, ``seed``, ``lineup``, ``engine`` (as
    :func:`evaluate`'s ``engine``: batched where both play there).

    Not ``evaluate([agent, opponent], num_players=4)``: that line-up repeats (agent, opponent,
    agent, opponent), two seats of the agent."""
    result = evaluate([agent] + [opponent] * (num_players - 1), rules=rules, num_players=num_players,
                      games=games, seed=seed, workers=workers, engine=engine)
    me = result["agents"][0]
    label = opponent if isinstance(opponent, str) else getattr(opponent, "name", "agent")
    return {"games": games, "wins": me["wins"], "win_rate": me["win_rate"], "ci95": me["win_ci95"],
            "truncated": result["truncated"], "deterministic": True, "seats": "rotated",
            "duplicate_deals": True, "seed": seed, "lineup": f"1 vs {num_players - 1} {label}",
            "engine": result["config"]["engine"]}


def evaluate_paired(specs: Sequence[Any], opponent: Any = "random", rules: Any = "classic",
                    num_players: int = 4, games: int = 10_000, seed: int = 0, workers: int = 1,
                    duplicate: bool = True, progress: bool = False, mp_context: str | None = None,
                    engine: str = "auto", **rule_overrides: Any) -> dict[str, Any]:
    """Every agent of ``specs`` in turn in one seat against ``opponent`` in all the others
    (1 vs ``num_players - 1``, as :func:`evaluate_vs`), on the same games: win rates and the
    paired differences from the first.

    Game ``g`` depends only on ``(seed, g)`` and the line-up entry, never on which agent
    sits in entry 0 (see *Seats and seeds*): every agent is dealt the same cards in the same
    seat, with the same seed, against opponents seeded alike, so two agents that made the same
    moves would play the same game. These are the games of ``evaluate_vs`` with the same
    ``seed`` and ``duplicate``. The difference of two agents' results game by game (won 1,
    else 0) therefore carries little of the luck of the deal; its mean with a 95% normal
    interval (:func:`~uno_env.tools.stats.mean_interval`) says by how much one beats the other
    far more tightly than their two Wilson intervals do. The interval takes the games as
    independent; with duplicate deals the ``num_players`` games of a block share a deal and
    their differences correlate negatively if at all (one interval over the blocks' sums came
    out as wide against ``random`` and a third narrower against ``heuristic`` on 8,000 games),
    so it is, if anything, conservative. A truncated game counts as lost.

    ``opponent`` sits in ``num_players - 1`` seats, so beyond 2 players it has to be a spec
    string (an instance would share one memory and seed); instances in ``specs`` need
    ``workers=1``. Every spec is built once before any game, so a bad one fails at once.
    ``engine`` as :func:`evaluate`'s, one for all the agents (batched only where every one of them
    and the opponent play there: the same games for all).

    The result: ``config`` (``specs``, ``opponent``, ``rules``, ``rule_options``,
    ``num_players``, ``games``, ``seed``, ``workers``, ``duplicate``, ``engine``,
    ``engine_note``), ``games``, ``specs``
    (per agent: ``label``, ``spec``, ``wins``, ``win_rate``, ``win_ci95``, ``truncated``,
    ``elapsed_s`` and, but for the first, ``difference``: ``mean`` and ``ci95`` of its
    results minus the first's), ``won`` (per agent, per game: 1 if it won), ``elapsed_s``.
    """
    from uno_env.agents import make_agent

    r = make_rules(rules, **rule_overrides)
    specs = agent_list(specs, "specs")
    if not specs:
        raise ValueError("evaluate_paired needs at least one agent")
    n = int(num_players)
    if not 2 <= n <= 10:
        raise ValueError(f"num_players must be in 2..10, got {n}")
    if games < 2:
        raise ValueError(f"paired differences need games >= 2, got {games}")
    if not isinstance(opponent, str) and n > 2:
        raise ValueError(f"one agent instance ({spec_name(opponent)}) cannot sit in the {n - 1} opponents' "
                         "seats: it would keep one memory and seed for all of them; pass a spec string")
    if workers > 1 and not all(isinstance(s, str) for s in specs + [opponent]):
        raise ValueError("agent instances can only be evaluated with workers=1; pass agent specs")
    for spec in [s for s in specs + [opponent] if isinstance(s, str)]:
        make_agent(spec, r, n)  # every spec checked before the first plays its games
    lineups = [[spec] + [opponent] * (n - 1) for spec in specs]
    engine, why = choose_engine(lineups, r, n, engine)
    labels = lineup_labels(specs)
    rows, won = [], []
    t0 = time.perf_counter()
    for spec, label in zip(specs, labels):
        began = time.perf_counter()
        (played,) = play_matches([[spec] + [opponent] * (n - 1)], r, n, games, seed, workers, duplicate,
                                  progress, mp_context=mp_context, desc=label, engine=engine)
        w = [int(t.winner_entry == 0) for t in played]
        lo, hi = wilson_interval(sum(w), games)
        row = {"label": label, "spec": spec if isinstance(spec, str) else label, "wins": sum(w),
               "win_rate": sum(w) / games, "win_ci95": [lo, hi],
               "truncated": sum(t.record.truncated for t in played),
               "elapsed_s": time.perf_counter() - began}
        if won:
            mean, dlo, dhi = mean_interval(np.subtract(w, won[0]))
            row["difference"] = {"mean": mean, "ci95": [dlo, dhi]}
        rows.append(row)
        won.append(w)
    return {
        "config": {"specs": [s if isinstance(s, str) else labels[i] for i, s in enumerate(specs)],
                   "opponent": spec_name(opponent), "rules": r.name, "rule_options": r.to_dict(),
                   "num_players": n, "games": games, "seed": seed, "workers": workers, "duplicate": duplicate,
                   "engine": engine, "engine_note": why},
        "games": games,
        "specs": rows,
        "won": won,
        "elapsed_s": time.perf_counter() - t0,
    }
