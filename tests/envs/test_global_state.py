"""The global state (:mod:`uno_env.game.global_state`) and PettingZoo's ``state()``."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import state_test

import uno_env
from uno_env.game import cards as C
from uno_env.game import global_state as G

from helpers import P, act, make_env


def test_global_state_holds_every_hand_and_the_draw_pile_contents():
    e = make_env(3, {0: ["red-4", "green-5"], 1: ["blue-1", "blue-2"], 2: ["wild", "yellow-9"]},
                 "red-3", hand_size=2)
    st = e.state()
    assert st.shape == (G.GLOBAL_STATE_SIZE,) and st.dtype == np.float32
    assert e.state_space.contains(st)
    for seat, cards in {0: ["red-4", "green-5"], 1: ["blue-1", "blue-2"], 2: ["wild", "yellow-9"]}.items():
        hand = st[G.HANDS + seat * C.NUM_KINDS:G.HANDS + (seat + 1) * C.NUM_KINDS]
        assert {e.card_names[k]: int(hand[k]) for k in np.flatnonzero(hand)} == {c: 1 for c in cards}
    draw = st[G.DRAW:G.DRAW + C.NUM_KINDS]
    s = e.game_state
    assert draw.sum() == len(s.draw_pile)
    assert (draw == np.bincount(s.draw_pile, minlength=C.NUM_KINDS)).all()
    assert st[G.TOP + e.card_id("red-3")] == 1 and st[G.ACTOR + 0] == 1
    assert list(st[G.SIZES:G.SIZES + 3]) == [2, 2, 2] and not st[G.SIZES + 3:G.SCORES].any()


def test_global_state_follows_the_game_and_is_order_free_in_draw():
    e = make_env(2, {0: ["red-4", "green-5"]}, "red-3", hand_size=2)
    before = e.state()
    act(e, "play red-4", P(0))
    after = e.state()
    assert after[G.TOP + e.card_id("red-4")] == 1 and after[G.SIZES] == 1
    assert after[G.ACTOR + 1] == 1 and before[G.ACTOR] == 1
    # reordering DRAW does not change the state
    e.game_state.draw_pile.reverse()
    assert (e.state() == after).all()


@pytest.mark.parametrize("rules,n", [("classic", 2), ("tmnt", 4), ("house", 3)])
def test_pettingzoo_state_test(rules, n):
    state_test(uno_env.env(rules=rules, num_players=n), uno_env.raw_env(rules=rules, num_players=n))


def test_state_before_reset_is_a_clear_error():
    with pytest.raises(RuntimeError, match="reset"):
        uno_env.raw_env().state()


@pytest.mark.parametrize("n", [2, 3, 5])
def test_global_state_seen_from_a_seat_rotates_every_seat_block(n):
    """Seen from seat p, slot j is the player j seats to p's left; the rest is unchanged."""
    e = uno_env.raw_env(num_players=n)
    e.reset(seed=n)
    for _ in range(7):  # a few moves in, so that sizes and turn differ between seats
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    enc = G.GlobalStateEncoder(e.engine)
    s = e.game_state
    absolute = enc.encode(s)
    assert (absolute == e.state()).all()
    seat_blocks = [(G.HANDS, C.NUM_KINDS), (G.ACTOR, 1), (G.TURN, 1), (G.SIZES, 1), (G.SCORES, 1), (G.UNO, 1)]
    for p in range(n):
        rel = enc.encode(s, p)
        for start, width in seat_blocks:
            for j in range(n):
                q = (p + j) % n
                assert (rel[start + j * width:start + (j + 1) * width]
                        == absolute[start + q * width:start + (q + 1) * width]).all(), (start, p, j)
        outside = np.ones(G.GLOBAL_STATE_SIZE, bool)
        for start, width in seat_blocks:
            outside[start:start + G.MAX_PLAYERS * width] = False
        assert (rel[outside] == absolute[outside]).all()
    assert (enc.encode(s, 0) == absolute).all()
