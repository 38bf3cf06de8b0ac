"""Observation encoding: what one player may know, as a flat float32 vector.

The layout is the same for every ruleset and player count (opponent slots beyond
``num_players - 1`` are zero). ``OBS_SIZE`` = 1537 (layout version 1). Counts are raw card
counts unless noted.

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
HISTORY      9x31   per opponent, the same slot order as OPPONENTS, its public history this
  1254              round (``State.history``; reset at every deal; slots beyond
                    num_players - 1 zero); offsets inside a slot:
                    +0 drew on colour (4): it drew in its turn (``draw``, drawing until
                    playable, the draw after a taken offer) while colour c was current and
                    has neither played (nor discarded) a card of colour c since nor received
                    cards any other way (a penalty, a catch, SEWERS, a taken card): the
                    colours it probably lacks;
                    +4 drew on face (13): the same for the face of the top card (a coloured top);
                    +17 received (1): cards it drew or received since its last play (count);
                    +18 last action (9, one-hot, ``engine.LAST_NAMES``): none this round,
                    played a coloured card, played a wild, played the card it had just drawn
                    (or taken), drew (and did not play the card: keeping a playable drawn
                    card is not public), retired (always 0 since 0.5.13), took a penalty,
                    declined a challenge, challenged (window answers, UNO calls, discards and
                    first-card colour choices do not count);
                    +27 left colour (4, one-hot): the colour its last play changed away from
                    (zero if that play kept the colour)
WD4_COLOR    4      the colour current before the Wild Draw Four on top, one-hot, while it
  1533              may be challenged (a challenge rule and the penalty still pending); else 0
===========  =====  ===========================================================

Everything in HISTORY and WD4_COLOR is public (every player saw it happen), so it is the
same for every observer; the UNO state of an opponent is in OPPONENTS (not repeated).

**Versions.** Layout 1 appends HISTORY and WD4_COLOR to the 1254 entries of layout 0,
unchanged: ``observation[:V0_SIZE]`` is the version-0 observation, so whatever reads
version-0 offsets (bots, :func:`uno_env.agents.view.decode`, policies of version-0
checkpoints) keeps working. ``LAYOUT_SIZES`` maps each version readers may meet to its size.
"""

from __future__ import annotations

import numpy as np

from uno_env.game import cards as C
from uno_env.game import engine as G
from uno_env.game.engine import NUM_PENDING_KINDS, NUM_PHASES, Engine, State

LAYOUT_VERSION = 1  # bump on any change to the layout below (checkpoints record it)
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
V0_SIZE = RULES + NUM_RULE_FLAGS  # 1254: the whole layout of version 0, the prefix of version 1

# Fields of one opponent's HISTORY slot (offsets inside its HIST_FIELDS).
HIST_DREW_ON_COLOR = 0
HIST_DREW_ON_FACE = HIST_DREW_ON_COLOR + C.NUM_COLORS
HIST_RECEIVED = HIST_DREW_ON_FACE + C.NUM_FACES
HIST_LAST = HIST_RECEIVED + 1  # one-hot over engine.LAST_NAMES
HIST_LEFT = HIST_LAST + G.NUM_LAST_KINDS  # one-hot colour
HIST_FIELDS = HIST_LEFT + C.NUM_COLORS  # 31
HISTORY = V0_SIZE
WD4_COLOR = HISTORY + MAX_OPPONENTS * HIST_FIELDS
OBS_SIZE = WD4_COLOR + C.NUM_COLORS  # 1537
LAYOUT_SIZES = {0: V0_SIZE, 1: OBS_SIZE}  # layout version -> observation size
# the engine's history columns that HISTORY copies as they are (drew-on flags and received)
_COPIED = slice(G.H_DREW_ON_COLOR, G.H_RECEIVED + 1)
_COPIED_WIDTH = G.H_RECEIVED + 1 - G.H_DREW_ON_COLOR
assert HIST_RECEIVED - HIST_DREW_ON_COLOR == G.H_RECEIVED - G.H_DREW_ON_COLOR


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
        self.challenge = r.challenge
        rule_flags = np.array([flag(r) for _, flag in RULE_FLAGS] + [n / MAX_PLAYERS], np.float32)
        self._template = np.zeros(OBS_SIZE, np.float32)  # the constant part: presence and rules
        self.rule_flags = rule_flags  # the RULES block (also in the global state)
        self._template[RULES:V0_SIZE] = rule_flags
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
        self._encode_history(s, p, obs)
        return obs

    def _encode_history(self, s: State, p: int, obs: np.ndarray) -> None:
        """The HISTORY and WD4_COLOR blocks of ``obs`` (the same for every observer but the
        slot order). A Python loop over the opponents' rows: for these few short rows it is
        several times faster than numpy's fancy indexing (1.4 us for 2 players, 3.2 for 4)."""
        history, base = s.history, HISTORY
        for q in self._others[p]:
            row = history[q]
            obs[base + HIST_DREW_ON_COLOR:base + HIST_DREW_ON_COLOR + _COPIED_WIDTH] = row[_COPIED]
            obs[base + HIST_LAST + row[G.H_LAST]] = 1.0
            left = row[G.H_LEFT]
            if left >= 0:
                obs[base + HIST_LEFT + left] = 1.0
            base += HIST_FIELDS
        if self.challenge and s.wd4_player >= 0 and s.wd4_color >= 0:
            obs[WD4_COLOR + s.wd4_color] = 1.0


def decode_history(obs: np.ndarray, num_players: int) -> tuple[np.ndarray, int]:
    """The opponents' rows of ``State.history`` (slot order: row j-1 = j seats to the
    observer's left) and ``State.wd4_color`` as the HISTORY and WD4_COLOR blocks of a
    layout-1 observation show them (-1 where no colour is shown)."""
    m = num_players - 1
    hist = np.asarray(obs[HISTORY:HISTORY + m * HIST_FIELDS]).reshape(m, HIST_FIELDS)
    rows = np.zeros((m, G.NUM_HISTORY_COLUMNS), np.int32)
    rows[:, _COPIED] = hist[:, HIST_DREW_ON_COLOR:HIST_RECEIVED + 1]
    rows[:, G.H_LAST] = hist[:, HIST_LAST:HIST_LEFT].argmax(axis=1)
    left = hist[:, HIST_LEFT:HIST_FIELDS]
    rows[:, G.H_LEFT] = np.where(left.any(axis=1), left.argmax(axis=1), -1)
    wd4 = obs[WD4_COLOR:OBS_SIZE]
    return rows, int(wd4.argmax()) if wd4.any() else -1
