"""Evaluate agents against each other, with sound statistics.

Library use::

    from uno_env.tools.evaluate import evaluate, evaluate_paired, evaluate_pool, evaluate_vs
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

**How games are played.** By the arena, :func:`uno_env.agents.arena.play_game`, straight on
the engine (``Engine.new_state`` / ``legal_actions`` / ``step``): each deciding seat gets
``ObservationEncoder.encode`` and the action mask of the legal actions, and its agent's
``act(observation, mask)`` answers, so any :class:`~uno_env.agents.base.Agent` (scripted
bots, ``checkpoint:<path>`` models, instances passed in) plays through the same interface
as in the AEC env. An illegal answer stops the run with
:class:`~uno_env.agents.arena.IllegalActionError` (a ``ValueError``) naming the game.

**Seats and seeds.** The dealer is the last seat, so seat 0 plays first. The agents of a
line-up sit in a rotation that moves by one seat every game, so with ``games`` a multiple
of the player count every agent plays every seat equally often. With ``duplicate`` (the
default) the ``n`` rotations of a block share one shuffled deck: every agent is dealt
every hand of the block, which removes most of the luck of the deal from comparisons.
Game ``g`` depends only on ``(seed, g)``: the deck/engine RNG is seeded with
``(seed, g // n)`` (``(seed, g)`` without duplicate) and every agent is reset with a
seed derived from ``(seed, g, entry)``. A run therefore gives the same games with any
number of workers, so ``workers`` is a maximum (:func:`worker_plan`): one process per task of
games at most, and per CPU this process may use.

**Game logs.** With ``log_dir`` (``--log-dir DIR``; ``log_games`` / ``--log-games N``: only
games ``0..N-1``) game ``g`` is also written to ``DIR/game-{g:06d}.jsonl``, a JSON Lines log
of :mod:`uno_env.tools.gamelog` (one record per decision) that
:func:`uno_env.tools.gamelog_replay.replay` (or ``uno-replay``) replays exactly. The arena keeps the action ids of a logged
game (``record_actions``) and the log is written afterwards with :func:`uno_env.tools.gamelog.log_game` from a fresh
generator seeded like the game's, the dealer, the spec of every seat, the agents' seeds and
``meta`` (``tool``, ``game``, ``seed``, ``deal``, ``duplicate``, ``entries``: the line-up
entry at each seat, ``labels``). Every worker writes the logs of the games it plays; games
that are not logged keep no actions.

**Statistics** (:mod:`uno_env.tools.stats`). Per agent: wins (``win_rate`` with its Wilson score 95% interval), mean
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

**Paired mode.** ``evaluate_paired`` plays each of several agents in turn in one seat
against the same opponents on the same games (the games of ``evaluate_vs``: only the agent
in entry 0 changes, with the same seed) and reports, beside each agent's win rate, its difference from the
first agent game by game with a 95% interval: the test to tell whether a change to an agent
helps, far tighter than comparing two Wilson intervals.

**Results** are JSON-serialisable dicts (keys below in :func:`evaluate`, :func:`evaluate_paired`,
:func:`evaluate_pool`);
:mod:`uno_env.tools.report` prints them as tables and writes JSON, CSV and a PNG chart.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from uno_env._files import check_directory
from uno_env._processes import mp_context as mp_context_of
from uno_env._processes import ignore_interrupts, pool_size, usable_cpus
from uno_env.agents.arena import GameRecord, IllegalActionError, play_game
from uno_env.game.engine import Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import Rules, make_rules
from uno_env.tools.stats import bradley_terry, elo_from_bt, mean_interval, ranks, summarize, wilson_interval

# ---------------------------------------------------------------------- playing games
@dataclass(frozen=True)
class TableGame:
    """One game of a line-up: its number, who sat where, its arena record and ranks."""

    game: int
    seat_entry: tuple[int, ...]  # line-up entry at each seat
    record: GameRecord
    seat_ranks: tuple[float, ...]  # per seat: 1 = winner, then by points left / game score

    @property
    def entry_seat(self) -> list[int]:
        """Seat of each line-up entry."""
        out = [0] * len(self.seat_entry)
        for s, e in enumerate(self.seat_entry):
            out[e] = s
        return out

    @property
    def winner_entry(self) -> int:
        """Line-up entry of the winner, -1 if truncated."""
        w = self.record.winner
        return self.seat_entry[w] if w >= 0 else -1

    def by_entry(self, per_seat: Sequence[Any]) -> list[Any]:
        """A per-seat sequence reordered by line-up entry."""
        return [per_seat[s] for s in self.entry_seat]


def _agent_seed(seed: int, game: int, entry: int) -> int:
    """The seed an agent is reset with for game ``game`` (-1: construction)."""
    state = np.random.SeedSequence([seed, game + 1, entry, 0x5EA7]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


def rank_keys(record: GameRecord, multi_round: bool, alternative: bool) -> list[tuple]:
    """Per seat: the key that orders the finish (smaller is better): the winner first, then
    fewer points left in hand (one round) or the game score (higher; alternative scoring:
    lower tally)."""
    winner = record.winner
    if multi_round:
        return [(0 if s == winner else 1, (x if alternative else -x)) for s, x in enumerate(record.scores)]
    return [(0 if s == winner else 1, x) for s, x in enumerate(record.hand_points)]


class _Table:
    """An engine, encoder and one agent per line-up entry, reused for many games."""

    def __init__(self, specs: Sequence[Any], rules: Rules, num_players: int, seed: int):
        from uno_env.agents import make_agent

        self.rules = rules
        self.n = num_players
        self.engine = Engine(rules, num_players)
        self.encoder = ObservationEncoder(self.engine)
        self.agents = [make_agent(spec, rules, num_players, seed=_agent_seed(seed, -1, e))
                       for e, spec in enumerate(specs)]
        self.spec_names = [_spec_name(s) for s in specs]
        self.labels = _labels(specs)
        self.multi_round = rules.episode != "round"
        self.alternative = rules.scoring == "alternative"

    @classmethod
    def from_config(cls, specs: Sequence[Any], rules_dict: dict, num_players: int, seed: int) -> "_Table":
        """A table in a worker process, from the ``rules.to_dict()`` the task carries."""
        return cls(specs, make_rules(rules_dict), num_players, seed)

    def play(self, seed: int, game: int, duplicate: bool, log_path: str | None = None) -> TableGame:
        """Play game ``game``; with ``log_path`` its log is written there afterwards."""
        n = self.n
        rot = game % n
        seat_entry = tuple((s + rot) % n for s in range(n))  # entry sitting at each seat
        deal = game // n if duplicate else game
        for e, agent in enumerate(self.agents):
            agent.reset(_agent_seed(seed, game, e))
        seat_agents = [self.agents[seat_entry[s]] for s in range(n)]
        try:
            record = play_game(self.engine, seat_agents, np.random.default_rng([seed, deal]), dealer=n - 1,
                               record_actions=log_path is not None, encoder=self.encoder)
        except IllegalActionError as exc:
            raise IllegalActionError(f"game {game}: {exc}", agent=exc.agent, seat=exc.seat,
                                     action=exc.action, legal=exc.legal) from None
        if log_path is not None:
            self._write_log(log_path, seed, game, deal, duplicate, seat_entry, record.actions)
        seat_ranks = ranks(rank_keys(record, self.multi_round, self.alternative))
        return TableGame(game, seat_entry, record, tuple(seat_ranks))

    def _write_log(self, path: str, seed: int, game: int, deal: int, duplicate: bool,
                   seat_entry: Sequence[int], actions: Sequence[int]) -> None:
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
                log_dir: str | None, log_games: int | None) -> list[TableGame]:
    """Games ``start..stop-1``: the logged ones (below ``log_games``) with their log path."""
    logged = start
    if log_dir is not None:
        logged = min(stop, stop if log_games is None else max(start, log_games))
    return ([table.play(seed, g, duplicate, game_log_path(log_dir, g)) for g in range(start, logged)]
            + [table.play(seed, g, duplicate) for g in range(logged, stop)])


_WORKER_TABLES: dict = {}


def _run_chunk(task: tuple) -> tuple[int, list[TableGame]]:
    """Worker entry point: play games ``start..stop-1`` of one line-up."""
    match, specs, rules_dict, n, seed, start, stop, duplicate, log_dir, log_games, table_cls = task
    key = (table_cls.__module__, table_cls.__qualname__, match, tuple(specs),
           json.dumps(rules_dict, sort_keys=True), n, seed)
    table = _WORKER_TABLES.get(key)
    if table is None:
        _WORKER_TABLES.clear()
        table = _WORKER_TABLES[key] = table_cls.from_config(specs, rules_dict, n, seed)
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


def worker_plan(workers: int, games: int, num_players: int, matches: int = 1) -> tuple[int, int, int]:
    """``(processes, chunk, tasks)`` of a run of ``games`` games for each of ``matches``
    line-ups with ``workers`` asked for: the games are played in tasks of ``chunk`` games, by
    at most ``processes`` = ``workers`` capped at the tasks and at the CPUs this process may use
    (:func:`uno_env._processes.pool_size`: ``--workers 40 --games 2`` starts no process at all).
    The games do not depend on it (module doc)."""
    workers = max(1, min(int(workers), usable_cpus()))
    chunk = max(num_players, min(500, games // max(1, workers * 8) or 1))
    tasks = matches * -(-max(0, games) // chunk)
    return pool_size(workers, tasks), chunk, tasks


def _play_matches(matches: list[list[Any]], rules: Rules, num_players: int, games: int,
                  seed: int, workers: int, duplicate: bool, progress: bool,
                  chunk: int | None = None, mp_context: str | None = None,
                  log_dir: str | None = None, log_games: int | None = None,
                  desc: str = "games", table_cls: type = _Table) -> list[list[TableGame]]:
    """Play ``games`` games for every line-up in ``matches``; the games per match, in order.
    With ``log_dir`` (one line-up only) games below ``log_games`` (all if None) are logged.
    ``table_cls``: the table that plays them (``_Table``: UNO; another game's table has the
    same ``__init__(specs, rules, n, seed)``, ``from_config`` and ``play``, and ``rules`` is
    its config with a ``to_dict()``: :mod:`uno_env.battle.tools.evaluate`)."""
    rules_dict = rules.to_dict()
    instances = any(not isinstance(s, str) for m in matches for s in m)
    if instances and int(workers) > 1:
        raise ValueError("agent instances can only be evaluated with workers=1; pass agent specs")
    for m in matches:
        shared = [s for s in m if not isinstance(s, str) and sum(x is s for x in m) > 1]
        if shared:
            raise ValueError(f"one agent instance ({_spec_name(shared[0])}) cannot sit in "
                             f"{sum(x is shared[0] for x in m)} seats: it would keep one memory and seed for all "
                             "of them; pass a spec string or one instance per seat")
    processes, planned_chunk, _ = worker_plan(workers, games, num_players, len(matches))
    chunk = planned_chunk if chunk is None else chunk
    if log_dir is not None and len(matches) != 1:
        raise ValueError("game logs are written for one line-up only")
    tasks = [(mi, list(m), rules_dict, num_players, seed, start, min(games, start + chunk), duplicate,
              log_dir, log_games, table_cls)
             for mi, m in enumerate(matches) for start in range(0, games, chunk)]
    processes = pool_size(processes, len(tasks))
    out: list[list[TableGame]] = [[] for _ in matches]
    bar = _progress(games * len(matches), progress, desc)
    try:
        if processes == 1:
            tables: dict[int, _Table] = {}
            for mi, m, _, n, sd, start, stop, dup, ldir, lgames, _ in tasks:
                table = tables.get(mi)
                if table is None:
                    tables.clear()
                    table = tables[mi] = table_cls(m, rules, n, sd)
                out[mi].extend(_play_range(table, sd, start, stop, dup, ldir, lgames))
                if bar is not None:
                    bar.update(stop - start)
        else:
            with mp_context_of(mp_context).Pool(processes, initializer=ignore_interrupts) as pool:
                for mi, played in pool.imap_unordered(_run_chunk, tasks):
                    out[mi].extend(played)
                    if bar is not None:
                        bar.update(len(played))
    finally:
        if bar is not None:
            bar.close()
    for played in out:
        played.sort(key=lambda t: t.game)
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


# ---------------------------------------------------------------------- statistics of a line-up
def _aggregate(played: list[TableGame], labels: list[str], specs: Sequence[Any], n: int) -> dict[str, Any]:
    games = len(played)
    wins = [0] * n
    points = [0.0] * n
    rank_sum = [0.0] * n
    seat_games = [[0] * n for _ in range(n)]
    seat_wins = [[0] * n for _ in range(n)]
    seat_win_total = [0] * n
    turns, steps = [], []
    truncated = 0
    for t in played:
        rec, entry_seat, winner = t.record, t.entry_seat, t.winner_entry
        turns.append(rec.turns)
        steps.append(rec.steps)
        truncated += rec.truncated
        for e in range(n):
            points[e] += rec.scores[entry_seat[e]]
            rank_sum[e] += t.seat_ranks[entry_seat[e]]
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
            "mean_rank": rank_sum[e] / games if games else 0.0,
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


# ---------------------------------------------------------------------- library API
def _agent_list(agents: Any, name: str) -> list[Any]:
    """The agents of a line-up as a list; one string (which ``list`` would split into letters)
    is refused, naming the argument."""
    if isinstance(agents, str):
        raise ValueError(f"{name} must be a list of agents, got the string {agents!r}; write [{agents!r}]")
    return list(agents)


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

    The result: ``config`` (``agents``, ``rules``, ``rule_options``, ``num_players``,
    ``games``, ``seed``, ``workers``, ``duplicate``), ``games``, ``agents`` (per line-up
    entry: ``entry``, ``label``, ``spec``, ``games``, ``wins``, ``win_rate``, ``win_ci95``,
    ``mean_points``, ``mean_rank``, ``seat_games``, ``seat_wins``), ``length`` (``turns``
    and ``steps``: :func:`~uno_env.tools.stats.summarize`), ``seats`` (per seat: ``seat``,
    ``games``, ``wins``, ``win_rate``, ``win_ci95``), ``first_seat``, ``truncated``,
    ``truncated_rate``, ``elapsed_s``, ``games_per_s``.
    """
    r = make_rules(rules, **rule_overrides)
    agents = _agent_list(agents, "agents")
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
    t0 = time.perf_counter()
    (played,) = _play_matches([lineup], r, n, games, seed, workers, duplicate, progress,
                                mp_context=mp_context, log_dir=log_dir, log_games=log_games)
    elapsed = time.perf_counter() - t0
    labels = _labels(lineup)
    result = _aggregate(played, labels, lineup, n)
    result["config"] = {"agents": [a if isinstance(a, str) else labels[i] for i, a in enumerate(lineup)],
                        "rules": r.name, "rule_options": r.to_dict(), "num_players": n,
                        "games": games, "seed": seed, "workers": workers, "duplicate": duplicate}
    if log_dir is not None:
        result["config"]["log_dir"] = log_dir
        result["config"]["logged_games"] = games if log_games is None else min(games, log_games)
    result["elapsed_s"] = elapsed
    result["games_per_s"] = games / elapsed if elapsed > 0 else float("inf")
    return result


