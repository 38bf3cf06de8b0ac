"""Heuristic bot: decisions per second, and the same games as another revision.

    python bench/bench_heuristic.py                       # this tree: decisions/s per case
    python bench/bench_heuristic.py --ref c397aa5         # + that git revision, side by side
    python bench/bench_heuristic.py --ref main --games 300 --repeat 3

Each case (rules x players x line-up) plays ``--games`` seeded games on the engine with
the observation encoder (the loop of ``uno_env.tools.evaluate``): ``heuristic`` against
``random`` (the heuristic's seat rotates with the game number) and an all-``heuristic``
table. Only the CPU time spent inside the heuristic's ``act`` counts towards decisions/s
(``time.process_time``, so other processes on a loaded machine hurt the numbers less).

With ``--ref REV`` the package of that revision (``git archive REV uno_env``) runs in its own
worker process beside this tree's; every case runs ``--repeat`` times in each, alternating
(best time of each kept, so a loaded machine hurts both alike), and the action sequence of
every game is compared: a behaviour-preserving refactoring must
report ``identical`` for every case. Exit status 1 if any game differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [(rules, n, lineup) for rules in ("classic", "tmnt", "house") for n in (2, 4)
         for lineup in ("vs-random", "heuristic")]


def play_case(rules_name: str, n: int, lineup: str, games: int, seed: int) -> dict:
    """Play one case in this process; per-game action digests and heuristic timing."""
    import numpy as np

    from uno_env.agents import make_agent
    from uno_env.game import actions as A
    from uno_env.game.engine import Engine
    from uno_env.game.observation import ObservationEncoder
    from uno_env.game.rules import make_rules

    rules = make_rules(rules_name)
    engine = Engine(rules, n)
    encoder = ObservationEncoder(engine)
    digests, decisions, seconds, steps = [], 0, 0.0, 0
    clock = time.process_time  # CPU time of this process: robust on a loaded machine
    for g in range(games):
        if lineup == "heuristic":
            specs = ["heuristic"] * n
        else:
            specs = ["random"] * n
            specs[g % n] = "heuristic"
        agents = [make_agent(spec, rules, n, seed=seed * 1_000_003 + g * 16 + i) for i, spec in enumerate(specs)]
        timed = [spec == "heuristic" for spec in specs]
        state = engine.new_state(np.random.default_rng([seed, g]), dealer=n - 1)
        actions = []
        while not state.game_over and state.steps < rules.max_steps:
            p = state.actor
            obs = encoder.encode(state, p)
            mask = A.legal_mask(engine.legal_actions(state))
            if timed[p]:
                t0 = clock()
                a = agents[p].act(obs, mask)
                seconds += clock() - t0
                decisions += 1
            else:
                a = agents[p].act(obs, mask)
            actions.append(a)
            engine.step(state, a)
        steps += state.steps
        digests.append(hashlib.sha256(np.asarray(actions, np.int16).tobytes()).hexdigest()[:16])
    return {"digests": digests, "decisions": decisions, "seconds": seconds, "steps": steps}


def worker() -> None:
    """Serve requests (one JSON line each: rules, n, lineup, games, seed) with one JSON line."""
    for line in sys.stdin:
        req = json.loads(line)
        print(json.dumps(play_case(req["rules"], req["n"], req["lineup"], req["games"], req["seed"])), flush=True)


class Tree:
    """A worker process running the ``uno_env`` package found under ``root``."""

    def __init__(self, name: str, root: str):
        self.name = name
        env = dict(os.environ, PYTHONPATH=root, PYTHONHASHSEED="0")
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"], env=env, cwd=root,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def play(self, rules: str, n: int, lineup: str, games: int, seed: int) -> dict:
        req = {"rules": rules, "n": n, "lineup": lineup, "games": games, "seed": seed}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"the worker of {self.name} failed")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref", help="git revision to compare with (its uno_env runs in its own process)")
    ap.add_argument("--games", type=int, default=100, help="games per case")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="alternating runs of each case per tree (best kept)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker()
        return
    tmp = None
    trees = []
    if args.ref:
        tmp = tempfile.TemporaryDirectory(prefix="bench-ref-")
        archive = subprocess.run(["git", "-C", ROOT, "archive", args.ref, "uno_env"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp.name], input=archive, check=True)
        trees.append(Tree(args.ref, tmp.name))
    trees.append(Tree("this tree", ROOT))
    print(f"heuristic act(), {args.games} games per case, seed {args.seed}, best of {args.repeat} "
          f"alternating runs")
    head = f"{'case':<26}{'decisions':>10}" + "".join(f"{t.name + ' dec/s':>18}" for t in trees)
    print(head + (f"{'ratio':>8}  games" if args.ref else ""))
    differ = 0
    best_total = [0.0] * len(trees)
    for r, n, l in CASES:
        results = [[] for _ in trees]
        for _ in range(args.repeat):
            for i, t in enumerate(trees):
                results[i].append(t.play(r, n, l, args.games, args.seed))
        best = [min(x["seconds"] for x in res) for res in results]
        decisions = results[0][0]["decisions"]
        line = f"{f'{r}/{n}/{l}':<26}{decisions:>10}" + "".join(f"{decisions / b:>18,.0f}" for b in best)
        for i, b in enumerate(best):
            best_total[i] += b
        if args.ref:
            ref_d = results[0][0]["digests"]
            same = all(x["digests"] == ref_d for res in results for x in res)
            bad = sum(a != b for a, b in zip(ref_d, results[1][0]["digests"]))
            differ += not same
            line += f"{best[0] / best[1]:>8.3f}  " + ("identical" if same else f"{bad} DIFFER")
        print(line, flush=True)
    for t in trees:
        t.close()
    if args.ref:
        print(f"total heuristic time (best runs): {trees[0].name} {best_total[0]:.2f} s, "
              f"{trees[1].name} {best_total[1]:.2f} s (ratio of speeds {best_total[0] / best_total[1]:.3f})")
        print("action sequences:", "all identical" if not differ else f"{differ} cases DIFFER")
        tmp.cleanup()
        sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
