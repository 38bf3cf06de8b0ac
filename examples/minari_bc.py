"""Offline behaviour cloning from a Minari dataset of UNO, in one file: plain torch.

    uno-dataset create --agents heuristic --decisions 200000      # uno/classic-2p/heuristic-v0
    python examples/minari_bc.py --dataset uno/classic-2p/heuristic-v0 --epochs 4
    python examples/minari_bc.py --dataset uno/classic-2p/heuristic-v0 --max-decisions 5000 --epochs 1 --eval-games 0

The dataset (``uno-dataset create``, docs/datasets.md) holds one seat's view of the Gymnasium
env ``uno_env/Uno-v1``: observations, actions, rewards, terminal/truncated flags and the action
mask in ``infos["action_mask"]``. The dataset is checked first (``check_dataset``: a dataset
from someone else is then safe to hand to Minari), read with ``minari.load_dataset``, its
episodes split into training and held-out ones; a masked MLP is fitted to the recorded
actions (cross-entropy over the legal actions only), and its agreement with them is measured
on the held-out episodes. Then the greedy clone plays the dataset's opponents. Everything is
seeded; one torch thread by default.
"""

from __future__ import annotations

import argparse
import os

import minari
import numpy as np
import torch
import torch.nn as nn

from uno_env.agents.base import Agent
from uno_env.game.actions import NUM_ACTIONS
from uno_env.game.observation import OBS_SIZE
from uno_env.tools.dataset_read import check_dataset


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default="uno/classic-2p/heuristic-v0", help="a Minari id or a dataset's folder")
    p.add_argument("--max-decisions", type=int, default=None, help="read at most the episodes holding this many")
    p.add_argument("--held-out", type=float, default=0.1, help="share of the episodes kept for measuring")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--eval-games", type=int, default=200, help="games of the clone against the dataset's opponents")
    return p.parse_args(argv)


class Policy(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS_SIZE, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, NUM_ACTIONS))

    def logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.net(obs).masked_fill(~mask, -1e9)  # illegal actions: never picked


class ClonedAgent(Agent):
    """The clone as an uno_env agent (greedy), for the evaluation tool."""

    name = "minari-bc"

    def __init__(self, model: Policy, rules, num_players: int):
        super().__init__(rules, num_players)
        self.model = model

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        with torch.no_grad():
            obs = torch.as_tensor(observation, dtype=torch.float32)[None]
            return int(self.model.logits(obs, torch.as_tensor(action_mask, dtype=torch.bool)[None]).argmax())


def load(source: str, max_decisions: int | None):
    """The checked dataset's metadata and its episodes (Minari's ``EpisodeData``)."""
    checked = check_dataset(source)  # refuses what could run code or is out of bounds
    dataset = minari.MinariDataset(checked.path) if os.path.isdir(source) else minari.load_dataset(source)
    episodes, total = [], 0
    for ep in dataset.iterate_episodes():
        if max_decisions is not None and total >= max_decisions:
            break
        episodes.append(ep)
        total += len(ep.actions)
    return checked, episodes


def rows(episodes) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(observations, masks, actions) of the decisions: the observation before each action."""
    obs = np.concatenate([ep.observations[:-1] for ep in episodes])
    masks = np.concatenate([ep.infos["action_mask"][:-1] for ep in episodes]).astype(bool)
    actions = np.concatenate([ep.actions for ep in episodes])
    return torch.as_tensor(obs), torch.as_tensor(masks), torch.as_tensor(actions, dtype=torch.int64)


def agreement(model: Policy, obs, masks, actions) -> float:
    with torch.no_grad():
        picks = torch.cat([model.logits(o, m).argmax(-1) for o, m in zip(obs.split(4096), masks.split(4096))])
    return float((picks == actions).float().mean())


def main(argv=None) -> dict:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    checked, episodes = load(args.dataset, args.max_decisions)
    order = np.random.default_rng(args.seed).permutation(len(episodes))
    cut = max(1, int(len(episodes) * args.held_out))
    test, train = [episodes[i] for i in order[:cut]], [episodes[i] for i in order[cut:]]
    obs, masks, actions = rows(train)
    print(f"{checked.dataset_id}: {len(actions):,} decisions of {checked.about['agents'][0]} to fit "
          f"({len(train)} episodes), {len(test)} episodes held out")

    model = Policy(args.hidden)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    generator = torch.Generator().manual_seed(args.seed)
    for epoch in range(args.epochs):
        total = 0.0
        for idx in torch.randperm(len(actions), generator=generator).split(args.batch_size):
            loss = nn.functional.cross_entropy(model.logits(obs[idx], masks[idx]), actions[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(idx) / len(actions)
        print(f"epoch {epoch + 1}: loss {total:.3f}")
    result = {"decisions": len(actions), "train_agreement": agreement(model, obs, masks, actions),
              "held_out_agreement": agreement(model, *rows(test))}
    print(f"agreement with the recorded moves: {result['train_agreement']:.1%} (training), "
          f"{result['held_out_agreement']:.1%} (held out)")

    if args.eval_games:
        from uno_env.tools.evaluate import evaluate

        rules, n = checked.rules, checked.num_players
        lineup = [ClonedAgent(model, rules, n)] + checked.about["agents"][1:]
        ev = evaluate(lineup, rules=rules, num_players=n, games=args.eval_games, seed=args.seed + 1, workers=1,
                      progress=False)
        me = ev["agents"][0]
        print(f"the clone vs {', '.join(checked.about['agents'][1:])}: {me['win_rate']:.1%} "
              f"[{me['win_ci95'][0]:.1%}, {me['win_ci95'][1]:.1%}] over {args.eval_games} games")
        result["win_rate"] = me["win_rate"]
    return result


if __name__ == "__main__":
    main()
