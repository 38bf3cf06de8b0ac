"""Scenario tests for the house rules (RULES.md section 6, issue 3), from stacked decks.

Every test deals a stacked deck (``helpers.stacked_deck``: hands round-robin from the left of
the dealer, then the first DISCARD card, then ``draw_top``; unplaced cards fill the bottom
of DRAW in card-kind order) with a small ``hand_size`` so the scenario is short. The dealer
is the last seat, so seat 0 plays first. Each test names the rule it checks.
"""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest

from helpers import (CLASSIC_COLORS, P, act, assert_conserved, deck_cards, hand, known,
                     legal_names, make_env, offer_seen, opp_block, size)

import uno_env
from uno_env.game import observation as O
from uno_env.game.rules import PRESET_DIR
from uno_env.game.engine import CHALLENGE, COLOR, DRAWN, JUMP, OFFER, TAKE, TURN


def make(*args, rules="house", **kwargs):
    return make_env(*args, rules=rules, **kwargs)



def phase_seen(e, observer: int) -> np.ndarray:
    return e.observe(P(observer))["observation"][O.PHASE:O.PHASE + O.NUM_PHASES]


def uno_flag_seen(e, observer: int, seat: int) -> float:
    return float(opp_block(e, observer, seat)[O.OPP_UNO])


def pending_seen(e, observer: int) -> tuple[int, list[float]]:
    obs = e.observe(P(observer))["observation"]
    return int(obs[O.PENDING]), list(obs[O.PENDING_KIND:O.DIRECTION])


# ====================================================================== deck and configs
def test_house_deck_has_560_cards_plus_20_sewers():
    r = uno_env.make_rules("house")
    counts = Counter(deck_cards(r))
    assert r.deck_size() == 580 == sum(counts.values())
    assert counts["from-the-sewers"] == 20
    assert counts["wild"] == 40 and counts["wild-draw4"] == 20
    for c in CLASSIC_COLORS:
        assert counts[f"{c}-0"] == 5
        assert all(counts[f"{c}-{f}"] == 10 for f in list(range(1, 10)) + ["draw2", "reverse", "skip"])
        assert sum(v for k, v in counts.items() if k.startswith(c + "-")) == 125
    assert uno_env.make_rules("house", count_sewers=0).deck_size() == 560
    assert uno_env.make_rules("house", count_sewers=3).deck_size() == 563


def test_house_configs_match_presets():
    house = uno_env.make_rules(os.path.join(PRESET_DIR, "house.yaml"))
    assert house.to_dict() == uno_env.make_rules("house").to_dict()
    csj = uno_env.make_rules("classic-stacking-jumpin")
    expected = uno_env.make_rules("classic", stacking=True, jump_in=True, name="classic-stacking-jumpin")
    assert csj.to_dict() == expected.to_dict()
    assert csj.deck_size() == 108 and not csj.giving and not csj.seven_slap


def test_observation_shows_house_rule_flags():
    e = make(3, {}, "red-3")
    flags = e.observe(P(0))["observation"][O.RULES:]
    # stacking, jump_in, seven_slap, giving, until_playable, explicit uno, bluff, challenge, tmnt, n/10
    assert list(flags[:8]) == [1, 1, 1, 1, 1, 0, 1, 1]
    assert flags[8] == 0 and flags[9] == pytest.approx(0.3)


# ====================================================================== stacking
STACK_ONLY = dict(jump_in=False, seven_slap=False, giving=False)


def test_stacking_draw2_on_draw2_next_player_takes_the_sum_and_loses_turn():
    e = make(3, {0: ["red-draw2", "green-4", "green-5"],
                 1: ["blue-draw2", "yellow-1", "yellow-2"],
                 2: ["green-6", "green-8", "yellow-9"]}, "red-3", **STACK_ONLY)
    act(e, "play red-draw2", P(0))
    assert e.agent_selection == P(1) and e.game_state.phase == TURN
    assert legal_names(e) == {"play blue-draw2", "draw"}  # stack or take it all
    assert pending_seen(e, 1) == (2, [1.0, 0.0, 0.0])
    assert pending_seen(e, 2) == (2, [1.0, 0.0, 0.0])  # public
    act(e, "play blue-draw2", P(1))
    # seat 2 cannot stack: it takes 4 with no decision and loses its turn
    assert size(e, 2) == 7
    assert e.game_state.pending == 0 and e.agent_selection == P(0)
    assert pending_seen(e, 0) == (0, [0.0, 0.0, 0.0])


def test_stacking_player_may_take_the_count_instead_of_stacking():
    e = make(3, {0: ["red-draw2", "green-4", "green-5"],
                 1: ["blue-draw2", "yellow-1", "yellow-2"]}, "red-3", **STACK_ONLY)
    act(e, "play red-draw2", P(0))
    act(e, "draw", P(1))
    assert size(e, 1) == 5 and e.game_state.pending == 0
    assert e.agent_selection == P(2) and e.game_state.phase == TURN  # seat 1 lost its turn


def test_stacking_never_mixes_draw_cards():
    hands = {0: ["red-draw2", "wild-draw4", "from-the-sewers"],
             1: ["yellow-draw2", "wild-draw4", "from-the-sewers"],
             2: ["green-6", "green-8", "yellow-9"]}
    e = make(3, hands, "red-3", **STACK_ONLY)
    act(e, "play red-draw2", P(0))
    assert legal_names(e) == {"play yellow-draw2", "draw"}

    e = make(3, hands, "red-3", **STACK_ONLY)
    act(e, "play wild-draw4 green", P(0))
    assert e.game_state.phase == CHALLENGE
    assert legal_names(e) == {"challenge", "draw"} | {f"play wild-draw4 {c}" for c in CLASSIC_COLORS}

    e = make(3, hands, "red-3", **STACK_ONLY)
    act(e, "play from-the-sewers green", P(0))
    assert legal_names(e) == {"draw"} | {f"play from-the-sewers {c}" for c in CLASSIC_COLORS}
    assert pending_seen(e, 2) == (1, [0.0, 0.0, 1.0])


def test_stacking_draw4_on_draw4_next_player_draws_eight():
    e = make(3, {0: ["wild-draw4", "green-4", "green-5"],
                 1: ["wild-draw4", "blue-1", "yellow-1"],
                 2: ["green-6", "green-8", "yellow-9"]}, "red-3", **STACK_ONLY)
    act(e, "play wild-draw4 green", P(0))
    act(e, "play wild-draw4 blue", P(1))
    assert e.agent_selection == P(2) and e.game_state.phase == CHALLENGE
    assert pending_seen(e, 2) == (8, [0.0, 1.0, 0.0])
    assert legal_names(e) == {"challenge", "draw"}  # seat 2 holds no Draw Four
    act(e, "draw", P(2))
    assert size(e, 2) == 11 and e.agent_selection == P(0)
    assert e.snapshot()["color"] == "blue"


