"""The ``greedy`` and ``heuristic`` bots as compiled kernels over the batched engine.

Each kernel makes, for the actor of every active game, the decision that the scalar bot
(:class:`uno_env.agents.bots.GreedyAgent`, :class:`uno_env.agents.heuristic.HeuristicAgent`)
makes from that seat's observation, with the same random stream: the lockstep tests
(``tests/game/test_batched_bots.py``) play the scalar engine with the scalar bots and the
batched engine with these kernels side by side and compare every decision, over every preset
and option mix at 2-10 players.

**What a kernel reads.** Only what the deciding seat ``p`` observes: its own hand, the top
card, colour, phase, pending penalty, direction, the cards played since the last reshuffle,
every opponent's hand size, the cards ``p`` knows to be in other hands (``known[b, p]``,
written into the observation only when the game's ``F_KNOWNANY`` is set), the open offers
(giving), the rule flags and its legal actions: the fields the observation encoder writes
(``kernels.observe_batch``), read from the state instead of a decoded vector. Never another
hand, the DRAW pile's order or an answer hidden in a window (a test changes an opponent's
hand and the DRAW pile and checks that no decision changes).

**Randomness.** ``heuristic`` draws nothing (the scalar bot never touches its RNG).
``greedy`` breaks ties between equally good cards with ``random.Random.randrange`` of its
Python stream (``PyRngAgent.py``, a Mersenne Twister); :class:`GreedyStreams` holds one
MT19937 state per game and seat (``random.Random(x).getstate()``) and :func:`mt_randbelow`
reproduces ``randrange(n)`` (``_randbelow_with_getrandbits``: ``getrandbits(k)`` =
the next 32-bit output ``>> (32 - k)``, redrawn while ``>= n``) bit for bit. So a seat
seeded like a scalar ``greedy`` makes the same choices: ``GreedyStreams.seed`` copies a
``random.Random``'s state, ``seed_python(x)`` builds ``random.Random(x)``'s in compiled code
(:func:`mt_seed`, CPython's ``init_by_array``) and ``seed_like_agent(seed)`` the stream of a
``GreedyAgent`` made with that seed.
``random`` and ``uniform`` have compiled kernels on these streams too
(:func:`random_like_agent_actions`, :func:`uniform_like_agent_actions`, with :func:`mt_random`
for ``random.Random.random()``): the very choices of a ``RandomAgent``/``UniformAgent`` seeded
alike, for datasets whose episodes replay through the scalar env
(:mod:`uno_env.tools.dataset_batched`); the kernels module's ``random`` and ``uniform`` draw from
a PCG64 stream per game instead (the same distribution, faster to seed, used by evaluation).

**Memory.** The heuristic's :class:`~uno_env.agents.beliefs.Beliefs` per game and seat
(:class:`HeuristicBeliefs`): the colour and played counts right after its last decision, the
opponents' hand sizes then, the penalty its action dealt and the next seat's offset, and the
per-opponent, per-colour void evidence; updated at every decision of that seat, before and
after it decides, as ``Beliefs.observe`` / ``Beliefs.remember`` are. Floating-point formulas
are written in the scalar code's order of operations (float64), and ``x ** k`` with a float
exponent (libm's ``pow``, as Python's ``float ** int``), so the probabilities are the same
numbers, bit for bit.

**Weights.** The heuristic's weights are a float64 vector in the order of :data:`WEIGHT_NAMES`
(the fields of ``HeuristicWeights``, checked by a test); ``HeuristicWeights.as_array()`` makes
one, so every ``heuristic:key=value`` spec runs compiled.

Nothing here allocates: the callers pass scratch arrays (``kernels.MAX_LEGAL`` ints, and
``FS_SIZE`` floats).
"""

from __future__ import annotations

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.batched._jit import njit, njit_inline
from uno_env.game.batched.kernels import (
    CATCH, CFG_GIVING, CFG_JUMP, CFG_N, CFG_SLAP, CFG_STACKING, CFG_TPRS, CFG_VILLAIN, CHALLENGE, COLOR,
    DISCARD, DRAWN, F_ACTOR, F_COLOR, F_DIR, F_DISCLEN, F_KNOWNANY, F_OVER, F_PENDING, F_PHASE, F_STEPS, JUMP,
    OFFER, TAKE, TURN, legal_into, step_one, _random_bot_one)

# ---------------------------------------------------------------------- constants
NK, NF, NCOL, NCOLORS = C.NUM_KINDS, C.NUM_FACES, C.NUM_COLORED, C.NUM_COLORS
WILD, WD4, TEAM_ATTACK, SEWERS = C.WILD, C.WILD_DRAW4, C.TEAM_ATTACK, C.SEWERS
D2, REV, SKIP, NO_FACE = C.FACE_DRAW2, C.FACE_REVERSE, C.FACE_SKIP, C.NO_FACE
PLAY_END, PLAY_WILD = A.PLAY_END, A.PLAY_WILD
COLOR_OF = np.array(C.COLOR_OF, np.int64)  # -1 for a wild
FACE_OF = np.array([C.FACE_OF[k] if k < NCOL else NO_FACE for k in range(NK)], np.int64)
# heuristic.py's wild ranks, by kind - WILD: first a play with the next player close to out, then not
RANK_DANGER = np.array([1, 4, 2, 3], np.int64)  # WILD, WILD_DRAW4, TEAM_ATTACK, SEWERS
RANK_CALM = np.array([3, 1, 4, 2], np.int64)

# bot kinds of ``bots_until``'s slots
BOT_NONE, BOT_RANDOM, BOT_GREEDY, BOT_HEURISTIC = -1, 0, 1, 2

# the heuristic's weights, in the order of HeuristicWeights' fields
WEIGHT_NAMES = ("w_draw2", "w_skip", "w_reverse", "w_number", "w_same", "w_follow", "w_unseen", "w_void",
                "w_block", "w_block_end", "w_dead_again", "w_points", "attack", "danger", "hold_wild",
                "hold_drawn_wild", "wd4_first", "ta_villains", "bluff", "challenge", "bluff_odds", "track",
                "switch_odds")
