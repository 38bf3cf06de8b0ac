"""The batched Gymnasium vector env: make_vec, spaces, masks, next-step autoreset, opponents.

Its observations equal the scalar encoder's (layout 1; with ``layout=0`` its first 1254
entries) for the same state, under every ruleset (the engine equality itself is tested in
tests/game/test_batched_engine.py); an episode of game ``i`` plays like a
``Uno-v1`` episode: rewards at the end, -1 for an illegal action, truncation at max_steps.
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
from uno_env.game.global_state import GLOBAL_STATE_SIZE, GlobalStateEncoder  # noqa: E402
from uno_env.game.observation import OBS_SIZE, V0_SIZE, ObservationEncoder  # noqa: E402

from helpers import vector_state  # noqa: E402


def make(n_envs=8, **kwargs):
    kwargs.setdefault("num_players", 2)
    return gymnasium.make_vec("uno_env/Uno-v1", num_envs=n_envs, vectorization_mode="vector_entry_point",
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


@pytest.mark.parametrize("rules,n,overrides", [("classic", 3, {"uno_call": "explicit"}), ("house", 4, {}),
                                               ("classic-stacking-jumpin", 2, {"uno_call": "explicit"})])
def test_observations_equal_the_scalar_encoder_for_the_learner_seat(rules, n, overrides):
    env = make(6, rules=rules, num_players=n, seat="random", **overrides).unwrapped
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    engine = Engine(env.rules, n)
    encoder = ObservationEncoder(engine)
    for _ in range(30):
        for b in range(env.num_envs):
            # rebuild the scalar state of game b from the batched one and encode it
            s = engine.new_state(np.random.default_rng(0))
            _load(s, env.engine.game_state(b))
            np.testing.assert_array_equal(obs[b], encoder.encode(s, int(env.seats[b]))[:OBS_SIZE])
            assert state_dict(s) == env.engine.game_state(b)
        obs, _, _, _, info = env.step(random_legal(rng, info["action_mask"]))


@pytest.mark.parametrize("rules,n", [("classic", 2), ("house", 4)])
def test_the_critic_state_is_the_global_state_seen_from_the_learner_as_in_the_scalar_env(rules, n):
    """``critic_state``: "info" gives ``info["state"]``, "append" appends it to the observation;
    both are ``GlobalStateEncoder.encode(state, learner seat)``, as ``UnoGymEnv``'s."""
    envs = {mode: make(4, rules=rules, num_players=n, critic_state=mode).unwrapped for mode in ("info", "append")}
    assert envs["append"].single_observation_space.shape == (OBS_SIZE + GLOBAL_STATE_SIZE,)
    out = {mode: env.reset(seed=5) for mode, env in envs.items()}
    engine = Engine(envs["info"].rules, n)
    state_encoder = GlobalStateEncoder(engine)
    rng = np.random.default_rng(1)
    for _ in range(25):
        (obs, info), (both, _) = out["info"][:2], out["append"][:2]
        np.testing.assert_array_equal(both[:, :OBS_SIZE], obs)
        np.testing.assert_array_equal(both[:, OBS_SIZE:], info["state"])
        for b in range(4):
            s = engine.new_state(np.random.default_rng(0))
            _load(s, envs["info"].engine.game_state(b))
            np.testing.assert_array_equal(info["state"][b], state_encoder.encode(s, int(envs["info"].seats[b])))
        actions = random_legal(rng, info["action_mask"])
        out = {mode: env.step(actions)[::4] for mode, env in envs.items()}  # (obs, info)
    with pytest.raises(ValueError, match="critic_state must be one of"):
        make(2, critic_state="both")


def _load(s, d):
    """Copy a batched game_state dict into a scalar State (the fields the encoder reads)."""
    s.hands[:] = np.array(d["hands"], np.int16)
    s.held = list(d["held"])
    s.hand_size = list(d["hand_size"])
    s.draw_pile, s.discard = list(d["draw_pile"]), list(d["discard"])
    s.played[:] = d["played"]
    s.known[:] = np.array(d["known"])
    s.history[:] = np.array(d["history"])
    for k in ("known_any", "color", "direction", "dealer", "turn", "actor", "phase", "pending", "pending_kind",
              "skip", "last_player", "wd4_player", "wd4_guilty", "wd4_color", "drawn", "drawn_from_offer",
              "asked", "discards_left", "offender", "round", "round_winner", "steps", "turns", "game_over",
              "winner"):
        setattr(s, k, d[k])
    s.queue, s.answers, s.offers = list(d["queue"]), list(d["answers"]), list(d["offers"])
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
            # the next step resets those games and ignores their action (an id their all-zero mask
            # forbids): reward 0, not done, a fresh decision
            ignored = np.where(done, A.NUM_ACTIONS - 1, random_legal(rng, info["action_mask"]))
            obs2, reward2, term2, trunc2, info2 = env.step(ignored)
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


