"""Throughput of random legal play: engine alone, the arena, ``raw_env``, ``env()`` and (if installed) RLCard.

    python bench/bench_env.py                 # classic and house, 2 and 4 players
    python bench/bench_env.py --seconds 3 --rules classic --players 2

Each case plays uniformly random legal actions for ``--seconds`` of wall time on one core
and prints decision steps/s, games/s and steps per game: the best of ``--repeat`` runs, the
cases of one ruleset and player count taking turns, so that a burst of load on the machine
hits them alike; then the ratio env() / raw_env of every ruleset and player count. On a
machine busy with other work, ``--clock cpu`` times this process's CPU time instead of wall
time (steps per CPU second). The layers:

* ``engine``: ``legal_actions`` + ``step`` only (no observation, no mask);
* ``arena``: whole games of agents through :func:`uno_env.agents.arena.play_game`, the loop
  of the evaluation tool and the Gymnasium view's opponents (observation + mask + ``act``
  at every decision);
* ``raw_env`` and ``env()``: the AEC loops call ``last()`` (full observation + mask) before
  every ``step()``, as a learner would.

With ``rlcard`` installed, RLCard's UNO (2 players, its own simpler rules) runs through its
env API in the same process and the ratios raw_env / RLCard and env() / RLCard are printed.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

import uno_env
from uno_env.agents.arena import play_game
from uno_env.agents.base import Agent
from uno_env.game.actions import DRAW
from uno_env.game.engine import Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import make_rules


clock = time.perf_counter  # --clock cpu: time.process_time (this process's CPU time only)


def choose(legal, pick: random.Random, policy: str) -> int:
    """``uniform``: any legal action; ``player``: a random playable card when there is one
    (how the ``random`` bot plays), else any legal action."""
    if policy == "player" and legal[0] < DRAW:
        plays = [a for a in legal if a < DRAW]
        return plays[pick.randrange(len(plays))]
    return legal[pick.randrange(len(legal))]


def bench_engine(rules: str, players: int, seconds: float, policy: str) -> tuple[int, int, float]:
    engine = Engine(make_rules(rules), players)
    rng = np.random.default_rng(0)
    pick = random.Random(0)
    steps = games = 0
    limit = engine.rules.max_steps
    t0 = clock()
    while clock() - t0 < seconds:
        s = engine.new_state(rng)
        legal_actions, step = engine.legal_actions, engine.step
        while not s.game_over and s.steps < limit:
            step(s, choose(legal_actions(s), pick, policy))
        steps += s.steps
        games += 1
    return steps, games, clock() - t0


class ChoiceAgent(Agent):
    """An agent playing ``choose`` on the legal actions of its mask."""

    name = "choice"

    def __init__(self, rules, num_players: int, pick: random.Random, policy: str):
        super().__init__(rules, num_players)
        self.pick, self.policy = pick, policy

    def act(self, observation, action_mask) -> int:
        return choose(action_mask.nonzero()[0].tolist(), self.pick, self.policy)


def bench_arena(rules: str, players: int, seconds: float, policy: str) -> tuple[int, int, float]:
    engine = Engine(make_rules(rules), players)
    encoder = ObservationEncoder(engine)
    rng = np.random.default_rng(0)
    agents = [ChoiceAgent(engine.rules, players, random.Random(0), policy)] * players
    steps = games = 0
    t0 = clock()
    while clock() - t0 < seconds:
        steps += play_game(engine, agents, rng, encoder=encoder).steps
        games += 1
    return steps, games, clock() - t0


def bench_aec(make, seconds: float, policy: str) -> tuple[int, int, float]:
    e = make()
    pick = random.Random(0)
    steps = games = 0
    seed = 0
    t0 = clock()
    while clock() - t0 < seconds:
        e.reset(seed=seed)
        seed += 1
        while True:
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                break
            e.step(int(choose(obs["action_mask"].nonzero()[0], pick, policy)))
            steps += 1
        games += 1
    return steps, games, clock() - t0


def bench_rlcard(seconds: float) -> tuple[int, int, float] | None:
    try:
        import rlcard
    except ImportError:
        return None
    e = rlcard.make("uno", config={"seed": 0})
    pick = random.Random(0)
    steps = games = 0
    t0 = clock()
    while clock() - t0 < seconds:
        state, player = e.reset()
        while not e.is_over():
            legal = list(state["legal_actions"])
            state, player = e.step(legal[pick.randrange(len(legal))])
            steps += 1
        games += 1
    return steps, games, clock() - t0


def best_of(repeat: int, run) -> tuple[int, int, float]:
    """The fastest of ``repeat`` runs (the least disturbed by other load on the machine)."""
    return max((run() for _ in range(repeat)), key=lambda r: r[0] / r[2])


def best_interleaved(repeat: int, runs: dict) -> dict:
    """The fastest of ``repeat`` runs of every case, the cases taking turns (engine, raw_env,
    env(), engine, ...), so that a burst of load on the machine hits them alike."""
    best: dict = {}
    for _ in range(repeat):
        for name, run in runs.items():
            r = run()
            if name not in best or r[0] / r[2] > best[name][0] / best[name][2]:
                best[name] = r
    return best


def row(name: str, result: tuple[int, int, float]) -> float:
    steps, games, dt = result
    rate = steps / dt
    print(f"| {name:<34} | {rate:>10,.0f} | {games / dt:>8,.1f} | {steps / max(games, 1):>9,.0f} |")
    return rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="wall time of one run of a case")
    ap.add_argument("--repeat", type=int, default=3, help="runs per case; the fastest is reported")
    ap.add_argument("--rules", nargs="+", default=["classic", "house"])
    ap.add_argument("--num-players", "--players", dest="players", nargs="+", type=int, default=[2, 4])
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                    help="wall time, or this process's CPU time (steady on a machine busy with "
                         "other work: other processes' load does not count)")
    ap.add_argument("--policy", choices=["uniform", "player"], default="uniform",
                    help="uniform random legal actions (RLCard-style) or random playable cards first")
    args = ap.parse_args()
    global clock
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"policy: {args.policy}, best of {args.repeat} runs of {args.seconds:g} s ({args.clock} clock) "
          f"per case")
    print("| case | steps/s | games/s | steps/game |\n|---|---:|---:|---:|")
    raw_rates, env_rates, env_ratios = {}, {}, {}
    for rules in args.rules:
        for n in args.players:
            best = best_interleaved(args.repeat, {
                "engine": lambda: bench_engine(rules, n, args.seconds, args.policy),
                "arena": lambda: bench_arena(rules, n, args.seconds, args.policy),
                "raw_env": lambda: bench_aec(lambda: uno_env.raw_env(rules=rules, num_players=n),
                                             args.seconds, args.policy),
                "env()": lambda: bench_aec(lambda: uno_env.env(rules=rules, num_players=n),
                                           args.seconds, args.policy),
            })
            row(f"engine {rules} {n}p", best["engine"])
            row(f"arena {rules} {n}p", best["arena"])
            raw_rates[rules, n] = row(f"raw_env {rules} {n}p", best["raw_env"])
            env_rates[rules, n] = row(f"env() {rules} {n}p", best["env()"])
            env_ratios[rules, n] = env_rates[rules, n] / raw_rates[rules, n]
    print()
    for (rules, n), ratio in env_ratios.items():
        print(f"env() / raw_env {rules} {n}p: {ratio:.2f}x")
    rl = bench_rlcard(args.seconds)
    if rl is not None:
        rl = best_of(args.repeat, lambda: bench_rlcard(args.seconds))
    if rl is None:
        print("\nrlcard not installed: skipping the RLCard comparison (pip install rlcard)")
        return
    rl_rate = row("RLCard uno 2p (env API)", rl)
    for (rules, n), rate in raw_rates.items():
        print(f"raw_env {rules} {n}p / RLCard: {rate / rl_rate:.2f}x, "
              f"env() {rules} {n}p / RLCard: {env_rates[rules, n] / rl_rate:.2f}x")


if __name__ == "__main__":
    main()