(W_DRAW2, W_SKIP, W_REVERSE, W_NUMBER, W_SAME, W_FOLLOW, W_UNSEEN, W_VOID, W_BLOCK, W_BLOCK_END,
 W_DEAD_AGAIN, W_POINTS, W_ATTACK, W_DANGER, W_HOLD_WILD, W_HOLD_DRAWN_WILD, W_WD4_FIRST, W_TA_VILLAINS,
 W_BLUFF, W_CHALLENGE, W_BLUFF_ODDS, W_TRACK, W_SWITCH_ODDS) = range(len(WEIGHT_NAMES))
NUM_WEIGHTS = len(WEIGHT_NAMES)

# float scratch of one decision (``fs``): card counting and the next opponent's model
FS_UNSEEN = 0  # 56: unseen cards per kind (Beliefs.unseen, or deck - played - hand)
FS_COLOR = FS_UNSEEN + NK  # 4: unseen cards per colour
FS_FACE = FS_COLOR + NCOLORS  # 13: unseen coloured cards per face
FS_WILDS = FS_FACE + NF  # unseen wilds
FS_TOTAL = FS_WILDS + 1  # unseen cards in all (1.0 if none)
FS_SHARE = FS_TOTAL + 1  # 4: share of each colour
FS_PNO = FS_SHARE + NCOLORS  # 4: P(no card of colour c) of an opponent (Beliefs.opponent)
FS_COUNTED = FS_PNO + NCOLORS  # 1.0 once the counting of this decision is done
FS_MODEL_OFF = FS_COUNTED + 1  # the offset of the opponent modelled in FS_PNO and FS_MODEL (-1: none)
FS_MODEL = FS_MODEL_OFF + 1  # 4: its unknown cards, known colour bits, known face bits, known wild
FS_POW_WILD = FS_MODEL + 4  # its (1 - wilds / total) ** unknown (p_block on a wild top), once computed
FS_POW_WILD_OK = FS_POW_WILD + 1
FS_SIZE = FS_POW_WILD_OK + 1

# MT19937 (CPython's _randommodule.c)
MT_N, MT_M = 624, 397
_MATRIX_A = np.uint64(0x9908B0DF)
_UPPER = np.uint64(0x80000000)
_LOWER = np.uint64(0x7FFFFFFF)
_M32 = np.uint64(0xFFFFFFFF)


# ====================================================================== MT19937
@njit
def _mt_twist(mt, b, p):
    for kk in range(MT_N):
        y = (np.uint64(mt[b, p, kk]) & _UPPER) | (np.uint64(mt[b, p, (kk + 1) % MT_N]) & _LOWER)
        v = np.uint64(mt[b, p, (kk + MT_M) % MT_N]) ^ (y >> np.uint64(1))
        if y & np.uint64(1):
            v ^= _MATRIX_A
        mt[b, p, kk] = np.uint32(v & _M32)


@njit
def mt_seed(mt, pos, b, p, lo, hi, words):
    """``random.Random(x)`` for seat ``p`` of game ``b``: ``init_by_array`` of the key ``x``'s
    32-bit words (``lo``, then ``hi`` if ``words`` is 2), as CPython's ``random_seed``."""
    m32 = _M32
    mt[b, p, 0] = np.uint32(19650218)
    for i in range(1, MT_N):
        prev = np.uint64(mt[b, p, i - 1])
        mt[b, p, i] = np.uint32((np.uint64(1812433253) * (prev ^ (prev >> np.uint64(30))) + np.uint64(i)) & m32)
    i, j = 1, 0
    for _ in range(max(MT_N, words)):
        prev = np.uint64(mt[b, p, i - 1])
        key = lo if j == 0 else hi
        v = (np.uint64(mt[b, p, i]) ^ (((prev ^ (prev >> np.uint64(30))) * np.uint64(1664525)) & m32)) \
            + key + np.uint64(j)
        mt[b, p, i] = np.uint32(v & m32)
        i += 1
        j += 1
        if i >= MT_N:
            mt[b, p, 0] = mt[b, p, MT_N - 1]
            i = 1
        if j >= words:
            j = 0
    for _ in range(MT_N - 1):
        prev = np.uint64(mt[b, p, i - 1])
        v = (np.uint64(mt[b, p, i]) ^ (((prev ^ (prev >> np.uint64(30))) * np.uint64(1566083941)) & m32)) \
            - np.uint64(i)
        mt[b, p, i] = np.uint32(v & m32)
        i += 1
        if i >= MT_N:
            mt[b, p, 0] = mt[b, p, MT_N - 1]
            i = 1
    mt[b, p, 0] = np.uint32(0x80000000)
    pos[b, p] = MT_N


@njit
def mt_next32(mt, pos, b, p):
    """``genrand_uint32`` of seat ``p``'s Mersenne Twister in game ``b`` (as uint64)."""
    if pos[b, p] >= MT_N:
        _mt_twist(mt, b, p)
        pos[b, p] = 0
    y = np.uint64(mt[b, p, pos[b, p]])
    pos[b, p] += 1
    y ^= y >> np.uint64(11)
    y ^= (y << np.uint64(7)) & np.uint64(0x9D2C5680)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    y ^= y >> np.uint64(18)
    return y & _M32


@njit
def mt_randbelow(mt, pos, b, p, n):
    """``random.Random.randrange(n)`` (``n >= 1``) of seat ``p``'s stream in game ``b``."""
    k = 0
    while (n >> k) > 0:
        k += 1
    shift = np.uint64(32 - k)
    r = np.int64(mt_next32(mt, pos, b, p) >> shift)
    while r >= n:
        r = np.int64(mt_next32(mt, pos, b, p) >> shift)
    return r


# ====================================================================== shared helpers
@njit
def _best_color(hands, b, p):
    """bots.best_color: the colour with most cards in the hand (ties: the lowest)."""
    best_c, best_n = 0, -1
    for c in range(NCOLORS):
        m = 0
        for k in range(c * NF, (c + 1) * NF):
            m += hands[b, p, k]
        if m > best_n:
            best_c, best_n = c, m
    return best_c


@njit_inline
def _color_count(hands, b, p, c):
    m = 0
    for k in range(c * NF, (c + 1) * NF):
        m += hands[b, p, k]
    return m


