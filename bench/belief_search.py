"""Search with learned beliefs: the ``search`` bot dealing the hidden hands from a belief network.

    python bench/belief_search.py --players 4 --fit-games 8000 --fit-seed 99 \\
        --games 1600 --seed 20261202 --simulations 200 --workers 2

``bench/belief_quality.py`` finds that a network reading the observation predicts "does this
opponent hold a card of colour c" better than the heuristic's ``Beliefs`` (held-out Brier
0.146 against 0.172, 4 players), and ``bench/headroom.py`` that a player who knows the hands
wins 44% against 3 heuristics where ``search`` sits at par. This script asks what the
better beliefs are worth to the ``search`` bot:

1. **Fit** the belief network of ``belief_quality`` (``obs_features`` in, two tanh layers of
   256, one logit per opponent and colour) on every turn with a choice of ``--fit-games``
   heuristic self-play games (seed ``--fit-seed``), ``--epochs`` passes of Adam.
2. **Play** ``--games`` games (classic, seats rotated: the searching seat is ``game % players``)
   twice, against ``players - 1`` heuristics: the ``search`` bot with ``--simulations``
   rollouts per decision dealing from the colour voids of the heuristic's ``Beliefs``
   (``voids=1``, the bot's default in 3+ players), and :class:`LearnedBeliefSearch`, the same bot
   dealing from the network's probabilities through
   :func:`~uno_env.agents.search.determinise.colour_evidence`. Both arms play the same deals
   with the same seeds, so their per-game difference is paired.

Prints each arm's win rate (Wilson 95%), the paired difference (mean over games of
win(learned) - win(Beliefs), +-1.96 standard errors) and, first, how good each way of dealing
is (:func:`deal_brier`, ``--brier-games`` games from ``--seed``).

The network is a bench object, fitted at run time: no agent spec uses it, and nothing is
loaded from disk.

Measured (0.5.8), the command above (the arms were played by the probe this script was cut
from, on the same fit and games: the script's fit gives the probe's weights, and it replays
the probe's first 8 games of each arm): the network fitted on 285,320 turns in 291 s; 1,600
games per arm, about 50 minutes per arm on one core: ``Beliefs`` 25.0% [22.9, 27.2],
learned 24.6% [22.6, 26.8], paired difference -0.4 points [-1.8, +1.0]. Deal Brier (40
games, 30 deals a turn): uniform 0.204, ``Beliefs`` 0.177, learned 0.153, the network
itself 0.149. The deals are better; the search bot is not.

Deterministic: the network from ``--fit-seed``, every game from ``(--seed, game)``; ``--workers``
changes the wall time, not the games.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from belief_quality import collect, train_mlp  # noqa: E402
from uno_env.agents.checkpoint import obs_features_layout  # noqa: E402
from uno_env.agents.heuristic import HeuristicAgent  # noqa: E402
from uno_env.agents.search import SearchAgent  # noqa: E402
from uno_env.agents.search.determinise import colour_evidence, deal, template  # noqa: E402
from uno_env.agents.view import decode  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game import cards as C  # noqa: E402
from uno_env.game.engine import TURN, Engine  # noqa: E402
from uno_env.game.observation import ObservationEncoder  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402
from uno_env.tools.stats import wilson_interval  # noqa: E402

ARMS = ("Beliefs", "learned")


class BeliefNet:
    """The fitted network in numpy: ``(weights, biases)`` per layer, tanh between layers;
    called on an observation, the probability that each opponent (row) holds each colour."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], num_players: int):
        self.layers = layers
        self.keep, self.scale = obs_features_layout(num_players)
        self.shape = (num_players - 1, C.NUM_COLORS)

    @classmethod
    def from_torch(cls, net, num_players: int) -> "BeliefNet":
        linear = [m for m in net if hasattr(m, "weight")]
        return cls([(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()) for m in linear], num_players)

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        h = observation[self.keep] * self.scale
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                h = np.tanh(h)
        return (1.0 / (1.0 + np.exp(-h))).reshape(self.shape)


