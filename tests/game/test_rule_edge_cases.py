"""Scenario tests for rule edge cases that had no scenario test yet (RULES.md 2-9).

Like ``test_engine_rules`` and ``test_house_rules``: stacked decks (``helpers.stacked_deck``),
small hands, the dealer is the last seat unless said otherwise (so seat 0 plays first), and
every test is named after the rule it checks. Later rounds are shuffled by the env RNG, so
the tests about a second round search reset seeds (bounded, deterministic) for the deal
they need, playing the first round from a stacked deck and the second with a fixed policy.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from helpers import (CLASSIC_COLORS, TMNT_COLORS, P, act, assert_conserved, hand, known, legal_names,
                     make_env, offer_seen, size)

from uno_env.game import observation as O
from uno_env.game.engine import CATCH, COLOR, DISCARD, DRAWN, JUMP, OFFER, OVER, TAKE, TURN


def make(*args, rules="classic", **kwargs):
    return make_env(*args, rules=rules, **kwargs)



def final_rewards(e) -> dict:
    """Every agent's reward as the AEC loop hands it out through ``last()``."""
    got = {}
    for agent in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        assert term and not trunc and agent not in got
        got[agent] = reward
        e.step(None)
    assert e.agents == []
    return got


def play_fixed_policy(e, limit: int = 5000) -> None:
    """Play on with the lowest legal action id until the episode ends (deterministic)."""
    for _ in range(limit):
        if e.game_state.game_over:
            return
        e.step(e.legal_actions()[0])
    raise AssertionError("the episode did not end")


# ====================================================================== 1. Reverse with 2 players
def test_two_player_reverse_without_skip_option_only_flips_direction():
    e = make(2, {0: ["red-reverse", "green-4", "green-5"], 1: ["red-reverse", "yellow-1", "yellow-2"]},
             "red-3", two_player_reverse_skips=False)
    assert e.agent_selection == P(0) and e.game_state.direction == 1
    act(e, "play red-reverse", P(0))
    snap = e.snapshot()
    # the direction flips and nobody is skipped: the opponent plays next (with the skip
    # behaviour seat 0 would play again)
    assert snap["direction"] == "counter-clockwise" and snap["current"] == P(1)
    assert snap["phase"] == "turn" and snap["turn"] == P(1)
    for seat in (0, 1):
        assert e.observe(P(seat))["observation"][O.DIRECTION] == 1.0
    act(e, "play red-reverse", P(1))
    snap = e.snapshot()
    assert snap["direction"] == "clockwise" and snap["current"] == P(0)
    assert e.observe(P(0))["observation"][O.DIRECTION] == 0.0


def test_two_player_reverse_with_skip_option_the_player_plays_again():
    e = make(2, {0: ["red-reverse", "green-4", "green-5"]}, "red-3")
    act(e, "play red-reverse", P(0))
    snap = e.snapshot()
    assert snap["direction"] == "clockwise" and snap["current"] == P(0)


def test_two_player_first_card_reverse_without_skip_option_dealer_starts_counter_clockwise():
    e = make(2, {}, "red-reverse", dealer=0, two_player_reverse_skips=False)
    snap = e.snapshot()
    assert snap["current"] == P(0) and snap["direction"] == "counter-clockwise"
    assert all(len(h) == 3 for h in snap["hands"].values())
    skips = make(2, {}, "red-reverse", dealer=0)
    assert skips.snapshot()["current"] == P(0) and skips.snapshot()["direction"] == "clockwise"


# ====================================================================== 2. explicit UNO
def test_uno_explicit_called_in_drawn_phase_then_no_catch_window():
    e = make(3, {0: ["green-1"]}, "red-5", ["red-6"], hand_size=1, uno_call="explicit")
    act(e, "draw", P(0))
    assert e.game_state.phase == DRAWN and size(e, 0) == 2
    assert legal_names(e) == {"play red-6", "pass", "uno"}
    act(e, "uno", P(0))
    snap = e.snapshot()
    assert snap["uno_called"][P(0)] and snap["phase"] == "drawn" and snap["current"] == P(0)
    assert legal_names(e) == {"play red-6", "pass"}  # the call is made once
    act(e, "play red-6", P(0))
    snap = e.snapshot()
    assert snap["phase"] == "turn" and snap["current"] == P(1)
    assert hand(e, 0) == Counter(["green-1"])