@njit_inline
def _playable(k, color, top_face):
    """bots.playable: card kind ``k`` on the current colour / top face (wilds: yes)."""
    if k >= NCOL:
        return True
    return COLOR_OF[k] == color or (FACE_OF[k] == top_face and top_face != NO_FACE)


@njit_inline
def _top_face(g, disc, b):
    top = np.int64(disc[b, g[b, F_DISCLEN] - 1])
    return FACE_OF[top]


@njit_inline
def _find(legal, c, a):
    for i in range(c):
        if legal[i] == a:
            return True
    return False


@njit_inline
def _offer_kind(offers, cfg, b, p, off):
    """View.offers[off - 1]: the kind the opponent ``off`` seats to ``p``'s left offers, or -1."""
    if cfg[CFG_GIVING] == 0:
        return -1
    n = cfg[CFG_N]
    return np.int64(offers[b, (p + off) % n])


# ====================================================================== greedy
@njit
def _greedy_highest(points, kinds, m, mt, pos, b, p):
    """GreedyAgent._highest: the kind with the most points among ``kinds[:m]``, ties at random."""
    best = -1
    for i in range(m):
        if points[kinds[i]] > best:
            best = points[kinds[i]]
    top = 0
    first = -1
    for i in range(m):
        if points[kinds[i]] == best:
            if top == 0:
                first = kinds[i]
            top += 1
    if top == 1:
        return first
    r = mt_randbelow(mt, pos, b, p, top)
    for i in range(m):
        if points[kinds[i]] == best:
            if r == 0:
                return kinds[i]
            r -= 1
    return first


@njit
def greedy_one(st, cfg, points, b, mt, pos, legal, kinds):
    """GreedyAgent.act for the actor of game ``b`` (``legal``, ``kinds``: int scratch)."""
    g, hands = st[0], st[1]
    p = g[b, F_ACTOR]
    c = legal_into(st, cfg, b, legal)
    if c == 1:
        return legal[0]
    if _find(legal, c, A.UNO):
        return A.UNO
    if _find(legal, c, A.CATCH):
        return A.CATCH
    ph = g[b, F_PHASE]
    m = _play_kinds(legal, c, kinds)  # card kinds among the plays (legal is ascending: so are they)
    if ph == CHALLENGE and m == 0:
        return A.DRAW
    if m:
        k = _greedy_highest(points, kinds, m, mt, pos, b, p)
        if k < NCOL:
            return k
        return PLAY_WILD + NCOLORS * (k - NCOL) + _best_color(hands, b, p)
    if ph == OFFER:
        for i in range(c):
            if A.OFFER <= legal[i] < A.TAKE:
                kinds[m] = legal[i] - A.OFFER
                m += 1
        return A.OFFER + _greedy_highest(points, kinds, m, mt, pos, b, p)
    if ph == DISCARD:
        for i in range(c):
            if A.DISCARD <= legal[i] < A.ASK:
                kinds[m] = legal[i] - A.DISCARD
                m += 1
        return A.DISCARD + _greedy_highest(points, kinds, m, mt, pos, b, p) if m else A.PASS
    if ph == COLOR:
        return A.COLOR + _best_color(hands, b, p)
    if ph == TAKE:
        color, face = np.int64(g[b, F_COLOR]), _top_face(g, st[8], b)
        best, best_pts = A.PASS, -1
        for i in range(c):
            a = legal[i]
            if a >= A.TAKE:
                k = _offer_kind(st[16], cfg, b, p, a - A.TAKE + 1)
                if k >= 0 and _playable(k, color, face) and points[k] > best_pts:
                    best, best_pts = a, points[k]
        return best
    if _find(legal, c, A.ASK):
        return A.ASK
    return A.DRAW if _find(legal, c, A.DRAW) else legal[0]


@njit
def greedy_actions(st, cfg, points, active, mt, pos, actions, scratch):
    """The ``greedy`` bot's action for the actor of every active game."""
    for b in range(active.shape[0]):
        if active[b]:
            actions[b] = greedy_one(st, cfg, points, b, mt, pos, scratch[0], scratch[1])


# ====================================================================== random, uniform: the agents' streams
# The kernels module's ``random`` and ``uniform`` bots draw from a PCG64 stream per game (the same
# choice distribution as the scalar bots). These draw from the Mersenne Twister a scalar
# ``RandomAgent`` / ``UniformAgent`` (``PyRngAgent.py``) seeded alike draws from, the same calls in
# the same order (``GreedyStreams`` per game and seat), so they make its very choices: what a
# dataset needs whose episodes replay through the scalar env (uno_env.tools.dataset_batched).
@njit
def mt_random(mt, pos, b, p):
    """``random.Random.random()`` of seat ``p``'s stream in game ``b`` (two 32-bit outputs)."""
    a = mt_next32(mt, pos, b, p) >> np.uint64(5)
    c = mt_next32(mt, pos, b, p) >> np.uint64(6)
    return (np.float64(a) * 67108864.0 + np.float64(c)) * (1.0 / 9007199254740992.0)


@njit
def _mt_card(plays, c, mt, pos, b, p, opts):
    """bots.random_card on seat ``p``'s stream: one option per card kind, a wild's colour after."""
    m = 0
    seen_wild = -1
    for i in range(c):
        a = plays[i]
        if a < PLAY_WILD:
            opts[m] = a
            m += 1
        else:
            w = (a - PLAY_WILD) // NCOLORS
            if w != seen_wild:
                opts[m] = PLAY_WILD + NCOLORS * w
                m += 1
                seen_wild = w
    a = opts[mt_randbelow(mt, pos, b, p, m)]
    if a >= PLAY_WILD:
        a += mt_randbelow(mt, pos, b, p, NCOLORS)
    return a


