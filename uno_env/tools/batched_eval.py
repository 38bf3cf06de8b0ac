"""Millions of games between two agents on the batched engine (any ruleset).

Library use::

    from uno_env.tools.batched_eval import evaluate_batched
    r = evaluate_batched("checkpoint:checkpoints/classic-2p", "random", games=1_000_000)
    r["win_rate"], r["win_ci95"], r["games_per_s"]

Command line::

    python -m uno_env.tools.batched_eval --agent checkpoint:checkpoints/classic-2p \\
        --opponent random --games 1000000 --batch 8192 --seed 0

**How games are played.** ``batch`` games run at once in a
:class:`~uno_env.game.batched.BatchedEngine`; each finished game's slot starts the next
game. Per round of decisions, every game where the agent decides is answered by one call of
the agent (a checkpoint's policy runs once on all those observations and masks), every game
where an opponent decides likewise. Agents: ``random``, ``uniform`` (each legal action equally
likely), ``greedy``, ``heuristic`` and ``heuristic:key=value,...`` (the scripted bots as compiled
kernels, :mod:`uno_env.game.batched.bots`: the scalar bots' decisions), ``checkpoint:<dir>`` or ``pretrained:<name>`` (``#sample`` samples; either observation
layout: the batched engine observes layout 1, of which a layout-0 policy reads the first 1254
entries), or a callable ``f(observations (M, 1537), masks) -> actions``.

**Seats and seeds.** The agent sits at seat ``g % n`` in game ``g`` (every seat equally
often when ``games`` is a multiple of ``n``), the opponent at every other seat. Slot ``b``
of the batch deals its games from one stream started at ``np.random.default_rng([seed, b])``
(dealer, shuffle and reshuffles exactly as the scalar engine with that generator, one game
after another), and its ``random`` choices from another; ``greedy``'s tie-breaks come from one
Mersenne Twister per slot and seat (``random.Random(default_rng([seed, 2, b, seat]).integers(2**63))``,
as a ``GreedyAgent`` seeded with that seed draws), and the heuristic's beliefs start afresh
with every game; a run is reproduced by the same
``seed`` and ``batch``. Games cut at ``rules.max_steps`` count as not won and are reported.

The scalar evaluation tool (:mod:`uno_env.tools.evaluate`) plays every ruleset and any
agent (scripted bots too), with duplicate deals and ratings; this one trades those for speed.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Callable, Sequence

import numpy as np

from uno_env.game import actions as A
from uno_env.game.batched import BatchedEngine, rng_words
from uno_env.game.batched import bots as BK
from uno_env.game.observation import LAYOUT_VERSION
from uno_env.game.rules import make_rules
from uno_env.tools.stats import wilson_interval


COMPILED_BOTS = ("random", "uniform")  # the bots the batched engine plays in a kernel


def _actor(spec: Any, rules, n: int, seed: int) -> tuple[str, Callable | None]:
    """``("random", None)``, ``("uniform", None)``, ``("greedy", None)``, ``("heuristic",
    weights)`` or ``("policy", f(obs, masks) -> actions)`` for an agent spec."""
    if isinstance(spec, str) and spec in COMPILED_BOTS:
        return spec, None
    from uno_env.agents.base import make_agent, parse_spec
    from uno_env.agents.heuristic import HeuristicWeights

    if isinstance(spec, str) and parse_spec(spec).kind in ("greedy", "heuristic"):
        make_agent(spec, rules, n, seed)  # ValueError for a bad spec
        if parse_spec(spec).kind == "greedy":
            return "greedy", None
        return "heuristic", HeuristicWeights.from_spec(spec).as_array()

    if isinstance(spec, str) and parse_spec(spec).is_policy:
        agent = make_agent(spec, rules, n, seed)
        policy, det, rng = agent.policy, agent.deterministic, agent.rng
        return "policy", lambda obs, masks: policy.act(obs, masks, det, rng)
    if callable(spec):
        return "policy", spec
    raise ValueError(f"agent must be 'random', 'uniform', 'greedy', 'heuristic[:key=value,...]', a checkpoint policy (checkpoint:<dir>, pretrained:<name>) "
                     f"or a callable f(obs, masks), got {spec!r}")


def evaluate_batched(agent: Any, opponent: Any = "random", rules: Any = "classic", num_players: int = 2,
                     games: int = 10_000, batch: int = 4096, seed: int = 0,
                     progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play ``games`` games of ``agent`` against ``opponent`` (every other seat); the results.
    numpy's BLAS runs on one thread meanwhile (``blas_threads``: a batch's policy forward is
    small matrices, for which a second BLAS thread only spins; see docs/evaluation.md)."""
    from uno_env.tools.batched_table import blas_threads

    with blas_threads():
        return _evaluate_batched(agent, opponent, rules, num_players, games, batch, seed, progress)


