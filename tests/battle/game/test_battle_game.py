"""Game 1, Battle, rule by rule on stacked decks (docs/TMNT-BATTLE.md: B1-B5, C1-C5)."""

from __future__ import annotations

import numpy as np
import pytest

from uno_env.battle.game import make_encoder
from uno_env.battle.game.base import shares
from uno_env.battle.game.battle import CHOOSE

from battle_helpers import act, card_set, character, deal, engine_of, kinds, legal_names, names_of

NUMBERED = card_set([character(x, v) for x, v in zip("ABCDEF", range(1, 7))])


def test_the_deal_is_round_robin_from_the_first_player_top_first():
    e = engine_of("battle")
    s = deal(e, {0: ["Leonardo", "Krang"], 1: ["Raphael", "Bebop"]}, first=1)
    assert names_of(e, list(s.piles[0])[:2]) == ["Leonardo", "Krang"]
    assert names_of(e, list(s.piles[1])[:2]) == ["Raphael", "Bebop"]
    assert names_of(e, s.order[:4]) == ["Raphael", "Leonardo", "Bebop", "Krang"]  # seat 1 got the first card
    assert len(s.piles[0]) == len(s.piles[1]) == 14 and not s.aside  # 28 fighters, bonus cards set aside


def test_the_first_player_is_drawn_with_the_rng_unless_given():
    e = engine_of("battle", 3)
    firsts = {e.new_state(np.random.default_rng(seed)).first for seed in range(40)}
    assert firsts == {0, 1, 2}
    assert e.new_state(np.random.default_rng(5)).first == int(np.random.default_rng(5).integers(3))
    assert e.new_state(np.random.default_rng(5), first=2).chooser == 2


@pytest.mark.parametrize("remainder, sizes, aside", [("aside", [9, 9, 9], 1), ("deal", [10, 9, 9], 0)])
def test_cards_that_do_not_divide_equally_are_set_aside_or_dealt_on(remainder, sizes, aside):
    e = engine_of("battle", 3, remainder=remainder)
    s = e.new_state(np.random.default_rng(0), first=0)
    assert [len(p) for p in s.piles] == sizes and len(s.aside) == aside


def test_the_higher_points_in_the_named_skill_take_both_cards_under_the_pile():
    e = engine_of("battle")
    s = deal(e, {0: ["Leonardo", "Krang"], 1: ["Raphael", "Bebop"]}, first=0)
    assert s.phase == CHOOSE and s.actor == 0 and legal_names(e, s) == [
        "name ingenuity", "name dexterity", "name strength", "name skill"]
    act(e, s, "name strength")  # Leonardo 7, Raphael 10
    assert kinds(e, s)[-4:] == ["named", "shown", "shown", "won"]
    assert names_of(e, list(s.piles[1])[-2:]) == ["Raphael", "Leonardo"]  # the winner's card first
    assert (len(s.piles[0]), len(s.piles[1])) == (13, 15)
    assert s.chooser == 1 and s.actor == 1  # B3: the winner names the next skill
    assert names_of(e, [s.piles[0][0], s.piles[1][0]]) == ["Krang", "Bebop"]


def test_a_tie_leaves_the_cards_in_the_pot_for_the_next_winner():
    e = engine_of("battle")
    s = deal(e, {0: ["Leonardo", "Krang"], 1: ["Shredder", "Bebop"]}, first=0)
    act(e, s, "name dexterity")  # 8 and 8
    assert names_of(e, s.pot) == ["Leonardo", "Shredder"] and kinds(e, s)[-1] == "tied"
    assert s.chooser == 0  # after a tie the same chooser
    act(e, s, "name ingenuity")  # Krang 10, Bebop 2
    assert names_of(e, list(s.piles[0])[-4:]) == ["Krang", "Bebop", "Leonardo", "Shredder"] and not s.pot


def test_tie_return_puts_each_card_back_under_its_own_pile():
    e = engine_of("battle", tie="return")
    s = deal(e, {0: ["Leonardo", "Krang"], 1: ["Shredder", "Bebop"]}, first=0)
    act(e, s, "name dexterity")
    assert not s.pot and names_of(e, [s.piles[0][-1], s.piles[1][-1]]) == ["Leonardo", "Shredder"]
    assert [len(p) for p in s.piles] == [14, 14]


