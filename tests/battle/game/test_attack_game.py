"""Game 3, Unexpected attack, rule by rule on stacked decks (docs/TMNT-BATTLE.md: A1-A5)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from uno_env.battle.game import make_encoder
from uno_env.battle.game.attack import PLAY

from battle_helpers import act, card_set, character, deal, engine_of, kinds, names_of

CARDS = card_set([character("Target", 5, 8, 2, 8), character("Dex", 1, 9, 1, 1), character("Brain", 9, 1, 1, 2),
                  character("Twin", 9, 1, 1, 1), character("Weak", 1), character("Low", 2), character("Mid", 3)])


def one_round(rules=None, **overrides):
    """2 players, one card each, the invisible player's card ``Target`` (highest 8: dexterity, skill)."""
    return engine_of("attack", 2, rules, cards=CARDS, hand_size=1, **overrides)


def test_five_cards_each_then_five_for_the_invisible_player_the_rest_aside():
    e = engine_of("attack", 2)
    s = e.new_state(np.random.default_rng(3), first=1)
    assert [int(h.sum()) for h in s.hands] == [5, 5] and len(s.invisible) == 4 and s.target >= 0
    assert names_of(e, [s.target] + s.invisible) == names_of(e, s.order[10:15])
    assert len(s.aside) == 28 - 15 and kinds(e, s)[:2] == ["dealt", "invisible"]
    assert s.phase == PLAY and s.queue == [1, 0]  # everyone plays at once, asked from the first player


def test_a_card_beats_the_invisible_card_only_in_its_highest_skill():
    e = one_round()
    s = deal(e, {0: ["Dex"], 1: ["Brain"]}, first=0, after=["Target"])
    assert e.target_skills(s.target) == [1, 3]  # dexterity and skill, 8 each
    act(e, s, "play Dex")
    act(e, s, "play Brain")
    assert [ev.value for ev in s.events if ev.kind == 11] == [9, 0]  # PLAYED: Dex scores 9, Brain 0
    assert s.won == [1, 0] and s.game_over and s.winners == [0]


def test_beat_any_lets_any_skill_beat_the_highest_points():
    e = one_round(beat="any", tie="nobody")
    s = deal(e, {0: ["Dex"], 1: ["Twin"]}, first=0, after=["Target"])
    act(e, s, "play Dex")
    act(e, s, "play Twin")
    assert [ev.value for ev in s.events if ev.kind == 11] == [9, 9]
    assert s.won == [0, 0] and "nobody" in kinds(e, s)  # equal best scores and tie: nobody


TOP = card_set([character("Top", 9, 3, 2, 1), character("Even", 9, 1, 1, 1), character("Low", 5, 1, 1, 1),
                 character("Mid", 1, 8, 1, 1)])  # 9 is the set's highest points: nothing exceeds Top


@pytest.mark.parametrize("at_top, won", [("dead", [0, 0]), ("match", [1, 0])])
def test_an_invisible_card_at_the_sets_highest_points_is_dead_or_beaten_by_equal_points(at_top, won):
    e = engine_of("attack", 2, cards=TOP, hand_size=1, at_top=at_top)
    assert e.top_points == 9
    s = deal(e, {0: ["Even"], 1: ["Low"]}, first=0, after=["Top"])
    act(e, s, "play Even")
    act(e, s, "play Low")
    assert s.won == won and s.game_over


def test_at_top_match_leaves_cards_below_the_top_to_be_exceeded():
    e = engine_of("attack", 2, cards=TOP, hand_size=1, at_top="match")
    s = deal(e, {0: ["Top"], 1: ["Low"]}, first=0, after=["Mid"])  # Mid: dexterity 8, below the top
    act(e, s, "play Top")  # dexterity 3
    act(e, s, "play Low")
    assert s.won == [0, 0]
    assert e.score(e.card_names.index("Mid"), e.card_names.index("Mid")) == 0  # equal 8 does not beat 8


def test_equal_best_scores_go_to_the_higher_total_of_the_four_skills():
    e = one_round(beat="any", tie="total")
    s = deal(e, {0: ["Dex"], 1: ["Brain"]}, first=0, after=["Target"])
    act(e, s, "play Dex")
    act(e, s, "play Brain")  # 9 and 9; totals 12 and 13
    assert s.won == [0, 1] and s.winners == [1]
    e = one_round(beat="any", tie="total")
    s = deal(e, {0: ["Dex"], 1: ["Twin"]}, first=0, after=["Target"])
    act(e, s, "play Dex")
    act(e, s, "play Twin")  # 9 and 9; totals 12 and 12: still equal, nobody
    assert s.won == [0, 0] and s.winners == [0, 1]


def test_when_nobody_beats_it_nobody_takes_the_cards():
    e = one_round()
    s = deal(e, {0: ["Weak"], 1: ["Low"]}, first=0, after=["Target"])
    act(e, s, "play Weak")
    act(e, s, "play Low")
    assert kinds(e, s)[-3:] == ["nobody", "game_over", "game_over"] and s.won == [0, 0]
    assert s.winners == [0, 1] and e.returns(s) == [0.0, 0.0]


def test_the_most_rounds_won_win_after_the_last_invisible_card():
    e = engine_of("attack", 2, cards=CARDS, hand_size=2)
    s = deal(e, {0: ["Dex", "Weak"], 1: ["Low", "Mid"]}, first=0, after=["Target", "Twin"])
    act(e, s, "play Dex")
    act(e, s, "play Low")  # round 1: Dex 9 > 8
    assert s.won == [1, 0] and not s.game_over and names_of(e, [s.target]) == ["Twin"]
    act(e, s, "play Weak")
    act(e, s, "play Mid")  # round 2: Twin's highest is 9: nobody beats it
    assert s.game_over and s.winners == [0] and e.scores(s) == [1, 0]


def test_cards_chosen_in_the_window_stay_hidden_until_all_have_played():
    e = engine_of("attack", 3, cards=card_set([character(x, v) for x, v in zip("ABCDEFGHIJKL", range(1, 13))]),
                  hand_size=2)
    enc = make_encoder(e)
    s = deal(e, {0: ["A", "B"], 1: ["C", "D"], 2: ["E", "F"]}, first=0, after=["G", "H"])
    one, other = copy.deepcopy(s), copy.deepcopy(s)
    act(e, one, "play A")
    act(e, other, "play B")
    for q in range(3):
        assert np.array_equal(enc.encode(one, q), enc.encode(other, q))
    assert int(one.hands[0].sum()) == 2  # the card leaves the hand when the window closes
    with pytest.raises(ValueError, match="illegal action"):
        act(e, one, "play A")  # seat 1 holds no A


def test_too_few_cards_for_the_players_and_the_invisible_player_is_an_error():
    assert engine_of("attack", 4).n == 4  # 28 fighters: 4 players and the invisible one need 25
    with pytest.raises(ValueError, match="need 30 characters"):
        engine_of("attack", 5)
