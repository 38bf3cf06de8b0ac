"""SB3's VecEnv over the batched engine: same-step autoreset, infos, masks, MaskablePPO on it.

The games themselves are the vector env's (tests/envs/test_vector_env.py); here, that the SB3
conventions change nothing in them: every episode of a game is the Gymnasium vector env's
episode, with the learner's every action played (no dummy step)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("sb3_contrib")

from stable_baselines3.common.vec_env import VecEnv  # noqa: E402

from uno_env.envs.vector_env import UnoVectorEnv  # noqa: E402
from uno_env.learn.sb3.vec_env import UnoSB3VecEnv  # noqa: E402


def _first_legal(masks: np.ndarray) -> np.ndarray:
    """A deterministic learner: the lowest legal action id of each game (a pass, a draw...)."""
    return masks.argmax(axis=1)


def _episodes_sb3(env: UnoSB3VecEnv, steps: int):
    """Per game: the (return, length, terminal observation, winner) of each finished episode."""
    out = [[] for _ in range(env.num_envs)]
    obs = env.reset()
    for _ in range(steps):
        masks = env.action_masks()
        assert (masks[np.arange(env.num_envs), _first_legal(masks)]).all()  # every game's learner decides
        obs, rewards, dones, infos = env.step(_first_legal(masks))
        for i in np.flatnonzero(dones):
            ep = infos[i]["episode"]
            assert ep["r"] == rewards[i]  # the reward comes at the end
            out[i].append((ep["r"], ep["l"], infos[i]["terminal_observation"].tobytes(), infos[i]["winner"]))
        assert all(not infos[i] for i in np.flatnonzero(~dones))
        assert (rewards[~dones] == 0).all()
    return out, obs


def _episodes_gym(env: UnoVectorEnv, steps: int):
    """The same with the Gymnasium env's next-step autoreset: a finished game's next step is a reset."""
    out = [[] for _ in range(env.num_envs)]
    length = np.zeros(env.num_envs, np.int64)
    obs, info = env.reset(seed=11)
    for _ in range(steps):
        resetting = env._autoreset.copy()
        obs, rewards, terminated, truncated, info = env.step(_first_legal(info["action_mask"]))
        length[~resetting] += 1
        for i in np.flatnonzero(terminated | truncated):
            out[i].append((float(rewards[i]), int(length[i]), obs[i].tobytes(), int(info["winner"][i])))
            length[i] = 0
    return out


@pytest.mark.parametrize("opponents", [["random"], ["random", "random", "random"]])
def test_every_episode_is_the_vector_envs_episode_with_same_step_autoreset(opponents):
    """A fixed seat, a learner that is a function of the observation: game i's episodes (returns,
    lengths, last observations, winners) are the Gymnasium vector env's, in order."""
    n = len(opponents) + 1
    sb3 = UnoSB3VecEnv(6, num_players=n, opponents=opponents, seat=1, seed=11)
    got, _ = _episodes_sb3(sb3, 300)
    want = _episodes_gym(UnoVectorEnv(6, num_players=n, opponents=opponents, seat=1), 330)
    assert sum(map(len, got)) > 6
    for i in range(6):
        assert got[i] == want[i][:len(got[i])]
        assert len(want[i]) >= len(got[i])  # the Gymnasium env spent a step on each reset


def test_an_episode_cut_at_max_steps_is_marked_for_bootstrapping():
    env = UnoSB3VecEnv(4, max_steps=6, seed=0)
    env.reset()
    cut = []
    for _ in range(20):
        _, rewards, dones, infos = env.step(_first_legal(env.action_masks()))
        cut += [infos[i]["TimeLimit.truncated"] for i in np.flatnonzero(dones) if infos[i]["winner"] == -1]
    assert cut and all(cut)


def test_it_is_an_sb3_vec_env_with_masks_through_env_method():
    env = UnoSB3VecEnv(3, seed=0)
    assert isinstance(env, VecEnv) and env.num_envs == 3 and env.observation_space.shape == (1537,)
    env.reset()
    masks = np.stack(env.env_method("action_masks"))
    assert masks.dtype == bool and masks.shape == (3, 195) and (masks == env.action_masks()).all()
    assert env.has_attr("action_masks") and env.get_attr("n") == [2, 2, 2]
    from stable_baselines3.common.monitor import Monitor

    assert env.env_is_wrapped(object) == [False] * 3 and env.env_is_wrapped(Monitor) == [True] * 3
    env.env_method("set_opponents", ["random"])
    with pytest.raises(ValueError, match="critic_state='info'"):
        UnoSB3VecEnv(2, critic_state="info")


def test_a_method_or_attribute_for_some_games_only_is_refused_not_applied_to_all():
    env = UnoSB3VecEnv(3, seed=0)
    env.reset()
    assert len(env.env_method("action_masks", indices=[1])) == 1  # masks are per game
    with pytest.raises(ValueError, match=r"env_method\('reset'\) acts on all 3 games .* not on indices \[1\]"):
        env.env_method("reset", indices=[1])
    with pytest.raises(ValueError, match=r"set_attr\('n'\) acts on all 3 games"):
        env.set_attr("n", 4, indices=[0, 2])
    env.env_method("set_opponents", ["random"], indices=[0, 1, 2])  # every game: allowed


def test_seeding_reproduces_the_games():
    a, b = UnoSB3VecEnv(4), UnoSB3VecEnv(4)
    a.seed(5)
    b.seed(5)
    ea, oa = _episodes_sb3(a, 80)
    eb, ob = _episodes_sb3(b, 80)
    assert ea == eb and (oa == ob).all()


def test_maskable_ppo_learns_on_it_and_logs_the_envs_episodes():
    """A few hundred steps of MaskablePPO: its rollouts' dones and rewards are the env's
    episodes (one +-1 reward at each done, none between), SB3's episode buffer holds them."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    class Record(BaseCallback):
        def __init__(self):
            super().__init__()
            self.rewards, self.dones, self.infos = [], [], []

        def _on_step(self) -> bool:
            self.rewards.append(self.locals["rewards"].copy())
            self.dones.append(self.locals["dones"].copy())
            self.infos.append(self.locals["infos"])
            return True

    env = UnoSB3VecEnv(8, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=128, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    rec = Record()
    model.learn(512, callback=rec)
    rewards, dones = np.array(rec.rewards), np.array(rec.dones)
    assert model.num_timesteps == 512 and rewards.shape == (64, 8)
    assert (rewards[~dones] == 0).all() and set(np.abs(rewards[dones])) == {1.0}
    episodes = [info["episode"] for infos in rec.infos for info in infos if "episode" in info]
    assert len(episodes) == dones.sum() > 0
    assert [e["r"] for e in model.ep_info_buffer] == [e["r"] for e in episodes][-len(model.ep_info_buffer):]
    for i in range(8):  # per game: each episode's length is the steps since its previous end
        ends = np.flatnonzero(dones[:, i])
        logged = [rec.infos[t][i]["episode"] for t in ends]
        assert [e["l"] for e in logged] == np.diff(np.r_[-1, ends]).tolist()
        assert [e["r"] for e in logged] == rewards[ends, i].tolist()
