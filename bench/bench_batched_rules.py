"""Batched engine decisions per CPU second for every ruleset, and before/after a change.

    python bench/bench_batched_rules.py                          # this checkout only
    python bench/bench_batched_rules.py --before /path/to/main   # alternated with another checkout

Each case is ``case_engine`` of ``bench/bench_batched.py``: uniformly random legal actions in
a ``BatchedEngine`` of ``B`` games, ``legal_masks`` (int8, ``(B, 195)``), a uniformly random
legal action per game (compiled kernel), ``step`` (legality checked), finished games reset;
no observations. Rates are engine decisions per second of CPU time of the timed loop
(``time.process_time``, after a warm-up step that compiles or loads the kernels). Every measurement runs in its own Python
process that imports ``uno_env`` (and ``bench_batched``) from the checkout it measures; with ``--before`` the two
checkouts alternate, ``--repeats`` times each, and the best run of each is kept, so both see
the same machine load. A case the other checkout cannot play (its batched engine refused
the house options) is shown as ``-``. The table gives each case's rate, its ratio to
classic with 2 players at the same B (per checkout), and after / before.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = (("classic", 2), ("house", 2), ("tmnt", 2), ("classic", 4), ("house", 4), ("tmnt", 4))  # (preset, players); the first is the baseline


def worker(root: str, rules: str, players: int, B: int, seconds: float) -> dict:
    """One measurement in this process: ``case_engine`` of ``root``'s ``bench/bench_batched.py``
    (which imports ``uno_env`` from ``root``)."""
    sys.path.insert(0, os.path.join(root, "bench"))
    import bench_batched

    import uno_env
    assert os.path.dirname(os.path.dirname(os.path.abspath(uno_env.__file__))) == os.path.abspath(root)
    try:
        (decisions, wall, cpu), _ = bench_batched.case_engine(B, seconds, rules, players)
    except ValueError as e:  # a checkout whose batched engine refuses these rules
        return {"error": str(e)}
    return {"decisions": decisions, "cpu": cpu, "wall": wall}


def measure(root: str, rules: str, players: int, B: int, seconds: float) -> float | None:
    """Decisions per CPU second of one run in a fresh process (None: the checkout refuses)."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", root, rules, str(players),
                          str(B), str(seconds)], capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    return None if "error" in r else r["decisions"] / r["cpu"]


def main(argv=None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--worker":
        root, rules, players, B, seconds = sys.argv[2:7]
        print(json.dumps(worker(root, rules, int(players), int(B), float(seconds))))
        return 0
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", help="another checkout (e.g. a worktree at main) to alternate with")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--batch", default="1024,4096")
    args = p.parse_args(argv)
    roots = {"after": HERE} if not args.before else {"before": os.path.abspath(args.before), "after": HERE}
    batches = [int(x) for x in args.batch.split(",")]
    best: dict = {}
    for _ in range(args.repeats):
        for B in batches:
            for case in CASES:
                for name, root in roots.items():  # alternated: the same load for both
                    r = measure(root, *case, B, args.seconds)
                    key = (name, case, B)
                    best[key] = None if r is None else max(r, best.get(key) or 0.0)
    print(f"uniformly random legal actions; decisions per CPU second, best of {args.repeats} x {args.seconds:g} s; "
          f"CPU affinity {sorted(os.sched_getaffinity(0))}; checkouts: " + ", ".join(f"{k} {v}" for k, v in roots.items()))
    names = list(roots)
    head = " | ".join(f"{n} decisions/s | {n} / classic" for n in names)
    print(f"\n| rules | players | B | {head} |" + (" after / before |" if args.before else ""))
    print("|---|---:|---:|" + "---:|---:|" * len(names) + ("---:|" if args.before else ""))
    for B in batches:
        for case in CASES:
            cells = []
            for n in names:
                r, base = best[(n, case, B)], best[(n, CASES[0], B)]
                cells += ["-", "-"] if r is None else [f"{r:,.0f}", f"{r / base:.2f}"]
            row = f"| {case[0]} | {case[1]} | {B:,} | " + " | ".join(cells) + " |"
            if args.before:
                a, b = best[("after", case, B)], best[("before", case, B)]
                row += f" {a / b:.2f} |" if a and b else " - |"
            print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
