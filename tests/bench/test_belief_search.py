"""bench/belief_search.py: the network is the belief model of belief_quality, the learned arm
deals from it, both arms play the same deals, and a run depends on its seeds alone."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import cli_error, load_script

from uno_env.agents.view import decode
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import make_rules

belief_search = load_script("bench", "belief_search")
belief_quality = load_script("bench", "belief_quality")


def test_the_numpy_network_is_the_fitted_torch_network():
    import torch

    rows = belief_quality.collect(players=4, games=4, seed=3)
    torch_net = belief_quality.train_mlp(rows["x"], rows["truth"], 1, 3)
    net = belief_search.BeliefNet.from_torch(torch_net, 4)
    engine = Engine(make_rules("classic"), 4)
    s = engine.new_state(np.random.default_rng(0))
    obs = ObservationEncoder(engine).encode(s, s.actor)
    with torch.no_grad():
        expected = torch.sigmoid(torch_net(torch.as_tensor(obs[net.keep] * net.scale)[None])).numpy()
    np.testing.assert_allclose(net(obs), expected.reshape(3, 4), rtol=1e-5, atol=1e-6)


def test_the_learned_arm_deals_from_the_network():
    rules = make_rules("classic")
    engine = Engine(rules, 4)
    s = engine.new_state(np.random.default_rng(1))
    v = decode(ObservationEncoder(engine).encode(s, s.actor), A.legal_mask(engine.legal_actions(s)))
    net = belief_search.BeliefNet([(np.zeros((len(belief_search.obs_features_layout(4)[0]), 12), np.float32),
                                    np.full(12, -50.0, np.float32))], 4)  # "holds no colour", surely
    bot = belief_search.LearnedBeliefSearch(rules, 4, 0, net=net)
    bot.observe(v)
    assert all(e == [1.0] * 4 for e, _ in bot._voids(v))
    # every coloured card is left out while wilds can fill the hand: the first opponent dealt
    # takes every unseen wild (a uniform deal would spread them)
    wilds = int(sum(bot.deck[C.NUM_COLORED:]) - sum(v.hand[C.NUM_COLORED:]))
    for seed in range(5):
        bot.rng = np.random.default_rng(seed)
        assert bot.determinise(v).hands[1][C.NUM_COLORED:].sum() == min(wilds, v.opponents[0].hand_size)


def test_both_arms_play_the_same_deals_and_the_run_depends_on_its_seeds_not_the_workers():
    argv = ["--players", "3", "--fit-games", "6", "--epochs", "1", "--games", "4", "--simulations", "4",
            "--seed", "5", "--brier-games", "2", "--brier-samples", "3"]
    one = belief_search.main(argv)
    two = belief_search.main(argv + ["--workers", "2"])
    assert one["arms"] == two["arms"] and one["fit_rows"] == two["fit_rows"] > 0
    assert set(one["arms"]) == {"Beliefs", "learned"} and one["deal_brier"] == two["deal_brier"]
    assert set(one["deal_brier"]) == {"uniform", "Beliefs", "learned", "network itself"}
    assert all(0.0 < x < 1.0 for x in one["deal_brier"].values())
    for r in one["arms"].values():
        assert 0 <= r["wins"] <= 4 and r["ci95"][0] <= r["win_rate"] <= r["ci95"][1]
    wins = {arm: r["wins"] for arm, r in one["arms"].items()}
    assert one["difference"] == pytest.approx((wins["learned"] - wins["Beliefs"]) / 4)


@pytest.mark.parametrize("argv, message", [(["--games", "0"], "must be >= 1"),
                                           (["--players", "2"], "--players in 3..10")])
def test_bad_arguments_are_refused(capsys, argv, message):
    assert message in cli_error(belief_search.main, capsys, argv)
