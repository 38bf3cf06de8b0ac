"""The single-agent Gymnasium view: checkers, opponents inside step, rewards, illegal actions,
truncation, seeding and the opponent pool."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import uno_env  # noqa: F401  (registers uno_env/Uno-v1)
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import observation as O
from uno_env.agents import Agent
from uno_env.envs.gym_env import UnoGymEnv
from uno_env.game.rules import make_rules

from helpers import reset_stacked

NAMES = A.action_names(C.COLOR_SETS["classic"])
CARDS = C.card_names(C.COLOR_SETS["classic"])


def action(name: str) -> int:
    return NAMES.index(name)


class LowestLegal(Agent):
    """Deterministic test opponent: the lowest legal action id."""

    name = "lowest"

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


class Cheater(Agent):
    name = "cheater"

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask == 0)[0])


# ---------------------------------------------------------------------- API conformance
@pytest.mark.parametrize("kwargs", [
    {"opponents": ["random"]},
    {"opponents": "heuristic", "num_players": 3, "seat": 1},
    {"opponents": ["random", "greedy", "heuristic"], "num_players": 4, "rules": "house"},
    {"opponents": ["random"], "critic_state": "append"},
    {"opponents": ["random"], "critic_state": "info"},
])
def test_gymnasium_check_env(kwargs):
    env = gymnasium.make("uno_env/Uno-v1", **kwargs)
    gym_check_env(env.unwrapped)


def test_the_view_documents_every_argument_gymnasium_make_passes():
    import inspect

    params = [p for p in inspect.signature(UnoGymEnv).parameters if p != "rule_overrides"]
    assert params and all(f"``{p}``" in UnoGymEnv.__doc__ for p in params + ["**rule_overrides"])
    assert all(f'"{key}"' in UnoGymEnv.reset.__doc__ for key in ("deck", "dealer"))


@pytest.mark.parametrize("make", [
    lambda: gymnasium.make("uno_env/Uno-v0"),
    lambda: gymnasium.make_vec("uno_env/Uno-v0", num_envs=2, vectorization_mode="vector_entry_point"),
    lambda: gymnasium.make_vec("uno_env/Uno-v0", num_envs=2),
])
def test_the_retired_v0_id_is_refused_saying_what_changed(make):
    with pytest.raises(gymnasium.error.DeprecatedEnv, match=r"1254 entries .* 1537 .* Use uno_env/Uno-v1"):
        make()


def test_the_unversioned_id_makes_the_current_version():
    with pytest.warns(UserWarning, match="latest versioned environment `uno_env/Uno-v1`"):
        env = gymnasium.make("uno_env/Uno", opponents="random")
    assert env.spec.id == "uno_env/Uno-v1" and env.observation_space.shape == (O.OBS_SIZE,)


def test_sb3_check_env():
    sb3_check_env(gymnasium.make("uno_env:uno_env/Uno-v1", opponents="random"))
    sb3_check_env(UnoGymEnv(opponents=["heuristic"]))
    sb3_check_env(UnoGymEnv(opponents=["heuristic"], critic_state="append"))


def test_make_forms_and_spaces():
    for env_id in ("uno_env/Uno-v1", "uno_env:uno_env/Uno-v1"):
        env = gymnasium.make(env_id, rules="classic", num_players=2, opponents=["random"], seat="random")
        assert env.observation_space == gymnasium.spaces.Box(0.0, np.inf, (O.OBS_SIZE,), np.float32)
        assert env.action_space == gymnasium.spaces.Discrete(A.NUM_ACTIONS)
        obs, info = env.reset(seed=3)
        assert obs.shape == (O.OBS_SIZE,) and obs.dtype == np.float32
        assert info["action_mask"].dtype == np.int8 and info["action_mask"].any()
        masks = env.get_wrapper_attr("action_masks")()
        assert masks.dtype == bool and np.array_equal(masks, info["action_mask"].astype(bool))


def test_bad_arguments():
    with pytest.raises(ValueError, match="opponents must hold 1 or 2"):
        UnoGymEnv(num_players=3, opponents=["random"] * 3)
    with pytest.raises(ValueError, match="unknown agent spec"):
        UnoGymEnv(opponents="nobody")
    with pytest.raises(ValueError, match="seat"):
        UnoGymEnv(opponents="random", seat=2)
    with pytest.raises(ValueError, match="weights"):
        UnoGymEnv(opponents="random", opponent_pool=[("random", 0.0)])
    with pytest.raises(ValueError, match="render_mode"):
        UnoGymEnv(opponents="random", render_mode="video")


# ---------------------------------------------------------------------- opponents and rewards
def test_opponents_act_inside_reset_and_step():
    env = UnoGymEnv(opponents=[LowestLegal(make_rules("classic"), 2)], seat=0, hand_size=2)
    # dealer 0: seat 1 (the opponent) plays first: red-3 is its only playable card
    obs, info = reset_stacked(env, dealer=0, hands={1: ["red-3", "green-8"], 0: ["blue-3", "yellow-9"]},
                              first="red-5", draw_top=["green-1", "green-2"])
    assert obs[O.TOP + CARDS.index("red-3")] == 1.0  # the learner sees the opponent's move
    assert obs[O.PHASE] == 1.0  # its own turn
    assert np.flatnonzero(info["action_mask"]).tolist() == [action("play blue-3"), action("draw")]
    obs, reward, terminated, truncated, info = env.step(action("play blue-3"))
    # the opponent (green-8 left, blue-3 on top) cannot play: it draws green-1 and keeps it
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert obs[O.OPPONENTS + 1] == 2.0  # its hand size
    assert info["action_mask"][action("play yellow-9")] == 0


def test_terminal_reward_reaches_learner_when_opponent_wins():
    env = UnoGymEnv(opponents="random", seat=0, hand_size=1)
    # dealer 1: the learner (seat 0) starts; blue-9 does not match red-5 and it draws green-7
    _, info = reset_stacked(env, dealer=1, hands={0: ["blue-9"], 1: ["red-3"]}, first="red-5",
                            draw_top=["green-7"])
    assert np.flatnonzero(info["action_mask"]).tolist() == [action("draw")]
    obs, reward, terminated, truncated, info = env.step(action("draw"))
    assert (reward, terminated, truncated) == (-1.0, True, False)  # the opponent went out
    assert info["winner"] == 1 and not info["action_mask"].any()
    assert not env.action_masks().any()
    assert type(reward) is float and type(terminated) is bool and type(truncated) is bool


def test_learner_win_and_three_player_loss():
    env = UnoGymEnv(opponents="random", seat=0, hand_size=1)
    reset_stacked(env, dealer=1, hands={0: ["red-3"], 1: ["blue-9"]}, first="red-5")
    _, reward, terminated, _, info = env.step(action("play red-3"))
    assert (reward, terminated, info["winner"]) == (1.0, True, 0)

    env = UnoGymEnv(num_players=3, opponents="random", seat=0, hand_size=1)
    reset_stacked(env, dealer=2, hands={0: ["blue-9"], 1: ["red-3"], 2: ["green-9"]}, first="red-5",
                  draw_top=["green-7"])
    _, reward, terminated, _, info = env.step(action("draw"))
    assert (reward, terminated, info["winner"]) == (-0.5, True, 1)


def test_learner_decides_in_windows():
    # the learner is the victim of a Wild Draw Four: challenge or accept is its decision
    env = UnoGymEnv(opponents=[LowestLegal(make_rules("classic"), 2)], seat=1, hand_size=2)
    _, info = reset_stacked(env, dealer=1, hands={0: ["wild-draw4", "red-1"], 1: ["blue-2", "blue-3"]},
                            first="green-5")
    legal = np.flatnonzero(info["action_mask"]).tolist()
    assert legal == [action("draw"), action("challenge")]


# ---------------------------------------------------------------------- illegal actions, truncation
def test_illegal_action_ends_episode_with_penalty():
    env = UnoGymEnv(opponents="random")
    obs, info = env.reset(seed=0)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs2, reward, terminated, truncated, info = env.step(bad)
    assert (reward, terminated, truncated, info["illegal"]) == (-1.0, True, False, True)
    assert np.array_equal(obs, obs2) and not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_illegal_opponent_move_is_an_error():
    env = UnoGymEnv(opponents=[Cheater(make_rules("classic"), 2)], seat=1)
    with pytest.raises(ValueError, match=r"agent .*cheater.* at seat 0 chose an illegal action"):
        env.reset(seed=0, options={"dealer": 1})


def test_truncation_at_max_steps():
    env = UnoGymEnv(opponents="random", max_steps=6)
    _, info = env.reset(seed=1)
    truncated = terminated = False
    steps = 0
    while not (terminated or truncated):
        a = int(np.flatnonzero(info["action_mask"])[-1])
        _, reward, terminated, truncated, info = env.step(a)
        steps += 1
    assert truncated and not terminated and reward == 0.0 and steps <= 6


# ---------------------------------------------------------------------- seeding, pools, render
def rollout(env, seed, games=3):
    out = []
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        done = False
        while not done:
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, r, term, trunc, info = env.step(a)
            out.append((a, r, float(obs.sum())))
            done = term or trunc
        obs, info = env.reset()
    return out


def test_seeded_reset_is_reproducible():
    a = rollout(UnoGymEnv(opponents="heuristic"), seed=5)
    b = rollout(UnoGymEnv(opponents="heuristic"), seed=5)
    c = rollout(UnoGymEnv(opponents="heuristic"), seed=6)
    assert a == b and a != c


def test_opponent_pool_drawn_per_episode():
    env = UnoGymEnv(opponents="random", opponent_pool=[("random", 1.0), (["heuristic"], 3.0)])
    seen = []
    for seed in range(40):
        env.reset(seed=seed)
        seen.append(env.seat_agents[1 - env.seat].name)
    assert set(seen) == {"random", "heuristic"} and seen.count("heuristic") > seen.count("random")
    env.set_opponent_pool(lambda rng: "greedy")
    env.reset(seed=0)
    assert env.seat_agents[1 - env.seat].name == "greedy"
    env.set_opponents("random")
    assert env.opponent_pool is None
    env.reset(seed=0)
    assert env.seat_agents[1 - env.seat].name == "random"
    assert list(env._cache) == [("random", 0)]  # agents that left the pool are dropped
    env = UnoGymEnv(num_players=3, opponents="heuristic")
    assert env.opponents[0] is not env.opponents[1]  # one (stateful) bot per seat


def test_render_ansi():
    env = UnoGymEnv(opponents="random", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "player_0" in text and "hand:" in text


def test_gymnasium_make_env_exposes_action_masks_for_sb3_contrib_by_name():
    """sb3-contrib's documented ``ActionMasker(env, "action_masks")`` works on the made env."""
    import gymnasium
    from sb3_contrib.common.wrappers import ActionMasker

    env = gymnasium.make("uno_env/Uno-v1", opponents=["random"])
    masked = ActionMasker(env, "action_masks")
    _, info = masked.reset(seed=0)
    assert (masked.action_masks() == info["action_mask"].astype(bool)).all()
    assert env.action_masks().any()


