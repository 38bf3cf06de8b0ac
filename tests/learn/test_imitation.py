"""Demonstrations (:mod:`uno_env.learn.imitation`) and the behaviour-cloning warm start
(:func:`uno_env.learn.imitate`, ``training/train.py``'s ``imitate_*`` keys)."""

from __future__ import annotations

import tempfile
import tracemalloc

import numpy as np
import pytest

from uno_env.agents import make_agent
from uno_env.learn.imitation import collect_demonstrations
from uno_env.game import actions as A
from uno_env.game.engine import Engine
from uno_env.game.global_state import GLOBAL_STATE_SIZE, GlobalStateEncoder
from uno_env.game.observation import OBS_SIZE, ObservationEncoder
from uno_env.game.rules import make_rules


@pytest.mark.parametrize("preset,n", [("classic", 2), ("house", 3)])
def test_every_row_is_a_legal_teacher_decision_with_the_seats_outcome(preset, n):
    rules = make_rules(preset, max_steps=400)
    demos = collect_demonstrations(rules, n, decisions=300, seed=1, critic_state=True)
    assert len(demos) >= 300 and demos.games >= 1
    assert demos.observations.shape == (len(demos), OBS_SIZE)
    assert demos.states.shape == (len(demos), GLOBAL_STATE_SIZE)
    assert demos.masks[np.arange(len(demos)), demos.actions].all()  # the action was legal
    assert set(np.unique(demos.returns)) <= {1.0, -1.0 / (n - 1), 0.0}


def test_rows_are_what_the_teacher_saw_and_chose():
    """Replaying the first game with the same seeds gives the same observations, states and moves."""
    rules = make_rules("classic")
    demos = collect_demonstrations(rules, 2, decisions=1, seed=7, critic_state=True)
    engine, rng = Engine(rules, 2), np.random.default_rng(7)
    teachers = [make_agent("heuristic", rules, 2) for _ in range(2)]
    for t in teachers:
        t.reset(int(rng.integers(2 ** 31)))
    encoder, states = ObservationEncoder(engine), GlobalStateEncoder(engine)
    s = engine.new_state(rng)
    rows = {0: [], 1: []}
    while not s.game_over and not engine.truncated(s):
        p = s.actor
        obs, mask = encoder.encode(s, p), A.legal_mask(engine.legal_actions(s))
        action = teachers[p].act(obs, mask)
        rows[p].append((obs, states.encode(s, p), action))
        engine.step(s, action)
    flat = rows[0] + rows[1]  # the collection groups a game's rows seat by seat
    assert len(flat) == len(demos)
    for i, (obs, state, action) in enumerate(flat):
        assert (demos.observations[i] == obs).all() and (demos.states[i] == state).all()
        assert demos.actions[i] == action
    winner = s.winner
    assert demos.returns[0] == (1.0 if winner == 0 else -1.0)


def test_same_seed_same_demonstrations_and_bad_size_named():
    rules = make_rules("classic")
    a = collect_demonstrations(rules, 2, 200, seed=3)
    b = collect_demonstrations(rules, 2, 200, seed=3)
    assert (a.actions == b.actions).all() and (a.observations == b.observations).all() and a.states is None
    with pytest.raises(ValueError, match="decisions"):
        collect_demonstrations(rules, 2, 0, seed=3)


def test_workers_play_their_seeded_shares_and_join_them_in_order():
    """Two workers: each plays half the decisions from its own spawned seed, exactly what one
    process collecting that half with that seed plays; the rows are joined in worker order."""
    rules = make_rules("classic", max_steps=400)
    joined = collect_demonstrations(rules, 2, 301, seed=4, critic_state=True, workers=2)
    seeds = [int(s.generate_state(1)[0]) for s in np.random.SeedSequence(4).spawn(2)]
    parts = [collect_demonstrations(rules, 2, 151, seed=sd, critic_state=True) for sd in seeds]
    assert len(joined) == sum(len(p) for p in parts) >= 301
    assert joined.games == sum(p.games for p in parts)
    for name in ("observations", "masks", "actions", "returns", "states"):
        assert (getattr(joined, name) == np.concatenate([getattr(p, name) for p in parts])).all(), name
    again = collect_demonstrations(rules, 2, 301, seed=4, critic_state=True, workers=2)
    assert (again.actions == joined.actions).all()


def test_workers_hand_back_their_shares_without_a_second_copy_in_the_parent(tmp_path, monkeypatch):
    """The parent's peak (tracemalloc: numpy's buffers included) stays near one copy of the
    collection: shares come back through files read into the joined arrays, not pickled and
    concatenated (two copies); the files' folder is removed afterwards."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the shares' folder goes
    rules = make_rules("classic", max_steps=400)
    tracemalloc.start()
    try:
        demos = collect_demonstrations(rules, 2, 8000, seed=2, workers=2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    held = sum(a.nbytes for a in (demos.observations, demos.masks, demos.actions, demos.returns))
    assert peak < 1.5 * held, (peak, held)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_a_bad_number_of_workers_is_named(workers):
    with pytest.raises(ValueError, match="workers"):
        collect_demonstrations(make_rules("classic"), 2, 10, seed=0, workers=workers)


def small_model_and_demos():
    """An untrained 2-player MaskablePPO (one hidden layer of 64 on ``obs_features``) and 3,000
    heuristic decisions to fit it to."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from uno_env.envs.gym_env import UnoGymEnv
    from uno_env.learn.sb3.policy import ObsFeatures

    rules = make_rules("classic")
    model = MaskablePPO("MlpPolicy", UnoGymEnv(rules, 2, opponents="random"), seed=0, device="cpu",
                        policy_kwargs={"net_arch": [64], "features_extractor_class": ObsFeatures,
                                       "features_extractor_kwargs": {"num_players": 2}})
    return model, collect_demonstrations(rules, 2, 3000, seed=0)