def test_uno_explicit_call_lapses_when_the_turn_ends_without_a_play():
    """RULES 7: UNO is called *when playing* the next-to-last card; a call followed by keeping
    the drawn card lapses at the end of the turn, so the next next-to-last play must call again."""
    e = make(3, {0: ["green-1"]}, "red-5", ["red-6"], hand_size=1, uno_call="explicit")
    act(e, "draw", P(0))
    act(e, "uno", P(0))
    act(e, "pass", P(0))  # keeps red-6: two cards in hand
    snap = e.snapshot()
    assert snap["current"] == P(1) and not snap["uno_called"][P(0)]
    assert e.observe(P(1))["observation"][O.OPPONENTS + 1 * O.OPP_FIELDS + 3] == 0.0  # seat 0 is 2 seats to its left


def test_uno_explicit_not_called_in_drawn_phase_opens_catch_window():
    e = make(3, {0: ["green-1"]}, "red-5", ["red-6"], hand_size=1, uno_call="explicit")
    act(e, "draw", P(0))
    act(e, "play red-6", P(0))
    assert e.game_state.phase == CATCH and e.agent_selection == P(1)


TA_HAND = ["team-attack", "blue-1", "orange-2", "purple-9"]


def test_uno_explicit_team_attack_discards_to_one_card_without_call_catch_window_after_discards():
    e = make(3, {0: TA_HAND}, "blue-5", ["blue-9", "orange-9"], rules="tmnt", hand_size=4,
             uno_call="explicit")
    act(e, "play team-attack red", P(0))
    assert e.game_state.phase == DISCARD and "uno" not in legal_names(e)  # three cards left
    act(e, "discard blue-1", P(0))
    assert e.game_state.phase == DISCARD and legal_names(e) == {"discard orange-2", "pass", "uno"}
    act(e, "discard orange-2", P(0))  # one card left, UNO not called
    snap = e.snapshot()
    assert snap["discard_pile"] == ["blue-5", "blue-1", "orange-2", "team-attack"]
    assert snap["phase"] == "catch" and snap["current"] == P(1)
    assert legal_names(e) == {"catch", "pass"}
    act(e, "catch", P(1))
    act(e, "pass", P(2))
    assert hand(e, 0) == Counter(["purple-9", "blue-9", "orange-9"])
    assert e.snapshot()["current"] == P(1) and e.game_state.phase == TURN
    assert_conserved(e)


def test_uno_explicit_called_during_team_attack_discards_then_no_catch_window():
    e = make(3, {0: TA_HAND}, "blue-5", rules="tmnt", hand_size=4, uno_call="explicit")
    act(e, "play team-attack red", P(0))
    act(e, "discard blue-1", P(0))
    act(e, "uno", P(0))
    assert e.game_state.phase == DISCARD and e.game_state.uno_called[0]
    act(e, "discard orange-2", P(0))
    assert e.game_state.phase == TURN and e.agent_selection == P(1)
    assert hand(e, 0) == Counter(["purple-9"])


# a deck of eight cards, every one a 0 (so every card matches every other by number)
ZEROS = dict(count_zero=2, count_number=0, count_draw2=0, count_reverse=0, count_skip=0,
             count_wild=0, count_wild_draw4=0)


def _zeros_env():
    e = make(3, {0: ["red-0", "yellow-0"], 1: ["green-0", "blue-0"], 2: ["red-0", "yellow-0"]},
             "green-0", ["blue-0"], hand_size=2, uno_call="explicit", **ZEROS)
    act(e, "draw", P(0))  # the last card of DRAW
    act(e, "pass", P(0))
    assert e.game_state.draw_pile == [] and size(e, 0) == 3
    return e


