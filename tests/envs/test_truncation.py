"""Truncation of the Gymnasium view: the learner's own decisions (``max_learner_steps``,
default 1000) and the engine's cap (``rules.max_steps``), told apart by
``info["truncated_reason"]``; the training configs cap their episodes."""

from __future__ import annotations

import os
import sys

import gymnasium
import numpy as np
import pytest

import uno_env  # noqa: F401  (registers uno_env/Uno-v1)
from uno_env.agents import Agent
from uno_env.envs.gym_env import UnoGymEnv
from uno_env.game import actions as A
from uno_env.game.rules import make_rules
from helpers import training_configs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Drawer(Agent):
    """Never plays a card: draws (keeps the drawn card) whenever it may, so no game ends."""

    name = "drawer"

    def act(self, observation, action_mask):
        for a in (A.DRAW, A.PASS):
            if action_mask[a]:
                return a
        return int(np.flatnonzero(action_mask)[0])


def drawer_env(num_players=2, **kw) -> UnoGymEnv:
    rules = make_rules("classic")
    return UnoGymEnv(num_players=num_players, opponents=[Drawer(rules, num_players)], **kw)


def run_drawer(env: UnoGymEnv, seed: int = 0, limit: int = 100_000):
    """The learner draws too; returns (learner steps, last reward, terminated, truncated, info)."""
    _, info = env.reset(seed=seed)
    learner = Drawer(env.rules, env.n)
    for steps in range(1, limit + 1):
        _, reward, terminated, truncated, info = env.step(learner.act(None, info["action_mask"]))
        if terminated or truncated:
            return steps, reward, terminated, truncated, info
    raise AssertionError(f"no episode end after {limit} learner steps")


def test_endless_game_is_truncated_after_default_1000_learner_decisions():
    steps, reward, terminated, truncated, info = run_drawer(drawer_env())
    assert (steps, reward, terminated, truncated) == (1000, 0.0, False, True)
    assert info["truncated_reason"] == "max_learner_steps" and info["learner_steps"] == 1000
    assert info["steps"] < make_rules("classic").max_steps  # the learner's cap came first
    assert info["winner"] == -1 and not info["action_mask"].any()


def test_learner_cap_counts_only_the_learners_decisions():
    env = drawer_env(num_players=4, max_learner_steps=7)
    steps, reward, terminated, truncated, info = run_drawer(env, seed=3)
    assert steps == info["learner_steps"] == 7 and truncated and not terminated
    assert info["steps"] > 3 * 7  # three drawing opponents decided in between, at least as often


def test_engine_cap_is_named_max_steps():
    env = drawer_env(max_learner_steps=None, max_steps=50)
    steps, reward, terminated, truncated, info = run_drawer(env)
    assert (reward, terminated, truncated, info["truncated_reason"]) == (0.0, False, True, "max_steps")
    assert info["steps"] == 50 and steps < 50


def test_engine_cap_first_and_no_learner_cap_means_engine_only():
    env = drawer_env(max_learner_steps=10_000, max_steps=40)
    assert run_drawer(env)[4]["truncated_reason"] == "max_steps"
    steps, *_, info = run_drawer(drawer_env(max_learner_steps=None, max_steps=4_000))
    assert steps > 1000 and info["truncated_reason"] == "max_steps"


def test_counter_restarts_at_reset_and_episode_is_over_after_truncation():
    env = drawer_env(max_learner_steps=5)
    for seed in (0, 1):
        steps, *_, info = run_drawer(env, seed=seed)
        assert steps == 5 and info["truncated_reason"] == "max_learner_steps"
    with pytest.raises(RuntimeError, match="reset"):
        env.step(A.DRAW)


def test_game_that_ends_before_the_cap_has_no_truncated_reason():
    env = UnoGymEnv(opponents="heuristic", max_learner_steps=1000)
    _, info = env.reset(seed=5)
    rng = np.random.default_rng(5)
    done = False
    while not done:
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        done = terminated or truncated
    assert terminated and not truncated and reward != 0.0
    assert "truncated_reason" not in info and 0 < info["learner_steps"] < 1000


@pytest.mark.parametrize("bad", [0, -3, 2.5, "100", True])
def test_bad_max_learner_steps_is_a_value_error(bad):
    with pytest.raises(ValueError, match="max_learner_steps must be a positive integer or None"):
        UnoGymEnv(max_learner_steps=bad)


def test_max_learner_steps_passes_through_gymnasium_make_and_sb3_make_vec_env():
    from stable_baselines3.common.env_util import make_vec_env

    env = gymnasium.make("uno_env/Uno-v1", opponents="random", max_learner_steps=3)
    assert env.max_learner_steps == 3  # unwrapped: action_masks() stays reachable
    venv = make_vec_env("uno_env/Uno-v1", n_envs=1, seed=0,
                        env_kwargs={"opponents": [Drawer(make_rules("classic"), 2)], "max_learner_steps": 3})
    venv.reset()
    learner = Drawer(make_rules("classic"), 2)
    for _ in range(3):
        mask = venv.env_method("action_masks")[0]
        _, _, dones, infos = venv.step(np.array([learner.act(None, mask)]))
    # SB3 sees a time-limit truncation (it bootstraps the value there), not a loss
    assert dones[0] and infos[0]["TimeLimit.truncated"] and infos[0]["truncated_reason"] == "max_learner_steps"


def test_training_configs_cap_the_learners_decisions():
    sys.path.insert(0, os.path.join(ROOT, "training"))
    import train

    for name in training_configs():
        cfg = train.load_config(os.path.join(ROOT, "configs", "train", name))
        assert cfg.max_learner_steps is not None and 1 <= cfg.max_learner_steps <= 1000, name


@pytest.mark.parametrize("bad", [0, "many", 2.5])
def test_training_config_refuses_a_bad_max_learner_steps(bad):
    sys.path.insert(0, os.path.join(ROOT, "training"))
    import train

    with pytest.raises(ValueError, match="'max_learner_steps' must be an integer >= 1 or null"):
        train.load_config(os.path.join(ROOT, "configs", "train", "test.yaml"), {"max_learner_steps": bad})
