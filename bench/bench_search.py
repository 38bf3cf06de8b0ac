"""The ``search`` bot: time per decision, and strength against ``heuristic``.

    taskset -c 1 python bench/bench_search.py time --specs search:simulations=200 search --games 30
    python bench/bench_search.py strength --specs search:simulations=200 search --games 2000 \\
        --seed 2026 --workers 2 --out runs/search

``time`` plays ``--games`` games of each spec against ``heuristic`` (classic, 2 players, the
seat alternating) in this process and times every ``act`` of the search bot: CPU time
(``time.process_time``: what one core spends, robust on a shared machine) and wall time,
per decision (all of its decisions, forced ones included) and per searched decision (a
choice in a searched phase), with the share of searched decisions whose move differs from
the heuristic's. Run it on one core (``taskset -c 1``).

``strength`` runs :func:`uno_env.tools.evaluate.evaluate` for each spec against
``heuristic`` (duplicate deals, seats rotated) and prints the win rate with its Wilson 95%
interval; ``--out`` also writes ``strength.json``. Both print a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def time_spec(spec: str, games: int, seed: int, rules_name: str = "classic") -> dict:
    import numpy as np

    from uno_env.agents import make_agent
    from uno_env.game.actions import legal_mask
    from uno_env.game.engine import Engine
    from uno_env.game.observation import ObservationEncoder
    from uno_env.game.rules import make_rules

    rules = make_rules(rules_name)
    engine = Engine(rules, 2)
    encoder = ObservationEncoder(engine)
    bot = make_agent(spec, rules, 2, seed=seed)
    other = make_agent("heuristic", rules, 2, seed=seed + 1)
    cpu_all, wall_all, cpu_searched = [], [], []
    wins = 0
    for g in range(games):
        state = engine.new_state(np.random.default_rng([seed, g // 2]), dealer=1)
        bot.reset(seed * 1000 + g)
        other.reset(seed * 1000 + g)
        me = g % 2
        while not state.game_over and not engine.truncated(state):
            p = state.actor
            obs, mask = encoder.encode(state, p), legal_mask(engine.legal_actions(state))
            if p == me:
                before = bot.stats["searched"] if hasattr(bot, "stats") else 0
                c0, w0 = time.process_time(), time.perf_counter()
                action = bot.act(obs, mask)
                c1, w1 = time.process_time(), time.perf_counter()
                cpu_all.append(c1 - c0)
                wall_all.append(w1 - w0)
                if hasattr(bot, "stats") and bot.stats["searched"] > before:
                    cpu_searched.append(c1 - c0)
            else:
                action = other.act(obs, mask)
            engine.step(state, action)
        wins += state.winner == me
    stats = getattr(bot, "stats", {"searched": 0, "overrides": 0})
    ms = 1e3
    return {
        "spec": spec, "games": games, "decisions": len(cpu_all), "searched": len(cpu_searched),
        "cpu_ms_per_decision": statistics.fmean(cpu_all) * ms,
        "wall_ms_per_decision": statistics.fmean(wall_all) * ms,
        "cpu_ms_per_searched": statistics.fmean(cpu_searched) * ms if cpu_searched else 0.0,
        "cpu_ms_searched_p95": sorted(cpu_searched)[int(0.95 * (len(cpu_searched) - 1))] * ms if cpu_searched else 0.0,
        "cpu_ms_max": max(cpu_all) * ms,
        "override_share": stats["overrides"] / max(1, stats["searched"]),
        "wins": wins,
    }


def strength(spec: str, games: int, seed: int, workers: int) -> dict:
    from uno_env.tools.evaluate import evaluate

    t = time.time()
    result = evaluate([spec, "heuristic"], rules="classic", games=games, seed=seed, workers=workers,
                      progress=False)
    a = result["agents"][0]
    return {"spec": spec, "games": games, "seed": seed, "win_rate": a["win_rate"],
            "win_ci95": list(a["win_ci95"]), "wall_s": time.time() - t}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=("time", "strength"))
    ap.add_argument("--specs", nargs="+", default=["search"])
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    rows = []
    if args.mode == "time":
        print("| spec | decisions | searched | CPU ms / decision | wall ms / decision | CPU ms / searched (p95) "
              "| max CPU ms | moves changed |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for spec in args.specs:
            r = time_spec(spec, args.games, args.seed)
            rows.append(r)
            print(f"| `{spec}` | {r['decisions']} | {r['searched']} | {r['cpu_ms_per_decision']:.1f} | "
                  f"{r['wall_ms_per_decision']:.1f} | {r['cpu_ms_per_searched']:.1f} ({r['cpu_ms_searched_p95']:.1f}) | "
                  f"{r['cpu_ms_max']:.1f} | {100 * r['override_share']:.1f}% |", flush=True)
    else:
        print("| spec | games | seed | win rate vs heuristic | Wilson 95% | wall s |")
        print("|---|---:|---:|---:|---|---:|")
        for spec in args.specs:
            r = strength(spec, args.games, args.seed, args.workers)
            rows.append(r)
            lo, hi = r["win_ci95"]
            print(f"| `{spec}` | {r['games']} | {r['seed']} | {100 * r['win_rate']:.1f}% | "
                  f"{100 * lo:.1f}-{100 * hi:.1f} | {r['wall_s']:.0f} |", flush=True)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, f"{args.mode}.json"), "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
