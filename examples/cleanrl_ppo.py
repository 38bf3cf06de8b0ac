"""Masked PPO for UNO in one file, CleanRL style: plain torch on Gymnasium's vector API.

    python examples/cleanrl_ppo.py --total-steps 200000 --opponent heuristic
    python examples/cleanrl_ppo.py --total-steps 4096 --num-envs 4 --eval-games 0   # smoke test

One learner seat against scripted opponents (``gymnasium.make_vec("uno_env/Uno-v1", ...)``,
synchronous vector env; ``--vectorization vector_entry_point`` runs the batched engine instead,
whose observations are the first 1254 entries, layout 0, without the public history). The
action mask comes in ``info["action_mask"]``; illegal actions get
a logit of -1e9, so the policy never samples them. Gymnasium 1.x autoresets a finished
sub-env on the *next* step (its action is ignored, and its mask is all zero): those steps are
masked out of the loss. Read it top to bottom: arguments, networks, rollout, GAE, update,
evaluation. Everything is seeded; one torch thread by default (the env is the bottleneck).
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np
import torch
import torch.nn as nn

import uno_env  # noqa: F401  (registers uno_env/Uno-v1)
from uno_env.agents.base import Agent
from uno_env.game.actions import NUM_ACTIONS
from uno_env.game.observation import OBS_SIZE


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="classic")
    p.add_argument("--opponent", default="random", help="agent spec of the other seat(s)")
    p.add_argument("--num-players", type=int, default=2)
    p.add_argument("--total-steps", type=int, default=200_000, help="learner decisions, all envs together")
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--vectorization", default="sync", choices=["sync", "vector_entry_point"],
                   help="sync: N scalar envs; vector_entry_point: the batched engine (official rules)")
    p.add_argument("--num-steps", type=int, default=128, help="rollout length per env")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--eval-games", type=int, default=400, help="games against the opponent at the end")
    return p.parse_args(argv)


# ---------------------------------------------------------------------- networks
def layer(n_in: int, n_out: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.zeros_(lin.bias)
    return lin


class ActorCritic(nn.Module):
    def __init__(self, hidden: int, n_obs: int = OBS_SIZE):
        super().__init__()
        self.n_obs = n_obs  # the batched engine (vector_entry_point) observes layout 0, a prefix
        self.actor = nn.Sequential(layer(n_obs, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                   layer(hidden, NUM_ACTIONS, std=0.01))
        self.critic = nn.Sequential(layer(n_obs, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                    layer(hidden, 1, std=1.0))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def dist(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        logits = self.actor(obs).masked_fill(~mask, -1e9)
        return torch.distributions.Categorical(logits=logits)


class TorchPolicyAgent(Agent):
    """The trained actor as an uno_env agent (greedy), for the evaluation tool."""

    name = "cleanrl-ppo"

    def __init__(self, model: ActorCritic, rules, num_players: int):
        super().__init__(rules, num_players)
        self.model = model

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        with torch.no_grad():
            obs = torch.as_tensor(observation[:self.model.n_obs], dtype=torch.float32)[None]
            mask = torch.as_tensor(action_mask, dtype=torch.bool)[None]
            return int(self.model.dist(obs, mask).logits.argmax())


def main(argv=None) -> dict:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    envs = gymnasium.make_vec("uno_env/Uno-v1", num_envs=args.num_envs, vectorization_mode=args.vectorization,
                              rules=args.rules, num_players=args.num_players, opponents=[args.opponent])
    n_obs = envs.single_observation_space.shape[0]
    model = ActorCritic(args.hidden, n_obs)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, eps=1e-5)

    # ------------------------------------------------------------------ storage
    T, N = args.num_steps, args.num_envs
    obs_buf = torch.zeros((T, N, n_obs))
    mask_buf = torch.zeros((T, N, NUM_ACTIONS), dtype=torch.bool)
    act_buf = torch.zeros((T, N), dtype=torch.long)
    logp_buf = torch.zeros((T, N))
    rew_buf = torch.zeros((T, N))
    done_buf = torch.zeros((T, N))  # the episode ended at this step
    valid_buf = torch.zeros((T, N))  # 0 on autoreset steps (the action was ignored)
    val_buf = torch.zeros((T, N))

    obs, info = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(obs)
    next_mask = torch.as_tensor(info["action_mask"], dtype=torch.bool)
    episode_returns: list[float] = []
    steps, start = 0, time.time()
    iterations = max(1, args.total_steps // (T * N))
    for iteration in range(iterations):
        # ------------------------------------------------------------------ rollout
        for t in range(T):
            valid = next_mask.any(dim=1)  # all-zero mask: a finished sub-env resets on this step
            mask = torch.where(valid[:, None], next_mask, torch.ones_like(next_mask))
            with torch.no_grad():
                d = model.dist(next_obs, mask)
                action = d.sample()
                val_buf[t] = model.value(next_obs)
            obs_buf[t], mask_buf[t], act_buf[t] = next_obs, mask, action
            logp_buf[t], valid_buf[t] = d.log_prob(action), valid.float()
            obs, reward, terminated, truncated, info = envs.step(action.numpy())
            done = np.logical_or(terminated, truncated)
            rew_buf[t] = torch.as_tensor(reward, dtype=torch.float32)
            done_buf[t] = torch.as_tensor(done, dtype=torch.float32)
            episode_returns += [float(r) for r in reward[done]]
            next_obs = torch.as_tensor(obs)
            next_mask = torch.as_tensor(info["action_mask"], dtype=torch.bool)
            steps += int(valid.sum())
        # ------------------------------------------------------------------ GAE
        with torch.no_grad():
            next_value = model.value(next_obs)
            adv = torch.zeros((T, N))
            last = torch.zeros(N)
            for t in reversed(range(T)):
                nv = next_value if t == T - 1 else val_buf[t + 1]
                nonterminal = 1.0 - done_buf[t]
                delta = rew_buf[t] + args.gamma * nv * nonterminal - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                adv[t] = last * valid_buf[t]
                last = last * valid_buf[t]  # nothing flows back across an autoreset step
            ret = adv + val_buf
        # ------------------------------------------------------------------ update
        b_obs, b_mask = obs_buf.reshape(-1, n_obs), mask_buf.reshape(-1, NUM_ACTIONS)
        b_act, b_logp = act_buf.reshape(-1), logp_buf.reshape(-1)
        b_adv, b_ret, b_valid = adv.reshape(-1), ret.reshape(-1), valid_buf.reshape(-1)
        idx = np.arange(T * N)
        rng = np.random.default_rng(args.seed + iteration)
        for _ in range(args.epochs):
            rng.shuffle(idx)
            for mb in np.array_split(idx, args.minibatches):
                mb = torch.as_tensor(mb)
                d = model.dist(b_obs[mb], b_mask[mb])
                ratio = (d.log_prob(b_act[mb]) - b_logp[mb]).exp()
                w = b_valid[mb]
                a = b_adv[mb]
                a = (a - a[w > 0].mean()) / (a[w > 0].std() + 1e-8) if (w > 0).sum() > 1 else a
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip))
                v_loss = 0.5 * (model.value(b_obs[mb]) - b_ret[mb]) ** 2
                ent = d.entropy()
                loss = ((pg + args.vf_coef * v_loss - args.ent_coef * ent) * w).sum() / w.sum().clamp(min=1)
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
        recent = episode_returns[-200:]
        print(f"iter {iteration + 1}/{iterations}  steps {steps}  sps {steps / (time.time() - start):.0f}  "
              f"episodes {len(episode_returns)}  mean return (last 200) "
              f"{np.mean(recent) if recent else float('nan'):+.3f}", flush=True)
    envs.close()
    # ------------------------------------------------------------------ evaluation
    result = {"steps": steps, "steps_per_s": steps / (time.time() - start), "episodes": len(episode_returns)}
    if args.eval_games:
        from uno_env.tools.evaluate import evaluate

        rules = uno_env.make_rules(args.rules)
        agent = TorchPolicyAgent(model, rules, args.num_players)
        lineup = [agent] + [args.opponent] * (args.num_players - 1)  # 1 vs the rest
        ev = evaluate(lineup, rules=rules, num_players=args.num_players,
                      games=args.eval_games, seed=args.seed + 1, workers=1, progress=False)
        me = ev["agents"][0]
        print(f"greedy policy vs {args.opponent}: {me['win_rate']:.1%} "
              f"[{me['win_ci95'][0]:.1%}, {me['win_ci95'][1]:.1%}] over {args.eval_games} games")
        result["win_rate"] = me["win_rate"]
    return result


if __name__ == "__main__":
    main()