@njit
def random_like_agent_one(st, cfg, b, mt, pos, legal, plays, opts):
    """bots.random_move for the actor of game ``b``, drawn from its seat's stream as RandomAgent."""
    g = st[0]
    p = g[b, F_ACTOR]
    c = legal_into(st, cfg, b, legal)
    if c == 1:
        return legal[0]
    uno_at = -1
    for i in range(c):
        if legal[i] == A.UNO:
            uno_at = i
    if uno_at >= 0:  # call UNO or not, uniformly
        if mt_random(mt, pos, b, p) < 0.5:
            return A.UNO
        for i in range(uno_at, c - 1):
            legal[i] = legal[i + 1]
        c -= 1
    ph = g[b, F_PHASE]
    m = 0
    for i in range(c):
        if legal[i] < PLAY_END:
            plays[m] = legal[i]
            m += 1
    if ph == TURN or ph == DRAWN:
        if m:
            return _mt_card(plays, m, mt, pos, b, p, opts)
        return legal[mt_randbelow(mt, pos, b, p, c)]
    if ph == CHALLENGE:  # the non-play ids (draw, challenge), plus one option for stacking plays
        k = mt_randbelow(mt, pos, b, p, c - m + (1 if m else 0))
        return legal[m + k] if k < c - m else _mt_card(plays, m, mt, pos, b, p, opts)
    if ph == JUMP or ph == OFFER:  # jump in (offer a card) or pass, uniformly
        if mt_random(mt, pos, b, p) < 0.5:
            return A.PASS
        if ph == JUMP:
            return _mt_card(plays, m, mt, pos, b, p, opts)
        return legal[1 + mt_randbelow(mt, pos, b, p, c - 1)]  # the offers follow PASS
    return legal[mt_randbelow(mt, pos, b, p, c)]  # colour, discard, catch, take


@njit
def random_like_agent_actions(st, cfg, active, mt, pos, actions, scratch):
    """RandomAgent's action, on its seat's stream, for the actor of every active game."""
    for b in range(active.shape[0]):
        if active[b]:
            actions[b] = random_like_agent_one(st, cfg, b, mt, pos, scratch[0], scratch[1], scratch[2])


@njit
def uniform_like_agent_actions(st, cfg, active, mt, pos, actions, scratch):
    """UniformAgent's action (each legal action equally likely, no draw with one), on its seat's
    stream, for the actor of every active game."""
    legal = scratch[0]
    for b in range(active.shape[0]):
        if active[b]:
            c = legal_into(st, cfg, b, legal)
            actions[b] = legal[0] if c == 1 else legal[mt_randbelow(mt, pos, b, st[0][b, F_ACTOR], c)]


# ====================================================================== heuristic: beliefs
@njit_inline
def _known_any(vw, cfg, b, p):
    """View.known_any: the game records known cards and ``p`` knows one in another hand."""
    if vw[0][b, F_KNOWNANY] == 0:
        return False
    known = vw[5]
    n = cfg[CFG_N]
    for j in range(1, n):
        q = (p + j) % n
        for k in range(NK):
            if known[b, p, q, k]:
                return True
    return False


@njit_inline
def _counting(vw, cfg, deck_counts, b, p, kany, fs):
    """Beliefs.counting into ``fs`` (once per decision): unseen cards per kind, colour, face."""
    if fs[FS_COUNTED] != 0.0:
        return
    hands, played, known = vw[1], vw[4], vw[5]
    n = cfg[CFG_N]
    for k in range(NK):
        x = deck_counts[k] - np.int64(played[b, k]) - np.int64(hands[b, p, k])
        if kany:
            for j in range(1, n):
                x -= known[b, p, (p + j) % n, k]
            if x < 0:
                x = 0
        fs[FS_UNSEEN + k] = x
    for c in range(NCOLORS):
        fs[FS_COLOR + c] = 0.0
    for f in range(NF):
        fs[FS_FACE + f] = 0.0
    wilds = 0.0
    for k in range(NK):
        if k < NCOL:
            fs[FS_COLOR + COLOR_OF[k]] += fs[FS_UNSEEN + k]
            fs[FS_FACE + FACE_OF[k]] += fs[FS_UNSEEN + k]
        else:
            wilds += fs[FS_UNSEEN + k]
    fs[FS_WILDS] = wilds
    total = fs[FS_COLOR] + fs[FS_COLOR + 1] + fs[FS_COLOR + 2] + fs[FS_COLOR + 3] + wilds
    if total == 0.0:
        total = 1.0
    fs[FS_TOTAL] = total
    for c in range(NCOLORS):
        fs[FS_SHARE + c] = fs[FS_COLOR + c] / total
    fs[FS_COUNTED] = 1.0


@njit_inline
def _opponent(vw, cfg, deck_counts, b, p, off, kany, track, void, fs):
    """Beliefs.opponent of the seat ``off`` to ``p``'s left: P(no colour c) into
    ``fs[FS_PNO:]``; returns (unknown cards, known colour bits, known face bits, known wild).
    The model of the last offset asked for is kept for the rest of the decision."""
    if fs[FS_MODEL_OFF] == off:
        return (np.int64(fs[FS_MODEL]), np.int64(fs[FS_MODEL + 1]), np.int64(fs[FS_MODEL + 2]),
                fs[FS_MODEL + 3] != 0.0)
    _counting(vw, cfg, deck_counts, b, p, kany, fs)
    n = cfg[CFG_N]
    q = (p + off) % n
    known = vw[5]
    size = np.int64(vw[2][b, q])
    n_known = 0
    color_bits = 0
    face_bits = 0
    known_wild = False
    if kany:
        for k in range(NK):
            x = np.int64(known[b, p, q, k])
            if x:
                n_known += x
                if k >= NCOL:
                    known_wild = True
                else:
                    color_bits |= 1 << COLOR_OF[k]
                    face_bits |= 1 << FACE_OF[k]
    unknown = size - n_known
    if unknown < 0:
        unknown = 0
    total = fs[FS_TOTAL]
    for c in range(NCOLORS):
        if color_bits >> c & 1:
            fs[FS_PNO + c] = 0.0
        else:
            r = void[b, p, off - 1, c] if track else 0.0
            fs[FS_PNO + c] = r + (1.0 - r) * (1.0 - fs[FS_COLOR + c] / total) ** np.float64(unknown)
    fs[FS_MODEL_OFF] = off
    fs[FS_MODEL] = unknown
    fs[FS_MODEL + 1] = color_bits
    fs[FS_MODEL + 2] = face_bits
    fs[FS_MODEL + 3] = 1.0 if known_wild else 0.0
    fs[FS_POW_WILD_OK] = 0.0
    return unknown, color_bits, face_bits, known_wild


