"""Compiled kernels of the batched engine: one scalar game's rules, looped over the batch.

Every function here is a line-for-line port of a method of
:class:`uno_env.game.engine.Engine` (named in its docstring) for game ``b`` of a batch,
restricted to the official rules (no stacking, jump-in, SEVEN slap, giving, SEWERS; see
:mod:`uno_env.game.batched.engine` for the options). The batch state ``st`` is a tuple of
arrays (``STATE_ARRAYS`` in the engine module), ``cfg`` an int64 vector of rule options
(``CFG_*``). The top-level kernels (``step_batch``, ``masks_batch``, ``observe_batch``,
``new_episodes``, ...) take a per-game boolean ``active`` mask and skip the other games.

Per-game scalar fields are the columns ``F_*`` of the int32 array ``g`` (one row a game).
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import engine as E
from uno_env.game import observation as O
from uno_env.game.batched import pcg64 as R
from uno_env.game.batched._jit import njit

# ---------------------------------------------------------------------- per-game fields (g)
(F_COLOR, F_DIR, F_DEALER, F_TURN, F_ACTOR, F_PHASE, F_PENDING, F_PKIND, F_SKIP, F_LAST,
 F_WD4P, F_WD4G, F_DRAWN, F_DLEFT, F_OFFENDER, F_QPOS, F_CAUGHT, F_DRAWLEN, F_DISCLEN,
 F_ROUND, F_RWINNER, F_STEPS, F_TURNS, F_OVER, F_WINNER, F_KNOWNANY) = range(26)
NUM_FIELDS = 26

# ---------------------------------------------------------------------- rule options (cfg)
(CFG_N, CFG_HAND, CFG_EXPLICIT, CFG_PENALTY, CFG_BLUFF, CFG_CHALLENGE, CFG_TPRS, CFG_EPISODE,
 CFG_NROUNDS, CFG_TARGET, CFG_ALT_SCORING, CFG_VILLAIN, CFG_UNTIL, CFG_WSTARTS, CFG_DECK) = range(15)
NUM_CFG = 15
EPISODE_ROUND, EPISODE_GAME, EPISODE_ROUNDS = range(3)

# ---------------------------------------------------------------------- constants
NK, NF, NCOL, NCOLORS = C.NUM_KINDS, C.NUM_FACES, C.NUM_COLORED, C.NUM_COLORS
WD4, TEAM_ATTACK = C.WILD_DRAW4, C.TEAM_ATTACK
WD4_BIT = np.int64(1) << np.int64(WD4)
PLAYABLE = np.array(E.PLAYABLE_BITS, np.int64)  # [colour, top face (13 = wild)] -> kind bits
COLOR_BITS = np.array(E.COLOR_BITS, np.int64)
TURN, DRAWN, CHALLENGE, COLOR, DISCARD, CATCH, OVER = E.TURN, E.DRAWN, E.CHALLENGE, E.COLOR, \
    E.DISCARD, E.CATCH, E.OVER
NO_PENDING, PENDING_DRAW2, PENDING_DRAW4 = E.NO_PENDING, E.PENDING_DRAW2, E.PENDING_DRAW4
MAX_LEGAL = 96  # more than any decision has (52 + 16 plays, draw, uno)
PLAY_END = A.DRAW


# ====================================================================== card movement
@njit
def _add(hands, held, hsize, uno, b, p, k):
    """Engine._add"""
    hands[b, p, k] += 1
    held[b, p] |= np.int64(1) << np.int64(k)
    hsize[b, p] += 1
    uno[b, p] = 0


@njit
def _remove(g, hands, held, hsize, known, b, p, k):
    """Engine._remove"""
    hands[b, p, k] -= 1
    if hands[b, p, k] == 0:
        held[b, p] &= ~(np.int64(1) << np.int64(k))
    hsize[b, p] -= 1
    if g[b, F_KNOWNANY]:
        for o in range(known.shape[1]):
            if known[b, o, p, k] > 0:
                known[b, o, p, k] -= 1


@njit
def _top(g, disc, b):
    return np.int64(disc[b, g[b, F_DISCLEN] - 1])


@njit
def _draw_one(g, hands, held, hsize, uno, draw, disc, played, rng, b, p):
    """Engine._draw_one: the kind drawn (reshuffling DISCARD under its top if DRAW is empty), or -1."""
    if g[b, F_DRAWLEN] == 0:
        m = g[b, F_DISCLEN] - 1
        if m <= 0:
            return -1
        top = disc[b, m]
        for i in range(m):
            draw[b, i] = disc[b, i]
        R.shuffle(draw, b, m, rng)
        disc[b, 0] = top
        g[b, F_DISCLEN] = 1
        g[b, F_DRAWLEN] = m
        played[b, :] = 0
        played[b, top] = 1
    n = g[b, F_DRAWLEN] - 1
    g[b, F_DRAWLEN] = n
    k = np.int64(draw[b, n])
    _add(hands, held, hsize, uno, b, p, k)
    return k


@njit
def _draw(g, hands, held, hsize, uno, draw, disc, played, rng, b, p, count):
    """Engine._draw"""
    for _ in range(count):
        if _draw_one(g, hands, held, hsize, uno, draw, disc, played, rng, b, p) < 0:
            return


@njit
def _take_pending(g, hands, held, hsize, uno, draw, disc, played, rng, b, victim):
    """Engine._take_pending (no SEWERS)"""
    _draw(g, hands, held, hsize, uno, draw, disc, played, rng, b, victim, g[b, F_PENDING])
    g[b, F_PENDING] = 0
    g[b, F_PKIND] = NO_PENDING
    g[b, F_WD4P] = -1


@njit
def _playable(g, held, disc, cfg, b, p, k):
    """Engine._playable"""
    top = _top(g, disc, b)
    face = top % NF if top < NCOL else NF
    color = g[b, F_COLOR]
    if not (PLAYABLE[color, face] >> k) & 1:
        return False
    return k != WD4 or cfg[CFG_BLUFF] != 0 or (held[b, p] & COLOR_BITS[color]) == 0


# ====================================================================== turn flow
@njit
def _next(g, cfg, b, p):
    return (p + g[b, F_DIR]) % cfg[CFG_N]


@njit
def _start_turn(g, hsize, uno, b, p):
    """Engine._start_turn"""
    prev = g[b, F_TURN]
    if uno[b, prev] and hsize[b, prev] >= 2:
        uno[b, prev] = 0
    g[b, F_TURN] = p
    g[b, F_ACTOR] = p
    g[b, F_PHASE] = TURN
    g[b, F_DRAWN] = -1
    g[b, F_TURNS] += 1


@njit
def _face_penalty(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b, victim):
    """Engine._face_penalty (no stacking)"""
    if g[b, F_PKIND] == PENDING_DRAW4 and cfg[CFG_CHALLENGE] != 0 and g[b, F_WD4P] >= 0:
        g[b, F_TURN] = victim
        g[b, F_ACTOR] = victim
        g[b, F_PHASE] = CHALLENGE
        g[b, F_DRAWN] = -1
    else:
        _take_pending(g, hands, held, hsize, uno, draw, disc, played, rng, b, victim)
        _start_turn(g, hsize, uno, b, _next(g, cfg, b, victim))


@njit
def _resolve(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b):
    """Engine._resolve"""
    nxt = _next(g, cfg, b, g[b, F_LAST])
    if g[b, F_SKIP]:
        g[b, F_SKIP] = 0
        _start_turn(g, hsize, uno, b, _next(g, cfg, b, nxt))
    elif g[b, F_PENDING]:
        _face_penalty(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b, nxt)
    else:
        _start_turn(g, hsize, uno, b, nxt)


@njit
def _after_play(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b):
    """Engine._after_play: the catch window (explicit UNO), then the card's effect (no jump-in)."""
    p = g[b, F_LAST]
    if hsize[b, p] == 1 and not uno[b, p]:
        if cfg[CFG_EXPLICIT]:
            g[b, F_OFFENDER] = p
            g[b, F_PHASE] = CATCH
            g[b, F_QPOS] = 0
            g[b, F_CAUGHT] = 0
            g[b, F_ACTOR] = (p + g[b, F_DIR]) % cfg[CFG_N]
            return
        uno[b, p] = 1
    _resolve(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b)


