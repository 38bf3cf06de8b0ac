"""The public history of observation layout 1 (HISTORY and WD4_COLOR blocks).

* Stacked-deck scenarios, one per behaviour: an opponent who draws on red gets the red
  drew-on flag (and the face's); it clears when that player plays red; a penalty clears every
  flag; the received count counts and resets on a play; the last action kind; the colour
  before a pending Wild Draw Four is shown to the challenger (and to no one once it is judged).
* The history is public: it is the same for every observer (rotated to its slots), and it
  is a function of the public events alone: a small reducer over ``state.events`` rebuilds
  the flags, counts, colour left and (where the events tell it) the last action kind after
  every decision of random games of every preset.
"""

from __future__ import annotations

import numpy as np
import pytest

import uno_env
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import events as E
from uno_env.game import observation as O
from uno_env.game.engine import (DRAWN, H_DREW_ON_COLOR, H_LAST, H_LEFT, H_RECEIVED,
                                 LAST_CHALLENGED, LAST_DECLINED, LAST_DREW, LAST_NAMES,
                                 LAST_NONE, LAST_PENALTY, LAST_PLAYED, LAST_PLAYED_DRAWN, LAST_WILD)

from helpers import P, act, make_env

RED, YELLOW, GREEN, BLUE = range(4)  # classic colour indices


def slot(e, observer: int, seat: int) -> np.ndarray:
    """The HISTORY slot that ``observer``'s observation has about ``seat``."""
    obs = e.observe(P(observer))["observation"]
    j = (seat - observer) % e.engine.n
    start = O.HISTORY + (j - 1) * O.HIST_FIELDS
    return obs[start:start + O.HIST_FIELDS]


def drew_on_colors(e, observer: int, seat: int) -> list[int]:
    h = slot(e, observer, seat)
    return [c for c in range(C.NUM_COLORS) if h[O.HIST_DREW_ON_COLOR + c]]


def drew_on_faces(e, observer: int, seat: int) -> list[int]:
    h = slot(e, observer, seat)
    return [f for f in range(C.NUM_FACES) if h[O.HIST_DREW_ON_FACE + f]]


def received(e, observer: int, seat: int) -> int:
    return int(slot(e, observer, seat)[O.HIST_RECEIVED])


def last(e, observer: int, seat: int) -> str:
    h = slot(e, observer, seat)[O.HIST_LAST:O.HIST_LEFT]
    assert h.sum() == 1
    return LAST_NAMES[int(h.argmax())]


def left(e, observer: int, seat: int) -> int:
    h = slot(e, observer, seat)[O.HIST_LEFT:O.HIST_FIELDS]
    assert h.sum() <= 1
    return int(h.argmax()) if h.any() else -1


def wd4_color(e, observer: int) -> int:
    w = e.observe(P(observer))["observation"][O.WD4_COLOR:O.OBS_SIZE]
    assert w.sum() <= 1
    return int(w.argmax()) if w.any() else -1


# ---------------------------------------------------------------------- scenarios
def test_opponent_who_draws_on_red_gets_the_red_flag():
    e = make_env(2, {0: ["blue-1", "green-2", "yellow-3"], 1: ["red-7", "red-8", "blue-9"]}, "red-5",
                 draw_top=["green-9"])
    assert drew_on_colors(e, 1, 0) == [] and last(e, 1, 0) == "none" and received(e, 1, 0) == 0
    act(e, "draw", P(0))  # green-9 does not play on red-5: the turn ends
    assert e.agent_selection == P(1)
    assert drew_on_colors(e, 1, 0) == [RED]
    assert drew_on_faces(e, 1, 0) == [5]  # the top card's face too
    assert received(e, 1, 0) == 1 and last(e, 1, 0) == "drew"
    assert drew_on_colors(e, 0, 1) == [] and last(e, 0, 1) == "none"  # the other seat did nothing


