"""Masked PPO for UNO with TorchRL, trained through the Gymnasium view.

    python examples/torchrl_ppo.py --total-steps 200000 --opponent heuristic
    python examples/torchrl_ppo.py --total-steps 2048 --eval-games 10   # smoke test

Tested with torchrl 0.14.1 and tensordict 0.14.3 (``bash scripts/test_recipes.sh torchrl``
builds its own virtual environment, ``.venvs/torchrl``). One learner seat of
``gymnasium.make("uno_env/Uno-v1")`` against scripted opponents (they play inside the env's
``step()``), wrapped by ``GymWrapper``. The small wrapper :class:`DictObs` puts the view's
``info["action_mask"]`` into the observation as a bool ``"action_mask"`` entry, which the
``ActionMask`` transform applies to the action spec (random actions stay legal) and the
policy's ``MaskedCategorical`` to its logits. Read it top to bottom: arguments, env, actor
and critic, collector, GAE, clipped PPO loss, update loop, evaluation with ``uno_env``'s tool.

**Why not TorchRL's ``PettingZooWrapper(uno_env.env(), use_mask=True)`` for self-play.** It
wraps the AEC env correctly (``tests/examples/test_torchrl.py`` runs ``check_env_specs`` on it,
with ``return_state=True``), but a turn-based game gives a learner a reward when it is not
acting: when the opponent plays its last card, the loser's -1 is written at the step where
the winner acted, and the loser's ``mask`` is False there. A PPO that keeps each agent's
own (masked-in) steps, as the MARL tutorials do, never sees the loss. Train through the
Gymnasium view instead, where an opponent's winning move ends the learner's own step with
-1; for self-play give the view frozen copies of the learner as opponents
(``opponent_pool``, as ``training/train.py`` does).

**Truncation.** The view truncates an episode after ``--max-learner-steps`` learner
decisions (default 1000); TorchRL's GAE bootstraps on ``truncated`` and stops on
``terminated``, so a cut game is not a loss.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch
import torch.nn as nn
from gymnasium import spaces
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torchrl.collectors import Collector
from torchrl.data import LazyTensorStorage, ReplayBuffer, SamplerWithoutReplacement
from torchrl.envs import Compose, GymWrapper, RewardSum, SerialEnv, StepCounter, TransformedEnv
from torchrl.envs.transforms import ActionMask
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

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
    p.add_argument("--total-steps", type=int, default=200_000, help="learner decisions, all envs together")
    p.add_argument("--num-envs", type=int, default=4, help="envs stepped in turn (SerialEnv)")
    p.add_argument("--frames-per-batch", type=int, default=2048, help="rollout size, all envs together")
    p.add_argument("--minibatch", type=int, default=512)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--eval-games", type=int, default=400, help="games against the opponent at the end")
    return p.parse_args(argv)


# ---------------------------------------------------------------------- the env, as TorchRL masks it
class DictObs(gymnasium.Wrapper):
    """``{"observation": ..., "action_mask": bool legal actions}``: keys TorchRL reads as they are."""

    def __init__(self, env: gymnasium.Env):
        super().__init__(env)
        self.observation_space = spaces.Dict({
            "observation": env.observation_space,
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=bool),
        })

    @staticmethod
    def _obs(obs: np.ndarray, info: dict) -> dict:
        return {"observation": obs, "action_mask": info["action_mask"].astype(bool)}

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return self._obs(obs, info), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._obs(obs, info), reward, terminated, truncated, info


def make_env(args: argparse.Namespace) -> TransformedEnv:
    view = gymnasium.make("uno_env/Uno-v1", rules=args.rules, num_players=args.num_players,
                          opponents=[args.opponent], max_learner_steps=args.max_learner_steps)
    return TransformedEnv(GymWrapper(DictObs(view), categorical_action_encoding=True),
                          Compose(ActionMask(), StepCounter(), RewardSum()))


class TorchRLAgent(Agent):
    """The trained actor as an uno_env agent (greedy over the legal actions)."""

    name = "torchrl-ppo"

    def __init__(self, logits_net: nn.Module, rules, num_players: int):
        super().__init__(rules, num_players)
        self.net = logits_net

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        with torch.no_grad():
            logits = self.net(torch.as_tensor(observation, dtype=torch.float32))
        return int(logits.masked_fill(~torch.as_tensor(action_mask, dtype=torch.bool), -torch.inf).argmax())


def main(argv=None) -> dict:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    env = (make_env(args) if args.num_envs == 1
           else SerialEnv(args.num_envs, lambda: make_env(args)))
    env.set_seed(args.seed)

    # ------------------------------------------------------------------ actor (masked) and critic
    logits_net = MLP(in_features=OBS_SIZE, out_features=NUM_ACTIONS, num_cells=[args.hidden, args.hidden],
                     activation_class=nn.Tanh)
    actor = ProbabilisticActor(
        TensorDictModule(logits_net, in_keys=["observation"], out_keys=["logits"]),
        in_keys={"logits": "logits", "mask": "action_mask"}, out_keys=["action"],
        distribution_class=MaskedCategorical, return_log_prob=True)
    critic = ValueOperator(MLP(in_features=OBS_SIZE, out_features=1, num_cells=[args.hidden, args.hidden],
                               activation_class=nn.Tanh), in_keys=["observation"])

    # ------------------------------------------------------------------ collector, GAE, loss
    collector = Collector(env, actor, frames_per_batch=args.frames_per_batch, total_frames=args.total_steps,
                          auto_register_policy_transforms=True)
    advantage = GAE(gamma=args.gamma, lmbda=args.gae_lambda, value_network=critic, average_gae=True)
    loss_fn = ClipPPOLoss(actor, critic, clip_epsilon=args.clip, entropy_bonus=True,
                          entropy_coeff=args.ent_coef, critic_coeff=args.vf_coef, loss_critic_type="smooth_l1")
    optimizer = torch.optim.Adam(loss_fn.parameters(), lr=args.lr)
    buffer = ReplayBuffer(storage=LazyTensorStorage(args.frames_per_batch),
                          sampler=SamplerWithoutReplacement(), batch_size=args.minibatch)

    # ------------------------------------------------------------------ train
    steps, episodes, returns = 0, 0, []
    start = time.time()
    for i, data in enumerate(collector):
        steps += data.numel()  # data: (envs, time) with SerialEnv, (time,) with one env
        done = data["next", "done"].squeeze(-1)
        returns += data["next", "episode_reward"][done].squeeze(-1).tolist()
        episodes += int(done.sum())
        for _ in range(args.epochs):
            with torch.no_grad():
                advantage(data)  # GAE along the time dimension, per env; recomputed every epoch
            buffer.extend(data.reshape(-1))
            for _ in range(max(1, args.frames_per_batch // args.minibatch)):
                batch = buffer.sample()
                losses = loss_fn(batch)
                loss = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(loss_fn.parameters(), args.max_grad_norm)
                optimizer.step()
        collector.update_policy_weights_()
        recent = returns[-200:]
        print(f"batch {i + 1}  steps {steps}  sps {steps / (time.time() - start):.0f}  episodes {episodes}  "
              f"mean return (last 200) {np.mean(recent) if recent else float('nan'):+.3f}", flush=True)
    collector.shutdown()
    seconds = time.time() - start
    print(f"trained {steps} env steps in {seconds:.1f} s: {steps / seconds:.0f} steps/s "
          f"(collection and updates)", flush=True)

    # ------------------------------------------------------------------ evaluation
    out = {"steps": steps, "steps_per_s": steps / seconds, "episodes": episodes, "returns": returns}
    if args.eval_games:
        from uno_env.tools.evaluate import evaluate

        rules = uno_env.make_rules(args.rules)
        lineup = [TorchRLAgent(logits_net, rules, args.num_players)] + [args.opponent] * (args.num_players - 1)
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