def test_uno_catch_penalty_when_piles_run_dry_draws_only_what_is_left():
    e = _zeros_env()
    act(e, "play green-0", P(1))  # one card left, UNO not called
    assert e.game_state.phase == CATCH and e.agent_selection == P(2)
    act(e, "catch", P(2))
    act(e, "pass", P(0))
    # penalty 2: DISCARD except its top is reshuffled (one card) and drawn; then both
    # piles are empty and the second card is not drawn
    snap = e.snapshot()
    assert hand(e, 1) == Counter(["blue-0", "green-0"])
    assert snap["draw_pile"] == [] and snap["discard_pile"] == ["green-0"]
    assert snap["current"] == P(2) and snap["phase"] == "turn"
    assert_conserved(e)


def test_uno_catch_penalty_with_both_piles_empty_offender_draws_nothing():
    e = _zeros_env()
    act(e, "play green-0", P(1))  # one card left, UNO not called
    assert e.game_state.phase == CATCH
    # state set-up: after a play DISCARD always holds at least two cards, so (in the catch
    # window) move the card under the top into seat 2's hand: both piles are then empty
    s = e.game_state
    k = s.discard.pop(0)
    s.played[k] -= 1
    e.engine._add(s, 2, k)
    assert s.discard == [e.card_id("green-0")] and s.draw_pile == []
    assert_conserved(e)
    act(e, "catch", P(2))
    act(e, "catch", P(0))
    snap = e.snapshot()
    assert hand(e, 1) == Counter(["blue-0"])  # nothing to draw
    assert snap["current"] == P(2) and snap["phase"] == "turn"
    assert_conserved(e)
    act(e, "draw", P(2))  # drawing still draws nothing, the turn passes
    assert e.agent_selection == P(0)
    assert_conserved(e)


# ====================================================================== 3. rounds and scoring
SCORING_HANDS = {0: ["red-1", "red-2"], 1: ["blue-reverse", "wild"], 2: ["green-skip", "wild-draw4"]}
SCORING_DRAW = ["yellow-9", "blue-draw2"]
P1_LEFT = 20 + 50 + 9
P2_LEFT = 20 + 50 + 20


def scoring_round_one(seed=0, **overrides):
    """Round 1 from a stacked deck: seat 0 goes out leaving 79 points to seat 1, 90 to seat 2."""
    e = make(3, SCORING_HANDS, "red-5", SCORING_DRAW, seed=seed, hand_size=2, **overrides)
    act(e, "play red-1", P(0))
    act(e, "draw", P(1))
    act(e, "draw", P(2))
    act(e, "play red-2", P(0))
    assert e.game_state.round == 1 and e.game_state.round_winner == 0
    return e


def _find_two_round_episode(scoring: str):
    """Seed whose second round (fixed policy) is won by a player who is not the episode winner."""
    for seed in range(500):
        e = scoring_round_one(seed, episode="rounds", num_rounds=2, scoring=scoring)
        assert not e.game_state.game_over
        play_fixed_policy(e)
        s = e.game_state
        best = max(s.scores) if scoring == "standard" else min(s.scores)
        if s.round == 2 and s.round_winner != s.winner and s.scores.count(best) == 1:
            return e
    pytest.fail("no seed in 0..499 gives a second-round winner other than the episode winner")


def test_rounds_episode_winner_is_highest_total_after_num_rounds_standard_scoring():
    e = scoring_round_one(episode="rounds", num_rounds=2)
    assert e.game_state.scores == [P1_LEFT + P2_LEFT, 0, 0] and not e.game_state.game_over
    e = _find_two_round_episode("standard")
    s = e.game_state
    assert s.phase == OVER and s.round == 2
    champion = int(np.argmax(s.scores))
    assert s.winner == champion != s.round_winner  # totals decide, not the last round
    assert e.snapshot()["winner"] == P(champion)
    assert final_rewards(e) == {P(i): 1.0 if i == champion else -0.5 for i in range(3)}


