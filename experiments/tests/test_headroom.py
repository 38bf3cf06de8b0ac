"""experiments/headroom.py: the clairvoyant rollout player reads the true hands, finds the move that
the hidden information makes right, and its games depend on the seed alone."""

from __future__ import annotations

import numpy as np

from helpers import cli_error, load_script, make_env

headroom = load_script("experiments", "headroom")


def test_knowing_the_hands_it_changes_colour_away_from_the_opponents_last_colour():
    # red-9 up; the opponent holds only reds. Playing red-4 (the default given) lets it play
    # red, then go out on red; blue-9 (legal on the 9) makes it draw instead.
    e = make_env(2, {0: ["red-4", "blue-9"], 1: ["red-3", "red-6"]}, first="red-9", hand_size=2)
    s = e.game_state
    player = headroom.Clairvoyant(e.rules, 2, simulations=200, rng=np.random.default_rng(0))
    default = e.action_id("play red-4")
    assert player.decide(s, 0, default) == e.action_id("play blue-9")
    # the same position with the opponent holding blues instead: red-4 stays
    e = make_env(2, {0: ["red-4", "blue-9"], 1: ["blue-3", "blue-6"]}, first="red-9", hand_size=2)
    assert player.decide(e.game_state, 0, e.action_id("play red-4")) == e.action_id("play red-4")


def test_a_move_that_does_not_beat_the_default_leaves_it():
    # drawing instead of playing the last-but-one card never gains
    e = make_env(2, {0: ["red-4", "blue-2"], 1: ["green-3", "green-6"]}, first="red-9", hand_size=2)
    player = headroom.Clairvoyant(e.rules, 2, simulations=50, rng=np.random.default_rng(0))
    assert len(e.engine.legal_actions(e.game_state)) == 2  # red-4 or draw
    assert player.decide(e.game_state, 0, e.action_id("play red-4")) == e.action_id("play red-4")


def test_the_games_depend_on_the_seed_not_the_workers():
    one = headroom.main(["--players", "3", "--games", "6", "--simulations", "6", "--seed", "3"])
    two = headroom.main(["--players", "3", "--games", "6", "--simulations", "6", "--seed", "3", "--workers", "2"])
    assert one["wins"] == two["wins"] and 0 <= one["wins"] <= 6
    assert [headroom.play(("classic", 3, 6, 3, g)) for g in range(6)] == \
        [headroom.play(("classic", 3, 6, 3, g)) for g in range(6)]


def test_the_other_seats_may_be_any_bot_and_a_bad_spec_is_named(capsys):
    out = headroom.main(["--players", "3", "--games", "4", "--simulations", "4", "--seed", "2",
                         "--opponent", "random"])
    assert out["opponent"] == "random" and 0 <= out["wins"] <= 4
    heuristic = [headroom.play(("classic", 3, 4, 2, g)) for g in range(4)]
    assert heuristic == [headroom.play(("classic", 3, 4, 2, g, "heuristic")) for g in range(4)]
    assert "--opponent 'nosuchbot'" in cli_error(headroom.main, capsys, ["--opponent", "nosuchbot"])
