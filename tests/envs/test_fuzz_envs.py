"""Hypothesis fuzzing of the envs' public API: random actions of every type (integers in and out
of range, floats, strings, None, bools, arrays...), seeds and reset options; for the vector env,
action arrays of every dtype and shape and ``reset_mask`` options. Every call either works or
raises ``ValueError`` with the state unchanged, and the env stays usable; what the vector env
accepts is exactly an integer array of one in-range id per game, read as given."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import uno_env
from uno_env.envs.gym_env import UnoGymEnv
from uno_env.game import actions as A

from fuzzing import ANY_VALUE, FAST, SLOW, JSON
from helpers import deck_cards, vector_state

CONFIGS = [("classic", 2, {}), ("classic", 3, {"uno_call": "explicit"}), ("tmnt", 3, {}),
           ("house", 4, {"uno_call": "explicit"})]
MAKERS = [uno_env.raw_env, uno_env.env]


def state_of(env):
    return (env.snapshot(), env.agent_selection, dict(env._cumulative_rewards),
            dict(env.terminations), dict(env.truncations), len(env.history))


def step_checked(env, action) -> bool:
    """Step; True if it worked, False if it was refused with ValueError (state unchanged)."""
    before = state_of(env)
    try:
        env.step(action)
        return True
    except ValueError:
        assert state_of(env) == before
        return False


def assert_usable(env) -> None:
    if not env.agents:
        env.reset(seed=0)
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        env.step(None)
    else:
        assert env.observe(agent)["action_mask"].any()
        env.step(env.legal_actions()[0])


def fuzz_aec_actions(data) -> None:
    rules, n, kw = data.draw(st.sampled_from(CONFIGS), label="config")
    make = data.draw(st.sampled_from(MAKERS), label="maker")
    env = make(rules=rules, num_players=n, max_steps=data.draw(st.sampled_from([25, 10_000])), **kw)
    env.reset(seed=data.draw(st.integers(0, 2 ** 32), label="seed"))
    for _ in range(data.draw(st.integers(1, 60), label="moves")):
        if not env.agents:
            env.reset(seed=data.draw(st.integers(0, 100)))
        agent = env.agent_selection
        dead = env.terminations[agent] or env.truncations[agent]
        kind = data.draw(st.sampled_from(["legal", "legal", "any", "id"]))
        if kind == "legal":
            action = None if dead else random.Random(data.draw(st.integers(0, 99))).choice(env.legal_actions())
            assert step_checked(env, action)
        elif kind == "id":
            step_checked(env, data.draw(st.integers(-5, A.NUM_ACTIONS + 5)))
        else:
            step_checked(env, data.draw(ANY_VALUE))
    assert_usable(env)


@FAST
@given(st.data())
def test_fuzz_aec_step_with_actions_of_every_type(data):
    fuzz_aec_actions(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_fuzz_aec_step_with_actions_of_every_type_long(data):
    fuzz_aec_actions(data)


# ---------------------------------------------------------------------- reset
def deck_options(rules: str):
    deck = deck_cards(rules)
    return st.one_of(
        st.permutations(deck),
        st.permutations(deck).map(lambda d: d[:-1]),
        st.permutations(deck).map(lambda d: d + ["red-1"]),
        st.permutations(deck).map(lambda d: ["pink-5"] + d[1:]),
        st.lists(st.sampled_from(deck), max_size=5),
        ANY_VALUE, JSON,
    )


def fuzz_reset(data, make) -> None:
    rules, n, kw = data.draw(st.sampled_from(CONFIGS), label="config")
    env = make(rules=rules, num_players=n, **kw)
    env.reset(seed=1)
    seed = data.draw(st.one_of(st.none(), st.integers(min_value=-3), ANY_VALUE), label="seed")
    options = data.draw(st.one_of(
        ANY_VALUE, JSON,
        st.fixed_dictionaries({}, optional={"deck": deck_options(rules),
                                            "dealer": st.one_of(st.integers(-2, n + 2), ANY_VALUE),
                                            "other": JSON})), label="options")
    before = env_state(env)
    try:
        env.reset(seed=seed, options=options)
    except ValueError:
        assert env_state(env) == before
    env_step_legal(env)


def env_state(env):
    if isinstance(env, UnoGymEnv):
        return env.game_state.hands.tolist(), env.game_state.steps, env.done, env.seat
    return state_of(env)


def env_step_legal(env):
    if isinstance(env, UnoGymEnv):
        env.step(int(env.action_masks().nonzero()[0][0]))
    else:
        env.step(env.legal_actions()[0])


def make_gym(rules="classic", num_players=2, **kw):
    return UnoGymEnv(rules=rules, num_players=num_players, opponents="random", **kw)


@FAST
@given(st.data())
def test_fuzz_reset_seeds_and_options(data):
    fuzz_reset(data, data.draw(st.sampled_from([uno_env.raw_env, uno_env.env, make_gym])))


@pytest.mark.slow
@SLOW
@given(st.data())
def test_fuzz_reset_seeds_and_options_long(data):
    fuzz_reset(data, data.draw(st.sampled_from([uno_env.raw_env, uno_env.env, make_gym])))


# ---------------------------------------------------------------------- the Gymnasium view
def fuzz_gym_actions(data) -> None:
    rules, n, kw = data.draw(st.sampled_from(CONFIGS), label="config")
    env = make_gym(rules, n, max_steps=data.draw(st.sampled_from([25, 10_000])), **kw)
    env.reset(seed=data.draw(st.integers(0, 2 ** 32), label="seed"))
    for _ in range(data.draw(st.integers(1, 40), label="moves")):
        if env.done:
            env.reset(seed=data.draw(st.integers(0, 100)))
        legal = np.flatnonzero(env.action_masks())
        kind = data.draw(st.sampled_from(["legal", "legal", "any", "id"]))
        action = (int(legal[data.draw(st.integers(0, len(legal) - 1))]) if kind == "legal"
                  else data.draw(st.integers(-5, A.NUM_ACTIONS + 5)) if kind == "id" else data.draw(ANY_VALUE))
        before = env_state(env)
        try:
            _, reward, terminated, truncated, info = env.step(action)
        except ValueError:
            assert env_state(env) == before
            continue
        if info.get("illegal"):
            assert (reward, terminated) == (-1.0, True)
    if env.done:
        env.reset(seed=0)
    env_step_legal(env)


@FAST
@given(st.data())
def test_fuzz_gym_step_with_actions_of_every_type(data):
    fuzz_gym_actions(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_fuzz_gym_step_with_actions_of_every_type_long(data):
    fuzz_gym_actions(data)


# ---------------------------------------------------------------------- the vector env
VECTOR_CONFIGS = [("classic", 2, {}), ("classic", 3, {"uno_call": "explicit"}), ("tmnt", 3, {})]


def make_vector(data):
    pytest.importorskip("numba")
    import gymnasium

    rules, n, kw = data.draw(st.sampled_from(VECTOR_CONFIGS), label="config")
    num_envs = data.draw(st.integers(1, 4), label="num_envs")
    env = gymnasium.make_vec("uno_env/Uno-v1", num_envs=num_envs, vectorization_mode="vector_entry_point",
                             rules=rules, num_players=n, opponents="random",
                             max_steps=data.draw(st.sampled_from([25, 10_000])), **kw).unwrapped
    env.reset(seed=data.draw(st.integers(0, 2 ** 32), label="seed"))
    return env


def any_array(num_envs: int, elements=None):
    """numpy arrays of every dtype numpy has a strategy for, of the batch's shape or any other."""
    dtypes = (hnp.integer_dtypes() | hnp.unsigned_integer_dtypes() | hnp.floating_dtypes() | hnp.boolean_dtypes()
              | hnp.complex_number_dtypes() | hnp.unicode_string_dtypes(max_len=3) | hnp.byte_string_dtypes(max_len=3)
              | hnp.datetime64_dtypes())
    shapes = st.just((num_envs,)) | hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=num_envs + 1)
    return st.one_of(hnp.arrays(dtypes, shapes), hnp.arrays(object, num_envs, elements=ANY_VALUE))