def test_chooser_rotate_passes_the_choice_left_whoever_wins():
    e = engine_of("battle", 3, chooser="rotate")
    s = deal(e, {0: ["Krang"], 1: ["Bebop"], 2: ["Irma"]}, first=0)
    act(e, s, "name ingenuity")  # seat 0 wins
    assert s.chooser == 1 and s.actor == 1


def test_choice_highest_allows_only_the_cards_highest_skills():
    e = engine_of("battle", choice="highest")
    s = deal(e, {0: ["Leonardo", "Karai"], 1: ["Krang", "Bebop"]}, first=0)
    assert legal_names(e, s) == ["name skill"]  # Leonardo 7 8 7 10
    act(e, s, "name skill")  # 10 against Krang's 4: seat 0 chooses again
    assert legal_names(e, s) == ["name dexterity", "name skill"]  # Karai 7 9 6 9


@pytest.mark.parametrize("view", ["own", "open"])
def test_view_own_shows_only_my_top_card_and_open_shows_every_top(view):
    e = engine_of("battle", view=view)
    enc = make_encoder(e)
    s = deal(e, {0: ["Leonardo"], 1: ["Krang"]}, first=0)
    obs = enc.encode(s, 0)
    t = e.cards.size
    assert enc.layout.get(obs, "my_top").argmax() == e.card_names.index("Leonardo")
    opened = enc.layout.get(obs, "open_tops").reshape(1, t)
    assert opened.any() == (view == "open")
    if view == "open":
        assert opened[0].argmax() == e.card_names.index("Krang")
    assert "Krang" in e.describe(s, 0) if view == "open" else "Krang" not in e.describe(s, 0)


def test_a_player_without_cards_is_out_and_skipped():
    e = engine_of("battle", 3, cards=NUMBERED)
    s = deal(e, {0: ["F", "C"], 1: ["A", "E"], 2: ["B", "D"]}, first=0)
    act(e, s, "name strength")  # F 6 wins
    act(e, s, "name strength")  # C 3, E 5, D 4: seat 1 wins, seat 2 has no cards left
    assert s.out == [False, False, True] and kinds(e, s)[-1] == "out"
    assert s.actor == 1 and not s.game_over
    act(e, s, "name strength")  # only seats 0 and 1 play
    assert len(s.piles[2]) == 0 and s.last_cards[2] == -1 and kinds(e, s).count("shown") == 3 + 3 + 2


def test_the_last_player_with_cards_wins_and_takes_the_pot():
    e = engine_of("battle", cards=card_set([character("Big", 6), character("Twin", 3), character("Tin", 3),
                                             character("Small", 1)]))
    s = deal(e, {0: ["Twin", "Big"], 1: ["Tin", "Small"]}, first=0)
    act(e, s, "name skill")  # 3 and 3: the pot
    act(e, s, "name skill")  # Big 6 against Small 1: seat 1 is out
    assert s.game_over and s.winners == [0] and e.scores(s) == [4, 0]
    assert e.returns(s) == [1.0, -1.0] and kinds(e, s)[-1] == "game_over"


def test_players_who_run_out_in_the_same_tie_share_the_win():
    e = engine_of("battle", cards=card_set([character("X", 3), character("Y", 3)]))
    s = deal(e, {0: ["X"], 1: ["Y"]}, first=0)
    act(e, s, "name ingenuity")
    assert s.game_over and s.winners == [0, 1] and e.returns(s) == [0.0, 0.0]


def test_the_round_limit_lets_the_most_cards_win():
    e = engine_of("battle", max_rounds=1)
    s = deal(e, {0: ["Krang"], 1: ["Bebop"]}, first=0)
    act(e, s, "name ingenuity")
    assert s.game_over and s.winners == [0] and kinds(e, s)[-2:] == ["limit", "game_over"]


def test_shared_wins_split_the_reward_and_the_rewards_sum_to_zero():
    assert shares(2, [1]) == [-1.0, 1.0]
    assert shares(3, [0, 2]) == [0.25, -0.5, 0.25]
    assert shares(4, [0, 1, 2, 3]) == [0.0] * 4
    for n in range(2, 9):
        for k in range(1, n + 1):
            assert abs(sum(shares(n, list(range(k))))) < 1e-12