def test_stacking_sewers_on_sewers_victim_needs_two_of_each_colour():
    drawn = ["green-1", "blue-1", "wild", "yellow-3", "green-2", "red-2", "blue-2"]
    e = make(3, {0: ["from-the-sewers", "red-4", "red-5"],
                 1: ["from-the-sewers", "red-6", "red-8"],
                 2: ["red-9", "red-1", "yellow-2"]}, "red-3", drawn + ["blue-3", "green-3"],
             **STACK_ONLY)
    act(e, "play from-the-sewers red", P(0))
    act(e, "play from-the-sewers yellow", P(1))
    # seat 2 holds red 2, yellow 1: it draws until 2 of each colour (the wild counts for none)
    assert hand(e, 2) == Counter(["red-9", "red-1", "yellow-2"] + drawn)
    assert e.game_state.pending == 0
    assert e.agent_selection == P(0)  # seat 2 lost its turn
    for observer in (0, 1):  # the drawn cards are shown to everyone
        assert known(e, observer, 2) == Counter(drawn)
    assert known(e, 1, 0) == Counter()
    assert_conserved(e)


def test_stacked_reverses_each_reverse():
    e = make(4, {0: ["red-reverse", "green-4", "green-5"],
                 3: ["blue-reverse", "yellow-1", "yellow-2"]}, "red-3", **STACK_ONLY)
    act(e, "play red-reverse", P(0))
    assert e.agent_selection == P(3) and e.game_state.direction == -1
    act(e, "play blue-reverse", P(3))
    assert e.agent_selection == P(0) and e.game_state.direction == 1


def test_stacked_reverses_each_reverse_with_jump_in():
    e = make(4, {0: ["red-reverse", "green-4", "green-5"],
                 1: ["yellow-4", "yellow-1", "yellow-2"],
                 2: ["red-reverse", "blue-4", "blue-5"],
                 3: ["yellow-5", "yellow-6", "yellow-8"]}, "red-3", giving=False)
    act(e, "play red-reverse", P(0))
    assert e.game_state.phase == JUMP and e.agent_selection == P(2)
    act(e, "play red-reverse", P(2))
    # two Reverses: clockwise again, and play continues from the jumper
    assert e.game_state.direction == 1 and e.agent_selection == P(3) and e.game_state.phase == TURN


def test_stacked_skips_skip_only_one_player():
    e = make(4, {0: ["red-skip", "green-4", "green-5"],
                 1: ["yellow-4", "yellow-1", "yellow-2"],
                 2: ["red-skip", "blue-4", "blue-5"],
                 3: ["yellow-5", "yellow-6", "yellow-8"]}, "red-3", giving=False)
    act(e, "play red-skip", P(0))
    act(e, "play red-skip", P(2))  # jump-in
    # continue from seat 2: seat 3 is skipped, and only seat 3
    assert e.agent_selection == P(0) and e.game_state.phase == TURN


def test_stacking_off_pending_draw2_is_taken_without_a_decision():
    e = make(3, {0: ["red-draw2", "green-4", "green-5"],
                 1: ["blue-draw2", "yellow-1", "yellow-2"]}, "red-3", stacking=False, **STACK_ONLY)
    act(e, "play red-draw2", P(0))
    assert size(e, 1) == 5 and e.agent_selection == P(2)


def test_stacking_without_challenge_draw4_victim_stacks_or_draws_in_a_normal_turn():
    hands = {0: ["wild-draw4", "red-1", "green-2"],
             1: ["wild-draw4", "yellow-1", "yellow-2"],
             2: ["green-6", "green-8", "yellow-9"]}
    e = make(3, hands, "red-5", challenge=False, **STACK_ONLY)
    act(e, "play wild-draw4 blue", P(0))
    # no challenge phase: the victim's turn offers only stacking or drawing the count
    assert e.game_state.phase == TURN and e.agent_selection == P(1)
    assert legal_names(e) == {"draw"} | {f"play wild-draw4 {c}" for c in CLASSIC_COLORS}
    act(e, "play wild-draw4 green", P(1))
    # seat 2 cannot stack: it draws 8 with no decision and loses its turn
    assert size(e, 2) == 3 + 8 and size(e, 1) == 2 and size(e, 0) == 2
    assert e.agent_selection == P(0) and e.game_state.phase == TURN and e.game_state.pending == 0
    assert e.snapshot()["color"] == "green"

    e = make(3, hands, "red-5", challenge=False, **STACK_ONLY)
    act(e, "play wild-draw4 blue", P(0))
    act(e, "draw", P(1))
    assert size(e, 1) == 3 + 4 and e.game_state.pending == 0
    assert e.agent_selection == P(2) and e.game_state.phase == TURN  # seat 1 lost its turn


# ====================================================================== challenge under stacking
def _challenge_env(guilty_last: bool, guilty_first: bool = True):
    return make(3, {0: ["wild-draw4", "red-4" if guilty_first else "green-4", "green-5"],
                    1: ["wild-draw4", "green-1" if guilty_last else "yellow-1", "blue-1"],
                    2: ["yellow-6", "yellow-8", "yellow-9"]}, "red-3", **STACK_ONLY)


def test_challenge_under_stacking_success_last_player_draws_whole_count():
    e = _challenge_env(guilty_last=True)
    act(e, "play wild-draw4 green", P(0))  # seat 0 is guilty too, but only the last counts
    act(e, "play wild-draw4 blue", P(1))  # seat 1 held green: guilty
    assert legal_names(e) == {"challenge", "draw"}
    act(e, "challenge", P(2))
    assert size(e, 1) == 2 + 8  # the whole pending count
    assert size(e, 0) == 2 and size(e, 2) == 3
    assert e.game_state.pending == 0
    assert e.agent_selection == P(2) and e.game_state.phase == TURN  # the challenger plays as usual
    assert e.snapshot()["color"] == "blue"  # the chosen colour stands
    # the challenger alone saw seat 1's hand as it was when challenged
    assert known(e, 2, 1) == Counter(["green-1", "blue-1"])
    assert known(e, 0, 1) == Counter()


def test_challenge_under_stacking_failure_challenger_draws_count_plus_two():
    e = _challenge_env(guilty_last=False, guilty_first=True)
    act(e, "play wild-draw4 green", P(0))
    act(e, "play wild-draw4 blue", P(1))  # seat 1 held no green: innocent
    act(e, "challenge", P(2))
    assert size(e, 2) == 3 + 8 + 2
    assert size(e, 1) == 2 and size(e, 0) == 2  # seat 0's bluff is not challengeable
    assert e.agent_selection == P(0) and e.game_state.phase == TURN  # challenger lost its turn
    assert e.snapshot()["color"] == "blue"


