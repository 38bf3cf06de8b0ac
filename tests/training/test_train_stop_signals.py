"""training/train.py stopped by SIGINT (Ctrl-C) or SIGTERM in the middle of a run: a real
child process, signalled once it has printed its first evaluation (so the test waits for what
the run says, never for a time): it saves a checkpoint whose card matches its weights and its
model, leaves eval.csv whole, exits with 130 / 143 and one line, no traceback; ``--resume``
continues it."""

from __future__ import annotations

import csv
import os
import re
import signal
import sys

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from uno_env.agents import checkpoint as ckpt  # noqa: E402
from uno_env.learn.sb3.actor import sb3_logits  # noqa: E402
from uno_env.learn.sb3.save import load_model  # noqa: E402
from uno_env.agents.policy import load_policy  # noqa: E402
from uno_env.envs.gym_env import UnoGymEnv  # noqa: E402

from helpers import WatchedProcess  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "training"))
import train  # noqa: E402

TEST_CONFIG = os.path.join(ROOT, "configs", "train", "test.yaml")
SAVED = re.compile(r"^train\.py: (SIG[A-Z]+): saved a checkpoint at step ([\d,]+) in (.+); continue with --resume$")


@pytest.mark.parametrize("signum", [pytest.param(signal.SIGINT, id="SIGINT"),  # SIGTERM: the same path,
                                    pytest.param(signal.SIGTERM, id="SIGTERM", marks=pytest.mark.slow)])  # in -m slow
def test_a_stop_signal_mid_run_saves_a_checkpoint_that_resumes_and_exits_cleanly(tmp_path, signum):
    run_dir = tmp_path / "checkpoints" / "sig"
    args = ["--config", TEST_CONFIG, "--run", "sig", "--checkpoint-dir", str(tmp_path / "checkpoints"),
            "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--total-steps", "1000000000",
            "--set", "checkpoint_every=1000000000"]  # no checkpoint but the one the signal asks for
    run = WatchedProcess([sys.executable, os.path.join(ROOT, "training", "train.py"), *args],
                         tmp_path / "stderr.txt", env=dict(os.environ, PYTHONPATH=ROOT))
    try:
        run.wait_for(r"^step 256 \(")  # the first evaluation is printed: the loop is running
        assert not os.path.exists(run_dir / "model.zip")
        run.send(signum)
        code, _, err = run.finish()
    finally:
        run.kill()
    assert code == 128 + signum  # 130, 143
    assert "Traceback" not in err, err[-3000:]
    name, step, where = SAVED.match(err.strip().splitlines()[-1]).groups()
    step = int(step.replace(",", ""))
    assert name == signal.Signals(signum).name and where == str(run_dir) and step >= 256

    card, _ = ckpt.load_checkpoint(str(run_dir))  # validated: the card names these weights, hashes match
    model, _ = load_model(str(run_dir))
    assert card["total_steps"] == model.num_timesteps == step
    policy, _ = load_policy(str(run_dir))
    obs, _ = UnoGymEnv(opponents="random").reset(seed=0)
    np.testing.assert_allclose(policy.logits(obs), sb3_logits(model, obs), atol=1e-4)  # the model's actor
    with open(run_dir / "eval.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    steps = [int(r["steps"]) for r in rows]
    assert steps and steps == sorted(set(steps)) and steps[-1] <= step  # one row per evaluation, none past it
    assert card["evaluation"]["random"]["steps"] == steps[-1]

    train.main(args + ["--resume", "--total-steps", str(step + 256)])  # the stored override, given again
    card = ckpt.load_card(str(run_dir))
    assert card["total_steps"] >= step + 256 and card["evaluation"]["random"]["games"] == 20
    assert card["overrides"] == {"checkpoint_every": 1_000_000_000, "total_steps": step + 256}
