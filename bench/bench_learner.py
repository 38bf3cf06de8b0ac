"""Learner steps per CPU-second: today's SB3 MaskablePPO path of ``training/train.py``
(``learner: sb3``) against the lean PPO on the batched engine (``learner: batched``), side by
side in one process, cases alternated, CPU time (``time.process_time``: a shared machine).

    nice python bench/bench_learner.py                      # the table of docs/speed.md
    nice python bench/bench_learner.py --rounds 1 --rollouts 1 --league random   # a quick look

Every case trains the shipped network (actor and critic 361 ``obs_features`` -> 256 -> 256
tanh, heads 195 and 1) from the same random start, but the fast presets; a step is a learner
decision, collected and learned from (rollout + update). The league (``--league``):
``quick`` is configs/train/quick.yaml's (heuristic 0.6, random 0.25, snapshots 0.15; the
shipped classic-2p agent stands in for a snapshot), ``random`` the random bot alone.

=================  ======================================================================
``sb3``            train.py's ``learner: sb3``: 16 ``UnoGymEnv`` in a DummyVecEnv, n_steps 256,
                   batch 1024, 4 epochs (configs/train/quick.yaml)
``sb3-batched``    SB3 MaskablePPO over the batched engine (a minimal SB3 ``VecEnv`` on the
                   same league of 256 games), n_steps 64, batch 1024, 4 epochs
``batched``        ``learner: batched`` at the same network and PPO settings: 256 games x
                   64 steps, batch 1024, 4 epochs, float32
``batched-bf16``   the same with ``bf16: true``
``fast``           the documented fast preset: 64 x 64, 1 epoch, batch 4096, bf16
=================  ======================================================================

``--baseline FILE`` adds, beside each batched case, the same case on another version of
``uno_env/learn/lean_ppo.py`` (``NAME-baseline``): a before/after in one run, e.g.
``git show aefec75:uno_env/learn/lean_ppo.py > /tmp/lean_ppo_before.py``.

Prints one row per case: steps per CPU-second (median of ``--rounds``), the ratio to
``sb3``, and for the batched cases the split of their CPU time (env, forward, update).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

SHIPPED = os.path.join(ROOT, "checkpoints", "classic-2p")
LEAGUES = {
    "quick": {"heuristic": 0.6, "random": 0.25, f"checkpoint:{SHIPPED}#sample": 0.15},
    "random": {"random": 1.0},
}
BATCHED_CASES = {  # name: (net_arch, n_epochs, batch_size, bf16)
    "batched": ([256, 256], 4, 1024, False),
    "batched-bf16": ([256, 256], 4, 1024, True),
    "fast": ([64, 64], 1, 4096, True),
}


def sb3_case(league: dict[str, float], seed: int = 0):
    """train.py's learner: sb3 at quick.yaml's settings; returns a function of one rollout + update."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    from uno_env.envs.gym_env import UnoGymEnv
    from uno_env.game.rules import make_rules
    from uno_env.learn.sb3.policy import ObsFeatures

    rules = make_rules("classic")
    venv = make_vec_env(lambda: UnoGymEnv(rules, 2, opponents="random", seat="random", max_learner_steps=500),
                        n_envs=16, seed=seed)
    venv.env_method("set_opponent_pool", list(league.items()))
    model = MaskablePPO("MlpPolicy", venv, learning_rate=1e-4, n_steps=256, batch_size=1024, n_epochs=4,
                        gamma=0.995, gae_lambda=0.95, clip_range=0.1, ent_coef=0.003, seed=seed, device="cpu",
                        policy_kwargs={"net_arch": [256, 256], "activation_fn": torch.nn.Tanh,
                                       "features_extractor_class": ObsFeatures,
                                       "features_extractor_kwargs": {"num_players": 2}})
    steps = 256 * 16

    def one() -> tuple[int, dict]:
        model.learn(steps, reset_num_timesteps=False)
        return steps, {}
    return one