@njit
def _draw_for_turn(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b, p):
    """Engine._draw_for_turn"""
    while True:
        k = _draw_one(g, hands, held, hsize, uno, draw, disc, played, rng, b, p)
        if k < 0:
            break
        if _playable(g, held, disc, cfg, b, p, k):
            g[b, F_PHASE] = DRAWN
            g[b, F_ACTOR] = p
            g[b, F_DRAWN] = k
            return
        if cfg[CFG_UNTIL] == 0:
            break
    _start_turn(g, hsize, uno, b, _next(g, cfg, b, p))


@njit
def _deal(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, deck, points, b, order, has_order, dealer):
    """Engine._deal: shuffle (or take ``order``, kinds top first) and deal a round."""
    n = cfg[CFG_N]
    size = cfg[CFG_DECK]
    # the order is laid out in the DISCARD row (emptied below), then dealt from there
    if has_order:
        for i in range(size):
            disc[b, i] = order[i]
    else:
        for i in range(size):
            disc[b, i] = deck[i]
        R.shuffle(disc, b, size, rng)
    hands[b] = 0
    held[b] = 0
    hsize[b] = 0
    known[b] = 0
    g[b, F_KNOWNANY] = 0
    played[b] = 0
    uno[b] = 0
    g[b, F_DIR] = 1
    g[b, F_DEALER] = dealer
    g[b, F_PENDING] = 0
    g[b, F_PKIND] = NO_PENDING
    g[b, F_SKIP] = 0
    g[b, F_WD4P] = -1
    g[b, F_DRAWN] = -1
    pos = 0
    for _ in range(cfg[CFG_HAND]):
        for j in range(n):
            _add(hands, held, hsize, uno, b, (dealer + 1 + j) % n, np.int64(disc[b, pos]))
            pos += 1
    first = np.int64(disc[b, pos])
    m = size - 1 - pos
    for i in range(m):
        draw[b, i] = disc[b, size - 1 - i]
    g[b, F_DRAWLEN] = m
    first_player = (dealer + 1) % n
    while first == WD4:  # a first Wild Draw Four goes back unless only Wild Draw Fours are left
        other = False
        for i in range(g[b, F_DRAWLEN]):
            if draw[b, i] != WD4:
                other = True
                break
        if not other:
            break
        ln = g[b, F_DRAWLEN]
        draw[b, ln] = first
        R.shuffle(draw, b, ln + 1, rng)
        first = np.int64(draw[b, ln])
    disc[b, 0] = first
    g[b, F_DISCLEN] = 1
    played[b, first] += 1
    g[b, F_LAST] = dealer
    g[b, F_TURN] = first_player
    if first >= NCOL:
        g[b, F_COLOR] = -1
        g[b, F_PHASE] = COLOR
        g[b, F_ACTOR] = first_player
        return
    g[b, F_COLOR] = first // NF
    face = first % NF
    if face == C.FACE_DRAW2:
        g[b, F_PENDING] = 2
        g[b, F_PKIND] = PENDING_DRAW2
        _face_penalty(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b, first_player)
    elif face == C.FACE_SKIP or (face == C.FACE_REVERSE and n == 2 and cfg[CFG_TPRS] != 0):
        _start_turn(g, hsize, uno, b, _next(g, cfg, b, first_player))
    elif face == C.FACE_REVERSE:
        g[b, F_DIR] = -1
        _start_turn(g, hsize, uno, b, dealer)
    else:
        _start_turn(g, hsize, uno, b, first_player)


