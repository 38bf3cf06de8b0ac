"""The batched Gymnasium vector env: make_vec, spaces, masks, next-step autoreset, opponents.

Its observations equal the first 1254 entries (layout 0) of the scalar encoder's for the same
state (the engine equality itself
is tested in tests/game/test_batched_engine.py); an episode of game ``i`` plays like a
``Uno-v0`` episode: rewards at the end, -1 for an illegal action, truncation at max_steps.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

pytest.importorskip("numba")

import uno_env  # noqa: E402,F401  (registers the ids)
from uno_env.game import actions as A  # noqa: E402
from uno_env.game.batched import state_dict  # noqa: E402
from uno_env.game.engine import Engine  # noqa: E402
from uno_env.game.observation import V0_SIZE as OBS_SIZE  # noqa: E402  (the batched engine: layout 0)
from uno_env.game.observation import ObservationEncoder  # noqa: E402


def make(n_envs=8, **kwargs):
    kwargs.setdefault("num_players", 2)
    return gymnasium.make_vec("uno_env/Uno-v0", num_envs=n_envs, vectorization_mode="vector_entry_point",
                              **kwargs)


def first_legal(masks: np.ndarray) -> np.ndarray:
    return masks.argmax(axis=1)


def random_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])


def test_make_vec_returns_a_vector_env_with_batched_spaces():
    env = make(8, rules="tmnt", num_players=3, opponents=["random"])
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.num_envs == 8
    assert env.observation_space.shape == (8, OBS_SIZE)
    assert env.single_action_space == gymnasium.spaces.Discrete(A.NUM_ACTIONS)
    obs, info = env.reset(seed=0)
    assert obs.shape == (8, OBS_SIZE) and obs.dtype == np.float32
    assert info["action_mask"].shape == (8, A.NUM_ACTIONS) and info["action_mask"].dtype == np.int8
    assert (info["action_mask"].sum(axis=1) >= 1).all()
    assert (env.unwrapped.action_masks() == info["action_mask"].astype(bool)).all()
    assert obs in env.observation_space
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP


def test_observations_equal_the_scalar_encoder_for_the_learner_seat():
    env = make(6, rules="classic", num_players=3, uno_call="explicit", seat="random").unwrapped
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    engine = Engine(env.rules, 3)
    encoder = ObservationEncoder(engine)
    for _ in range(30):
        for b in range(env.num_envs):
            # rebuild the scalar state of game b from the batched one and encode it
            s = engine.new_state(np.random.default_rng(0))
            _load(s, env.engine.game_state(b))
            np.testing.assert_array_equal(obs[b], encoder.encode(s, int(env.seats[b]))[:OBS_SIZE])
            assert state_dict(s) == env.engine.game_state(b)
        obs, _, _, _, info = env.step(random_legal(rng, info["action_mask"]))


def _load(s, d):
    """Copy a batched game_state dict into a scalar State (the fields the encoder reads)."""
    s.hands[:] = np.array(d["hands"], np.int16)
    s.held = list(d["held"])
    s.hand_size = list(d["hand_size"])
    s.draw_pile, s.discard = list(d["draw_pile"]), list(d["discard"])
    s.played[:] = d["played"]
    s.known[:] = np.array(d["known"])
    for k in ("known_any", "color", "direction", "dealer", "turn", "actor", "phase", "pending", "pending_kind",
              "skip", "last_player", "wd4_player", "wd4_guilty", "drawn", "discards_left", "offender",
              "round", "round_winner", "steps", "turns", "game_over", "winner"):
        setattr(s, k, d[k])
    s.queue = list(d["queue"])
    s.answers = [(-1, A.CATCH)] if d["caught"] else []
    s.uno_called, s.scores, s.round_points = list(d["uno_called"]), list(d["scores"]), list(d["round_points"])


def test_episodes_end_with_scalar_rewards_then_autoreset_on_the_next_step():
    env = make(32, rules="classic", num_players=2, opponents="random")
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(400):
        actions = random_legal(rng, info["action_mask"])
        obs, reward, term, trunc, info = env.step(actions)
        done = term | trunc
        assert set(np.unique(reward[term])) <= {1.0, -1.0}
        assert (reward[~done] == 0).all()
        assert (info["action_mask"][done] == 0).all()  # nothing to decide in a finished game
        if done.any():
            ended += int(done.sum())
            won = term & (reward > 0)
            assert (info["winner"][won] == info["seat"][won]).all()
            assert (info["winner"][term & (reward < 0)] != info["seat"][term & (reward < 0)]).all()
            # the next step resets those games: reward 0, not done, a fresh decision
            obs2, reward2, term2, trunc2, info2 = env.step(np.where(done, 9999, random_legal(rng, info["action_mask"])))
            assert (reward2[done] == 0).all() and not (term2[done] | trunc2[done]).any()
            assert (info2["action_mask"][done].sum(axis=1) >= 1).all()
            obs, info = obs2, info2
    assert ended > 0


def test_an_illegal_action_ends_that_episode_with_minus_one():
    env = make(4)
    obs, info = env.reset(seed=2)
    actions = first_legal(info["action_mask"])
    bad = np.flatnonzero(info["action_mask"][0] == 0)[0]
    actions[0] = bad
    obs, reward, term, trunc, info = env.step(actions)
    assert term[0] and reward[0] == -1.0 and info["illegal"][0]
    assert not info["illegal"][1:].any()


def test_truncation_at_max_steps_gives_reward_zero():
    env = make(16, max_steps=6)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    seen = False
    for _ in range(8):
        obs, reward, term, trunc, info = env.step(random_legal(rng, info["action_mask"]))
        assert (reward[trunc] == 0).all() and not (term & trunc).any()
        seen |= trunc.any()
    assert seen


def test_same_seed_gives_the_same_trajectory():
    def run():
        env = make(8, num_players=3)
        obs, info = env.reset(seed=11)
        out = [obs.copy()]
        for _ in range(20):
            obs, r, *_rest, info = env.step(first_legal(info["action_mask"]))
            out.append(obs.copy())
        return np.stack(out)

    assert np.array_equal(run(), run())


def test_a_callable_policy_opponent_is_called_once_per_batch():
    calls = []

    def policy(obs, masks):
        assert obs.shape[1] == OBS_SIZE and masks.shape == (len(obs), A.NUM_ACTIONS)
        calls.append(len(obs))
        return masks.argmax(axis=1)

    env = make(64, opponents=[policy])
    obs, info = env.reset(seed=5)
    for _ in range(10):
        n_before = len(calls)
        obs, *_rest, info = env.step(first_legal(info["action_mask"]))
        # one call per opponent decision round, covering many games at once
        assert len(calls) - n_before <= 8
    assert max(calls) > 1


def test_scripted_bot_specs_play_game_by_game():
    env = make(4, num_players=3, opponents=["heuristic", "greedy"])
    obs, info = env.reset(seed=6)
    for _ in range(10):
        obs, *_rest, info = env.step(first_legal(info["action_mask"]))
    assert (info["action_mask"].sum(axis=1) >= 0).all()


def test_checkpoint_opponent_plays_inside_the_batch():
    pytest.importorskip("sb3_contrib")
    env = make(16, opponents=["checkpoint:checkpoints/classic-2p-layout0"])
    obs, info = env.reset(seed=7)
    for _ in range(20):
        obs, *_rest, info = env.step(first_legal(info["action_mask"]))
    assert obs.shape == (16, OBS_SIZE)


def test_observations_are_the_layout_0_prefix():
    """The batched engine keeps no public history: its observations are layout 0 (the first
    1254 entries of the scalar observation)."""
    env = make(2)
    assert env.single_observation_space.shape == (1254,)


def test_layout_1_checkpoint_opponent_is_refused(tmp_path):
    from helpers import random_checkpoint

    random_checkpoint(tmp_path)  # written today: observation layout 1
    with pytest.raises(ValueError, match="layout 1 .*1537 entries.*batched engine gives layout 0"):
        make(2, opponents=[f"checkpoint:{tmp_path}"])
    from uno_env.tools.batched_eval import evaluate_batched

    with pytest.raises(ValueError, match="layout 1 .*batched engine gives layout 0"):
        evaluate_batched(f"checkpoint:{tmp_path}", "random", games=2, batch=2)


def test_partial_reset_with_a_mask_keeps_the_other_games():
    env = make(4).unwrapped
    env.reset(seed=8)
    before = [env.engine.game_state(b) for b in range(4)]
    env.reset(options={"reset_mask": np.array([True, False, True, False])})
    after = [env.engine.game_state(b) for b in range(4)]
    assert after[1] == before[1] and after[3] == before[3]


@pytest.mark.parametrize("bad, match", [
    (dict(rules="house"), "stacking"),
    (dict(opponents=["nobody"]), "unknown agent spec"),
    (dict(opponents=["random", "random"]), "opponents must hold"),
    (dict(seat=5), "seat must be"),
])
def test_bad_arguments_are_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        make(2, **bad)


def test_importing_the_package_does_not_import_numba():
    import subprocess
    import sys

    code = "import sys, uno_env, gymnasium; gymnasium.make('uno_env/Uno-v0'); assert 'numba' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
