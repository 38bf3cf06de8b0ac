"""Throughput of the batched engine and its vector env against a SyncVectorEnv of scalar envs.

    taskset -c 1 python bench/bench_batched.py                    # the README table
    taskset -c 1 python bench/bench_batched.py --seconds 1 --repeats 1 --scaling 1,64,1024

Every case plays uniformly random legal actions, classic rules, 2 players, for ``--seconds``,
``--repeats`` times, and keeps the best run; decisions are engine decisions (every seat's,
also those the opponents take inside a vector env's ``step``). Rates are per second of wall
time and per second of this process's CPU time (``time.process_time``: on a shared machine
the fairer of the two). Cases, all measured in this one run:

``engine``        ``BatchedEngine`` at batch ``B``: ``legal_masks`` (int8, ``(B, 195)``), a uniformly
                  random legal action per game (compiled kernel), ``step`` (legality checked),
                  finished games reset; no observations. The scaling curve runs it for every B.
``vector``        ``gymnasium.make_vec("uno_env/Uno-v1", vectorization_mode="vector_entry_point")``
                  with N envs, ``opponents=["random"]``: observations (N, 1537: layout 1), masks, autoreset;
                  the learner's random legal actions are drawn from ``info["action_mask"]`` by a
                  compiled loop (``random_legal``).
``sync``          ``gymnasium.vector.SyncVectorEnv`` of N scalar ``Uno-v1`` envs, same opponents and
                  learner; decisions counted from each env's engine state.

Memory: the engine's state bytes per game (``memory_per_game``) and the vector env's buffers.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import gymnasium
import numba
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import uno_env  # noqa: E402,F401
from uno_env.game.batched import BatchedEngine, rng_words  # noqa: E402


def memory_per_game(eng: BatchedEngine) -> int:
    """Bytes of engine state per game of ``eng``'s batch (every array of ``eng.st``)."""
    return sum(a.nbytes for a in eng.st) // eng.batch_size


@numba.njit(cache=True, nogil=True)
def _pick_legal(masks: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    for b in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[b, a] != 0
        k = min(int(u[b] * count), count - 1)  # the k-th legal action (0 for an all-zero row)
        out[b] = 0
        for a in range(masks.shape[1]):
            if masks[b, a] != 0:
                if k == 0:
                    out[b] = a
                    break
                k -= 1


def random_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (0 for an all-zero row), picked by
    a compiled loop: the benchmarks' learner, whose own time should be small beside the env's
    (a numpy ``argmax`` over random keys of every (game, action) took 37% of a vector-env
    benchmark's time)."""
    out = np.empty(masks.shape[0], np.int64)
    _pick_legal(masks, rng.random(masks.shape[0]), out)
    return out


def timed(fn, seconds: float) -> tuple[int, float, float]:
    """Run ``fn()`` (returns decisions) until ``seconds`` of wall time; (decisions, wall, cpu)."""
    decisions = 0
    w0, c0 = time.perf_counter(), time.process_time()
    while time.perf_counter() - w0 < seconds:
        decisions += fn()
    return decisions, time.perf_counter() - w0, time.process_time() - c0


def case_engine(B: int, seconds: float, rules: str, players: int):
    eng = BatchedEngine(rules, players, B)
    eng.reset(seeds=range(B))
    prng = rng_words(range(10_000, 10_000 + B))
    masks = np.empty((B, 195), np.int8)

    def one() -> int:
        over = eng.game_over
        if over.any():
            eng.reset(over)
        eng.legal_masks(out=masks)
        eng.step(eng.uniform_actions(prng))
        return B

    one()  # compile outside the timing
    return timed(one, seconds), memory_per_game(eng)


def case_vector(N: int, seconds: float, rules: str, players: int):
    env = gymnasium.make_vec("uno_env/Uno-v1", num_envs=N, vectorization_mode="vector_entry_point",
                             rules=rules, num_players=players, opponents=["random"])
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    state = {"info": info}
    eng = env.unwrapped.engine

    def one() -> int:
        before = eng.steps.astype(np.int64)
        _, _, term, trunc, state["info"] = env.step(random_legal(rng, state["info"]["action_mask"]))
        after = eng.steps.astype(np.int64)
        # a game reset in this step restarted its count: count its new episode's decisions only
        return int(np.where(after >= before, after - before, after).sum())

    one()
    return timed(one, seconds)


def case_sync(N: int, seconds: float, rules: str, players: int):
    env = gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make("uno_env/Uno-v1", rules=rules, num_players=players, opponents=["random"],
                                disable_env_checker=True) for _ in range(N)])
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    state = {"info": info}
    envs = [e.unwrapped for e in env.envs]

    def one() -> int:
        before = np.array([e.game_state.steps for e in envs])
        _, _, term, trunc, state["info"] = env.step(random_legal(rng, state["info"]["action_mask"]))
        after = np.array([e.game_state.steps for e in envs])
        return int(np.where(after >= before, after - before, after).sum())

    one()
    return timed(one, seconds)