def test_rounds_episode_winner_is_lowest_tally_after_num_rounds_alternative_scoring():
    e = scoring_round_one(episode="rounds", num_rounds=2, scoring="alternative")
    assert e.game_state.scores == [0, P1_LEFT, P2_LEFT] and not e.game_state.game_over
    e = _find_two_round_episode("alternative")
    s = e.game_state
    assert s.phase == OVER and s.round == 2
    champion = int(np.argmin(s.scores))
    assert s.winner == champion != s.round_winner
    assert final_rewards(e) == {P(i): 1.0 if i == champion else -0.5 for i in range(3)}


def test_alternative_scoring_game_ends_when_a_tally_reaches_small_target_lowest_wins():
    # seat 2's tally (90) reaches 85: the game ends, the lowest tally (seat 0, 0) wins
    e = scoring_round_one(episode="game", scoring="alternative", target_score=85)
    s = e.game_state
    assert s.game_over and s.phase == OVER and s.scores == [0, P1_LEFT, P2_LEFT]
    assert s.winner == 0
    assert final_rewards(e) == {P(0): 1.0, P(1): -0.5, P(2): -0.5}


@pytest.mark.parametrize("seed", range(3))
def test_alternative_scoring_game_goes_on_below_target_then_lowest_tally_wins(seed):
    e = scoring_round_one(seed, episode="game", scoring="alternative", target_score=100)
    assert not e.game_state.game_over and max(e.game_state.scores) == 90 < 100
    rounds = 1
    for _ in range(20000):
        if e.game_state.game_over:
            break
        e.step(e.legal_actions()[0])
        if e.game_state.round != rounds and not e.game_state.game_over:
            rounds = e.game_state.round
            assert max(e.game_state.scores) < 100
    s = e.game_state
    assert s.game_over and s.round >= 2 and max(s.scores) >= 100
    assert s.winner == s.scores.index(min(s.scores))
    assert final_rewards(e) == {P(i): 1.0 if i == s.winner else -0.5 for i in range(3)}


# ====================================================================== 4. winner starts
def _find_second_round_first_card(face: str, **overrides):
    for seed in range(500):
        e = scoring_round_one(seed, episode="rounds", num_rounds=2, **overrides)
        if e.snapshot()["top"].endswith("-" + face):
            return seed, e
    pytest.fail(f"no seed in 0..499 turns a {face} as the second round's first card")


def test_winner_starts_second_round_dealer_is_right_of_winner():
    e = scoring_round_one(episode="rounds", num_rounds=2, winner_starts=True)
    assert e.snapshot()["dealer"] == P(2)  # seat 0 won: seat 2 is to its right
    off = scoring_round_one(episode="rounds", num_rounds=2)
    assert off.snapshot()["dealer"] == P(0)  # the deal passes left from dealer 2


def test_winner_starts_first_card_skip_skips_the_winner():
    seed, e = _find_second_round_first_card("skip", winner_starts=True)
    snap = e.snapshot()
    assert snap["dealer"] == P(2) and snap["round"] == 1
    assert snap["current"] == P(1) and snap["phase"] == "turn"  # the winner, seat 0, is skipped
    assert snap["direction"] == "clockwise"
    assert all(len(h) == 2 for h in snap["hands"].values())
    assert_conserved(e)
    # same seed without winner_starts: same deal order, dealer 0, so seat 1 is skipped
    off = scoring_round_one(seed, episode="rounds", num_rounds=2)
    assert off.snapshot()["top"] == snap["top"] and off.snapshot()["current"] == P(2)


def test_winner_starts_first_card_reverse_dealer_right_of_winner_starts():
    _, e = _find_second_round_first_card("reverse", winner_starts=True)
    snap = e.snapshot()
    assert snap["current"] == P(2) and snap["direction"] == "counter-clockwise"


