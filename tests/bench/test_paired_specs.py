"""bench/paired_specs.py: every spec plays the same deals in the same seats (a spec that plays
as another differs from it by nothing, game by game), the difference is the mean of the
games' differences, and bad arguments are refused."""

from __future__ import annotations

import json

import numpy as np
import pytest

from helpers import cli_error, load_script

paired = load_script("bench", "paired_specs")


def test_a_spec_that_plays_as_the_first_wins_the_same_games(tmp_path):
    # hold_wild=4 is the heuristic's default: the same player under another name
    out = paired.main(["--players", "3", "--games", "24", "--seed", "5", "--workers", "2",
                       "--specs", "heuristic", "heuristic:hold_wild=4", "--out", str(tmp_path / "r.json")])
    assert out["won"]["heuristic"] == out["won"]["heuristic:hold_wild=4"]
    assert out["specs"]["heuristic:hold_wild=4"]["difference"] == {"mean": 0.0, "ci95": [0.0, 0.0]}
    assert json.loads((tmp_path / "r.json").read_text())["won"] == out["won"]


def test_the_difference_is_the_mean_of_the_games_differences():
    out = paired.main(["--players", "4", "--games", "40", "--seed", "9", "--specs", "heuristic", "random"])
    h, r = np.array(out["won"]["heuristic"]), np.array(out["won"]["random"])
    assert len(h) == len(r) == 40 and out["specs"]["heuristic"]["wins"] == h.sum()
    d = out["specs"]["random"]["difference"]
    assert d["mean"] == pytest.approx((r - h).mean()) and d["ci95"][0] < d["mean"] < d["ci95"][1]
    assert "difference" not in out["specs"]["heuristic"]


def test_a_game_depends_only_on_the_seed_and_its_number():
    one = paired.play(("heuristic", "random", "classic", 4, 11, 6))
    assert all(paired.play(("heuristic", "random", "classic", 4, 11, 6)) == one for _ in range(2))
    wins = [paired.play(("heuristic", "random", "classic", 4, 11, g)) for g in range(16)]
    assert 0 < sum(wins) < 16  # the spec's seat rotates; it neither always wins nor always loses


@pytest.mark.parametrize("args,message", [
    (["--specs", "heuristic", "nosuchbot"], "--specs 'nosuchbot'"),
    (["--specs", "heuristic", "--opponent", "search:bogus=1"], "--opponent 'search:bogus=1'"),
    (["--specs", "heuristic", "heuristic"], "given twice"),
    (["--specs", "heuristic", "--games", "0"], "--games"),
    (["--specs", "heuristic", "--players", "11"], "--players"),
    (["--specs", "heuristic", "--rules", "nosuchrules"], "--rules"),
])
def test_bad_arguments_are_refused_naming_them(capsys, args, message):
    assert message in cli_error(paired.main, capsys, args)


def test_the_search_spec_replays_the_belief_bench_s_beliefs_arm_game_by_game():
    """One dealing for both benches (``seated_deal``): ``search:simulations=N`` against
    ``heuristic`` here is ``bench/belief_search.py``'s arm ``Beliefs``, game by game."""
    belief_search = load_script("bench", "belief_search")
    here = [paired.play(("search:simulations=8", "heuristic", "classic", 4, 20261202, g)) for g in range(12)]
    there = [belief_search.play(("Beliefs", 4, 8, 20261202, g))[0] for g in range(12)]
    assert here == there and 0 < sum(here) < 12
