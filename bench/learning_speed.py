"""Win rate against a fixed bot per minute of training: the learning curves of several runs on
one plot, and when each first reached each target.

    python bench/learning_speed.py \
        "sb3 (0.5, checkpoints/classic-2p)=checkpoints/classic-2p/eval.csv" \
        "batched, lr 1e-4 (configs/train/classic-2p.yaml, seed 1)=docs/data/classic-2p-batched-eval.csv" \
        --opponent heuristic --targets 0.55 0.57 --png docs/img/learning-speed.png

Each argument is ``label=path`` to a run's ``eval.csv`` (written by ``training/train.py``:
``steps, wall_time_s, opponent, games, wins, win_rate, ci_low, ci_high``). The x axis is the
run's ``wall_time_s`` in minutes, imitation included: on a machine where the run had a core to
itself it is its CPU time (say so where the figure is quoted). A run that shared its cores
(its wall time is then longer than its CPU time) takes its minutes from its steps instead:
``--cpu-rate LABEL=STEPS_PER_CPU_S+OFFSET_S`` puts evaluation ``steps`` at
``(OFFSET_S + steps / STEPS_PER_CPU_S) / 60`` minutes (the rate: what the run's CPU time made
per step, evaluations included; the offset: the CPU before its first PPO step, imitation). For each target the table gives
the first evaluation whose win rate reached it and the first whose 95% interval lies above
it (``-`` where none did). The CSV is read with bounds (``uno_env._files``); nothing is
trained here.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from typing import Sequence

from uno_env import _files

MAX_CSV_BYTES = 16 << 20


def read_curve(path: str, opponent: str) -> list[dict[str, float]]:
    """The rows of ``path`` against ``opponent``, in step order (minutes, win rate, interval)."""
    text = _files.read_bounded_text(path, MAX_CSV_BYTES, "eval.csv")
    rows = []
    for row in csv.DictReader(io.StringIO(text)):
        if row.get("opponent") != opponent:
            continue
        rows.append({"steps": float(row["steps"]), "minutes": float(row["wall_time_s"]) / 60,
                     "rate": float(row["win_rate"]), "low": float(row["ci_low"]),
                     "high": float(row["ci_high"]), "games": float(row["games"])})
    if not rows:
        raise ValueError(f"{path}: no evaluation against {opponent!r}")
    return sorted(rows, key=lambda r: r["steps"])


def first_reaching(rows: list[dict[str, float]], target: float, key: str) -> dict[str, float] | None:
    return next((r for r in rows if r[key] >= target), None)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", help="label=path/to/eval.csv")
    p.add_argument("--opponent", default="heuristic")
    p.add_argument("--targets", type=float, nargs="*", default=[0.55, 0.57])
    p.add_argument("--png", default=None, help="write the plot here (matplotlib)")
    p.add_argument("--cpu-rate", action="append", default=[], metavar="LABEL=STEPS_PER_CPU_S+OFFSET_S",
                   help="minutes of that run from its steps, not its wall time: (OFFSET_S + steps / "
                        "STEPS_PER_CPU_S) / 60 (a run that shared its cores: module doc)")
    args = p.parse_args(argv)
    rates = {}
    for spec in args.cpu_rate:
        label, sep, value = spec.rpartition("=")
        rate, plus, offset = value.partition("+")
        try:
            rates[label] = (float(rate), float(offset or 0))
        except ValueError:
            p.error(f"--cpu-rate is LABEL=STEPS_PER_CPU_S+OFFSET_S, got {spec!r}")
        if not sep or rates[label][0] <= 0 or rates[label][1] < 0:
            p.error(f"--cpu-rate is LABEL=STEPS_PER_CPU_S+OFFSET_S (rate > 0, offset >= 0), got {spec!r}")
    curves = []
    for spec in args.runs:
        label, sep, path = spec.partition("=")
        if not sep or not label or not path:
            p.error(f"a run is label=path, got {spec!r}")
        rows = read_curve(path, args.opponent)
        if label in rates:
            rate, offset = rates.pop(label)
            for r in rows:
                r["minutes"] = (offset + r["steps"] / rate) / 60
        curves.append((label, rows))
    if rates:
        p.error(f"--cpu-rate for no run: {', '.join(rates)}")

    print(f"| run | evaluations | best (95% CI) | " + " | ".join(
        f"{t:.0%}: first reached / interval above (min, steps)" for t in args.targets) + " |")
    print("|---|---:|---|" + "---|" * len(args.targets))
    for label, rows in curves:
        best = max(rows, key=lambda r: r["rate"])
        cells = []
        for t in args.targets:
            parts = []
            for key in ("rate", "low"):
                r = first_reaching(rows, t, key)
                parts.append("-" if r is None else f"{r['minutes']:.0f} min, {r['steps'] / 1e6:.1f}M")
            cells.append(" / ".join(parts))
        print(f"| {label} | {len(rows)} | {best['rate']:.1%} ({best['low']:.1%}-{best['high']:.1%}) at "
              f"{best['minutes']:.0f} min | " + " | ".join(cells) + " |")

    if args.png:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, 4.5))
        for label, rows in curves:
            x = [r["minutes"] for r in rows]
            line, = ax.plot(x, [r["rate"] for r in rows], marker="o", ms=3, label=label)
            ax.fill_between(x, [r["low"] for r in rows], [r["high"] for r in rows], alpha=0.2,
                            color=line.get_color())
        for t in args.targets:
            ax.axhline(t, color="grey", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_xlabel("minutes of training (imitation included; log scale)")
        ax.set_ylabel(f"win rate against {args.opponent} (95% CI)")
        ax.legend(loc="lower right")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.png, dpi=110)
        print(f"plot: {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
