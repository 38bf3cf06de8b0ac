"""The batched collector of ``uno-dataset`` (:mod:`uno_env.tools.dataset_batched`): the very
episodes of the scalar collector for the same arguments (seeds, observations, masks, actions,
rewards, ends, in the same order), whatever the batch; which line-ups play there; and
``--engine``'s choice and refusal."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from uno_env.game.rules import make_rules  # noqa: E402
from uno_env.tools.dataset import choose_engine, play_episodes, seat_specs  # noqa: E402
from uno_env.tools.dataset_batched import play_episodes_batched, why_not_batched  # noqa: E402

FIELDS = ("seed", "observations", "actions", "rewards", "terminations", "truncations", "masks", "seats")


def assert_same_episodes(rules, n, agents, seed=11, batch=5, **options):
    """Both collectors' episodes for the same arguments, field for field; returns the scalar ones."""
    agents = seat_specs(agents, n)
    scalar = list(play_episodes(rules, n, agents, seed, **options))
    batched = list(play_episodes_batched(rules, n, agents, seed, batch=batch, **options))
    assert len(batched) == len(scalar)
    for i, (x, y) in enumerate(zip(scalar, batched)):
        for field in FIELDS:
            assert np.array_equal(getattr(x, field), getattr(y, field)), f"episode {i}: {field} differs"
    return scalar


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("agent", ["heuristic", "random"])
def test_batched_and_scalar_collectors_give_identical_episodes_for_the_same_seed(agent, n):
    episodes = assert_same_episodes(make_rules("classic"), n, [agent], episodes=12)
    assert len({e.seed for e in episodes}) == 12 and any(e.rewards[-1] > 0 for e in episodes)


@pytest.mark.parametrize("preset,n", [("house", 4), ("classic-stacking-jumpin", 3), ("tmnt", 2)])
def test_a_mixed_line_up_of_every_compiled_bot_is_identical_in_every_preset(preset, n):
    """random and uniform (on the scalar agents' Mersenne Twister), greedy and heuristic with
    options, in rulesets with jump-in, stacking, giving and challenges."""
    agents = ["uniform", "random", "greedy", "heuristic:attack=0.5"][:n] if n < 4 else \
        ["random", "uniform", "heuristic:attack=0.5", "greedy"]
    assert_same_episodes(make_rules(preset), n, agents, episodes=8, batch=3)


def test_decisions_end_at_the_same_whole_episode_as_the_scalar_collector():
    episodes = assert_same_episodes(make_rules("classic"), 2, ["heuristic"], decisions=150, batch=7)
    steps = [len(e) for e in episodes]
    assert sum(steps) >= 150 > sum(steps[:-1])


def test_a_fixed_seat_and_the_learner_step_cap_truncate_as_the_env():
    episodes = assert_same_episodes(make_rules("classic"), 3, ["random"], episodes=6, seat=2, max_learner_steps=3)
    assert all((e.seats == 2).all() for e in episodes)
    assert any(e.truncations[-1] and len(e) == 3 and not e.masks[-1].any() for e in episodes)


def test_episodes_come_out_in_order_whatever_the_batch():
    rules = make_rules("classic")
    one = list(play_episodes_batched(rules, 2, ["random", "heuristic"], 4, episodes=9, batch=1))
    many = list(play_episodes_batched(rules, 2, ["random", "heuristic"], 4, episodes=9, batch=64))
    assert [e.seed for e in one] == [e.seed for e in many]
    assert all(np.array_equal(x.actions, y.actions) and np.array_equal(x.observations, y.observations)
               for x, y in zip(one, many))


def test_a_deterministic_policy_plays_batched_as_in_the_env():
    assert_same_episodes(make_rules("classic"), 2, ["pretrained:classic-2p", "heuristic"], episodes=4)
    assert_same_episodes(make_rules("classic"), 2, ["heuristic", "pretrained:classic-2p"], episodes=4)


def test_why_not_batched_names_the_agent_that_cannot_play_there():
    rules = make_rules("classic")
    assert why_not_batched(["heuristic", "random", "uniform", "greedy"], rules, 4) is None
    assert why_not_batched(["pretrained:classic-2p#sample", "heuristic"], rules, 2) is None  # the learner may sample
    assert "no compiled kernel" in why_not_batched(["heuristic", "search"], rules, 2)
    assert "only the learner may sample" in why_not_batched(["heuristic", "pretrained:classic-2p#sample"], rules, 2)
    assert "plays its defaults only" in why_not_batched(["greedy:x=1", "heuristic"], rules, 2)
    with pytest.raises(ValueError, match="nonsense"):
        why_not_batched(["heuristic", "nonsense"], rules, 2)


def test_engine_auto_falls_back_to_the_scalar_env_and_batched_refuses_with_the_reason():
    rules = make_rules("classic")
    assert choose_engine("auto", rules, 2, ["heuristic", "heuristic"]) == "batched"
    assert choose_engine("auto", rules, 2, ["search", "heuristic"]) == "scalar"
    assert choose_engine("scalar", rules, 2, ["heuristic", "heuristic"]) == "scalar"
    with pytest.raises(ValueError, match="cannot play on the batched engine: search has no compiled kernel"):
        choose_engine("batched", rules, 2, ["search", "heuristic"])
    with pytest.raises(ValueError, match="engine must be one of"):
        choose_engine("gpu", rules, 2, ["heuristic", "heuristic"])


def test_a_sampling_learner_policy_records_episodes_that_replay_exactly(tmp_path, monkeypatch):
    minari = pytest.importorskip("minari")
    from helpers import replay_matches, small_dataset

    small_dataset(tmp_path, monkeypatch, "uno/classic-2p/sampler-v0", agents=("pretrained:classic-2p#sample", "heuristic"),
                  episodes=4, engine="batched")
    dataset = minari.load_dataset("uno/classic-2p/sampler-v0")
    assert dataset.storage.metadata["uno_env"]["engine"] == "batched"
    assert replay_matches(dataset) == dataset.total_steps


def test_the_command_line_names_the_engine_it_ran_and_refuses_batched_for_a_line_up_it_cannot_play(
        tmp_path, monkeypatch, capsys):
    minari = pytest.importorskip("minari")
    from helpers import cli_error
    from uno_env.tools import dataset as tool

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    assert tool.main(["create", "--agents", "random", "--episodes", "2", "--engine", "scalar"]) == 0
    assert "(scalar engine)" in capsys.readouterr().out
    assert minari.load_dataset("uno/classic-2p/random-v0").storage.metadata["uno_env"]["engine"] == "scalar"
    assert tool.main(["create", "--agents", "random", "--episodes", "2", "--id", "uno/classic-2p/random-v1"]) == 0
    assert "(batched engine)" in capsys.readouterr().out
    assert minari.load_dataset("uno/classic-2p/random-v1").storage.metadata["uno_env"]["engine"] == "batched"
    assert "search has no compiled kernel" in cli_error(
        tool.main, capsys, ["create", "--agents", "heuristic", "search", "--engine", "batched"])


def test_a_deal_that_ends_before_the_learners_first_decision_is_dealt_again_as_in_the_env(monkeypatch):
    """One card a hand: the seats before the learner often win at once; both collectors deal
    again from the same stream."""
    from uno_env.tools import dataset_batched

    rules = make_rules("classic", hand_size=1)
    redealt = []
    original = dataset_batched._Collector._views

    def counting(self):
        done = original(self)
        redealt.append(int(self.redeals.max()))
        return done

    monkeypatch.setattr(dataset_batched._Collector, "_views", counting)
    assert_same_episodes(rules, 4, ["random"], episodes=10, seat=3)
    assert max(redealt) > 0
