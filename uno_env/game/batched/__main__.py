"""``python -m uno_env.game.batched --compile``: compile (or load) every kernel of the batched
engine once, so that the first batched call of a program does not spend its 2 minutes on it
(``scripts/setup.sh`` runs it after installing). Prints what it did and how long it took."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Sequence

import numpy as np


def compile_kernels() -> float:
    """Call every public method of :class:`~uno_env.game.batched.BatchedEngine` that runs a kernel
    once, on a small batch of house-rules games (the kernels are one compiled version for every
    ruleset, player count and layout: their arguments have the same types); the seconds taken."""
    from uno_env.game.batched import BatchedEngine, rng_words

    t0 = time.perf_counter()
    eng = BatchedEngine("house", 3, 4, layout=1)
    eng.reset(seeds=range(4))
    prng = rng_words(range(4))
    for _ in range(3):
        masks = eng.legal_masks()
        eng.legal_actions(0)
        eng.observe(eng.actor)
        eng.global_state(eng.actor)
        eng.random_bot_actions(prng)
        live = ~eng.game_over
        eng.step(np.where(live, eng.uniform_actions(prng), 0), active=live)
        assert masks.shape == (4, masks.shape[1])
    eng.random_bots_until(np.zeros(4, np.int64), prng)
    return time.perf_counter() - t0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m uno_env.game.batched",
                                description="The batched engine's kernels, compiled ahead of their first use.")
    p.add_argument("--compile", action="store_true", required=True,
                   help="compile every kernel (about 2 minutes on 2 cores the first time; seconds once cached)")
    p.parse_args(argv)
    print("uno_env.game.batched: compiling the kernels (about 2 minutes on 2 cores the first time)...", flush=True)
    seconds = compile_kernels()
    print(f"uno_env.game.batched: kernels ready in {seconds:.0f} s (cached on disk next to the package)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
