"""Headroom: how much a player that SEES EVERY HAND wins against the heuristic (or another bot).

    python experiments/headroom.py --players 4 --games 300 --seed 7 --workers 2
    python experiments/headroom.py --players 4 --games 300 --seed 7 --workers 2 --opponent random

One seat (rotating over the games) is the *clairvoyant rollout player*; the others are
``--opponent`` bots (``heuristic`` by default) on their observations. At each of its choices in a searched phase (turn,
drawn card, challenge, wild colour) it takes the heuristic's move as the default and tries
every legal move on the TRUE state (every hand known; only the DRAW pile's order is
reshuffled for each sample: it does not see the deck), ``--simulations`` rollouts in all
with common random numbers, every seat played to the end of the round by the search bot's
:class:`~uno_env.agents.search.rollout.RolloutPolicy`. The move with the best mean gain over
the default replaces it when that gain is positive and above 2 standard errors: the paired
test of ``search`` (:mod:`uno_env.agents.search.paired`). It is the ``search`` bot with
perfect determinisation: the distance between its win rate and the ``search`` bot's (which
deals the hidden cards from what it saw) is what knowing the hands is worth to this kind of
play, an upper reference for what inference from the public history can add. It is not an
agent of :mod:`uno_env.agents`: those see observations only.

Every game is seeded from ``(--seed, game)`` alone (deal, bots, samples), so ``--workers``
changes the wall time, not the games. Prints the win rate with its Wilson 95% interval, par
(1 / players) and the wall time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from uno_env.agents import make_agent  # noqa: E402
from uno_env.agents.heuristic import HeuristicAgent  # noqa: E402
from uno_env.agents.search import SEARCHED_PHASES, paired_choice, play_each  # noqa: E402
from uno_env.agents.search.rollout import RolloutPolicy  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game.engine import Engine, State  # noqa: E402
from uno_env.game.observation import ObservationEncoder  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402
from uno_env.tools.stats import wilson_interval  # noqa: E402

ROLLOUT_CAP = 3000  # steps of one rollout before it counts as a draw (0)
Z = 2.0  # standard errors a move's gain must clear to replace the default


class Clairvoyant:
    """The rollout player on the true state of ``engine``'s games (see the module docstring)."""

    def __init__(self, rules, num_players: int, simulations: int, rng: np.random.Generator):
        self.engine = Engine(rules.replace(episode="round", max_steps=100_000), num_players)
        self.policy = RolloutPolicy(self.engine)
        self.simulations, self.rng = int(simulations), rng

    def rollout(self, s: State, me: int) -> float:
        engine, policy = self.engine, self.policy
        cap = s.steps + ROLLOUT_CAP
        while not s.game_over:
            if s.steps >= cap:
                return 0.0
            engine.step(s, policy(s, engine.legal_actions(s)))
        return engine.returns(s)[me]

    def decide(self, s: State, me: int, default: int) -> int:
        legal = self.engine.legal_actions(s)
        if s.phase not in SEARCHED_PHASES or len(legal) < 2 or A.UNO in legal:
            return default
        d = legal.index(default)
        diffs: list[list[float]] = [[] for _ in legal]
        for _ in range(max(2, self.simulations // len(legal))):
            base = s.clone()  # the true hands; only the DRAW pile is reshuffled
            base.draw_pile = self.rng.permutation(base.draw_pile).tolist() if base.draw_pile else []
            out = play_each(self.engine, base, legal, int(self.rng.integers(2**62)),
                            lambda t: self.rollout(t, me))
            for x, y in zip(diffs, out):
                x.append(y - out[d])
        return legal[paired_choice(diffs, d, 0.0, Z)]


def play(job: tuple[str, int, int, int, int] | tuple[str, int, int, int, int, str]) -> int:
    """One game: 1 if the clairvoyant seat (game % players) wins. ``job``: rules, players,
    simulations, seed, game and the opponents' spec (``heuristic`` if left out)."""
    rules_name, players, simulations, seed, game = job[:5]
    opponent = job[5] if len(job) > 5 else "heuristic"
    rules = make_rules(rules_name)
    engine = Engine(rules, players)
    encoder = ObservationEncoder(engine)
    me = game % players
    s = engine.new_state(np.random.default_rng([seed, game, 0]))
    seeds = [int(x) for x in np.random.default_rng([seed, game, 1]).integers(2**31, size=players)]
    bots = [HeuristicAgent(rules, players, seed=x) if p == me else make_agent(opponent, rules, players, seed=x)
            for p, x in enumerate(seeds)]
    player = Clairvoyant(rules, players, simulations, np.random.default_rng([seed, game, 2]))
    while not s.game_over and not engine.truncated(s):
        p = s.actor
        # every seat's bot reads its observation (a heuristic keeps its card counting); the
        # clairvoyant seat's heuristic gives its default move
        a = bots[p].act(encoder.encode(s, p), A.legal_mask(engine.legal_actions(s)))
        if p == me:
            a = player.decide(s, me, a)
        engine.step(s, a)
    return int(s.game_over and s.winner == me)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="classic")
    p.add_argument("--num-players", "--players", dest="players", type=int, default=4)
    p.add_argument("--games", type=int, default=300)
    p.add_argument("--simulations", type=int, default=200, help="rollouts per decision, over its moves")
    p.add_argument("--opponent", default="heuristic", help="the other seats' agent spec")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args(argv)
    if args.games < 1 or args.simulations < 1 or args.workers < 1 or not 2 <= args.players <= 10:
        p.error("--games, --simulations and --workers must be >= 1, --players in 2..10")
    try:
        make_agent(args.opponent, make_rules(args.rules), args.players)
    except (ValueError, OSError) as exc:
        p.error(f"--opponent {args.opponent!r}: {exc}")
    jobs = [(args.rules, args.players, args.simulations, args.seed, g, args.opponent) for g in range(args.games)]
    began = time.time()
    if args.workers == 1:
        wins = sum(map(play, jobs))
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            wins = sum(pool.map(play, jobs, chunksize=4))
    low, high = wilson_interval(wins, args.games)
    out = {"rules": args.rules, "players": args.players, "games": args.games, "wins": wins,
           "win_rate": wins / args.games, "ci95": [low, high], "par": 1 / args.players,
           "simulations": args.simulations, "opponent": args.opponent, "seed": args.seed,
           "wall_s": time.time() - began}
    print(f"clairvoyant rollout player vs {args.players - 1} {args.opponent} ({args.rules}, "
          f"{args.simulations} simulations, seed {args.seed}): {wins}/{args.games} = "
          f"{wins / args.games:.1%} [{low:.1%}, {high:.1%}], par {1 / args.players:.1%}, "
          f"{out['wall_s']:.0f} s")
    return out


if __name__ == "__main__":
    main()