@njit_inline
def _p_block(deck_counts, hands, played, b, p, model, fs, color, face):
    """Beliefs.p_block with the opponent's ``model`` (``_opponent``'s result, P(no c) in fs)."""
    unknown, color_bits, face_bits, known_wild = model
    if known_wild or color_bits >> color & 1 or (face != NO_FACE and face_bits >> face & 1):
        return 0.0
    other = fs[FS_WILDS]
    if face == NO_FACE:  # the same factor for every colour: computed once
        if fs[FS_POW_WILD_OK] == 0.0:
            fs[FS_POW_WILD] = (1.0 - other / fs[FS_TOTAL]) ** np.float64(unknown)
            fs[FS_POW_WILD_OK] = 1.0
        return fs[FS_PNO + color] * fs[FS_POW_WILD]
    k = color * NF + face
    other += fs[FS_FACE + face] - fs[FS_UNSEEN + k]
    return fs[FS_PNO + color] * (1.0 - other / fs[FS_TOTAL]) ** np.float64(unknown)


@njit_inline
def _observe(vw, cfg, deck_counts, b, p, kany, w, hb, fs):
    """Beliefs.observe: the voids from what the opponents did since ``p``'s last decision."""
    mem_color, has_mem, mem_played, snap_sizes, snap_pen, snap_next, void = hb
    if has_mem[b, p] == 0 or w[W_TRACK] == 0.0:
        return
    if cfg[CFG_STACKING] or cfg[CFG_SLAP] or cfg[CFG_GIVING] or cfg[CFG_JUMP]:
        return
    hsize, played = vw[2], vw[4]
    n = cfg[CFG_N]
    m = n - 1
    colors = 0
    wild = False
    draw2 = False
    n_played = 0
    last = -1
    for k in range(NK):
        d = np.int64(played[b, k]) - np.int64(mem_played[b, p, k])
        if d == 0:
            continue
        if d < 0:
            return  # a reshuffle since my last decision
        n_played += d
        last = k
        c = COLOR_OF[k]
        if c < 0:
            wild = True
        else:
            colors |= 1 << c
            if FACE_OF[k] == D2:
                draw2 = True
    color_then = mem_color[b, p]
    penalty = snap_pen[b, p]
    next_off = snap_next[b, p]
    so = w[W_SWITCH_ODDS]
    steady = color_then >= 0 and not wild and not draw2 and (colors | (1 << color_then)) == (1 << color_then)
    for j in range(m):
        size = np.int64(hsize[b, (p + j + 1) % n])
        got = size - snap_sizes[b, p, j]
        steady_j = steady
        if j + 1 == next_off and penalty != 0:
            if penalty < 0:
                got = max(0, got - C.DRAW4_CARDS)
                steady_j = False
            else:
                got -= penalty
                _counting(vw, cfg, deck_counts, b, p, kany, fs)
                for c in range(NCOLORS):
                    void[b, p, j, c] *= (1.0 - fs[FS_SHARE + c]) ** np.float64(penalty)
        if m == 1:  # two players: every card played since was this opponent's
            drew = got + n_played
            on = drew >= 1 and steady_j
            if on:
                void[b, p, j, color_then] = 1.0
            for c in range(NCOLORS):
                if colors >> c & 1 and (c != color_then or not on):
                    void[b, p, j, c] = 0.0
            if n_played == 1 and drew == 0 and color_then >= 0 and last >= 0 and COLOR_OF[last] != color_then:
                _counting(vw, cfg, deck_counts, b, p, kany, fs)
                prior = (1.0 - fs[FS_SHARE + color_then]) ** np.float64(size)
                r = void[b, p, j, color_then]
                q = r + (1.0 - r) * prior
                q = so * q / (so * q + 1.0 - q)
                void[b, p, j, color_then] = (q - prior) / (1.0 - prior) if prior < 1.0 else 1.0
            extra = drew - (1 if on else 0)
        else:
            on = got >= 1 and steady_j
            if on:
                void[b, p, j, color_then] = 1.0
            extra = got - 1 if on else got
        if extra > 0:
            _counting(vw, cfg, deck_counts, b, p, kany, fs)
            for c in range(NCOLORS):
                if void[b, p, j, c] != 0.0:
                    void[b, p, j, c] *= (1.0 - fs[FS_SHARE + c]) ** np.float64(extra)


@njit_inline
def _remember(vw, cfg, b, p, a, hb):
    """Beliefs.remember: the colour and played counts right after ``p``'s action ``a``."""
    mem_color, has_mem, mem_played, snap_sizes, snap_pen, snap_next, void = hb
    g, hsize, played = vw[0], vw[2], vw[4]
    n = cfg[CFG_N]
    penalty = 0
    k = -1
    if a < PLAY_END:
        k = a if a < PLAY_WILD else NCOL + (a - PLAY_WILD) // NCOLORS
        color = COLOR_OF[k]
        if color < 0:
            color = (a - PLAY_WILD) % NCOLORS
            if k != WILD and k != TEAM_ATTACK:
                penalty = -1
        elif FACE_OF[k] == D2:
            penalty = C.DRAW2_CARDS + np.int64(g[b, F_PENDING])
    elif A.COLOR <= a < A.COLOR + NCOLORS:
        color = a - A.COLOR
    else:
        color = np.int64(g[b, F_COLOR])
    for i in range(NK):
        mem_played[b, p, i] = played[b, i]
    if k >= 0:
        mem_played[b, p, k] += 1
    mem_color[b, p] = color
    for j in range(n - 1):
        snap_sizes[b, p, j] = hsize[b, (p + j + 1) % n]
    snap_pen[b, p] = penalty
    snap_next[b, p] = 1 if g[b, F_DIR] > 0 else n - 1
    has_mem[b, p] = 1


@njit_inline
def _previous_color(vw, b, p, hb):
    """Beliefs.previous_color: the colour current before the Draw Four on top, else -1."""
    mem_color, has_mem, mem_played = hb[0], hb[1], hb[2]
    if has_mem[b, p] == 0 or mem_color[b, p] < 0:
        return -1
    played = vw[4]
    colors = 0
    wilds = 0
    for k in range(NK):
        d = np.int64(played[b, k]) - np.int64(mem_played[b, p, k])
        if d == 0:
            continue
        if d < 0:
            return -1
        if COLOR_OF[k] < 0:
            wilds += d
        else:
            colors |= 1 << COLOR_OF[k]
    if wilds != 1:
        return -1
    if colors == 0:
        return mem_color[b, p]
    for c in range(NCOLORS):
        if colors == 1 << c:
            return c
    return -1


