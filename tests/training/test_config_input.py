"""Training configs (``training/train.py``): a wrong type, range or key is a ``ValueError``
naming the file and the key when the YAML is read; the CLI exits 2 with one line."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "training"))
import train  # noqa: E402
from uno_env.learn import configs, machine  # noqa: E402
from helpers import cli_error, training_configs  # noqa: E402


@pytest.mark.parametrize("text,key", [
    ("total_steps: abc\n", "total_steps"),
    ("total_steps: 1.5\n", "total_steps"),
    ("total_steps: true\n", "total_steps"),
    ("total_steps: 0\n", "total_steps"),
    ("num_players: 11\n", "num_players"),
    ("learning_rate: fast\n", "learning_rate"),
    ("learning_rate: .nan\n", "learning_rate"),
    ("gamma: 1.5\n", "gamma"),
    ("time_limit_min: -3\n", "time_limit_min"),
    ("net_arch: 256\n", "net_arch"),
    ("net_arch: [256, big]\n", "net_arch"),
    ("obs_features: 1\n", "obs_features"),
    ("vec_env: threads\n", "vec_env"),
    ("activation: gelu\n", "activation"),
    ("eval_opponents: random\n", "eval_opponents"),
    ("phases: []\n", "phases"),
    ("phases: [{until: 1.0, opponents: random}]\n", "phases"),
    ("phases: [{until: 1.0, opponents: {random: -1}}]\n", "phases"),
    ("phases: [{until: 1.0, opponent: {random: 1}}]\n", "phases"),
    ("rules: 3\n", "rules"),
    ("rules: nonesuch\n", "rules"),
])
def test_config_value_of_the_wrong_type_or_range_names_key_and_file(tmp_path, text, key):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=rf"bad\.yaml: config key '{key}'"):
        train.load_config(str(path))


@pytest.mark.parametrize("content,message", [
    (b"total_steps: [1\n", "not valid YAML"),
    (b"total_steps: 1\n# caf\xe9\n", "not UTF-8"),
    (b"- total_steps\n", "must hold a mapping"),
    (b"1: 2\n", "keys must be strings"),
    (b"learning_rat: 0.1\n", r"unknown config keys \['learning_rat'\]"),
])
def test_unreadable_config_files_name_the_file(tmp_path, content, message):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=rf"bad\.yaml'?:? .*{message}"):
        train.load_config(str(path))
    with pytest.raises(ValueError, match=r"config '.*missing\.yaml' cannot be read"):
        train.load_config(str(tmp_path / "missing.yaml"))


def test_every_config_key_is_checked_and_the_defaults_pass():
    assert set(train._CONFIG_CHECKS) == {f.name for f in dataclasses.fields(train.Config)}
    defaults = train.Config()
    for key, check in train._CONFIG_CHECKS.items():
        assert check.problem(key, getattr(defaults, key)) is None, (key, check.what)


def test_train_cli_bad_config_is_a_one_line_error_with_exit_2(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("total_steps: abc\n")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "training", "train.py"), "--config", str(path),
                        "--run", "x", "--checkpoint-dir", str(tmp_path), "--runs-dir", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1].endswith("bad.yaml: config key 'total_steps' must be an "
                                                      "integer >= 1, got 'abc'")


QUICK = os.path.join(ROOT, "configs", "train", "quick.yaml")


@pytest.mark.parametrize("sets,named", [
    (["phases=[{until: 1.0, opponents: {heuristc: 1}}]"], "league entry 'heuristc': unknown agent spec"),
    (["phases=[{until: 1.0, opponents: {'heuristic:w_nope=1': 1}}]"], "league entry 'heuristic:w_nope=1'"),
    (["learner=sb3", "bf16=false", "phases=[{until: 1.0, opponents: {self: 0.5, heuristic: 0.5}}]"],
     "'self' (the learner itself in more seats) is learner: batched's and train_rllib.py's"),
    (["eval_opponents=[random, serach]"], "eval_opponents entry 'serach'"),
])
def test_a_bad_league_or_evaluation_opponent_is_named_before_anything_is_spent(capsys, tmp_path, sets, named):
    # an imitation of many minutes comes first in a run: a typo must not cost it
    args = ["--config", QUICK, "--run", "x", "--checkpoint-dir", str(tmp_path / "ck"),
            "--runs-dir", str(tmp_path / "runs"), "--set", "imitate_decisions=100000"]
    for s in sets:
        args += ["--set", s]
    assert named in cli_error(train.main, capsys, args)
    assert not (tmp_path / "ck").exists() and not (tmp_path / "runs").exists()


def test_a_league_checkpoint_for_other_rules_or_players_is_named(capsys, tmp_path):
    shipped = os.path.join(ROOT, "checkpoints", "classic-4p")
    line = cli_error(train.main, capsys, ["--config", QUICK, "--run", "x", "--checkpoint-dir", str(tmp_path),
                              "--runs-dir", str(tmp_path), "--set",
                              f"phases=[{{until: 1.0, opponents: {{'checkpoint:{shipped}#sample': 1}}}}]"])
    assert f"league entry 'checkpoint:{shipped}#sample'" in line and "num_players 4 (the env has 2)" in line


@pytest.mark.parametrize("sets,named", [
    (["net_arch=[64, 64]"], "sizes [655, 256, 256, 195] (the run's: [655, 64, 64, 195])"),
    (["activation=relu"], "activation 'tanh' (the run's: 'relu')"),
    (["obs_features=false"], "input 'obs_features' (the run's: 'raw')"),
    (["num_players=2"], "num_players 4 (the env has 2)"),
    (["stacking=true"], "rules stacking=False (env: True)"),
])
def test_an_init_checkpoint_that_does_not_fit_the_run_is_named_before_anything_is_spent(capsys, tmp_path, sets, named):
    shipped = os.path.join(ROOT, "checkpoints", "classic-4p")
    args = ["--config", QUICK, "--run", "x", "--checkpoint-dir", str(tmp_path / "ck"),
            "--runs-dir", str(tmp_path / "runs"), "--set", "imitate_decisions=100000",
            "--set", "num_players=4", "--set", "net_arch=[256, 256]", "--set", f"init_checkpoint={shipped}"]
    for s in sets:
        args += ["--set", s]
    line = cli_error(train.main, capsys, args)
    assert line.split("error: ")[-1].startswith(f"init_checkpoint {shipped!r}") and named in line
    assert not (tmp_path / "ck").exists() and not (tmp_path / "runs").exists()


def test_an_init_checkpoint_that_is_missing_or_not_a_checkpoint_is_named(capsys, tmp_path):
    (tmp_path / "empty").mkdir()
    for path, named in ((tmp_path / "none", "not found"), (tmp_path / "empty", "card.json")):
        line = cli_error(train.main, capsys, ["--config", QUICK, "--run", "x", "--checkpoint-dir", str(tmp_path / "ck"),
                                              "--runs-dir", str(tmp_path / "runs"), "--set", f"init_checkpoint={path}"])
        assert f"init_checkpoint '{path}'" in line and named in line
    assert not (tmp_path / "ck").exists()


# ---------------------------------------------------------------------- checked before anything is spent
TEST = os.path.join(ROOT, "configs", "train", "test.yaml")


@pytest.mark.parametrize("sets,named", [
    ({"net_arch": [9000]}, "config key 'net_arch' must be a list of 1..16 layer sizes, each in 1..8192"),
    ({"net_arch": [64] * 17}, "config key 'net_arch' must be a list of 1..16 layer sizes"),
    ({"batch_size": 1}, "config key 'batch_size' must be an integer >= 2"),
    ({"batch_size": 257}, "config key 'batch_size' is 257, more than a rollout of n_steps x n_envs = 256 steps"),
])
def test_what_a_checkpoint_or_ppo_cannot_take_is_named_when_the_config_is_read(sets, named):
    with pytest.raises(ValueError, match=re.escape(named)):
        train.load_config(TEST, sets)
    train.load_config(TEST, {"net_arch": [8192] * 16, "batch_size": 256})  # the largest that save


@pytest.mark.parametrize("sets,named", [
    ({"imitate_decisions": 10 ** 7}, "imitate_decisions 10000000 (59.2 GB)"),
    ({"n_steps": 10 ** 6, "batch_size": 64}, "n_steps x n_envs 1000000 x 4 (25.9 GB)"),
    ({"net_arch": [8192] * 16}, f"net_arch {[8192] * 16} (30.1 GB)"),
    ({"n_envs": 100, "vec_env": "subproc", "batch_size": 64}, "n_envs 100 (25.0 GB)"),
    ({"imitate_decisions": 10, "imitate_workers": 64}, "imitate_decisions 10 (16.0 GB)"),
    ({"eval_workers": 100}, "eval_workers 100 (25.0 GB)"),
])
def test_memory_the_machine_cannot_hold_is_named_by_its_keys(monkeypatch, sets, named):
    monkeypatch.setattr(machine, "machine_memory", lambda: 16 << 30)
    train.check_machine(train.load_config(TEST), "test.yaml")
    with pytest.raises(ValueError, match=r"^test\.yaml: the config needs about .* of memory, more than 75% of the "
                                         r"16\.0 GB this machine lets the run use: " + re.escape(named)):
        train.check_machine(train.load_config(TEST, sets), "test.yaml")


def test_more_torch_threads_than_cpus_are_named(monkeypatch):
    monkeypatch.setattr(machine, "usable_cpus", lambda: 2)
    train.check_machine(train.load_config(TEST, {"torch_threads": 2, "eval_workers": 8}), "test.yaml")
    with pytest.raises(ValueError, match=r"config key 'torch_threads' is 4, more than the 2 CPUs"):
        train.check_machine(train.load_config(TEST, {"torch_threads": 4}), "test.yaml")


@pytest.mark.parametrize("name", training_configs())
def test_every_shipped_config_fits_a_machine_of_2_cpus_and_8_gb(monkeypatch, name):
    monkeypatch.setattr(machine, "usable_cpus", lambda: 2)
    monkeypatch.setattr(machine, "machine_memory", lambda: 8 << 30)
    train.check_machine(train.load_config(os.path.join(ROOT, "configs", "train", name)), name)


def test_train_cli_refuses_what_the_machine_cannot_hold_before_anything_is_spent(capsys, tmp_path):
    line = cli_error(train.main, capsys, ["--config", TEST, "--run", "x", "--checkpoint-dir", str(tmp_path / "ck"),
                                          "--runs-dir", str(tmp_path / "runs"), "--set", f"imitate_decisions={10 ** 12}"])
    assert f"imitate_decisions {10 ** 12}" in line and "of memory, more than 75%" in line
    assert not (tmp_path / "ck").exists() and not (tmp_path / "runs").exists()


def test_torch_threads_default_to_one_thread_for_both_training_scripts():
    """Two OpenMP threads on a busy 2-core machine made the PPO update several times slower than
    one (bench/bench_torch_threads.py): a config that does not set the key gets one thread."""
    assert train.Config().torch_threads == 1
    assert configs.TrainingConfig().torch_threads == 1
