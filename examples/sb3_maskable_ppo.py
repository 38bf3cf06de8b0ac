"""MaskablePPO (sb3-contrib) on the Gymnasium view, the Stable-Baselines3 way.

    python examples/sb3_maskable_ppo.py --total-steps 200000 --opponent heuristic
    python examples/sb3_maskable_ppo.py --total-steps 2048 --eval-freq 1024 --eval-games 10   # smoke
    python examples/sb3_maskable_ppo.py --batched --n-envs 256 --total-steps 1000000   # the batched engine

``make_vec_env("uno_env/Uno-v1", ...)`` builds the training envs (SB3 passes
``render_mode="rgb_array"``; the env draws an image of the table). MaskablePPO finds the
env's ``action_masks()`` itself. With ``--batched`` the training envs are instead
``UnoSB3VecEnv`` (:mod:`uno_env.learn.sb3.vec_env`, needs numba): all ``--n-envs`` games in
one SB3 ``VecEnv`` over the batched engine (same-step autoreset, ``info["episode"]`` for SB3's
logger, ``action_masks()`` for MaskablePPO), far faster per step than one Python env per game;
``--opponent`` then plays as a compiled bot or a batched policy where it can (``random``,
``pretrained:<name>``), game by game otherwise. ``MaskableEvalCallback`` evaluates the greedy masked policy
every ``--eval-freq`` steps on a separate env and keeps the best model. The last lines show
how to turn the trained model into an agent for ``uno_env``'s evaluation tool.

For the project's full training script (self-play league, curriculum, checkpoints with cards,
duplicate-deal evaluation) see ``training/train.py``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.env_util import make_vec_env

import uno_env  # noqa: F401  (registers uno_env/Uno-v1)


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="classic")
    p.add_argument("--opponent", default="random")
    p.add_argument("--total-steps", type=int, default=200_000)
    p.add_argument("--n-envs", type=int, default=8)
    p.add_argument("--eval-freq", type=int, default=20_000, help="steps (all envs together) between evaluations")
    p.add_argument("--eval-games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="directory for the best model (default: a temp dir)")
    p.add_argument("--batched", action="store_true",
                   help="train on UnoSB3VecEnv: the --n-envs games in the batched engine (needs numba)")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads (the env is the bottleneck; more threads on a busy machine are far slower)")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)

    env_kwargs = {"rules": args.rules, "num_players": 2, "opponents": [args.opponent]}
    if args.batched:
        from uno_env.learn.sb3.vec_env import UnoSB3VecEnv

        envs = UnoSB3VecEnv(args.n_envs, seed=args.seed, **env_kwargs)
        eval_env = UnoSB3VecEnv(1, seed=args.seed + 1000, **env_kwargs)
    else:
        envs = make_vec_env("uno_env/Uno-v1", n_envs=args.n_envs, seed=args.seed, env_kwargs=env_kwargs)
        eval_env = make_vec_env("uno_env/Uno-v1", n_envs=1, seed=args.seed + 1000, env_kwargs=env_kwargs)
    out = args.out or tempfile.mkdtemp(prefix="uno-sb3-")
    callback = MaskableEvalCallback(eval_env, n_eval_episodes=args.eval_games, best_model_save_path=out,
                                    eval_freq=max(1, args.eval_freq // args.n_envs), deterministic=True,
                                    verbose=1)
    model = MaskablePPO("MlpPolicy", envs, n_steps=256, batch_size=512, gamma=0.995, ent_coef=0.01,
                        seed=args.seed, verbose=0, device="cpu")
    start = time.time()
    model.learn(total_timesteps=args.total_steps, callback=callback)
    seconds = time.time() - start
    print(f"trained {model.num_timesteps} steps in {seconds:.1f} s: {model.num_timesteps / seconds:.0f} steps/s "
          f"(collection, updates and the evaluations)")
    mean_reward = float(callback.last_mean_reward)
    print(f"last evaluation: mean reward {mean_reward:+.3f} over {args.eval_games} games "
          f"against {args.opponent} (a win is +1, a loss -1); best model in {out}")
    return {"mean_reward": mean_reward, "best_model": os.path.join(out, "best_model.zip"),
            "steps_per_s": model.num_timesteps / seconds, "episodes": len(model.ep_info_buffer),
            "train_reward": float(sum(e["r"] for e in model.ep_info_buffer) / max(1, len(model.ep_info_buffer)))}


if __name__ == "__main__":
    main()