def test_stacked_challenge_last_option_guilty_player_draws_four_challenger_takes_the_rest():
    """RULES 5 Decision as an option: ``stacked_challenge="last"`` judges only the last Draw Four."""
    e = make(3, {0: ["wild-draw4", "red-4", "green-5"],
                 1: ["wild-draw4", "green-1", "blue-1"],
                 2: ["yellow-6", "yellow-8", "yellow-9"]}, "red-3", stacked_challenge="last", **STACK_ONLY)
    act(e, "play wild-draw4 green", P(0))
    act(e, "play wild-draw4 blue", P(1))  # seat 1 held green: guilty
    act(e, "challenge", P(2))
    assert size(e, 1) == 2 + 4  # only the last card's four
    assert size(e, 2) == 3 + 4  # the challenger still takes the rest of the stack ...
    assert e.agent_selection == P(0) and e.game_state.phase == TURN  # ... and loses its turn
    assert e.game_state.pending == 0 and e.snapshot()["color"] == "blue"


def test_stacked_challenge_last_option_innocent_is_the_whole_count_plus_two():
    e = make(3, {0: ["wild-draw4", "red-4", "green-5"],
                 1: ["wild-draw4", "yellow-1", "blue-1"],
                 2: ["yellow-6", "yellow-8", "yellow-9"]}, "red-3", stacked_challenge="last", **STACK_ONLY)
    act(e, "play wild-draw4 green", P(0))
    act(e, "play wild-draw4 blue", P(1))  # seat 1 held no green: innocent
    act(e, "challenge", P(2))
    assert size(e, 2) == 3 + 8 + 2 and size(e, 1) == 2
    assert e.agent_selection == P(0)


def test_stacked_challenge_last_option_without_a_stack_is_the_official_challenge():
    e = make(3, {0: ["wild-draw4", "red-4", "green-5"],
                 1: ["yellow-7", "yellow-1", "blue-1"]}, "red-3", stacked_challenge="last", **STACK_ONLY)
    act(e, "play wild-draw4 green", P(0))  # guilty: held red
    act(e, "challenge", P(1))
    assert size(e, 0) == 2 + 4 and size(e, 1) == 3
    assert e.agent_selection == P(1) and e.game_state.phase == TURN


# ====================================================================== jump-in
def _jump_env(**kw):
    return make(4, {0: ["red-5", "green-1", "green-2"],
                    1: ["red-5", "yellow-1", "yellow-2"],
                    2: ["red-5", "blue-1", "blue-2"],
                    3: ["blue-5", "yellow-4", "yellow-6"]}, "red-3", giving=False, **kw)


def test_jump_in_identical_card_asked_in_seat_order_and_play_continues_from_jumper():
    e = _jump_env()
    act(e, "play red-5", P(0))
    assert e.game_state.phase == JUMP and e.agent_selection == P(1)
    assert legal_names(e) == {"play red-5", "pass"}
    act(e, "pass", P(1))
    assert e.game_state.phase == JUMP and e.agent_selection == P(2)
    act(e, "play red-5", P(2))
    # a jump-in is a card played: seat 1, still holding red-5, is asked again
    assert e.game_state.phase == JUMP and e.agent_selection == P(1)
    act(e, "pass", P(1))
    # seat 3 holds blue-5 (same number, other colour): never asked
    assert e.game_state.phase == TURN and e.agent_selection == P(3)
    assert hand(e, 2) == Counter(["blue-1", "blue-2"]) and hand(e, 1)["red-5"] == 1
    assert e.snapshot()["discard_pile"][-2:] == ["red-5", "red-5"]


def test_jump_in_nobody_jumps_play_goes_on_from_player():
    e = _jump_env()
    act(e, "play red-5", P(0))
    act(e, "pass", P(1))
    act(e, "pass", P(2))
    assert e.game_state.phase == TURN and e.agent_selection == P(1)


def test_jump_in_player_who_played_is_not_asked():
    e = make(3, {0: ["red-5", "red-5", "green-2"]}, "red-3", giving=False)
    act(e, "play red-5", P(0))
    assert e.game_state.phase == TURN and e.agent_selection == P(1)


def test_jump_in_several_jumpers_one_chosen_at_random():
    jumpers = set()
    for seed in range(16):
        e = _jump_env(seed=seed)
        act(e, "play red-5", P(0))
        act(e, "play red-5", P(1))
        act(e, "play red-5", P(2))
        jumper = int(e.game_state.last_player)
        assert hand(e, jumper)["red-5"] == 0
        assert hand(e, 3 - jumper)["red-5"] == 1  # the other jumper keeps its card
        assert e.game_state.phase == JUMP and e.agent_selection == P(3 - jumper)  # asked again
        act(e, "pass", P(3 - jumper))
        assert e.agent_selection == P(jumper + 1)
        jumpers.add(jumper)
    assert jumpers == {1, 2}


def test_jump_in_random_pick_off_first_in_seat_order_wins():
    for seed in range(4):
        e = _jump_env(seed=seed, jump_in_random_pick=False)
        act(e, "play red-5", P(0))
        act(e, "play red-5", P(1))
        act(e, "play red-5", P(2))
        assert e.game_state.last_player == 1 and e.agent_selection == P(2)
        act(e, "pass", P(2))  # asked again, onto seat 1's card
        assert e.game_state.phase == TURN and e.agent_selection == P(2)


def test_jump_in_answers_are_hidden_from_later_players():
    seen = []
    for first_answer in ("play red-5", "pass"):
        e = _jump_env()
        act(e, "play red-5", P(0))
        act(e, first_answer, P(1))
        assert e.agent_selection == P(2)
        seen.append(e.observe(P(2)))
    assert np.array_equal(seen[0]["observation"], seen[1]["observation"])
    assert np.array_equal(seen[0]["action_mask"], seen[1]["action_mask"])


def test_jump_in_observation_does_not_reveal_who_is_asked():
    e = _jump_env()
    act(e, "play red-5", P(0))
    obs_while_1_asked = {q: e.observe(P(q))["observation"].copy() for q in (0, 3)}
    act(e, "pass", P(1))
    obs_while_2_asked = {q: e.observe(P(q))["observation"].copy() for q in (0, 3)}
    for q in (0, 3):  # players not being asked see the same thing whoever is asked
        assert np.array_equal(obs_while_1_asked[q], obs_while_2_asked[q])
        assert not phase_seen(e, q).any()
        assert not e.observe(P(q))["action_mask"].any()
    assert phase_seen(e, 2)[JUMP] == 1


