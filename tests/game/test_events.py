"""Public events (:mod:`uno_env.game.events`): complete enough to follow the table, public only.

The property tests rebuild the public table (hand sizes, top card, colour, direction, round
winner) from the events alone and compare it with the engine's state after every decision
of random games for every preset; recording events must not change the game.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers import P, act, make_env
from uno_env.game import cards as C
from uno_env.game import events as E
from uno_env.game.engine import Engine
from uno_env.game.rules import make_rules

PUBLIC_CARD_KINDS = {E.DEALT, E.PLAYED, E.JUMPED_IN, E.DISCARDED, E.OFFERED, E.TOOK, E.REVEALED}


class Table:
    """The public table as the events tell it."""

    def __init__(self, n: int, hand_size: int):
        self.n, self.hand_size = n, hand_size
        self.sizes = [0] * n
        self.top = self.color = -1
        self.direction = 1
        self.round_winner = self.winner = -1

    def apply(self, ev: E.Event) -> None:
        k, seat, card, value = ev
        assert card == -1 or k in PUBLIC_CARD_KINDS, f"{E.EVENT_NAMES[k]} carries a card"
        if k == E.DEALT:
            self.sizes = [self.hand_size] * self.n
            self.top, self.color, self.direction = card, C.color_of(card), 1
        elif k in (E.PLAYED, E.JUMPED_IN):
            self.sizes[seat] -= 1
            self.top, self.color = card, value
        elif k == E.DISCARDED:
            self.sizes[seat] -= 1
        elif k in (E.DREW, E.PENALTY, E.CAUGHT):
            self.sizes[seat] += value
        elif k == E.TOOK:
            self.sizes[seat] += 1
            self.sizes[value] -= 1
        elif k == E.COLOR_CHOSEN:
            self.color = value
        elif k == E.REVERSED:
            self.direction = value
        elif k == E.ROUND_OVER:
            self.round_winner = seat
        elif k == E.GAME_OVER:
            self.winner = seat


VARIANTS = [("classic", {}), ("tmnt", {"uno_call": "explicit"}), ("house", {}),
            ("house", {"uno_call": "explicit", "episode": "rounds", "num_rounds": 2})]


@pytest.mark.parametrize("n", (2, 3, 5))
@pytest.mark.parametrize("preset,options", VARIANTS)
def test_events_rebuild_the_public_table_after_every_decision(preset, options, n):
    rules = make_rules(preset, **options)
    for seed in range(4):
        engine = Engine(rules, n, record_events=True)
        plain = Engine(rules, n)
        s = engine.new_state(np.random.default_rng(seed))
        t = plain.new_state(np.random.default_rng(seed))
        table, seen = Table(n, rules.hand_size), 0
        pick = np.random.default_rng(1000 + seed)
        while not s.game_over and s.steps < 3000:
            for ev in s.events[seen:]:
                table.apply(ev)
            seen = len(s.events)
            assert table.sizes == s.hand_size
            assert table.top == s.discard[-1] and table.color == s.color
            assert table.direction == s.direction
            legal = engine.legal_actions(s)
            assert legal == sorted(set(legal)) and legal, "legal actions: ascending, distinct, non-empty"
            assert plain.legal_actions(t) == legal  # recording events changes nothing
            a = legal[int(pick.integers(len(legal)))]
            engine.step(s, a)
            plain.step(t, a)
        for ev in s.events[seen:]:
            table.apply(ev)
        assert table.sizes == s.hand_size and table.top == s.discard[-1]
        if s.game_over:
            assert table.winner == s.winner and table.round_winner == s.round_winner
        assert t.events is None and (t.hands == s.hands).all() and t.draw_pile == s.draw_pile


def kinds(env, since: int = 0) -> list[tuple]:
    return [(E.EVENT_NAMES[ev.kind], ev.seat, ev.value) for ev in env.game_state.events[since:]]


def test_challenge_event_shows_the_outcome_not_the_hand():
    e = make_env(3, {0: ["wild-draw4", "red-4", "green-5"], 1: ["yellow-7", "yellow-1"]}, "red-3",
                 rules="classic", record_events=True)
    start = len(e.game_state.events)
    act(e, "play wild-draw4 green", P(0))  # guilty: held red
    act(e, "challenge", P(1))
    evs = e.game_state.events[start:]
    assert [E.EVENT_NAMES[ev.kind] for ev in evs] == ["played", "challenged", "penalty"]
    assert evs[1] == E.Event(E.CHALLENGED, 1, -1, 1)
    assert evs[2] == E.Event(E.PENALTY, 0, -1, 4)


def test_draw_event_counts_cards_and_never_names_them():
    e = make_env(2, {0: ["green-5"], 1: ["yellow-1"]}, "red-3", rules="classic", record_events=True,
                 draw_top=["blue-9"], hand_size=1)
    start = len(e.game_state.events)
    act(e, "draw", P(0))  # blue-9 cannot be played on red-3: the turn passes
    assert e.game_state.events[start:] == [E.Event(E.DREW, 0, -1, 1)]
    assert e.agent_selection == P(1)


def test_catch_window_answers_stay_hidden_only_the_penalty_is_public():
    e = make_env(3, {0: ["red-4", "green-5"]}, "red-3", rules="classic", uno_call="explicit", hand_size=2,
                 record_events=True)
    start = len(e.game_state.events)
    act(e, "play red-4", P(0))  # no UNO call: the catch window opens
    act(e, "pass", P(1))
    act(e, "catch", P(2))
    evs = e.game_state.events[start:]
    assert evs == [E.Event(E.PLAYED, 0, e.card_id("red-4"), 0), E.Event(E.CAUGHT, 0, -1, 2)]


def test_a_catch_window_nobody_used_ends_with_an_escaped_event():
    e = make_env(3, {0: ["red-4", "green-5"]}, "red-3", rules="classic", uno_call="explicit", hand_size=2,
                 record_events=True)
    start = len(e.game_state.events)
    act(e, "play red-4", P(0))  # no UNO call: the catch window opens
    act(e, "pass", P(1))
    assert e.game_state.events[start:] == [E.Event(E.PLAYED, 0, e.card_id("red-4"), 0)]  # answers hidden
    act(e, "pass", P(2))
    assert e.game_state.events[start + 1:] == [E.Event(E.ESCAPED, 0)]