def best(runs):
    """The run with the most decisions per CPU second."""
    return max(runs, key=lambda r: r[0] / r[2])


def fmt(r) -> tuple[str, str]:
    d, wall, cpu = r
    return f"{d / wall:>12,.0f}", f"{d / cpu:>12,.0f}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--rules", default="classic")
    p.add_argument("--num-players", "--players", dest="players", type=int, default=2)
    p.add_argument("--n", type=int, default=1024, help="N of the side-by-side comparison")
    p.add_argument("--scaling", default="1,4,16,64,256,1024,4096,16384,65536")
    args = p.parse_args(argv)
    N, s, rep = args.n, args.seconds, args.repeats
    print(f"{args.rules}, {args.players} players, uniformly random legal actions; best of {rep} x {s:g} s; "
          f"numpy {np.__version__}, gymnasium {gymnasium.__version__}, CPU affinity "
          f"{sorted(os.sched_getaffinity(0))}")
    print(f"\nSide by side, N = {N}:\n")
    print(f"| case | decisions/s (wall) | decisions/s (CPU) |\n|---|---:|---:|")
    eng = best([case_engine(N, s, args.rules, args.players)[0] for _ in range(rep)])
    vec = best([case_vector(N, s, args.rules, args.players) for _ in range(rep)])
    syn = best([case_sync(N, s, args.rules, args.players) for _ in range(rep)])
    for name, r in ((f"BatchedEngine, B={N}", eng), (f"make_vec vector_entry_point, N={N}", vec),
                    (f"SyncVectorEnv of {N} Uno-v1", syn)):
        w, c = fmt(r)
        print(f"| {name} | {w} | {c} |")
    rate = lambda r: (r[0] / r[1], r[0] / r[2])  # noqa: E731
    for name, r in (("BatchedEngine", eng), ("batched vector env", vec)):
        print(f"\n{name} / SyncVectorEnv: {rate(r)[0] / rate(syn)[0]:.1f}x (wall), "
              f"{rate(r)[1] / rate(syn)[1]:.1f}x (CPU)")
    print("\nScaling (BatchedEngine, masks + random legal action + step):\n")
    print("| B | decisions/s (wall) | decisions/s (CPU) | state bytes/game |\n|---:|---:|---:|---:|")
    for B in [int(x) for x in args.scaling.split(",")]:
        runs, mem = [], 0
        for _ in range(rep):
            r, mem = case_engine(B, s, args.rules, args.players)
            runs.append(r)
        w, c = fmt(best(runs))
        print(f"| {B:,} | {w} | {c} | {mem} |")
    env = gymnasium.make_vec("uno_env/Uno-v1", num_envs=N, vectorization_mode="vector_entry_point",
                             rules=args.rules, num_players=args.players)
    u = env.unwrapped
    buffers = u._obs.nbytes + u._masks.nbytes + u._opp_masks.nbytes + u._opp_rng.nbytes + u.seats.nbytes
    print(f"\nVector env per game: {memory_per_game(u.engine)} bytes of engine state + "
          f"{buffers // N} bytes of buffers (+ {u.engine.obs_size * 4 + 195} bytes per returned observation and mask)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