def test_jump_in_wild_only_onto_the_same_kind_of_wild():
    hands = {0: ["wild", "wild-draw4", "green-2"],
             1: ["wild-draw4", "from-the-sewers", "green-3"],
             2: ["wild", "blue-1", "blue-2"],
             3: ["yellow-4", "yellow-5", "yellow-6"]}
    e = make(4, hands, "red-3", giving=False)
    act(e, "play wild blue", P(0))
    assert e.game_state.phase == JUMP and e.agent_selection == P(2)  # seat 1 holds no plain wild
    assert legal_names(e) == {f"play wild {c}" for c in CLASSIC_COLORS} | {"pass"}
    act(e, "play wild yellow", P(2))
    assert e.snapshot()["color"] == "yellow" and e.agent_selection == P(3)

    e = make(4, hands, "red-3", giving=False)
    act(e, "play wild-draw4 blue", P(0))
    assert e.game_state.phase == JUMP and e.agent_selection == P(1)  # seat 2's wild is not asked
    act(e, "pass", P(1))
    assert e.game_state.phase == CHALLENGE and e.agent_selection == P(1)


def test_jump_in_onto_pending_draw2_stacks():
    e = make(4, {0: ["red-draw2", "green-1", "green-2"],
                 1: ["yellow-4", "yellow-1", "yellow-2"],
                 2: ["red-draw2", "blue-1", "blue-2"],
                 3: ["yellow-5", "yellow-6", "yellow-8"]}, "red-3", giving=False)
    act(e, "play red-draw2", P(0))
    assert e.game_state.phase == JUMP and e.agent_selection == P(2)  # seat 1 (the victim) holds none
    act(e, "play red-draw2", P(2))
    # pending 4 reaches seat 3 (next after the jumper), who cannot stack: takes 4, loses the turn
    assert size(e, 3) == 7 and size(e, 1) == 3
    assert e.agent_selection == P(0) and e.game_state.pending == 0


def test_jump_in_by_the_victim_of_a_draw2_passes_the_stack_on():
    e = make(3, {0: ["red-draw2", "green-1", "green-2"],
                 1: ["red-draw2", "yellow-1", "yellow-2"],
                 2: ["yellow-5", "yellow-6", "yellow-8"]}, "red-3", giving=False)
    act(e, "play red-draw2", P(0))
    act(e, "play red-draw2", P(1))
    assert size(e, 2) == 7 and e.agent_selection == P(0)


def test_jump_in_onto_pending_draw2_adds_without_stacking_option():
    e = make(4, {0: ["red-draw2", "green-1", "green-2"],
                 2: ["red-draw2", "blue-1", "blue-2"]}, "red-3",
             rules="classic", jump_in=True)
    act(e, "play red-draw2", P(0))
    act(e, "play red-draw2", P(2))
    assert size(e, 3) == 7 and e.agent_selection == P(0)


def test_jump_in_onto_pending_draw4_stack_makes_jumper_the_challengeable_one():
    e = make(4, {0: ["wild-draw4", "green-1", "green-2"],  # innocent (no red)
                 1: ["yellow-4", "yellow-1", "yellow-2"],
                 2: ["wild-draw4", "blue-1", "yellow-3"],  # no blue after choosing blue: innocent
                 3: ["green-5", "green-6", "green-8"]}, "red-3", giving=False)
    act(e, "play wild-draw4 blue", P(0))
    assert e.agent_selection == P(2)
    act(e, "play wild-draw4 green", P(2))  # seat 2 held blue-1 (colour before it): guilty
    assert e.game_state.phase == CHALLENGE and e.agent_selection == P(3)
    act(e, "challenge", P(3))
    assert size(e, 2) == 2 + 8 and size(e, 0) == 2
    assert e.agent_selection == P(3) and e.game_state.phase == TURN


def test_jump_in_draw4_with_two_players_victim_challenges_the_jumper():
    e = make(2, {0: ["wild-draw4", "red-1", "blue-2"],  # held red: guilty, but not the last
                 1: ["wild-draw4", "green-1", "yellow-2"]}, "red-5", rules="classic", jump_in=True)
    act(e, "play wild-draw4 green", P(0))
    assert e.game_state.phase == JUMP and e.agent_selection == P(1)
    act(e, "play wild-draw4 blue", P(1))  # seat 1 held green-1: guilty
    # play continues from the jumper: seat 0 faces the pending 8 and may challenge seat 1
    assert e.game_state.phase == CHALLENGE and e.agent_selection == P(0)
    assert legal_names(e) == {"challenge", "draw"} and e.game_state.pending == 8
    act(e, "challenge", P(0))
    assert known(e, 0, 1) == Counter(["green-1", "yellow-2"])
    assert size(e, 1) == 2 + 8 and size(e, 0) == 2  # the jumper draws the whole count
    assert e.agent_selection == P(0) and e.game_state.phase == TURN and e.game_state.pending == 0
    assert e.snapshot()["color"] == "blue"


def test_jump_in_sewers_onto_sewers_next_player_after_jumper_needs_two_of_each_colour():
    drawn = ["green-1", "blue-1", "yellow-1", "green-2", "blue-2", "yellow-2"]
    e = make(3, {0: ["from-the-sewers", "red-1", "red-2"],
                 1: ["red-6", "red-7", "red-8"],
                 2: ["from-the-sewers", "red-3", "red-4"]}, "red-5", drawn + ["red-9"],
             giving=False, seven_slap=False)
    act(e, "play from-the-sewers blue", P(0))
    assert e.game_state.phase == JUMP and e.agent_selection == P(2)
    act(e, "play from-the-sewers green", P(2))
    # two SEWERS stacked (k=2); the victim is the player after the jumper, seat 0, holding
    # two red cards: it draws until it holds at least two cards of each colour
    assert hand(e, 0) == Counter(["red-1", "red-2"] + drawn)
    assert e.snapshot()["draw_pile"][0] == "red-9"
    assert known(e, 1, 0) == known(e, 2, 0) == Counter(drawn)
    assert size(e, 1) == 3 and size(e, 2) == 2
    assert e.agent_selection == P(1) and e.game_state.phase == TURN and e.game_state.pending == 0
    assert e.snapshot()["color"] == "green"
    assert_conserved(e)


def test_jump_in_with_last_card_ends_round():
    e = make(4, {0: ["red-5", "green-1"],
                 1: ["yellow-1", "yellow-2"],
                 2: ["red-5", "red-6"],
                 3: ["red-6", "yellow-3"]}, "red-3", hand_size=2, giving=False)
    act(e, "play red-5", P(0))
    act(e, "play red-5", P(2))  # jump-in, seat 2 left with red-6
    act(e, "play red-6", P(3))
    assert e.game_state.phase == JUMP and e.agent_selection == P(2)
    act(e, "play red-6", P(2))  # its last card
    assert e.game_state.game_over and e.game_state.winner == 2
    assert all(e.terminations.values())
    assert e._cumulative_rewards[P(2)] == 1.0
    assert e._cumulative_rewards[P(0)] == pytest.approx(-1 / 3)


