"""Belief quality: how much of the opponents' hands a seat's observation reveals.

    python experiments/belief_quality.py --players 4 --games 8000 --seed 99

Heuristic bots play every seat of ``--games`` games (classic). At every turn with a choice,
the question is, for each opponent and colour: *does it hold a card of that colour* (wilds
aside)? The truth comes from the engine's hands; three predictors answer from the acting
seat's side only:

* **base rate**: the share of "yes" in the fitting games;
* **Beliefs**: ``1 - p_no`` of the heuristic's :class:`~uno_env.agents.beliefs.Beliefs`
  (card counting and the voids read from draws and plays), of the seat that acts;
* **MLP**: a network (``obs_features`` input, two tanh layers of 256, one logit per
  opponent and colour) fitted by binary cross-entropy to the observations of the fitting
  games, ``--epochs`` passes of Adam.

Games are split by index: every fifth is held out, and each predictor is scored by its
Brier score (mean squared error of the probability, 0 is perfect) on the held-out rows.
The gap between Beliefs and the MLP is what a learned belief model could add to the
heuristic's reading of the public history; ``experiments/headroom.py`` measures what knowing the
hands is worth.

A second question scores the **card counter**, the reference of the SB3 path's hand-prediction
loss (``hand_loss_coef``, 0.5.5; removed since, docs/4p-experiments.md): how many cards of each kind does each opponent hold? The counter
answers each opponent's hand size times the kind's share of the cards the seat has not seen
(the deck less its own hand and DISCARD, which is every other hand and the DRAW pile), and is
scored by the squared error per card kind and opponent, next to answering 0 for every kind
and to the **MLP over the counter** (0.5.9): the counter's answer plus a correction that a
network of the same shape, fitted by squared error on the fitting games, reads from the
observation.

Measured (0.5.4): 4 players, 8,000 games, seed 99, 12 epochs: 285,320 rows (56,688 held
out), base rate 0.636; held-out Brier 0.2316 (base rate), 0.1716 (Beliefs), 0.1458 (MLP), in
256 s on one core. The same run (0.5.7): held-out squared error per card kind and opponent
0.0991 (zero), 0.0853 (card counter); 282 s. With the card-level network (0.5.9): 0.0833
(MLP over the counter); 192 s. (A probe that also gave the MLP Beliefs' 12
numbers as inputs: 0.1451, no better: the network reads from the observation what Beliefs
read, and more.)

Deterministic: the deals and bots come from ``(--seed, game)``, the network from ``--seed``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from uno_env.agents.checkpoint import obs_features_layout  # noqa: E402
from uno_env.agents.heuristic import HeuristicAgent  # noqa: E402
from uno_env.agents.view import decode  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game import cards as C  # noqa: E402
from uno_env.game.engine import TURN, Engine  # noqa: E402
from uno_env.game.observation import ObservationEncoder  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402

HELD_OUT_EVERY = 5  # game g is held out when g % 5 == 4
HIDDEN = 256
LOSSES = ("bce", "mse")  # train_mlp's losses: binary cross-entropy on logits, squared error


def colour_face_grid(counts: np.ndarray) -> np.ndarray:
    """Colour x face: whether ``counts`` (cards per kind on the last axis, any leading axes)
    hold a card of that colour and face, wilds aside."""
    counts = np.asarray(counts)
    return counts[..., :C.NUM_COLORED].reshape(*counts.shape[:-1], C.NUM_COLORS, C.NUM_FACES) > 0


def holds_colours(hands: np.ndarray, seats) -> np.ndarray:
    """Per seat of ``seats`` (rows) and colour: whether ``hands`` (cards per kind, a row per
    seat) hold a card of that colour, wilds aside."""
    return colour_face_grid(hands[list(seats)]).any(axis=-1)


def hand_targets(s, seats: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What a row asks of the hands of ``seats`` (the opponents, in order) in state ``s``:
    whether each holds each colour, the cards of each kind it holds, and the card counter's
    expected count (its hand size times the kind's share of the cards neither in my hand nor in
    DISCARD: every other hand and the DRAW pile); each flat."""
    unseen = s.hands[seats].sum(axis=0) + np.bincount(s.draw_pile, minlength=C.NUM_KINDS)
    return (holds_colours(s.hands, seats).reshape(-1), s.hands[seats].reshape(-1),
            np.outer([s.hand_size[q] for q in seats], unseen / unseen.sum()).reshape(-1))


