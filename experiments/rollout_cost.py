"""What a rollout of the expert costs: one Python engine against the batched engine, in CPU time.

    python experiments/rollout_cost.py --checkpoint checkpoints/classic-2p --rounds 2048 \
        --batch 100 200 2048 --bf16

Expert iteration's labels cost the expert's rollouts (``experiments/expert_search.py``: 200 per
searched decision). This study prices a rollout two ways, each a whole round from the deal
with my seat (seat 0) on the policy's greedy move:

* **scalar**: the expert's own rollout (``ExpertSearch._rollout``): the Python engine, the
  policy on ``ObservationEncoder``'s vector one decision at a time (numpy), the other seat on
  the heuristic's card ranking;
* **batched**: ``--batch`` rounds at once in :class:`~uno_env.game.batched.BatchedEngine`, in
  lockstep: the compiled ``heuristic`` plays the other seat (``bots_until``), then every round
  waiting on my seat is observed, masked and stepped in one call each, the policy's forward
  pass (numpy's float32; with ``--bf16`` also torch's bfloat16) on those rows only, into
  arrays allocated once. ``--batch`` 200 is a decision's simulations played at once; the
  search's successive halving plays them in rounds (about 100 at a time with 3 or 4 moves);
  a larger batch is several decisions' pooled. Kernels are compiled and the forward pass run
  on every row count before the clock starts.

Both run on one thread (numpy's BLAS held to one, torch set to one), so CPU time is one core's.
It prints the CPU time per round of each, and the batched one's split: the forward pass, the
engine (steps, observations, masks) and the compiled opponent. Numbers and what they mean for
expert iteration: ``docs/research-2p.md``, "What batched rollouts would save, and the search's
values distilled"."""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from expert_search import ExpertSearch  # noqa: E402
from uno_env.agents.heuristic import HeuristicWeights  # noqa: E402
from uno_env.agents.policy import load_policy  # noqa: E402
from uno_env.agents.search import SearchOptions  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game.batched import BatchedEngine, rng_words  # noqa: E402
from uno_env.game.batched import bots as BK  # noqa: E402
from uno_env.game.rules import LIMITS, make_rules  # noqa: E402
from uno_env.tools.batched_table import blas_threads  # noqa: E402

MAX_ROUNDS = 1_000_000  # rounds a measurement plays, at most
MAX_BATCH = 8192  # rounds at once, at most (the forward pass is warmed on every row count up to it)


def scalar_rounds(net, rules, rounds: int, seed: int) -> dict:
    """``rounds`` rollouts of the expert from fresh deals: CPU seconds and seat 0's wins."""
    expert = ExpertSearch(rules, 2, 0, SearchOptions(), net)
    engine = expert.engine
    began, won = time.process_time(), 0
    for r in range(rounds):
        won += expert._rollout(engine.new_state(np.random.default_rng([seed, r]))) > 0
    return {"cpu_s": time.process_time() - began, "won": won}


def bf16_forward(net):
    """``net``'s greedy move on a batch, in torch's bfloat16 (this CPU's AMX where it has it): the
    same layers as ``net`` (``MaskedPolicy``), rounded to bfloat16; ties and near-ties may
    break otherwise than in float32. Torch prepares its kernels once per batch shape, about 4 ms
    each: :func:`batched_rounds` calls it on every row count before its clock starts."""
    import torch

    torch.set_num_threads(1)
    keep, scale = (None, None) if net.keep is None else (torch.as_tensor(net.keep), torch.as_tensor(net.scale))
    layers = [(torch.as_tensor(w).to(torch.bfloat16), torch.as_tensor(b).to(torch.bfloat16)) for w, b in net.layers]
    tanh = net.activation == "tanh"

    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            x = torch.from_numpy(obs)
            x = (x[:, keep] * scale if keep is not None else x[:, :net.width]).to(torch.bfloat16)
            for i, (w, b) in enumerate(layers):
                x = torch.addmm(b, x, w)
                if i < len(layers) - 1:
                    x = torch.tanh(x) if tanh else torch.relu(x)
            return x.float().masked_fill(~torch.from_numpy(masks.astype(bool)), -torch.inf).argmax(1).numpy()

    return act