def test_jump_in_with_last_card_onto_draw2_next_player_still_draws():
    e = make(4, {0: ["red-5", "green-1"],
                 1: ["yellow-1", "yellow-2"],
                 2: ["red-5", "red-draw2"],
                 3: ["red-draw2", "yellow-3"]}, "red-3", hand_size=2, giving=False)
    act(e, "play red-5", P(0))
    act(e, "play red-5", P(2))
    act(e, "play red-draw2", P(3))
    act(e, "play red-draw2", P(2))  # jumps with its last card onto a pending Draw Two
    assert e.game_state.game_over and e.game_state.winner == 2
    assert size(e, 3) == 1 + 4  # the next player after the jumper draws the stack
    pts = e.game_state.round_points[2]
    assert pts == e.game_state.scores[2] > 0


def test_no_jump_in_while_a_player_is_drawing():
    # seat 1 and 2 hold identical copies of the cards seat 0 draws: nobody is asked during
    # the draw; the window opens only when a card is played
    e = make(3, {0: ["green-1", "green-2", "yellow-4"],
                 1: ["blue-1", "green-8", "red-9"],
                 2: ["blue-1", "green-8", "yellow-9"]}, "red-3",
             ["blue-1", "green-8", "red-9"], giving=False)
    act(e, "draw", P(0))
    assert e.game_state.phase == DRAWN and e.agent_selection == P(0)
    assert size(e, 0) == 6
    act(e, "play red-9", P(0))
    assert e.game_state.phase == JUMP and e.agent_selection == P(1)


# ====================================================================== jump-in and the UNO catch window
def _catch_env(**kw):
    return make(4, {0: ["red-5", "green-1"],
                    1: ["yellow-1", "yellow-2"],
                    2: ["red-5", "blue-2"],
                    3: ["red-5", "yellow-3"]}, "red-3", hand_size=2, giving=False,
                uno_call="explicit", **kw)


def test_jump_in_after_uno_catch_window_caught_player_draws_then_jump_window_opens():
    e = _catch_env()
    act(e, "play red-5", P(0))  # next-to-last card, no UNO call
    # first the catch window (everyone else), then the jump window
    assert e.game_state.phase != JUMP and e.agent_selection == P(1)
    assert legal_names(e) == {"catch", "pass"}
    act(e, "catch", P(1))
    act(e, "pass", P(2))
    act(e, "pass", P(3))
    assert size(e, 0) == 3  # caught: drew 2
    assert e.game_state.phase == JUMP and e.agent_selection == P(2)
    act(e, "pass", P(2))
    act(e, "play red-5", P(3))  # seat 3's next-to-last card, without UNO: a new catch window
    assert e.agent_selection == P(0) and legal_names(e) == {"catch", "pass"}
    for q in (0, 1, 2):
        act(e, "pass", P(q))
    # then the jump window onto seat 3's card: seat 2 still holds red-5
    assert e.game_state.phase == JUMP and e.agent_selection == P(2)
    act(e, "pass", P(2))
    assert e.game_state.phase == TURN and e.agent_selection == P(0)
    assert size(e, 3) == 1
    assert_conserved(e)


def test_jump_in_uno_call_in_jump_window_is_hidden_and_counts_for_jumper():
    e = _catch_env()
    act(e, "play red-5", P(0))
    for q in (1, 2, 3):
        act(e, "pass", P(q))  # nobody catches seat 0
    assert size(e, 0) == 1 and e.game_state.phase == JUMP and e.agent_selection == P(2)
    assert "uno" in legal_names(e)
    act(e, "uno", P(2))
    assert e.agent_selection == P(2) and "uno" not in legal_names(e)
    assert uno_flag_seen(e, 3, 2) == 0 and uno_flag_seen(e, 0, 2) == 0
    act(e, "play red-5", P(2))
    assert e.agent_selection == P(3)
    # seat 3, asked next, sees exactly what it sees when seat 2 neither called nor jumped
    quiet = _catch_env()
    act(quiet, "play red-5", P(0))
    for q in (1, 2, 3):
        act(quiet, "pass", P(q))
    act(quiet, "pass", P(2))
    assert quiet.agent_selection == P(3)
    assert np.array_equal(quiet.observe(P(3))["observation"], e.observe(P(3))["observation"])
    assert uno_flag_seen(e, 3, 2) == 0
    act(e, "pass", P(3))
    # seat 2 jumped with its call made: no catch window; the next jump window (onto seat 2's
    # red-5) asks seat 3 again; then play goes on from seat 2
    assert e.game_state.uno_called[2] and size(e, 2) == 1
    assert e.game_state.phase == JUMP and e.agent_selection == P(3)
    act(e, "pass", P(3))
    assert e.game_state.phase == TURN and e.agent_selection == P(3)
    assert uno_flag_seen(e, 3, 2) == 1


def test_jump_in_uno_call_of_a_jumper_not_chosen_lapses():
    e = _catch_env(jump_in_random_pick=False)
    act(e, "play red-5", P(0))
    for q in (1, 2, 3):
        act(e, "pass", P(q))
    act(e, "play red-5", P(2))  # no call; seat 2 is first in seat order, so it is chosen
    act(e, "uno", P(3))
    act(e, "play red-5", P(3))
    # seat 2 did not call UNO: the catch window opens for it
    assert e.game_state.last_player == 2 and e.agent_selection == P(3)
    assert legal_names(e) == {"catch", "pass"}
    assert not e.game_state.uno_called[3] and size(e, 3) == 2  # seat 3's call lapsed


# ====================================================================== SEVEN slap
def _seven_env(**kw):
    return make(4, {0: ["red-7", "green-1", "green-2"],
                    1: ["blue-7", "yellow-1", "yellow-2"],
                    2: ["red-7", "blue-1", "blue-2"],
                    3: ["yellow-4", "yellow-5", "yellow-6"]}, "red-3", giving=False, **kw)


def test_seven_slap_a_random_other_player_draws_one():
    victims = set()
    for seed in range(20):
        e = _seven_env(seed=seed, jump_in=False)
        act(e, "play red-7", P(0))
        grew = [q for q in range(4) if size(e, q) == 4]
        assert len(grew) == 1 and 0 not in grew and size(e, 0) == 2
        victims.add(grew[0])
    assert victims == {1, 2, 3}


def test_seven_slap_not_random_next_player_draws():
    e = _seven_env(jump_in=False, seven_slap_random=False)
    act(e, "play red-7", P(0))
    assert size(e, 1) == 4 and size(e, 2) == 3 and size(e, 3) == 3


def test_seven_slap_one_card_per_seven_in_a_row():
    e = _seven_env(jump_in=False)
    pile = len(e.game_state.draw_pile)
    act(e, "play red-7", P(0))
    assert len(e.game_state.draw_pile) == pile - 1
    act(e, "play blue-7", P(1))  # two 7s in a row: the slowest draws 2
    assert len(e.game_state.draw_pile) == pile - 3
    assert_conserved(e)