# ====================================================================== heuristic: decisions
@njit
def _wild_color(vw, cfg, hc, b, p, kind, kany, w, void, fs):
    """HeuristicAgent._wild_color: the colour for a wild ``kind`` (-1: a colour choice)."""
    deck_counts, points, villains = hc
    hands, hsize, played = vw[1], vw[2], vw[4]
    n = cfg[CFG_N]
    nxt_off = 1 if vw[0][b, F_DIR] > 0 else n - 1
    model = _opponent(vw, cfg, deck_counts, b, p, nxt_off, kany, w[W_TRACK] != 0.0, void, fs)
    h_next = np.float64(hsize[b, (p + nxt_off) % n])
    danger = h_next <= w[W_DANGER]
    best_c, best_s = 0, -1e9
    for c in range(NCOLORS):
        cnt = _color_count(hands, b, p, c)
        act = np.int64(hands[b, p, c * NF + D2]) + np.int64(hands[b, p, c * NF + REV]) + \
            np.int64(hands[b, p, c * NF + SKIP])
        s = np.float64(cnt) + 0.5 * np.float64(act) - w[W_UNSEEN] * fs[FS_SHARE + c] + w[W_VOID] * fs[FS_PNO + c]
        if w[W_BLOCK] != 0.0 or (danger and w[W_BLOCK_END] != 0.0):
            s += (w[W_BLOCK] + (w[W_BLOCK_END] if danger else 0.0)) * \
                _p_block(deck_counts, hands, played, b, p, model, fs, c, NO_FACE)
        if kind == TEAM_ATTACK:
            v = 0
            for k in range(c * NF, (c + 1) * NF):
                if villains >> k & 1:
                    v += hands[b, p, k]
            s -= v
        if s > best_s:
            best_c, best_s = c, s
    return best_c


@njit
def _choose_play(vw, cfg, hc, b, p, kinds, m, stacking, drawn, kany, w, void, fs):
    """HeuristicAgent._choose_play among the card kinds ``kinds[:m]``; -1: keep the wilds."""
    deck_counts, points, villains = hc
    g, hands, hsize, played = vw[0], vw[1], vw[2], vw[4]
    n = cfg[CFG_N]
    counts0 = _color_count(hands, b, p, 0)
    counts1 = _color_count(hands, b, p, 1)
    counts2 = _color_count(hands, b, p, 2)
    counts3 = _color_count(hands, b, p, 3)
    n_wild = 0
    for k in range(NCOL, NK):
        n_wild += hands[b, p, k]
    hand_size = np.int64(hsize[b, p])
    non_wild = hand_size - n_wild
    nxt_off = 1 if g[b, F_DIR] > 0 else n - 1
    nxt_size = np.int64(hsize[b, (p + nxt_off) % n])
    prev_size = np.int64(hsize[b, (p + n - nxt_off) % n])
    danger = np.float64(nxt_size) <= w[W_DANGER]
    model = _opponent(vw, cfg, deck_counts, b, p, nxt_off, kany, w[W_TRACK] != 0.0, void, fs)
    two = n == 2
    tprs = cfg[CFG_TPRS] != 0
    w_blk = w[W_BLOCK] + (w[W_BLOCK_END] if danger else 0.0)
    best_a, best_s, best_attack = -1, -1e9, False
    for i in range(m):
        k = kinds[i]
        if k >= NCOL:
            continue
        c, f = COLOR_OF[k], FACE_OF[k]
        cnt = counts0 if c == 0 else counts1 if c == 1 else counts2 if c == 2 else counts3
        same = np.int64(cnt) - 1
        face_count = np.int64(hands[b, p, f]) + np.int64(hands[b, p, NF + f]) + \
            np.int64(hands[b, p, 2 * NF + f]) + np.int64(hands[b, p, 3 * NF + f])
        follow = same + face_count - 1
        s = w[W_SAME] * np.float64(same) + w[W_FOLLOW] * np.float64(follow) - w[W_UNSEEN] * fs[FS_SHARE + c] \
            + w[W_VOID] * fs[FS_PNO + c] + w[W_POINTS] * np.float64(points[k])
        if w_blk != 0.0:
            s += w_blk * _p_block(deck_counts, hands, played, b, p, model, fs, c, f)
        attack = False
        if f == D2:
            s += w[W_DRAW2]
            attack = True
        elif f == SKIP or (f == REV and two and tprs):
            s += w[W_SKIP]
            attack = True
            if two and hand_size > 1 and follow + n_wild <= 0:
                s -= w[W_DEAD_AGAIN]
        elif f == REV:
            s += w[W_REVERSE]
            if danger and prev_size > nxt_size:
                s += w[W_ATTACK] * 0.8
                attack = True
        else:
            s += w[W_NUMBER]
        if attack and danger:
            s += w[W_ATTACK]
        if s > best_s:
            best_a, best_s, best_attack = k, s, attack
    color_now = np.int64(g[b, F_COLOR])
    holds_color = False
    if color_now >= 0:
        holds_color = _color_count(hands, b, p, color_now) > 0
    wild_k, wild_r = -1, -1
    for i in range(m):
        k = kinds[i]
        if k < NCOL:
            continue
        if stacking:
            use = True
        elif k == WD4:
            if holds_color:
                use = w[W_BLUFF] != 0.0 and danger and not best_attack
            else:
                use = best_a < 0 or (danger and not best_attack) or w[W_WD4_FIRST] != 0.0
        elif k == TEAM_ATTACK:
            v = 0
            for x in range(NCOL):
                if villains >> x & 1:
                    v += hands[b, p, x]
            use = best_a < 0 or np.float64(v) >= w[W_TA_VILLAINS]
        elif k == SEWERS:
            use = best_a < 0 or (danger and not best_attack)
        else:
            use = best_a < 0
        if use:
            rank = RANK_DANGER[k - NCOL] if danger else RANK_CALM[k - NCOL]
            if rank > wild_r:
                wild_k, wild_r = k, rank
    if wild_k >= 0:
        hold = w[W_HOLD_DRAWN_WILD] if drawn else w[W_HOLD_WILD]
        if best_a < 0 and not stacking and np.float64(non_wild) >= hold \
                and not (danger and (wild_k == WD4 or wild_k == SEWERS)):
            return -1
        return PLAY_WILD + NCOLORS * (wild_k - NCOL) + _wild_color(vw, cfg, hc, b, p, wild_k, kany, w, void, fs)
    if best_a >= 0:
        return best_a
    return -1