def batched_rounds(net, rules, rounds: int, batch: int, seed: int, act=None) -> dict:
    """The same deals ``batch`` at a time in the batched engine (whole batches: ``rounds`` rounded
    up): CPU seconds in all and per part, and each round's winner. ``act(obs, masks)``: my
    seat's moves (default: ``net.act``, numpy float32)."""
    act = net.act if act is None else act
    engine = BatchedEngine(rules.replace(episode="round", max_steps=LIMITS["max_steps"][1]), 2, batch, layout=1)
    kinds = np.array([BK.BOT_NONE, BK.BOT_HEURISTIC])
    weights = np.stack([HeuristicWeights().as_array()] * 2)
    prng = rng_words(range(batch))
    streams, beliefs = BK.GreedyStreams(batch, 2, allocate=False), BK.HeuristicBeliefs(batch, 2)
    obs_out = np.zeros((batch, engine.obs_size), np.float32)
    mask_out = np.zeros((batch, A.NUM_ACTIONS), np.int8)
    actions = np.zeros(batch, np.int64)
    # before the clock: every kernel compiled, the forward pass run once on every row count
    engine.reset(seeds=range(batch))
    engine.bots_until(0, kinds, weights, prng, streams, beliefs)
    engine.observe(0, out=obs_out)
    engine.legal_masks(out=mask_out)
    for rows in range(1, batch + 1):
        act(obs_out[:rows], mask_out[:rows])
    waiting = ~engine.game_over
    actions[waiting] = act(obs_out[waiting], mask_out[waiting])
    engine.step(actions, waiting, checked=True)
    parts = {"forward": 0.0, "engine": 0.0, "opponent": 0.0}
    clock = time.process_time
    winners = []
    began = clock()
    for first in range(0, rounds, batch):
        engine.reset(seeds=[[seed, first + b] for b in range(batch)])
        beliefs.reset()
        while True:
            t0 = clock()
            engine.bots_until(0, kinds, weights, prng, streams, beliefs)
            t1 = clock()
            parts["opponent"] += t1 - t0
            waiting = ~engine.game_over & ~engine.truncated()
            if not waiting.any():
                break
            engine.observe(0, waiting, out=obs_out)
            engine.legal_masks(waiting, out=mask_out)
            obs, masks = obs_out[waiting], mask_out[waiting]
            t2 = clock()
            actions[waiting] = act(obs, masks)
            t3 = clock()
            engine.step(actions, waiting, checked=True)
            parts["forward"] += t3 - t2
            parts["engine"] += (t2 - t1) + (clock() - t3)
        winners.append(engine.winner.copy())
    winners = np.concatenate(winners)
    return {"cpu_s": clock() - began, "won": int((winners == 0).sum()), "winners": winners, "parts": parts,
            "rounds": len(winners)}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--checkpoint", default="checkpoints/classic-2p")
    p.add_argument("--rules", default="classic")
    p.add_argument("--rounds", type=int, default=2048)
    p.add_argument("--batch", type=int, nargs="+", default=[200, 2048])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bf16", action="store_true", help="also the forward pass in torch's bfloat16")
    args = p.parse_args(argv)
    if not 1 <= args.rounds <= MAX_ROUNDS or not all(1 <= b <= MAX_BATCH for b in args.batch):
        p.error(f"--rounds must be in 1..{MAX_ROUNDS}, each --batch in 1..{MAX_BATCH}")
    rules = make_rules(args.rules)
    net, _ = load_policy(args.checkpoint, rules, 2)
    with blas_threads(1):
        return measure(net, rules, args)


def measure(net, rules, args: argparse.Namespace) -> dict:
    out = {"scalar": scalar_rounds(net, rules, args.rounds, args.seed)}
    ms = 1e3 * out["scalar"]["cpu_s"] / args.rounds
    print(f"scalar: {ms:.3f} ms CPU a round (seat 0 won {out['scalar']['won'] / args.rounds:.1%}, the ranking "
          f"opponent)")
    forwards = [("numpy", None)] + ([("bf16", bf16_forward(net))] if args.bf16 else [])
    for batch in args.batch:
        for name, act in forwards:
            r = out[f"batched-{batch}-{name}"] = batched_rounds(net, rules, args.rounds, batch, args.seed, act)
            per = {k: 1e3 * v / r["rounds"] for k, v in r["parts"].items()}
            total = 1e3 * r["cpu_s"] / r["rounds"]
            print(f"batched, {batch} at a time, forward in {name}: {total:.3f} ms CPU a round ({ms / total:.1f}x "
                  f"cheaper): forward {per['forward']:.3f}, engine {per['engine']:.3f}, opponent "
                  f"{per['opponent']:.3f} (seat 0 won {r['won'] / r['rounds']:.1%}, the compiled heuristic)")
    return out


if __name__ == "__main__":
    main()
