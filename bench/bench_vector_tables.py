"""The batched vector env (layout 1) at every table: learner steps and decisions per CPU second.

    python bench/bench_vector_tables.py [--num-envs 1024] [--seconds 2] [--repeats 2] [--bots]

For each of classic, house and tmnt at 2 and 4 players: ``gymnasium.make_vec("uno_env/Uno-v1",
vectorization_mode="vector_entry_point", opponents=["random"])`` with ``--num-envs`` games, the
learner playing uniformly random legal actions (``bench_batched.random_legal``, a compiled
loop over ``info["action_mask"]``). A learner step is one game's decision of the learner
(``num_envs`` per ``env.step``); decisions count every seat's (the opponents play inside the
step). Rates are per second of CPU time (``time.process_time``), the best of ``--repeats`` runs,
after a warm-up step that compiles or loads the kernels: ``learner steps/s`` counts the whole
loop (the learner's choice included), ``env.step only`` the time inside ``env.step``. Prints a
Markdown table.

``--bots``: classic, 2 players only, the compiled scripted opponents side by side (``random``,
``greedy``, ``heuristic``; the cases alternated in each of ``--repeats`` rounds, so that a
loaded machine slows them alike), with the ratio to ``random`` of the same round; then the
compiled bots' own decisions per CPU second (``BatchedEngine.heuristic_actions`` /
``greedy_actions`` deciding for every seat of ``--num-envs`` games, the kernel call timed
alone, games reset as they end). ``--python-heuristic`` adds a round against ``heuristic`` played
the way it was before the kernels (one Python agent per game, ``vector_env.COMPILED_BOTS``
emptied), with ``random`` again beside it.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gymnasium  # noqa: E402
from bench_batched import random_legal  # noqa: E402

import uno_env  # noqa: E402,F401  (registers the ids)

TABLES = (("classic", 2), ("house", 2), ("tmnt", 2), ("classic", 4), ("house", 4), ("tmnt", 4))


def measure(rules: str, players: int, n: int, seconds: float, repeats: int,
            opponent: str = "random") -> tuple[int, float, float, float]:
    env = gymnasium.make_vec("uno_env/Uno-v1", num_envs=n, vectorization_mode="vector_entry_point",
                             rules=rules, num_players=players, opponents=[opponent])
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    engine = env.unwrapped.engine
    obs, _, _, _, info = env.step(random_legal(rng, info["action_mask"]))  # compile / load the kernels
    best = (0.0, 0.0, 0.0)
    for _ in range(repeats):
        calls = decisions = 0
        in_step = 0.0
        start = time.process_time()
        while time.process_time() - start < seconds:
            before = engine.steps.astype(np.int64)
            actions = random_legal(rng, info["action_mask"])
            t0 = time.process_time()
            obs, _, _, _, info = env.step(actions)
            in_step += time.process_time() - t0
            after = engine.steps.astype(np.int64)
            # a game reset in this step restarted its count: count its new episode's decisions only
            decisions += int(np.where(after >= before, after - before, after).sum())
            calls += 1
        cpu = time.process_time() - start
        best = max(best, (calls * n / cpu, calls * n / in_step, decisions / cpu))
    env.close()
    return obs.shape[1], best[0], best[1], best[2]


BOT_OPPONENTS = ("random", "greedy", "heuristic")


def bot_decisions(bot: str, n: int, seconds: float) -> float:
    """The compiled ``bot``'s decisions per CPU second of its kernel (classic, 2 players, every seat)."""
    from uno_env.agents.heuristic import HeuristicWeights
    from uno_env.game.batched import BatchedEngine
    from uno_env.game.batched import bots as BK

    eng = BatchedEngine("classic", 2, n, layout=1)
    eng.reset(seeds=range(n))
    streams, beliefs = BK.GreedyStreams(n, 2), BK.HeuristicBeliefs(n, 2)
    for b in range(n):
        for p in range(2):
            streams.seed_like_agent(b, p, b * 2 + p)
    w = HeuristicWeights().as_array()
    decide = (lambda: eng.heuristic_actions(beliefs, w)) if bot == "heuristic" else \
        (lambda: eng.greedy_actions(streams))
    decide()  # compile / load
    decisions, spent = 0, 0.0
    start = time.process_time()
    while time.process_time() - start < seconds:
        live = ~eng.game_over
        t0 = time.process_time()
        actions = decide()
        spent += time.process_time() - t0
        decisions += int(live.sum())
        eng.step(actions, active=live)
        done = eng.game_over | eng.truncated()
        if done.any():
            beliefs.reset(done)
            eng.reset(done)
    return decisions / spent


def main_bots(n: int, seconds: float, repeats: int, python_heuristic: bool = False) -> None:
    best = {bot: (0.0, 0.0, 0.0) for bot in BOT_OPPONENTS}
    ratios = {bot: 0.0 for bot in BOT_OPPONENTS}
    for _ in range(repeats):
        rnd = {bot: measure("classic", 2, n, seconds, 1, bot) for bot in BOT_OPPONENTS}
        for bot, (_size, steps, env_steps, decisions) in rnd.items():
            best[bot] = max(best[bot], (steps, env_steps, decisions))
            ratios[bot] = max(ratios[bot], steps / rnd["random"][1])
    print("| opponents | N | learner steps/s (CPU) | env.step only | decisions/s (CPU) | learner steps / random's |")
    print("|---|---:|---:|---:|---:|---:|")
    for bot in BOT_OPPONENTS:
        steps, env_steps, decisions = best[bot]
        print(f"| {bot} | {n:,} | {steps:,.0f} | {env_steps:,.0f} | {decisions:,.0f} | {ratios[bot]:.2f} |",
              flush=True)
    if python_heuristic:
        from uno_env.envs import vector_env

        rnd = measure("classic", 2, n, seconds, 1, "random")
        compiled, vector_env.COMPILED_BOTS = vector_env.COMPILED_BOTS, ()
        try:
            _size, steps, env_steps, decisions = measure("classic", 2, n, seconds, 1, "heuristic")
        finally:
            vector_env.COMPILED_BOTS = compiled
        print(f"| heuristic, Python agents (random beside it: {rnd[1]:,.0f}) | {n:,} | {steps:,.0f} | "
              f"{env_steps:,.0f} | {decisions:,.0f} | {steps / rnd[1]:.3f} |", flush=True)
    print()
    print("| compiled bot | B | decisions/s of its kernel (CPU) |")
    print("|---|---:|---:|")
    for bot in ("greedy", "heuristic"):
        rate = max(bot_decisions(bot, n, seconds) for _ in range(repeats))
        print(f"| {bot} | {n:,} | {rate:,.0f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num-envs", type=int, default=1024)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--bots", action="store_true",
                    help="classic 2 players against random, greedy and heuristic, and the bots' own rates")
    ap.add_argument("--python-heuristic", action="store_true",
                    help="with --bots: also heuristic as one Python agent per game (as before the kernels)")
    args = ap.parse_args()
    if args.bots:
        main_bots(args.num_envs, args.seconds, args.repeats, args.python_heuristic)
        return
    print("| rules | players | N | observation | learner steps/s (CPU) | env.step only | decisions/s (CPU) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for rules, players in TABLES:
        size, steps, env_steps, decisions = measure(rules, players, args.num_envs, args.seconds, args.repeats)
        print(f"| {rules} | {players} | {args.num_envs:,} | {size} | {steps:,.0f} | {env_steps:,.0f} "
              f"| {decisions:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