def sb3_batched_case(league: dict[str, float], seed: int = 0):
    """SB3 MaskablePPO over the batched engine: a minimal SB3 ``VecEnv`` on the league of 256
    games (what learner: batched plays), n_steps 64, batch 1024, 4 epochs."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecEnv

    from uno_env.envs.vector_env import UnoVectorEnv
    from uno_env.game.rules import make_rules
    from uno_env.learn.batched_league import BatchedLeague, slice_opponents
    from uno_env.learn.sb3.policy import ObsFeatures

    n_games = 256
    games = BatchedLeague(make_rules("classic"), 2, n_games, 8, None, 500)
    games.start(slice_opponents(league, 8, []), seed)
    probe = UnoVectorEnv(1)

    class LeagueVecEnv(VecEnv):
        def __init__(self):
            super().__init__(n_games, probe.single_observation_space, probe.single_action_space)

        def reset(self):
            return games.observations.copy()

        def step_async(self, actions):
            self._actions = np.asarray(actions)

        def step_wait(self):
            rewards, done, _ = games.step(self._actions)
            return games.observations.copy(), rewards, done, [{} for _ in range(n_games)]

        def env_method(self, name, *args, indices=None, **kwargs):  # MaskablePPO asks for the masks
            return list(games.masks)

        def close(self): pass
        def get_attr(self, name, indices=None): return [None] * n_games
        def set_attr(self, name, value, indices=None): pass
        def env_is_wrapped(self, wrapper_class, indices=None): return [False] * n_games
        def seed(self, seed=None): return [None] * n_games

    venv = LeagueVecEnv()
    model = MaskablePPO("MlpPolicy", venv, learning_rate=1e-4, n_steps=64, batch_size=1024, n_epochs=4,
                        gamma=0.995, gae_lambda=0.95, clip_range=0.1, ent_coef=0.003, seed=seed, device="cpu",
                        policy_kwargs={"net_arch": [256, 256], "activation_fn": torch.nn.Tanh,
                                       "features_extractor_class": ObsFeatures,
                                       "features_extractor_kwargs": {"num_players": 2}})
    steps = 64 * n_games

    def one() -> tuple[int, dict]:
        model.learn(steps, reset_num_timesteps=False)
        return steps, {}
    return one


def load_baseline(path: str):
    """Another version of lean_ppo.py as a module (your own file: a benchmark's option)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("lean_ppo_baseline", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def batched_case(league: dict[str, float], net_arch, n_epochs, batch_size, bf16, seed: int = 0, lean_ppo=None):
    """learner: batched (the loop of train.py's train_batched, without its outputs);
    ``lean_ppo``: another version of the module (``--baseline``)."""
    from uno_env.game.rules import make_rules
    from uno_env.learn.batched_league import BatchedLeague, slice_opponents

    if lean_ppo is None:
        from uno_env.learn import lean_ppo

    learner = lean_ppo.Learner(net_arch, "tanh", "obs_features", 2, seed=seed, learning_rate=1e-4)
    n_games, n_steps = 256, 64
    league_env = BatchedLeague(make_rules("classic"), 2, n_games, 8, learner.opponent, 500)
    league_env.start(slice_opponents(league, 8, []), seed)
    rollout = lean_ppo.Rollout(n_steps, n_games, len(learner.keep))
    settings = lean_ppo.Settings(n_epochs=n_epochs, batch_size=batch_size, clip_range=0.1, bf16=bf16)

    def one() -> tuple[int, dict]:
        split = dict(env=0.0, forward=0.0, update=0.0)
        for t in range(n_steps):
            t0 = time.process_time()
            features = learner.features(league_env.observations)
            rollout.features[t], rollout.masks[t] = features, league_env.masks
            rollout.actions[t], rollout.log_probs[t], rollout.values[t] = learner.act(features, league_env.masks)
            t1 = time.process_time()
            rollout.rewards[t], rollout.dones[t], _ = league_env.step(rollout.actions[t])
            split["forward"] += t1 - t0
            split["env"] += time.process_time() - t1
        t0 = time.process_time()
        learner.update(rollout, learner.value(learner.features(league_env.observations)), settings, 1e-4, 0.003)
        split["update"] += time.process_time() - t0
        return n_steps * n_games, split
    return one


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--league", choices=sorted(LEAGUES), default="quick")
    parser.add_argument("--cases", nargs="+", default=["sb3", "sb3-batched", *BATCHED_CASES],
                        choices=["sb3", "sb3-batched", *BATCHED_CASES])
    parser.add_argument("--rounds", type=int, default=3, help="alternations of all cases")
    parser.add_argument("--rollouts", type=int, default=2, help="rollouts + updates per case and round")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--blas-threads", type=int, default=1, help="numpy's BLAS threads (all cases)")
    parser.add_argument("--baseline", metavar="FILE", help="another lean_ppo.py, run beside each batched case")
    args = parser.parse_args(argv)

    import torch

    from uno_env.learn.lean_ppo import limit_blas_threads
    torch.set_num_threads(args.threads)
    limit_blas_threads(args.blas_threads)  # every case: the numpy snapshot opponents of both paths
    league = LEAGUES[args.league]
    makers = {"sb3": sb3_case, "sb3-batched": sb3_batched_case}
    baseline = load_baseline(args.baseline) if args.baseline else None
    cases = {}
    for name in args.cases:
        if name in makers:
            cases[name] = makers[name](league)
            continue
        if baseline is not None:
            cases[f"{name}-baseline"] = batched_case(league, *BATCHED_CASES[name], lean_ppo=baseline)
        cases[name] = batched_case(league, *BATCHED_CASES[name])
    for one in cases.values():  # warm-up: numba's kernels, torch's first calls
        one()
    rates: dict[str, list[float]] = {name: [] for name in cases}
    splits: dict[str, dict] = {}
    for _ in range(args.rounds):
        for name, one in cases.items():
            began, steps, split = time.process_time(), 0, {}
            for _ in range(args.rollouts):
                n, s = one()
                steps += n
                split = {k: split.get(k, 0.0) + v for k, v in s.items()}
            rates[name].append(steps / (time.process_time() - began))
            splits[name] = split
    base = statistics.median(rates["sb3"]) if "sb3" in rates else None
    print(f"league {args.league}, torch threads {args.threads}, BLAS threads {args.blas_threads}, {args.rounds} rounds x {args.rollouts} rollouts "
          f"(steps per CPU-second, median; all rounds in brackets)")
    print(f"| case | steps/CPU-s | vs sb3 | env / forward / update |\n| --- | ---: | ---: | --- |")
    for name, r in rates.items():
        split = splits[name]
        parts = " / ".join(f"{v / sum(split.values()):.0%}" for v in split.values()) if split else "-"
        print(f"| {name} | {statistics.median(r):,.0f} ({', '.join(f'{x:,.0f}' for x in r)}) | "
              f"{f'{statistics.median(r) / base:.2f}x' if base else '-'} | {parts} |")


if __name__ == "__main__":
    main()
