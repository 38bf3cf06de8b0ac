"""The ``uno-evaluate`` command line (also ``python training/evaluate.py``).

    uno-evaluate --agents heuristic random random random --rules classic --games 10000 \\
        --seed 0 --workers 2 --out runs/eval
    uno-evaluate --pool heuristic greedy random --games 2000 --out runs/pool
    uno-evaluate --paired heuristic checkpoint:checkpoints/classic-4p --opponent random --num-players 4
    uno-evaluate --agents heuristic random --set uno_call=explicit --log-dir runs/logs --log-games 20
    uno-evaluate --game battle --agents strong random --games 10000   # a TMNT battle-card game
    uno-evaluate --ladder --markdown docs/LADDER.md   # every bot and pretrained agent, every table

Plays with :func:`uno_env.tools.evaluate.evaluate` (``--agents``: one line-up),
:func:`~uno_env.tools.pool.evaluate_pool` (``--pool``: a round robin with ratings) or
:func:`~uno_env.tools.evaluate.evaluate_paired` (``--paired``: each agent in one seat
against ``--opponent`` on the same games, with paired differences) or
:func:`~uno_env.tools.ladder.run_ladder` (``--ladder``: every bot and pretrained agent at every
table, OpenSkill ratings; ``--games`` per match, ``--slow-games`` for ``search``, ``--markdown``
writes the ladder's page; the default run is ``docs/LADDER.md``'s), prints the tables of
:mod:`uno_env.tools.report` and with ``--out DIR`` writes ``evaluation.json`` / ``.csv`` /
``.png`` (``pool.*``, ``paired.*`` in those modes), each atomically; without
matplotlib the PNG is left out with a one-line note. ``--set KEY=VALUE`` (repeatable)
overrides one rule option (:mod:`uno_env.tools.overrides`). Bad input (an unknown agent
spec or rule option, a malformed ``--set``, an agent that plays an illegal move, an
``--out`` that cannot be written, a ``--log-dir`` or ``--out`` that is a file, a ``--markdown``
whose folder is missing: checked before any game) is a one-line error with exit code 2. ``--workers`` is a maximum: no more processes
start than the games make tasks, nor than the CPUs this process may use (a note says so; the
results do not depend on it).

``--engine auto|batched|scalar`` (default ``auto``): the games are played on the batched engine
(:mod:`uno_env.tools.batched_table`: the same seats, deals and seeds, tens of thousands of games
a second) when every agent plays there (:mod:`uno_env.agents.batched`: compiled bots such as
``random``, ``checkpoint:`` and ``pretrained:`` policies) and no ``--log-dir`` is given, else in
the scalar arena; ``batched`` where an agent cannot play there is an error naming it. The output
says which ran: a line ``engine: batched`` or ``engine: scalar (why)`` (the ladder: per table).

``--game`` (default ``uno``) picks one of the TMNT battle-card games instead
(:mod:`uno_env.battle.tools.evaluate`: ``--agents`` mode, ``--rules`` a preset of that game,
``--cards`` a card list; the same statistics, plus the games won by several players).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Sequence

from uno_env import _files
from uno_env._files import check_directory, check_output_file
from uno_env._processes import usable_cpus
from uno_env.battle import GAMES as BATTLE_GAMES
from uno_env.tools.evaluate import evaluate, evaluate_paired
from uno_env.tools import ladder
from uno_env.tools.matches import ENGINES, engine_line, worker_plan
from uno_env.tools.pool import evaluate_pool
from uno_env.tools.overrides import parse_overrides
from uno_env.tools.report import (PNG_NEEDS_MATPLOTLIB, format_paired, format_pool, format_result, print_tables,
                                  write_outputs)

PROG = "uno-evaluate"


MAX_PAGE_BYTES = 4 << 20  # an existing --markdown page, read for its exploitability section


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Play agents against each other and report win rates with Wilson 95% intervals, "
                    "points, ranks and game lengths, pool ratings or paired differences (JSON, CSV and "
                    "PNG with --out).")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--agents", nargs="+", metavar="SPEC",
                     help="the line-up: random, greedy, heuristic, search, pretrained:<name>, checkpoint:<dir>, "
                          "module:<package.module>:<Class> (one per seat)")
    who.add_argument("--pool", nargs="+", metavar="SPEC",
                     help="round robin among these agents, with ratings and head-to-head rates")
    who.add_argument("--paired", nargs="+", metavar="SPEC",
                     help="each agent in turn in one seat against --opponent in the others, on the same "
                          "games: win rates and differences from the first, game by game")
    who.add_argument("--ladder", action="store_true",
                     help="rate every bot and pretrained agent at every table (classic/tmnt/house x 2 and 4 "
                          "players) with OpenSkill, plus head-to-head rates (needs openskill: uno_env[ladder])")
    p.add_argument("--opponent", default=None, metavar="SPEC",
                   help="paired mode: the agent in every other seat (default: random)")
    p.add_argument("--game", default="uno", choices=("uno",) + BATTLE_GAMES,
                   help="uno (default) or a TMNT battle-card game (docs/TMNT-BATTLE.md)")
    p.add_argument("--rules", default=None,
                   help="preset (classic, tmnt, house; with --game: a preset of that game) or YAML file")
    p.add_argument("--cards", default=None, metavar="CARDS",
                   help="with --game: a card list (YAML) or packaged set (default: tmnt-standin)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one rule option, e.g. --set uno_call=explicit (repeatable; "
                        "values read as YAML)")
    p.add_argument("--num-players", type=int, default=None,
                   help="seats (default: number of agents, the line-up repeating to fill them; "
                        "paired mode: 4)")
    p.add_argument("--table-size", type=int, default=2, help="pool mode: players per table (default 2)")
    p.add_argument("--games", type=int, default=None,
                   help="games (default 10000; per table in pool mode, per agent in paired mode, per match "
                        f"in the ladder: default {ladder.DEFAULT_GAMES})")
    p.add_argument("--slow-games", type=int, default=ladder.DEFAULT_SLOW_GAMES, metavar="N",
                   help=f"ladder: games per match of a slow agent (search; default {ladder.DEFAULT_SLOW_GAMES})")
    p.add_argument("--markdown", default=None, metavar="PATH",
                   help="ladder: write the ladder as Markdown to PATH (docs/LADDER.md)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes at most (default: 2, or 1 on a single core; never more than "
                        "the games need or the CPUs)")
    p.add_argument("--engine", default="auto", choices=ENGINES,
                   help="auto (default): the batched engine when every agent plays there (compiled bots, "
                        "checkpoint and pretrained policies) and no --log-dir, else the scalar arena; "
                        "batched or scalar: that one")
    p.add_argument("--no-duplicate", dest="duplicate", action="store_false",
                   help="a fresh deal for every game instead of each deal played in every rotation")
    p.add_argument("--out", default=None,
                   help="directory for evaluation.json / .csv / .png (pool.*, paired.* in those modes)")
    p.add_argument("--log-dir", default=None, metavar="DIR",
                   help="write a replayable JSON Lines log of each game to DIR/game-XXXXXX.jsonl "
                        "(not in pool or paired mode)")
    p.add_argument("--log-games", type=int, default=None, metavar="N",
                   help="with --log-dir: log only the first N games (default: all)")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    p.add_argument("--quiet", action="store_true", help="print no tables")
    return p


def _error(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def _note_workers(args: argparse.Namespace) -> None:
    """Say so when fewer processes than ``--workers`` will play (:func:`worker_plan`)."""
    if args.ladder:
        n, matches = 4, 10
    elif args.pool:
        n, matches = args.table_size, math.comb(len(args.pool), args.table_size)
    elif args.paired:
        n, matches = 4 if args.num_players is None else args.num_players, len(args.paired)
    else:
        n, matches = args.num_players or len(args.agents), 1
    processes, _, tasks = worker_plan(args.workers, args.games, max(1, n), matches)
    if processes < args.workers:
        print(f"{PROG}: note: --workers {args.workers}: {processes} worker process{'es' if processes > 1 else ''} "
              f"(the games make {tasks} task{'s' if tasks != 1 else ''}; this machine lets it use "
              f"{usable_cpus()} CPU{'s' if usable_cpus() > 1 else ''})", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.games is None:
        args.games = ladder.DEFAULT_GAMES if args.ladder else 10_000
    if (args.markdown is not None or args.slow_games != ladder.DEFAULT_SLOW_GAMES) and not args.ladder:
        parser.error("--markdown and --slow-games need --ladder")
    if args.ladder and (args.log_dir is not None or args.rules is not None or args.set or args.game != "uno"):
        parser.error("--ladder plays its own tables: no --log-dir, --rules, --set or --game")
    if args.log_games is not None and args.log_dir is None:
        parser.error("--log-games needs --log-dir")
    if args.log_games is not None and args.log_games < 0:
        parser.error("--log-games must be >= 0")
    if (args.pool or args.paired) and args.log_dir is not None:
        parser.error(f"--log-dir is not supported in {'pool' if args.pool else 'paired'} mode")
    if args.opponent is not None and not args.paired:
        parser.error("--opponent needs --paired")
    twice = sorted({s for s in args.paired or [] if args.paired.count(s) > 1})
    if twice:
        parser.error(f"--paired {twice[0]!r} is given twice (the same spec plays the same games)")
    if args.workers is not None and args.workers < 1:
        parser.error(f"--workers must be >= 1, got {args.workers}")
    try:
        overrides = parse_overrides(args.set)
    except ValueError as exc:
        parser.error(str(exc))
    try:  # before any game: a file where a folder goes is refused now, not after the run
        for option, folder in (("--log-dir", args.log_dir), ("--out", args.out)):
            if folder is not None:
                check_directory(folder, option)
        if args.markdown is not None:  # written after every table is played: checked now
            check_output_file(args.markdown, "--markdown")
    except ValueError as exc:
        return _error(str(exc))
    if args.workers is None:
        args.workers = min(2, usable_cpus())
    else:
        _note_workers(args)
    if args.game != "uno":
        if args.engine == "batched":
            parser.error("--engine batched plays UNO only (not --game)")
        from uno_env.battle.tools.evaluate import cli_main

        return cli_main(parser, args, overrides, _error)
    if args.cards is not None:
        parser.error("--cards needs --game (a battle-card game)")
    args.rules = args.rules or "classic"
    if args.ladder:
        return _ladder(args, argv)
    try:
        if args.pool:
            result = evaluate_pool(args.pool, rules=args.rules, table_size=args.table_size, games=args.games,
                                   seed=args.seed, workers=args.workers, duplicate=args.duplicate,
                                   progress=args.progress, engine=args.engine, **overrides)
            tables = format_pool(result)
            stem = "pool"
        elif args.paired:
            result = evaluate_paired(args.paired, args.opponent or "random", rules=args.rules,
                                     num_players=4 if args.num_players is None else args.num_players,
                                     games=args.games, seed=args.seed, workers=args.workers,
                                     duplicate=args.duplicate, progress=args.progress, engine=args.engine,
                                     **overrides)
            tables = format_paired(result)
            stem = "paired"
        else:
            result = evaluate(args.agents, rules=args.rules, num_players=args.num_players, games=args.games,
                              seed=args.seed, workers=args.workers, duplicate=args.duplicate,
                              progress=args.progress, log_dir=args.log_dir, log_games=args.log_games,
                              engine=args.engine, **overrides)
            tables = format_result(result)
            stem = "evaluation"
    except ValueError as exc:
        return _error(str(exc))
    if not args.quiet:
        print_tables(tables)
        print(engine_line(result["config"]["engine"], result["config"]["engine_note"]))
    if args.out:
        try:
            paths = write_outputs(result, args.out, stem)
        except OSError as exc:
            return _error(f"cannot write --out {args.out!r}: {exc}")
        if not args.quiet:
            print("wrote " + ", ".join(paths.values()))
        if "png" not in paths:
            print(f"note: {stem}.png not written: {PNG_NEEDS_MATPLOTLIB}", file=sys.stderr)
    if args.log_dir and not args.quiet:
        print(f"wrote {result['config']['logged_games']} game logs to {args.log_dir}")
    return 0


def _ladder(args: argparse.Namespace, argv: Sequence[str] | None) -> int:
    """``--ladder``: play, print a summary, write ``--out DIR/ladder.json`` and ``--markdown``."""
    import json

    from uno_env._atomic import write_text

    if args.slow_games < 0:
        return _error(f"--slow-games must be >= 0, got {args.slow_games}")
    try:
        import openskill  # noqa: F401
    except ImportError:
        return _error('the ladder needs openskill: pip install "uno_env[ladder]"')
    try:
        result = ladder.run_ladder(games=args.games, slow_games=args.slow_games, seed=args.seed,
                                   workers=args.workers, progress=args.progress, engine=args.engine)
    except ValueError as exc:
        return _error(str(exc))
    if not args.quiet:
        for table in result["tables"]:
            print(f"{table['preset']} {table['num_players']}p: " + ", ".join(
                f"{r['agent']} {r['ordinal']:.1f}" for r in table["ratings"]) + "; " + ", ".join(
                f"{kind} matches {engine_line(e['engine'], e['note'])}" for kind, e in table["engines"].items()))
    command = "uno-evaluate " + " ".join(sys.argv[1:] if argv is None else argv)
    try:
        if args.out:
            check_directory(args.out, "--out", create=True)
            write_text(os.path.join(args.out, "ladder.json"), json.dumps(result, indent=1) + "\n")
        if args.markdown:
            old = _files.read_bounded_text(args.markdown, MAX_PAGE_BYTES, "--markdown") \
                if os.path.isfile(args.markdown) else None
            write_text(args.markdown, ladder.keep_exploitability(old, ladder.ladder_markdown(result, command) + "\n"))
    except (OSError, ValueError) as exc:
        return _error(f"cannot write the ladder: {exc}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
