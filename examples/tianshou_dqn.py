"""Masked DQN for UNO with Tianshou 2.x, trained through the Gymnasium view.

    python examples/tianshou_dqn.py --epochs 10 --epoch-steps 20000 --opponent heuristic
    python examples/tianshou_dqn.py --epochs 1 --epoch-steps 2000 --eval-games 10   # smoke test

Tested with tianshou 2.0.1 (``bash scripts/test_recipes.sh tianshou`` builds its own virtual
environment, ``.venvs/tianshou``). One learner seat of ``gymnasium.make("uno_env/Uno-v1")``
against scripted opponents, which play inside the env's ``step()``. Tianshou masks actions
when the observation is a dict with a ``mask`` entry (``DiscreteQLearningPolicy`` gives
masked actions a Q-value below every legal one, and its epsilon-greedy exploration draws
among legal actions only), so the small wrapper :class:`MaskedObs` below turns the view's
``(observation, info["action_mask"])`` into ``{"obs": ..., "mask": ...}``. Read it top to bottom:
arguments, wrapper, network, collectors, DQN, trainer, evaluation with ``uno_env``'s tool.

**Why not Tianshou's PettingZoo wrapper (``tianshou.env.PettingZooEnv``) for self-play.**
It credits a loss caused by the opponent's last move to the opponent's transition. Each
step it stores one transition, tagged with the agent that just acted, holding the
*instantaneous* reward vector of all agents (``env.rewards``), and ``MultiAgentPolicy`` trains
each agent on its own tagged transitions only. When the opponent plays its last card, that
step's reward vector (+1 opponent, -1 learner) lands in the opponent's transition: the
learner's own last transition keeps reward 0 and is not terminal (its ``obs_next`` is the
opponent's observation). From the learner's side a game it loses ends with 0, so it learns
nothing from losing (``tests/examples/test_tianshou.py`` shows it with a stacked deck). The
correct way: train through the Gymnasium view, where the opponents' moves happen inside
``step()`` and the learner's last transition gets -1 when an opponent's move ends the game
(``+1 / -1/(n-1)``, as in the AEC env). For self-play, give the view frozen copies of the
learner as opponents (any :class:`uno_env.agents.Agent`; ``opponent_pool`` for a league, as
``training/train.py`` does).

**Truncation.** The view truncates an episode after ``--max-learner-steps`` learner
decisions (default 1000: an untrained Q-network draws a lot); Tianshou bootstraps from the
state it was cut in (``truncated`` is not ``terminated``), so a cut game is not a loss.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import uno_env
from uno_env.agents.base import Agent
from uno_env.envs.gym_env import DEFAULT_MAX_LEARNER_STEPS
from uno_env.game.actions import NUM_ACTIONS
from uno_env.game.observation import OBS_SIZE


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="classic")
    p.add_argument("--opponent", default="random", help="agent spec of the other seat(s)")
    p.add_argument("--num-players", type=int, default=2)
    p.add_argument("--max-learner-steps", type=int, default=DEFAULT_MAX_LEARNER_STEPS)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--epoch-steps", type=int, default=20_000, help="env steps (learner decisions) per epoch")
    p.add_argument("--collect-steps", type=int, default=64, help="env steps collected between updates")
    p.add_argument("--updates-per-step", type=float, default=0.25, help="gradient steps per collected env step")
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--buffer-size", type=int, default=20_000,
                   help="transitions kept (each holds obs and obs_next: ~11 kB)")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--n-step", type=int, default=3)
    p.add_argument("--target-update-freq", type=int, default=500, help="gradient steps between target syncs")
    p.add_argument("--eps-start", type=float, default=0.5)
    p.add_argument("--eps-end", type=float, default=0.05)
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--test-episodes", type=int, default=20, help="greedy episodes after each epoch")
    p.add_argument("--eval-games", type=int, default=400, help="games against the opponent at the end")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    return p.parse_args(argv)


# ---------------------------------------------------------------------- the env, as Tianshou masks it
class MaskedObs(gymnasium.Wrapper):
    """``{"obs": observation, "mask": legal actions}``: the observation form Tianshou masks."""

    def __init__(self, env: gymnasium.Env):
        super().__init__(env)
        self.observation_space = spaces.Dict({
            "obs": env.observation_space,
            "mask": spaces.MultiBinary(NUM_ACTIONS),
        })

    @staticmethod
    def _obs(obs: np.ndarray, info: dict) -> dict:
        return {"obs": obs, "mask": info["action_mask"].astype(bool)}

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return self._obs(obs, info), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._obs(obs, info), reward, terminated, truncated, info


def make_env(args: argparse.Namespace) -> gymnasium.Env:
    return MaskedObs(gymnasium.make("uno_env/Uno-v1", rules=args.rules, num_players=args.num_players,
                                    opponents=[args.opponent], max_learner_steps=args.max_learner_steps))


class QAgent(Agent):
    """The trained Q-network as an uno_env agent (greedy over the legal actions)."""

    name = "tianshou-dqn"

    def __init__(self, net: Net, rules, num_players: int):
        super().__init__(rules, num_players)
        self.net = net

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        with torch.no_grad():
            q, _ = self.net(observation[None].astype(np.float32))
        q = q[0].numpy()
        return int(np.flatnonzero(action_mask)[np.argmax(q[action_mask.astype(bool)])])


def main(argv=None) -> dict:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)

    train_envs = DummyVectorEnv([lambda: make_env(args) for _ in range(args.num_envs)])
    test_envs = DummyVectorEnv([lambda: make_env(args) for _ in range(2)])
    train_envs.seed(args.seed)  # each env: reset(seed=seed + i); later resets continue its RNG
    test_envs.seed(args.seed + 10_000)

    # ------------------------------------------------------------------ network, policy, DQN
    net = Net(state_shape=OBS_SIZE, action_shape=NUM_ACTIONS, hidden_sizes=args.hidden)
    policy = DiscreteQLearningPolicy(model=net, action_space=spaces.Discrete(NUM_ACTIONS),
                                     eps_training=args.eps_start, eps_inference=0.0)
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=args.lr), gamma=args.gamma,
                    n_step_return_horizon=args.n_step, target_update_freq=args.target_update_freq)

    # ------------------------------------------------------------------ collectors
    buffer = VectorReplayBuffer(args.buffer_size, args.num_envs)
    train_collector = Collector[CollectStats](algorithm, train_envs, buffer, exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs)
    train_collector.reset()
    train_collector.collect(n_step=args.batch_size * 2, random=True)  # warm-up: random legal moves
    warmup_steps = len(buffer)

    total = args.epochs * args.epoch_steps

    marks: list[tuple[float, int]] = []  # (time, env steps) at each training step

    def training_fn(epoch: int, env_step: int) -> None:  # epsilon: linear decay over the first half
        frac = min(1.0, env_step / max(1, total / 2))
        policy.set_eps_training(args.eps_start + frac * (args.eps_end - args.eps_start))
        marks.append((time.time(), env_step))

    # ------------------------------------------------------------------ train
    start = time.time()
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train_collector, test_collector=test_collector,
        max_epochs=args.epochs, epoch_num_steps=args.epoch_steps,
        collection_step_num_env_steps=args.collect_steps, test_step_num_episodes=args.test_episodes,
        batch_size=args.batch_size, update_step_num_gradient_steps_per_sample=args.updates_per_step,
        training_fn=training_fn, show_progress=False, verbose=False))
    end, steps = time.time(), int(result.train_step)
    # steps/s from the second training step on: the first update compiles Tianshou's numba kernels
    t0, s0 = marks[1] if len(marks) > 1 else (start, 0)
    sps = (steps - s0) / max(end - t0, 1e-9)
    print(f"trained {steps} env steps (+{warmup_steps} warm-up) in {end - start:.1f} s: {sps:.0f} steps/s "
          f"(collection, updates and test episodes); best test reward {result.best_reward:+.3f}", flush=True)
    train_envs.close()
    test_envs.close()

    # ------------------------------------------------------------------ evaluation
    out = {"steps": steps, "steps_per_s": sps, "best_reward": float(result.best_reward), "buffer": buffer}
    if args.eval_games:
        from uno_env.tools.evaluate import evaluate

        rules = uno_env.make_rules(args.rules)
        net.eval()
        lineup = [QAgent(net, rules, args.num_players)] + [args.opponent] * (args.num_players - 1)
        ev = evaluate(lineup, rules=rules,
                      num_players=args.num_players, games=args.eval_games, seed=args.seed + 1,
                      workers=1, progress=False)
        me = ev["agents"][0]
        print(f"greedy policy vs {args.opponent}: {me['win_rate']:.1%} "
              f"[{me['win_ci95'][0]:.1%}, {me['win_ci95'][1]:.1%}] over {args.eval_games} games")
        out["win_rate"] = me["win_rate"]
    return out


if __name__ == "__main__":
    main()