class LearnedBeliefSearch(SearchAgent):
    """The ``search`` bot whose deals give each opponent each colour with the network's
    probability (:func:`colour_evidence`) instead of the ``Beliefs``' voids."""

    def __init__(self, rules, num_players, seed=None, options=None, *, net: BeliefNet):
        super().__init__(rules, num_players, seed, options)
        self.net = net

    def _voids(self, v):
        return colour_evidence(v, self.deck, self.net(v.obs))


_NET: BeliefNet | None = None  # the network of this process (set by _init in workers)


def _init(net: BeliefNet | None) -> None:
    global _NET
    _NET = net


def play(job: tuple[str, int, int, int, int]) -> int:
    """One game: 1 if the searching seat (``game % players``) wins. ``job``: the arm,
    players, simulations, seed, game."""
    arm, players, simulations, seed, game = job
    rules = make_rules("classic")
    engine = Engine(rules, players)
    encoder = ObservationEncoder(engine)
    rng = np.random.default_rng([seed, game])
    s = engine.new_state(rng)
    me = game % players
    seeds = [int(x) for x in rng.integers(2**31, size=players)]
    options = {"simulations": simulations}
    searcher = (LearnedBeliefSearch(rules, players, seeds[me], options, net=_NET) if arm == "learned"
                else SearchAgent(rules, players, seeds[me], options))
    agents = [searcher if p == me else HeuristicAgent(rules, players, seed=x) for p, x in enumerate(seeds)]
    for agent, x in zip(agents, seeds):
        agent.reset(seed=x)
    while not s.game_over and not engine.truncated(s):
        p = s.actor
        engine.step(s, agents[p].act(encoder.encode(s, p), A.legal_mask(engine.legal_actions(s))))
    return int(s.game_over and s.winner == me)


def deal_brier(net: BeliefNet, players: int, games: int, seed: int, samples: int) -> dict[str, float]:
    """How well each way of dealing predicts the hands: over the turns with a choice of seat 0
    in ``games`` heuristic games, the Brier score of "opponent j holds colour c" taken as the
    share of ``samples`` deals that give it one (uniform deals, ``Beliefs``' voids, the
    network's), and of the network's own probabilities."""
    rules = make_rules("classic")
    engine = Engine(rules, players)
    encoder = ObservationEncoder(engine)
    errors: dict[str, list[float]] = {"uniform": [], "Beliefs": [], "learned": [], "network itself": []}
    for game in range(games):
        rng = np.random.default_rng([seed, game])
        s = engine.new_state(rng)
        me = LearnedBeliefSearch(rules, players, game, net=net)
        bots = [HeuristicAgent(rules, players, seed=int(x)) for x in rng.integers(2**31, size=players)]
        while not s.game_over and not engine.truncated(s):
            p = s.actor
            observation, mask = encoder.encode(s, p), A.legal_mask(engine.legal_actions(s))
            if p == 0:
                v = decode(observation, mask)
                me.observe(v)
                if s.phase == TURN and len(v.legal) > 1:
                    truth = np.array([[s.hands[j][sl].sum() > 0 for sl in C.COLOR_SLICES] for j in range(1, players)])
                    ways = {"uniform": [(None, None)] * (players - 1), "Beliefs": SearchAgent._voids(me, v),
                            "learned": me._voids(v)}
                    for name, voids in ways.items():
                        tp = template(v, rules, me.deck, voids)
                        if tp is None:
                            continue
                        share = np.mean([[[d.hands[j][sl].sum() > 0 for sl in C.COLOR_SLICES] for j in range(1, players)]
                                         for d in (deal(tp, me.rng) for _ in range(samples))], axis=0)
                        errors[name].append(float(np.mean((share - truth) ** 2)))
                    errors["network itself"].append(float(np.mean((net(v.obs) - truth) ** 2)))
                a = me.h.decide(v)  # the heuristic's move, as the search bot's default
                me.h.beliefs.remember(v, a)
                me.tracker.remember(v, a)
            else:
                a = bots[p].act(observation, mask)
            engine.step(s, a)
    return {name: float(np.mean(e)) for name, e in errors.items()}