def test_seven_slap_jump_in_seven_slaps_for_two():
    e = _seven_env()
    pile = len(e.game_state.draw_pile)
    act(e, "play red-7", P(0))
    assert e.game_state.phase == JUMP and e.agent_selection == P(2)
    act(e, "play red-7", P(2))
    assert len(e.game_state.draw_pile) == pile - 1 - 2
    assert e.agent_selection == P(3)


def test_seven_slap_off_nobody_draws():
    e = _seven_env(jump_in=False, seven_slap=False)
    pile = len(e.game_state.draw_pile)
    act(e, "play red-7", P(0))
    assert len(e.game_state.draw_pile) == pile


def test_seven_slap_with_last_card_slap_is_drawn_before_scoring():
    """RULES.md is silent on a 7 played as the last card (section 6 slaps on every 7, section 8
    ends the round when a hand is empty). Engine decision: the slap is applied first, so the
    slapped card is in the victim's hand when the round is scored."""
    e = make(3, {0: ["red-7"], 1: ["green-1"], 2: ["green-2"]}, "red-5", ["blue-9"], hand_size=1,
             jump_in=False, giving=False, seven_slap_random=False)
    act(e, "play red-7", P(0))
    s = e.game_state
    assert s.game_over and s.winner == 0
    assert hand(e, 1) == Counter(["green-1", "blue-9"]) and hand(e, 2) == Counter(["green-2"])
    assert s.round_points[0] == 1 + 9 + 2 == e.snapshot()["scores"][P(0)]


# ====================================================================== giving cards
GIVE = dict(jump_in=False, seven_slap=False)


def _give_env(offer_card="red-5", draw_top=("green-8", "yellow-9", "red-8"), **kw):
    return make(3, {0: ["green-1", "green-2", "yellow-4"],  # nothing playable on red-3
                    1: [offer_card, "blue-1", "blue-2"],
                    2: ["blue-6", "blue-8", "yellow-6"]}, "red-3", list(draw_top), **GIVE, **kw)


def test_giving_ask_offer_take_and_play_the_taken_card():
    e = _give_env()
    assert legal_names(e) == {"draw", "ask"}
    act(e, "ask", P(0))
    assert e.game_state.phase == OFFER and e.agent_selection == P(1)
    assert legal_names(e) == {"pass", "offer red-5", "offer blue-1", "offer blue-2"}
    act(e, "offer red-5", P(1))
    assert e.agent_selection == P(2)
    assert offer_seen(e, 2, 1) is None  # hidden until everyone has answered
    assert known(e, 2, 1) == Counter()
    act(e, "pass", P(2))
    assert e.game_state.phase == TAKE and e.agent_selection == P(0)
    assert legal_names(e) == {"pass", "take 1"}
    for observer in (0, 2):  # public once the window closed
        assert offer_seen(e, observer, 1) == "red-5"
        assert known(e, observer, 1) == Counter(["red-5"])
    assert offer_seen(e, 0, 2) is None
    act(e, "take 1", P(0))
    assert hand(e, 0)["red-5"] == 1 and hand(e, 1)["red-5"] == 0
    assert known(e, 1, 0) == known(e, 2, 0) == Counter(["red-5"])  # the take is public
    assert known(e, 2, 1) == Counter()
    assert e.game_state.phase == DRAWN and legal_names(e) == {"play red-5", "draw"}
    act(e, "play red-5", P(0))
    assert e.agent_selection == P(1) and e.game_state.phase == TURN
    assert known(e, 1, 0) == Counter()  # the known card was played


def test_giving_then_draw_until_playable():
    e = _give_env(offer_card="blue-3")
    act(e, "ask", P(0))
    act(e, "offer blue-3", P(1))
    act(e, "offer blue-6", P(2))
    assert legal_names(e) == {"pass", "take 1", "take 2"}
    act(e, "take 2", P(0))  # unplayable: draws until playable at once
    assert hand(e, 0) == Counter(["green-1", "green-2", "yellow-4", "blue-6",
                                  "green-8", "yellow-9", "red-8"])
    assert e.game_state.phase == DRAWN and legal_names(e) == {"play red-8", "pass"}
    assert "ask" not in legal_names(e)  # drawing has begun
    act(e, "pass", P(0))
    assert e.agent_selection == P(1)
    assert offer_seen(e, 1, 2) is None and offer_seen(e, 2, 1) is None  # offers closed


def test_giving_taken_playable_card_may_be_kept_then_draw_rule_applies():
    e = _give_env()
    act(e, "ask", P(0))
    act(e, "offer red-5", P(1))
    act(e, "pass", P(2))
    act(e, "take 1", P(0))
    act(e, "draw", P(0))
    assert size(e, 0) == 3 + 1 + 3 and legal_names(e) == {"play red-8", "pass"}


def test_giving_no_offer_then_draw_by_draw_rule():
    e = _give_env()
    act(e, "ask", P(0))
    act(e, "pass", P(1))
    act(e, "pass", P(2))
    assert e.game_state.phase == DRAWN and size(e, 0) == 6


def test_giving_asker_declines_every_offer_and_draws():
    e = _give_env()
    act(e, "ask", P(0))
    act(e, "offer red-5", P(1))
    act(e, "pass", P(2))
    act(e, "pass", P(0))
    assert hand(e, 1)["red-5"] == 1 and size(e, 0) == 6 and e.game_state.phase == DRAWN
    # the declined offer stays public knowledge of seat 1's hand
    assert known(e, 2, 1) == Counter(["red-5"])


def test_giving_players_with_one_card_are_not_asked():
    e = make(3, {0: ["green-1", "yellow-4"], 1: ["red-5", "blue-6"], 2: ["blue-1", "yellow-9"]},
             "red-3", hand_size=2, **GIVE)
    act(e, "draw", P(0))  # draws red-0 (filler): playable
    act(e, "pass", P(0))
    act(e, "play red-5", P(1))  # seat 1 now holds one card
    act(e, "ask", P(2))
    assert e.game_state.phase == OFFER and e.game_state.queue == [0] and e.agent_selection == P(0)
    act(e, "pass", P(0))
    assert e.game_state.phase == DRAWN and e.agent_selection == P(2)  # no offer: it drew


def test_giving_ask_not_legal_when_no_one_can_give_or_penalty_pending():
    e = make(2, {0: ["green-1"], 1: ["blue-6"]}, "red-3", hand_size=1, **GIVE)
    assert legal_names(e) == {"draw"}  # the only other player holds one card
    e = make(3, {0: ["red-draw2", "green-4", "green-5"], 1: ["blue-draw2", "yellow-1", "yellow-2"]},
             "red-3", **GIVE)
    act(e, "play red-draw2", P(0))
    assert "ask" not in legal_names(e)


