"""The recipes in examples/ run end to end (a few thousand steps each).

Marked ``examples`` (deselected by the default run, which stays fast; ``.ci/run`` runs them:
``pytest -m examples``)."""

from __future__ import annotations

import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.examples


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cleanrl_ppo_recipe_trains_and_evaluates():
    result = load("cleanrl_ppo").main(["--total-steps", "2048", "--num-envs", "4", "--num-steps", "64",
                                       "--eval-games", "10", "--hidden", "64"])
    assert result["steps"] >= 1500 and result["episodes"] > 0
    assert 0.0 <= result["win_rate"] <= 1.0


def test_cleanrl_ppo_recipe_trains_on_the_batched_vector_env():
    pytest.importorskip("numba")
    result = load("cleanrl_ppo").main(["--total-steps", "2048", "--num-envs", "32", "--num-steps", "64",
                                       "--eval-games", "0", "--hidden", "64",
                                       "--vectorization", "vector_entry_point"])
    assert result["steps"] >= 1500 and result["episodes"] > 0


def test_sb3_maskable_ppo_recipe_trains_with_make_vec_env_and_eval_callback(tmp_path):
    result = load("sb3_maskable_ppo").main(["--total-steps", "2048", "--n-envs", "4", "--eval-freq", "1024",
                                            "--eval-games", "4", "--out", str(tmp_path)])
    assert -1.0 <= result["mean_reward"] <= 1.0
    assert os.path.isfile(result["best_model"])


def test_sb3_maskable_ppo_recipe_trains_on_the_batched_engine(tmp_path):
    pytest.importorskip("numba")
    result = load("sb3_maskable_ppo").main(["--batched", "--total-steps", "2048", "--n-envs", "32", "--eval-freq",
                                            "1024", "--eval-games", "4", "--out", str(tmp_path)])
    assert -1.0 <= result["mean_reward"] <= 1.0 and -1.0 <= result["train_reward"] <= 1.0
    assert result["episodes"] > 0 and os.path.isfile(result["best_model"])


def test_minari_bc_recipe_clones_the_dataset_teacher_and_plays_its_opponents(tmp_path, monkeypatch):
    pytest.importorskip("minari")
    from helpers import small_dataset

    small_dataset(tmp_path, monkeypatch, episodes=120, seed=0)
    result = load("minari_bc").main(["--dataset", "uno/classic-2p/heuristic-v0", "--epochs", "3",
                                     "--hidden", "64", "--eval-games", "10"])
    assert result["decisions"] > 1000
    assert result["held_out_agreement"] > 0.5  # the heuristic's moves, beyond chance among the legal ones
    assert 0.0 <= result["win_rate"] <= 1.0