@njit
def _end_round(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, deck, points, b, winner):
    """Engine._end_round"""
    n = cfg[CFG_N]
    if g[b, F_PENDING]:  # a last Draw Two / Draw Four still hits the next player
        _take_pending(g, hands, held, hsize, uno, draw, disc, played, rng, b, _next(g, cfg, b, winner))
    total = 0
    for q in range(n):
        left = 0
        for k in range(NK):
            left += hands[b, q, k] * points[k]
        total += left
        if cfg[CFG_ALT_SCORING]:
            rpoints[b, q] = left
            scores[b, q] += left
        else:
            rpoints[b, q] = 0
    if not cfg[CFG_ALT_SCORING]:
        rpoints[b, winner] = total
        scores[b, winner] += total
    g[b, F_ROUND] += 1
    g[b, F_RWINNER] = winner
    episode = cfg[CFG_EPISODE]
    over = False
    champion = winner
    if episode == EPISODE_ROUND or (episode == EPISODE_ROUNDS and g[b, F_ROUND] >= cfg[CFG_NROUNDS]):
        over = True
        if episode == EPISODE_ROUNDS:
            champion = 0
            for q in range(1, n):
                if (scores[b, q] > scores[b, champion]) if not cfg[CFG_ALT_SCORING] \
                        else (scores[b, q] < scores[b, champion]):
                    champion = q
    elif episode == EPISODE_ROUNDS:
        over = False
    elif not cfg[CFG_ALT_SCORING]:
        over = scores[b, winner] >= cfg[CFG_TARGET]
    else:
        champion = 0
        for q in range(n):
            if scores[b, q] >= cfg[CFG_TARGET]:
                over = True
            if scores[b, q] < scores[b, champion]:
                champion = q
    if over:
        g[b, F_OVER] = 1
        g[b, F_WINNER] = champion
        g[b, F_PHASE] = OVER
        g[b, F_ACTOR] = -1
        return
    dealer = (winner - 1) % n if cfg[CFG_WSTARTS] else (g[b, F_DEALER] + 1) % n
    _deal(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, deck, points, b, deck, False, dealer)