def test_winner_starts_first_card_draw_two_winner_draws_two_and_is_skipped():
    _, e = _find_second_round_first_card("draw2", winner_starts=True)
    snap = e.snapshot()
    assert [len(snap["hands"][P(i)]) for i in range(3)] == [4, 2, 2]
    assert snap["current"] == P(1)


# ====================================================================== 5. first card SEWERS
def test_first_card_sewers_without_stacking_first_player_chooses_colour_draws_shows_and_loses_turn():
    drawn = ["yellow-5", "red-1", "wild", "blue-4"]
    p0 = ["yellow-1", "green-1", "from-the-sewers"]
    e = make(3, {0: p0}, "from-the-sewers", drawn + ["green-3"], rules="house", stacking=False,
             jump_in=False, seven_slap=False)
    assert e.game_state.phase == COLOR and e.agent_selection == P(0)
    assert legal_names(e) == {f"color {c}" for c in CLASSIC_COLORS}
    act(e, "color blue", P(0))
    snap = e.snapshot()
    # no stacking: seat 0 may not stack its SEWERS; it draws until it holds every colour
    assert hand(e, 0) == Counter(p0 + drawn)
    assert snap["draw_pile"][0] == "green-3"
    assert snap["pending_draw"] == 0 and snap["color"] == "blue"
    assert snap["current"] == P(1) and snap["phase"] == "turn"  # seat 0 lost its turn
    for observer in (1, 2):  # the drawn cards (and only those) are known to everyone else
        assert known(e, observer, 0) == Counter(drawn)
    # the raw layout: seat 0 is two seats to seat 1's left (opponent slot 1)
    obs = e.observe(P(1))["observation"]
    base = O.OPPONENTS + 1 * O.OPP_FIELDS + O.OPP_KNOWN
    assert obs[base + e.card_id("wild")] == 1 and obs[base + e.card_id("from-the-sewers")] == 0
    assert known(e, 2, 1) == known(e, 1, 2) == Counter()
    assert_conserved(e)


# ====================================================================== 6. jump-in Team Attack
def test_jump_in_team_attack_onto_team_attack_jumper_discards_villains():
    e = make(3, {0: ["team-attack", "orange-9", "purple-8", "red-7"],  # no villains
                 1: ["team-attack", "blue-1", "orange-2", "red-9"],
                 2: ["purple-5", "purple-6", "blue-7", "orange-8"]}, "blue-5", rules="tmnt",
             hand_size=4, jump_in=True)
    act(e, "play team-attack red", P(0))
    assert e.game_state.phase == JUMP and e.agent_selection == P(1)
    assert legal_names(e) == {f"play team-attack {c}" for c in TMNT_COLORS} | {"pass"}
    act(e, "play team-attack purple", P(1))
    snap = e.snapshot()
    assert snap["phase"] == "discard" and snap["current"] == P(1) and snap["color"] == "purple"
    assert legal_names(e) == {"discard blue-1", "discard orange-2", "pass"}
    act(e, "discard blue-1", P(1))
    act(e, "discard orange-2", P(1))  # no villain left: the discard phase ends
    snap = e.snapshot()
    assert snap["discard_pile"] == ["blue-5", "team-attack", "blue-1", "orange-2", "team-attack"]
    assert hand(e, 1) == Counter(["red-9"])
    # play continues from the jumper
    assert snap["current"] == P(2) and snap["phase"] == "turn"
    assert {a for a in legal_names(e) if a.startswith("play")} == {"play purple-5", "play purple-6"}
    assert_conserved(e)