def evaluate_vs(agent: Any, opponent: Any, rules: Any = "classic", num_players: int = 2,
                games: int = 10_000, seed: int = 0, workers: int = 1) -> dict[str, Any]:
    """``agent`` in one seat and ``opponent`` in every other seat (1 vs ``num_players - 1``,
    seats rotated, duplicate deals): what the training scripts record for a checkpoint's card
    and ``eval.csv``: ``games``, ``wins``, ``win_rate``, ``ci95`` (Wilson), ``truncated``,
    ``deterministic``, ``seats``, ``duplicate_deals``, ``seed``, ``lineup``.

    Not ``evaluate([agent, opponent], num_players=4)``: that line-up repeats (agent, opponent,
    agent, opponent), two seats of the agent."""
    result = evaluate([agent] + [opponent] * (num_players - 1), rules=rules, num_players=num_players,
                      games=games, seed=seed, workers=workers)
    me = result["agents"][0]
    label = opponent if isinstance(opponent, str) else getattr(opponent, "name", "agent")
    return {"games": games, "wins": me["wins"], "win_rate": me["win_rate"], "ci95": me["win_ci95"],
            "truncated": result["truncated"], "deterministic": True, "seats": "rotated",
            "duplicate_deals": True, "seed": seed, "lineup": f"1 vs {num_players - 1} {label}"}


