"""Steady-state resident memory per game of the batched engine at scale, and what the vector env holds.

    python bench/bench_memory.py --rules classic --num-players 2 --games 100000 --steps 300
    python bench/bench_memory.py --vector --rules house --num-players 2 --games 4096

``--vector``: the bytes a game of ``UnoVectorEnv`` holds once built and reset (``tracemalloc``:
the engine's state, the env's buffers, its spaces; the observation space's bounds are one
broadcast row, :func:`uno_env.envs.vector_env.batched_box`), beside the engine's state and the
buffers alone.

Runs the loop of ``bench/bench_batched.py``'s engine case (legal masks into one buffer, uniform
random legal actions from per-game PCG64 words, finished games reset in place) on ``--games``
games for ``--steps`` steps and prints the growth of the process's resident set divided by the
games, beside the engine's own state arrays (``bench_batched.memory_per_game``). The difference
is what a step allocates for the batch (the actions, the masks, the checks' temporaries) and the
allocator's slack: it is per batch, not kept per game.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_batched import memory_per_game, rng_words  # noqa: E402

from uno_env.game.actions import NUM_ACTIONS  # noqa: E402
from uno_env.game.batched.engine import BatchedEngine  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE")


def resident() -> int:
    with open("/proc/self/statm") as f:  # Linux: pages resident is the second field
        return int(f.read().split()[1]) * PAGE


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--num-players", type=int, default=2)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--vector", action="store_true", help="the vector env's bytes a game (tracemalloc)")
    args = ap.parse_args()
    if args.vector:
        return vector(args)
    warm = BatchedEngine(args.rules, args.num_players, 8)  # compile before measuring
    warm.reset(seeds=range(8))
    base = resident()
    eng = BatchedEngine(args.rules, args.num_players, args.games)
    eng.reset(seeds=range(args.games))
    prng = rng_words(range(10_000, 10_000 + args.games))
    masks = np.empty((args.games, NUM_ACTIONS), np.int8)
    for _ in range(args.steps):
        over = eng.game_over
        if over.any():
            eng.reset(over)
        eng.legal_masks(out=masks)
        eng.step(eng.uniform_actions(prng))
    per_game = (resident() - base) / args.games
    print(f"{args.rules}, {args.num_players} players, {args.games:,} games, {args.steps} steps: "
          f"{per_game:,.0f} bytes a game resident; engine state {memory_per_game(eng):,}, the mask "
          f"buffer {NUM_ACTIONS}, the PCG64 words {prng.nbytes // args.games}")


def vector(args: argparse.Namespace) -> None:
    import tracemalloc

    from uno_env.envs.vector_env import UnoVectorEnv

    UnoVectorEnv(8, rules=args.rules, num_players=args.num_players).reset(seed=0)  # compile first
    tracemalloc.start()
    env = UnoVectorEnv(args.games, rules=args.rules, num_players=args.num_players)
    env.reset(seed=0)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    buffers = env._obs.nbytes + env._masks.nbytes + env._opp_masks.nbytes + env._opp_rng.nbytes + env.seats.nbytes
    print(f"vector env, {args.rules}, {args.num_players} players, {args.games:,} games: {held / args.games:,.0f} "
          f"bytes a game held (tracemalloc, built and reset); engine state {memory_per_game(env.engine):,}, "
          f"buffers {buffers // args.games:,}")


if __name__ == "__main__":
    main()
