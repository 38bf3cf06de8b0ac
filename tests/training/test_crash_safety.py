"""Crash-safe training outputs: a run killed (SIGKILL) at any point leaves whole files, and
``--resume`` brings every output in line with the model (eval.csv: header present, one row per
step and opponent, none past the model's step; the card matches the weights; snapshots no
newer than the model)."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")

from uno_env.agents import checkpoint as ckpt  # noqa: E402
from uno_env.learn.sb3.actor import sb3_logits  # noqa: E402
from uno_env.learn.sb3.save import load_model  # noqa: E402
from uno_env.agents.policy import load_policy  # noqa: E402
from uno_env.envs.gym_env import UnoGymEnv  # noqa: E402

from helpers import random_checkpoint  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "training"))
import train  # noqa: E402

HEADER = "steps,wall_time_s,opponent,games,wins,win_rate,ci_low,ci_high"


def row(steps: int, opponent: str = "random", wins: int = 3) -> str:
    return f"{steps},1.0,{opponent},10,{wins},0.{wins}000,0.1000,0.6000"


def read_csv_strict(path: str) -> list[dict]:
    """eval.csv as a reader would take it: the header first, every row whole."""
    with open(path, newline="") as fh:
        lines = fh.read().splitlines()
    assert lines[0] == HEADER
    rows = list(csv.DictReader(lines))
    for r in rows:
        assert None not in r.values() and None not in r
        int(r["steps"]), float(r["win_rate"]), float(r["ci_low"]), float(r["ci_high"])
    return rows


# ---------------------------------------------------------------------- the repairs, in-process
def test_outputs_synced_to_the_model_at_start(tmp_path):
    """A headerless eval.csv with a cut line (left by a killed run of uno_env 0.2), rows and
    snapshots past the model's step, a snapshot never finished: all repaired."""
    eval_csv, snaps = str(tmp_path / "eval.csv"), tmp_path / "snapshots"
    (tmp_path / "eval.csv").write_text("\n".join([row(256), row(512), row(768), "1024,2.0,ran"]) + "\n")
    for step, done in ((256, True), (512, True), (768, True), (500, False)):
        d = snaps / f"step_{step:010d}"
        d.mkdir(parents=True)
        if done:
            random_checkpoint(d)
    (snaps / "notes").mkdir()
    kept = train.sync_outputs(eval_csv, str(snaps), 512)
    assert [int(r["steps"]) for r in read_csv_strict(eval_csv)] == [256, 512]
    assert kept == [str(snaps / "step_0000000256"), str(snaps / "step_0000000512")]
    assert sorted(os.listdir(snaps)) == ["notes", "step_0000000256", "step_0000000512"]
    train.sync_outputs(eval_csv, str(snaps), 0)  # a new run over the remains of a killed one
    assert read_csv_strict(eval_csv) == [] and sorted(os.listdir(snaps)) == ["notes"]


def test_eval_rows_of_a_step_replace_earlier_ones(tmp_path):
    path = str(tmp_path / "eval.csv")
    train.write_eval_rows(path, [dict(zip(HEADER.split(","), row(s).split(","))) for s in (256, 512)])
    rows = train.read_eval_rows(path)
    new = dict(rows[1], wins="9")
    train.write_eval_rows(path, [r for r in rows if r["steps"] != "512"] + [new])
    assert [(r["steps"], r["wins"]) for r in read_csv_strict(path)] == [("256", "3"), ("512", "9")]


# ---------------------------------------------------------------------- kill -9, resume
DRIVER = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {training!r})
    import train

    point, run_dir, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    evaluating = []
    real_evaluate, real_save = train.evaluate_vs, train.save_checkpoint

    def evaluate_vs(agent, opponent, *args, **kwargs):
        if point == "during-eval" and opponent == "greedy":  # the first evaluation, half done
            os.kill(os.getpid(), signal.SIGKILL)
        evaluating.append(opponent)
        return real_evaluate(agent, opponent, *args, **kwargs)

    def save_checkpoint(model, directory, card, resumable=True):
        if point == "after-eval" and evaluating and directory == run_dir:  # evaluated, not saved
            os.kill(os.getpid(), signal.SIGKILL)
        return real_save(model, directory, card, resumable)

    train.evaluate_vs, train.save_checkpoint = evaluate_vs, save_checkpoint
    train.main(argv)
""")


@pytest.fixture(scope="module")
def crash_config(tmp_path_factory):
    """configs/train/test.yaml with a checkpoint before the first evaluation (as in the shipped
    configs) and two evaluation opponents."""
    with open(os.path.join(ROOT, "configs", "train", "test.yaml")) as fh:
        cfg = yaml.safe_load(fh)
    cfg.update(total_steps=1024, checkpoint_every=256, snapshot_every=256, eval_every=512,
               eval_opponents=["random", "greedy"], eval_games=10, final_eval_games=10)
    path = tmp_path_factory.mktemp("cfg") / "crash.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


def check_whole(run_dir: str, snap_dir: str) -> tuple[int, list[dict]]:
    """Every output file whole and the checkpoint consistent; returns (model step, eval rows)."""
    card, _ = ckpt.load_checkpoint(run_dir)  # the card validates and matches its weights
    model, _ = load_model(run_dir)
    assert card["total_steps"] == model.num_timesteps
    eval_csv = os.path.join(run_dir, "eval.csv")
    rows = read_csv_strict(eval_csv) if os.path.exists(eval_csv) else []
    for name in os.listdir(snap_dir):
        ckpt.load_checkpoint(os.path.join(snap_dir, name))
    return model.num_timesteps, rows


@pytest.mark.slow
@pytest.mark.parametrize("point", ["during-eval", "after-eval"])
def test_killed_run_resumes_with_consistent_outputs(tmp_path, crash_config, point):
    run_dir, runs = str(tmp_path / "checkpoints" / "crash"), tmp_path / "runs"
    snap_dir = str(runs / "crash" / "snapshots")
    args = ["--config", crash_config, "--run", "crash", "--checkpoint-dir", str(tmp_path / "checkpoints"),
            "--runs-dir", str(runs), "--no-progress"]
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER.format(training=os.path.join(ROOT, "training")))
    env = dict(os.environ, PYTHONPATH=ROOT)
    killed = subprocess.run([sys.executable, str(driver), point, run_dir, *args], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=600)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]

    step, rows = check_whole(run_dir, snap_dir)  # the remains of the killed run are whole
    assert step == 256
    assert [(r["steps"], r["opponent"]) for r in rows] == ([] if point == "during-eval" else
                                                           [("512", "random"), ("512", "greedy")])

    resumed = subprocess.run([sys.executable, str(driver), "none", run_dir, *args, "--resume"], cwd=ROOT,
                             env=env, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    step, rows = check_whole(run_dir, snap_dir)
    assert step == 1024
    for opponent in ("random", "greedy"):
        steps = [int(r["steps"]) for r in rows if r["opponent"] == opponent]
        assert steps == [512, 1024]  # strictly increasing, one row per step, none past the model
    assert all(int(name.split("_")[1]) <= step for name in os.listdir(snap_dir))
    with open(os.path.join(run_dir, "curve.png"), "rb") as fh:
        png = fh.read()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and png.endswith(b"IEND\xaeB`\x82")
    # the card's policy is the model's actor
    model, _ = load_model(run_dir)
    policy, _ = load_policy(run_dir)
    env_ = UnoGymEnv(opponents="random")
    obs, _ = env_.reset(seed=0)
    np.testing.assert_allclose(policy.logits(obs), sb3_logits(model, obs), atol=1e-4)