# ====================================================================== 7. giving: knowledge
def test_giving_taken_card_known_to_all_others_untaken_offer_known_in_givers_block():
    e = make(4, {0: ["green-1", "green-2", "yellow-4"],  # nothing playable on red-3
                 1: ["red-5", "blue-1", "blue-2"],
                 2: ["blue-6", "blue-8", "yellow-6"],
                 3: ["yellow-7", "yellow-8", "green-9"]}, "red-3", giving=True)
    act(e, "ask", P(0))
    assert e.game_state.phase == OFFER
    act(e, "offer red-5", P(1))
    act(e, "offer blue-6", P(2))
    act(e, "pass", P(3))
    assert e.game_state.phase == TAKE and legal_names(e) == {"pass", "take 1", "take 2"}
    act(e, "take 1", P(0))
    assert hand(e, 0)["red-5"] == 1 and hand(e, 1)["red-5"] == 0
    for observer in (1, 2, 3):  # the taken card: known in the taker's block of every other
        assert known(e, observer, 0) == Counter(["red-5"])
    for observer in (0, 1, 3):  # the offer not taken: known in its giver's block
        assert known(e, observer, 2) == Counter(["blue-6"])
    for observer in (0, 2, 3):  # the taken card left the giver's hand
        assert known(e, observer, 1) == Counter()
    assert known(e, 0, 3) == known(e, 1, 3) == Counter()
    for observer in range(4):  # the offers are closed
        assert all(offer_seen(e, observer, q) is None for q in range(4) if q != observer)
    assert e.game_state.phase == DRAWN and legal_names(e) == {"play red-5", "draw"}
    act(e, "play red-5", P(0))
    assert known(e, 1, 0) == Counter() and known(e, 1, 2) == Counter(["blue-6"])


# ====================================================================== 8. challenge: knowledge
@pytest.mark.parametrize("guilty", [False, True])
def test_challenge_under_stacking_challenged_hand_known_to_challenger_only(guilty):
    p1_rest = ["green-1" if guilty else "yellow-1", "blue-1"]
    e = make(4, {0: ["wild-draw4", "red-4", "green-5"],
                 1: ["wild-draw4"] + p1_rest,
                 2: ["yellow-6", "yellow-8", "yellow-9"],
                 3: ["green-7", "green-8", "red-9"]}, "red-3", stacking=True)
    act(e, "play wild-draw4 green", P(0))
    act(e, "play wild-draw4 blue", P(1))
    assert legal_names(e) == {"challenge", "draw"} and e.agent_selection == P(2)
    act(e, "challenge", P(2))
    # the challenger alone sees seat 1's hand as it was when challenged
    assert known(e, 2, 1) == Counter(p1_rest)
    assert known(e, 0, 1) == known(e, 3, 1) == Counter()
    for observer in range(4):
        for seat in range(4):
            if seat != observer and (observer, seat) != (2, 1):
                assert known(e, observer, seat) == Counter(), (observer, seat)
    if guilty:
        assert size(e, 1) == 2 + 8 and e.agent_selection == P(2)
    else:
        assert size(e, 2) == 3 + 8 + 2 and e.agent_selection == P(3)
    assert_conserved(e)


# ====================================================================== 9. draw until playable, empty piles
def test_draw_until_playable_with_both_piles_empty_draws_nothing_and_turn_passes():
    """RULES 8: if both piles are empty, a player who must draw draws nothing and the turn
    passes, also under the house draw rule (draw until a playable card)."""
    e = make(3, {0: ["red-0", "yellow-0"], 1: ["green-0", "blue-0"], 2: ["red-0", "yellow-0"]},
             "green-0", ["blue-0"], hand_size=2, draw_rule="until_playable", **ZEROS)
    act(e, "draw", P(0))  # the last card of DRAW (every card is playable): one card, kept
    assert size(e, 0) == 3 and e.game_state.phase == DRAWN
    act(e, "pass", P(0))
    snap = e.snapshot()
    assert snap["draw_pile"] == [] and snap["discard_pile"] == ["green-0"]
    act(e, "draw", P(1))
    snap = e.snapshot()
    assert hand(e, 1) == Counter(["green-0", "blue-0"])
    assert snap["current"] == P(2) and snap["phase"] == "turn"
    assert snap["draw_pile"] == [] and snap["discard_pile"] == ["green-0"]
    assert_conserved(e)
