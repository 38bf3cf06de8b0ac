"""Observation encoding: what one player may know, as a flat float32 vector.

The layout is the same for every ruleset and player count (opponent slots beyond
``num_players - 1`` are zero). ``OBS_SIZE`` = 1254. Counts are raw card counts unless noted.

===========  =====  ===========================================================
offset       size   content
===========  =====  ===========================================================
HAND 0       56     own hand: count of each card kind (kind table in ``cards``)
TOP 56       56     top card of DISCARD, one-hot kind
COLOR 112    4      current colour, one-hot (all zero before a first-card colour choice)
PHASE 116    10     phase of *my* decision, one-hot (all zero when I am not deciding,
                    so a window never shows who else is asked)
PENDING 126  4      pending penalty: count, then kind one-hot (draw2, draw4, sewers)
DIRECTION    1      1 if play goes counter-clockwise (decreasing seats)
  130
DRAW_SIZE    1      DRAW pile size / deck size
  131
PLAYED 132   56     cards of each kind played since the last reshuffle
TURN 188     10     whose regular turn it is, one-hot, seats to my left (0 = me)
SELF 198     2      my UNO called flag, my score / target_score
OPPONENTS    9x116  per opponent, slot j-1 = the player j seats to my left, j = 1..9:
  200               present (1), hand size (1), score / target_score (1), UNO called (1; 0 in auto mode,
                    where hand size 1 says it),
                    cards known to be in that hand (56: shown by SEWERS, offered, taken,
                    or shown to me alone in my challenge), open offer one-hot (56)
RULES 1244   10     stacking, jump_in, seven_slap, giving, draw until playable, explicit
                    UNO, Wild Draw Four bluff, challenge, tmnt colours, num_players / 10
===========  =====  ===========================================================
"""

from __future__ import annotations

import numpy as np

from uno_env.game import cards as C
from uno_env.game.engine import NUM_PENDING_KINDS, NUM_PHASES, Engine, State

LAYOUT_VERSION = 0  # bump on any change to the layout below (checkpoints record it)
MAX_PLAYERS = 10
MAX_OPPONENTS = MAX_PLAYERS - 1

# The flags of the RULES block, in order: (name, its value for a ruleset); then num_players /
# MAX_PLAYERS. The one list of them (``uno_env.agents.view.RuleFlags`` reads the names).
RULE_FLAGS = (
    ("stacking", lambda r: r.stacking),
    ("jump_in", lambda r: r.jump_in),
    ("seven_slap", lambda r: r.seven_slap),
    ("giving", lambda r: r.giving),
    ("until_playable", lambda r: r.draw_rule == "until_playable"),
    ("explicit_uno", lambda r: r.uno_call == "explicit"),
    ("wd4_bluff", lambda r: r.wd4_bluff),
    ("challenge", lambda r: r.challenge),
    ("tmnt", lambda r: r.colors == "tmnt"),
)
RULE_FLAG_NAMES = tuple(name for name, _ in RULE_FLAGS)

# Fields of one opponent slot (offsets inside its OPP_FIELDS).
OPP_PRESENT = 0
OPP_HAND_SIZE = 1
OPP_SCORE = 2
OPP_UNO = 3
OPP_KNOWN = 4
OPP_OFFER = OPP_KNOWN + C.NUM_KINDS
OPP_FIELDS = OPP_OFFER + C.NUM_KINDS  # 116

# Blocks of the vector.
HAND = 0
TOP = HAND + C.NUM_KINDS
COLOR = TOP + C.NUM_KINDS
PHASE = COLOR + C.NUM_COLORS
PENDING = PHASE + NUM_PHASES  # the pending count
PENDING_KIND = PENDING + 1  # its kind, one-hot
DIRECTION = PENDING_KIND + NUM_PENDING_KINDS
DRAW_SIZE = DIRECTION + 1
PLAYED = DRAW_SIZE + 1
TURN = PLAYED + C.NUM_KINDS
SELF = TURN + MAX_PLAYERS  # my UNO flag
SELF_SCORE = SELF + 1
OPPONENTS = SELF_SCORE + 1
RULES = OPPONENTS + MAX_OPPONENTS * OPP_FIELDS
RULE_NUM_PLAYERS = RULES + len(RULE_FLAGS)  # num_players / MAX_PLAYERS
NUM_RULE_FLAGS = len(RULE_FLAGS) + 1
OBS_SIZE = RULES + NUM_RULE_FLAGS  # 1254


class ObservationEncoder:
    """Encodes :class:`State` into the observation vector of one seat."""

    def __init__(self, engine: Engine):
        r = engine.rules
        self.n = n = engine.n
        self.deck_size = float(len(engine.deck))
        self.target = float(r.target_score)
        self.giving = r.giving
        self.explicit_uno = r.uno_call == "explicit"
        self.multi_round = r.episode != "round"
        rule_flags = np.array([flag(r) for _, flag in RULE_FLAGS] + [n / MAX_PLAYERS], np.float32)
        self._template = np.zeros(OBS_SIZE, np.float32)  # the constant part: presence and rules
        self.rule_flags = rule_flags  # the RULES block (also in the global state)
        self._template[RULES:] = rule_flags
        self._template[OPPONENTS + OPP_PRESENT:OPPONENTS + (n - 1) * OPP_FIELDS:OPP_FIELDS] = 1.0
        # _others[p]: seats to p's left, j = 1..n-1
        self._others = [[(p + j) % n for j in range(1, n)] for p in range(n)]
        self._others_np = [np.array(o, np.intp) for o in self._others]

    def encode(self, s: State, p: int) -> np.ndarray:
        obs = self._template.copy()
        obs[HAND:HAND + C.NUM_KINDS] = s.hands[p]
        obs[TOP + s.discard[-1]] = 1.0
        if s.color >= 0:
            obs[COLOR + s.color] = 1.0
        if s.actor == p:
            obs[PHASE + s.phase] = 1.0
        if s.pending:
            obs[PENDING] = s.pending
            obs[PENDING_KIND + s.pending_kind] = 1.0
        if s.direction < 0:
            obs[DIRECTION] = 1.0
        obs[DRAW_SIZE] = len(s.draw_pile) / self.deck_size
        obs[PLAYED:PLAYED + C.NUM_KINDS] = s.played
        obs[TURN + (s.turn - p) % self.n] = 1.0
        others = self._others[p]
        base = OPPONENTS + OPP_HAND_SIZE
        for q in others:
            obs[base] = s.hand_size[q]
            base += OPP_FIELDS
        if self.explicit_uno:  # UNO flags (in auto mode: the same as hand size == 1)
            obs[SELF] = s.uno_called[p]
            obs[OPPONENTS + OPP_UNO:RULES:OPP_FIELDS][:self.n - 1] = [s.uno_called[q] for q in others]
        if self.multi_round:  # scores (always zero inside a one-round episode)
            obs[SELF_SCORE] = s.scores[p] / self.target
            obs[OPPONENTS + OPP_SCORE:RULES:OPP_FIELDS][:self.n - 1] = [s.scores[q] / self.target for q in others]
        if s.known_any or self.giving:
            block = obs[OPPONENTS:RULES].reshape(MAX_OPPONENTS, OPP_FIELDS)
            if s.known_any:
                block[:self.n - 1, OPP_KNOWN:OPP_OFFER] = s.known[p, self._others_np[p]]
            if self.giving:
                for j, q in enumerate(others):
                    if s.offers[q] >= 0:
                        block[j, OPP_OFFER + s.offers[q]] = 1.0
        return obs
