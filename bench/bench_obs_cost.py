"""What the 1537-float observation costs a learner: MaskablePPO on the batched engine's SB3 VecEnv.

    python bench/bench_obs_cost.py [--num-envs 1024] [--n-steps 16] [--rollouts 2] [--threads 1]

MaskablePPO (the training script's policy: ``ObsFeatures``, which keeps 361 of the 1537 entries
for 2 players, ``net_arch [256, 256]``, ``n_epochs 4``, ``batch_size 1024``) learns on
:class:`~uno_env.learn.sb3.vec_env.UnoSB3VecEnv` (classic, 2 players, ``random`` opponent) for
``--rollouts`` rollouts of ``--n-steps`` x ``--num-envs`` steps, after one rollout of warm-up.
Prints the CPU seconds (``time.process_time``) of the whole run and of the parts timed inside it:
collecting the rollouts (of it: the env's ``step_wait``, i.e. the engine, the opponents, the masks
and the observation; the batched engine's ``observe`` alone, writing every game's 1537 floats;
the rollout buffer's ``add``, which copies them again) and the updates. The observation's share
of a learner's time is ``observe`` (and the buffer's copy) over the whole.
"""
from __future__ import annotations

import argparse
import time

import torch
from sb3_contrib import MaskablePPO

from uno_env.game.batched import BatchedEngine
from uno_env.learn.sb3.policy import ObsFeatures
from uno_env.learn.sb3.vec_env import UnoSB3VecEnv


class Timed:
    """CPU seconds spent in a method, summed (wraps the class attribute)."""

    def __init__(self, cls, name):
        self.cls, self.name, self.orig, self.seconds = cls, name, getattr(cls, name), 0.0
        timed = self

        def wrapper(*a, **k):
            t = time.process_time()
            try:
                return timed.orig(*a, **k)
            finally:
                timed.seconds += time.process_time() - t

        setattr(cls, name, wrapper)


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-envs", type=int, default=1024)
    p.add_argument("--n-steps", type=int, default=16)
    p.add_argument("--rollouts", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    env = UnoSB3VecEnv(args.num_envs, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=1024, n_epochs=4, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [256, 256], "activation_fn": torch.nn.Tanh,
                                       "features_extractor_class": ObsFeatures,
                                       "features_extractor_kwargs": {"num_players": 2}})
    rollout = args.n_steps * args.num_envs
    model.learn(rollout)  # warm-up: kernels loaded, buffers allocated
    observe, step = Timed(BatchedEngine, "observe"), Timed(UnoSB3VecEnv, "step_wait")
    add = Timed(type(model.rollout_buffer), "add")
    collect, train = Timed(MaskablePPO, "collect_rollouts"), Timed(MaskablePPO, "train")
    t = time.process_time()
    model.learn(rollout * args.rollouts, reset_num_timesteps=False)
    total = time.process_time() - t
    out = {"steps": rollout * args.rollouts, "total_s": total, "collect_s": collect.seconds, "train_s": train.seconds,
           "env_step_s": step.seconds, "observe_s": observe.seconds, "buffer_add_s": add.seconds}
    print(f"{out['steps']:,} learner steps ({args.num_envs} envs x {args.n_steps} x {args.rollouts} rollouts), "
          f"CPU s: total {total:.2f}; collecting rollouts {collect.seconds:.2f} ({collect.seconds / total:.1%}): "
          f"env step_wait {step.seconds:.2f} ({step.seconds / total:.1%}), of it observe {observe.seconds:.3f} "
          f"({observe.seconds / total:.2%}), the rollout buffer's add {add.seconds:.3f} ({add.seconds / total:.2%}); "
          f"updates {train.seconds:.2f} ({train.seconds / total:.1%})")
    return out


if __name__ == "__main__":
    main()
