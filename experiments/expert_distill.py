"""Expert iteration's second step: the policy trained to play the expert's moves.

    python experiments/expert_distill.py collect --checkpoint checkpoints/classic-2p \\
        --out runs/expert/demos --games 4000 --simulations 200 --seed 20261210 --workers 2
    python experiments/expert_distill.py distill --checkpoint checkpoints/classic-2p \\
        --demos runs/expert/demos --out runs/expert/distilled --learning-rate 0.03
    uno-evaluate --paired pretrained:classic-2p checkpoint:runs/expert/distilled \\
        --opponent heuristic --num-players 2 --games 10000 --seed 20261207

**collect**: the expert of ``experiments/expert_search.py`` (the ``search`` bot with the policy
as prior and as my seat's rollout player) plays one seat of ``--games`` games against
``--opponent`` (the seat rotates with the game; game ``g`` is dealt and seeded from ``(--seed,
g)`` alone). Every decision of its seat is a row: the policy's input (the card's
``obs_features`` of the observation), the action mask, the expert's move, the policy's own
greedy move, whether the decision was searched and, where it was, each compared move's value
(its mean return minus the default's over the deals it was played on, returns +1 a win, -1/(n-1)
a loss and 0 a rollout cut at the search's ``max_steps``: with 2 players and no cut, twice the
win-probability difference; NaN for a move not compared) and how many deals that is. Games go in
blocks of ``BLOCK``; each block is written to ``--out/block-<first game>.npz`` as it finishes,
so a stopped collection keeps its blocks and a second call plays only the missing ones, and
replays, whole, a last block that a smaller ``--games`` cut short (a block is never shortened: a
smaller ``--games`` leaves a longer last block as it is) and a block written before the move
values were recorded. It prints the expert's win rate over the games of the blocks up to
``--games`` (a second measurement of its strength, on other deals, each dealt once).

**distill**: starts from the checkpoint's actor (torch, the card's layers) and fits it (masked
cross-entropy, ``--epochs`` passes) to targets that are, with ``--targets soft`` (the default),
the policy's own distribution where the expert kept the policy's move and the expert's move
where it overrode it (``--override-weight`` on those rows), with ``hard`` the expert's moves
everywhere, or with ``improve`` the policy's distribution times ``exp(value / --temperature)``
(a move not compared, and the default, value 0; a decision not searched is then fitted to the
policy's own distribution, which holds the policy there): a policy-improvement step (as in MPO)
that learns from the search's estimate of every move it compared, not only from its few
overrides; ``--override-weight`` weighs the rows of overrides in every kind of targets. The
optimizer is SGD with momentum by default: at the soft targets' minimum the gradient is zero and
SGD stays put, where Adam's steps, about its learning rate whatever the gradient's size, jitter
every weight (``--optimizer adam`` to see it). One game block in ten is held out to measure
agreement with the expert, on all decisions and on those where it overrode the policy. Writes a
checkpoint directory (the source card with the new weights and a ``distilled`` entry) that every
tool plays. Neither step writes into a folder it did not fill: ``collect`` refuses an ``--out``
with files but no ``about.json``, ``distill`` one with files but no card of a distillation (a
shipped checkpoint is safe from it). Measured results and commands: ``docs/research-2p.md``,
"Expert iteration's first two steps" and "What batched rollouts would save, and the search's
values distilled".
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from expert_search import ExpertSearch  # noqa: E402
from uno_env.agents import checkpoint as ckpt  # noqa: E402
from uno_env.agents import make_agent  # noqa: E402
from uno_env.agents.policy import load_policy  # noqa: E402
from uno_env.agents.search import SearchOptions  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game.engine import Engine  # noqa: E402
from uno_env.game.observation import ObservationEncoder  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402
from uno_env.tools.stats import wilson_interval  # noqa: E402

BLOCK = 20  # games per block file
HOLD_OUT = 10  # one block in HOLD_OUT is held out of the fit
MASKED = -1e9  # the logit of an illegal move in the fit (finite: soft targets are 0 there)
COLUMNS = ("features", "masks", "actions", "prior", "searched", "values", "samples")
BLOCK_NAME = re.compile(r"block-(\d{6})\.npz")  # a block file: its first game, six digits


def play_block(job: tuple) -> dict:
    """Games ``first .. first + BLOCK - 1``: the expert's rows and the games it won."""
    checkpoint, rules_name, n, simulations, opponent, seed, first, games = job
    rules = make_rules(rules_name)
    net, card = load_policy(checkpoint, rules, n)
    keep, scale = ckpt.obs_features_layout(n, ckpt.layout_version(card))
    engine = Engine(rules, n)
    encode = ObservationEncoder(engine).encode
    rows: dict[str, list] = {c: [] for c in COLUMNS}
    won = []
    for g in range(first, min(first + BLOCK, games)):
        me = g % n
        s = engine.new_state(np.random.default_rng([seed, g, 0]))
        seeds = [int(x) for x in np.random.default_rng([seed, g, 1]).integers(2**31, size=n)]
        expert = ExpertSearch(rules, n, seeds[me], SearchOptions(simulations=simulations), net)
        bots = [expert if p == me else make_agent(opponent, rules, n, seed=x) for p, x in enumerate(seeds)]
        while not s.game_over and not engine.truncated(s):
            p = s.actor
            o, m = encode(s, p), A.legal_mask(engine.legal_actions(s))
            if p == me:
                before = expert.stats["searched"]
                a = expert.act(o, m)
                rows["features"].append(o[keep] * scale)
                rows["masks"].append(m.copy())
                rows["actions"].append(a)
                rows["prior"].append(expert.prior)
                searched = expert.stats["searched"] > before
                rows["searched"].append(searched)
                values = np.full(A.NUM_ACTIONS, np.nan, np.float16)
                samples = np.zeros(A.NUM_ACTIONS, np.uint16)
                if searched:  # each compared move's mean return minus the default's, and its samples
                    for move, d in zip(*expert.last_search):
                        values[move], samples[move] = np.mean(d), len(d)
                rows["values"].append(values)
                rows["samples"].append(samples)
            else:
                a = bots[p].act(o, m)
            engine.step(s, a)
        won.append(int(s.game_over and s.winner == me))
    return {"first": first, "won": np.array(won, np.int8), "features": np.array(rows["features"], np.float32),
            "masks": np.array(rows["masks"], bool), "actions": np.array(rows["actions"], np.int16),
            "prior": np.array(rows["prior"], np.int16), "searched": np.array(rows["searched"], bool),
            "values": np.array(rows["values"], np.float16).reshape(-1, A.NUM_ACTIONS),
            "samples": np.array(rows["samples"], np.uint16).reshape(-1, A.NUM_ACTIONS)}