def test_step_before_reset_is_refused_without_gymnasium_order_enforcing():
    import gymnasium

    env = gymnasium.make("uno_env/Uno-v1", opponents=["random"])
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


# ---------------------------------------------------------------------- critic_state
@pytest.mark.parametrize("mode", ["info", "append"])
def test_critic_state_is_the_global_state_seen_from_the_learner(mode):
    from uno_env.game.global_state import GLOBAL_STATE_SIZE, GlobalStateEncoder
    from uno_env.game.observation import OBS_SIZE

    env = UnoGymEnv("classic", 3, opponents="random", critic_state=mode)
    plain = UnoGymEnv("classic", 3, opponents="random")
    assert env.observation_space.shape == ((OBS_SIZE + GLOBAL_STATE_SIZE,) if mode == "append" else (OBS_SIZE,))
    enc = GlobalStateEncoder(env.engine)
    obs, info = env.reset(seed=4)
    ref, _ = plain.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(20):
        state = info["state"] if mode == "info" else obs[OBS_SIZE:]
        assert (state == enc.encode(env.game_state, env.seat)).all()
        assert (obs[:OBS_SIZE] == ref).all()  # the observation itself is unchanged
        assert env.observation_space.contains(obs)
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _, term, trunc, info = env.step(a)
        ref, *_ = plain.step(a)
        if term or trunc:
            break


@pytest.mark.parametrize("bad", ["state", True, 1])
def test_bad_critic_state_is_named(bad):
    with pytest.raises(ValueError, match="critic_state"):
        UnoGymEnv(critic_state=bad)