@njit_inline
def _play_kinds(legal, c, kinds):
    """The card kinds of the plays among ``legal[:c]`` (ascending, each once) into ``kinds``."""
    m = 0
    for i in range(c):
        a = legal[i]
        if a < PLAY_END:
            k = a if a < PLAY_WILD else NCOL + (a - PLAY_WILD) // NCOLORS
            if m == 0 or kinds[m - 1] != k:
                kinds[m] = k
                m += 1
    return m


@njit
def _guilt(vw, cfg, hc, b, p, kany, w, hb, fs):
    """HeuristicAgent._guilt: the estimated chance that the Draw Four on top was a bluff."""
    n = cfg[CFG_N]
    nxt_off = 1 if vw[0][b, F_DIR] > 0 else n - 1
    off = n - nxt_off  # the player before me
    if vw[2][b, (p + off) % n] == 0:
        q = 0.0
    else:
        _opponent(vw, cfg, hc[0], b, p, off, kany, w[W_TRACK] != 0.0, hb[6], fs)
        prev = _previous_color(vw, b, p, hb)
        if prev >= 0:
            q = 1.0 - fs[FS_PNO + prev]
        else:
            q = ((1.0 - fs[FS_PNO]) + (1.0 - fs[FS_PNO + 1]) + (1.0 - fs[FS_PNO + 2]) + (1.0 - fs[FS_PNO + 3])) \
                / NCOLORS
    if q >= 1.0:
        return 1.0
    odds = q / max(1e-9, 1.0 - q) * w[W_BLUFF_ODDS]
    return odds / (1.0 + odds)


@njit
def _heuristic_decide(vw, cfg, hc, b, p, legal, c, kinds, kany, w, hb, fs):
    """HeuristicAgent.decide."""
    deck_counts, points, villains = hc
    g, hands = vw[0], vw[1]
    if c == 1:
        return legal[0]
    if _find(legal, c, A.UNO):
        return A.UNO
    ph = g[b, F_PHASE]
    if ph == TURN or ph == DRAWN:
        m = _play_kinds(legal, c, kinds)
        if ph == TURN:
            keep = A.ASK if _find(legal, c, A.ASK) else A.DRAW
            if m == 0:
                return keep
            a = _choose_play(vw, cfg, hc, b, p, kinds, m, g[b, F_PENDING] > 0, False, kany, w, hb[6], fs)
        else:
            keep = A.PASS if _find(legal, c, A.PASS) else A.DRAW
            if m == 0:
                return keep
            a = _choose_play(vw, cfg, hc, b, p, kinds, m, False, True, kany, w, hb[6], fs)
        return keep if a < 0 else a
    if ph == CHALLENGE:
        if legal[0] < PLAY_END:  # stacking: pass the Draw Four on
            return PLAY_WILD + NCOLORS * (WD4 - NCOL) + _wild_color(vw, cfg, hc, b, p, WD4, kany, w, hb[6], fs)
        if not _find(legal, c, A.CHALLENGE):
            return A.DRAW
        return A.CHALLENGE if _guilt(vw, cfg, hc, b, p, kany, w, hb, fs) > w[W_CHALLENGE] else A.DRAW
    if ph == CATCH:
        return A.CATCH
    if ph == JUMP:
        if legal[0] >= PLAY_END:
            return A.PASS
        a = legal[0]
        k = a if a < PLAY_WILD else NCOL + (a - PLAY_WILD) // NCOLORS
        if k < NCOL:
            return k
        return PLAY_WILD + NCOLORS * (k - NCOL) + _wild_color(vw, cfg, hc, b, p, k, kany, w, hb[6], fs)
    if ph == COLOR:
        return A.COLOR + _wild_color(vw, cfg, hc, b, p, -1, kany, w, hb[6], fs)
    if ph == DISCARD:
        best, best_pts, best_cnt = -1, -1, 0
        for i in range(c):
            a = legal[i]
            if A.DISCARD <= a < A.ASK:
                k = a - A.DISCARD
                cnt = _color_count(hands, b, p, COLOR_OF[k])
                if best < 0 or points[k] > best_pts or (points[k] == best_pts and -cnt > -best_cnt):
                    best, best_pts, best_cnt = k, points[k], cnt
        return A.PASS if best < 0 else A.DISCARD + best
    color, face = np.int64(g[b, F_COLOR]), _top_face(g, vw[3], b)
    if ph == OFFER:
        best, best_s = A.PASS, -1e9
        for i in range(c):
            a = legal[i]
            if A.OFFER <= a < A.TAKE:
                k = a - A.OFFER
                if k >= NCOL or _playable(k, color, face):
                    continue
                s = np.float64(points[k]) - 3.0 * np.float64(_color_count(hands, b, p, COLOR_OF[k]))
                if s > best_s:
                    best, best_s = a, s
        return best
    if ph == TAKE:
        best, best_s = A.PASS, -1e9
        for i in range(c):
            a = legal[i]
            if a >= A.TAKE:
                k = _offer_kind(vw[6], cfg, b, p, a - A.TAKE + 1)
                if k < 0 or not _playable(k, color, face):
                    continue
                if k >= NCOL:
                    s = 100.0
                else:
                    s = np.float64(_color_count(hands, b, p, COLOR_OF[k])) + \
                        (3.0 if FACE_OF[k] == D2 or FACE_OF[k] == SKIP else 0.0)
                if s > best_s:
                    best, best_s = a, s
        return best
    return legal[0]