def test_red_flag_clears_when_that_player_plays_red():
    e = make_env(2, {0: ["red-1", "blue-1", "green-2"], 1: ["red-7", "red-8", "blue-9"]}, "red-5",
                 draw_top=["green-9"])
    act(e, "draw", P(0))  # a draw is always legal, even holding red
    act(e, "play red-7", P(1))
    assert drew_on_colors(e, 1, 0) == [RED] and drew_on_faces(e, 1, 0) == [5]
    act(e, "play red-1", P(0))
    assert drew_on_colors(e, 1, 0) == []
    assert drew_on_faces(e, 1, 0) == [5]  # a red-1 says nothing about its fives
    assert received(e, 1, 0) == 0 and last(e, 1, 0) == "played" and left(e, 1, 0) == -1


def test_playing_another_colour_keeps_the_flag_and_shows_the_colour_left():
    e = make_env(2, {0: ["yellow-7", "blue-1", "green-2"], 1: ["red-7", "red-8", "blue-9"]}, "red-5",
                 draw_top=["green-9"])
    act(e, "draw", P(0))
    act(e, "play red-7", P(1))
    act(e, "play yellow-7", P(0))  # leaves red for yellow on a face match
    assert drew_on_colors(e, 1, 0) == [RED]
    assert left(e, 1, 0) == RED and last(e, 1, 0) == "played"


def test_flags_clear_on_a_penalty_draw():
    e = make_env(2, {0: ["blue-1", "green-2", "yellow-3"], 1: ["red-draw2", "red-8", "blue-9"]}, "red-5",
                 draw_top=["green-9"])
    act(e, "draw", P(0))
    assert drew_on_colors(e, 1, 0) == [RED]
    act(e, "play red-draw2", P(1))  # seat 0 takes two (no stacking) and loses its turn
    assert drew_on_colors(e, 1, 0) == [] and drew_on_faces(e, 1, 0) == []
    assert received(e, 1, 0) == 3 and last(e, 1, 0) == "penalty"


def test_received_count_counts_draws_and_resets_on_a_play():
    e = make_env(2, {0: ["blue-1", "green-2", "yellow-3"], 1: ["red-7", "red-8", "red-9"]}, "red-5",
                 draw_top=["green-9", "blue-8"])
    act(e, "draw", P(0))  # green-9: not playable on red-5
    act(e, "play red-7", P(1))
    act(e, "draw", P(0))  # blue-8: not playable on red-7
    assert received(e, 1, 0) == 2 and last(e, 1, 0) == "drew"
    act(e, "play red-8", P(1))
    act(e, "play blue-8", P(0))  # from its hand, on the face
    assert received(e, 1, 0) == 0 and last(e, 1, 0) == "played" and left(e, 1, 0) == RED
    assert drew_on_colors(e, 1, 0) == [RED]  # it drew on red twice and has not played red


def test_received_count_resets_when_the_drawn_card_is_played():
    e = make_env(2, {0: ["blue-1", "green-2", "yellow-3"], 1: ["red-7", "red-8", "blue-9"]}, "red-5",
                 draw_top=["green-9", "red-4"])
    act(e, "draw", P(0))
    act(e, "play red-7", P(1))
    act(e, "draw", P(0))  # red-4 plays
    assert e.agent_selection == P(0) and received(e, 1, 0) == 2 and last(e, 1, 0) == "drew"
    act(e, "play red-4", P(0))
    assert received(e, 1, 0) == 0 and last(e, 1, 0) == "played_drawn"
    assert drew_on_colors(e, 1, 0) == [] and drew_on_faces(e, 1, 0) == [5, 7]  # it drew on red-5, red-7


def test_keeping_a_playable_drawn_card_looks_to_the_others_like_drawing_an_unplayable_one():
    """RULES.md 9: the drawn card is private, so whether it was playable is too. Kept (``pass``
    on red-4) or unplayable (green-9: the turn passes by itself), the other player's
    observation is the same entry for entry ("drew", one card received, drew on red), and the
    only event is the draw."""
    seen = {}
    for drawn in ("red-4", "green-9"):
        e = make_env(2, {0: ["blue-1", "green-2", "yellow-3"], 1: ["red-7", "red-8", "blue-9"]}, "red-5",
                     draw_top=[drawn], record_events=True)
        start = len(e.game_state.events)
        act(e, "draw", P(0))
        if drawn == "red-4":
            assert e.agent_selection == P(0) and e.game_state.phase == DRAWN  # it plays: keep it
            act(e, "pass", P(0))
        assert e.agent_selection == P(1)
        assert last(e, 1, 0) == "drew" and received(e, 1, 0) == 1 and drew_on_colors(e, 1, 0) == [RED]
        assert [ev.kind for ev in e.game_state.events[start:]] == [E.DREW]
        seen[drawn] = e.observe(P(1))["observation"]
    np.testing.assert_array_equal(seen["red-4"], seen["green-9"])


