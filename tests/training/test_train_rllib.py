"""training/train_rllib.py's command line and config checks (no Ray needed: every error here is
raised before Ray starts). The training itself is tested in tests/integrations/test_rllib.py."""

from __future__ import annotations

import glob
import re
import importlib.util
import os
import shutil
import sys

import pytest

from helpers import cli_error

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEST_CONFIG = os.path.join(ROOT, "configs", "rllib", "test.yaml")


@pytest.fixture(scope="module")
def train():
    spec = importlib.util.spec_from_file_location("train_rllib", os.path.join(ROOT, "training", "train_rllib.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_rllib"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "configs", "rllib", "*.yaml"))))
def test_every_shipped_rllib_config_loads(train, path):
    cfg = train.load_config(path)
    assert cfg.total_steps >= 1 and train.league_entries(cfg)


@pytest.mark.parametrize("overrides,named", [
    ({"num_env_runner": 2}, "unknown config keys ['num_env_runner']"),
    ({"net_arch": [64, 0]}, "net_arch"),
    ({"num_env_runners": -1}, "config key 'num_env_runners' must be an integer >= 0"),
    ({"num_players": 11}, "config key 'num_players' must be an integer >= 2 and <= 10"),
    ({"minibatch_size": 4096}, "minibatch_size 4096 exceeds train_batch_size 256"),
    ({"activation": "gelu"}, "config key 'activation' must be tanh or relu"),
    ({"phases": [{"until": 1.0, "opponent": {"self": 1.0}}]}, "phases[0] must be"),
    ({"phases": [{"until": 1.0, "opponents": {"self": 0}}]}, "phases[0].opponents"),
    ({"phases": [{"until": -1, "opponents": {"self": 1}}]}, "phases[0].until"),
    ({"eval_opponents": "random"}, "config key 'eval_opponents' must be a list of agent specs"),
])
def test_a_bad_config_is_an_error_naming_the_key(train, overrides, named):
    with pytest.raises(ValueError) as exc:
        train.load_config(TEST_CONFIG, overrides)
    assert named in str(exc.value)


def test_an_unknown_config_key_is_a_one_line_cli_error(train, capsys, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("rules: classic\nnum_envs: 4\n")
    line = cli_error(train.main, capsys, ["--config", str(path), "--run", "x", "--checkpoint-dir", str(tmp_path)])
    assert "unknown config keys ['num_envs']" in line


def test_a_set_key_that_is_neither_config_nor_rule_is_named(train, capsys, tmp_path):
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "x", "--set", "nonsense=1",
                                     "--checkpoint-dir", str(tmp_path)])
    assert "['nonsense']" in line


def test_an_unknown_agent_in_the_league_is_named_before_ray_starts(train, capsys, tmp_path):
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "x", "--checkpoint-dir", str(tmp_path),
                                     "--set", "phases=[{until: 1.0, opponents: {self: 1, heuristc: 1}}]"])
    assert "heuristc" in line


def test_a_league_checkpoint_for_other_players_is_named(train, capsys, tmp_path):
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "x", "--checkpoint-dir", str(tmp_path),
                                     "--set", f"phases=[{{until: 1.0, opponents: {{'checkpoint:{tmp_path}/none': 1}}}}]"])
    assert "not found" in line


def test_resume_without_a_run_is_an_error(train, capsys, tmp_path):
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "x", "--resume",
                                     "--checkpoint-dir", str(tmp_path)])
    assert "no run to resume" in line and "trainer.json not found" in line


def test_rule_options_are_checked_like_the_sb3_script(train, capsys, tmp_path):
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "x", "--set", "uno_call=sometimes",
                                     "--checkpoint-dir", str(tmp_path)])
    assert "uno_call" in line


def test_an_unknown_evaluation_opponent_is_named_before_ray_starts(train, capsys, tmp_path):
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "x", "--checkpoint-dir", str(tmp_path),
                                     "--set", "eval_opponents=[random, heuristc]"])
    assert "eval_opponents entry 'heuristc'" in line


def test_an_init_checkpoint_for_another_network_is_named_before_ray_starts(train, capsys, tmp_path):
    shipped = os.path.join(ROOT, "checkpoints", "classic-4p")  # [256, 256]; test.yaml's net is [32, 32]
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "x", "--checkpoint-dir", str(tmp_path),
                                          "--set", f"init_checkpoint={shipped}"])
    assert f"init_checkpoint {shipped!r} holds another network" in line and "[655, 32, 32, 195]" in line
    assert not (tmp_path / "x").exists()


