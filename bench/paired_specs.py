"""Agent specs in one seat on the same deals against the same opponents: win rates and paired
differences from the first spec.

    python bench/paired_specs.py --players 4 --opponent random --games 1200 --seed 2412 \\
        --workers 2 --specs heuristic search:simulations=200,opponents=1

Game ``g`` of every spec: the deal and the opponents' seeds come from ``(--seed, g)`` alone,
the spec plays seat ``g % players`` (the seat rotates over the games) with the seed that seat
would have, and the other seats are ``--opponent`` bots. Two specs that made the same moves
would play the same game, so the difference of their results game by game (won 1, lost 0)
carries little of the luck of the deal: its mean, with a 95% normal interval
(:func:`uno_env.tools.stats.mean_interval`), says by how much one spec beats the other far
more tightly than their two Wilson intervals do. ``--workers`` changes the wall time, not the
games. The games are dealt as ``bench/belief_search.py``'s (:func:`seated_deal`): with
``--opponent heuristic``, the spec ``search:simulations=N`` replays its arm ``Beliefs``
game by game, so results of the two benches pair too.

Prints a Markdown table (spec, wins, win rate with its Wilson 95% interval, paired difference
from the first spec, wall time); ``--out FILE`` also writes the result as JSON, with
every spec's results game by game (``won``).

Measured (0.5.11, 2 cores): the ``search`` bot with its rollouts' opponents modelled as
``random`` (``opponents=1``) against 3 ``random``, the command above (444 s) and again with
``--games 2400 --seed 2413`` (977 s):

==========  =====================  =====================  ==============================
seed        ``heuristic``          ``search:...,           paired difference
                                   opponents=1``
==========  =====================  =====================  ==============================
2412        37.8% [35.1, 40.6]     39.0% [36.3, 41.8]     +1.2 points [-0.5, +2.8]
2413        37.6% [35.7, 39.5]     38.2% [36.3, 40.2]     +0.6 points [-0.5, +1.8]
both        37.7% [36.1, 39.3]     38.5% [36.9, 40.1]     +0.8 points [-0.1, +1.7]
==========  =====================  =====================  ==============================

A checkpoint against 3 ``random`` plays 10,000 games in about 10 s; see the README's
4-player section.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from uno_env.agents import make_agent  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game.engine import Engine, State  # noqa: E402
from uno_env.game.observation import ObservationEncoder  # noqa: E402
from uno_env.game.rules import Rules, make_rules  # noqa: E402
from uno_env.tools.stats import mean_interval, wilson_interval  # noqa: E402


def seated_deal(rules: Rules, players: int, seed: int,
                game: int) -> tuple[Engine, ObservationEncoder, State, int, list[int]]:
    """Game ``game`` of a paired bench: its engine, encoder and dealt state (from
    ``(seed, game)`` alone), the seat under test (``game % players``) and every seat's agent
    seed. Shared with ``bench/belief_search.py``, whose arm ``Beliefs`` is the spec
    ``search:simulations=N`` here against ``heuristic``, game by game."""
    engine = Engine(rules, players)
    rng = np.random.default_rng([seed, game])
    s = engine.new_state(rng)
    seeds = [int(x) for x in rng.integers(2 ** 31, size=players)]
    return engine, ObservationEncoder(engine), s, game % players, seeds


def play(job: tuple[str, str, str, int, int, int]) -> int:
    """One game: 1 if ``spec``'s seat (``game % players``) wins. ``job``: the spec, the
    opponents' spec, the rules preset, players, seed, game."""
    spec, opponent, rules_name, players, seed, game = job
    rules = make_rules(rules_name)
    engine, encoder, s, me, seeds = seated_deal(rules, players, seed, game)
    agents = [make_agent(spec if p == me else opponent, rules, players, seed=x) for p, x in enumerate(seeds)]
    for agent, x in zip(agents, seeds):
        agent.reset(seed=x)
    while not s.game_over and not engine.truncated(s):
        p = s.actor
        engine.step(s, agents[p].act(encoder.encode(s, p), A.legal_mask(engine.legal_actions(s))))
    return int(s.game_over and s.winner == me)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--specs", nargs="+", required=True, help="the specs compared; the first is the reference")
    p.add_argument("--opponent", default="random", help="the other seats' agent spec")
    p.add_argument("--rules", default="classic", help="a rules preset")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=1200)
    p.add_argument("--seed", type=int, default=2412)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--out", default=None, help="write the result as JSON to this file")
    args = p.parse_args(argv)
    if args.games < 1 or args.workers < 1 or not 2 <= args.players <= 10:
        p.error("--games and --workers must be >= 1, --players in 2..10")
    twice = sorted({s for s in args.specs if args.specs.count(s) > 1})
    if twice:
        p.error(f"--specs {twice[0]!r} is given twice")
    try:
        rules = make_rules(args.rules)
    except ValueError as exc:
        p.error(f"--rules {args.rules!r}: {exc}")
    for flag, spec in [("--opponent", args.opponent)] + [("--specs", s) for s in args.specs]:
        try:
            make_agent(spec, rules, args.players)
        except (ValueError, OSError) as exc:
            p.error(f"{flag} {spec!r}: {exc}")
    won: dict[str, list[int]] = {}
    wall: dict[str, float] = {}
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
    try:
        for spec in args.specs:
            began = time.time()
            jobs = [(spec, args.opponent, args.rules, args.players, args.seed, g) for g in range(args.games)]
            won[spec] = list(pool.map(play, jobs, chunksize=4) if pool else map(play, jobs))
            wall[spec] = time.time() - began
    finally:
        if pool:
            pool.shutdown()
    first = args.specs[0]
    rows = {}
    for spec, w in won.items():
        lo, hi = wilson_interval(sum(w), args.games)
        row = {"wins": sum(w), "win_rate": sum(w) / args.games, "ci95": [lo, hi], "wall_s": wall[spec]}
        if spec != first:
            mean, dlo, dhi = mean_interval(np.subtract(w, won[first]))
            row["difference"] = {"mean": mean, "ci95": [dlo, dhi]}
        rows[spec] = row
    out = {"opponent": args.opponent, "rules": args.rules, "players": args.players, "games": args.games,
           "seed": args.seed, "specs": rows, "won": won}
    print(f"1 vs {args.players - 1} {args.opponent} ({args.rules}, seed {args.seed}, {args.games} games per spec)")
    print("| spec | wins | win rate (95% Wilson) | paired difference from the first | wall s |")
    print("|---|---:|---:|---:|---:|")
    for spec, r in rows.items():
        d = r.get("difference")
        diff = f"{100 * d['mean']:+.1f} points ({100 * d['ci95'][0]:+.1f} to {100 * d['ci95'][1]:+.1f})" if d else ""
        print(f"| `{spec}` | {r['wins']} | {r['win_rate']:.1%} ({r['ci95'][0]:.1%}-{r['ci95'][1]:.1%}) | {diff} "
              f"| {r['wall_s']:.0f} |")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(out, fh, indent=1)
    return out


if __name__ == "__main__":
    main()