def vector_actions(num_envs: int):
    ids = st.integers(-3, A.NUM_ACTIONS + 3)
    return st.one_of(
        any_array(num_envs),
        hnp.arrays(hnp.integer_dtypes() | hnp.unsigned_integer_dtypes(), num_envs),  # any integer, any range
        st.lists(ids, min_size=num_envs, max_size=num_envs),
        st.lists(ANY_VALUE, min_size=num_envs, max_size=num_envs),
        st.lists(ids | st.booleans(), min_size=0, max_size=num_envs + 1),
        ANY_VALUE,
    )


def fuzz_vector_actions(data) -> None:
    env = make_vector(data)
    N = env.num_envs
    for _ in range(data.draw(st.integers(1, 20), label="moves")):
        masks = env.action_masks()
        kind = data.draw(st.sampled_from(["legal", "legal", "any"]))
        if kind == "legal":
            rng = np.random.default_rng(data.draw(st.integers(0, 99)))
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        else:
            actions = data.draw(vector_actions(N), label="actions")
        before = vector_state(env)
        resetting = env._autoreset.copy()
        try:
            obs, reward, terminated, truncated, info = env.step(actions)
        except ValueError:
            assert vector_state(env) == before
            continue
        # accepted: an integer array of one id per game, read exactly as given (never cast)
        arr = np.asarray(actions)
        assert arr.dtype.kind in "iu" and arr.shape == (N,)
        assert not (isinstance(actions, (list, tuple)) and any(isinstance(a, (bool, np.bool_)) for a in actions))
        assert ((arr >= 0) & (arr < A.NUM_ACTIONS)).all()
        illegal = info.get("illegal", np.zeros(N, bool))
        legal = masks[np.arange(N), arr.astype(np.int64)] == 1
        assert (illegal == (~resetting & ~legal)).all()
        assert (reward[illegal] == -1.0).all() and terminated[illegal].all()
        assert obs.shape == (N, env.single_observation_space.shape[0])
    if env._autoreset.any():
        env.step(np.zeros(N, np.int64))  # resets those games (their action is ignored)
    env.step(env.action_masks().argmax(axis=1))  # still usable