def collect(args: argparse.Namespace) -> dict:
    os.makedirs(args.out, exist_ok=True)
    about = {"checkpoint": args.checkpoint, "rules": args.rules, "players": args.players,
             "simulations": args.simulations, "opponent": args.opponent, "seed": args.seed}
    about_path = os.path.join(args.out, "about.json")
    if not os.path.exists(about_path) and os.listdir(args.out):
        raise SystemExit(f"{args.out} holds files that no collection wrote; pick an empty or new --out")
    if os.path.exists(about_path):
        with open(about_path) as f:
            if json.load(f) != about:
                raise SystemExit(f"{args.out} holds blocks of another collection ({about_path}); pick another --out")
    else:
        with open(about_path, "w") as f:
            json.dump(about, f, indent=2)
    odd = [name for name in sorted(os.listdir(args.out)) if BLOCK_NAME.fullmatch(name) and (
        os.path.islink(os.path.join(args.out, name)) or not os.path.isfile(os.path.join(args.out, name)))]
    if odd:  # a block's name on a link, a FIFO or a folder: not ours to replace
        raise SystemExit(f"{args.out}: {', '.join(odd)} named as a block but not a file the collection wrote; "
                         "move them away or pick another --out")
    jobs = [(args.checkpoint, args.rules, args.players, args.simulations, args.opponent, args.seed, first, args.games)
            for first in range(0, args.games, BLOCK)
            if block_games(os.path.join(args.out, f"block-{first:06d}.npz")) < min(BLOCK, args.games - first)]
    began = time.time()
    with ProcessPoolExecutor(args.workers) as pool:
        for block in pool.map(play_block, jobs):
            path = os.path.join(args.out, f"block-{block['first']:06d}.npz")
            np.savez(path + ".part.npz", **{k: v for k, v in block.items() if k != "first"})
            os.replace(path + ".part.npz", path)
            print(f"block {block['first']}: {len(block['actions'])} decisions, "
                  f"{block['won'].sum()}/{len(block['won'])} won, {time.time() - began:.0f} s", flush=True)
    blocks = load_blocks(args.out, below=args.games)
    won = np.concatenate([b["won"] for b in blocks])
    lo, hi = wilson_interval(int(won.sum()), len(won))
    searched = np.concatenate([b["searched"] for b in blocks])
    differ = np.concatenate([b["actions"] != b["prior"] for b in blocks])
    print(f"expert vs {args.opponent}: {won.sum()}/{len(won)} = {won.mean():.1%} [{lo:.1%}, {hi:.1%}]; "
          f"{len(differ)} decisions, {searched.sum()} searched, {differ.sum()} overrides")
    return {"games": len(won), "win_rate": float(won.mean()), "ci95": [lo, hi], "decisions": len(differ),
            "searched": int(searched.sum()), "overrides": int(differ.sum())}


