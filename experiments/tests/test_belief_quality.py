"""experiments/belief_quality.py: its labels are the true hands, the heuristic's Beliefs read the
public history better than the base rate, the card-level network is fitted by squared error,
and a run depends on its seed alone."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import cli_error, load_script

from uno_env.game import cards as C

belief_quality = load_script("experiments", "belief_quality")


def test_rows_hold_one_truth_and_one_belief_per_opponent_and_colour():
    rows = belief_quality.collect(players=3, games=6, seed=1)
    n = len(rows["x"])
    assert n > 20 and rows["truth"].shape == rows["beliefs"].shape == (n, 2 * 4)
    assert set(np.unique(rows["truth"])) <= {0.0, 1.0}
    assert rows["beliefs"].min() >= 0.0 and rows["beliefs"].max() <= 1.0
    # a colour an opponent is sure (Beliefs 1.0: a card of it shown to me) to hold, it holds
    sure = rows["beliefs"] >= 1.0 - 1e-9
    assert np.all(rows["truth"][sure] == 1.0)


def test_beliefs_beat_the_base_rate_and_a_run_depends_on_its_seed():
    one = belief_quality.main(["--players", "4", "--games", "150", "--epochs", "1", "--seed", "5"])
    again = belief_quality.main(["--players", "4", "--games", "150", "--epochs", "1", "--seed", "5"])
    assert one["brier"] == again["brier"] and one["rows"] == again["rows"]
    assert one["brier"]["Beliefs"] < one["brier"]["base rate"] - 0.02
    assert 0.0 < one["brier"]["MLP"] < 0.3
    assert one["count_mse"] == again["count_mse"]
    assert 0.0 < one["count_mse"]["MLP over the counter"] < one["count_mse"]["zero"]


def test_the_squared_error_network_fits_real_valued_targets_and_an_unknown_loss_is_refused():
    import torch

    rng = np.random.default_rng(0)
    x = rng.normal(size=(2048, 8)).astype(np.float32)
    y = np.stack([x[:, 0] * 0.5 + 1.5, x[:, 1] - x[:, 2]], axis=1).astype(np.float32)  # not in [0, 1]
    net = belief_quality.train_mlp(x, y, 20, 0, loss="mse")
    with torch.no_grad():
        fitted = net(torch.as_tensor(x)).numpy()
    assert belief_quality.brier(fitted, y) < 0.05 * y.var(axis=0).mean()
    # fit_mlp answers with the same network's outputs, unsquashed for squared error
    np.testing.assert_allclose(belief_quality.fit_mlp(x, y, 20, 0, loss="mse")(x), fitted, rtol=1e-6)
    with pytest.raises(ValueError, match="loss 'l1': one of bce, mse"):
        belief_quality.train_mlp(x, y, 1, 0, loss="l1")


def test_the_colour_face_grid_and_holds_colours_read_the_same_cards():
    hands = np.zeros((3, C.NUM_KINDS), np.int16)
    red_skip, blue_7 = C.kind_of(0, C.FACE_SKIP), C.kind_of(2, 7)
    hands[1, red_skip] = 2
    hands[1, blue_7] = 1
    hands[2, C.NUM_COLORED] = 1  # a wild: no colour
    grid = belief_quality.colour_face_grid(hands)
    assert grid.shape == (3, 4, 13) and grid.sum() == 2
    assert grid[1, 0, C.FACE_SKIP] and grid[1, 2, 7]
    np.testing.assert_array_equal(belief_quality.holds_colours(hands, [2, 1]),
                                  [[False] * 4, [True, False, True, False]])
    np.testing.assert_array_equal(belief_quality.colour_face_grid(hands[1]), grid[1])


def test_too_few_games_is_refused(capsys):
    assert "--games must be >= 5" in cli_error(belief_quality.main, capsys, ["--games", "3"])


def test_card_counter_splits_each_hand_size_over_the_unseen_cards_and_beats_zero():
    rows = belief_quality.collect(players=4, games=8, seed=2)
    n = len(rows["x"])
    counts = rows["counts"].reshape(n, 3, -1)
    counter = rows["counter"].reshape(n, 3, -1)
    # both the truth and the counter's expectation sum, per opponent, to its hand size
    np.testing.assert_allclose(counter.sum(axis=2), counts.sum(axis=2), rtol=1e-5)
    assert counts.min() >= 0 and counter.min() >= 0
    # one share of the unseen cards per row, the same for every opponent, scaled by its hand size
    share = counter / counts.sum(axis=2, keepdims=True)
    np.testing.assert_allclose(share, np.broadcast_to(share[:, :1], share.shape), rtol=1e-5)
    assert belief_quality.brier(counter, counts) < belief_quality.brier(np.zeros_like(counts), counts)