@njit
def _play(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, deck, points, b, p, k, color):
    """Engine._play (``p`` plays ``k``, choosing ``color`` for a wild)"""
    prev_color = g[b, F_COLOR]
    _remove(g, hands, held, hsize, known, b, p, k)
    disc[b, g[b, F_DISCLEN]] = k
    g[b, F_DISCLEN] += 1
    played[b, k] += 1
    g[b, F_LAST] = p
    g[b, F_TURN] = p
    if k < NCOL:
        g[b, F_COLOR] = k // NF
        face = k % NF
        if face == C.FACE_DRAW2:
            g[b, F_PENDING] += 2
            g[b, F_PKIND] = PENDING_DRAW2
        elif face == C.FACE_SKIP:
            g[b, F_SKIP] = 1
        elif face == C.FACE_REVERSE:
            if cfg[CFG_N] == 2 and cfg[CFG_TPRS] != 0:
                g[b, F_SKIP] = 1
            else:
                g[b, F_DIR] = -g[b, F_DIR]
    else:
        g[b, F_COLOR] = color
        if k == WD4:
            g[b, F_PENDING] += 4
            g[b, F_PKIND] = PENDING_DRAW4
            g[b, F_WD4P] = p
            g[b, F_WD4G] = 1 if (held[b, p] & COLOR_BITS[prev_color]) != 0 else 0
    if hsize[b, p] == 0:
        _end_round(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, deck, points, b, p)
    elif k == TEAM_ATTACK and (held[b, p] & cfg[CFG_VILLAIN]) != 0:
        g[b, F_PHASE] = DISCARD
        g[b, F_ACTOR] = p
        g[b, F_DLEFT] = 3
    else:
        _after_play(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b)


@njit
def _challenge(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, b, p):
    """Engine._challenge: the hand is shown to the challenger; the guilty or the victim draws."""
    offender = g[b, F_WD4P]
    for k in range(NK):
        known[b, p, offender, k] = hands[b, offender, k]
    g[b, F_KNOWNANY] = 1
    if g[b, F_WD4G]:
        _draw(g, hands, held, hsize, uno, draw, disc, played, rng, b, offender, g[b, F_PENDING])
        g[b, F_PENDING] = 0
        g[b, F_PKIND] = NO_PENDING
        g[b, F_WD4P] = -1
        _start_turn(g, hsize, uno, b, p)
    else:
        g[b, F_PENDING] += 2
        _take_pending(g, hands, held, hsize, uno, draw, disc, played, rng, b, p)
        _start_turn(g, hsize, uno, b, _next(g, cfg, b, p))


# ====================================================================== decisions
@njit
def _emit_plays(k, out, c):
    if k < NCOL:
        out[c] = k
        return c + 1
    base = A.PLAY_WILD + NCOLORS * (k - NCOL)
    for col in range(NCOLORS):
        out[c + col] = base + col
    return c + NCOLORS


