"""Round robin of a pool of agents with Bradley-Terry ratings: :func:`evaluate_pool`.

    from uno_env.tools.pool import evaluate_pool
    result = evaluate_pool(["heuristic", "greedy", "random"], games=2000, seed=0)
    uno-evaluate --pool heuristic greedy random --games 2000 --out runs/pool

**Pool mode.** ``evaluate_pool`` plays every table of ``table_size`` agents of the pool
(all 2-agent matches by default) and fits a Bradley-Terry model to the pairwise results
(the winner of a game beats every other player at the table), shown on the Elo scale
(400 * log10 of the strength, mean 1500), with head-to-head rates (how often one agent
finished ahead of another, ties half).

The games are those of :mod:`uno_env.tools.table` (seats rotated, duplicate deals), played
by :func:`uno_env.tools.matches.play_matches`. :mod:`uno_env.tools.ladder` rates the same
kind of tables with OpenSkill, every table of the project at once.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any, Sequence

import numpy as np

from uno_env.game.rules import make_rules
from uno_env.tools.lineup_stats import aggregate
from uno_env.tools.matches import choose_engine, play_matches
from uno_env.tools.stats import bradley_terry, elo_from_bt, wilson_interval
from uno_env.tools.table import lineup_labels


def evaluate_pool(pool: Sequence[str], rules: Any = "classic", table_size: int = 2,
                  games: int = 1_000, seed: int = 0, workers: int = 1, duplicate: bool = True,
                  progress: bool = False, mp_context: str | None = None, engine: str = "auto",
                  **rule_overrides: Any) -> dict[str, Any]:
    """Round robin: ``games`` games at every table of ``table_size`` distinct agents of the
    pool; Bradley-Terry / Elo ratings and head-to-head rates. ``engine``: as
    :func:`~uno_env.tools.evaluate.evaluate`'s (batched where every agent of the pool plays there).

    The result: ``config`` (``pool``, ``rules``, ``rule_options``, ``table_size``,
    ``games_per_table``, ``seed``, ``workers``, ``duplicate``, ``engine``, ``engine_note``), ``ratings`` (best first:
    ``agent``, ``elo``, ``games``, ``wins``, ``win_rate``, ``win_ci95``), ``head_to_head``
    (``agents``, ``ahead_rate[i][j]``: how often i finished ahead of j, ties half;
    ``games``), ``pair_wins``, ``matches`` (per table: ``agents``, ``win_rates``,
    ``win_ci95``, ``mean_rank``, ``truncated``), ``truncated``, ``games``, ``elapsed_s``,
    ``games_per_s``.
    """
    r = make_rules(rules, **rule_overrides)
    pool = list(pool)
    if len(pool) < 2:
        raise ValueError("a pool needs at least two agents")
    if len(set(map(str, pool))) != len(pool):
        raise ValueError(f"pool agents must be distinct, got {pool}")
    if not 2 <= table_size <= min(10, len(pool)):
        raise ValueError(f"table_size must be in 2..{min(10, len(pool))}, got {table_size}")
    k = len(pool)
    tables = [list(c) for c in itertools.combinations(range(k), table_size)]
    matches = [[pool[i] for i in t] for t in tables]
    engine, why = choose_engine(matches, r, table_size, engine)
    t0 = time.perf_counter()
    all_played = play_matches(matches, r, table_size, games, seed, workers, duplicate, progress,
                               mp_context=mp_context, engine=engine)
    elapsed = time.perf_counter() - t0
    pair_wins = np.zeros((k, k))
    ahead = np.zeros((k, k))
    shared = np.zeros((k, k))
    wins = np.zeros(k)
    played = np.zeros(k)
    truncated = 0
    matches_out = []
    for t, table_games in zip(tables, all_played):
        summary = aggregate(table_games, lineup_labels([pool[i] for i in t]), [pool[i] for i in t], table_size)
        matches_out.append({"agents": [pool[i] for i in t],
                            "win_rates": [a["win_rate"] for a in summary["agents"]],
                            "win_ci95": [a["win_ci95"] for a in summary["agents"]],
                            "mean_rank": [a["mean_rank"] for a in summary["agents"]],
                            "truncated": summary["truncated"]})
        for game in table_games:
            winner, rk = game.winner_entry, game.by_entry(game.seat_ranks)
            truncated += game.record.truncated
            for a in range(table_size):
                played[t[a]] += 1
                for b in range(table_size):
                    if a == b:
                        continue
                    i, j = t[a], t[b]
                    shared[i, j] += 1
                    ahead[i, j] += 1.0 if rk[a] < rk[b] else (0.5 if rk[a] == rk[b] else 0.0)
            if winner >= 0:
                wins[t[winner]] += 1
                for b in range(table_size):
                    if b != winner:
                        pair_wins[t[winner], t[b]] += 1
    log_strength = bradley_terry(pair_wins)
    elo = elo_from_bt(log_strength)
    h2h = np.where(shared > 0, ahead / np.maximum(shared, 1), np.nan)
    ratings = []
    for i in np.argsort(-elo):
        lo, hi = wilson_interval(wins[i], int(played[i]))
        ratings.append({"agent": pool[i], "elo": float(elo[i]), "games": int(played[i]),
                        "wins": int(wins[i]), "win_rate": float(wins[i] / played[i]) if played[i] else 0.0,
                        "win_ci95": [lo, hi]})
    return {
        "config": {"pool": pool, "rules": r.name, "rule_options": r.to_dict(), "table_size": table_size,
                   "games_per_table": games, "seed": seed, "workers": workers, "duplicate": duplicate,
                   "engine": engine, "engine_note": why},
        "ratings": ratings,
        "head_to_head": {"agents": pool,
                         "ahead_rate": [[None if math.isnan(x) else float(x) for x in row] for row in h2h],
                         "games": shared.astype(int).tolist()},
        "pair_wins": pair_wins.astype(int).tolist(),
        "matches": matches_out,
        "truncated": truncated,
        "games": games * len(tables),
        "elapsed_s": elapsed,
        "games_per_s": games * len(tables) / elapsed if elapsed > 0 else float("inf"),
    }