def collect(players: int, games: int, seed: int) -> dict[str, np.ndarray]:
    """Rows of every turn with a choice: ``x`` (obs_features), ``truth`` and ``beliefs`` (per
    opponent j = 1.. seats to the left, per colour: holds one / Beliefs' chance), ``game``;
    ``counts`` and ``counter`` (per opponent, per card kind: the cards it holds / the card
    counter's expected count)."""
    rules = make_rules("classic")
    engine = Engine(rules, players)
    encoder = ObservationEncoder(engine)
    keep, scale = obs_features_layout(players)
    x, truth, beliefs, game_of, counts, counter = [], [], [], [], [], []
    for g in range(games):
        rng = np.random.default_rng([seed, g])
        s = engine.new_state(rng)
        bots = [HeuristicAgent(rules, players, seed=int(b)) for b in rng.integers(2**31, size=players)]
        while not s.game_over and not engine.truncated(s):
            p = s.actor
            bot = bots[p]
            v = decode(encoder.encode(s, p), A.legal_mask(engine.legal_actions(s)))
            bot.beliefs.observe(v)  # HeuristicAgent.act, in three steps, to read its Beliefs
            if s.phase == TURN and len(v.legal) > 1 and bot.beliefs.void is not None:
                x.append(v.obs[keep] * scale)
                seats = [(p + j) % players for j in range(1, players)]
                for column, value in zip((truth, counts, counter), hand_targets(s, seats)):
                    column.append(value)
                beliefs.append([1.0 - q for j in range(1, players) for q in bot.beliefs.opponent(v, j).p_no])
                game_of.append(g)
            a = bot.decide(v)
            bot.beliefs.remember(v, a)
            engine.step(s, a)
    return {"x": np.asarray(x, np.float32), "truth": np.asarray(truth, np.float32),
            "beliefs": np.asarray(beliefs, np.float32), "game": np.asarray(game_of),
            "counts": np.asarray(counts, np.float32), "counter": np.asarray(counter, np.float32)}


def brier(p: np.ndarray, y: np.ndarray) -> float:
    return float(np.mean((p - y) ** 2))


def fit_mlp(x: np.ndarray, y: np.ndarray, epochs: int, seed: int, loss: str = "bce"):
    """A two-layer tanh MLP fitted to ``y`` (:func:`train_mlp`); returns a function from rows
    to predictions: probabilities for ``loss="bce"`` (binary ``y``), values for ``"mse"``."""
    import torch

    net = train_mlp(x, y, epochs, seed, loss)
    squash = torch.sigmoid if loss == "bce" else (lambda t: t)

    def predict(rows: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return squash(net(torch.as_tensor(rows))).numpy()
    return predict


def train_mlp(x: np.ndarray, y: np.ndarray, epochs: int, seed: int, loss: str = "bce"):
    """The torch network of :func:`fit_mlp` (logits out): ``epochs`` passes of Adam (lr 1e-3,
    batches of 512, order from ``seed``) on binary cross-entropy (``loss="bce"``) or, for
    real-valued ``y``, squared error (``"mse"``: the outputs are the predictions)."""
    if loss not in LOSSES:
        raise ValueError(f"loss {loss!r}: one of {', '.join(LOSSES)}")
    import torch

    criterion = torch.nn.functional.mse_loss if loss == "mse" else torch.nn.functional.binary_cross_entropy_with_logits

    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], HIDDEN), torch.nn.Tanh(),
                              torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.Tanh(), torch.nn.Linear(HIDDEN, y.shape[1]))
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    xt, yt = torch.as_tensor(x), torch.as_tensor(y)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        perm = torch.randperm(len(xt), generator=gen)
        for k in range(0, len(xt), 512):
            b = perm[k:k + 512]
            error = criterion(net(xt[b]), yt[b])
            opt.zero_grad()
            error.backward()
            opt.step()
    return net


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-players", "--players", dest="players", type=int, default=4)
    p.add_argument("--games", type=int, default=8000)
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--seed", type=int, default=99)
    args = p.parse_args(argv)
    if args.games < HELD_OUT_EVERY or args.epochs < 1 or not 2 <= args.players <= 10:
        p.error(f"--games must be >= {HELD_OUT_EVERY}, --epochs >= 1, --players in 2..10")
    import torch

    torch.set_num_threads(1)
    began = time.time()
    rows = collect(args.players, args.games, args.seed)
    held = rows["game"] % HELD_OUT_EVERY == HELD_OUT_EVERY - 1
    y, fit_y = rows["truth"][held], rows["truth"][~held]
    predict = fit_mlp(rows["x"][~held], fit_y, args.epochs, args.seed)
    counts, counter = rows["counts"][held], rows["counter"][held]
    # the card-level network: the counter's answer plus a correction read from the observation
    correction = fit_mlp(rows["x"][~held], rows["counts"][~held] - rows["counter"][~held], args.epochs, args.seed,
                         loss="mse")
    corrected = counter + correction(rows["x"][held])
    out = {"players": args.players, "games": args.games, "seed": args.seed, "epochs": args.epochs,
           "rows": len(rows["truth"]), "held_out_rows": int(held.sum()), "base_rate": float(fit_y.mean()),
           "brier": {"base rate": brier(np.full_like(y, fit_y.mean()), y),
                     "Beliefs": brier(rows["beliefs"][held], y),
                     "MLP": brier(predict(rows["x"][held]), y)},
           "count_mse": {"zero": brier(np.zeros_like(counts), counts), "card counter": brier(counter, counts),
                         "MLP over the counter": brier(corrected, counts)},
           "wall_s": time.time() - began}
    print(f"{args.players} players, {args.games} games (seed {args.seed}): {out['rows']} rows, "
          f"{out['held_out_rows']} held out; base rate {out['base_rate']:.3f}")
    print("| predictor | held-out Brier |\n|---|---:|")
    for name, value in out["brier"].items():
        print(f"| {name} | {value:.4f} |")
    print("| count predictor | held-out squared error per card kind and opponent |\n|---|---:|")
    for name, value in out["count_mse"].items():
        print(f"| {name} | {value:.4f} |")
    print(f"{out['wall_s']:.0f} s")
    return out


if __name__ == "__main__":
    main()
