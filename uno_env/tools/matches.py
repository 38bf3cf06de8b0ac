"""Many games of many line-ups, in worker processes: :func:`play_matches`.

Every task is a range of games of one line-up, played by a :class:`~uno_env.tools.table.Table`
(or another game's table with the same interface: :mod:`uno_env.battle.tools.evaluate`) in
this process or in a pool of workers that build their table once per line-up. Game ``g``
depends only on ``(seed, g)`` (:mod:`uno_env.tools.table`), so a run gives the same games
with any number of workers; ``workers`` is a maximum (:func:`worker_plan`): one process per
task at most, and per CPU this process may use.

**Engines.** ``engine="batched"`` plays every line-up on the batched engine instead
(:func:`uno_env.tools.batched_table.play_batched`: the same seats, deals and seeds, in this
process, ``workers`` unused); :func:`choose_engine` decides from the line-ups which engine an
evaluation asked for ``"auto"`` gets: batched when every agent plays there
(:mod:`uno_env.agents.batched`) and no game log is written, else scalar, with the reason.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from uno_env._processes import mp_context as mp_context_of
from uno_env._processes import ignore_interrupts, pool_size, usable_cpus
from uno_env.game.rules import Rules
from uno_env.tools.table import Table, TableGame, game_log_path, spec_name

ENGINES = ("auto", "batched", "scalar")  # --engine: auto picks batched where every agent plays there


def choose_engine(matches: list[list[Any]], rules: Rules, num_players: int, engine: str = "auto",
                  log_dir: str | None = None, table_cls: type = Table) -> tuple[str, str]:
    """``("batched" | "scalar", why)`` for playing ``matches``: ``engine="auto"`` gets batched
    when every agent of every line-up plays batched (:func:`uno_env.agents.batched.why_not_batched`),
    no game log is asked for and the table is UNO's; ``why`` says why not (``""`` for batched).
    ``engine="batched"`` where it cannot be is a ``ValueError`` with the reason."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {list(ENGINES)}, got {engine!r}")
    if engine == "scalar":
        return "scalar", "asked for"
    why = ""
    if table_cls is not Table:
        why = "another game's table"
    else:
        from uno_env.agents.batched import why_not_batched

        seen: set = set()
        for m in matches:
            for spec in m:
                key = spec if isinstance(spec, str) else id(spec)
                if key in seen:
                    continue
                seen.add(key)
                why = why_not_batched(spec, rules, num_players) or ""
                if why:
                    break
            if why:
                break
        if not why and log_dir is not None:
            why = "game logs are written by the scalar arena"
    if not why:
        return "batched", ""
    if engine == "batched":
        raise ValueError(f"engine 'batched' cannot play this: {why}")
    return "scalar", why


def engine_line(engine: str, why: str) -> str:
    """What the tools print: ``engine: batched`` or ``engine: scalar (why)``."""
    return f"engine: {engine}" + (f" ({why})" if why else "")


def _play_range(table: Table, seed: int, start: int, stop: int, duplicate: bool,
                log_dir: str | None, log_games: int | None) -> list[TableGame]:
    """Games ``start..stop-1``: the logged ones (below ``log_games``) with their log path."""
    logged = start
    if log_dir is not None:
        logged = min(stop, stop if log_games is None else max(start, log_games))
    return ([table.play(seed, g, duplicate, game_log_path(log_dir, g)) for g in range(start, logged)]
            + [table.play(seed, g, duplicate) for g in range(logged, stop)])


_WORKER_TABLES: dict = {}


def _run_chunk(task: tuple) -> tuple[int, list[TableGame]]:
    """Worker entry point: play games ``start..stop-1`` of one line-up."""
    match, specs, rules_dict, n, seed, start, stop, duplicate, log_dir, log_games, table_cls = task
    key = (table_cls.__module__, table_cls.__qualname__, match, tuple(specs),
           json.dumps(rules_dict, sort_keys=True), n, seed)
    table = _WORKER_TABLES.get(key)
    if table is None:
        _WORKER_TABLES.clear()
        table = _WORKER_TABLES[key] = table_cls.from_config(specs, rules_dict, n, seed)
    return match, _play_range(table, seed, start, stop, duplicate, log_dir, log_games)


def _progress(total: int, enabled: bool, desc: str):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        return None
    from uno_env.tools.progress import progress_file

    return tqdm(total=total, desc=desc, unit="game", smoothing=0.1, dynamic_ncols=True,
                file=progress_file(sys.stderr))


