"""The global state: everything at the table, for centralised critics (training only).

A flat float32 vector, the same layout for every ruleset and player count (seat slots beyond
``num_players`` are zero). Unlike the observation (:mod:`uno_env.game.observation`) it holds
**hidden information**: every hand and the DRAW pile's contents (as counts: the order of the
pile is not included). It is what PettingZoo's ``state()`` returns and what an asymmetric
actor-critic's value network may read during training; a policy that acts must never read it.
Seats are absolute (slot i = seat i) by default; ``encode(state, seat=p)`` gives the same
vector seen from seat ``p``: every seat block (HANDS, ACTOR, TURN, SIZES, SCORES, UNO) is
rotated so that slot j is the player j seats to ``p``'s left (slot 0 = ``p``), as in the
observation. That is the form a learner's critic reads (:class:`uno_env.envs.gym_env.UnoGymEnv`
with ``critic_state``). ``GLOBAL_STATE_SIZE`` = 807.

===========  =====  =============================================================
offset       size   content
===========  =====  =============================================================
HANDS 0      560    10 seat slots x 56: count of each card kind in that seat's hand
DRAW 560     56     DRAW pile: count of each card kind (order-free)
TOP 616      56     top card of DISCARD, one-hot kind
COLOR 672    4      current colour, one-hot (all zero before a first-card colour choice)
PHASE 676    10     phase of the current decision, one-hot
ACTOR 686    10     seat that decides now, one-hot (all zero once the game is over)
TURN 696     10     seat whose regular turn it is, one-hot
PENDING 706  4      pending penalty: count, then kind one-hot (draw2, draw4, sewers)
DIRECTION    1      1 if play goes counter-clockwise
  710
PLAYED 711   56     cards of each kind played since the last reshuffle
SIZES 767    10     hand size per seat
SCORES 777   10     score per seat / target_score
UNO 787      10     UNO called flag per seat
RULES 797    10     the observation's rule flags (same order as its RULES block)
===========  =====  =============================================================
"""

from __future__ import annotations

import numpy as np

from uno_env.game import cards as C
from uno_env.game.engine import NUM_PENDING_KINDS, NUM_PHASES, Engine, State
from uno_env.game.observation import MAX_PLAYERS, NUM_RULE_FLAGS, ObservationEncoder

GLOBAL_STATE_VERSION = 0
HANDS = 0
DRAW = HANDS + MAX_PLAYERS * C.NUM_KINDS
TOP = DRAW + C.NUM_KINDS
COLOR = TOP + C.NUM_KINDS
PHASE = COLOR + C.NUM_COLORS
ACTOR = PHASE + NUM_PHASES
TURN = ACTOR + MAX_PLAYERS
PENDING = TURN + MAX_PLAYERS
DIRECTION = PENDING + 1 + NUM_PENDING_KINDS
PLAYED = DIRECTION + 1
SIZES = PLAYED + C.NUM_KINDS
SCORES = SIZES + MAX_PLAYERS
UNO = SCORES + MAX_PLAYERS
RULES = UNO + MAX_PLAYERS
GLOBAL_STATE_SIZE = RULES + NUM_RULE_FLAGS  # 807


class GlobalStateEncoder:
    """Encodes a :class:`State` into the global state vector (see the module table)."""

    def __init__(self, engine: Engine):
        self.n = engine.n
        self.target = float(engine.rules.target_score)
        self._template = np.zeros(GLOBAL_STATE_SIZE, np.float32)
        self._template[RULES:] = ObservationEncoder(engine).rule_flags
        self._orders = [np.array([(p + j) % self.n for j in range(self.n)], np.intp) for p in range(self.n)]

    def encode(self, s: State, seat: int | None = None) -> np.ndarray:
        """The global state with absolute seats, or seen from ``seat`` (slot 0 = ``seat``)."""
        n = self.n
        out = self._template.copy()
        order = self._orders[0 if seat is None else seat]  # order[j]: the seat in slot j
        first = int(order[0])  # slot of seat q: (q - first) % n
        out[HANDS:HANDS + n * C.NUM_KINDS] = s.hands[order].reshape(-1)
        if s.draw_pile:
            out[DRAW:DRAW + C.NUM_KINDS] = np.bincount(s.draw_pile, minlength=C.NUM_KINDS)
        out[TOP + s.discard[-1]] = 1.0
        if s.color >= 0:
            out[COLOR + s.color] = 1.0
        out[PHASE + s.phase] = 1.0
        if s.actor >= 0:
            out[ACTOR + (s.actor - first) % n] = 1.0
        out[TURN + (s.turn - first) % n] = 1.0
        if s.pending:
            out[PENDING] = s.pending
            out[PENDING + 1 + s.pending_kind] = 1.0
        if s.direction < 0:
            out[DIRECTION] = 1.0
        out[PLAYED:PLAYED + C.NUM_KINDS] = s.played
        out[SIZES:SIZES + n] = [s.hand_size[q] for q in order]
        out[SCORES:SCORES + n] = [s.scores[q] / self.target for q in order]
        out[UNO:UNO + n] = [s.uno_called[q] for q in order]
        return out
