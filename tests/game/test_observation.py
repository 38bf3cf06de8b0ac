"""The observation encoder equals the straightforward encoding of its layout table.

``ObservationEncoder`` keeps a private buffer per seat and copies the state's arrays through
views made once per state (``uno_env.game.observation``: "How"). ``ReferenceEncoder`` below is
the plain version, kept here as the spec in code: a fresh template, every entry written from
the state on every call, block by block as the table lists them (it agrees with the encoder
of uno_env 0.3-0.5.13, which worked that way). They run in lockstep over seeded random games
of every preset and option mix, 2-10 players: after every decision the actor and each other
seat with probability 1/2 are encoded by both, in a random order (so that a seat's buffer
meets states that changed by several decisions since it last looked), and the vectors must
be equal entry for entry. Then the contract around the buffers: every call returns a new
array that nothing writes to afterwards, states changed by hand or swapped for others encode
correctly, and copies of an encoder share nothing with it.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import engine as G
from uno_env.game.engine import Engine, State
from uno_env.game.observation import (
    COLOR, DIRECTION, DRAW_SIZE, HAND, HIST_DREW_ON_COLOR, HIST_FIELDS, HIST_LAST, HIST_LEFT,
    HISTORY, MAX_OPPONENTS, MAX_PLAYERS, OBS_SIZE, OPP_FIELDS, OPP_HAND_SIZE, OPP_KNOWN,
    OPP_OFFER, OPP_PRESENT, OPP_SCORE, OPP_UNO, OPPONENTS, PENDING, PENDING_KIND, PHASE, PLAYED,
    RULE_FLAGS, RULES, SELF, SELF_SCORE, TOP, TURN, V0_SIZE, WD4_COLOR, ObservationEncoder)
from uno_env.game.rules import make_rules


class ReferenceEncoder:
    """The layout table of ``uno_env.game.observation``, encoded the plain way."""

    def __init__(self, engine: Engine):
        r = engine.rules
        self.n = n = engine.n
        self.rules = r
        self.deck_size = float(len(engine.deck))
        self.template = np.zeros(OBS_SIZE, np.float32)
        self.template[RULES:V0_SIZE] = [flag(r) for _, flag in RULE_FLAGS] + [n / MAX_PLAYERS]
        for j in range(n - 1):
            self.template[OPPONENTS + j * OPP_FIELDS + OPP_PRESENT] = 1.0

    def encode(self, s: State, p: int) -> np.ndarray:
        r, n = self.rules, self.n
        obs = self.template.copy()

        def one_hot(block: int, index: int) -> None:  # index -1: no entry
            if index >= 0:
                obs[block + index] = 1.0

        obs[HAND:TOP] = s.hands[p]
        one_hot(TOP, s.discard[-1])
        one_hot(COLOR, s.color)
        one_hot(PHASE, s.phase if s.actor == p else -1)
        obs[PENDING] = s.pending
        one_hot(PENDING_KIND, s.pending_kind if s.pending else -1)
        obs[DIRECTION] = s.direction == -1
        obs[DRAW_SIZE] = len(s.draw_pile) / self.deck_size
        obs[PLAYED:TURN] = s.played
        one_hot(TURN, (s.turn - p) % n)
        explicit, scores = r.uno_call == "explicit", r.episode != "round"
        obs[SELF] = explicit and s.uno_called[p]
        obs[SELF_SCORE] = scores and s.scores[p] / r.target_score
        for j in range(n - 1):
            q = (p + 1 + j) % n  # slot j: the seat j + 1 to my left
            slot = OPPONENTS + j * OPP_FIELDS
            obs[slot + OPP_HAND_SIZE] = s.hand_size[q]
            obs[slot + OPP_SCORE] = scores and s.scores[q] / r.target_score
            obs[slot + OPP_UNO] = explicit and s.uno_called[q]
            obs[slot + OPP_KNOWN:slot + OPP_OFFER] = s.known[p, q] if s.known_any else 0
            one_hot(slot + OPP_OFFER, s.offers[q] if r.giving else -1)
            slot = HISTORY + j * HIST_FIELDS
            obs[slot + HIST_DREW_ON_COLOR:slot + HIST_LAST] = s.history[q, G.H_DREW_ON_COLOR:G.H_LAST]
            one_hot(slot + HIST_LAST, s.history[q, G.H_LAST])
            one_hot(slot + HIST_LEFT, s.history[q, G.H_LEFT])
        one_hot(WD4_COLOR, s.wd4_color if r.challenge and s.wd4_player >= 0 else -1)
        return obs


# every preset, and option mixes that switch on the encoder's other branches: explicit UNO
# flags, scores of a multi-round episode, offers (giving), no challenge (no WD4_COLOR)
CASES = [
    ("classic", {}),
    ("classic-stacking-jumpin", {"uno_call": "explicit"}),
    ("tmnt", {"episode": "game", "target_score": 60}),
    ("house", {}),
    ("house", {"uno_call": "explicit", "episode": "rounds", "num_rounds": 3, "scoring": "alternative"}),
    ("classic", {"giving": True, "challenge": False, "wd4_bluff": False, "draw_rule": "until_playable"}),
]
PLAYERS = tuple(range(2, MAX_OPPONENTS + 2))


def play_in_lockstep(rules: str, overrides: dict, n: int, decisions: int, seed: int) -> dict:
    """Seeded random games until ``decisions`` decisions: after every one, a random subset of
    seats (in a random order; the actor always among them) is encoded by both encoders. Games
    are cut at 400 decisions (random play can hoard cards for thousands) so that many deals,
    rounds and first cards come by. Returns what was covered."""
    engine = Engine(make_rules(rules, **overrides), n)
    fast, reference = ObservationEncoder(engine), ReferenceEncoder(engine)
    rng = np.random.default_rng(seed)
    seen = {"decisions": 0, "encodings": 0, "phases": set(), "rounds": 0, "known": 0}
    while seen["decisions"] < decisions:
        s = engine.new_state(np.random.default_rng(int(rng.integers(2 ** 32))))
        while not s.game_over and s.steps < 400 and seen["decisions"] < decisions:
            seats = [int(q) for q in rng.permutation(n) if q == s.actor or rng.random() < 0.5]
            for p in seats:
                got, want = fast.encode(s, p), reference.encode(s, p)
                assert got.dtype == np.float32 and got.shape == (OBS_SIZE,)
                if not np.array_equal(got, want):
                    bad = np.flatnonzero(got != want)
                    raise AssertionError(f"{rules} {overrides} {n}p, decision {s.steps}, seat {p}: entries "
                                         f"{bad[:10].tolist()} are {got[bad[:10]].tolist()}, want "
                                         f"{want[bad[:10]].tolist()}")
            seen["encodings"] += len(seats)
            seen["phases"].add(s.phase)
            seen["known"] += s.known_any
            legal = engine.legal_actions(s)
            plays = [a for a in legal if a < A.DRAW]  # play a card most of the time: games end
            engine.step(s, int(rng.choice(plays if plays and rng.random() < 0.8 else legal)))
            seen["decisions"] += 1
        seen["rounds"] += s.round
    return seen


@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("rules,overrides", CASES)
def test_encoder_equals_the_reference_at_every_decision(rules, overrides, n):
    seen = play_in_lockstep(rules, overrides, n, decisions=500, seed=n)
    assert seen["encodings"] >= 300 and len(seen["phases"]) >= 2


@pytest.mark.slow
@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("rules,overrides", CASES)
def test_encoder_equals_the_reference_at_every_decision_long(rules, overrides, n):
    play_in_lockstep(rules, overrides, n, decisions=5_000, seed=100 + n)


def test_lockstep_games_cover_every_branch_of_the_encoder():
    """The cases above reach every phase, known cards and finished rounds."""
    phases, known, rounds = set(), 0, 0
    for rules, overrides in CASES:
        seen = play_in_lockstep(rules, overrides, 3, decisions=300, seed=7)
        phases |= seen["phases"]
        known += seen["known"]
        rounds += seen["rounds"]
    assert phases == set(range(G.NUM_PHASES - 1))  # every phase but OVER
    assert known > 0 and rounds > 0


def _game(rules="classic", n=3, steps=60, seed=0):
    engine = Engine(make_rules(rules), n)
    s = engine.new_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if s.game_over:
            break
        legal = engine.legal_actions(s)
        engine.step(s, int(rng.choice(legal)))
    return engine, s, rng


def test_every_call_returns_a_new_array_that_later_calls_leave_alone():
    engine, s, rng = _game()
    enc, ref = ObservationEncoder(engine), ReferenceEncoder(engine)
    kept = []
    for _ in range(40):
        if s.game_over:
            break
        p = s.actor
        obs = enc.encode(s, p)
        again = enc.encode(s, p)
        assert obs is not again and not np.shares_memory(obs, again)
        again[:] = 7.0  # a caller writing into its observation changes nothing else
        kept.append((obs, ref.encode(s, p)))
        engine.step(s, int(rng.choice(engine.legal_actions(s))))
    assert len(kept) > 10
    for obs, want in kept:  # kept observations still show the decision they were made for
        assert np.array_equal(obs, want)


def test_states_changed_by_hand_or_swapped_encode_like_the_reference():
    """Nothing is trusted to stay put: cards moved by hand, a replaced array, a copy of the
    state with its own arrays, and going back to the first state, all encode as the reference
    does for the same seat."""
    engine, s, rng = _game("classic", 3, steps=80, seed=3)
    enc, ref = ObservationEncoder(engine), ReferenceEncoder(engine)

    def check(state, p=0):
        assert np.array_equal(enc.encode(state, p), ref.encode(state, p))

    check(s)
    k = int(np.flatnonzero(s.hands[0])[0])
    s.hands[0, k] -= 1  # in place, behind the engine's back
    s.hands[0, (k + 1) % C.NUM_KINDS] += 1
    s.history[1, G.H_LAST] = G.LAST_PENALTY
    check(s)
    s.known = s.known.copy()  # a replaced array
    s.known[0, 1, 3] = 2
    s.known_any = True
    check(s)
    s.known_any = False  # the flag says no card is known: the block is zero again
    check(s)
    t = copy.copy(s)  # another state object with arrays of its own
    t.hands, t.played, t.history = s.hands.copy(), s.played.copy(), s.history.copy()
    t.played[5] += 3
    check(t)
    check(s)  # and back
    t.discard = t.discard + [C.WILD]
    t.color, t.direction, t.pending, t.pending_kind = -1, -1, 4, G.PENDING_DRAW4
    check(t)


def test_copies_of_an_encoder_share_no_buffer_with_it():
    engine, s, rng = _game("house", 4, steps=50, seed=5)
    enc, ref = ObservationEncoder(engine), ReferenceEncoder(engine)
    before = enc.encode(s, 1)
    for twin in (copy.deepcopy(enc), pickle.loads(pickle.dumps(enc))):
        t = copy.deepcopy(s)
        t.played[:] = 0  # changes to the copy's state
        assert np.array_equal(twin.encode(t, 1), ref.encode(t, 1))
        assert np.array_equal(enc.encode(s, 1), before)  # the original encoder still reads s
