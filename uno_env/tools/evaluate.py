"""Evaluate agents against each other, with sound statistics.

Library use::

    from uno_env.tools.evaluate import evaluate, evaluate_pool
    result = evaluate(["heuristic", "random"], rules="classic", games=10_000, seed=0, workers=2)
    result["agents"][0]["win_rate"], result["agents"][0]["win_ci95"]

Command line (``uno-evaluate`` or ``python training/evaluate.py``)::

    uno-evaluate --agents heuristic random random random --rules classic --games 10000 \\
        --seed 0 --workers 2 --out runs/eval
    uno-evaluate --pool heuristic greedy random --games 2000 --out runs/pool
    uno-evaluate --agents heuristic random --games 1000 --log-dir runs/logs --log-games 20

**How games are played.** The engine is called directly (``Engine.new_state`` /
``legal_actions`` / ``step``); each deciding seat gets ``ObservationEncoder.encode`` and the
action mask of the legal actions, and its agent's ``act(observation, mask)`` answers, so
any :class:`~uno_env.agents.base.Agent` (scripted bots, ``checkpoint:<path>`` models,
instances passed in) plays through the same interface as in the AEC env.

**Seats and seeds.** The dealer is the last seat, so seat 0 plays first. The agents of a
line-up sit in a rotation that moves by one seat every game, so with ``games`` a multiple
of the player count every agent plays every seat equally often. With ``duplicate`` (the
default) the ``n`` rotations of a block share one shuffled deck: every agent is dealt
every hand of the block, which removes most of the luck of the deal from comparisons.
Game ``g`` depends only on ``(seed, g)``: the deck/engine RNG is seeded with
``(seed, g // n)`` (``(seed, g)`` without duplicate) and every agent is reset with a
seed derived from ``(seed, g, entry)``. A run therefore gives the same games with any
number of workers.

**Game logs.** With ``log_dir`` (``--log-dir DIR``; ``log_games`` / ``--log-games N``: only
games ``0..N-1``) game ``g`` is also written to ``DIR/game-{g:06d}.jsonl``, a JSON Lines log
of :mod:`uno_env.tools.gamelog` (one record per decision) that ``uno_env.tools.gamelog.replay`` (or
``python -m uno_env.replay``) replays exactly. The action ids are kept while the game is
played and the log is written afterwards with :func:`uno_env.tools.gamelog.log_game` from a fresh
generator seeded like the game's, the dealer, the spec of every seat, the agents' seeds and
``meta`` (``tool``, ``game``, ``seed``, ``deal``, ``duplicate``, ``entries``: the line-up
entry at each seat, ``labels``). Every worker writes the logs of the games it plays; games
that are not logged run the plain loop, without recording.

**Statistics.** Per agent: wins (``win_rate`` with its Wilson score 95% interval), mean
points scored (``state.scores`` at the end), mean rank (1 = winner; the others by the
points left in their hands, or by game score in multi-round episodes; ties share the mean
rank). Per run: game length in regular turns (``state.turns``) and decisions
(``state.steps``) with percentiles, the win rate by seat and of the first seat. Games cut
at ``rules.max_steps`` are truncated: no one wins them; they are counted and reported.
Duplicate deals make an agent's results in one block negatively correlated (one of them
got the good hand), so the Wilson interval, which assumes independent games, is then
conservative.

**Pool mode.** ``evaluate_pool`` plays every table of ``table_size`` agents of the pool
(all 2-agent matches by default) and fits a Bradley-Terry model to the pairwise results
(the winner of a game beats every other player at the table), shown on the Elo scale
(400 * log10 of the strength, mean 1500), with head-to-head rates (how often one agent
finished ahead of another, ties half).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import multiprocessing as mp
import os
import sys
import time
from typing import Any, Iterable, Sequence

import numpy as np

from uno_env.game.actions import legal_mask
from uno_env.game.engine import Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import Rules, make_rules

Z95 = 1.959963984540054
PERCENTILES = (5, 25, 50, 75, 90, 95, 99)


# ---------------------------------------------------------------------- statistics
def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (default 95%); (0, 1) for no trials."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    center = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1.0 - p) / trials + z2 / (4 * trials * trials)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def summarize(values: Sequence[float]) -> dict[str, float]:
    """Mean, standard deviation, min, max and percentiles of ``values``."""
    if len(values) == 0:
        return {"count": 0}
    a = np.asarray(values, dtype=np.float64)
    out = {"count": int(a.size), "mean": float(a.mean()), "std": float(a.std()),
           "min": float(a.min()), "max": float(a.max())}
    for q, v in zip(PERCENTILES, np.percentile(a, PERCENTILES)):
        out[f"p{q}"] = float(v)
    return out


def bradley_terry(wins: np.ndarray, prior: float = 0.5, iters: int = 2000,
                  tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry strengths from ``wins[i, j]`` (times i beat j), by Hunter's MM algorithm.

    ``prior`` adds that many virtual wins and losses between every pair that met, so an
    undefeated agent still gets a finite strength. Returns log-strengths with mean 0.
    """
    w = np.asarray(wins, dtype=np.float64).copy()
    k = w.shape[0]
    met = (w + w.T) > 0
    w += prior * met
    games = w + w.T
    total_wins = w.sum(axis=1)
    p = np.ones(k)
    for _ in range(iters):
        denom = (games / (p[:, None] + p[None, :] + 1e-300)).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.maximum(denom, 1e-300), p)
        new = np.maximum(new, 1e-12)
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    logp = np.log(p)
    return logp - logp.mean()