def block_games(path: str) -> int:
    """How many games the block file ``path`` holds (0 if there is none, or if it lacks a column
    of ``COLUMNS``): a last block cut short by a smaller ``--games`` is played again, whole, by a
    larger one, and a block written before the move values were recorded is played again (the
    same games: they depend on the seed alone) with them."""
    if os.path.islink(path) or not os.path.isfile(path):
        return 0
    with np.load(path, allow_pickle=False) as z:
        return len(z["won"]) if set(COLUMNS) <= set(z.files) else 0


def load_blocks(folder: str, below: int | None = None) -> list[dict]:
    """The block files of ``folder`` in game order (those whose first game is below ``below``):
    regular files named as ``collect`` names them (no link, FIFO or other name is opened)."""
    out = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        named = BLOCK_NAME.fullmatch(name)
        if not named or os.path.islink(path) or not os.path.isfile(path) or (
                below is not None and int(named.group(1)) >= below):
            continue
        with np.load(path, allow_pickle=False) as z:
            out.append({k: z[k] for k in z.files})
    return out


def distill(args: argparse.Namespace) -> dict:
    import torch

    if os.path.isdir(args.out) and os.listdir(args.out):
        try:
            ours = "distilled" in ckpt.load_card(args.out)
        except (ValueError, OSError):
            ours = False
        if not ours:
            raise SystemExit(f"{args.out} holds files that no distillation wrote; pick an empty or new --out")

    torch.manual_seed(args.seed)
    rules = make_rules(args.rules)
    _, card = load_policy(args.checkpoint, rules, args.players)
    tensors = ckpt.load_weights(args.checkpoint, card)
    spec = card["policy"]
    with open(os.path.join(args.demos, "about.json")) as f:
        about = json.load(f)
    made = {k: about.get(k) for k in ("checkpoint", "rules", "players")}
    if made != {"checkpoint": args.checkpoint, "rules": args.rules, "players": args.players}:
        raise SystemExit(f"{args.demos} was collected with {made}; distill it with those --checkpoint, --rules and "
                         "--players (its prior column is that policy's)")
    blocks = load_blocks(args.demos)
    if len(blocks) < 2:
        raise SystemExit(f"{args.demos}: {len(blocks)} blocks; distill needs 2 or more")
    held = [i for i in range(len(blocks)) if i % HOLD_OUT == HOLD_OUT - 1] or [len(blocks) - 1]
    fit = [i for i in range(len(blocks)) if i not in held]

    def cat(ix: list[int], col: str) -> torch.Tensor:
        return torch.as_tensor(np.concatenate([blocks[i][col] for i in ix]))

    layers = []
    sizes = spec["sizes"]
    for i in range(len(sizes) - 1):
        lin = torch.nn.Linear(sizes[i], sizes[i + 1])
        with torch.no_grad():
            lin.weight.copy_(torch.as_tensor(tensors[f"actor.{i}.weight"]))
            lin.bias.copy_(torch.as_tensor(tensors[f"actor.{i}.bias"]))
        layers += [lin, torch.nn.Tanh()] if i < len(sizes) - 2 else [lin]
    actor = torch.nn.Sequential(*layers)
    x, m, y = cat(fit, "features"), cat(fit, "masks"), cat(fit, "actions").long()
    hx, hm, hy, hp = cat(held, "features"), cat(held, "masks"), cat(held, "actions").long(), cat(held, "prior").long()

    def agreement() -> tuple[float, float]:
        with torch.no_grad():
            g = actor(hx).masked_fill(~hm, -torch.inf).argmax(1)
        over = hy != hp
        on_overrides = float((g[over] == hy[over]).float().mean()) if over.any() else float("nan")
        return float((g == hy).float().mean()), on_overrides

    start = agreement()
    override = y != cat(fit, "prior").long()  # the rows where the expert overrode the policy
    weight = torch.where(override, float(args.override_weight), 1.0)
    target = torch.nn.functional.one_hot(y, A.NUM_ACTIONS).float()
    if args.targets == "soft":  # the policy's own distribution wherever the expert kept its move
        with torch.no_grad():
            own = torch.softmax(actor(x).masked_fill(~m, MASKED), 1)
        target = torch.where(override[:, None], target, own)
    elif args.targets == "improve":  # pi * exp(value / temperature): every compared move's value
        old = sum("values" not in b for b in blocks)
        if old:
            raise SystemExit(f"{args.demos}: {old} of its {len(blocks)} blocks hold no move values (collected "
                             "before they were recorded); --targets improve needs them: run collect on the folder "
                             "again to replay those blocks with them")
        gain = torch.nan_to_num(cat(fit, "values").float(), nan=0.0)  # a move not compared: the default's 0
        with torch.no_grad():
            target = torch.softmax(actor(x).masked_fill(~m, MASKED) + gain / args.temperature, 1)
    # SGD, not Adam: Adam's steps are about lr whatever the gradient's size, so at the soft targets'
    # minimum (the policy's own distribution) it would jitter every weight; SGD's vanish there
    opt = (torch.optim.SGD(actor.parameters(), lr=args.learning_rate, momentum=0.9) if args.optimizer == "sgd"
           else torch.optim.Adam(actor.parameters(), lr=args.learning_rate))
    for _ in range(args.epochs):
        for idx in torch.randperm(len(y)).split(args.batch_size):
            logits = actor(x[idx]).masked_fill(~m[idx], MASKED)
            loss = (torch.nn.functional.cross_entropy(logits, target[idx], reduction="none") * weight[idx]).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(actor.parameters(), 0.5)
            opt.step()
    end = agreement()
    new = {}
    linears = [mod for mod in actor if isinstance(mod, torch.nn.Linear)]
    for i, lin in enumerate(linears):
        new[f"actor.{i}.weight"] = lin.weight.detach().numpy()
        new[f"actor.{i}.bias"] = lin.bias.detach().numpy()
    out_card = dict(card, distilled={"from": args.checkpoint, "demos": args.demos, "rows": int(len(y)),
                                     "epochs": args.epochs, "targets": args.targets, "optimizer": args.optimizer,
                                     "learning_rate": args.learning_rate, "override_weight": args.override_weight,
                                     **({"temperature": args.temperature} if args.targets == "improve" else {})})
    ckpt.save_policy(args.out, out_card, new)
    print(f"fitted {len(y)} decisions ({int(override.sum())} overrides); held out "
          f"{len(hy)}: agreement with the expert {start[0]:.1%} -> {end[0]:.1%}, on its overrides "
          f"{start[1]:.1%} -> {end[1]:.1%}; saved {args.out}")
    return {"rows": int(len(y)), "held_out": int(len(hy)), "agreement": [start[0], end[0]],
            "override_agreement": [start[1], end[1]]}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    d = sub.add_parser("distill")
    for q in (c, d):
        q.add_argument("--checkpoint", default="checkpoints/classic-2p")
        q.add_argument("--rules", default="classic")
        q.add_argument("--num-players", "--players", dest="players", type=int, default=2)
        q.add_argument("--seed", type=int, default=20261210)
    c.add_argument("--out", required=True)
    c.add_argument("--games", type=int, default=4000)
    c.add_argument("--simulations", type=int, default=200)
    c.add_argument("--opponent", default="heuristic")
    c.add_argument("--workers", type=int, default=1)
    d.add_argument("--demos", required=True)
    d.add_argument("--out", required=True)
    d.add_argument("--epochs", type=int, default=4)
    d.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd")
    d.add_argument("--learning-rate", type=float, default=0.01)
    d.add_argument("--batch-size", type=int, default=512)
    d.add_argument("--targets", choices=("hard", "soft", "improve"), default="soft",
                   help="hard: the expert's moves; soft: the policy's own distribution where the expert kept "
                        "the policy's move, the expert's move where it overrode it; improve: the policy's "
                        "distribution times exp(value / --temperature), every searched move's value")
    d.add_argument("--temperature", type=float, default=None,
                   help="--targets improve only (default 0.1): the value (a move's mean return minus the "
                        "default's; returns +1 a win, -1/(n-1) a loss) that multiplies a move's probability by e")
    d.add_argument("--override-weight", type=float, default=1.0,
                   help="loss weight of the decisions where the expert overrode the policy")
    args = p.parse_args(argv)
    if args.command == "collect" and (args.games < 1 or args.simulations < 1 or args.workers < 1):
        p.error("--games, --simulations and --workers must be >= 1")
    if args.command == "distill" and args.temperature is not None and args.targets != "improve":
        p.error("--temperature applies to --targets improve only")
    if args.command == "distill" and args.temperature is None:
        args.temperature = 0.1
    if args.command == "distill" and (args.epochs < 0 or args.batch_size < 1 or not args.learning_rate > 0
                                      or not args.override_weight > 0 or not 0 < args.temperature < float("inf")):
        p.error("--epochs must be >= 0, --batch-size >= 1, --learning-rate, --override-weight and --temperature "
                "> 0 (and finite)")
    if args.command == "distill" and not os.path.isfile(os.path.join(args.demos, "about.json")):
        p.error(f"--demos {args.demos!r}: no about.json (not a folder of expert_distill.py collect)")
    try:
        _, card = load_policy(args.checkpoint, make_rules(args.rules), args.players)
    except (ValueError, OSError) as exc:
        p.error(f"--checkpoint {args.checkpoint!r}: {exc}")
    if (card["policy"]["input"], card["policy"]["activation"]) != ("obs_features", "tanh"):
        p.error(f"--checkpoint {args.checkpoint!r}: this study takes tanh MLPs on obs_features (the shipped "
                f"agents'), not {card['policy']['activation']} on {card['policy']['input']}")
    return collect(args) if args.command == "collect" else distill(args)


if __name__ == "__main__":
    main()
