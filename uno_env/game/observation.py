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
    """Encodes :class:`State` into the observation vector of one seat.

    **How** (the speed of every env step). Each seat has a private buffer (never handed out)
    holding the constant part (presence, rules) and the blocks copied from the state's arrays:
    HAND, PLAYED, the opponents' known cards and HISTORY's drew-on flags and counts. They are
    copied through views made once per state, the known cards only when their bytes changed
    (they rarely do). ``encode`` copies that buffer into a fresh array (every call returns a new
    array a caller may keep) and writes the few single entries into it: one-hots and counts
    from the state's scalars and lists. Nothing is trusted to stay put between calls: every
    block is copied (or compared) and every entry written from the state as it is now, so a
    state changed by hand (a test, a determinised deal) encodes correctly too; a different
    state object, or one whose ``hands``, ``played``, ``known`` or ``history`` array was
    replaced, gets new views. ``tests/game/test_observation.py`` runs it in lockstep with the
    straightforward encoding of the table above. Not thread-safe: one encoder per thread.
    """

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
        self._seats = [_SeatBuffer(self, p) for p in range(n)]

    def __getstate__(self) -> dict:
        # the seat buffers hold views of the last state encoded: a copy must not share them
        return {k: v for k, v in self.__dict__.items() if k != "_seats"}

    def __setstate__(self, d: dict) -> None:
        self.__dict__.update(d)
        self._seats = [_SeatBuffer(self, p) for p in range(self.n)]

    def encode(self, s: State, p: int) -> np.ndarray:
        """Seat ``p``'s observation of ``s``: a new float32 array of ``OBS_SIZE`` entries."""
        b = self._seats[p]
        if b.state is not s or b.hands is not s.hands or b.played is not s.played \
                or b.known is not s.known or b.history is not s.history:
            b.bind(s)
        for dst, src in b.copies:  # HAND, PLAYED, HISTORY's copied columns
            dst[...] = src
        if s.known_any:
            known = b.known_row.tobytes()  # a tenth of the time of copying it
            if known != b.known_seen:
                for dst, src in b.known_copies:
                    dst[...] = src
                b.known_seen = known
        elif b.known_seen is not None:
            b.known_block[...] = 0.0
            b.known_seen = None
        obs = b.buf.copy()
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
        obs[TURN + (s.turn - p) % self.n] = 1.0
        hand_size = s.hand_size
        for i, q in b.size_at:
            obs[i] = hand_size[q]
        if self.explicit_uno:  # UNO flags (in auto mode: the same as hand size == 1)
            uno = s.uno_called
            obs[SELF] = uno[p]
            for i, q in b.uno_at:
                obs[i] = uno[q]
        if self.multi_round:  # scores (always zero inside a one-round episode)
            scores, target = s.scores, self.target
            obs[SELF_SCORE] = scores[p] / target
            for i, q in b.score_at:
                obs[i] = scores[q] / target
        if self.giving:
            offers = s.offers
            for base, q in b.offer_at:
                if offers[q] >= 0:
                    obs[base + offers[q]] = 1.0
        history = s.history
        for base, q in b.history_at:
            obs[base + HIST_LAST + history.item(q, G.H_LAST)] = 1.0
            left = history.item(q, G.H_LEFT)
            if left >= 0:
                obs[base + HIST_LEFT + left] = 1.0
        if self.challenge and s.wd4_player >= 0 and s.wd4_color >= 0:
            obs[WD4_COLOR + s.wd4_color] = 1.0
        return obs


def _runs(n: int, p: int) -> list[tuple[int, int, int]]:
    """The opponents of seat ``p`` (slot j = the seat j+1 to its left, j = 0..n-2) as runs of
    consecutive seats: ``(first slot, first seat, length)``, at most two."""
    runs = [(0, p + 1, n - 1 - p), (n - 1 - p, 0, p)]
    return [run for run in runs if run[2]]


class _SeatBuffer:
    """One seat's private buffer for :class:`ObservationEncoder`: the template with the blocks
    copied from the arrays of ``state`` (the state it was last bound to), the views that copy
    them (``copies``, ``known_copies``: (into the buffer, from the state)), the bytes of the
    row of ``known`` that the known cards' block shows (``known_seen``; None: the block is
    zero), and the offsets of the seat's single entries (``*_at``: (offset, opponent seat))."""

    __slots__ = ("seat", "buf", "targets", "known_targets", "known_block", "runs", "size_at",
                 "uno_at", "score_at", "offer_at", "history_at", "state", "hands", "played",
                 "known", "history", "copies", "known_copies", "known_row", "known_seen")

    def __init__(self, enc: ObservationEncoder, p: int):
        self.seat = p
        self.buf = buf = enc._template.copy()
        m = enc.n - 1
        copied = slice(HIST_DREW_ON_COLOR, HIST_DREW_ON_COLOR + _COPIED_WIDTH)
        history = buf[HISTORY:WD4_COLOR].reshape(MAX_OPPONENTS, HIST_FIELDS)[:, copied]
        known = buf[OPPONENTS:RULES].reshape(MAX_OPPONENTS, OPP_FIELDS)[:, OPP_KNOWN:OPP_OFFER]
        # (slots, seats) of each run of consecutive opponents; a run of one as an index (a row
        # copies faster than a block of one row)
        self.runs = [(j, q) if k == 1 else (slice(j, j + k), slice(q, q + k))
                     for j, q, k in _runs(enc.n, p)]
        self.targets = [buf[HAND:HAND + C.NUM_KINDS], buf[PLAYED:PLAYED + C.NUM_KINDS]]
        self.targets += [history[j] for j, _ in self.runs]
        self.known_targets = [known[j] for j, _ in self.runs]
        self.known_block = known[:m]
        opponents = list(enumerate(enc._others[p]))
        self.size_at = [(OPPONENTS + j * OPP_FIELDS + OPP_HAND_SIZE, q) for j, q in opponents]
        self.uno_at = [(OPPONENTS + j * OPP_FIELDS + OPP_UNO, q) for j, q in opponents]
        self.score_at = [(OPPONENTS + j * OPP_FIELDS + OPP_SCORE, q) for j, q in opponents]
        self.offer_at = [(OPPONENTS + j * OPP_FIELDS + OPP_OFFER, q) for j, q in opponents]
        self.history_at = [(HISTORY + j * HIST_FIELDS, q) for j, q in opponents]
        self.state = self.hands = self.played = self.known = self.history = self.known_seen = None

    def bind(self, s: State) -> None:
        """Copy from the arrays of state ``s`` from now on (views of them)."""
        p = self.seat
        self.state, self.hands, self.played, self.known, self.history = \
            s, s.hands, s.played, s.known, s.history
        sources = [s.hands[p], s.played] + [s.history[q, _COPIED] for _, q in self.runs]
        self.copies = list(zip(self.targets, sources))
        self.known_copies = list(zip(self.known_targets, [s.known[p, q] for _, q in self.runs]))
        self.known_row = s.known[p]  # (known_seen stays: the bytes of the row the block shows)


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
