"""Episode lengths a trainer sees: the learner's own decisions and all decisions per game.

    python bench/game_lengths.py                              # the table behind the caps
    python bench/game_lengths.py --rules house --players 4 --games 300
    python bench/game_lengths.py --caps 250 500 1000 2000 --max-steps 200000
    python bench/game_lengths.py --rules house --cases uniform:uniform --games 100

Why: ``draw`` is always legal, so a policy that picks uniformly among the legal actions (an
untrained network) draws about as often as it plays, its hand grows, and a game between
two such players lasts thousands of decisions. The Gymnasium view therefore truncates an
episode after ``max_learner_steps`` learner decisions (and the engine after
``rules.max_steps`` decisions of all seats). This script measures where those caps fall.

Each case is a learner seat against opponents, played on the engine through the arena (the
loop the Gymnasium view uses): the learner is ``uniform`` (uniform over the legal actions:
an untrained policy), ``random`` (a random playable card; the bot) or ``heuristic``; the
opponents are ``heuristic``, ``random`` or ``uniform`` (self-play of an untrained policy, as
in a PettingZoo-wrapper self-play run). The engine's cap is lifted to ``--max-steps`` so
that the lengths are not censored. Printed per case: the learner's decisions per game
(mean, median, 90th/99th percentile, max), all decisions per game (mean, 99th percentile),
and the share of games a cap of ``--caps`` learner decisions would truncate. Game ``g``
depends only on ``(seed, g)``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from uno_env.agents.arena import play_game
from uno_env.agents.base import Agent, make_agent
from uno_env.game.engine import Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import make_rules

CASES = [  # (learner, opponents)
    ("heuristic", "heuristic"),
    ("random", "heuristic"),
    ("uniform", "heuristic"),
    ("uniform", "random"),
    ("uniform", "uniform"),
]


class UniformAgent(Agent):
    """Uniform over the legal actions: what an untrained masked policy does."""

    name = "uniform"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])


def build(spec: str, rules, n: int, seed: int) -> Agent:
    return UniformAgent(rules, n, seed) if spec == "uniform" else make_agent(spec, rules, n, seed=seed)


def play_case(rules_name: str, n: int, learner: str, opponent: str, games: int, seed: int,
              max_steps: int) -> dict:
    rules = make_rules(rules_name, max_steps=max_steps)
    engine = Engine(rules, n)
    encoder = ObservationEncoder(engine)
    mine, total, truncated = [], [], 0
    for g in range(games):
        seat = g % n  # the learner's seat rotates
        agents = [build(learner if s == seat else opponent, rules, n, seed * 1_000_003 + g * 16 + s)
                  for s in range(n)]
        count = [0]

        def on_decision(state, s, action, count=count, seat=seat):
            if s == seat:
                count[0] += 1

        rec = play_game(engine, agents, np.random.default_rng([seed, g]), on_decision=on_decision,
                        encoder=encoder)
        mine.append(count[0])
        total.append(rec.steps)
        truncated += rec.truncated
    return {"mine": np.array(mine), "total": np.array(total), "truncated": truncated}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="classic")
    p.add_argument("--num-players", "--players", dest="players", type=int, default=2)
    p.add_argument("--games", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=100_000, help="the engine's cap (all decisions), lifted")
    p.add_argument("--caps", type=int, nargs="+", default=[250, 500, 1000, 2000])
    p.add_argument("--cases", nargs="+", default=[f"{a}:{b}" for a, b in CASES],
                   help="learner:opponents pairs of uniform, random, greedy, heuristic")
    args = p.parse_args(argv)
    cases = [tuple(c.split(":", 1)) for c in args.cases]
    if any(len(c) != 2 for c in cases):
        p.error(f"--cases takes learner:opponents pairs, got {args.cases}")
    print(f"rules {args.rules}, {args.players} players, {args.games} games per case, seed {args.seed}, "
          f"engine cap {args.max_steps} decisions; learner decisions per game, share of games over each cap")
    head = (f"{'learner vs opponents':<24} {'learner decisions: mean':>24} {'p50':>6} {'p90':>6} {'p99':>6} "
            f"{'max':>7} | {'all: mean':>9} {'p99':>7} | " + " ".join(f"{'>' + str(c):>6}" for c in args.caps)
            + "  time")
    print(head)
    for learner, opponent in cases:
        t0 = time.time()
        r = play_case(args.rules, args.players, learner, opponent, args.games, args.seed, args.max_steps)
        m, t = r["mine"], r["total"]
        over = " ".join(f"{np.mean(m > c):>6.1%}" for c in args.caps)
        note = f"  ({r['truncated']} hit the engine cap)" if r["truncated"] else ""
        print(f"{learner + ' vs ' + opponent:<24} {m.mean():>24.0f} {np.median(m):>6.0f} "
              f"{np.percentile(m, 90):>6.0f} {np.percentile(m, 99):>6.0f} {m.max():>7} | "
              f"{t.mean():>9.0f} {np.percentile(t, 99):>7.0f} | {over}  {time.time() - t0:.0f} s{note}",
              flush=True)


if __name__ == "__main__":
    main()