def test_giving_ask_once_per_turn():
    e = _give_env()
    act(e, "ask", P(0))
    act(e, "pass", P(1))
    act(e, "pass", P(2))
    act(e, "pass", P(0))  # keep the drawn card: the turn ends
    assert e.agent_selection == P(1) and "ask" in legal_names(e)  # a new turn, a new ask


def test_giving_repeated_offer_of_same_card_is_known_once():
    e = _give_env(offer_card="blue-3", draw_top=("red-8",))
    act(e, "ask", P(0))
    act(e, "offer blue-3", P(1))
    act(e, "pass", P(2))
    act(e, "pass", P(0))  # declines, draws red-8
    act(e, "pass", P(0))  # keeps it
    act(e, "draw", P(1))  # draws filler red-0: playable
    act(e, "play red-0", P(1))
    act(e, "ask", P(2))
    act(e, "pass", P(0))
    act(e, "offer blue-3", P(1))  # the same card offered again
    for observer in (0, 2):
        assert known(e, observer, 1) == Counter(["blue-3"])
        assert offer_seen(e, observer, 1) == "blue-3"


# ====================================================================== draw until playable
def test_draw_until_playable_draws_until_a_playable_card_then_may_keep_it():
    e = make(3, {0: ["green-1", "green-2", "yellow-4"]}, "red-3",
             ["blue-1", "green-8", "red-9"], **GIVE)
    act(e, "draw", P(0))
    assert size(e, 0) == 6 and e.game_state.phase == DRAWN
    assert legal_names(e) == {"play red-9", "pass"}
    act(e, "pass", P(0))
    assert e.agent_selection == P(1) and size(e, 0) == 6


def test_draw_rule_one_draws_a_single_card():
    e = make(3, {0: ["green-1", "green-2", "yellow-4"]}, "red-3",
             ["blue-1", "green-8", "red-9"], draw_rule="one", **GIVE)
    act(e, "draw", P(0))
    assert size(e, 0) == 4 and e.agent_selection == P(1)


# ====================================================================== FROM THE SEWERS
def test_sewers_victim_draws_until_one_of_each_colour_shows_them_and_loses_turn():
    drawn = ["red-1", "wild", "green-2", "blue-3"]
    e = make(3, {0: ["from-the-sewers", "red-4", "red-5"],
                 1: ["yellow-1", "yellow-2", "yellow-4"],
                 2: ["red-6", "red-8", "red-9"]}, "red-3", drawn + ["yellow-3"], **GIVE)
    act(e, "play from-the-sewers green", P(0))
    assert hand(e, 1) == Counter(["yellow-1", "yellow-2", "yellow-4"] + drawn)
    assert known(e, 0, 1) == known(e, 2, 1) == Counter(drawn)
    assert e.agent_selection == P(2) and e.game_state.phase == TURN
    assert e.snapshot()["color"] == "green"


def test_sewers_victim_already_holding_every_colour_draws_nothing():
    e = make(3, {0: ["from-the-sewers", "red-4", "red-5"],
                 1: ["yellow-1", "green-2", "blue-4", "red-1"]}, "red-3", hand_size=4, **GIVE)
    act(e, "play from-the-sewers green", P(0))
    assert size(e, 1) == 4 and e.agent_selection == P(2)


def test_sewers_known_cards_are_forgotten_when_played():
    e = make(3, {0: ["from-the-sewers", "green-4", "red-5"],
                 1: ["yellow-1", "yellow-2", "yellow-4"],
                 2: ["red-6", "red-8", "green-9"]}, "red-3", ["red-1", "green-2", "blue-3"], **GIVE)
    act(e, "play from-the-sewers green", P(0))
    act(e, "play green-9", P(2))
    act(e, "play green-4", P(0))
    act(e, "play green-2", P(1))
    assert known(e, 0, 1) == known(e, 2, 1) == Counter(["red-1", "blue-3"])


def test_sewers_stack_with_piles_nearly_empty_stops_when_piles_run_dry():
    # a 56-card deck: one of each coloured card, one of each wild, two SEWERS
    small = dict(count_zero=1, count_number=1, count_draw2=1, count_reverse=1, count_skip=1,
                 count_wild=1, count_wild_draw4=1, count_sewers=2)
    blue = [f"blue-{f}" for f in list(range(10)) + ["draw2", "reverse", "skip"]]
    hands = {0: ["from-the-sewers"] + blue[:8] + ["red-0", "red-1", "red-2", "red-4", "red-5", "red-6"],
             1: ["from-the-sewers"] + blue[8:] + ["yellow-0", "yellow-1", "yellow-2", "yellow-3",
                                                  "yellow-4", "yellow-5", "yellow-6", "yellow-7",
                                                  "yellow-8"],
             2: ["green-0", "green-1", "green-2", "green-3", "green-4", "green-5", "green-6",
                 "green-7", "green-8", "green-9", "red-7", "red-8", "red-9", "yellow-9", "wild"]}
    e = make(3, hands, "red-3", rules="house", hand_size=15, **small, **GIVE)
    assert len(e.game_state.draw_pile) == 10  # every blue card is held by seats 0 and 1
    act(e, "play from-the-sewers red", P(0))
    act(e, "play from-the-sewers yellow", P(1))
    # seat 2 needs two blue cards: none is left; it draws the DRAW pile and the reshuffled
    # DISCARD pile dry, then stops and loses its turn
    assert len(e.game_state.draw_pile) == 0 and e.snapshot()["discard_pile"] == ["from-the-sewers"]
    assert size(e, 2) == 15 + 10 + 2
    assert e.game_state.pending == 0 and e.agent_selection == P(0) and e.game_state.phase == TURN
    assert sum(known(e, 0, 2).values()) == 12
    assert_conserved(e)
    # the game goes on with empty piles: a player who must draw draws nothing
    assert legal_names(e) == {"draw", "ask"}
    act(e, "draw", P(0))
    assert size(e, 0) == 14 and e.agent_selection == P(1)
    assert_conserved(e)


def test_sewers_at_round_end_next_player_still_draws():
    e = make(3, {0: ["from-the-sewers"], 1: ["yellow-1"]}, "red-3", ["red-1", "green-2", "blue-3"],
             hand_size=1, **GIVE)
    act(e, "play from-the-sewers green", P(0))
    assert e.game_state.game_over and e.game_state.winner == 0
    assert hand(e, 1) == Counter(["yellow-1", "red-1", "green-2", "blue-3"])


# ====================================================================== first-card effects (house)
def test_first_card_draw2_with_stacking_first_player_may_stack():
    e = make(3, {0: ["blue-draw2", "green-1", "green-2"]}, "red-draw2", **GIVE)
    assert e.agent_selection == P(0) and e.game_state.phase == TURN
    assert legal_names(e) == {"play blue-draw2", "draw"}
    act(e, "play blue-draw2", P(0))
    assert size(e, 1) == 7 and e.agent_selection == P(2)


