"""Card counting and opponent modelling (:class:`uno_env.agents.beliefs.Beliefs`).

* Unseen cards are exactly the cards in other hands and DRAW that the player does not know
  about, at every decision of games in every preset (checked against the engine state).
* P(block) from counting alone is P(no card of the colour) x P(no card of the face and no
  wild) over the opponent's unknown cards, each drawn from the unseen cards (engine truth).
* Voids, from stacked decks: a player who draws on a colour holds none of it; one who
  leaves a colour for another without drawing probably holds none (``switch_odds``); a
  played colour clears its void; received cards weaken every void; ``track=0`` reads nothing.
* Known cards: an offered card makes its colour and face certain for that opponent.
* Challenge inputs: the colour before a Wild Draw Four and the chance its player held it.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers import CLASSIC_COLORS, P, act, make_env

from uno_env.agents import make_agent
from uno_env.agents.view import decode
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import CHALLENGE, TAKE, Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import make_rules

RED, YELLOW, GREEN, BLUE = (CLASSIC_COLORS.index(c) for c in ("red", "yellow", "green", "blue"))


def unseen_truth(s, p: int) -> np.ndarray:
    """Cards of each kind in other hands and DRAW that seat ``p`` does not know about."""
    truth = np.bincount(np.asarray(s.draw_pile, np.int64), minlength=C.NUM_KINDS)
    for q in range(s.n):
        if q != p:
            truth = truth + s.hands[q] - s.known[p, q]
    return truth


def view_of(e, seat: int):
    o = e.observe(P(seat))
    return decode(o["observation"], o["action_mask"])


def bot_acts(e, bot, seat: int = 0) -> int:
    """``bot`` decides for ``seat`` (its beliefs observe and remember) and the env applies it."""
    assert e.agent_selection == P(seat)
    o = e.observe(P(seat))
    action = bot.act(o["observation"], o["action_mask"])
    e.step(action)
    return action


# ---------------------------------------------------------------------- counting against the engine
@pytest.mark.parametrize("preset,n", [("classic", 2), ("classic", 4), ("tmnt", 3), ("house", 3),
                                      ("house", 5)])
def test_unseen_cards_are_the_other_hands_and_draw_less_known_cards(preset, n):
    rules = make_rules(preset, uno_call="explicit")
    engine, checked = Engine(rules, n), 0
    encoder = ObservationEncoder(engine)
    for seed in range(3):
        agents = [make_agent("heuristic", rules, n, seed=seed * 10 + i) for i in range(n)]
        s = engine.new_state(np.random.default_rng(seed))
        while not s.game_over and s.steps < 400:
            p = s.actor
            obs, mask = encoder.encode(s, p), A.legal_mask(engine.legal_actions(s))
            v = decode(obs, mask)
            beliefs = agents[p].beliefs
            truth = unseen_truth(s, p)
            assert beliefs.unseen(v) == truth.tolist()
            counting = beliefs.counting(v)
            per_color = [truth[C.COLOR_SLICES[c]].sum() for c in range(C.NUM_COLORS)]
            assert counting.per_color == pytest.approx(per_color)
            assert counting.wilds == truth[C.WILD_SLICE].sum()
            assert counting.total == max(1, truth.sum())
            assert counting.shares == pytest.approx([x / counting.total for x in per_color])
            engine.step(s, agents[p].act(obs, mask))
            checked += 1
    assert checked >= 50  # decisions checked (not vacuous)


@pytest.mark.parametrize("preset,n", [("classic", 2), ("classic", 4), ("tmnt", 3)])
def test_p_block_from_counting_alone(preset, n):
    """Without read voids (``track=0``) and known cards: P(block on colour c, face f) =
    (1 - unseen_c / T)^u * (1 - (unseen_f - unseen_cf + wilds) / T)^u, u = the hand size."""
    rules = make_rules(preset)
    engine = Engine(rules, n)
    encoder = ObservationEncoder(engine)
    checked = 0
    for seed in range(3):
        agents = [make_agent("heuristic:track=0", rules, n, seed=seed * 10 + i) for i in range(n)]
        s = engine.new_state(np.random.default_rng(seed))
        checked += _check_p_block_game(engine, encoder, agents, s)
    assert checked >= 30  # decisions checked (not vacuous)


def _check_p_block_game(engine, encoder, agents, s) -> int:
    """Check every decision of one game at which the decider knows no card of another hand
    (known cards: ``test_an_offered_card_is_known_in_that_hand``); the number checked."""
    n, checked = s.n, 0
    while not s.game_over and s.steps < 300:
        p = s.actor
        obs, mask = encoder.encode(s, p), A.legal_mask(engine.legal_actions(s))
        if not s.known[p].any():
            _check_p_block(agents[p].beliefs, decode(obs, mask), s, p)
            checked += 1
        engine.step(s, agents[p].act(obs, mask))
    return checked


def _check_p_block(beliefs, v, s, p: int) -> None:
    truth = unseen_truth(s, p)
    total, wilds = truth.sum(), truth[C.WILD_SLICE].sum()
    for offset in range(1, s.n):
        u = s.hand_size[(p + offset) % s.n]
        for c in range(C.NUM_COLORS):
            no_color = (1 - truth[C.COLOR_SLICES[c]].sum() / total) ** u
            assert beliefs.opponent(v, offset).p_no[c] == pytest.approx(no_color)
            for f in range(C.NUM_FACES):
                face = sum(truth[C.kind_of(c2, f)] for c2 in range(C.NUM_COLORS)) - truth[C.kind_of(c, f)]
                expected = no_color * (1 - (face + wilds) / total) ** u
                assert beliefs.p_block(v, offset, c, f) == pytest.approx(expected)
            assert beliefs.p_block(v, offset, c, C.NO_FACE) == pytest.approx(no_color * (1 - wilds / total) ** u)


# ---------------------------------------------------------------------- voids, from stacked decks
def _draw_on_red(spec: str = "heuristic"):
    """Seat 0 (the bot) plays red-5 on red-3; seat 1 has no red and no 5 and draws yellow-9;
    the bot decides again. Returns (env, bot)."""
    e = make_env(2, {0: ["red-5", "blue-2", "yellow-7"], 1: ["green-1", "green-2", "yellow-4"]}, "red-3",
                 ["yellow-9"])
    bot = make_agent(spec, e.rules, 2, seed=0)
    assert bot_acts(e, bot) == e.action_id("play red-5")
    act(e, "draw", P(1))
    assert e.agent_selection == P(0)
    bot_acts(e, bot)
    return e, bot


def test_an_opponent_that_draws_on_a_colour_holds_none_of_it():
    e, bot = _draw_on_red()
    assert bot.beliefs.void == [[1.0, 0.0, 0.0, 0.0]]
    v = view_of(e, 0)
    assert bot.beliefs.opponent(v, 1).p_no[RED] == 1.0
    assert bot.beliefs.p_block(v, 1, RED, 0) > bot.beliefs.p_block(v, 1, BLUE, 0)


def test_without_tracking_draws_are_not_read():
    e, bot = _draw_on_red("heuristic:track=0")
    assert bot.beliefs.void == [[0.0] * C.NUM_COLORS]
    assert bot.beliefs.opponent(view_of(e, 0), 1).p_no[RED] < 1.0


def test_leaving_a_colour_without_drawing_makes_a_void_likely():
    """Two players: seat 1 answers red-5 with blue-5: the red void rises from the counting
    prior by the odds factor ``switch_odds`` (1: no evidence), and blue is no void."""
    voids = {}
    for odds in (1.0, 2.0, 4.0):
        e = make_env(2, {0: ["red-5", "green-2", "yellow-7"], 1: ["blue-5", "green-1", "yellow-4"]}, "red-3")
        bot = make_agent(f"heuristic:switch_odds={odds}", e.rules, 2, seed=0)
        assert bot_acts(e, bot) == e.action_id("play red-5")
        act(e, "play blue-5", P(1))
        v = view_of(e, 0)
        share = bot.beliefs.shares(v)
        bot_acts(e, bot)
        voids[odds] = bot.beliefs.void[0]
        prior = (1.0 - share[RED]) ** 2  # seat 1 holds 2 cards
        p = odds * prior / (odds * prior + 1.0 - prior)
        assert voids[odds][RED] == pytest.approx((p - prior) / (1.0 - prior))
        assert voids[odds][BLUE] == 0.0
    assert voids[1.0][RED] == pytest.approx(0.0)
    assert 0.0 < voids[2.0][RED] < voids[4.0][RED] < 1.0


def test_playing_a_colour_clears_its_void():
    e = make_env(2, {0: ["red-5", "green-2", "yellow-7"], 1: ["red-9", "green-1", "yellow-4"]}, "red-3")
    bot = make_agent("heuristic", e.rules, 2, seed=0)
    assert bot_acts(e, bot) == e.action_id("play red-5")
    bot.beliefs.void[0] = [1.0, 1.0, 0.0, 0.0]  # as if seat 1 were believed to hold no red, no yellow
    act(e, "play red-9", P(1))
    bot_acts(e, bot)
    assert bot.beliefs.void[0][RED] == 0.0 and bot.beliefs.void[0][YELLOW] == 1.0


def test_received_cards_weaken_every_void():
    """A Draw Two gives seat 1 two cards of any colour: each void v becomes v * (1 - share)^2."""
    e = make_env(2, {0: ["red-draw2", "green-2", "yellow-7"], 1: ["green-1", "green-3", "yellow-4"]}, "red-3")
    bot = make_agent("heuristic", e.rules, 2, seed=0)
    assert bot_acts(e, bot) == e.action_id("play red-draw2")
    bot.beliefs.void[0] = [1.0, 0.5, 0.0, 0.0]
    assert e.agent_selection == P(0) and e.game_state.hand_size[1] == 5  # took 2, lost the turn
    share = bot.beliefs.shares(view_of(e, 0))
    bot_acts(e, bot)
    assert bot.beliefs.void[0] == pytest.approx([(1 - share[RED]) ** 2, 0.5 * (1 - share[YELLOW]) ** 2, 0, 0])


# ---------------------------------------------------------------------- known cards
def test_an_offered_card_is_known_in_that_hand():
    e = make_env(2, {0: ["blue-1", "blue-2", "green-4"], 1: ["red-9", "yellow-6", "green-1"]}, "red-3",
                 ["yellow-8", "yellow-2"], giving=True)
    act(e, "ask", P(0))
    act(e, "offer yellow-6", P(1))
    assert e.game_state.phase == TAKE
    act(e, "pass", P(0))  # seat 0 draws instead: seat 1 keeps its known yellow-6
    act(e, "draw", P(1))
    bot = make_agent("heuristic", e.rules, 2, seed=0)
    v = view_of(e, 0)
    assert v.known_any and v.opponents[0].known[e.card_id("yellow-6")] == 1
    model = bot.beliefs.opponent(v, 1)
    assert model.known[e.card_id("yellow-6")] == 1 and model.unknown == e.game_state.hand_size[1] - 1
    assert model.p_no[YELLOW] == 0.0 and 0.0 < model.p_no[BLUE] < 1.0
    assert bot.beliefs.p_block(v, 1, YELLOW, 3) == 0.0  # it can follow yellow
    assert bot.beliefs.p_block(v, 1, GREEN, 6) == 0.0  # and a 6
    assert bot.beliefs.p_block(v, 1, GREEN, 7) > 0.0


# ---------------------------------------------------------------------- challenge inputs
def _wd4(hand_1: list[str], spec: str = "heuristic"):
    """Seat 0 (the bot) draws on red-8; seat 1 plays a Wild Draw Four (blue); seat 0 decides."""
    hand_0 = ["blue-1", "blue-2", "blue-6", "green-4", "green-5", "yellow-6", "yellow-7"][:len(hand_1)]
    e = make_env(2, {0: hand_0, 1: hand_1}, "red-8", ["blue-9"], hand_size=len(hand_1))
    bot = make_agent(spec, e.rules, 2, seed=0)
    assert bot_acts(e, bot) == A.DRAW
    act(e, "play wild-draw4 blue", P(1))
    assert e.game_state.phase == CHALLENGE and e.agent_selection == P(0)
    return e, bot


@pytest.mark.parametrize("hand_1", [["green-9", "wild-draw4"], ["red-1", "red-2", "green-9", "yellow-2",
                                                                 "yellow-4", "blue-7", "wild-draw4"]])
def test_colour_before_a_wild_draw4_and_the_chance_its_player_held_it(hand_1):
    """By counting alone (``track=0``): 1 - P(none of its cards is red); with tracking, leaving
    red for a wild makes a red void likely, so the chance is lower."""
    e, bot = _wd4(hand_1, "heuristic:track=0")
    v = view_of(e, 0)
    assert bot.beliefs.previous_color(v) == RED
    truth = unseen_truth(e.game_state, 0)
    red = truth[C.COLOR_SLICES[RED]].sum()
    held = 1 - (1 - red / truth.sum()) ** (len(hand_1) - 1)
    assert bot.beliefs.p_held_previous_color(v) == pytest.approx(held)
    e, tracking = _wd4(hand_1)
    v = view_of(e, 0)
    tracking.beliefs.observe(v)  # what act() does first
    assert 0.0 < tracking.beliefs.p_held_previous_color(v) < held


def test_previous_colour_is_unknown_without_memory():
    e, _ = _wd4(["green-9", "wild-draw4"])
    fresh = make_agent("heuristic", e.rules, 2, seed=0)  # saw nothing before this decision
    assert fresh.beliefs.previous_color(view_of(e, 0)) == -1


def test_previous_colour_is_unknown_after_two_wilds():
    """Three players: seat 1 plays a Wild (choosing blue), seat 2 a Wild Draw Four: the colour
    before the Draw Four is not the one seat 0 remembers."""
    e = make_env(3, {0: ["blue-1", "blue-2", "green-4"], 1: ["wild", "green-1", "yellow-2"],
                     2: ["wild-draw4", "green-3", "yellow-3"]}, "red-8", ["blue-9"])
    bot = make_agent("heuristic", e.rules, 3, seed=0)
    assert bot_acts(e, bot) == A.DRAW
    act(e, "play wild blue", P(1))
    act(e, "play wild-draw4 green", P(2))
    assert e.game_state.phase == CHALLENGE and e.agent_selection == P(0)
    assert bot.beliefs.previous_color(view_of(e, 0)) == -1


def test_the_cards_of_my_wild_draw4_are_not_read_as_a_draw():
    """How many cards a Wild Draw Four makes its victim take depends on a challenge; they
    neither show a void nor weaken one (unlike a Draw Two's, above)."""
    e = make_env(2, {0: ["wild-draw4", "green-2", "yellow-7"], 1: ["green-1", "green-3", "yellow-4"]}, "red-3",
                 hand_size=3)
    bot = make_agent("heuristic", e.rules, 2, seed=0)
    assert A.played_kind(bot_acts(e, bot)) == C.WILD_DRAW4  # no red, no 3
    bot.beliefs.void[0] = [0.5, 0.5, 0.0, 0.0]
    act(e, "draw", P(1))  # takes the four cards, loses the turn
    assert e.agent_selection == P(0) and e.game_state.hand_size[1] == 7
    bot_acts(e, bot)
    assert bot.beliefs.void[0] == [0.5, 0.5, 0.0, 0.0]
