"""Reports of the evaluation tool: tables on the terminal, JSON, CSV and a PNG chart.

    from uno_env.tools.report import format_result, print_tables, write_outputs
    print_tables(format_result(result))          # rich tables (plain text without rich)
    write_outputs(result, "runs/eval")           # evaluation.json, .csv, .png

The inputs are the result dicts of :func:`uno_env.tools.evaluate.evaluate`,
:func:`~uno_env.tools.pool.evaluate_pool` (pool results have ``ratings``) and
:func:`~uno_env.tools.evaluate.evaluate_paired` (paired results have ``won``). Decisions:

* Every file is written atomically (:mod:`uno_env._atomic`): to a temporary file in the
  same directory, then renamed over the target (``os.replace``), so a run killed while
  writing leaves the old file or the new one, never half a file.
* The chart needs matplotlib (the ``train`` extra). Without it :func:`write_outputs`
  writes the JSON and CSV files and leaves the PNG out (:data:`PNG_NEEDS_MATPLOTLIB` says
  why; the command line prints it as a note).
"""

from __future__ import annotations

import csv
import json
import os
import sys
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, Sequence

import numpy as np

from uno_env._atomic import atomic_write as atomic_open  # the one atomic writer

Table = tuple[str, list[str], list[list[str]]]  # title, header, rows
PNG_NEEDS_MATPLOTLIB = "the PNG chart needs matplotlib (pip install matplotlib)"
PIPED_WIDTH = 1000  # columns of a table printed to a file or a pipe: never cut (a terminal: its width)
_TENTH = Decimal("0.1")


def percent(x: float) -> str:
    """A rate as every table of this project prints it: a percentage with one decimal, rounded
    half to even from the rate's decimal digits (``repr``: 953 / 2000 is 0.4765, exactly 47.65%),
    not from its binary float (which holds 0.47649999...). So a rate and its complement always
    sum to 100.0% (953 and 1,047 wins of 2,000: 47.6% and 52.4%), where float formatting printed
    47.6% and 52.3%."""
    return f"{(Decimal(repr(float(x))) * 100).quantize(_TENTH, rounding=ROUND_HALF_EVEN)}%"


def interval(lo: float, hi: float) -> str:
    """A 95% interval of a rate, as every table prints it (``67.9% - 73.5%``)."""
    return f"{percent(lo)} - {percent(hi)}"


def _win_cells(a: dict[str, Any]) -> list[str]:
    """An agent's label, wins, win rate and its Wilson interval, as table cells."""
    lo, hi = a["win_ci95"]
    return [a["label"], str(a["wins"]), percent(a["win_rate"]), interval(lo, hi)]


def format_result(result: dict[str, Any]) -> list[Table]:
    """Tables (title, header, rows) describing an ``evaluate`` result."""
    cfg = result["config"]
    rows = [_win_cells(a) + [f"{a['mean_points']:.1f}", f"{a['mean_rank']:.2f}"] for a in result["agents"]]
    title = (f"{cfg['rules']}, {cfg['num_players']} players, {result['games']} games, seed {cfg['seed']} "
             f"(par {percent(1 / cfg['num_players'])})")
    tables = [(title, ["agent", "wins", "win rate", "95% CI (Wilson)", "mean points", "mean rank"], rows)]
    t, s = result["length"]["turns"], result["length"]["steps"]
    length_rows = [[name, f"{d['mean']:.1f}", f"{d['p5']:.0f}", f"{d['p50']:.0f}", f"{d['p90']:.0f}",
                    f"{d['p99']:.0f}", f"{d['max']:.0f}"] for name, d in (("turns", t), ("steps", s))]
    tables.append(("game length", ["", "mean", "p5", "median", "p90", "p99", "max"], length_rows))
    seat_rows = [[str(x["seat"]), percent(x["win_rate"]), f"{percent(x['win_ci95'][0])} - {percent(x['win_ci95'][1])}"]
                 for x in result["seats"]]
    tables.append(("win rate by seat (seat 0 plays first)", ["seat", "win rate", "95% CI"], seat_rows))
    footer = [["truncated games", f"{result['truncated']} ({percent(result['truncated_rate'])})"],
              ["time", f"{result['elapsed_s']:.1f} s ({result['games_per_s']:.0f} games/s, {_how(cfg)})"]]
    tables.append(("run", ["", ""], footer))
    return tables