def worker_plan(workers: int, games: int, num_players: int, matches: int = 1) -> tuple[int, int, int]:
    """``(processes, chunk, tasks)`` of a run of ``games`` games for each of ``matches``
    line-ups with ``workers`` asked for: the games are played in tasks of ``chunk`` games, by
    at most ``processes`` = ``workers`` capped at the tasks and at the CPUs this process may use
    (:func:`uno_env._processes.pool_size`: ``--workers 40 --games 2`` starts no process at all).
    The games do not depend on it (module doc)."""
    workers = max(1, min(int(workers), usable_cpus()))
    chunk = max(num_players, min(500, games // max(1, workers * 8) or 1))
    tasks = matches * -(-max(0, games) // chunk)
    return pool_size(workers, tasks), chunk, tasks


def play_matches(matches: list[list[Any]], rules: Rules, num_players: int, games: int,
                  seed: int, workers: int, duplicate: bool, progress: bool,
                  chunk: int | None = None, mp_context: str | None = None,
                  log_dir: str | None = None, log_games: int | None = None,
                  desc: str = "games", table_cls: type = Table, engine: str = "scalar") -> list[list[TableGame]]:
    """Play ``games`` games for every line-up in ``matches``; the games per match, in order.
    With ``log_dir`` (one line-up only) games below ``log_games`` (all if None) are logged.
    ``table_cls``: the table that plays them (``Table``: UNO; another game's table has the
    same ``__init__(specs, rules, n, seed)``, ``from_config`` and ``play``, and ``rules`` is
    its config with a ``to_dict()``: :mod:`uno_env.battle.tools.evaluate`). ``engine``:
    ``"scalar"`` (the arena, in workers) or ``"batched"`` (module doc; :func:`choose_engine`)."""
    if engine == "batched":
        if log_dir is not None or table_cls is not Table:
            raise ValueError("the batched engine writes no game logs and plays UNO only")
        return _play_batched(matches, rules, num_players, games, seed, duplicate, progress, desc)
    if engine != "scalar":
        raise ValueError(f"play_matches plays on 'scalar' or 'batched', got {engine!r}")
    rules_dict = rules.to_dict()
    instances = any(not isinstance(s, str) for m in matches for s in m)
    if instances and int(workers) > 1:
        raise ValueError("agent instances can only be evaluated with workers=1; pass agent specs")
    for m in matches:
        shared = [s for s in m if not isinstance(s, str) and sum(x is s for x in m) > 1]
        if shared:
            raise ValueError(f"one agent instance ({spec_name(shared[0])}) cannot sit in "
                             f"{sum(x is shared[0] for x in m)} seats: it would keep one memory and seed for all "
                             "of them; pass a spec string or one instance per seat")
    processes, planned_chunk, _ = worker_plan(workers, games, num_players, len(matches))
    chunk = planned_chunk if chunk is None else chunk
    if log_dir is not None and len(matches) != 1:
        raise ValueError("game logs are written for one line-up only")
    tasks = [(mi, list(m), rules_dict, num_players, seed, start, min(games, start + chunk), duplicate,
              log_dir, log_games, table_cls)
             for mi, m in enumerate(matches) for start in range(0, games, chunk)]
    processes = pool_size(processes, len(tasks))
    out: list[list[TableGame]] = [[] for _ in matches]
    bar = _progress(games * len(matches), progress, desc)
    try:
        if processes == 1:
            tables: dict[int, Table] = {}
            for mi, m, _, n, sd, start, stop, dup, ldir, lgames, _ in tasks:
                table = tables.get(mi)
                if table is None:
                    tables.clear()
                    table = tables[mi] = table_cls(m, rules, n, sd)
                out[mi].extend(_play_range(table, sd, start, stop, dup, ldir, lgames))
                if bar is not None:
                    bar.update(stop - start)
        else:
            with mp_context_of(mp_context).Pool(processes, initializer=ignore_interrupts) as pool:
                for mi, played in pool.imap_unordered(_run_chunk, tasks):
                    out[mi].extend(played)
                    if bar is not None:
                        bar.update(len(played))
    finally:
        if bar is not None:
            bar.close()
    for played in out:
        played.sort(key=lambda t: t.game)
    return out


def _play_batched(matches: list[list[Any]], rules: Rules, num_players: int, games: int, seed: int,
                  duplicate: bool, progress: bool, desc: str) -> list[list[TableGame]]:
    from uno_env.tools.batched_table import play_batched

    bar = _progress(games * len(matches), progress, desc)
    try:
        return [play_batched(list(m), rules, num_players, games, seed, duplicate,
                             progress=None if bar is None else bar.update) for m in matches]
    finally:
        if bar is not None:
            bar.close()
