"""The TorchRL recipe (examples/torchrl_ppo.py), and TorchRL's PettingZoo wrapper on the AEC env.

Runs in the recipe's own virtual environment (``bash scripts/test_recipes.sh torchrl``:
torchrl 0.14.1); skipped where torchrl is not installed. Marked ``examples``."""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl")
import torch  # noqa: E402
from torchrl.envs import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import uno_env  # noqa: E402

from test_examples import load  # noqa: E402

pytestmark = [pytest.mark.examples,
              pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version")]


def test_torchrl_ppo_recipe_trains_and_evaluates():
    result = load("torchrl_ppo").main(["--total-steps", "2048", "--num-envs", "2", "--frames-per-batch", "1024",
                                       "--minibatch", "256", "--epochs", "2", "--hidden", "64",
                                       "--eval-games", "10"])
    assert result["steps"] >= 2048 and result["episodes"] > 0
    # episode returns from RewardSum: +1 or -1 at the end of a game, 0 for a truncated one
    assert set(result["returns"]) <= {-1.0, 0.0, 1.0} and -1.0 in result["returns"]
    assert 0.0 <= result["win_rate"] <= 1.0


def pettingzoo_wrapper(seed: int) -> PettingZooWrapper:
    env = PettingZooWrapper(uno_env.env(rules="classic", num_players=2), use_mask=True, return_state=True,
                            categorical_actions=True)
    env.set_seed(seed)
    return env


def test_torchrl_pettingzoo_wrapper_passes_check_env_specs_with_masks_and_state():
    check_env_specs(pettingzoo_wrapper(0))


@pytest.mark.parametrize("seed", [0, 1])
def test_torchrl_pettingzoo_wrapper_gives_the_loss_at_a_step_where_the_loser_is_not_acting(seed):
    torch.manual_seed(seed)
    env = pettingzoo_wrapper(seed)
    td = env.rollout(5_000, break_when_any_done=True)  # random actions, legal through the action masks
    last = td[-1]
    assert bool(last["next", "terminated"])
    acting = [g for g in ("player_0", "player_1") if bool(last[g, "mask"].all())]
    assert len(acting) == 1  # the winner made the last move
    loser = "player_1" if acting == ["player_0"] else "player_0"
    assert float(last["next", loser, "reward"].sum()) == -1.0
    assert not bool(last[loser, "mask"].any())  # ... but the loser was not acting at that step