def format_pool(result: dict[str, Any]) -> list[Table]:
    """Tables (title, header, rows) describing an ``evaluate_pool`` result."""
    cfg = result["config"]
    rows = [[str(i + 1), r["agent"], f"{r['elo']:.0f}", str(r["games"]), percent(r["win_rate"]),
             f"{percent(r['win_ci95'][0])} - {percent(r['win_ci95'][1])}"] for i, r in enumerate(result["ratings"])]
    title = (f"pool ratings (Bradley-Terry, Elo scale): {cfg['rules']}, tables of {cfg['table_size']}, "
             f"{cfg['games_per_table']} games per table")
    tables = [(title, ["#", "agent", "elo", "games", "win rate", "95% CI"], rows)]
    names = result["head_to_head"]["agents"]
    h2h = result["head_to_head"]["ahead_rate"]
    h_rows = [[names[i]] + ["-" if x is None else percent(x) for x in h2h[i]] for i in range(len(names))]
    tables.append(("head to head: row finished ahead of column", ["agent"] + names, h_rows))
    timing = f"{result['elapsed_s']:.1f} s ({result['games_per_s']:.0f} games/s)"
    tables.append(("run", ["", ""], [["truncated games", str(result["truncated"])], ["time", timing]]))
    return tables


def _signed_points(x: float) -> str:
    return f"{100 * x:+.1f}"


def format_paired(result: dict[str, Any]) -> list[Table]:
    """Tables (title, header, rows) describing an ``evaluate_paired`` result."""
    cfg = result["config"]
    rows = []
    for a in result["specs"]:
        d = a.get("difference")
        diff = (f"{_signed_points(d['mean'])} ({_signed_points(d['ci95'][0])} to {_signed_points(d['ci95'][1])})"
                if d else "")
        rows.append(_win_cells(a) + [diff, str(a["truncated"]), f"{a['elapsed_s']:.1f}"])
    title = (f"1 vs {cfg['num_players'] - 1} {cfg['opponent']}: {cfg['rules']}, {result['games']} games per agent "
             f"on the same deals, seed {cfg['seed']} (par {percent(1 / cfg['num_players'])}); difference: "
             f"points from the first agent, game by game")
    header = ["agent", "wins", "win rate", "95% CI (Wilson)", "difference (95% CI)", "truncated", "time s"]
    footer = [["time", f"{result['elapsed_s']:.1f} s ({_how(cfg)})"]]
    return [(title, header, rows), ("run", ["", ""], footer)]


def _how(cfg: dict) -> str:
    """What played the games: the batched engine, or the arena's worker processes."""
    if cfg.get("engine") == "batched":
        return "batched engine"
    return f"{cfg['workers']} worker{'s' if cfg['workers'] != 1 else ''}"


def print_tables(tables: list[Table], file=None) -> None:
    """Print tables with rich when available, else as plain text."""
    file = file or sys.stdout
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # pragma: no cover
        Console = None
    if Console is not None:
        # on a terminal, its width; to a file or a pipe, nothing is cut (rich would take 80 columns)
        width = None if getattr(file, "isatty", lambda: False)() else PIPED_WIDTH
        console = Console(file=file, highlight=False, width=width)
        for title, header, rows in tables:
            t = Table(title=title, title_justify="left")
            for i, h in enumerate(header):
                t.add_column(h, justify="left" if i == 0 else "right")
            for row in rows:
                t.add_row(*row)
            console.print(t)
        return
    for title, header, rows in tables:  # pragma: no cover
        print(title, file=file)
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
        for row in [header] + rows:
            print("  ".join(str(x).rjust(w) for x, w in zip(row, widths)), file=file)
        print(file=file)


def write_csv(result: dict[str, Any], path: str) -> None:
    """One row per agent (per rated agent in pool mode; paired: with its difference from
    the first), written atomically."""
    with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        if "ratings" in result:
            w.writerow(["agent", "elo", "games", "wins", "win_rate", "ci95_low", "ci95_high"])
            for r in result["ratings"]:
                w.writerow([r["agent"], f"{r['elo']:.1f}", r["games"], r["wins"], f"{r['win_rate']:.6f}",
                            f"{r['win_ci95'][0]:.6f}", f"{r['win_ci95'][1]:.6f}"])
            return
        if "won" in result:
            w.writerow(["agent", "spec", "games", "wins", "win_rate", "ci95_low", "ci95_high",
                        "difference", "difference_ci95_low", "difference_ci95_high", "truncated"])
            for a in result["specs"]:
                d = a.get("difference")
                dcols = [f"{d['mean']:.6f}", f"{d['ci95'][0]:.6f}", f"{d['ci95'][1]:.6f}"] if d else ["", "", ""]
                w.writerow([a["label"], a["spec"], result["games"], a["wins"], f"{a['win_rate']:.6f}",
                            f"{a['win_ci95'][0]:.6f}", f"{a['win_ci95'][1]:.6f}"] + dcols + [a["truncated"]])
            return
        w.writerow(["agent", "spec", "games", "wins", "win_rate", "ci95_low", "ci95_high",
                    "mean_points", "mean_rank"])
        for a in result["agents"]:
            w.writerow([a["label"], a["spec"], a["games"], a["wins"], f"{a['win_rate']:.6f}",
                        f"{a['win_ci95'][0]:.6f}", f"{a['win_ci95'][1]:.6f}",
                        f"{a['mean_points']:.4f}", f"{a['mean_rank']:.4f}"])