def test_first_card_draw2_first_player_draws_two_and_is_skipped():
    e = make(3, {0: ["yellow-1", "green-1", "green-2"]}, "red-draw2", **GIVE)
    assert size(e, 0) == 5 and e.agent_selection == P(1)


def test_first_card_draw4_with_stacking_first_player_chooses_colour_then_stacks_or_draws():
    e = make(3, {0: ["wild-draw4", "green-1", "green-2"]}, "wild-draw4", **GIVE)
    assert e.game_state.phase == COLOR and e.agent_selection == P(0)
    act(e, "color blue", P(0))
    assert e.game_state.phase == TURN and e.game_state.pending == 4  # no challenge of a first card
    assert legal_names(e) == {"draw"} | {f"play wild-draw4 {c}" for c in CLASSIC_COLORS}
    act(e, "draw", P(0))
    assert size(e, 0) == 7 and e.agent_selection == P(1)

    e = make(3, {0: ["yellow-1", "green-1", "green-2"]}, "wild-draw4", **GIVE)
    act(e, "color blue", P(0))
    assert size(e, 0) == 7 and e.agent_selection == P(1)


@pytest.mark.parametrize("guilty", [True, False])
def test_first_card_draw4_with_stacking_first_player_stacks_next_player_challenges(guilty):
    # the colour before the stacked Draw Four is the one chosen for the first card (blue)
    p0 = ["wild-draw4", "blue-1" if guilty else "yellow-1", "green-2"]
    e = make(3, {0: p0, 1: ["red-6", "red-8", "yellow-9"]}, "wild-draw4", **GIVE)
    act(e, "color blue", P(0))
    act(e, "play wild-draw4 red", P(0))
    assert e.game_state.phase == CHALLENGE and e.agent_selection == P(1)
    assert legal_names(e) == {"challenge", "draw"} and e.game_state.pending == 8
    act(e, "challenge", P(1))
    assert known(e, 1, 0) == Counter(p0[1:])
    if guilty:  # the stacker draws the whole count; the challenger plays as usual
        assert size(e, 0) == 2 + 8 and size(e, 1) == 3 and e.agent_selection == P(1)
    else:  # the challenger draws the count plus 2 and loses its turn
        assert size(e, 1) == 3 + 8 + 2 and size(e, 0) == 2 and e.agent_selection == P(2)
    assert e.game_state.phase == TURN and e.game_state.pending == 0
    assert e.snapshot()["color"] == "red"


def test_first_card_draw4_without_stacking_goes_back_into_the_deck():
    e = make(3, {}, "wild-draw4", stacking=False, **GIVE)
    assert e.snapshot()["top"] != "wild-draw4"
    assert "wild-draw4" in e.snapshot()["draw_pile"]
    assert_conserved(e)


def test_first_card_sewers_first_player_stacks_or_draws_one_of_each_colour():
    e = make(3, {0: ["yellow-1", "green-1", "green-2"]}, "from-the-sewers",
             ["yellow-5", "red-1", "blue-4", "green-3"], **GIVE)
    assert e.game_state.phase == COLOR and e.agent_selection == P(0)
    act(e, "color yellow", P(0))
    assert hand(e, 0) == Counter(["yellow-1", "green-1", "green-2", "yellow-5", "red-1", "blue-4"])
    assert known(e, 1, 0) == Counter(["yellow-5", "red-1", "blue-4"])
    assert e.agent_selection == P(1)

    e = make(3, {0: ["from-the-sewers", "green-1", "green-2"]}, "from-the-sewers", **GIVE)
    act(e, "color yellow", P(0))
    assert legal_names(e) == {"draw"} | {f"play from-the-sewers {c}" for c in CLASSIC_COLORS}
    assert pending_seen(e, 2) == (1, [0.0, 0.0, 1.0])


def test_first_card_seven_slap():
    victims = set()
    for seed in range(12):
        e = make(3, {}, "red-7", seed=seed, jump_in=False)
        sizes = [size(e, q) for q in range(3)]
        assert sorted(sizes) == [3, 3, 4]  # one player (any) draws one
        victims.add(sizes.index(4))
        assert e.agent_selection == P(0) and e.game_state.phase == TURN
    assert len(victims) > 1


# ====================================================================== rounds
def test_round_winner_starts_next_round():
    def play_round_one(seed, **kw):
        e = make(3, {0: ["green-1"], 1: ["yellow-1"], 2: ["red-4"]}, "red-3", ["red-8", "red-9"],
                 seed=seed, hand_size=1, episode="rounds", num_rounds=2, target_score=5, **GIVE, **kw)
        act(e, "draw", P(0))
        act(e, "pass", P(0))
        act(e, "draw", P(1))
        act(e, "pass", P(1))
        act(e, "play red-4", P(2))  # seat 2 wins round 1
        # a fixed number of rounds: reaching target_score does not end the episode
        assert e.game_state.round == 1 and not e.game_state.game_over and e.game_state.scores[2] > 5
        assert e.infos[P(2)]["round_points"] == 8 + 9 + 1 + 1  # red-8 + red-9 + green-1 + yellow-1
        return e

    numbers = [f"{c}-{v}" for c in CLASSIC_COLORS for v in (0, 1, 2, 3, 4, 5, 6, 8, 9)]
    checked = 0
    for seed in range(20):
        e = play_round_one(seed)
        assert e.game_state.dealer == 1  # the seat to the right of the winner deals
        if e.snapshot()["top"] in numbers:
            assert e.agent_selection == P(2) and e.game_state.phase == TURN
            checked += 1
        off = play_round_one(seed, winner_starts=False)
        assert off.game_state.dealer == 0  # the deal passes left from dealer 2
        if off.snapshot()["top"] in numbers:
            assert off.agent_selection == P(1)
    assert checked > 0


def test_jump_in_draw4_masked_like_a_turn_play_when_bluffing_is_off():
    e = make(4, {0: ["wild-draw4", "green-1", "green-2"],  # no red: a legal Draw Four
                 1: ["wild-draw4", "blue-1", "yellow-2"],  # holds blue: may not play it
                 2: ["wild-draw4", "yellow-1", "yellow-3"],
                 3: ["green-5", "green-6", "green-8"]}, "red-3", giving=False, wd4_bluff=False)
    act(e, "play wild-draw4 blue", P(0))
    assert e.game_state.phase == JUMP and e.agent_selection == P(2)  # seat 1 is not asked
    act(e, "pass", P(2))
    assert e.game_state.phase == CHALLENGE and e.agent_selection == P(1)
    assert legal_names(e) == {"challenge", "draw"}  # nor may it stack it
