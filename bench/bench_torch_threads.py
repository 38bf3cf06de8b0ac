"""What ``torch_threads`` costs in the PPO update: one MaskablePPO-sized update (the main job's
shapes: 4,096 samples, 4 epochs of minibatches of 1,024, actor and critic 1537 -> 256 -> 256,
tanh, Adam) timed with 1 and with 2 torch threads, the two settings taking turns.

    python bench/bench_torch_threads.py --rounds 3

Prints wall and CPU seconds per update for each setting (best and median of the rounds). On a
2-core machine with other work running, two OpenMP threads wait on each other and on the other
work (the ``Config.torch_threads`` default of training/train.py is what measured best)."""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch import nn

OBS, ACTIONS, HIDDEN = 1537, 195, 256
SAMPLES, BATCH, EPOCHS = 4096, 1024, 4


def network(out: int) -> nn.Module:
    return nn.Sequential(nn.Linear(OBS, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, HIDDEN), nn.Tanh(),
                         nn.Linear(HIDDEN, out))


def one_update(actor, critic, optim, obs, actions, returns) -> None:
    for _ in range(EPOCHS):
        for i in torch.randperm(SAMPLES).split(BATCH):
            logits, values = actor(obs[i]), critic(obs[i]).squeeze(1)
            loss = nn.functional.cross_entropy(logits, actions[i]) + ((values - returns[i]) ** 2).mean()
            optim.zero_grad()
            loss.backward()
            optim.step()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    torch.manual_seed(0)
    actor, critic = network(ACTIONS), network(1)
    optim = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=1e-4)
    obs, actions, returns = torch.rand(SAMPLES, OBS), torch.randint(ACTIONS, (SAMPLES,)), torch.rand(SAMPLES)
    times: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
    for _ in range(args.rounds):
        for threads in (1, 2):
            torch.set_num_threads(threads)
            w, c = time.perf_counter(), time.process_time()
            one_update(actor, critic, optim, obs, actions, returns)
            times[threads].append((time.perf_counter() - w, time.process_time() - c))
    print(f"torch {torch.__version__}, one update = {EPOCHS} epochs x {SAMPLES // BATCH} minibatches of {BATCH}")
    for threads, runs in times.items():
        wall, cpu = [r[0] for r in runs], [r[1] for r in runs]
        print(f"torch_threads={threads}: wall best {min(wall):.2f} s, median {statistics.median(wall):.2f} s; "
              f"CPU median {statistics.median(cpu):.2f} s")


if __name__ == "__main__":
    main()
