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
    assert all(e == [1.0] * 4 for e, _ in bot.voids(v))
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
    assert list(one["differences"]) == ["learned"]
    assert one["differences"]["learned"]["mean"] == pytest.approx((wins["learned"] - wins["Beliefs"]) / 4)


def test_arms_are_chosen_and_the_network_is_fitted_only_where_an_arm_or_the_brier_uses_it():
    out = belief_search.main(["--players", "3", "--games", "3", "--simulations", "4", "--seed", "8",
                              "--brier-games", "0", "--arms", "true-voids,Beliefs,true-colours,true-hands"])
    assert list(out["arms"]) == ["true-voids", "Beliefs", "true-colours", "true-hands"] and out["fit_rows"] == 0
    assert list(out["differences"]) == ["Beliefs", "true-colours", "true-hands"]  # against the first arm named
    wins = {arm: r["wins"] for arm, r in out["arms"].items()}
    assert out["differences"]["Beliefs"]["mean"] == pytest.approx((wins["Beliefs"] - wins["true-voids"]) / 3)


def _mid_game(seed: int, steps: int = 24):
    """A 4-player classic game after ``steps`` random moves: the engine, its state, the actor's view."""
    engine = Engine(make_rules("classic"), 4)
    s = engine.new_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 100)
    for _ in range(steps):
        engine.step(s, int(rng.choice(engine.legal_actions(s))))
    encoder = ObservationEncoder(engine)
    return engine, s, decode(encoder.encode(s, s.actor), A.legal_mask(engine.legal_actions(s)))


def _grid(counts) -> np.ndarray:
    """Colour x face: whether ``counts`` (cards per kind) hold such a card."""
    return np.asarray(counts)[:C.NUM_COLORED].reshape(C.NUM_COLORS, C.NUM_FACES) > 0


@pytest.mark.parametrize("faces", [False, True])
def test_the_true_void_arms_never_deal_an_opponent_a_colour_or_face_its_hidden_cards_lack(faces):
    lacking = known = 0
    for seed in range(6):
        engine, s, v = _mid_game(seed)
        me = s.actor
        bot = belief_search.TrueVoidSearch(engine.rules, 4, seed, faces=faces)
        bot.watch(s, me)
        bot.observe(v)
        voids = bot.voids(v)
        shown = np.asarray(v.known) if v.known_any else np.zeros((3, C.NUM_KINDS), np.int64)
        known += int(shown.sum())
        truth = [_grid(s.hands[(me + j + 1) % 4] - shown[j]) for j in range(3)]  # the cards I have not seen
        for j in range(3):
            assert voids[j][0] == [0.0 if x else 1.0 for x in truth[j].any(axis=1)]
            assert voids[j][1] == ([0.0 if x else 1.0 for x in truth[j].any(axis=0)] if faces else None)
            lacking += int(not truth[j].any(axis=1).all() or (faces and not truth[j].any(axis=0).all()))
        for _ in range(20):
            d = bot.determinise(v)
            for j in range(3):
                dealt = _grid(d.hands[j + 1] - shown[j])
                assert not (dealt.any(axis=1) & ~truth[j].any(axis=1)).any()  # no colour it lacks
                if faces:
                    assert not (dealt.any(axis=0) & ~truth[j].any(axis=0)).any()  # nor a face
                assert d.hands[j + 1].sum() == s.hand_size[(me + j + 1) % 4]
    assert lacking > 0 and known > 0  # the deals had voids to respect, and cards I had seen


def test_the_true_hand_arm_deals_every_opponent_its_hand_and_shuffles_only_the_draw_pile():
    for seed in range(4):
        engine, s, v = _mid_game(seed)
        me = s.actor
        bot = belief_search.TrueHandSearch(engine.rules, 4, seed)
        bot.watch(s, me)
        bot.observe(v)
        orders = set()
        for _ in range(5):
            d = bot.determinise(v)
            for j in range(3):
                np.testing.assert_array_equal(d.hands[j + 1], s.hands[(me + j + 1) % 4])
            assert sorted(d.draw_pile) == sorted(s.draw_pile)
            orders.add(tuple(d.draw_pile))
        assert len(orders) > 1


@pytest.mark.parametrize("oracle", [belief_search.TrueVoidSearch, belief_search.TrueHandSearch])
def test_an_oracle_arm_refuses_to_deal_before_it_watches_a_game(oracle):
    engine, s, v = _mid_game(0)
    bot = oracle(engine.rules, 4, 0, **({"faces": False} if oracle is belief_search.TrueVoidSearch else {}))
    with pytest.raises(RuntimeError, match="watch"):
        bot.determinise(v)


@pytest.mark.parametrize("argv, message", [(["--games", "0"], "must be >= 1"),
                                           (["--players", "2"], "--players in 3..10"),
                                           (["--arms", "Beliefs,oracle"], "name distinct arms"),
                                           (["--arms", "Beliefs,Beliefs"], "name distinct arms")])
def test_bad_arguments_are_refused(capsys, argv, message):
    assert message in cli_error(belief_search.main, capsys, argv)