def evaluate_paired(specs: Sequence[Any], opponent: Any = "random", rules: Any = "classic",
                    num_players: int = 4, games: int = 10_000, seed: int = 0, workers: int = 1,
                    duplicate: bool = True, progress: bool = False, mp_context: str | None = None,
                    **rule_overrides: Any) -> dict[str, Any]:
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

    The result: ``config`` (``specs``, ``opponent``, ``rules``, ``rule_options``,
    ``num_players``, ``games``, ``seed``, ``workers``, ``duplicate``), ``games``, ``specs``
    (per agent: ``label``, ``spec``, ``wins``, ``win_rate``, ``win_ci95``, ``truncated``,
    ``elapsed_s`` and, but for the first, ``difference``: ``mean`` and ``ci95`` of its
    results minus the first's), ``won`` (per agent, per game: 1 if it won), ``elapsed_s``.
    """
    from uno_env.agents import make_agent

    r = make_rules(rules, **rule_overrides)
    specs = _agent_list(specs, "specs")
    if not specs:
        raise ValueError("evaluate_paired needs at least one agent")
    n = int(num_players)
    if not 2 <= n <= 10:
        raise ValueError(f"num_players must be in 2..10, got {n}")
    if games < 2:
        raise ValueError(f"paired differences need games >= 2, got {games}")
    if not isinstance(opponent, str) and n > 2:
        raise ValueError(f"one agent instance ({_spec_name(opponent)}) cannot sit in the {n - 1} opponents' "
                         "seats: it would keep one memory and seed for all of them; pass a spec string")
    if workers > 1 and not all(isinstance(s, str) for s in specs + [opponent]):
        raise ValueError("agent instances can only be evaluated with workers=1; pass agent specs")
    for spec in [s for s in specs + [opponent] if isinstance(s, str)]:
        make_agent(spec, r, n)  # every spec checked before the first plays its games
    labels = _labels(specs)
    rows, won = [], []
    t0 = time.perf_counter()
    for spec, label in zip(specs, labels):
        began = time.perf_counter()
        (played,) = _play_matches([[spec] + [opponent] * (n - 1)], r, n, games, seed, workers, duplicate,
                                  progress, mp_context=mp_context, desc=label)
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
                   "opponent": _spec_name(opponent), "rules": r.name, "rule_options": r.to_dict(),
                   "num_players": n, "games": games, "seed": seed, "workers": workers, "duplicate": duplicate},
        "games": games,
        "specs": rows,
        "won": won,
        "elapsed_s": time.perf_counter() - t0,
    }


def evaluate_pool(pool: Sequence[str], rules: Any = "classic", table_size: int = 2,
                  games: int = 1_000, seed: int = 0, workers: int = 1, duplicate: bool = True,
                  progress: bool = False, mp_context: str | None = None,
                  **rule_overrides: Any) -> dict[str, Any]:
    """Round robin: ``games`` games at every table of ``table_size`` distinct agents of the
    pool; Bradley-Terry / Elo ratings and head-to-head rates.

    The result: ``config`` (``pool``, ``rules``, ``rule_options``, ``table_size``,
    ``games_per_table``, ``seed``, ``workers``, ``duplicate``), ``ratings`` (best first:
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
    t0 = time.perf_counter()
    all_played = _play_matches(matches, r, table_size, games, seed, workers, duplicate, progress,
                               mp_context=mp_context)
    elapsed = time.perf_counter() - t0
    pair_wins = np.zeros((k, k))
    ahead = np.zeros((k, k))
    shared = np.zeros((k, k))
    wins = np.zeros(k)
    played = np.zeros(k)
    truncated = 0
    matches_out = []
    for t, table_games in zip(tables, all_played):
        summary = _aggregate(table_games, _labels([pool[i] for i in t]), [pool[i] for i in t], table_size)
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