def fit(players: int, games: int, seed: int, epochs: int) -> tuple[BeliefNet, int]:
    """The belief network fitted on ``games`` heuristic games; with the number of rows."""
    import torch

    torch.set_num_threads(1)
    rows = collect(players, games, seed)
    return BeliefNet.from_torch(train_mlp(rows["x"], rows["truth"], epochs, seed), players), len(rows["x"])


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--fit-games", type=int, default=8000)
    p.add_argument("--fit-seed", type=int, default=99)
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--games", type=int, default=1600)
    p.add_argument("--seed", type=int, default=20261202)
    p.add_argument("--simulations", type=int, default=200, help="rollouts per searched decision")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--brier-games", type=int, default=40, help="games of the deals' Brier scores (0: none)")
    p.add_argument("--brier-samples", type=int, default=30, help="deals per turn for those scores")
    args = p.parse_args(argv)
    if min(args.fit_games, args.epochs, args.games, args.simulations, args.workers, args.brier_samples) < 1 \
            or args.brier_games < 0 or not 3 <= args.players <= 10:
        p.error("--fit-games, --epochs, --games, --simulations, --workers and --brier-samples must be >= 1, "
                "--brier-games >= 0, --players in 3..10")
    began = time.time()
    net, rows = fit(args.players, args.fit_games, args.fit_seed, args.epochs)
    fitted = time.time() - began
    briers = deal_brier(net, args.players, args.brier_games, args.seed, args.brier_samples) if args.brier_games else {}
    jobs = [(arm, args.players, args.simulations, args.seed, g) for arm in ARMS for g in range(args.games)]
    if args.workers == 1:
        _init(net)
        wins = list(map(play, jobs))
    else:
        with ProcessPoolExecutor(args.workers, initializer=_init, initargs=(net,)) as pool:
            wins = list(pool.map(play, jobs, chunksize=4))
    per_arm = {arm: wins[i * args.games:(i + 1) * args.games] for i, arm in enumerate(ARMS)}
    diff = np.subtract(per_arm["learned"], per_arm["Beliefs"], dtype=np.float64)
    half = 1.96 * (diff.std(ddof=1) / math.sqrt(len(diff)) if len(diff) > 1 else math.inf)
    out = {"players": args.players, "games": args.games, "seed": args.seed, "simulations": args.simulations,
           "fit_games": args.fit_games, "fit_seed": args.fit_seed, "fit_rows": rows, "fit_s": fitted,
           "arms": {arm: {"wins": sum(w), "win_rate": sum(w) / args.games,
                          "ci95": list(wilson_interval(sum(w), args.games))} for arm, w in per_arm.items()},
           "deal_brier": briers, "difference": float(diff.mean()), "difference_ci95": [float(diff.mean() - half), float(diff.mean() + half)],
           "wall_s": time.time() - began}
    print(f"search vs {args.players - 1} heuristic (classic, {args.simulations} simulations, seed {args.seed}, "
          f"{args.games} games per arm); network fitted on {rows} turns of {args.fit_games} games in {fitted:.0f} s")
    print("| deals from | wins | win rate (95% Wilson) |\n|---|---:|---:|")
    for arm, r in out["arms"].items():
        lo, hi = r["ci95"]
        print(f"| {arm} | {r['wins']} | {r['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] |")
    if briers:
        print(f"Brier of \"opponent j holds colour c\" over seat 0's turns of {args.brier_games} heuristic games "
              f"({args.brier_samples} deals a turn): " + ", ".join(f"{k} {x:.4f}" for k, x in briers.items()))
    lo, hi = out["difference_ci95"]
    print(f"paired difference (learned - Beliefs): {out['difference']:+.1%} [{lo:+.1%}, {hi:+.1%}]; "
          f"par {1 / args.players:.1%}; {out['wall_s']:.0f} s")
    return out


if __name__ == "__main__":
    main()