def test_last_action_wild_and_the_colour_it_left():
    e = make_env(2, {0: ["wild", "blue-1", "green-2"]}, "red-5")
    act(e, "play wild blue", P(0))
    assert last(e, 1, 0) == "wild" and left(e, 1, 0) == RED


def _wd4_env(victim_hand=("red-7", "red-8", "blue-9")):
    # seat 0 holds no red: its Wild Draw Four on red-5 is legal
    return make_env(2, {0: ["wild-draw4", "blue-1", "green-2"], 1: list(victim_hand)}, "red-5")


def test_colour_before_a_pending_wild_draw4_is_shown_to_the_challenger():
    e = _wd4_env()
    assert wd4_color(e, 1) == -1
    act(e, "play wild-draw4 green", P(0))
    assert e.agent_selection == P(1)
    assert wd4_color(e, 1) == RED  # what decides the challenge: did seat 0 hold red?
    assert wd4_color(e, 0) == RED  # public: every player saw the colour before it
    act(e, "challenge", P(1))  # legal: the challenger draws six
    assert wd4_color(e, 1) == -1 and wd4_color(e, 0) == -1
    assert last(e, 0, 1) == "challenged" and received(e, 0, 1) == 6
    assert last(e, 1, 0) == "wild" and left(e, 1, 0) == RED


def test_declined_challenge():
    e = _wd4_env()
    act(e, "play wild-draw4 green", P(0))
    act(e, "draw", P(1))
    assert last(e, 0, 1) == "declined" and received(e, 0, 1) == 4 and wd4_color(e, 0) == -1


def test_no_wd4_colour_without_the_challenge_rule():
    e = make_env(2, {0: ["wild-draw4", "blue-1", "green-2"]}, "red-5", challenge=False)
    act(e, "play wild-draw4 green", P(0))
    assert wd4_color(e, 0) == -1 and wd4_color(e, 1) == -1
    assert last(e, 0, 1) == "penalty"


def test_history_resets_at_a_new_round():
    e = make_env(2, {0: ["red-1", "red-2"], 1: ["blue-1", "green-2"]}, "red-5", draw_top=["green-9"],
                 hand_size=2, episode="game", target_score=500)
    act(e, "play red-1", P(0))
    act(e, "draw", P(1))  # green-9 does not play on red-1
    assert last(e, 0, 1) == "drew" and drew_on_colors(e, 0, 1) == [RED] and received(e, 0, 1) == 1
    act(e, "play red-2", P(0))  # seat 0 goes out: the round ends, a new one is dealt
    assert e.game_state.round == 1 and not e.game_state.game_over
    for observer in (0, 1):
        other = 1 - observer
        assert drew_on_colors(e, observer, other) == [] and drew_on_faces(e, observer, other) == []
        assert received(e, observer, other) == 0 and left(e, observer, other) == -1
        assert last(e, observer, other) == "none"