@njit
def legal_into(g, held, hsize, uno, disc, cfg, b, out):
    """Engine.legal_actions for game ``b``, written sorted into ``out``; the count (0 when over)."""
    ph = g[b, F_PHASE]
    p = g[b, F_ACTOR]
    c = 0
    if ph == OVER:
        return 0
    may_uno = cfg[CFG_EXPLICIT] != 0 and hsize[b, p] == 2 and uno[b, p] == 0
    if ph == TURN:
        if g[b, F_PENDING] == 0:
            top = _top(g, disc, b)
            face = top % NF if top < NCOL else NF
            color = g[b, F_COLOR]
            bits = held[b, p] & PLAYABLE[color, face]
            if (bits & WD4_BIT) != 0 and cfg[CFG_BLUFF] == 0 and (held[b, p] & COLOR_BITS[color]) != 0:
                bits &= ~WD4_BIT
            while bits:
                c = _emit_plays(np.int64(trailing_zeros(bits)), out, c)
                bits &= bits - 1
        out[c] = A.DRAW
        c += 1
        if may_uno:
            out[c] = A.UNO
            c += 1
    elif ph == DRAWN:
        c = _emit_plays(np.int64(g[b, F_DRAWN]), out, c)
        out[c] = A.PASS
        c += 1
        if may_uno:
            out[c] = A.UNO
            c += 1
    elif ph == CHALLENGE:
        out[0] = A.DRAW
        out[1] = A.CHALLENGE
        c = 2
    elif ph == COLOR:
        for col in range(NCOLORS):
            out[col] = A.COLOR + col
        c = NCOLORS
    elif ph == DISCARD:
        out[0] = A.PASS
        c = 1
        if may_uno:
            out[c] = A.UNO
            c += 1
        bits = held[b, p] & cfg[CFG_VILLAIN]
        while bits:
            out[c] = A.DISCARD + np.int64(trailing_zeros(bits))
            c += 1
            bits &= bits - 1
    elif ph == CATCH:
        out[0] = A.PASS
        out[1] = A.CATCH
        c = 2
    return c