@njit_inline
def heuristic_one(st, cfg, hc, b, w, hb, legal, kinds, fs):
    """HeuristicAgent.act for the actor of game ``b``: observe, decide, remember.
    ``hc`` = (deck counts per kind, points per kind, villain kind bits)."""
    p = np.int64(st[0][b, F_ACTOR])
    c = legal_into(st, cfg, b, legal)
    vw = (st[0], st[1], st[3], st[8], st[9], st[10], st[16])  # what p's observation shows of them
    kany = _known_any(vw, cfg, b, p)
    fs[FS_COUNTED] = 0.0
    fs[FS_MODEL_OFF] = -1.0
    _observe(vw, cfg, hc[0], b, p, kany, w, hb, fs)
    a = _heuristic_decide(vw, cfg, hc, b, p, legal, c, kinds, kany, w, hb, fs)
    _remember(vw, cfg, b, p, a, hb)
    return a


@njit
def heuristic_actions(st, cfg, hc, active, w, hb, actions, scratch, fs):
    """The ``heuristic`` bot's action for the actor of every active game."""
    for b in range(active.shape[0]):
        if active[b]:
            actions[b] = heuristic_one(st, cfg, hc, b, w, hb, scratch[0], scratch[1], fs)


# ====================================================================== mixed opponents, one call
@njit
def bots_until(st, ru, active, seats, max_steps, slot_kind, slot_weights, hc, prng, mt, pos, hb, scratch, fs):
    """In every active game, the compiled bots play the seats ``j`` places to the left of
    ``seats[b]`` (``slot_kind[j]``: ``BOT_RANDOM``, ``BOT_GREEDY`` or ``BOT_HEURISTIC`` with
    the weights ``slot_weights[j]``) until ``seats[b]`` or a seat of kind ``BOT_NONE``
    decides, the game ends or ``max_steps`` decisions are reached. Returns how many games
    stopped at a ``BOT_NONE`` seat."""
    g = st[0]
    cfg = ru[0]
    points = ru[2]
    n = cfg[CFG_N]
    stopped = 0
    for b in range(active.shape[0]):
        if not active[b]:
            continue
        while g[b, F_OVER] == 0 and g[b, F_ACTOR] != seats[b] and g[b, F_STEPS] < max_steps:
            j = (g[b, F_ACTOR] - seats[b]) % n
            kind = slot_kind[j]
            if kind == BOT_RANDOM:
                a = _random_bot_one(st, cfg, b, prng, scratch[0], scratch[1], scratch[2])
            elif kind == BOT_GREEDY:
                a = greedy_one(st, cfg, points, b, mt, pos, scratch[0], scratch[1])
            elif kind == BOT_HEURISTIC:
                a = heuristic_one(st, cfg, hc, b, slot_weights[j], hb, scratch[0], scratch[1], fs)
            else:
                stopped += 1
                break
            step_one(st, ru, b, a)
    return stopped


# ====================================================================== memory (Python side)
class GreedyStreams:
    """One Mersenne Twister per game and seat (``(B, n, 624)`` uint32 and positions), the
    ``greedy`` bot's tie-breaks: :meth:`seed` gives a seat the stream of a Python
    ``random.Random`` (a scalar ``GreedyAgent``'s ``py``)."""

    def __init__(self, batch_size: int, num_players: int, allocate: bool = True):
        # allocate=False: a placeholder for callers without greedy seats (2.5 KB a seat saved)
        rows = (batch_size, num_players) if allocate else (1, 1)
        self.mt = np.zeros(rows + (MT_N,), np.uint32)
        self.pos = np.full(rows, MT_N, np.int64)
        self.shape = (batch_size, num_players)
        self.allocated = allocate

    def seed(self, b: int, seat: int, py) -> None:
        """Seat ``seat`` of game ``b`` continues the stream of ``py`` (a ``random.Random``)."""
        version, state, _ = py.getstate()
        self.mt[b, seat] = state[:MT_N]
        self.pos[b, seat] = state[MT_N]

    def seed_like_agent(self, b: int, seat: int, seed: int | None) -> None:
        """The stream a ``GreedyAgent`` (a ``PyRngAgent``) seeded with ``seed`` draws from:
        ``random.Random(default_rng(seed).integers(2**63))``."""
        self.seed_python(b, seat, int(np.random.default_rng(seed).integers(2 ** 63)))

    def seed_python(self, b: int, seat: int, x: int) -> None:
        """Seat ``seat`` of game ``b`` draws as ``random.Random(x)`` (``0 <= x < 2**64``), seeded
        in compiled code (CPython's ``init_by_array``)."""
        if not 0 <= x < 2 ** 64:
            raise ValueError(f"a greedy stream's seed must be in 0..2**64-1, got {x}")
        mt_seed(self.mt, self.pos, b, seat, np.uint64(x & 0xFFFFFFFF), np.uint64(x >> 32), 2 if x >> 32 else 1)

    def getstate(self, b: int, seat: int) -> tuple:
        """The stream of seat ``seat`` in game ``b`` as ``random.Random.getstate()`` gives it."""
        return (3, tuple(int(x) for x in self.mt[b, seat]) + (int(self.pos[b, seat]),), None)


class HeuristicBeliefs:
    """The ``heuristic`` bot's memory per game and seat (``Beliefs``: see the module
    docstring); :meth:`reset` forgets it for some games (a new episode, ``Beliefs.reset``)."""

    def __init__(self, batch_size: int, num_players: int):
        B, n = batch_size, num_players
        self.shape = (B, n)
        self.mem_color = np.full((B, n), -1, np.int64)
        self.has_mem = np.zeros((B, n), np.int8)
        self.mem_played = np.zeros((B, n, NK), np.int16)
        self.snap_sizes = np.zeros((B, n, max(n - 1, 1)), np.int64)
        self.snap_pen = np.zeros((B, n), np.int64)
        self.snap_next = np.zeros((B, n), np.int64)
        self.void = np.zeros((B, n, max(n - 1, 1), NCOLORS), np.float64)
        self.arrays = (self.mem_color, self.has_mem, self.mem_played, self.snap_sizes, self.snap_pen,
                       self.snap_next, self.void)

    def reset(self, games=None) -> None:
        """Forget everything in ``games`` (a boolean mask or indices; None: all)."""
        sel = slice(None) if games is None else games
        self.has_mem[sel] = 0
        self.mem_color[sel] = -1
        self.void[sel] = 0.0