@pytest.mark.parametrize("layout", [1, 0])
def test_checkpoint_opponent_plays_inside_the_batch(layout, tmp_path):
    # the shipped classic-2p (layout 1), and a policy of layout 0 (reads the first 1254 entries)
    from helpers import layout0_checkpoint

    path = "checkpoints/classic-2p"
    if layout == 0:
        layout0_checkpoint(tmp_path)
        path = str(tmp_path)
    env = make(16, opponents=[f"checkpoint:{path}"])
    obs, info = env.reset(seed=7)
    for _ in range(20):
        obs, *_rest, info = env.step(first_legal(info["action_mask"]))
    assert obs.shape == (16, OBS_SIZE)


def test_layout_0_observations_are_the_first_1254_entries_of_layout_1():
    obs = {}
    for layout in (0, 1):
        env = make(4, layout=layout)
        assert env.single_observation_space.shape == ((V0_SIZE,) if layout == 0 else (OBS_SIZE,))
        obs[layout], _ = env.reset(seed=2)
    np.testing.assert_array_equal(obs[0], obs[1][:, :V0_SIZE])


def test_make_vec_plays_house_rules_to_the_end_of_episodes():
    env = make(16, rules="house", num_players=4, opponents=["random"])
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    ended = 0
    for _ in range(300):
        obs, reward, term, trunc, info = env.step(random_legal(rng, info["action_mask"]))
        assert obs.shape == (16, OBS_SIZE) and obs in env.observation_space
        ended += int(term.sum())
    assert ended > 0


def test_layout_1_checkpoint_opponent_plays_and_is_refused_only_on_layout_0(tmp_path):
    from helpers import random_checkpoint

    random_checkpoint(tmp_path)  # written today: observation layout 1
    env = make(2, opponents=[f"checkpoint:{tmp_path}"])
    obs, info = env.reset(seed=1)
    env.step(first_legal(info["action_mask"]))
    with pytest.raises(ValueError, match="layout 1 .*1537 entries.*engine gives layout 0 .*use layout=1"):
        make(2, opponents=[f"checkpoint:{tmp_path}"], layout=0)
    from uno_env.tools.batched_eval import evaluate_batched

    assert evaluate_batched(f"checkpoint:{tmp_path}", "random", games=2, batch=2)["games"] == 2


def test_partial_reset_with_a_mask_keeps_the_other_games():
    env = make(4).unwrapped
    env.reset(seed=8)
    before = [env.engine.game_state(b) for b in range(4)]
    env.reset(options={"reset_mask": np.array([True, False, True, False])})
    after = [env.engine.game_state(b) for b in range(4)]
    assert after[1] == before[1] and after[3] == before[3]


