"""Datasets (docs/datasets.md): ``uno-dataset create`` on the batched engine and on the scalar env,
side by side: CPU time and disk size of the same dataset.

    nice python bench/bench_dataset_engines.py --decisions 100000                     # both engines
    nice python bench/bench_dataset_engines.py --decisions 1000000 --engines batched

Each engine writes ``--agents`` (default ``heuristic``: heuristic vs heuristic) in ``--rules``
with ``--num-players``, ``--decisions`` decisions of the learner seat, seed ``--seed``, into a
fresh temporary ``MINARI_DATASETS_PATH`` (removed after), as ``create_dataset`` does for the
command line. Prints one line per engine: episodes, decisions, CPU seconds of the whole create
(playing, compressing, writing: ``time.process_time``), decisions per CPU second, the files'
size on disk (MB), and the CPU ratio to the first engine. ``--play-only``: the collectors alone
(the episodes played and dropped, nothing written; 0 MB). Both engines give the same episodes
(tests/tools/test_dataset_batched.py), so the sizes match.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--engines", nargs="+", choices=["batched", "scalar"], default=["batched", "scalar"])
    p.add_argument("--agents", nargs="+", default=["heuristic"])
    p.add_argument("--rules", default="classic")
    p.add_argument("--num-players", type=int, default=2)
    p.add_argument("--decisions", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--play-only", action="store_true",
                   help="play the episodes and drop them: the collectors' CPU time without the writer's")
    args = p.parse_args(argv)

    from uno_env.game.rules import make_rules
    from uno_env.tools.dataset import create_dataset, play_episodes, seat_specs
    from uno_env.tools.dataset_batched import play_episodes_batched
    from uno_env.tools.dataset_read import METADATA_FILE

    rules = make_rules(args.rules)
    rows = []
    for engine in args.engines:
        if args.play_only:
            play = play_episodes_batched if engine == "batched" else play_episodes
            began = time.process_time()
            steps = [len(e) for e in play(rules, args.num_players, seat_specs(args.agents, args.num_players),
                                          args.seed, decisions=args.decisions)]
            rows.append(_row(engine, len(steps), sum(steps), time.process_time() - began, 0, rows))
            continue
        root = tempfile.mkdtemp(prefix=f"uno-dataset-{engine}-")
        before = os.environ.get("MINARI_DATASETS_PATH")
        os.environ["MINARI_DATASETS_PATH"] = root
        try:
            began = time.process_time()
            path = create_dataset(f"uno/bench-{engine}-v0", rules, args.num_players, args.agents, seed=args.seed,
                                  decisions=args.decisions, engine=engine)
            cpu = time.process_time() - began
            size = sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))
            with open(os.path.join(path, METADATA_FILE)) as f:  # its counts, without reading it back
                metadata = json.load(f)
            episodes, decisions = metadata["total_episodes"], metadata["total_steps"]
        finally:
            if before is None:
                os.environ.pop("MINARI_DATASETS_PATH", None)
            else:
                os.environ["MINARI_DATASETS_PATH"] = before
            shutil.rmtree(root, ignore_errors=True)
        rows.append(_row(engine, episodes, decisions, cpu, size, rows))
    return rows


def _row(engine: str, episodes: int, decisions: int, cpu: float, size: int, rows: list) -> dict:
    """One engine's figures, printed (``rows``: the engines before it)."""
    row = {"engine": engine, "episodes": int(episodes), "decisions": int(decisions), "cpu_s": round(cpu, 1),
           "per_s": round(decisions / cpu), "mb": round(size / 1e6, 1)}
    row["ratio"] = round(cpu / rows[0]["cpu_s"], 2) if rows else 1.0
    print(f"{engine:<8} {row['episodes']:>8,} episodes  {row['decisions']:>10,} decisions  {cpu:8.1f} s CPU  "
          f"{row['per_s']:>8,} decisions/s  {row['mb']:8.1f} MB  x{row['ratio']:.2f} the CPU of "
          f"{rows[0]['engine'] if rows else engine}", flush=True)
    return row


if __name__ == "__main__":
    main()