def plot_result(result: dict[str, Any], path: str, turns: Sequence[int] | None = None) -> None:
    """A PNG: win rates with 95% intervals (and par), and the game-length percentiles (pool:
    the ratings; paired: the differences from the first agent), written atomically.
    ``ImportError`` without matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    if "ratings" in result:
        names = [r["agent"] for r in result["ratings"]]
        rates = [r["win_rate"] for r in result["ratings"]]
        cis = [r["win_ci95"] for r in result["ratings"]]
        elo = [r["elo"] for r in result["ratings"]]
        ax2.barh(names[::-1], elo[::-1], color="#4c72b0")
        ax2.set_xlabel("rating (Elo scale, mean 1500)")
        ax2.set_xlim(min(elo) - 100, max(elo) + 100)
        ax2.set_title("Bradley-Terry ratings")
        par = 1.0 / result["config"]["table_size"]
        title = f"pool, {result['config']['rules']}, tables of {result['config']['table_size']}"
    elif "won" in result:
        names = [a["label"] for a in result["specs"]]
        rates = [a["win_rate"] for a in result["specs"]]
        cis = [a["win_ci95"] for a in result["specs"]]
        par = 1.0 / result["config"]["num_players"]
        diffs = [a.get("difference", {"mean": 0.0, "ci95": [0.0, 0.0]}) for a in result["specs"]]
        mean = np.array([100 * d["mean"] for d in diffs])
        derr = np.array([[100 * (d["mean"] - d["ci95"][0]) for d in diffs],
                         [100 * (d["ci95"][1] - d["mean"]) for d in diffs]])
        ax2.barh(names[::-1], mean[::-1], xerr=derr[:, ::-1], capsize=4, color="#4c72b0")
        ax2.axvline(0, color="grey", linewidth=1)
        ax2.set_xlabel(f"points from {names[0]}, game by game (95% interval)")
        ax2.set_title("paired difference")
        title = (f"1 vs {result['config']['num_players'] - 1} {result['config']['opponent']}, "
                 f"{result['games']} games")
    else:
        names = [a["label"] for a in result["agents"]]
        rates = [a["win_rate"] for a in result["agents"]]
        cis = [a["win_ci95"] for a in result["agents"]]
        par = 1.0 / result["config"]["num_players"]
        t = result["length"]["turns"]
        s = result["length"]["steps"]
        qs = ["p5", "p25", "p50", "p75", "p90", "p95", "p99"]
        ax2.plot([int(q[1:]) for q in qs], [t[q] for q in qs], "o-", label=f"turns (mean {t['mean']:.1f})")
        ax2.plot([int(q[1:]) for q in qs], [s[q] for q in qs], "s-", label=f"steps (mean {s['mean']:.1f})")
        ax2.set_xlabel("percentile")
        ax2.set_ylabel("game length")
        ax2.set_title("game length")
        ax2.legend()
        ax2.grid(alpha=0.3)
        title = (f"{result['config']['rules']}, {result['config']['num_players']} players, "
                 f"{result['games']} games")
    x = np.arange(len(names))
    err = np.array([[r - c[0] for r, c in zip(rates, cis)], [c[1] - r for r, c in zip(rates, cis)]])
    ax1.bar(x, rates, yerr=err, capsize=4, color="#55a868")
    ax1.axhline(par, color="grey", linestyle="--", linewidth=1, label=f"par {par:.0%}")
    ax1.set_xticks(x)
    ax1.set_xticklabels(names, rotation=20, ha="right")
    ax1.set_ylabel("win rate (95% Wilson interval)")
    ax1.set_ylim(0, min(1.0, max(c[1] for c in cis) * 1.15 + 0.02))
    ax1.set_title(title)
    ax1.legend()
    fig.tight_layout()
    try:
        with atomic_open(path, "wb") as fh:
            fig.savefig(fh, format="png", dpi=110)
    finally:
        plt.close(fig)


def write_outputs(result: dict[str, Any], out_dir: str, stem: str = "evaluation") -> dict[str, str]:
    """Write ``<stem>.json``, ``<stem>.csv`` and ``<stem>.png`` into ``out_dir`` (each
    atomically); returns the paths written by extension: without matplotlib no ``png``."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {ext: os.path.join(out_dir, f"{stem}.{ext}") for ext in ("json", "csv", "png")}
    with atomic_open(paths["json"], "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=2)
        fh.write("\n")
    write_csv(result, paths["csv"])
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        del paths["png"]
        return paths
    plot_result(result, paths["png"])
    return paths