def elo_from_bt(log_strength: np.ndarray, mean: float = 1500.0) -> np.ndarray:
    return mean + 400.0 / math.log(10.0) * (np.asarray(log_strength) - np.mean(log_strength))


# ---------------------------------------------------------------------- playing games
def _agent_seed(seed: int, game: int, entry: int) -> int:
    """The seed an agent is reset with for game ``game`` (-1: construction)."""
    state = np.random.SeedSequence([seed, game + 1, entry, 0x5EA7]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def _ranks(keys: list[tuple]) -> list[float]:
    """Rank (1 = best) of each key, smaller keys better; ties share the mean rank."""
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    ranks = [0.0] * len(keys)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and keys[order[j + 1]] == keys[order[i]]:
            j += 1
        r = (i + j) / 2 + 1
        for t in range(i, j + 1):
            ranks[order[t]] = r
        i = j + 1
    return ranks


class _Table:
    """An engine, encoder and one agent per line-up entry, reused for many games."""

    def __init__(self, specs: Sequence[Any], rules: Rules, num_players: int, seed: int):
        from uno_env.agents import make_agent

        self.rules = rules
        self.n = num_players
        self.engine = Engine(rules, num_players)
        self.encoder = ObservationEncoder(self.engine)
        self.points = self.engine.points
        self.agents = [make_agent(spec, rules, num_players, seed=_agent_seed(seed, -1, e))
                       for e, spec in enumerate(specs)]
        self.spec_names = [_spec_name(s) for s in specs]
        self.labels = _labels(specs)
        self.multi_round = rules.episode != "round"
        self.alternative = rules.scoring == "alternative"

    def play(self, seed: int, game: int, duplicate: bool, log_path: str | None = None) -> tuple:
        """Play game ``game``; returns (game, winner_entry, truncated, turns, steps,
        points per entry, ranks per entry, seat of each entry). With ``log_path`` the
        game's log (its action ids) is written there afterwards."""
        n, engine = self.n, self.engine
        rot = game % n
        seat_entry = [(s + rot) % n for s in range(n)]  # entry sitting at each seat
        entry_seat = [0] * n
        for s, e in enumerate(seat_entry):
            entry_seat[e] = s
        deal = game // n if duplicate else game
        rng = np.random.default_rng([seed, deal])
        for e, agent in enumerate(self.agents):
            agent.reset(_agent_seed(seed, game, e))
        seat_agents = [self.agents[seat_entry[s]] for s in range(n)]
        state = engine.new_state(rng, dealer=n - 1)
        legal_actions, step, encode = engine.legal_actions, engine.step, self.encoder.encode
        max_steps = self.rules.max_steps
        actions: list[int] = []  # the action ids, for the log (the append costs < 1%)
        while not state.game_over and state.steps < max_steps:
            p = state.actor
            action = int(seat_agents[p].act(encode(state, p), legal_mask(legal_actions(state))))
            try:
                step(state, action)
            except ValueError as exc:
                raise RuntimeError(f"agent {seat_agents[p]!r} at seat {p} chose an illegal action "
                                   f"in game {game}: {exc}") from None
            actions.append(action)
        if log_path is not None:
            self._write_log(log_path, seed, game, deal, duplicate, seat_entry, actions)
        truncated = not state.game_over
        winner = -1 if truncated else state.winner
        scores = [int(x) for x in state.scores]
        if self.multi_round:
            keys = [(0 if s == winner else 1, (scores[s] if self.alternative else -scores[s]))
                    for s in range(n)]
        else:
            left = [int(np.dot(state.hands[s], self.points)) for s in range(n)]
            keys = [(0 if s == winner else 1, left[s]) for s in range(n)]
        seat_ranks = _ranks(keys)
        return (game, seat_entry[winner] if winner >= 0 else -1, truncated, int(state.turns),
                int(state.steps), [scores[entry_seat[e]] for e in range(n)],
                [seat_ranks[entry_seat[e]] for e in range(n)], entry_seat)

    def _write_log(self, path: str, seed: int, game: int, deal: int, duplicate: bool,
                   seat_entry: list[int], actions: list[int]) -> None:
        """Write the log of a game just played from a fresh generator seeded like its deal."""
        from uno_env.tools.gamelog import log_game

        n = self.n
        log_game(path, self.rules, n, actions, rng=np.random.default_rng([seed, deal]), dealer=n - 1,
                 specs=[self.spec_names[seat_entry[s]] for s in range(n)],
                 agent_seeds=[_agent_seed(seed, game, seat_entry[s]) for s in range(n)],
                 meta={"tool": "uno-evaluate", "game": game, "seed": seed, "deal": deal,
                       "duplicate": duplicate, "entries": list(seat_entry),
                       "labels": [self.labels[seat_entry[s]] for s in range(n)]})


def game_log_path(log_dir: str, game: int) -> str:
    """The log file of game ``game`` in ``log_dir``."""
    return os.path.join(log_dir, f"game-{game:06d}.jsonl")


def _play_range(table: _Table, seed: int, start: int, stop: int, duplicate: bool,
                log_dir: str | None, log_games: int | None) -> list[tuple]:
    """Games ``start..stop-1``: the logged ones (below ``log_games``) with their log path."""
    logged = start
    if log_dir is not None:
        logged = min(stop, stop if log_games is None else max(start, log_games))
    return ([table.play(seed, g, duplicate, game_log_path(log_dir, g)) for g in range(start, logged)]
            + [table.play(seed, g, duplicate) for g in range(logged, stop)])


_WORKER_TABLES: dict = {}


def _run_chunk(task: tuple) -> tuple[int, list[tuple]]:
    """Worker entry point: play games ``start..stop-1`` of one line-up."""
    match, specs, rules_dict, n, seed, start, stop, duplicate, log_dir, log_games = task
    key = (match, tuple(specs), json.dumps(rules_dict, sort_keys=True), n, seed)
    table = _WORKER_TABLES.get(key)
    if table is None:
        _WORKER_TABLES.clear()
        table = _WORKER_TABLES[key] = _Table(specs, make_rules(rules_dict), n, seed)
    return match, _play_range(table, seed, start, stop, duplicate, log_dir, log_games)


def _progress(total: int, enabled: bool, desc: str):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        return None
    return tqdm(total=total, desc=desc, unit="game", smoothing=0.1, dynamic_ncols=True,
                file=sys.stderr)


def _mp_context(name: str | None):
    """``fork`` where available (fast, no ``__main__`` guard needed) unless torch is already
    loaded in this process (forking its thread pools is unsafe): then ``spawn``."""
    if name is None:
        name = "fork" if "fork" in mp.get_all_start_methods() and "torch" not in sys.modules else "spawn"
    return mp.get_context(name)


def _play_matches(matches: list[list[Any]], rules: Rules, num_players: int, games: int,
                  seed: int, workers: int, duplicate: bool, progress: bool,
                  chunk: int | None = None, mp_context: str | None = None,
                  log_dir: str | None = None, log_games: int | None = None) -> list[list[tuple]]:
    """Play ``games`` games for every line-up in ``matches``; records per match, by game.
    With ``log_dir`` (one line-up only) games below ``log_games`` (all if None) are logged."""
    rules_dict = rules.to_dict()
    workers = max(1, int(workers))
    instances = any(not isinstance(s, str) for m in matches for s in m)
    if instances and workers > 1:
        raise ValueError("agent instances can only be evaluated with workers=1; pass agent specs")
    if chunk is None:
        chunk = max(num_players, min(500, games // max(1, workers * 8) or 1))
    if log_dir is not None and len(matches) != 1:
        raise ValueError("game logs are written for one line-up only")
    tasks = [(mi, list(m), rules_dict, num_players, seed, start, min(games, start + chunk), duplicate,
              log_dir, log_games)
             for mi, m in enumerate(matches) for start in range(0, games, chunk)]
    out: list[list[tuple]] = [[] for _ in matches]
    bar = _progress(games * len(matches), progress, "games")
    try:
        if workers == 1:
            tables: dict[int, _Table] = {}
            for mi, m, _, n, sd, start, stop, dup, ldir, lgames in tasks:
                table = tables.get(mi)
                if table is None:
                    tables.clear()
                    table = tables[mi] = _Table(m, rules, n, sd)
                out[mi].extend(_play_range(table, sd, start, stop, dup, ldir, lgames))
                if bar is not None:
                    bar.update(stop - start)
        else:
            with _mp_context(mp_context).Pool(workers) as pool:
                for mi, records in pool.imap_unordered(_run_chunk, tasks):
                    out[mi].extend(records)
                    if bar is not None:
                        bar.update(len(records))
    finally:
        if bar is not None:
            bar.close()
    for records in out:
        records.sort(key=lambda r: r[0])
    return out


def _spec_name(spec: Any) -> str:
    """An agent spec string as it is, or an agent instance's ``name`` (else its class name)."""
    return spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)


def _labels(specs: Sequence[Any]) -> list[str]:
    """Line-up labels: the spec names, a repeated name numbered from its second entry (``#2``)."""
    seen: dict[str, int] = {}
    out = []
    for name in map(_spec_name, specs):
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return out


def _aggregate(records: list[tuple], labels: list[str], specs: Sequence[Any], n: int) -> dict[str, Any]:
    games = len(records)
    wins = [0] * n
    points = [0.0] * n
    ranks = [0.0] * n
    seat_games = [[0] * n for _ in range(n)]
    seat_wins = [[0] * n for _ in range(n)]
    seat_win_total = [0] * n
    turns, steps = [], []
    truncated = 0
    for (_, winner, trunc, t, st, pts, rk, entry_seat) in records:
        turns.append(t)
        steps.append(st)
        truncated += trunc
        for e in range(n):
            points[e] += pts[e]
            ranks[e] += rk[e]
            seat_games[e][entry_seat[e]] += 1
        if winner >= 0:
            wins[winner] += 1
            seat_wins[winner][entry_seat[winner]] += 1
            seat_win_total[entry_seat[winner]] += 1
    agents = []
    for e in range(n):
        lo, hi = wilson_interval(wins[e], games)
        agents.append({
            "entry": e, "label": labels[e],
            "spec": specs[e] if isinstance(specs[e], str) else labels[e],
            "games": games, "wins": wins[e], "win_rate": wins[e] / games if games else 0.0,
            "win_ci95": [lo, hi],
            "mean_points": points[e] / games if games else 0.0,
            "mean_rank": ranks[e] / games if games else 0.0,
            "seat_games": seat_games[e], "seat_wins": seat_wins[e],
        })
    seat_rates = []
    for s in range(n):
        lo, hi = wilson_interval(seat_win_total[s], games)
        seat_rates.append({"seat": s, "games": games, "wins": seat_win_total[s],
                           "win_rate": seat_win_total[s] / games if games else 0.0, "win_ci95": [lo, hi]})
    return {
        "games": games,
        "agents": agents,
        "length": {"turns": summarize(turns), "steps": summarize(steps)},
        "seats": seat_rates,
        "first_seat": seat_rates[0] if seat_rates else {},
        "truncated": truncated,
        "truncated_rate": truncated / games if games else 0.0,
    }


def evaluate(agents: Sequence[Any], rules: Any = "classic", num_players: int | None = None,
             games: int = 10_000, seed: int = 0, workers: int = 1, duplicate: bool = True,
             progress: bool = False, mp_context: str | None = None,
             log_dir: str | os.PathLike | None = None, log_games: int | None = None,
             **rule_overrides: Any) -> dict[str, Any]:
    """Play ``games`` games of a line-up of agents (specs such as ``"heuristic"`` or Agent
    instances) and return the statistics as a JSON-serialisable dict.

    ``num_players`` defaults to the number of agents; with more seats than agents the
    line-up repeats (``["heuristic", "random"]`` at 4 players: heuristic, random,
    heuristic, random).

    ``log_dir``: write a replayable JSON Lines log of each of the first ``log_games``
    games (all by default) to ``log_dir/game-XXXXXX.jsonl`` (:func:`game_log_path`); the config
    then has ``log_dir`` and ``logged_games``.
    """
    r = make_rules(rules, **rule_overrides)
    agents = list(agents)
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
        log_dir = os.fspath(log_dir)
        os.makedirs(log_dir, exist_ok=True)
    t0 = time.perf_counter()
    (records,) = _play_matches([lineup], r, n, games, seed, workers, duplicate, progress,
                                 mp_context=mp_context, log_dir=log_dir, log_games=log_games)
    elapsed = time.perf_counter() - t0
    labels = _labels(lineup)
    result = _aggregate(records, labels, lineup, n)
    result["config"] = {"agents": [a if isinstance(a, str) else labels[i] for i, a in enumerate(lineup)],
                        "rules": r.name, "rule_options": r.to_dict(), "num_players": n,
                        "games": games, "seed": seed, "workers": workers, "duplicate": duplicate}
    if log_dir is not None:
        result["config"]["log_dir"] = log_dir
        result["config"]["logged_games"] = games if log_games is None else min(games, log_games)
    result["elapsed_s"] = elapsed
    result["games_per_s"] = games / elapsed if elapsed > 0 else float("inf")
    return result


def evaluate_pool(pool: Sequence[str], rules: Any = "classic", table_size: int = 2,
                  games: int = 1_000, seed: int = 0, workers: int = 1, duplicate: bool = True,
                  progress: bool = False, mp_context: str | None = None,
                  **rule_overrides: Any) -> dict[str, Any]:
    """Round robin: ``games`` games at every table of ``table_size`` distinct agents of the
    pool; Bradley-Terry / Elo ratings and head-to-head rates."""
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
    t0 = time.perf_counter()
    all_records = _play_matches(matches, r, table_size, games, seed, workers, duplicate, progress,
                                mp_context=mp_context)
    elapsed = time.perf_counter() - t0
    pair_wins = np.zeros((k, k))
    ahead = np.zeros((k, k))
    shared = np.zeros((k, k))
    wins = np.zeros(k)
    played = np.zeros(k)
    truncated = 0
    matches_out = []
    for t, records in zip(tables, all_records):
        summary = _aggregate(records, _labels([pool[i] for i in t]), [pool[i] for i in t], table_size)
        matches_out.append({"agents": [pool[i] for i in t],
                            "win_rates": [a["win_rate"] for a in summary["agents"]],
                            "win_ci95": [a["win_ci95"] for a in summary["agents"]],
                            "mean_rank": [a["mean_rank"] for a in summary["agents"]],
                            "truncated": summary["truncated"]})
        for (_, winner, trunc, _, _, _, rk, _) in records:
            truncated += trunc
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
                   "games_per_table": games, "seed": seed, "workers": workers, "duplicate": duplicate},
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


# ---------------------------------------------------------------------- reports
def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def format_result(result: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """Tables (title, header, rows) describing an ``evaluate`` result."""
    cfg = result["config"]
    rows = []
    for a in result["agents"]:
        lo, hi = a["win_ci95"]
        rows.append([a["label"], str(a["wins"]), _pct(a["win_rate"]), f"{_pct(lo)} - {_pct(hi)}",
                     f"{a['mean_points']:.1f}", f"{a['mean_rank']:.2f}"])
    title = (f"{cfg['rules']}, {cfg['num_players']} players, {result['games']} games, seed {cfg['seed']} "
             f"(par {_pct(1 / cfg['num_players'])})")
    tables = [(title, ["agent", "wins", "win rate", "95% CI (Wilson)", "mean points", "mean rank"], rows)]
    t, s = result["length"]["turns"], result["length"]["steps"]
    length_rows = [[name, f"{d['mean']:.1f}", f"{d['p5']:.0f}", f"{d['p50']:.0f}", f"{d['p90']:.0f}",
                    f"{d['p99']:.0f}", f"{d['max']:.0f}"] for name, d in (("turns", t), ("steps", s))]
    tables.append(("game length", ["", "mean", "p5", "median", "p90", "p99", "max"], length_rows))
    seat_rows = [[str(x["seat"]), _pct(x["win_rate"]), f"{_pct(x['win_ci95'][0])} - {_pct(x['win_ci95'][1])}"]
                 for x in result["seats"]]
    tables.append(("win rate by seat (seat 0 plays first)", ["seat", "win rate", "95% CI"], seat_rows))
    footer = [["truncated games", f"{result['truncated']} ({_pct(result['truncated_rate'])})"],
              ["time", f"{result['elapsed_s']:.1f} s ({result['games_per_s']:.0f} games/s, "
                       f"{cfg['workers']} worker{'s' if cfg['workers'] != 1 else ''})"]]
    tables.append(("run", ["", ""], footer))
    return tables


def format_pool(result: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    cfg = result["config"]
    rows = [[str(i + 1), r["agent"], f"{r['elo']:.0f}", str(r["games"]), _pct(r["win_rate"]),
             f"{_pct(r['win_ci95'][0])} - {_pct(r['win_ci95'][1])}"] for i, r in enumerate(result["ratings"])]
    title = (f"pool ratings (Bradley-Terry, Elo scale): {cfg['rules']}, tables of {cfg['table_size']}, "
             f"{cfg['games_per_table']} games per table")
    tables = [(title, ["#", "agent", "elo", "games", "win rate", "95% CI"], rows)]
    names = result["head_to_head"]["agents"]
    h2h = result["head_to_head"]["ahead_rate"]
    h_rows = [[names[i]] + ["-" if x is None else _pct(x) for x in h2h[i]] for i in range(len(names))]
    tables.append(("head to head: row finished ahead of column", ["agent"] + names, h_rows))
    timing = f"{result['elapsed_s']:.1f} s ({result['games_per_s']:.0f} games/s)"
    tables.append(("run", ["", ""], [["truncated games", str(result["truncated"])], ["time", timing]]))
    return tables


def print_tables(tables: list[tuple[str, list[str], list[list[str]]]], file=None) -> None:
    """Print tables with rich when available, else as plain text."""
    file = file or sys.stdout
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # pragma: no cover
        Console = None
    if Console is not None:
        console = Console(file=file, highlight=False)
        for title, header, rows in tables:
            t = Table(title=title, title_justify="left")
            for i, h in enumerate(header):
                t.add_column(h, justify="left" if i == 0 else "right")
            for row in rows:
                t.add_row(*row)
            console.print(t)
        return
    for title, header, rows in tables:  # pragma: no cover
        print(title, file=file)
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
        for row in [header] + rows:
            print("  ".join(str(x).rjust(w) for x, w in zip(row, widths)), file=file)
        print(file=file)


def write_csv(result: dict[str, Any], path: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        if "ratings" in result:
            w.writerow(["agent", "elo", "games", "wins", "win_rate", "ci95_low", "ci95_high"])
            for r in result["ratings"]:
                w.writerow([r["agent"], f"{r['elo']:.1f}", r["games"], r["wins"], f"{r['win_rate']:.6f}",
                            f"{r['win_ci95'][0]:.6f}", f"{r['win_ci95'][1]:.6f}"])
            return
        w.writerow(["agent", "spec", "games", "wins", "win_rate", "ci95_low", "ci95_high",
                    "mean_points", "mean_rank"])
        for a in result["agents"]:
            w.writerow([a["label"], a["spec"], a["games"], a["wins"], f"{a['win_rate']:.6f}",
                        f"{a['win_ci95'][0]:.6f}", f"{a['win_ci95'][1]:.6f}",
                        f"{a['mean_points']:.4f}", f"{a['mean_rank']:.4f}"])


def plot_result(result: dict[str, Any], path: str, turns: Sequence[int] | None = None) -> None:
    """A PNG: win rates with 95% intervals (and par), and the game-length percentiles."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    if "ratings" in result:
        names = [r["agent"] for r in result["ratings"]]
        rates = [r["win_rate"] for r in result["ratings"]]
        cis = [r["win_ci95"] for r in result["ratings"]]
        elo = [r["elo"] for r in result["ratings"]]
        ax2.barh(names[::-1], elo[::-1], color="#4c72b0")
        ax2.set_xlabel("rating (Elo scale, mean 1500)")
        ax2.set_xlim(min(elo) - 100, max(elo) + 100)
        ax2.set_title("Bradley-Terry ratings")
        par = 1.0 / result["config"]["table_size"]
        title = f"pool, {result['config']['rules']}, tables of {result['config']['table_size']}"
    else:
        names = [a["label"] for a in result["agents"]]
        rates = [a["win_rate"] for a in result["agents"]]
        cis = [a["win_ci95"] for a in result["agents"]]
        par = 1.0 / result["config"]["num_players"]
        t = result["length"]["turns"]
        s = result["length"]["steps"]
        qs = ["p5", "p25", "p50", "p75", "p90", "p95", "p99"]
        ax2.plot([int(q[1:]) for q in qs], [t[q] for q in qs], "o-", label=f"turns (mean {t['mean']:.1f})")
        ax2.plot([int(q[1:]) for q in qs], [s[q] for q in qs], "s-", label=f"steps (mean {s['mean']:.1f})")
        ax2.set_xlabel("percentile")
        ax2.set_ylabel("game length")
        ax2.set_title("game length")
        ax2.legend()
        ax2.grid(alpha=0.3)
        title = (f"{result['config']['rules']}, {result['config']['num_players']} players, "
                 f"{result['games']} games")
    x = np.arange(len(names))
    err = np.array([[r - c[0] for r, c in zip(rates, cis)], [c[1] - r for r, c in zip(rates, cis)]])
    ax1.bar(x, rates, yerr=err, capsize=4, color="#55a868")
    ax1.axhline(par, color="grey", linestyle="--", linewidth=1, label=f"par {par:.0%}")
    ax1.set_xticks(x)
    ax1.set_xticklabels(names, rotation=20, ha="right")
    ax1.set_ylabel("win rate (95% Wilson interval)")
    ax1.set_ylim(0, min(1.0, max(c[1] for c in cis) * 1.15 + 0.02))
    ax1.set_title(title)
    ax1.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_outputs(result: dict[str, Any], out_dir: str, stem: str = "evaluation") -> dict[str, str]:
    """Write ``<stem>.json``, ``<stem>.csv`` and ``<stem>.png`` into ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {ext: os.path.join(out_dir, f"{stem}.{ext}") for ext in ("json", "csv", "png")}
    with open(paths["json"], "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=2)
        fh.write("\n")
    write_csv(result, paths["csv"])
    plot_result(result, paths["png"])
    return paths


# ---------------------------------------------------------------------- command line
def _parse_set(items: Iterable[str]) -> dict[str, Any]:
    import yaml

    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--set expects key=value, got {item!r}")
        out[key.strip()] = yaml.safe_load(value)
    return out


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="uno-evaluate",
        description="Play agents against each other and report win rates with Wilson 95% intervals, "
                    "points, ranks and game lengths (JSON, CSV and PNG with --out).")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--agents", nargs="+", metavar="SPEC",
                     help="the line-up: random, greedy, heuristic, checkpoint:<path> (one per seat)")
    who.add_argument("--pool", nargs="+", metavar="SPEC",
                     help="round robin among these agents, with ratings and head-to-head rates")
    p.add_argument("--rules", default="classic", help="preset (classic, tmnt, house) or YAML file")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one rule option, e.g. --set uno_call=explicit (repeatable)")
    p.add_argument("--num-players", type=int, default=None,
                   help="seats (default: number of agents; the line-up repeats to fill them)")
    p.add_argument("--table-size", type=int, default=2, help="pool mode: players per table (default 2)")
    p.add_argument("--games", type=int, default=10_000, help="games (per table in pool mode)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                   help="worker processes (default: 2, or 1 on a single core)")
    p.add_argument("--no-duplicate", dest="duplicate", action="store_false",
                   help="a fresh deal for every game instead of each deal played in every rotation")
    p.add_argument("--out", default=None, help="directory for evaluation.json / .csv / .png")
    p.add_argument("--log-dir", default=None, metavar="DIR",
                   help="write a replayable JSON Lines log of each game to DIR/game-XXXXXX.jsonl "
                        "(not in pool mode)")
    p.add_argument("--log-games", type=int, default=None, metavar="N",
                   help="with --log-dir: log only the first N games (default: all)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    p.add_argument("--quiet", action="store_true", help="print no tables")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.log_games is not None and args.log_dir is None:
        parser.error("--log-games needs --log-dir")
    if args.log_games is not None and args.log_games < 0:
        parser.error("--log-games must be >= 0")
    if args.pool and args.log_dir is not None:
        parser.error("--log-dir is not supported in pool mode")
    overrides = _parse_set(args.set)
    try:
        if args.pool:
            result = evaluate_pool(args.pool, rules=args.rules, table_size=args.table_size, games=args.games,
                                   seed=args.seed, workers=args.workers, duplicate=args.duplicate,
                                   progress=args.progress, **overrides)
            tables = format_pool(result)
            stem = "pool"
        else:
            result = evaluate(args.agents, rules=args.rules, num_players=args.num_players, games=args.games,
                              seed=args.seed, workers=args.workers, duplicate=args.duplicate,
                              progress=args.progress, log_dir=args.log_dir, log_games=args.log_games,
                              **overrides)
            tables = format_result(result)
            stem = "evaluation"
    except ValueError as exc:
        print(f"uno-evaluate: error: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        print_tables(tables)
    if args.out:
        paths = write_outputs(result, args.out, stem)
        if not args.quiet:
            print("wrote " + ", ".join(paths.values()))
    if args.log_dir and not args.quiet:
        print(f"wrote {result['config']['logged_games']} game logs to {args.log_dir}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