@FAST
@given(st.data())
def test_fuzz_vector_step_with_actions_of_every_dtype_and_shape(data):
    fuzz_vector_actions(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_fuzz_vector_step_with_actions_of_every_dtype_and_shape_long(data):
    fuzz_vector_actions(data)


def fuzz_vector_reset(data) -> None:
    env = make_vector(data)
    N = env.num_envs
    seed = data.draw(st.one_of(st.none(), st.integers(min_value=-3), ANY_VALUE), label="seed")
    mask = st.one_of(hnp.arrays(bool, N), hnp.arrays(bool, N).map(list), any_array(N), ANY_VALUE, JSON)
    options = data.draw(st.one_of(
        ANY_VALUE, JSON,
        st.fixed_dictionaries({}, optional={"reset_mask": mask, "other": JSON, "deck": JSON})), label="options")
    before = vector_state(env)
    try:
        obs, info = env.reset(seed=seed, options=options)
    except ValueError:
        assert vector_state(env) == before
    else:  # accepted: the contract's seeds and masks only
        assert seed is None or seed >= 0 and (type(seed) is int or isinstance(seed, np.integer) or (
            isinstance(seed, np.ndarray) and seed.shape == () and seed.dtype.kind in "iu"))
        assert options is None or set(options) <= {"reset_mask"}
        assert obs.shape[0] == N and (info["action_mask"].sum(axis=1) >= 1).all()
    env.step(env.action_masks().argmax(axis=1))


@FAST
@given(st.data())
def test_fuzz_vector_reset_seeds_and_options(data):
    fuzz_vector_reset(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_fuzz_vector_reset_seeds_and_options_long(data):
    fuzz_vector_reset(data)
