"""experiments/belief_search.py: the network is the belief model of belief_quality, the learned arm
deals from it, both arms play the same deals, and a run depends on its seeds alone."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from helpers import CLASSIC_COLORS, cli_error, load_script

from uno_env.agents.search import deal, template
from uno_env.agents.view import decode
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import make_rules

belief_search = load_script("experiments", "belief_search")
belief_quality = load_script("experiments", "belief_quality")
RED = CLASSIC_COLORS.index("red")


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
        assert belief_search.determinise(bot, v).hands[1][C.NUM_COLORED:].sum() == min(wilds, v.opponents[0].hand_size)


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


def test_the_events_arms_deal_from_their_networks_at_two_players_and_replay_with_any_workers(tmp_path, capsys):
    argv = ["--players", "2", "--fit-games", "8", "--epochs", "1", "--games", "4", "--simulations", "4",
            "--seed", "6", "--brier-games", "0", "--arms", "Beliefs,summary,events"]
    one = belief_search.main(argv + ["--out", str(tmp_path / "one.json")])
    two = belief_search.main(argv + ["--workers", "2"])
    assert one["arms"] == two["arms"] and list(one["differences"]) == ["summary", "events"]
    assert one["fit_rows"] == 0 and one["event_fit_rows"] > 0  # belief_quality's network is not fitted
    written = json.loads((tmp_path / "one.json").read_text())
    assert written["won"] == one["won"] and len(written["won"]["events"]) == 4
    # --out never replaces a file
    assert "exists" in cli_error(belief_search.main, capsys, argv + ["--out", str(tmp_path / "one.json")])
    assert json.loads((tmp_path / "one.json").read_text()) == written
    # the bot reads the live game's event record: a belief that no opponent holds any colour
    # leaves every coloured card out of its deals, as the learned arm's does

    class Nothing:
        def __call__(self, observation, events, seat):
            assert events and events[0].kind == 0  # the deal's event first
            return np.zeros((1, 4))

    engine = Engine(make_rules("classic"), 2, record_events=True)
    s = engine.new_state(np.random.default_rng(1))
    v = decode(ObservationEncoder(engine).encode(s, s.actor), A.legal_mask(engine.legal_actions(s)))
    bot = belief_search.EventBeliefSearch(engine.rules, 2, 0, net=Nothing())
    bot.observe(v)
    with pytest.raises(RuntimeError, match="listen"):
        bot.voids(v)
    bot.listen(s.events, s.actor)  # the public record only: the bot holds no state
    assert all(e == [1.0] * 4 for e, _ in bot.voids(v))


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


def _watching(seed: int, bot):
    """``bot`` (a function of the rules) watching :func:`_mid_game` ``seed`` at the actor's
    seat, its view read: the bot, the live state, its seat, its view."""
    engine, s, v = _mid_game(seed)
    oracle = bot(engine.rules)
    oracle.watch(s, s.actor)
    oracle.observe(v)
    return oracle, s, s.actor, v


def _grid(counts) -> np.ndarray:
    """Colour x face: whether ``counts`` (cards per kind) hold such a card."""
    return np.asarray(counts)[:C.NUM_COLORED].reshape(C.NUM_COLORS, C.NUM_FACES) > 0


@pytest.mark.parametrize("faces", [False, True])
def test_the_true_void_arms_never_deal_an_opponent_a_colour_or_face_its_hidden_cards_lack(faces):
    lacking = known = 0
    for seed in range(6):
        bot, s, me, v = _watching(seed, lambda rules: belief_search.TrueVoidSearch(rules, 4, seed, faces=faces))
        voids = bot.voids(v)
        shown = np.asarray(v.known) if v.known_any else np.zeros((3, C.NUM_KINDS), np.int64)
        known += int(shown.sum())
        truth = [_grid(s.hands[(me + j + 1) % 4] - shown[j]) for j in range(3)]  # the cards I have not seen
        for j in range(3):
            assert voids[j][0] == [0.0 if x else 1.0 for x in truth[j].any(axis=1)]
            assert voids[j][1] == ([0.0 if x else 1.0 for x in truth[j].any(axis=0)] if faces else None)
            lacking += int(not truth[j].any(axis=1).all() or (faces and not truth[j].any(axis=0).all()))
        for _ in range(20):
            d = belief_search.determinise(bot, v)
            for j in range(3):
                dealt = _grid(d.hands[j + 1] - shown[j])
                assert not (dealt.any(axis=1) & ~truth[j].any(axis=1)).any()  # no colour it lacks
                if faces:
                    assert not (dealt.any(axis=0) & ~truth[j].any(axis=0)).any()  # nor a face
                assert d.hands[j + 1].sum() == s.hand_size[(me + j + 1) % 4]
    assert lacking > 0 and known > 0  # the deals had voids to respect, and cards I had seen


def test_the_true_hand_arm_deals_every_opponent_its_hand_and_shuffles_only_the_draw_pile():
    for seed in range(4):
        bot, s, me, v = _watching(seed, lambda rules: belief_search.TrueHandSearch(rules, 4, seed))
        orders = set()
        for _ in range(5):
            d = belief_search.determinise(bot, v)
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
        belief_search.determinise(bot, v)


@pytest.mark.parametrize("argv, message", [(["--games", "0"], "must be >= 1"),
                                           (["--players", "1"], "--players in 2..10"),
                                           (["--arms", "Beliefs,oracle"], "name distinct arms"),
                                           (["--arms", "Beliefs,Beliefs"], "name distinct arms")])
def test_bad_arguments_are_refused(capsys, argv, message):
    assert message in cli_error(belief_search.main, capsys, argv)


@pytest.mark.parametrize("arm", ["true-actions", "true-numbers"])
def test_the_true_kind_arms_deal_each_opponent_its_cards_of_those_kinds_and_the_rest_at_random(arm):
    kinds = belief_search.ACTION_KINDS if arm == "true-actions" else ~belief_search.ACTION_KINDS
    assert belief_search.ACTION_KINDS[C.kind_of(0, C.FACE_SKIP)] and not belief_search.ACTION_KINDS[C.kind_of(0, 7)]
    assert belief_search.ACTION_KINDS[C.NUM_COLORED:].all()  # every wild kind
    varied = 0
    for seed in range(4):
        bot, s, me, v = _watching(seed, lambda rules: belief_search.searcher(arm, rules, 4, seed, {}, None))
        rests = set()
        for _ in range(8):
            d = belief_search.determinise(bot, v)
            for j in range(3):
                true = s.hands[(me + j + 1) % 4]
                np.testing.assert_array_equal(d.hands[j + 1] * kinds, true * kinds)  # the slice, exactly
                assert d.hands[j + 1].sum() == true.sum()
            rests.add(tuple(np.concatenate([d.hands[j + 1] * ~kinds for j in range(3)])))
            assert bot.engine.legal_actions(d) == v.legal
        varied += len(rests) > 1
    assert varied == 4  # the other kinds are dealt at random


def _follow(game: int, depth: int | None):
    """A 4-player classic game that the ``replayed`` bot (``depth``) follows with the heuristic's moves
    (observe, decide, remember) against ``Recording`` opponents; yields, at each of its
    decisions, the bot, the live state, its seat and its view."""
    rules = make_rules("classic")
    engine = Engine(rules, 4)
    encoder = ObservationEncoder(engine)
    s = engine.new_state(np.random.default_rng([7, game]))
    me = game % 4
    bot = belief_search.ReplayedSearch(rules, 4, game, depth=depth)
    others = {p: belief_search.Recording(rules, 4, seed=p) for p in range(4) if p != me}
    for p, agent in others.items():
        agent.reset(seed=p)
    while not s.game_over and not engine.truncated(s):
        p = s.actor
        obs, mask = encoder.encode(s, p), A.legal_mask(engine.legal_actions(s))
        if p == me:
            v = decode(obs, mask)
            bot.observe(v)
            yield bot, s, me, v
            a = bot.h.decide(v)
            bot.remember(v, a)
            engine.step(s, a)
        else:
            then = s.clone()
            engine.step(s, others[p].act(obs, mask))
            bot.note((p - me - 1) % 4, then, p, others[p].last)


def test_recording_opponents_make_the_heuristics_moves():
    """The replayed arm's opponents are the heuristic, so that its games pair with the others'."""
    rules = make_rules("classic")
    engine = Engine(rules, 4)
    encoder = ObservationEncoder(engine)
    moves = []
    for kind in (belief_search.HeuristicAgent, belief_search.Recording):
        agents = [kind(rules, 4, seed=p) for p in range(4)]
        s = engine.new_state(np.random.default_rng(11))
        moves.append([])
        while not s.game_over and not engine.truncated(s):
            p = s.actor
            moves[-1].append(agents[p].act(encoder.encode(s, p), A.legal_mask(engine.legal_actions(s))))
            engine.step(s, moves[-1][-1])
    assert moves[0] == moves[1] and len(moves[0]) > 20


@pytest.mark.parametrize("depth", [1, None])
def test_the_replayed_arms_read_each_opponents_plays_from_its_hand(depth):
    """Each opponent's true hand agrees with its last play, or every play since it last took a
    card (the heuristic is deterministic and its Beliefs are kept as they stood); random hands
    sometimes do not; the bot's deals agree but where no agreeing hand was found; reading
    leaves the states it replays on as they were."""
    read = disagree = deepest = 0
    for game in range(3):
        rng = np.random.default_rng(game)
        for bot, s, me, v in _follow(game, depth):
            for j, plays in enumerate(bot.plays):
                true = s.hands[(me + j + 1) % 4].astype(np.int64)
                if not plays or true.sum() != plays[-1][2] - 1:
                    continue
                deepest = max(deepest, len(plays))
                read += 1
                before = [(r[0].hands.copy(), list(r[0].held)) for r in plays]
                assert bot.agrees(j, true)
                pool = np.repeat(np.arange(C.NUM_KINDS), true + s.hands[(me + (j + 1) % 3 + 1) % 4])
                disagree += not bot.agrees(j, np.bincount(rng.permutation(pool)[:true.sum()], minlength=C.NUM_KINDS))
                for r, (hands, held) in zip(plays, before):
                    assert (r[0].hands == hands).all() and r[0].held == held
            tp = bot.deal_template(v)
            if tp is None:
                continue
            before = bot.checks["not found"]
            d = bot.sample_deal(tp)
            assert bot.engine.legal_actions(d) == v.legal
            misses = sum(1 for j, plays in enumerate(bot.plays)
                         if plays and tp.deal[j][0] and tp.sizes[j + 1] == plays[-1][2] - 1
                         and not bot.agrees(j, d.hands[j + 1]))
            assert misses <= bot.checks["not found"] - before
            assert [h.sum() for h in d.hands] == tp.sizes
    assert read > 50 and disagree > 0 and bot.checks["dealt again"] > 0
    assert deepest == 1 if depth == 1 else deepest > 1


def test_the_new_arms_play_whole_games_and_report_them_game_by_game():
    out = belief_search.main(["--players", "3", "--games", "3", "--simulations", "4", "--seed", "2",
                              "--brier-games", "0", "--arms", "replayed,true-actions,true-numbers"])
    assert list(out["won"]) == ["replayed", "true-actions", "true-numbers"]
    for arm, won in out["won"].items():
        assert len(won) == 3 and set(won) <= {0, 1} and sum(won) == out["arms"][arm]["wins"]
    c = out["checks"]["replayed"]  # the game loop told the searcher its opponents' plays
    assert list(out["checks"]) == ["replayed"] and c["plays read"] > 0
    assert c["plays read"] == c["agreed"] + c["dealt again"] + c["not found"]


@pytest.mark.parametrize("arm", ["true-actions", "true-numbers"])
def test_the_true_kind_arms_leave_the_draw_pile_well_mixed(arm):
    """The cards dealt at random come from the front of the shuffled unseen cards; the DRAW
    pile is mixed again, so its top (where the rollouts draw) holds the kinds dealt at random
    in the share the whole pile does."""
    random_kinds = ~belief_search.ACTION_KINDS if arm == "true-actions" else belief_search.ACTION_KINDS
    top = whole = 0.0
    for seed in range(4):
        bot, s, me, v = _watching(seed, lambda rules: belief_search.searcher(arm, rules, 4, seed, {}, None))
        for _ in range(150):
            pile = belief_search.determinise(bot, v).draw_pile
            top += np.mean(random_kinds[pile[-8:]])
            whole += np.mean(random_kinds[pile])
    assert abs(top - whole) / 600 < 0.015  # unmixed, the top held 4 to 7 points more of them


def _first_view_of_a_4_player_deal():
    engine = Engine(make_rules("classic"), 4)
    s = engine.new_state(np.random.default_rng(11))
    v = decode(ObservationEncoder(engine).encode(s, s.actor), A.legal_mask(engine.legal_actions(s)))
    return engine, v


def test_colour_evidence_deals_each_colour_with_the_probability_asked_where_below_the_uniform_deal():
    engine, v = _first_view_of_a_4_player_deal()
    deck = engine.rules.deck_counts()
    unseen = np.asarray(deck) - np.asarray(v.played) - np.asarray(v.hand)
    total, reds = int(unseen.sum()), int(unseen[C.COLOR_SLICES[RED]].sum())
    need = v.opponents[0].hand_size
    prior = 1 - math.comb(total - reds, need) / math.comb(total, need)  # a uniform deal's chance of a red
    ones = np.ones((3, 4))
    assert belief_search.colour_evidence(v, deck, ones) == [([0.0] * 4, None)] * 3  # a deal cannot be pushed towards a colour
    assert all(e == [1.0] * 4 for e, _ in belief_search.colour_evidence(v, deck, np.zeros((3, 4))))  # none: always left out
    asked = ones.copy()
    asked[0, RED] = 0.2
    voids = belief_search.colour_evidence(v, deck, asked)
    assert voids[0][0][RED] == pytest.approx(1 - 0.2 / prior)
    tp = template(v, engine.rules, deck, voids)
    rng = np.random.default_rng(0)
    holds = [deal(tp, rng).hands[1][C.COLOR_SLICES[RED]].sum() > 0 for _ in range(3000)]
    assert np.mean(holds) == pytest.approx(0.2, abs=0.03)  # 4 standard errors
    uniform = template(v, engine.rules, deck, [(None, None)] * 3)
    holds = [deal(uniform, rng).hands[1][C.COLOR_SLICES[RED]].sum() > 0 for _ in range(3000)]
    assert np.mean(holds) == pytest.approx(prior, abs=0.03)


def test_colour_evidence_leaves_a_known_colour_in_and_counts_only_the_cards_left_to_deal():
    engine, v = _first_view_of_a_4_player_deal()
    deck = engine.rules.deck_counts()
    unseen = np.asarray(deck) - np.asarray(v.played) - np.asarray(v.hand)
    red = int(np.flatnonzero(unseen[C.COLOR_SLICES[RED]])[0]) + C.COLOR_SLICES[RED].start
    known = [[0] * C.NUM_KINDS for _ in range(3)]
    known[0][red] = 1  # a red card of opponent 0 was shown to me
    v._known, v._known_any = known, True
    asked = np.full((3, 4), 0.3)
    before = belief_search.colour_evidence(v, deck, asked)
    assert before[0][0][RED] == 0.0 and all(e > 0 for e in before[0][0][:RED] + before[0][0][RED + 1:])
    # one card fewer to deal it: a uniform deal is less likely to hold each other colour, so
    # less evidence is needed to bring it down to 0.3
    v._known = [[0] * C.NUM_KINDS for _ in range(3)]
    v._known[1][red] = 1
    other = belief_search.colour_evidence(v, deck, asked)
    blue = CLASSIC_COLORS.index("blue")
    assert before[0][0][blue] < other[0][0][blue]
