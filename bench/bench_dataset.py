"""Datasets (docs/datasets.md): the clone from a Minari dataset against the clone from today's
collection, the same fit.

    MINARI_DATASETS_PATH=/tmp/ds uno-dataset create --agents heuristic --decisions 100000
    MINARI_DATASETS_PATH=/tmp/ds python bench/bench_dataset.py --dataset uno/classic-2p/heuristic-v0 --decisions 100000

Both sources give ``--decisions`` decisions of the heuristic in classic 2-player games: the
dataset (one recorded seat a game, ``imitation.dataset_demonstrations``) and the collection of
the training scripts (every seat, ``imitation.collect_demonstrations``, seed ``--seed``). Each
fits a fresh MaskablePPO policy of the shipped classic-2p network (``obs_features``, 256 x 256,
tanh) with ``sb3.imitate.imitate`` (``--epochs`` at lr 1e-3, seed 0) and is then scored on the
*same* held-out decisions (``--test-decisions`` of a collection with another seed): the share of
the heuristic's moves it picks greedily. Prints one line per source: rows, games, CPU seconds to
get the rows (process time), CPU seconds to fit, agreement on its own rows and on the held-out ones.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="uno/classic-2p/heuristic-v0")
    p.add_argument("--decisions", type=int, default=100_000)
    p.add_argument("--test-decisions", type=int, default=20_000)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    import torch
    from sb3_contrib import MaskablePPO

    from uno_env.envs.gym_env import UnoGymEnv
    from uno_env.game.rules import make_rules
    from uno_env.learn.imitation import check_dataset_for, collect_demonstrations, dataset_demonstrations
    from uno_env.learn.sb3.imitate import imitate
    from uno_env.learn.sb3.policy import ObsFeatures

    torch.set_num_threads(1)
    rules = make_rules("classic")
    test = collect_demonstrations(rules, 2, args.test_decisions, seed=args.seed + 1000)

    def fresh_model():
        return MaskablePPO("MlpPolicy", UnoGymEnv(rules, 2, opponents="random"), seed=0, device="cpu",
                           policy_kwargs={"net_arch": list(args.hidden), "features_extractor_class": ObsFeatures,
                                          "features_extractor_kwargs": {"num_players": 2},
                                          "activation_fn": torch.nn.Tanh})

    sources = {
        "dataset": lambda: dataset_demonstrations(
            check_dataset_for(args.dataset, rules, 2, "heuristic", args.decisions), args.decisions),
        "collection": lambda: collect_demonstrations(rules, 2, args.decisions, seed=args.seed),
    }
    results = []
    for name, get in sources.items():
        began = time.process_time()
        demos = get()
        got = time.process_time() - began
        model = fresh_model()
        began = time.process_time()
        fit = imitate(model, demos, epochs=args.epochs, learning_rate=1e-3, seed=0)
        fitted = time.process_time() - began
        held_out = imitate(model, test, epochs=1, learning_rate=1e-12, seed=0)["agreement"]  # scored, unchanged
        row = {"source": name, "rows": len(demos), "games": demos.games, "get_s": round(got, 1),
               "fit_s": round(fitted, 1), "agreement": round(fit["agreement"], 4), "held_out": round(held_out, 4)}
        print(f"{name:<10}  {row['rows']:>8,} rows  {row['games']:>6,} games  rows in {got:6.1f} s CPU  "
              f"fit {fitted:6.1f} s CPU  agreement {fit['agreement']:.1%} (own rows)  {held_out:.1%} (held out)",
              flush=True)
        results.append(row)
        del demos
    return results


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
