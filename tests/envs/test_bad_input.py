"""Bad input to the envs: every malformed action, seed or reset option is a ``ValueError``
naming it and changes nothing; ``env()`` keeps PettingZoo's wrapper guarantees (illegal move
= -1 and the end, call order) without the wrappers."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pettingzoo
import pytest

import uno_env
from uno_env.envs.gym_env import UnoGymEnv
from uno_env.game import actions as A

from helpers import deck_cards, vector_state

MAKERS = {"raw_env": uno_env.raw_env, "env()": uno_env.env}
NOT_INTEGERS = [52.7, 3.0, "52", "draw", None, True, False, np.float64(3.0), np.float32(1.0),
                np.bool_(True), [3], (3,), {"a": 3}, np.array([3]), np.array(3.0), np.array([[3]]),
                b"3", 3 + 0j, object()]
OUT_OF_RANGE = [-1, A.NUM_ACTIONS, 10 ** 30, -(10 ** 5000), np.int64(-5), np.uint16(200), np.array(999)]


def started(make=uno_env.raw_env, **kw):
    env = make(rules="classic", num_players=3, **kw)
    env.reset(seed=4)
    return env


def state_of(env):
    u = env.unwrapped
    return (copy.deepcopy(u.snapshot()), u.agent_selection, dict(u._cumulative_rewards),
            dict(u.terminations), dict(u.truncations), len(u.history))


def a_legal(env) -> int:
    return env.unwrapped.legal_actions()[0]


def an_illegal(env) -> int:
    legal = set(env.unwrapped.legal_actions())
    return next(a for a in range(A.NUM_ACTIONS) if a not in legal)


# ---------------------------------------------------------------------- step() input
@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_step_accepts_python_ints_numpy_integers_and_0d_integer_arrays(make):
    for convert in (int, np.int8, np.int32, np.int64, np.uint8, lambda a: np.array(a),
                    lambda a: np.array(a, dtype=np.uint16)):
        env = started(make)
        before = env.unwrapped.game_state.steps
        env.step(convert(a_legal(env)))
        assert env.unwrapped.game_state.steps == before + 1
        assert all(type(a) is int for _, a in env.unwrapped.history)


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize("action", NOT_INTEGERS, ids=lambda a: type(a).__name__ + ":" + repr(a)[:12])
def test_step_rejects_what_is_not_an_integer_naming_its_type_and_changes_nothing(make, action):
    env = started(make)
    before = state_of(env)
    with pytest.raises(ValueError, match=r"must be an integer action id in 0\.\.194.*got .*\(") as err:
        env.step(action)
    assert "player_" in str(err.value)
    assert state_of(env) == before
    env.step(a_legal(env))  # still usable


def test_step_error_hints_at_action_id_for_names_and_at_dead_steps_for_none():
    env = started()
    with pytest.raises(ValueError, match=r"got 'draw' \(str\); for an action name use env\.unwrapped\.action_id"):
        env.step("draw")
    with pytest.raises(ValueError, match="None is only for a terminated or truncated agent"):
        env.step(None)


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
@pytest.mark.parametrize("action", OUT_OF_RANGE, ids=lambda a: type(a).__name__)
def test_step_rejects_out_of_range_ids_naming_the_range_and_changes_nothing(make, action):
    env = started(make)
    before = state_of(env)
    with pytest.raises(ValueError, match=r"out of range: action ids are 0\.\.194"):
        env.step(action)
    assert state_of(env) == before
    env.step(a_legal(env))


def test_raw_env_illegal_in_range_action_raises_value_error_and_changes_nothing():
    env = started()
    before = state_of(env)
    with pytest.raises(ValueError, match=r"illegal action .* in phase 'turn'.*legal"):
        env.step(an_illegal(env))
    assert state_of(env) == before
    env.step(a_legal(env))


# ---------------------------------------------------------------------- env(): the wrapper guarantees, built in
def test_env_is_a_raw_env_with_the_wrapper_checks_built_in():
    env = uno_env.env(rules="tmnt", num_players=3)
    assert isinstance(env, uno_env.raw_env) and isinstance(env, pettingzoo.AECEnv)
    assert env.unwrapped is env and env.illegal_reward == -1.0
    assert uno_env.raw_env().illegal_reward is None
    made = pettingzoo.make("aec", "uno_env/uno-v1", rules="classic", num_players=2)
    assert made.unwrapped.illegal_reward == -1.0
    env.reset(seed=3)
    assert env.game_state is env.unwrapped.game_state and env.snapshot()["rules"] == "tmnt"
    clone = pickle.loads(pickle.dumps(env))
    assert clone.illegal_reward == -1.0
    clone.reset(seed=3)
    assert clone.snapshot() == env.snapshot()


def test_env_illegal_action_ends_episode_minus_one_for_its_player_only():
    env = started(uno_env.env)
    offender = env.agent_selection
    before = env.snapshot()
    env.step(an_illegal(env))
    assert env.snapshot() == before  # the game itself is unchanged
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.infos[offender]["illegal"] is True
    assert env.legal_actions() == []
    assert not any(env.observe(a)["action_mask"].any() for a in env.agents)
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)
    got = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        assert term and not obs["action_mask"].any()
        got[agent] = reward
        env.step(None)
    assert got == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    env.reset(seed=1)  # a new episode runs normally
    assert not any(env.terminations.values()) and env.legal_actions()


def test_illegal_reward_is_configurable_and_must_be_a_finite_number():
    env = started(uno_env.env, illegal_reward=-5)
    offender = env.agent_selection
    env.step(an_illegal(env))
    assert env.last()[1] == -5.0 and env.agent_selection == offender
    for bad in ("-1", float("nan"), float("inf"), True, [1]):
        with pytest.raises(ValueError, match="illegal_reward"):
            uno_env.raw_env(illegal_reward=bad)


@pytest.mark.parametrize("make", MAKERS.values(), ids=MAKERS.keys())
def test_calls_before_reset_are_clear_errors(make):
    env = make(rules="classic", num_players=2)
    for call, name in ((lambda: env.step(0), "step"), (lambda: env.observe("player_0"), "observe"),
                       (lambda: env.last(), "last"), (lambda: env.agent_iter(), "agent_iter"),
                       (lambda: env.legal_actions(), "legal_actions"), (lambda: env.snapshot(), "snapshot"),
                       (lambda: env.state(), "state")):
        with pytest.raises(RuntimeError, match=rf"reset\(\) needs to be called before {name}"):
            call()
    for attr in ("agents", "rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents"):
        assert not hasattr(env, attr)
    env.reset(seed=0)
    env.step(a_legal(env))


def test_agent_iter_needs_one_step_per_agent():
    env = started(uno_env.env)
    it = iter(env.agent_iter())
    next(it)
    with pytest.raises(RuntimeError, match="call step"):
        next(it)
    for _ in env.agent_iter(max_iter=3):  # a fresh loop starts afresh
        env.step(a_legal(env))


def test_step_after_every_agent_stepped_out_is_a_clear_error():
    env = started(uno_env.env)
    env.step(an_illegal(env))
    while env.agents:
        env.step(None)
    with pytest.raises(RuntimeError, match="every agent has been stepped out"):
        env.step(None)
    with pytest.raises(RuntimeError, match="every agent has been stepped out"):
        env.last()
    env.reset(seed=2)
    env.step(a_legal(env))


def test_observe_unknown_agent_is_a_value_error():
    env = started()
    with pytest.raises(ValueError, match="unknown agent 'player_9'"):
        env.observe("player_9")


# ---------------------------------------------------------------------- reset() input
BAD_RESETS = [
    ({"seed": -1}, "seed must be None or an integer >= 0"),
    ({"seed": 1.5}, "seed must be None or an integer >= 0"),
    ({"seed": "3"}, "seed must be None or an integer >= 0"),
    ({"seed": True}, "seed must be None or an integer >= 0"),
    ({"options": "dealer=1"}, "reset options must be a dict"),
    ({"options": [("dealer", 1)]}, "reset options must be a dict"),
    ({"options": {"dealer": 1.5}}, r"'dealer' must be a seat in 0\.\.2.*1\.5 \(float\)"),
    ({"options": {"dealer": "1"}}, r"'dealer' must be a seat in 0\.\.2.*'1' \(str\)"),
    ({"options": {"dealer": 3}}, r"'dealer' must be a seat in 0\.\.2"),
    ({"options": {"dealer": -1}}, r"'dealer' must be a seat in 0\.\.2"),
    ({"options": {"dealer": True}}, r"'dealer' must be a seat"),
    ({"options": {"deck": "red-1 red-2"}}, "'deck': a deck must be a list of card strings"),
    ({"options": {"deck": [1, 2, 3]}}, "'deck': a deck must be a list of card strings"),
    ({"options": {"deck": ["pink-5"] * 108}}, r"unknown cards \['pink-5'\]"),
    ({"options": {"deck": ["red-1"] * 108}}, "is not the 'classic' deck"),
    ({"options": {"deck": deck_cards("classic")[:-1]}}, "is not the 'classic' deck"),
]


@pytest.mark.parametrize("kwargs,message", BAD_RESETS, ids=[m[:30] for _, m in BAD_RESETS])
def test_bad_reset_seed_or_options_are_value_errors_and_keep_the_episode(kwargs, message):
    env = started()
    env.step(a_legal(env))
    before = state_of(env)
    rng_before = env.np_random.bit_generator.state
    with pytest.raises(ValueError, match=message):
        env.reset(**{"seed": 0, **kwargs})
    assert state_of(env) == before and env.np_random.bit_generator.state == rng_before
    env.step(a_legal(env))


def test_reset_accepts_numpy_seeds_and_dealers_and_the_pettingzoo_api_test_probe():
    env = uno_env.raw_env(rules="classic", num_players=3)
    env.reset(seed=np.int64(7), options={"dealer": np.int32(2), "options": 1})  # api_test's probe
    assert env.game_state.dealer == 2
    other = uno_env.raw_env(rules="classic", num_players=3)
    other.reset(seed=7, options={"dealer": 2})
    assert other.snapshot() == env.snapshot()


def make_vector(rules="classic", num_players=3):
    pytest.importorskip("numba")
    import gymnasium

    return gymnasium.make_vec("uno_env/Uno-v1", num_envs=2, vectorization_mode="vector_entry_point",
                              rules=rules, num_players=num_players, opponents="random")


RESETTERS = {"raw_env": uno_env.raw_env, "env()": uno_env.env,
             "gym": lambda **kw: UnoGymEnv(opponents="random", **kw), "vector": make_vector}
TYPOS = [({"dek": deck_cards("classic")}, "'dek'"), ({"dealer": 0, "Dealer": 1}, "'Dealer'"),
         ({"seed": 3}, "'seed'"), ({1: 2}, "1"), ({"reset_mask": None, "mask": None}, "'mask'")]


@pytest.mark.parametrize("make", RESETTERS.values(), ids=RESETTERS.keys())
@pytest.mark.parametrize("options,named", TYPOS, ids=[m for _, m in TYPOS])
def test_unknown_reset_option_keys_are_value_errors_naming_them(make, options, named):
    env = make(rules="classic", num_players=3)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=rf"unknown reset option\(s\) \[.*{named}.*\].*; reset options: '"):
        env.reset(seed=2, options=options)


@pytest.mark.parametrize("make,typo,meant", [(uno_env.raw_env, "dek", "deck"), (RESETTERS["gym"], "deeler", "dealer"),
                                             (make_vector, "reset_mak", "reset_mask")])
def test_a_reset_option_typo_names_the_option_meant(make, typo, meant):
    env = make(rules="classic", num_players=3)
    with pytest.raises(ValueError, match=rf"\['{typo}'\] \(did you mean '{meant}'\?\)"):
        env.reset(seed=2, options={typo: None})


@pytest.mark.parametrize("make", RESETTERS.values(), ids=RESETTERS.keys())
def test_a_refused_reset_option_keeps_the_episode(make):
    env = make(rules="classic", num_players=3)
    env.reset(seed=1)
    u = env.unwrapped
    before = (u.np_random.bit_generator.state, env_state(env))
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(seed=2, options={"dek": deck_cards("classic")})
    assert (u.np_random.bit_generator.state, env_state(env)) == before


def env_state(env) -> list:
    u = env.unwrapped
    if hasattr(u.engine, "st"):  # the vector env
        return vector_state(env)
    return [u.game_state.hands.tolist(), u.game_state.steps]


# ---------------------------------------------------------------------- the Gymnasium view
def gym_env(**kw):
    env = UnoGymEnv(rules="classic", num_players=2, opponents="random", seat=0, **kw)
    env.reset(seed=3)
    return env


@pytest.mark.parametrize("action", NOT_INTEGERS + OUT_OF_RANGE, ids=lambda a: type(a).__name__)
def test_gym_step_rejects_malformed_actions_and_changes_nothing(action):
    env = gym_env()
    before = (copy.deepcopy(env.game_state.hands), env.game_state.steps, env.done)
    with pytest.raises(ValueError, match=r"action.*(must be an integer action id|out of range)"):
        env.step(action)
    assert (env.game_state.hands.tolist(), env.game_state.steps, env.done) == \
        (before[0].tolist(), before[1], before[2])
    env.step(int(env.action_masks().nonzero()[0][0]))


def test_gym_legal_range_illegal_action_still_ends_the_episode_with_minus_one():
    env = gym_env()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(np.int64(illegal))
    assert (reward, terminated, truncated, info["illegal"]) == (-1.0, True, False, True)


@pytest.mark.parametrize("kwargs,message", BAD_RESETS[:11], ids=[m[:30] for _, m in BAD_RESETS[:11]])
def test_gym_bad_reset_seed_or_options_are_value_errors(kwargs, message):
    env = UnoGymEnv(rules="classic", num_players=3, opponents="random", seat=0)
    env.reset(seed=1)
    before = env.game_state.hands.copy()
    with pytest.raises(ValueError, match=message):
        env.reset(**{"seed": 0, **kwargs})
    assert (env.game_state.hands == before).all() and not env.done
    env.step(int(env.action_masks().nonzero()[0][0]))
