"""experiments/tune_heuristic.py: the trials' specs name only the changed weights, each weight tries
the values next to it within its range, a trial is kept only above the margin, the check plays
deals no trial saw, and bad arguments are refused."""

from __future__ import annotations

import pytest

from helpers import cli_error, load_script

from uno_env.agents.heuristic import DEFAULT_PARAMS, HeuristicWeights

tune = load_script("experiments", "tune_heuristic")


def test_a_spec_names_only_the_weights_that_differ_from_the_defaults_and_reads_back():
    assert tune.spec_of(dict(DEFAULT_PARAMS)) == "heuristic"
    weights = dict(DEFAULT_PARAMS, w_draw2=1.5, bluff=0.0)
    assert tune.spec_of(weights) == "heuristic:w_draw2=1.5,bluff=0"
    assert HeuristicWeights.from_spec(tune.spec_of(weights)) == HeuristicWeights(w_draw2=1.5, bluff=0.0)


def test_each_weight_tries_its_neighbours_within_its_range():
    assert tune.candidates("w_draw2", 3.0, 0.5) == [1.5, 4.5]
    assert tune.candidates("w_follow", -0.3, 0.5) == [-0.15, -0.45]  # negative by default: stays free
    assert tune.candidates("w_void", 0.0, 0.5) == [1.0]  # 0 moves by 1, and not below 0
    assert tune.candidates("bluff", 1.0, 0.5) == [0.0] and tune.candidates("wd4_first", 0.0, 0.5) == [1.0]
    assert tune.candidates("hold_wild", 4.0, 0.5) == [3.0, 5.0] and tune.candidates("danger", 0.0, 0.5) == [1.0]


def test_a_trial_is_kept_only_above_the_margin_and_the_check_plays_other_deals():
    out = tune.main(["--players", "3", "--games", "40", "--seed", "3", "--params", "w_draw2,bluff",
                     "--check-seed", "4", "--check-games", "30", "--margin", "0"])
    assert [t["spec"] for t in out["trials"]][0] == "heuristic"
    best, spec = out["trials"][0]["win_rate"], "heuristic"  # margin 0: kept where it beats the weights before it
    for t in out["trials"][1:]:
        if t["win_rate"] > best:
            best, spec = t["win_rate"], t["spec"]
    assert (out["tuned"], out["tuned_win_rate"]) == (spec, best)
    assert set(out["check"]) == {"heuristic", out["tuned"]}
    for r in out["check"].values():
        assert r["ci95"][0] <= r["win_rate"] <= r["ci95"][1] and r["wins"] == round(r["win_rate"] * 30)
    strict = tune.main(["--players", "3", "--games", "40", "--seed", "3", "--params", "w_draw2,bluff",
                        "--check-seed", "4", "--check-games", "30", "--margin", "100"])
    assert strict["tuned"] == "heuristic"  # nothing gains 100 points
    assert [t["spec"] for t in strict["trials"]] == ["heuristic", "heuristic:w_draw2=1.5", "heuristic:w_draw2=4.5",
                                                     "heuristic:bluff=0"]  # every trial from the defaults
    assert strict["trials"][:2] == out["trials"][:2]  # the same deals for the same weights


@pytest.mark.parametrize("argv, message", [
    (["--params", "w_draw2,nonsense"], "unknown weight 'nonsense'"),
    (["--params", ","], "name at least one weight"),
    (["--games", "0"], "must be >= 1"),
    (["--step", "1.5"], "--step must be in (0, 1)"),
    (["--seed", "7", "--check-seed", "7"], "--check-seed must differ from --seed"),
])
def test_bad_arguments_are_refused(capsys, argv, message):
    assert message in cli_error(tune.main, capsys, argv)