def test_imitation_makes_the_policy_pick_the_teachers_moves():
    model, demos = small_model_and_demos()  # skips without sb3-contrib
    from sb3_contrib import MaskablePPO

    from uno_env.envs.gym_env import UnoGymEnv
    from uno_env.learn.sb3.imitate import imitate
    from uno_env.learn.sb3.policy import AsymmetricPolicy

    rules = make_rules("classic")
    before = imitate(model, demos, epochs=1, learning_rate=1e-9)["agreement"]  # ~ untrained
    after = imitate(model, demos, epochs=8, learning_rate=3e-3)
    assert after["agreement"] > max(0.7, before + 0.2)
    env = UnoGymEnv(rules, 2, opponents="random", critic_state="append")
    asym = MaskablePPO(AsymmetricPolicy, env, device="cpu", seed=0,
                       policy_kwargs={"num_players": 2, "net_arch": [64]})
    with pytest.raises(ValueError, match="critic_state=True"):
        imitate(asym, demos)
    # the asymmetric critic reads the global state beside the observation (joined per minibatch)
    with_states = collect_demonstrations(rules, 2, 3000, seed=0, critic_state=True)
    assert with_states.states.shape == (len(with_states), GLOBAL_STATE_SIZE)
    fit = imitate(asym, with_states, epochs=8, learning_rate=3e-3)
    assert fit["agreement"] > 0.7 and fit["value_loss"] < 1.0


def test_fitting_the_critic_alone_leaves_the_actor_as_it_was():
    """``fit_actor=False`` (a run that starts from a checkpoint's policy): the value network
    learns the returns, the actor's weights do not move, and its agreement is still measured."""
    model, demos = small_model_and_demos()
    from uno_env.learn.sb3.actor import actor_tensors
    from uno_env.learn.sb3.imitate import imitate

    _, actor = actor_tensors(model, 2)
    first = imitate(model, demos, epochs=1, learning_rate=3e-3, fit_actor=False)
    last = imitate(model, demos, epochs=6, learning_rate=3e-3, fit_actor=False)
    _, after = actor_tensors(model, 2)
    assert all(np.array_equal(actor[k], after[k]) for k in actor)
    assert last["value_loss"] < first["value_loss"] and last["agreement"] == first["agreement"] < 0.7


def test_the_progress_bar_counts_the_decisions_on_stderr_and_changes_no_row(capsys):
    rules = make_rules("classic")
    quiet = collect_demonstrations(rules, 2, 300, seed=4)
    assert capsys.readouterr().err == ""
    shown = collect_demonstrations(rules, 2, 300, seed=4, progress=True)
    err = capsys.readouterr().err
    assert "imitation: collecting" in err and "300/300" in err
    for name in ("observations", "masks", "actions", "returns"):
        assert np.array_equal(getattr(quiet, name), getattr(shown, name))


def test_dataset_demonstrations_are_the_recorded_decisions_with_their_episode_returns(tmp_path, monkeypatch):
    """``imitate_dataset``: the rows are the first whole episodes of the dataset, the
    observation before each action and its mask, and the episode's return on every row."""
    pytest.importorskip("minari")
    from helpers import small_dataset
    from uno_env.learn.imitation import check_dataset_for, dataset_demonstrations
    from uno_env.tools.dataset_read import read_dataset

    path = small_dataset(tmp_path, monkeypatch, episodes=8, seed=1)
    episodes = list(read_dataset(path).episodes())
    want = len(episodes[0]) + 1  # two episodes are read
    demos = dataset_demonstrations(check_dataset_for(path, make_rules("classic"), 2, "heuristic", want), want)
    first, second = episodes[:2]
    assert demos.games == 2 and len(demos) == len(first) + len(second)
    assert np.array_equal(demos.observations, np.concatenate([first.observations[:-1], second.observations[:-1]]))
    assert np.array_equal(demos.actions, np.concatenate([first.actions, second.actions]))
    assert demos.masks.dtype == bool and demos.masks[np.arange(len(demos)), demos.actions].all()
    assert set(demos.returns[:len(first)]) == {first.rewards.sum()} and first.rewards.sum() in (1.0, -1.0)


def test_a_dataset_that_does_not_fit_the_run_is_refused_naming_every_difference(tmp_path, monkeypatch):
    pytest.importorskip("minari")
    from helpers import small_dataset
    from uno_env.learn.imitation import check_dataset_for

    path = small_dataset(tmp_path, monkeypatch, episodes=2, seed=1)
    with pytest.raises(ValueError) as exc:
        check_dataset_for(path, make_rules("classic", hand_size=5), 3, "random", 10 ** 6)
    message = str(exc.value)
    for part in ("2 players (the run: 3)", "hand_size=7 (the run: 5)", "played by 'heuristic'",
                 "(imitate_decisions: 1,000,000)"):
        assert part in message