# ---------------------------------------------------------------------- public only
def _reference(events, n):
    """The history rebuilt from public events alone: (flags, received, left, last), where
    last[q] is the set of kinds the events allow (a penalty outside a challenge is a taken
    penalty, a declined challenge, or no action of that seat: a slap, a guilty Draw Four)."""
    flags = np.zeros((n, C.NUM_COLORS + C.NUM_FACES), np.int64)
    got = [0] * n
    left_c = [-1] * n
    last_k: list = [{LAST_NONE}] * n
    color, top = -1, -1
    prev = None  # (kind, seat) of the last event other than a UNO call
    challenge = False  # the penalties that follow a CHALLENGED event belong to it
    for ev in events:
        kind, seat, card, value = ev
        if kind == E.DEALT:
            flags[:] = 0
            got, left_c, last_k = [0] * n, [-1] * n, [{LAST_NONE}] * n
            top, color = card, C.COLOR_OF[card]
        elif kind in (E.PLAYED, E.JUMPED_IN):
            drawn = prev is not None and prev[1] == seat and prev[0] in (E.DREW, E.TOOK)
            last_k[seat] = {LAST_PLAYED_DRAWN if drawn else LAST_PLAYED if card < C.NUM_COLORED else LAST_WILD}
            got[seat] = 0
            if card < C.NUM_COLORED:
                flags[seat, C.COLOR_OF[card]] = 0
                flags[seat, C.NUM_COLORS + C.FACE_OF[card]] = 0
            left_c[seat] = color if color != value else -1
            top, color = card, value
        elif kind == E.DISCARDED:
            flags[seat, C.COLOR_OF[card]] = 0
            flags[seat, C.NUM_COLORS + C.FACE_OF[card]] = 0
        elif kind == E.COLOR_CHOSEN:
            color = value
        elif kind == E.DREW:
            flags[seat, color] = 1
            if C.FACE_OF[top] != C.NO_FACE:
                flags[seat, C.NUM_COLORS + C.FACE_OF[top]] = 1
            got[seat] += value
            last_k[seat] = {LAST_DREW}
        elif kind in (E.PENALTY, E.CAUGHT):
            got[seat] += value
            if value > 0:
                flags[seat] = 0
            if kind == E.PENALTY and not challenge:
                last_k[seat] = last_k[seat] | {LAST_PENALTY, LAST_DECLINED}
        elif kind == E.TOOK:
            got[seat] += 1
            flags[seat] = 0
        elif kind == E.CHALLENGED:
            last_k[seat] = {LAST_CHALLENGED}
        challenge = kind == E.CHALLENGED or challenge and kind == E.PENALTY
        if kind != E.UNO:
            prev = (kind, seat)
    return flags, got, left_c, last_k


PRESET_CASES = [("classic", 2, {}), ("classic", 4, {"uno_call": "explicit"}), ("tmnt", 3, {}),
                ("house", 2, {}), ("house", 4, {"uno_call": "explicit"}),
                ("classic", 3, {"stacking": True, "jump_in": True, "stacked_challenge": "last"}),
                ("classic", 2, {"episode": "game", "target_score": 100})]


@pytest.mark.parametrize("rules,n,overrides", PRESET_CASES)
def test_history_is_a_function_of_the_public_events(rules, n, overrides):
    """After every decision of random games, the history equals what a reader of the public
    events rebuilds (so no hidden card or hidden window answer reaches it), and every
    observer sees the same history in its own slot order."""
    env = uno_env.raw_env(rules=rules, num_players=n, max_steps=600, **overrides)
    env.engine.record_events = True
    rng = np.random.default_rng(7)
    checked = set()
    for game in range(3):
        env.reset(seed=100 + game)
        s = env.game_state
        while not s.game_over and s.steps < 600:
            legal = env.engine.legal_actions(s)
            plays = [a for a in legal if a < A.PLAY_END]
            action = plays[int(rng.integers(len(plays)))] if plays and rng.random() < 0.7 else \
                legal[int(rng.integers(len(legal)))]
            env.step(action)
            s = env.game_state
            flags, got, left_c, last_k = _reference(s.events, n)
            h = s.history
            assert (h[:, H_DREW_ON_COLOR:H_RECEIVED] == flags).all(), f"step {s.steps}: flags"
            assert h[:, H_RECEIVED].tolist() == got, f"step {s.steps}: received"
            assert h[:, H_LEFT].tolist() == left_c, f"step {s.steps}: colour left"
            for q in range(n):
                assert h[q, H_LAST] in last_k[q], f"step {s.steps}: seat {q} last action"
                checked.add(int(h[q, H_LAST]))
            # every observer: the same rows in its slot order
            for observer in range(n):
                rows, _ = O.decode_history(env.observe(P(observer))["observation"], n)
                assert (rows == h[[(observer + j) % n for j in range(1, n)]]).all()
    assert len(checked) >= 4, checked  # several kinds came up