def _evaluate_batched(agent: Any, opponent: Any, rules: Any, num_players: int, games: int, batch: int,
                      seed: int, progress: Callable[[int], None] | None) -> dict[str, Any]:
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise ValueError(f"batch must be a positive integer, got {batch!r}")
    r = make_rules(rules)
    B = int(min(batch, games))
    eng = BatchedEngine(r, num_players, B, layout=LAYOUT_VERSION)
    n = eng.n
    actors = [_actor(agent, r, n, seed), _actor(opponent, r, n, seed + 1)]
    prng = rng_words([[seed, 1_000_000_007, b] for b in range(B)])
    kinds = {kind for kind, _ in actors}
    streams = BK.GreedyStreams(B, n, allocate="greedy" in kinds)
    if "greedy" in kinds:
        for b in range(B):
            for p in range(n):
                streams.seed_like_agent(b, p, [seed, 2, b, p])
    beliefs = BK.HeuristicBeliefs(B, n)
    game_of = np.arange(B)  # game index played in each slot
    seat = game_of % n  # the agent's seat in each slot
    eng.reset(seeds=[[seed, b] for b in range(B)])
    started = B
    wins = truncated = decisions = turns = 0
    finished = 0
    max_steps = r.max_steps
    actions = np.zeros(B, np.int64)
    obs = np.zeros((B, eng.obs_size), np.float32)
    masks = np.zeros((B, A.NUM_ACTIONS), np.int8)
    running = np.ones(B, bool)
    t0 = time.perf_counter()
    while running.any():
        live = running & ~eng.game_over
        mine = live & (eng.actor == seat)
        for (kind, fn), sel in ((actors[0], mine), (actors[1], live & ~mine)):
            if not sel.any():
                continue
            if kind == "random":
                actions[sel] = eng.random_bot_actions(prng, sel)[sel]
            elif kind == "uniform":
                actions[sel] = eng.uniform_actions(prng, sel)[sel]
            elif kind == "greedy":
                actions[sel] = eng.greedy_actions(streams, sel)[sel]
            elif kind == "heuristic":
                actions[sel] = eng.heuristic_actions(beliefs, fn, sel)[sel]
            else:
                rows = np.flatnonzero(sel)
                o = eng.observe(eng.actor, sel, out=obs)[rows]
                m = eng.legal_masks(sel, out=masks)[rows]
                actions[rows] = np.asarray(fn(o, m), np.int64).reshape(len(rows))
        eng.step(actions, active=live)
        done = running & (eng.game_over | (eng.steps >= max_steps))
        if done.any():
            idx = np.flatnonzero(done)
            over = eng.game_over[idx]
            wins += int((over & (eng.winner[idx] == seat[idx])).sum())
            truncated += int((~over).sum())
            decisions += int(eng.steps[idx].sum())
            turns += int(eng.turns[idx].sum())
            finished += len(idx)
            if progress is not None:
                progress(finished)
            nxt = idx[:max(0, games - started)]
            running[idx[len(nxt):]] = False
            if len(nxt):
                game_of[nxt] = np.arange(started, started + len(nxt))
                seat[nxt] = game_of[nxt] % n
                started += len(nxt)
                eng.reset(nxt)  # the slot's card stream goes on
                beliefs.reset(nxt)
    wall = time.perf_counter() - t0
    lo, hi = wilson_interval(wins, games)
    return {
        "agent": str(agent), "opponent": str(opponent), "rules": r.name, "num_players": n,
        "games": int(games), "wins": wins, "win_rate": wins / games, "win_ci95": [lo, hi],
        "truncated": truncated, "decisions": decisions, "decisions_per_game": decisions / games,
        "turns_per_game": turns / games, "batch": B, "seed": seed, "wall_s": wall,
        "games_per_s": games / wall, "decisions_per_s": decisions / wall,
    }


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m uno_env.tools.batched_eval",
                                description="Many games of an agent against an opponent on the batched engine.")
    p.add_argument("--agent", required=True,
                   help="random, uniform, greedy, heuristic[:key=value,...], checkpoint:<dir>[#sample] or pretrained:<name>")
    p.add_argument("--opponent", default="random",
                   help="random, uniform, greedy, heuristic[:key=value,...], checkpoint:<dir> or pretrained:<name> (every other seat)")
    p.add_argument("--rules", default="classic", help="a preset (classic, tmnt, house, ...) or a YAML file")
    p.add_argument("--num-players", "--players", dest="players", type=int, default=2)
    p.add_argument("--games", type=int, default=100_000)
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--seed", type=int, default=0)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        r = evaluate_batched(args.agent, args.opponent, args.rules, args.players, args.games, args.batch,
                             args.seed)
    except (ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    lo, hi = r["win_ci95"]
    print(f"{r['agent']} vs {r['opponent']} ({r['rules']}, {r['num_players']} players): "
          f"{r['win_rate']:.2%} won (Wilson 95% {lo:.2%}-{hi:.2%}) of {r['games']:,} games, "
          f"{r['truncated']} truncated")
    print(f"{r['decisions']:,} decisions ({r['decisions_per_game']:.1f} a game) in {r['wall_s']:.1f} s: "
          f"{r['games_per_s']:,.0f} games/s, {r['decisions_per_s']:,.0f} decisions/s (batch {r['batch']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
