"""Bonus battle can end (docs/TMNT-BATTLE.md, Decision O7): an exhaustive search of every
state reachable from every deal of the stand-in card set with two players."""

from __future__ import annotations

import copy
import itertools

import numpy as np
import pytest

from uno_env.battle.game import make_engine

MAX_ROUNDS = 100_000  # the search never reaches it: the state space is finite and small


def clone(s):
    """A copy of a Bonus battle state that shares only what no step changes (the RNG: no
    challenge is drawn without ``bluff``)."""
    c = copy.copy(s)
    c.hands, c.known = s.hands.copy(), s.known.copy()
    c.last_named, c.gone, c.winners = list(s.last_named), list(s.gone), list(s.winners)
    c.queue, c.answers, c.legal_cache, c.events = [], {}, None, None
    return c


def key(s):
    """What the rules depend on (the exchange count aside): hands, leader, the open lead."""
    return (s.hands.tobytes(), s.leader, s.phase, s.actor, s.led, s.named, tuple(s.last_named), s.game_over)


def deals(engine):
    """Every deal of two players, seat 0 first: the 85 ways to give seat 0 eight of the 16
    bonus cards (four of each characteristic), up to the order of the cards."""
    ids = engine.bonus_ids
    copies = [engine.deck.count(t) for t in ids]
    half = len(engine.deck) // 2
    for mine in itertools.product(*(range(c + 1) for c in copies)):
        if sum(mine) != half:
            continue
        hand0 = [t for t, k in zip(ids, mine) for _ in range(k)]
        hand1 = [t for t, k, c in zip(ids, mine, copies) for _ in range(c - k)]
        yield [t for pair in zip(hand0, hand1) for t in pair]  # dealt alternately from seat 0


def reachable(**rules):
    """(the number of deals, of states reached, of game-over states, the fewest cards in a
    hand) over every state reachable from every two-player deal."""
    e = make_engine("bonus", num_players=2, max_rounds=MAX_ROUNDS, **rules)
    seen, frontier, n_deals = set(), [], 0
    for order in deals(e):
        n_deals += 1
        s = e.new_state(np.random.default_rng(0), deck=order, first=0)
        if key(s) not in seen:
            seen.add(key(s))
            frontier.append(s)
    over, fewest = 0, len(e.deck)
    while frontier:
        s = frontier.pop()
        fewest = min(fewest, int(s.hands.sum(axis=1).min()))
        if s.game_over:
            over += 1
            continue
        assert s.rounds < MAX_ROUNDS
        for a in e.legal_actions(s):
            t = clone(s)
            e.step(t, a)
            if key(t) not in seen:
                seen.add(key(t))
                frontier.append(t)
    return n_deals, len(seen), over, fewest


def test_with_the_default_rules_two_player_bonus_battle_can_end():
    n_deals, states, over, fewest = reachable()
    assert n_deals == 85
    assert over > 0 and fewest == 0  # someone can get rid of every card: the sheet's ending


def test_with_answered_leader_two_player_bonus_battle_can_never_end():
    """Why ``leader`` is not the default (O7): no hand ever drops below two cards, so every
    game runs to the exchange limit and the count decides."""
    n_deals, states, over, fewest = reachable(answered="leader")
    assert n_deals == 85 and states > 0
    assert over == 0 and fewest >= 2
