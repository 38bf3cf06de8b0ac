"""The Tianshou recipe (examples/tianshou_dqn.py) and why it trains through the Gymnasium view.

Runs in the recipe's own virtual environment (``bash scripts/test_recipes.sh tianshou``:
tianshou 2.0.1); skipped where tianshou is not installed. Marked ``examples``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tianshou")
from tianshou.env import PettingZooEnv  # noqa: E402

import uno_env  # noqa: E402

from test_examples import load  # noqa: E402

pytestmark = pytest.mark.examples


def test_tianshou_dqn_recipe_trains_and_credits_losses_to_the_learner():
    result = load("tianshou_dqn").main(["--epochs", "1", "--epoch-steps", "1500", "--num-envs", "4",
                                        "--collect-steps", "32", "--batch-size", "64", "--hidden", "64",
                                        "--test-episodes", "4", "--eval-games", "10"])
    assert result["steps"] >= 1500 and result["steps_per_s"] > 0
    assert 0.0 <= result["win_rate"] <= 1.0
    buf = result["buffer"]
    stored = buf.sample_indices(0)  # every stored transition (a vector buffer has one segment per env)
    rew, terminated = buf.rew[stored], buf.terminated[stored]
    # an episode ends with +1 or -1 in the learner's own last transition; 0 on every other step
    assert terminated.sum() >= 5
    assert set(np.unique(rew[terminated])) <= {-1.0, 1.0} and not rew[~terminated].any()
    # the learner cannot lose on its own move: every -1 is an opponent's winning move, credited to it
    assert (rew[terminated] == -1.0).any()
    assert buf.obs.mask[stored].any(axis=1).all()  # every stored decision had legal actions


def transitions(seed: int) -> list[tuple[str, np.ndarray, bool]]:
    """One game of random legal moves through Tianshou's PettingZoo wrapper, as its collector
    stores it: (agent that acted, the reward vector of the step, terminated)."""
    env = PettingZooEnv(uno_env.env(rules="classic", num_players=2))
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out, done = [], False
    while not done:
        actor = obs["agent_id"]
        obs, rew, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
        out.append((actor, np.array(rew, dtype=float), bool(terminated)))
        done = terminated or truncated
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tianshou_pettingzoo_wrapper_credits_the_losers_loss_to_the_winners_transition(seed):
    steps = transitions(seed)
    winner, last_rew, last_terminated = steps[-1]
    assert last_terminated  # the game ends on the winner's own move
    loser = next(a for a in ("player_0", "player_1") if a != winner)
    li = ["player_0", "player_1"].index(loser)
    assert last_rew[li] == -1.0  # the loss is in the vector of the winner's transition ...
    loser_last = [s for s in steps if s[0] == loser][-1]
    # ... while the loser's own last transition (all its learner trains on) says nothing happened
    assert loser_last[1][li] == 0.0 and not loser_last[2]