def test_resume_with_other_rules_than_the_run_is_a_one_line_error(train, capsys, tmp_path):
    run = tmp_path / "c4"
    shutil.copytree(os.path.join(ROOT, "checkpoints", "classic-4p"), run)
    (run / "trainer.json").write_text("{}")
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "c4", "--checkpoint-dir", str(tmp_path),
                                          "--resume", "--set", "stacking=true"])
    assert "--resume: checkpoint" in line and "stacking=False (env: True)" in line


@pytest.mark.parametrize("name", ["", ".", "..", "a/b"])
def test_force_with_a_run_name_that_is_not_a_plain_folder_name_deletes_nothing(train, capsys, tmp_path, name):
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "card.json").write_text("{}")
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", name, "--force",
                                          "--checkpoint-dir", str(tmp_path), "--runs-dir", str(tmp_path)])
    assert "is not a plain folder name" in line
    assert os.listdir(tmp_path) == ["keep"] and (tmp_path / "keep" / "card.json").read_text() == "{}"


def test_force_on_a_folder_without_the_runs_mark_deletes_nothing(train, capsys, tmp_path):
    (tmp_path / "c4").mkdir()
    (tmp_path / "c4" / "trainer.json").write_text("{}")
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "c4", "--force",
                                          "--checkpoint-dir", str(tmp_path), "--runs-dir", str(tmp_path / "runs")])
    assert "--force deletes only a run's own folders" in line
    assert os.listdir(tmp_path / "c4") == ["trainer.json"]


# ---------------------------------------------------------------------- checked before Ray starts
@pytest.mark.parametrize("overrides,named", [
    ({"net_arch": [9000]}, "config key 'net_arch' must be a list of 1..16 layer sizes, each in 1..8192"),
    ({"net_arch": [64] * 17}, "config key 'net_arch' must be a list of 1..16 layer sizes"),
])
def test_layers_a_checkpoint_cannot_hold_are_named_when_the_config_is_read(train, overrides, named):
    with pytest.raises(ValueError, match=re.escape(named)):
        train.load_config(TEST_CONFIG, overrides)


@pytest.mark.parametrize("overrides,named", [
    ({"train_batch_size": 10 ** 6}, "train_batch_size 1000000 (19.4 GB)"),
    ({"imitate_decisions": 10 ** 7}, "imitate_decisions 10000000 (59.2 GB)"),
    ({"num_envs_per_env_runner": 300_000}, "num_envs_per_env_runner 300000 (18.3 GB)"),
    ({"eval_workers": 100}, "eval_workers 100 (25.0 GB)"),
])
def test_memory_the_driver_cannot_hold_is_named_by_its_keys(train, monkeypatch, overrides, named):
    from uno_env.learn import machine

    monkeypatch.setattr(machine, "machine_memory", lambda: 16 << 30)
    train.check_machine(train.load_config(TEST_CONFIG), "test.yaml")
    with pytest.raises(ValueError, match=r"^test\.yaml: the config needs about .* of memory, more than 75% "
                                         r"of the 16\.0 GB this machine lets the run use: " + re.escape(named)):
        train.check_machine(train.load_config(TEST_CONFIG, overrides), "test.yaml")


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "configs", "rllib", "*.yaml"))))
def test_every_shipped_rllib_config_fits_a_machine_of_2_cpus_and_8_gb(train, monkeypatch, path):
    from uno_env.learn import machine

    monkeypatch.setattr(machine, "usable_cpus", lambda: 2)
    monkeypatch.setattr(machine, "machine_memory", lambda: 8 << 30)
    train.check_machine(train.load_config(path), path)


def test_what_the_machine_cannot_hold_is_a_one_line_error_before_ray_starts(train, capsys, tmp_path):
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "x", "--checkpoint-dir", str(tmp_path),
                                          "--set", f"torch_threads={os.cpu_count() + 1}"])
    assert "config key 'torch_threads'" in line and "CPUs this machine lets the run use" in line


def test_a_damaged_trainer_state_on_resume_is_a_one_line_error(train, capsys, tmp_path):
    # a card (read first: the run's stored overrides), then the damaged state
    shutil.copytree(os.path.join(ROOT, "checkpoints", "classic-4p"), tmp_path / "x")
    (tmp_path / "x" / "trainer.json").write_text('{"wall_time_s": ' + "9" * 5000 + "}")
    line = cli_error(train.main, capsys, ["--config", TEST_CONFIG, "--run", "x", "--resume",
                                          "--checkpoint-dir", str(tmp_path), "--runs-dir", str(tmp_path / "runs")])
    assert line.endswith("--resume: trainer state '" + str(tmp_path / "x" / "trainer.json") +
                         "': key 'wall_time_s' holds an integer of 5000 digits, too long to read")