@njit
def _step_one(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, deck, points, b, a):
    """Engine.step for a legal action ``a`` of game ``b``."""
    g[b, F_STEPS] += 1
    p = g[b, F_ACTOR]
    ph = g[b, F_PHASE]
    if a == A.UNO:
        uno[b, p] = 1
        return
    if a < PLAY_END:
        if a < A.PLAY_WILD:
            _play(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, deck, points, b, p, a, -1)
        else:
            _play(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, deck, points, b, p, NCOL + (a - A.PLAY_WILD) // NCOLORS, (a - A.PLAY_WILD) % NCOLORS)
        return
    if ph == TURN:  # draw (or take a pending penalty)
        if g[b, F_PENDING]:
            _take_pending(g, hands, held, hsize, uno, draw, disc, played, rng, b, p)
            _start_turn(g, hsize, uno, b, _next(g, cfg, b, p))
        else:
            _draw_for_turn(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b, p)
    elif ph == DRAWN:  # pass: keep the drawn card
        _start_turn(g, hsize, uno, b, _next(g, cfg, b, p))
    elif ph == CHALLENGE:
        if a == A.DRAW:
            _take_pending(g, hands, held, hsize, uno, draw, disc, played, rng, b, p)
            _start_turn(g, hsize, uno, b, _next(g, cfg, b, p))
        else:
            _challenge(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, b, p)
    elif ph == COLOR:
        g[b, F_COLOR] = a - A.COLOR
        if _top(g, disc, b) == WD4:  # a first Wild Draw Four that stayed: the first player draws four
            g[b, F_PENDING] = 4
            g[b, F_PKIND] = PENDING_DRAW4
            g[b, F_WD4P] = -1
            _face_penalty(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b, p)
        else:
            _start_turn(g, hsize, uno, b, p)
    elif ph == DISCARD:
        if a == A.PASS:
            _after_play(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b)
        else:
            k = a - A.DISCARD
            _remove(g, hands, held, hsize, known, b, p, k)
            ln = g[b, F_DISCLEN]
            disc[b, ln] = disc[b, ln - 1]
            disc[b, ln - 1] = k
            g[b, F_DISCLEN] = ln + 1
            played[b, k] += 1
            g[b, F_DLEFT] -= 1
            if hsize[b, p] == 0:
                _end_round(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, deck, points, b, p)
            elif g[b, F_DLEFT] == 0 or (held[b, p] & cfg[CFG_VILLAIN]) == 0:
                _after_play(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b)
    elif ph == CATCH:
        if a != A.PASS:
            g[b, F_CAUGHT] = 1
        g[b, F_QPOS] += 1
        n = cfg[CFG_N]
        if g[b, F_QPOS] < n - 1:
            g[b, F_ACTOR] = (g[b, F_OFFENDER] + g[b, F_DIR] * (g[b, F_QPOS] + 1)) % n
            return
        if g[b, F_CAUGHT]:
            _draw(g, hands, held, hsize, uno, draw, disc, played, rng, b, g[b, F_OFFENDER], cfg[CFG_PENALTY])
        g[b, F_CAUGHT] = 0
        g[b, F_OFFENDER] = -1
        _resolve(g, hands, held, hsize, uno, draw, disc, played, rng, cfg, b)


# ====================================================================== batch kernels
@njit
def new_episodes(st, cfg, deck, points, active, orders, has_order, dealers):
    """Engine.new_state for every active game: fresh episode fields, dealer (drawn if < 0), deal."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng = st
    n = cfg[CFG_N]
    for b in range(g.shape[0]):
        if not active[b]:
            continue
        g[b, :] = 0
        g[b, F_COLOR] = -1
        g[b, F_DIR] = 1
        g[b, F_PKIND] = NO_PENDING
        g[b, F_LAST] = -1
        g[b, F_WD4P] = -1
        g[b, F_DRAWN] = -1
        g[b, F_OFFENDER] = -1
        g[b, F_RWINNER] = -1
        g[b, F_WINNER] = -1
        scores[b] = 0
        rpoints[b] = 0
        dealer = dealers[b]
        if dealer < 0:
            dealer = R.bounded(rng, b, n)
        _deal(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, deck, points, b, orders[b], has_order[b], dealer)


@njit
def first_illegal(st, cfg, actions, active, scratch):
    """Index of the first active game whose action is not legal (-1: all legal)."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng = st
    out = scratch[0]
    for b in range(g.shape[0]):
        if not active[b]:
            continue
        c = legal_into(g, held, hsize, uno, disc, cfg, b, out)
        a = actions[b]
        ok = False
        for i in range(c):
            if out[i] == a:
                ok = True
                break
        if not ok:
            return b
    return -1


@njit
def step_batch(st, cfg, deck, points, actions, active):
    """Apply ``actions[b]`` (legal: check with ``first_illegal``) to every active game."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng = st
    for b in range(g.shape[0]):
        if active[b]:
            _step_one(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, deck, points, b, np.int64(actions[b]))


@njit
def masks_batch(st, cfg, active, masks, scratch):
    """Action masks (int8, one row a game; zero rows for inactive or finished games)."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng = st
    out = scratch[0]
    for b in range(g.shape[0]):
        masks[b, :] = 0
        if not active[b]:
            continue
        c = legal_into(g, held, hsize, uno, disc, cfg, b, out)
        for i in range(c):
            masks[b, out[i]] = 1


@njit
def legal_one(st, cfg, b, out):
    """legal_into for one game (called from Python)."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng = st
    return legal_into(g, held, hsize, uno, disc, cfg, b, out)


@njit
def legal_lists(st, cfg, active, out, counts):
    """Legal action ids per game into ``out[b, :counts[b]]`` (sorted)."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng = st
    for b in range(g.shape[0]):
        counts[b] = legal_into(g, held, hsize, uno, disc, cfg, b, out[b]) if active[b] else 0


@njit
def observe_batch(st, cfg, template, seats, active, obs):
    """ObservationEncoder.encode of ``seats[b]`` for every active game into ``obs[b]``."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng = st
    n = cfg[CFG_N]
    explicit = cfg[CFG_EXPLICIT] != 0
    multi = cfg[CFG_EPISODE] != EPISODE_ROUND
    deck_size = np.float64(cfg[CFG_DECK])
    target = np.float64(cfg[CFG_TARGET])
    for b in range(g.shape[0]):
        if not active[b]:
            continue
        p = seats[b]
        row = obs[b]
        for i in range(template.shape[0]):
            row[i] = template[i]
        for k in range(NK):
            row[O.HAND + k] = hands[b, p, k]
            row[O.PLAYED + k] = played[b, k]
        row[O.TOP + _top(g, disc, b)] = 1.0
        if g[b, F_COLOR] >= 0:
            row[O.COLOR + g[b, F_COLOR]] = 1.0
        if g[b, F_ACTOR] == p:
            row[O.PHASE + g[b, F_PHASE]] = 1.0
        if g[b, F_PENDING]:
            row[O.PENDING] = g[b, F_PENDING]
            row[O.PENDING + 1 + g[b, F_PKIND]] = 1.0
        if g[b, F_DIR] < 0:
            row[O.DIRECTION] = 1.0
        row[O.DRAW_SIZE] = g[b, F_DRAWLEN] / deck_size
        row[O.TURN + (g[b, F_TURN] - p) % n] = 1.0
        if explicit:
            row[O.SELF] = uno[b, p]
        if multi:
            row[O.SELF + 1] = scores[b, p] / target
        known_any = g[b, F_KNOWNANY] != 0
        for j in range(1, n):
            q = (p + j) % n
            base = O.OPPONENTS + (j - 1) * O.OPP_FIELDS
            row[base + 1] = hsize[b, q]
            if explicit:
                row[base + 3] = uno[b, q]
            if multi:
                row[base + 2] = scores[b, q] / target
            if known_any:
                for k in range(NK):
                    row[base + O.OPP_KNOWN + k] = known[b, p, q, k]


@njit
def uniform_actions(st, cfg, active, prng, actions, scratch):
    """A uniformly random legal action per active game (``prng``: one PCG64 row a game)."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng = st
    out = scratch[0]
    for b in range(g.shape[0]):
        if not active[b]:
            continue
        c = legal_into(g, held, hsize, uno, disc, cfg, b, out)
        actions[b] = out[R.bounded(prng, b, c)] if c > 1 else out[0]


@njit
def _random_card(plays, c, prng, b, opts):
    """bots.random_card: one option per card kind, then a random colour for a wild."""
    m = 0
    seen_wild = -1
    for i in range(c):
        a = plays[i]
        if a < A.PLAY_WILD:
            opts[m] = a
            m += 1
        else:
            w = (a - A.PLAY_WILD) // NCOLORS
            if w != seen_wild:
                opts[m] = A.PLAY_WILD + NCOLORS * w
                m += 1
                seen_wild = w
    a = opts[R.bounded(prng, b, m)]
    if a >= A.PLAY_WILD:
        a += R.bounded(prng, b, NCOLORS)
    return a


@njit
def _random_bot_one(g, held, hsize, uno, disc, cfg, b, prng, legal, plays, opts):
    """The ``random`` bot's move (``bots.random_move``) for the actor of game ``b`` (the same
    choice distribution), from ``prng``."""
    c = legal_into(g, held, hsize, uno, disc, cfg, b, legal)
    if c == 1:
        return legal[0]
    uno_at = -1
    for i in range(c):
        if legal[i] == A.UNO:
            uno_at = i
    if uno_at >= 0:  # call UNO or not, uniformly
        if R.next32(prng, b) < np.uint64(0x80000000):
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
            return _random_card(plays, m, prng, b, opts)
        return legal[R.bounded(prng, b, c)]
    if ph == CHALLENGE:
        # options: the non-play ids (draw, challenge), plus one slot for stacking plays
        k = R.bounded(prng, b, c - m + (1 if m else 0))
        return legal[m + k] if k < c - m else _random_card(plays, m, prng, b, opts)
    return legal[R.bounded(prng, b, c)]  # colour, discard, catch


@njit
def random_bot_actions(st, cfg, active, prng, actions, scratch):
    """The ``random`` bot (uno_env.agents.bots.RandomAgent) for the actor of every active game."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng = st
    for b in range(g.shape[0]):
        if active[b]:
            actions[b] = _random_bot_one(g, held, hsize, uno, disc, cfg, b, prng, scratch[0], scratch[1],
                                         scratch[2])


@njit
def random_bots_until(st, cfg, deck, points, active, seats, max_steps, prng, scratch):
    """In every active game, the ``random`` bot plays every seat but ``seats[b]`` until that seat
    decides, the game ends or ``max_steps`` decisions are reached (one call, no Python loop)."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng = st
    for b in range(g.shape[0]):
        if not active[b]:
            continue
        while g[b, F_OVER] == 0 and g[b, F_ACTOR] != seats[b] and g[b, F_STEPS] < max_steps:
            a = _random_bot_one(g, held, hsize, uno, disc, cfg, b, prng, scratch[0], scratch[1], scratch[2])
            _step_one(g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, cfg, deck,
                      points, b, a)
