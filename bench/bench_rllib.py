"""Training throughput: RLlib PPO (1 and 2 env runners, a simulated two-node cluster) next to the
Stable-Baselines3 path, on the same config, measured side by side in one run.

    .venvs/rllib/bin/pip install -e ".[rllib,train]"      # both stacks in the RLlib venv
    .venvs/rllib/bin/python bench/bench_rllib.py --steps 40960

Every case is the real training script on its quick config (classic rules, 2 players, the
learner against random/heuristic, 256x256 tanh on the obs_features input, rollout 4096,
minibatch 1024, 4 epochs), run in a subprocess for ``--steps`` steps with evaluations pushed
past the end; the numbers are the scripts' own "trained ..." lines (the training loop's wall
time, start-up excluded). ``env steps`` are decisions of both seats; ``learner steps`` the
learner's own decisions (what SB3 counts: its opponents move inside ``env.step``).

=============  ===================================================================
case           what runs
=============  ===================================================================
sb3            ``training/train.py --config configs/train/quick.yaml`` (16 envs in-process)
rllib-0        ``training/train_rllib.py --config configs/rllib/quick.yaml``, sampling in the driver
rllib-1        the same with 1 env runner actor (16 games), learning in the driver
rllib-2        2 env runners (16 games each)
cluster-2      2 env runners on a simulated two-node cluster (``ray.cluster_utils.Cluster``,
               1 CPU per node), joined with ``--address``
=============  ===================================================================

On a 2-core machine the driver's learner and the env runners share the cores, so more runners
mostly show RLlib's overhead; on a real cluster the runners get their own machines.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RLLIB_LINE = re.compile(r"trained ([\d,]+) env steps \(([\d,]+) of them the learner's\) in (\d+) s")
SB3_LINE = re.compile(r"trained (\d+) steps in (\d+) s of wall time \((\d+) steps/s\)")
NO_EVAL = ["--set", "eval_every=1000000000", "--set", "checkpoint_every=1000000000",
           "--set", "final_eval_games=2", "--set", "eval_workers=1"]


def run(cmd: list[str], env: dict | None = None) -> str:
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return out.stdout


def rllib_case(steps: int, runners: int, workdir: str, address: str | None = None) -> dict:
    cmd = [sys.executable, "training/train_rllib.py", "--config", "configs/rllib/quick.yaml",
           "--run", f"bench-{runners}-{address is not None}", "--force", "--total-steps", str(steps),
           "--checkpoint-dir", workdir, "--runs-dir", workdir, "--set", f"num_env_runners={runners}",
           "--set", "progress_every_s=1000000", *NO_EVAL]
    if address:
        cmd += ["--address", address]
    out = run(cmd)
    m = RLLIB_LINE.search(out)
    env_steps, learner, secs = int(m.group(1).replace(",", "")), int(m.group(2).replace(",", "")), int(m.group(3))
    return {"env_steps_per_s": env_steps / secs, "learner_steps_per_s": learner / secs, "seconds": secs}


def sb3_case(steps: int, workdir: str) -> dict:
    out = run([sys.executable, "training/train.py", "--config", "configs/train/quick.yaml", "--run", "bench-sb3",
               "--force", "--total-steps", str(steps), "--checkpoint-dir", workdir, "--runs-dir", workdir,
               "--no-progress", *NO_EVAL])
    m = SB3_LINE.search(out)
    steps_done, secs = int(m.group(1)), int(m.group(2))
    return {"env_steps_per_s": None, "learner_steps_per_s": steps_done / secs, "seconds": secs}


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=40960, help="training steps per case (SB3: learner steps; "
                                                            "RLlib: env steps)")
    p.add_argument("--cases", nargs="+", default=["sb3", "rllib-0", "rllib-1", "rllib-2", "cluster-2"])
    args = p.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-rllib-") as workdir:
        for case in args.cases:
            t0 = time.time()
            if case == "sb3":
                results[case] = sb3_case(args.steps, workdir)
            elif case.startswith("rllib-"):
                results[case] = rllib_case(args.steps, int(case.split("-")[1]), workdir)
            elif case.startswith("cluster-"):
                from ray.cluster_utils import Cluster

                cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1,
                                                                        "object_store_memory": 100 * 2 ** 20})
                cluster.add_node(num_cpus=1, object_store_memory=100 * 2 ** 20)
                cluster.wait_for_nodes()
                try:
                    results[case] = rllib_case(args.steps, int(case.split("-")[1]), workdir, cluster.address)
                finally:
                    cluster.shutdown()
            else:
                raise SystemExit(f"unknown case {case!r}")
            r = results[case]
            print(f"{case:>10}: {r['learner_steps_per_s']:7,.0f} learner steps/s"
                  + (f", {r['env_steps_per_s']:7,.0f} env steps/s" if r["env_steps_per_s"] else "")
                  + f" ({r['seconds']} s training, {time.time() - t0:.0f} s with start-up; "
                    f"load {os.getloadavg()[0]:.1f})", flush=True)
    base = results.get("sb3", {}).get("learner_steps_per_s")
    print("\n| case | env steps/s | learner steps/s | vs SB3 (learner steps) |\n|---|---:|---:|---:|")
    for case, r in results.items():
        env = f"{r['env_steps_per_s']:,.0f}" if r["env_steps_per_s"] else "-"
        ratio = f"{r['learner_steps_per_s'] / base:.2f}x" if base else "-"
        print(f"| {case} | {env} | {r['learner_steps_per_s']:,.0f} | {ratio} |")


if __name__ == "__main__":
    main()