@pytest.mark.parametrize("bad, match", [
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

    code = "import sys, uno_env, gymnasium; gymnasium.make('uno_env/Uno-v1'); assert 'numba' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------- inputs: the contract of uno_env.envs.checks
N_BAD = 4
NOT_ACTION_IDS = {  # name: (actions for 4 games, what the error names)
    "52.7 as a float": (np.full(N_BAD, 52.7), "dtype float64"),
    "whole floats": (np.full(N_BAD, 3.0), "dtype float64"),
    "float32": (np.zeros(N_BAD, np.float32), "dtype float32"),
    "'18' as a string": (np.array(["18"] * N_BAD), "dtype <U2"),
    "a list of strings": (["18"] * N_BAD, "dtype <U2"),
    "a list of floats": ([52.7] * N_BAD, "dtype float64"),
    "bools": (np.ones(N_BAD, bool), "dtype bool"),
    "a bool in a list": ([True, 0, 0, 0], "got a bool in"),
    "objects": (np.array([1, None, 2, 3], dtype=object), "dtype object"),
    "None": (None, "dtype object"),
    "a string": ("draw", "dtype <U4"),
    "complex": (np.zeros(N_BAD, complex), "dtype complex128"),
    "a ragged list": ([1, [2, 3], 4, 5], r"must be integers, got \[1, \[2, 3\], 4, 5\] \(list: "),
    "too few": (np.zeros(N_BAD - 1, np.int64), r"shape \(4,\).*got shape \(3,\)"),
    "too many": (np.zeros(N_BAD + 1, np.int64), r"got shape \(5,\)"),
    "a column": (np.zeros((N_BAD, 1), np.int64), r"got shape \(4, 1\)"),
    "a scalar": (np.int64(3), r"got shape \(\)"),
    "-1": (np.array([0, 0, -1, 0]), r"action -1 of the learner in game 2 is out of range: action ids are 0\.\.194"),
    "195": (np.array([0, 195, 0, 0]), r"action 195 of the learner in game 1 is out of range"),
    "a huge uint64": (np.array([0, 0, 0, 2 ** 64 - 1], np.uint64), r"action <integer of 64 bits> of the learner in game 3 is out of range"),
    "a huge Python int": ([0, 0, 10 ** 30, 0], "dtype object"),
    "an int8 -1": (np.array([0, -1, 0, 0], np.int8), r"action -1 .*game 1 is out of range"),
}


@pytest.mark.parametrize("actions,named", NOT_ACTION_IDS.values(), ids=NOT_ACTION_IDS.keys())
def test_step_refuses_what_is_not_one_action_id_per_game_and_changes_nothing(actions, named):
    env = make(N_BAD, num_players=3)
    obs, info = env.reset(seed=3)
    env.step(first_legal(info["action_mask"]))
    before = vector_state(env)
    with pytest.raises(ValueError, match=named):
        env.step(actions)
    assert vector_state(env) == before
    env.step(first_legal(env.unwrapped.action_masks()))  # still usable


def test_an_out_of_range_id_is_a_value_error_not_an_illegal_move():
    env = make(2)
    obs, info = env.reset(seed=4)
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([A.NUM_ACTIONS, 0]))
    actions = first_legal(info["action_mask"])
    actions[1] = np.flatnonzero(info["action_mask"][1] == 0)[0]  # in range, but not legal: the move ends it
    _, reward, term, _, info = env.step(actions)
    assert term[1] and reward[1] == -1.0 and info["illegal"][1] and not info["illegal"][0]


@pytest.mark.parametrize("convert", [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64,
                                     lambda a: [int(x) for x in a], tuple],
                         ids=["int8", "uint8", "int16", "int32", "uint32", "int64", "uint64", "list", "tuple"])
def test_step_takes_every_integer_dtype_and_lists_of_ints_alike(convert):
    def run(to):
        env = make(4, num_players=3)
        obs, info = env.reset(seed=5)
        out = []
        for _ in range(12):
            obs, reward, term, trunc, info = env.step(to(np.asarray(first_legal(info["action_mask"]))))
            out.append((obs.copy(), reward.copy(), term.copy()))
        return out

    reference = run(lambda a: a.astype(np.int64))
    got = run(lambda a: np.asarray(a).astype(convert) if isinstance(convert, type) and issubclass(convert, np.generic)
              else convert(a))
    assert all(np.array_equal(x, y) for r, g in zip(reference, got) for x, y in zip(r, g))


BAD_VECTOR_RESETS = {
    "seed -1": (dict(seed=-1), "seed must be None or an integer >= 0, got -1"),
    "seed 1.5": (dict(seed=1.5), r"seed must be None or an integer >= 0, got 1\.5 \(float\)"),
    "seed '3'": (dict(seed="3"), r"seed must be None or an integer >= 0, got '3' \(str\)"),
    "seed True": (dict(seed=True), "seed must be None or an integer >= 0"),
    "seed list": (dict(seed=[1, 2]), "seed must be None or an integer >= 0"),
    "options 'x'": (dict(options="x"), r"reset options must be a dict \(keys 'reset_mask'\), got 'x' \(str\)"),
    "options list": (dict(options=[("reset_mask", None)]), "reset options must be a dict"),
    "mask of ints": (dict(options={"reset_mask": np.array([1, 0, 1, 0])}), "must be booleans of shape.*int64"),
    "mask list of ints": (dict(options={"reset_mask": [1, 0, 1, 0]}), "must be booleans"),
    "mask too short": (dict(options={"reset_mask": np.ones(3, bool)}), r"shape \(4,\).*shape \(3,\)"),
    "mask all False": (dict(options={"reset_mask": np.zeros(4, bool)}), "at least one game"),
    "mask a string": (dict(options={"reset_mask": "all"}), "must be booleans"),
}


@pytest.mark.parametrize("kwargs,named", BAD_VECTOR_RESETS.values(), ids=BAD_VECTOR_RESETS.keys())
def test_bad_reset_seeds_and_options_are_value_errors_and_change_nothing(kwargs, named):
    env = make(4, num_players=3)
    obs, info = env.reset(seed=6)
    env.step(first_legal(info["action_mask"]))
    before = vector_state(env)
    with pytest.raises(ValueError, match=named):
        env.reset(**{"seed": 7, **kwargs})
    assert vector_state(env) == before
    env.step(first_legal(env.unwrapped.action_masks()))


def test_reset_takes_numpy_seeds_and_a_boolean_list_mask():
    a, b = make(4).unwrapped, make(4).unwrapped
    a.reset(seed=np.uint32(9))
    b.reset(seed=9)
    assert [a.engine.game_state(i) for i in range(4)] == [b.engine.game_state(i) for i in range(4)]
    before = a.engine.game_state(1)
    a.reset(options={"reset_mask": [True, False, True, True]})
    assert a.engine.game_state(1) == before


def test_a_callable_opponent_returning_floats_is_a_value_error_naming_it():
    env = make(4, opponents=[lambda obs, masks: masks.argmax(axis=1) + 0.5])
    with pytest.raises(ValueError, match=r"actions of an opponent policy \(action ids in 0\.\.194, one per game\) must be integers.*float64"):
        for seed in range(20):  # the opponent decides before the learner in some deal
            env.reset(seed=seed)
            env.step(first_legal(env.unwrapped.action_masks()))


def test_step_before_reset_is_the_runtime_error_of_every_env():
    env = make(2)
    with pytest.raises(RuntimeError, match=r"reset\(\) needs to be called before step\(\)"):
        env.step(np.zeros(2, np.int64))
