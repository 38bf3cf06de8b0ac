"""Properties of every battle-card game over many seeded random games:

* Card conservation: after every decision the state holds exactly the game's deck.
* Decisions: the actor always has a legal action until the end; a window's seats are asked
  one at a time (``deciders`` lists them); the game always ends (within ``max_rounds``).
* Rewards: the shares of C5 (they sum to 0; winners get >= 0).
* Hidden information: an observation never changes when only cards its player cannot know
  change (``battle_helpers.perturb_hidden`` says which, per game, from the rules), and
  neither does its mask.

The default run plays a few dozen games per game and variant; the ``slow`` variant hundreds.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from uno_env.battle.game import make_encoder

from battle_helpers import all_cards, engine_of, perturb_hidden

VARIANTS = [("battle", None, {}), ("battle", "battle-open", {"choice": "highest", "tie": "return"}),
            ("dragon", None, {}), ("dragon", None, {"race": "seat", "false_cover": "none"}),
            ("attack", None, {}), ("attack", None, {"beat": "any", "tie": "nobody", "at_top": "match"}),
            ("names", None, {}), ("names", "names-sheet", {"restrictions": False}), ("names", None, {"in_a_row": "last"}),
            ("bonus", None, {"max_rounds": 60}), ("bonus", "bonus-bluff", {"challenge_cost": 2, "answered": "leader"}),
            ("elusive", None, {}), ("elusive", "elusive-others", {"take": "table", "max_rounds": 60}),
            ("elusive", "elusive-others", {"unshouted": "layer", "deal_to": "all", "max_rounds": 60})]
IDS = [f"{g}-{r or 'default'}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'plain'}" for g, r, o in VARIANTS]


def play_checked(game, rules, overrides, n, seed, hidden_checks=True):
    e = engine_of(game, n, rules, **overrides)
    enc = make_encoder(e)
    rng = np.random.default_rng(seed)
    s = e.new_state(np.random.default_rng([seed, 1]))
    deck = sorted(e.deck)
    while True:
        assert sorted(all_cards(e, s)) == deck, "cards are conserved"
        if s.game_over:
            break
        assert s.rounds <= e.rules.max_rounds if hasattr(e.rules, "max_rounds") else True
        legal = e.legal_actions(s)
        assert legal and all(0 <= a < e.num_actions for a in legal)
        assert e.deciders(s)[0] == s.actor and (not s.queue or e.deciders(s) == s.queue)
        if hidden_checks and rng.random() < 0.3:
            observer = int(rng.integers(n))
            t = copy.deepcopy(s)
            t.legal_cache = None
            if perturb_hidden(e, t, observer, rng):
                assert np.array_equal(enc.encode(t, observer), enc.encode(s, observer)), \
                    f"seat {observer}'s observation depends on hidden cards in phase {e.PHASE_NAMES[s.phase]}"
                assert e.legal_actions_of(t, observer) == e.legal_actions_of(s, observer)
        e.step(s, legal[int(rng.integers(len(legal)))])
    r = e.returns(s)
    assert abs(sum(r)) < 1e-9 and s.winners and all(r[w] >= 0 for w in s.winners)
    assert all(r[q] < 0 for q in range(n) if q not in s.winners)
    assert e.legal_actions(s) == [] and e.deciders(s) == []
    return s


@pytest.mark.parametrize("game, rules, overrides", VARIANTS, ids=IDS)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_conserve_cards_end_and_hide_what_they_must(game, rules, overrides, n):
    for seed in range(4):
        play_checked(game, rules, overrides, n, seed)


@pytest.mark.slow
@pytest.mark.parametrize("game, rules, overrides", VARIANTS, ids=IDS)
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_games_conserve_cards_end_and_hide_what_they_must_slow(game, rules, overrides, n):
    if game == "attack" and n == 5:
        pytest.skip("the stand-in set deals Unexpected attack to at most 4 players")
    for seed in range(60):
        play_checked(game, rules, overrides, n, seed)


def test_the_perturbation_really_changes_hidden_cards():
    """The check above is not vacuous: for every game it finds hidden cards to change."""
    for game, rules, overrides in VARIANTS:
        e = engine_of(game, 3, rules, **overrides)
        s = e.new_state(np.random.default_rng(0))
        t = copy.deepcopy(s)
        assert perturb_hidden(e, t, 0, np.random.default_rng(1)), game
        assert sorted(all_cards(e, t)) == sorted(all_cards(e, s))


def test_a_seeded_game_is_the_same_game():
    for game, rules, overrides in VARIANTS:
        a = play_checked(game, rules, overrides, 3, 7, hidden_checks=False)
        b = play_checked(game, rules, overrides, 3, 7, hidden_checks=False)
        assert a.events == b.events and a.winners == b.winners
