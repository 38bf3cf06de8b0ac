"""Compiled kernels of the batched engine: one scalar game's rules, looped over the batch.

The kernels mirror :class:`uno_env.game.engine.Engine` function for function (each named in
its docstring): the card movement and turn-flow helpers, then one pair ``legal_<phase>`` /
``apply_<phase>`` per phase, side by side in the order of the scalar engine's phase table
(TURN, DRAWN, CHALLENGE, COLOR, DISCARD, CATCH, JUMP, OFFER, TAKE, OVER), dispatched by
``legal_into`` and ``step_one`` as ``Engine.legal_actions`` and ``Engine.step`` dispatch. A
rule goes into the same-named function of both engines; the lockstep tests
(``tests/game/test_batched_engine.py``) compare them after every step.

Arguments: ``st`` is the batch state, one tuple of named arrays (``STATE_ARRAYS`` in the
engine module; every function unpacks the names it reads, numba passes the tuple as one
struct), ``ru`` the rule constants ``(cfg, deck, points)``: ``cfg`` an int64 vector of the
options (``CFG_*``), ``deck`` the deck's kinds, ``points`` each kind's points. ``b`` is the
game, ``p`` the deciding seat. The top-level kernels (``step_batch``, ``masks_batch``,
``observe_batch``, ``new_episodes``, ...) take a per-game boolean ``active`` mask and skip
the other games. Nothing here allocates (numba runs without its reference-counting runtime).

Per-game scalar fields are the columns ``F_*`` of the int32 array ``g`` (one row a game).
Windows (CATCH, JUMP, OFFER) keep their seats in ``queue[b, :F_QLEN]`` (``F_QPOS``: the seat
answering now) and the stored answers per queue position in ``answers`` (-1: pass) and
``jump_uno`` (a UNO call made in a JUMP window, a hidden answer).
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import engine as E
from uno_env.game import global_state as G
from uno_env.game import observation as O
from uno_env.game.batched import pcg64 as R
from uno_env.game.batched._jit import njit, njit_inline

# ---------------------------------------------------------------------- per-game fields (g)
(F_COLOR, F_DIR, F_DEALER, F_TURN, F_ACTOR, F_PHASE, F_PENDING, F_PKIND, F_SKIP, F_LAST,
 F_WD4P, F_WD4G, F_WD4COLOR, F_DRAWN, F_FROMOFFER, F_ASKED, F_DLEFT, F_OFFENDER, F_QPOS, F_QLEN,
 F_DRAWLEN, F_DISCLEN, F_ROUND, F_RWINNER, F_STEPS, F_TURNS, F_OVER, F_WINNER, F_KNOWNANY) = range(29)
NUM_FIELDS = 29

# ---------------------------------------------------------------------- rule options (cfg)
(CFG_N, CFG_HAND, CFG_EXPLICIT, CFG_PENALTY, CFG_BLUFF, CFG_CHALLENGE, CFG_TPRS, CFG_EPISODE,
 CFG_NROUNDS, CFG_TARGET, CFG_ALT_SCORING, CFG_VILLAIN, CFG_UNTIL, CFG_WSTARTS, CFG_DECK,
 CFG_STACKING, CFG_WHOLE, CFG_JUMP, CFG_JUMP_RANDOM, CFG_SLAP, CFG_SLAP_RANDOM, CFG_GIVING) = range(22)
NUM_CFG = 22
EPISODE_ROUND, EPISODE_GAME, EPISODE_ROUNDS = range(3)

# ---------------------------------------------------------------------- constants
NK, NF, NCOL, NCOLORS = C.NUM_KINDS, C.NUM_FACES, C.NUM_COLORED, C.NUM_COLORS
WD4, TEAM_ATTACK, SEWERS = C.WILD_DRAW4, C.TEAM_ATTACK, C.SEWERS
WD4_BIT = np.int64(1) << np.int64(WD4)
PLAYABLE = np.array(E.PLAYABLE_BITS, np.int64)  # [colour, top face (13 = wild)] -> kind bits
COLOR_BITS = np.array(E.COLOR_BITS, np.int64)
STACK_BITS = np.array(E.STACK_BITS, np.int64)  # [pending kind] -> kinds that stack on it
TURN, DRAWN, CHALLENGE, COLOR, DISCARD, CATCH, JUMP, OFFER, TAKE, OVER = (
    E.TURN, E.DRAWN, E.CHALLENGE, E.COLOR, E.DISCARD, E.CATCH, E.JUMP, E.OFFER, E.TAKE, E.OVER)
NO_PENDING, PENDING_DRAW2, PENDING_DRAW4, PENDING_SEWERS = (
    E.NO_PENDING, E.PENDING_DRAW2, E.PENDING_DRAW4, E.PENDING_SEWERS)
H_DREW_ON_COLOR, H_DREW_ON_FACE, H_RECEIVED, H_LAST, H_LEFT = (
    E.H_DREW_ON_COLOR, E.H_DREW_ON_FACE, E.H_RECEIVED, E.H_LAST, E.H_LEFT)
NUM_HISTORY_COLUMNS = E.NUM_HISTORY_COLUMNS
LAST_PLAYED, LAST_WILD, LAST_PLAYED_DRAWN, LAST_DREW, LAST_PENALTY, LAST_DECLINED, LAST_CHALLENGED = (
    E.LAST_PLAYED, E.LAST_WILD, E.LAST_PLAYED_DRAWN, E.LAST_DREW, E.LAST_PENALTY, E.LAST_DECLINED,
    E.LAST_CHALLENGED)
NO_FACE = C.NO_FACE
MAX_LEGAL = 96  # more than any decision has (52 + 16 plays, draw, uno, ask; 1 + 56 offers)
PLAY_END = A.DRAW


# ====================================================================== card movement
@njit_inline
def _add(st, b, p, k):
    """Engine._add"""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, hist, queue, answers, juno, offers = st
    hands[b, p, k] += 1
    held[b, p] |= np.int64(1) << np.int64(k)
    hsize[b, p] += 1
    uno[b, p] = 0
    hist[b, p, H_RECEIVED] += 1


@njit_inline
def _remove(st, b, p, k):
    """Engine._remove"""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, hist, queue, answers, juno, offers = st
    hands[b, p, k] -= 1
    if hands[b, p, k] == 0:
        held[b, p] &= ~(np.int64(1) << np.int64(k))
    hsize[b, p] -= 1
    if g[b, F_KNOWNANY]:
        for o in range(known.shape[1]):
            if known[b, o, p, k] > 0:
                known[b, o, p, k] -= 1


@njit
def _reveal(st, b, p, k):
    """Engine._reveal: card ``k`` in ``p``'s hand becomes known to every other player."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, hist, queue, answers, juno, offers = st
    for o in range(known.shape[1]):
        known[b, o, p, k] += 1
    known[b, p, p, k] = 0
    g[b, F_KNOWNANY] = 1


@njit_inline
def _top(g, disc, b):
    return np.int64(disc[b, g[b, F_DISCLEN] - 1])


@njit_inline
def _top_face(g, disc, b):
    top = _top(g, disc, b)
    return top % NF if top < NCOL else NO_FACE


@njit_inline
def _clear_drew_on(hist, b, p):
    """The seat's drew-on flags clear (``history[p, H_DREW_ON_COLOR:H_RECEIVED] = 0``)."""
    for i in range(H_DREW_ON_COLOR, H_RECEIVED):
        hist[b, p, i] = 0


@njit_inline
def _draw_one(st, b, p):
    """Engine._draw_one: the kind drawn (reshuffling DISCARD under its top if DRAW is empty), or -1."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, hist, queue, answers, juno, offers = st
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
    _add(st, b, p, k)
    return k


@njit
def _draw(st, b, p, count):
    """Engine._draw (and _draw_penalty: the engine's events are not kept here)"""
    hist = st[12]
    for i in range(count):
        if _draw_one(st, b, p) < 0:
            return
        if i == 0:
            _clear_drew_on(hist, b, p)


@njit
def _take_pending(st, b, victim):
    """Engine._take_pending"""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, hist, queue, answers, juno, offers = st
    if g[b, F_PKIND] == PENDING_SEWERS:
        _sewers_draw(st, b, victim, g[b, F_PENDING])
    else:
        _draw(st, b, victim, g[b, F_PENDING])
    hist[b, victim, H_LAST] = LAST_PENALTY
    g[b, F_PENDING] = 0
    g[b, F_PKIND] = NO_PENDING
    g[b, F_WD4P] = -1


@njit
def _fewest_of_a_color(hands, b, p):
    low = 1 << 30
    for c in range(NCOLORS):
        t = 0
        for f in range(NF):
            t += hands[b, p, c * NF + f]
        if t < low:
            low = t
    return low


@njit
def _sewers_draw(st, b, p, k):
    """Engine._sewers_draw: draw until holding at least ``k`` cards of each colour; each card drawn is shown."""
    hands, hist = st[1], st[12]
    while _fewest_of_a_color(hands, b, p) < k:
        card = _draw_one(st, b, p)
        if card < 0:
            return
        _clear_drew_on(hist, b, p)
        _reveal(st, b, p, card)


@njit_inline
def _playable(st, cfg, b, p, k):
    """Engine._playable"""
    g, held, disc = st[0], st[2], st[8]
    color = g[b, F_COLOR]
    if not (PLAYABLE[color, _top_face(g, disc, b)] >> k) & 1:
        return False
    return k != WD4 or cfg[CFG_BLUFF] != 0 or (held[b, p] & COLOR_BITS[color]) == 0


# ====================================================================== turn flow
@njit_inline
def _next(g, cfg, b, p):
    """Engine._next"""
    return (p + g[b, F_DIR]) % cfg[CFG_N]


@njit_inline
def _start_turn(st, cfg, b, p):
    """Engine._start_turn"""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, hist, queue, answers, juno, offers = st
    prev = g[b, F_TURN]
    if uno[b, prev] and hsize[b, prev] >= 2:
        uno[b, prev] = 0
    g[b, F_TURN] = p
    g[b, F_ACTOR] = p
    g[b, F_PHASE] = TURN
    g[b, F_ASKED] = 0
    g[b, F_DRAWN] = -1
    g[b, F_FROMOFFER] = 0
    if cfg[CFG_GIVING]:
        offers[b, :] = -1
    g[b, F_TURNS] += 1


@njit_inline
def _can_stack(st, cfg, b, p):
    """Engine._can_stack"""
    g, held = st[0], st[2]
    bits = held[b, p] & STACK_BITS[g[b, F_PKIND]]
    if bits == WD4_BIT and cfg[CFG_BLUFF] == 0 and (held[b, p] & COLOR_BITS[g[b, F_COLOR]]) != 0:
        return False
    return bits != 0


@njit
def _face_penalty(st, cfg, b, victim):
    """Engine._face_penalty: the pending penalty reaches ``victim``: challenge, stack, or take it."""
    g = st[0]
    if g[b, F_PKIND] == PENDING_DRAW4 and cfg[CFG_CHALLENGE] != 0 and g[b, F_WD4P] >= 0:
        g[b, F_TURN] = victim
        g[b, F_ACTOR] = victim
        g[b, F_PHASE] = CHALLENGE
        g[b, F_ASKED] = 0
        g[b, F_DRAWN] = -1
    elif cfg[CFG_STACKING] != 0 and _can_stack(st, cfg, b, victim):
        _start_turn(st, cfg, b, victim)
    else:
        _take_pending(st, b, victim)
        _start_turn(st, cfg, b, _next(g, cfg, b, victim))


@njit
def _play(st, ru, b, p, k, color):
    """Engine._play (``p`` plays ``k``, choosing ``color`` for a wild)"""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, hist, queue, answers, juno, offers = st
    cfg = ru[0]
    prev_color = g[b, F_COLOR]
    if g[b, F_PHASE] == DRAWN:
        hist[b, p, H_LAST] = LAST_PLAYED_DRAWN
    else:
        hist[b, p, H_LAST] = LAST_PLAYED if k < NCOL else LAST_WILD
    hist[b, p, H_RECEIVED] = 0
    _remove(st, b, p, k)
    disc[b, g[b, F_DISCLEN]] = k
    g[b, F_DISCLEN] += 1
    played[b, k] += 1
    g[b, F_LAST] = p
    g[b, F_TURN] = p
    if k < NCOL:
        g[b, F_COLOR] = k // NF
        face = k % NF
        hist[b, p, H_DREW_ON_COLOR + k // NF] = 0
        hist[b, p, H_DREW_ON_FACE + face] = 0
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
        elif face == C.FACE_SEVEN and cfg[CFG_SLAP] != 0:
            _slap(st, cfg, b, p, p)
    else:
        g[b, F_COLOR] = color
        if k == WD4:
            g[b, F_PENDING] += 4
            g[b, F_PKIND] = PENDING_DRAW4
            g[b, F_WD4P] = p
            g[b, F_WD4COLOR] = prev_color
            g[b, F_WD4G] = 1 if (held[b, p] & COLOR_BITS[prev_color]) != 0 else 0
        elif k == SEWERS:
            g[b, F_PENDING] += 1
            g[b, F_PKIND] = PENDING_SEWERS
    hist[b, p, H_LEFT] = prev_color if prev_color != g[b, F_COLOR] else -1
    if hsize[b, p] == 0:
        _end_round(st, ru, b, p)
    elif k == TEAM_ATTACK and (held[b, p] & cfg[CFG_VILLAIN]) != 0:
        g[b, F_PHASE] = DISCARD
        g[b, F_ACTOR] = p
        g[b, F_DLEFT] = 3
    else:
        _after_play(st, ru, b)


@njit
def _slap(st, cfg, b, player, first):
    """Engine._slap: SEVEN slap: the slowest player draws one card per 7 in a row on the pile."""
    g, disc, rng = st[0], st[8], st[11]
    sevens = 0
    for i in range(g[b, F_DISCLEN] - 1, -1, -1):
        k = disc[b, i]
        if k >= NCOL or k % NF != C.FACE_SEVEN:
            break
        sevens += 1
    n = cfg[CFG_N]
    if cfg[CFG_SLAP_RANDOM]:  # a random seat among the others (every seat for a first card)
        if player >= 0:
            victim = R.bounded(rng, b, n - 1)
            if victim >= player:
                victim += 1
        else:
            victim = R.bounded(rng, b, n)
    else:
        victim = _next(g, cfg, b, first) if player >= 0 else first
    _draw(st, b, victim, sevens)


@njit_inline
def _after_play(st, ru, b):
    """Engine._after_play: a card has been played: the catch window, then the jump-in window."""
    g, hsize, uno, queue = st[0], st[3], st[4], st[13]
    cfg = ru[0]
    p = g[b, F_LAST]
    if hsize[b, p] == 1 and not uno[b, p]:
        if cfg[CFG_EXPLICIT]:
            g[b, F_OFFENDER] = p
            n = cfg[CFG_N]
            for i in range(1, n):
                queue[b, i - 1] = (p + g[b, F_DIR] * i) % n
            _open_window(st, b, CATCH, n - 1)
            return
        uno[b, p] = 1
    _open_jump(st, ru, b)


@njit
def _open_window(st, b, phase, length):
    """Engine._open_window over the seats ``queue[b, :length]`` (written by the caller)."""
    g, queue, answers, juno = st[0], st[13], st[14], st[15]
    g[b, F_PHASE] = phase
    g[b, F_QPOS] = 0
    g[b, F_QLEN] = length
    for i in range(length):
        answers[b, i] = -1
        juno[b, i] = 0
    g[b, F_ACTOR] = queue[b, 0]


@njit
def _close_window(g, b):
    """The queue and the answers are emptied (``s.queue``, ``s.answers`` = [])."""
    g[b, F_QPOS] = 0
    g[b, F_QLEN] = 0


@njit_inline
def _open_jump(st, ru, b):
    """Engine._open_jump"""
    g, held, queue = st[0], st[2], st[13]
    cfg = ru[0]
    if cfg[CFG_JUMP]:
        top = _top(g, st[8], b)
        n = cfg[CFG_N]
        last = g[b, F_LAST]
        m = 0
        for i in range(1, n):
            q = (last + g[b, F_DIR] * i) % n
            if (held[b, q] >> top) & 1 and (top != WD4 or _playable(st, cfg, b, q, top)):
                queue[b, m] = q
                m += 1
        if m:
            _open_window(st, b, JUMP, m)
            return
    _resolve(st, cfg, b)


@njit_inline
def _resolve(st, cfg, b):
    """Engine._resolve: the played card's effect reaches the next player; the next turn begins."""
    g = st[0]
    nxt = _next(g, cfg, b, g[b, F_LAST])
    if g[b, F_SKIP]:
        g[b, F_SKIP] = 0
        _start_turn(st, cfg, b, _next(g, cfg, b, nxt))
    elif g[b, F_PENDING]:
        _face_penalty(st, cfg, b, nxt)
    else:
        _start_turn(st, cfg, b, nxt)


@njit_inline
def _draw_for_turn(st, cfg, b, p):
    """Engine._draw_for_turn"""
    g, disc, hist = st[0], st[8], st[12]
    hist[b, p, H_LAST] = LAST_DREW
    if g[b, F_COLOR] >= 0:
        hist[b, p, H_DREW_ON_COLOR + g[b, F_COLOR]] = 1
    face = _top_face(g, disc, b)
    if face != NO_FACE:
        hist[b, p, H_DREW_ON_FACE + face] = 1
    while True:
        k = _draw_one(st, b, p)
        if k < 0:
            break
        if _playable(st, cfg, b, p, k):
            g[b, F_PHASE] = DRAWN
            g[b, F_ACTOR] = p
            g[b, F_DRAWN] = k
            g[b, F_FROMOFFER] = 0
            return
        if cfg[CFG_UNTIL] == 0:
            break
    _start_turn(st, cfg, b, _next(g, cfg, b, p))


@njit
def _deal(st, ru, b, order, has_order, dealer):
    """Engine._deal: shuffle (or take ``order``, kinds top first) and deal a round."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, hist, queue, answers, juno, offers = st
    cfg, deck = ru[0], ru[1]
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
    offers[b] = -1
    g[b, F_DIR] = 1
    g[b, F_DEALER] = dealer
    g[b, F_PENDING] = 0
    g[b, F_PKIND] = NO_PENDING
    g[b, F_SKIP] = 0
    g[b, F_WD4P] = -1
    g[b, F_WD4COLOR] = -1
    g[b, F_DRAWN] = -1
    g[b, F_FROMOFFER] = 0
    pos = 0
    for _ in range(cfg[CFG_HAND]):
        for j in range(n):
            _add(st, b, (dealer + 1 + j) % n, np.int64(disc[b, pos]))
            pos += 1
    hist[b] = 0  # a new round: no public history (after the deal, which _add counts)
    for q in range(n):
        hist[b, q, H_LEFT] = -1
    first = np.int64(disc[b, pos])
    m = size - 1 - pos
    for i in range(m):
        draw[b, i] = disc[b, size - 1 - i]
    g[b, F_DRAWLEN] = m
    first_player = (dealer + 1) % n
    # a first Wild Draw Four goes back unless only Wild Draw Fours are left (or with stacking)
    while first == WD4 and cfg[CFG_STACKING] == 0:
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
    if face == C.FACE_SEVEN and cfg[CFG_SLAP] != 0:
        _slap(st, cfg, b, -1, first_player)
    if face == C.FACE_DRAW2:
        g[b, F_PENDING] = 2
        g[b, F_PKIND] = PENDING_DRAW2
        _face_penalty(st, cfg, b, first_player)
    elif face == C.FACE_SKIP or (face == C.FACE_REVERSE and n == 2 and cfg[CFG_TPRS] != 0):
        _start_turn(st, cfg, b, _next(g, cfg, b, first_player))
    elif face == C.FACE_REVERSE:
        g[b, F_DIR] = -1
        _start_turn(st, cfg, b, dealer)
    else:
        _start_turn(st, cfg, b, first_player)


@njit
def _end_round(st, ru, b, winner):
    """Engine._end_round"""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, hist, queue, answers, juno, offers = st
    cfg, deck, points = ru
    n = cfg[CFG_N]
    if g[b, F_PENDING]:  # a last Draw Two / Draw Four / SEWERS still hits the next player
        _take_pending(st, b, _next(g, cfg, b, winner))
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
    _deal(st, ru, b, deck, False, dealer)


@njit
def _challenge(st, cfg, b, p):
    """Engine._challenge: the hand is shown to the challenger; the guilty or the victim draws."""
    g, hands, known, hist = st[0], st[1], st[10], st[12]
    offender = g[b, F_WD4P]
    for k in range(NK):
        known[b, p, offender, k] = hands[b, offender, k]
    g[b, F_KNOWNANY] = 1
    if g[b, F_WD4G]:
        pending = g[b, F_PENDING]
        judged = pending if cfg[CFG_WHOLE] != 0 else min(4, pending)  # "last": only the last Draw Four
        _draw(st, b, offender, judged)
        g[b, F_PENDING] = pending - judged
        g[b, F_WD4P] = -1
        if g[b, F_PENDING]:  # "last": the challenger still takes the rest of the stack
            _take_pending(st, b, p)
            hist[b, p, H_LAST] = LAST_CHALLENGED
            _start_turn(st, cfg, b, _next(g, cfg, b, p))
        else:
            g[b, F_PKIND] = NO_PENDING
            hist[b, p, H_LAST] = LAST_CHALLENGED
            _start_turn(st, cfg, b, p)
    else:
        g[b, F_PENDING] += 2
        _take_pending(st, b, p)
        hist[b, p, H_LAST] = LAST_CHALLENGED
        _start_turn(st, cfg, b, _next(g, cfg, b, p))


# ====================================================================== decisions, phase by phase
@njit_inline
def _emit_plays(k, out, c):
    """The play ids of kind ``k`` (one, or one per colour for a wild) appended at ``out[c]``."""
    if k < NCOL:
        out[c] = k
        return c + 1
    base = A.PLAY_WILD + NCOLORS * (k - NCOL)
    for col in range(NCOLORS):
        out[c + col] = base + col
    return c + NCOLORS


@njit_inline
def _emit_bits(bits, out, c):
    """The play ids of every kind in ``bits``, ascending."""
    while bits:
        c = _emit_plays(np.int64(trailing_zeros(bits)), out, c)
        bits &= bits - 1
    return c


@njit_inline
def _may_call_uno(st, cfg, b, p):
    """Engine._may_call_uno"""
    return cfg[CFG_EXPLICIT] != 0 and st[3][b, p] == 2 and st[4][b, p] == 0


# --- TURN: play a matching card, draw, ask, call UNO; or stack / take a pending penalty
@njit_inline
def legal_turn(st, cfg, b, p, out):
    """Engine._legal_turn"""
    g, held, hsize, disc = st[0], st[2], st[3], st[8]
    c = 0
    color = g[b, F_COLOR]
    if g[b, F_PENDING]:
        if _can_stack(st, cfg, b, p):
            c = _emit_bits(held[b, p] & STACK_BITS[g[b, F_PKIND]], out, c)
    else:
        bits = held[b, p] & PLAYABLE[color, _top_face(g, disc, b)]
        if (bits & WD4_BIT) != 0 and cfg[CFG_BLUFF] == 0 and (held[b, p] & COLOR_BITS[color]) != 0:
            bits &= ~WD4_BIT
        c = _emit_bits(bits, out, c)
    out[c] = A.DRAW
    c += 1
    if _may_call_uno(st, cfg, b, p):
        out[c] = A.UNO
        c += 1
    if cfg[CFG_GIVING] and not g[b, F_PENDING] and not g[b, F_ASKED]:
        for q in range(cfg[CFG_N]):
            if q != p and hsize[b, q] >= 2:
                out[c] = A.ASK
                c += 1
                break
    return c


@njit_inline
def apply_turn(st, ru, b, p, a):
    """Engine._apply_turn"""
    g, hsize, queue = st[0], st[3], st[13]
    cfg = ru[0]
    if a < A.DRAW:
        _play_action(st, ru, b, p, a)
    elif a == A.DRAW:
        if g[b, F_PENDING]:
            _take_pending(st, b, p)
            _start_turn(st, cfg, b, _next(g, cfg, b, p))
        else:
            _draw_for_turn(st, cfg, b, p)
    else:  # ASK
        g[b, F_ASKED] = 1
        n = cfg[CFG_N]
        m = 0
        for i in range(1, n):
            q = (p + g[b, F_DIR] * i) % n
            if hsize[b, q] >= 2:
                queue[b, m] = q
                m += 1
        _open_window(st, b, OFFER, m)


@njit_inline
def _play_action(st, ru, b, p, a):
    """A play id: ``_play`` of its kind and colour (``A.PLAYED_KIND``, ``A.PLAYED_COLOR``)."""
    if a < A.PLAY_WILD:
        _play(st, ru, b, p, a, -1)
    else:
        _play(st, ru, b, p, NCOL + (a - A.PLAY_WILD) // NCOLORS, (a - A.PLAY_WILD) % NCOLORS)


# --- DRAWN: play the card just drawn (or taken), or keep it
@njit_inline
def legal_drawn(st, cfg, b, p, out):
    """Engine._legal_drawn"""
    g = st[0]
    c = _emit_plays(np.int64(g[b, F_DRAWN]), out, 0)
    out[c] = A.DRAW if g[b, F_FROMOFFER] else A.PASS
    c += 1
    if _may_call_uno(st, cfg, b, p):
        out[c] = A.UNO
        c += 1
    return c


@njit_inline
def apply_drawn(st, ru, b, p, a):
    """Engine._apply_drawn"""
    cfg = ru[0]
    if a < A.DRAW:
        _play_action(st, ru, b, p, a)
    elif a == A.DRAW:  # a taken offer not played: draw by the draw rule
        _draw_for_turn(st, cfg, b, p)
    else:  # PASS: keep the drawn card
        _start_turn(st, cfg, b, _next(st[0], cfg, b, p))


# --- CHALLENGE: the victim of a Wild Draw Four challenges, takes it, or stacks one
@njit_inline
def legal_challenge(st, cfg, b, p, out):
    """Engine._legal_challenge"""
    c = 0
    stack = cfg[CFG_STACKING] != 0 and _can_stack(st, cfg, b, p)
    if stack:
        c = _emit_plays(np.int64(WD4), out, c)
    out[c] = A.DRAW
    out[c + 1] = A.CHALLENGE
    c += 2
    if stack and _may_call_uno(st, cfg, b, p):
        out[c] = A.UNO
        c += 1
    return c


@njit
def apply_challenge(st, ru, b, p, a):
    """Engine._apply_challenge"""
    cfg = ru[0]
    if a < A.DRAW:
        _play_action(st, ru, b, p, a)
    elif a == A.DRAW:
        _take_pending(st, b, p)
        st[12][b, p, H_LAST] = LAST_DECLINED
        _start_turn(st, cfg, b, _next(st[0], cfg, b, p))
    else:
        _challenge(st, cfg, b, p)


# --- COLOR: the colour of a wild turned up as the first card
@njit_inline
def legal_color(st, cfg, b, p, out):
    """Engine._legal_color"""
    for col in range(NCOLORS):
        out[col] = A.COLOR + col
    return NCOLORS


@njit
def apply_color(st, ru, b, p, a):
    """Engine._apply_color"""
    g, disc = st[0], st[8]
    cfg = ru[0]
    g[b, F_COLOR] = a - A.COLOR
    top = _top(g, disc, b)
    if top == WD4 or top == SEWERS:  # a first Draw Four / SEWERS hits the first player
        g[b, F_PENDING] = 4 if top == WD4 else 1
        g[b, F_PKIND] = PENDING_DRAW4 if top == WD4 else PENDING_SEWERS
        g[b, F_WD4P] = -1
        _face_penalty(st, cfg, b, p)
    else:
        _start_turn(st, cfg, b, p)


# --- DISCARD: villains discarded after a Team Attack (up to three), or stop
@njit_inline
def legal_discard(st, cfg, b, p, out):
    """Engine._legal_discard"""
    held = st[2]
    out[0] = A.PASS
    c = 1
    if _may_call_uno(st, cfg, b, p):
        out[c] = A.UNO
        c += 1
    bits = held[b, p] & cfg[CFG_VILLAIN]
    while bits:
        out[c] = A.DISCARD + np.int64(trailing_zeros(bits))
        c += 1
        bits &= bits - 1
    return c


@njit
def apply_discard(st, ru, b, p, a):
    """Engine._apply_discard"""
    g, held, hsize, disc, played, hist = st[0], st[2], st[3], st[8], st[9], st[12]
    cfg = ru[0]
    if a == A.PASS:
        _after_play(st, ru, b)
        return
    k = a - A.DISCARD
    _remove(st, b, p, k)
    hist[b, p, H_DREW_ON_COLOR + k // NF] = 0  # a villain is a coloured card
    hist[b, p, H_DREW_ON_FACE + k % NF] = 0
    ln = g[b, F_DISCLEN]
    disc[b, ln] = disc[b, ln - 1]
    disc[b, ln - 1] = k
    g[b, F_DISCLEN] = ln + 1
    played[b, k] += 1
    g[b, F_DLEFT] -= 1
    if hsize[b, p] == 0:
        _end_round(st, ru, b, p)
    elif g[b, F_DLEFT] == 0 or (held[b, p] & cfg[CFG_VILLAIN]) == 0:
        _after_play(st, ru, b)


# --- CATCH (window): a player did not call UNO; each other player catches or passes
@njit_inline
def legal_catch(st, cfg, b, p, out):
    """Engine._legal_catch"""
    out[0] = A.PASS
    out[1] = A.CATCH
    return 2


@njit
def apply_catch(st, ru, b, p, a):
    """Engine._apply_catch"""
    _answer(st, ru, b, a)


# --- JUMP (window): a player holding a card identical to the top jumps in or passes
@njit_inline
def legal_jump(st, cfg, b, p, out):
    """Engine._legal_jump"""
    g = st[0]
    c = _emit_plays(_top(g, st[8], b), out, 0)
    out[c] = A.PASS
    c += 1
    if _may_call_uno(st, cfg, b, p) and not st[15][b, g[b, F_QPOS]]:  # a call here stays private
        out[c] = A.UNO
        c += 1
    return c


@njit
def apply_jump(st, ru, b, p, a):
    """Engine._apply_jump"""
    _answer(st, ru, b, a)


# --- OFFER (window): giving cards: each other player with 2+ cards offers one or passes
@njit_inline
def legal_offer(st, cfg, b, p, out):
    """Engine._legal_offer"""
    out[0] = A.PASS
    c = 1
    bits = st[2][b, p]
    while bits:
        out[c] = A.OFFER + np.int64(trailing_zeros(bits))
        c += 1
        bits &= bits - 1
    return c


@njit
def apply_offer(st, ru, b, p, a):
    """Engine._apply_offer"""
    _answer(st, ru, b, a)


# --- TAKE: giving cards: the asker takes one offer or passes (then draws)
@njit_inline
def legal_take(st, cfg, b, p, out):
    """Engine._legal_take"""
    offers = st[16]
    n = cfg[CFG_N]
    out[0] = A.PASS
    c = 1
    for i in range(1, n):
        if offers[b, (p + i) % n] >= 0:
            out[c] = A.TAKE + i - 1
            c += 1
    return c


@njit
def apply_take(st, ru, b, p, a):
    """Engine._apply_take"""
    g, hist, offers = st[0], st[12], st[16]
    cfg = ru[0]
    if a == A.PASS:
        _draw_for_turn(st, cfg, b, p)
        return
    n = cfg[CFG_N]
    giver = (p + a - A.TAKE + 1) % n
    k = np.int64(offers[b, giver])
    _remove(st, b, giver, k)
    _add(st, b, p, k)
    _clear_drew_on(hist, b, p)
    _reveal(st, b, p, k)
    offers[b, :] = -1
    if _playable(st, cfg, b, p, k):
        g[b, F_PHASE] = DRAWN
        g[b, F_DRAWN] = k
        g[b, F_FROMOFFER] = 1
    else:
        _draw_for_turn(st, cfg, b, p)


# --- windows: answers are stored and resolved when everyone has answered
@njit
def _answer(st, ru, b, a):
    """Engine._answer"""
    g, answers = st[0], st[14]
    if a != A.PASS:
        answers[b, g[b, F_QPOS]] = a
    _next_in_window(st, ru, b)


@njit
def _next_in_window(st, ru, b):
    """Engine._next_in_window"""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, hist, queue, answers, juno, offers = st
    cfg = ru[0]
    g[b, F_QPOS] += 1
    qlen = g[b, F_QLEN]
    if g[b, F_QPOS] < qlen:
        g[b, F_ACTOR] = queue[b, g[b, F_QPOS]]
        return
    _close_window(g, b)
    phase = g[b, F_PHASE]
    if phase == CATCH:
        caught = False
        for i in range(qlen):
            if answers[b, i] >= 0:
                caught = True
        if caught:
            _draw(st, b, g[b, F_OFFENDER], cfg[CFG_PENALTY])
        g[b, F_OFFENDER] = -1
        _open_jump(st, ru, b)
    elif phase == JUMP:
        jumps = 0
        for i in range(qlen):
            if answers[b, i] >= 0:
                jumps += 1
        if jumps == 0:
            _resolve(st, cfg, b)
            return
        pick = R.bounded(rng, b, jumps) if cfg[CFG_JUMP_RANDOM] else 0
        at = 0
        for i in range(qlen):
            if answers[b, i] >= 0:
                if pick == 0:
                    at = i
                    break
                pick -= 1
        jumper = np.int64(queue[b, at])
        if juno[b, at]:  # the jumper's UNO call counts; the others' lapse
            uno[b, jumper] = 1
        _play_action(st, ru, b, jumper, np.int64(answers[b, at]))
    else:  # OFFER
        asker = g[b, F_TURN]
        any_offer = False
        for i in range(qlen):
            if answers[b, i] >= 0:
                q = queue[b, i]
                k = answers[b, i] - A.OFFER
                offers[b, q] = k
                # an offer shows a card already in q's hand: at least one k is known
                for o in range(known.shape[1]):
                    if known[b, o, q, k] < 1:
                        known[b, o, q, k] = 1
                known[b, q, q, k] = 0
                g[b, F_KNOWNANY] = 1
                any_offer = True
        if any_offer:
            g[b, F_PHASE] = TAKE
            g[b, F_ACTOR] = asker
        else:
            _draw_for_turn(st, cfg, b, asker)


# --- dispatch (Engine.legal_actions / Engine.step)
@njit_inline
def legal_into(st, cfg, b, out):
    """Engine.legal_actions for game ``b``, written sorted into ``out``; the count (0 when over)."""
    g = st[0]
    ph = g[b, F_PHASE]
    p = g[b, F_ACTOR]
    if ph == TURN:
        return legal_turn(st, cfg, b, p, out)
    if ph == DRAWN:
        return legal_drawn(st, cfg, b, p, out)
    if ph == CHALLENGE:
        return legal_challenge(st, cfg, b, p, out)
    if ph == COLOR:
        return legal_color(st, cfg, b, p, out)
    if ph == DISCARD:
        return legal_discard(st, cfg, b, p, out)
    if ph == CATCH:
        return legal_catch(st, cfg, b, p, out)
    if ph == JUMP:
        return legal_jump(st, cfg, b, p, out)
    if ph == OFFER:
        return legal_offer(st, cfg, b, p, out)
    if ph == TAKE:
        return legal_take(st, cfg, b, p, out)
    return 0  # OVER: no decision


@njit_inline
def step_one(st, ru, b, a):
    """Engine.step for a legal action ``a`` of game ``b``: a UNO call here, the rest by phase."""
    g = st[0]
    g[b, F_STEPS] += 1
    p = g[b, F_ACTOR]
    ph = g[b, F_PHASE]
    if a == A.UNO:  # Engine._call_uno
        if ph == JUMP:  # kept with the hidden answers: a public flag would show who was asked
            st[15][b, g[b, F_QPOS]] = 1
        else:
            st[4][b, p] = 1
    elif ph == TURN:
        apply_turn(st, ru, b, p, a)
    elif ph == DRAWN:
        apply_drawn(st, ru, b, p, a)
    elif ph == CHALLENGE:
        apply_challenge(st, ru, b, p, a)
    elif ph == COLOR:
        apply_color(st, ru, b, p, a)
    elif ph == DISCARD:
        apply_discard(st, ru, b, p, a)
    elif ph == CATCH:
        apply_catch(st, ru, b, p, a)
    elif ph == JUMP:
        apply_jump(st, ru, b, p, a)
    elif ph == OFFER:
        apply_offer(st, ru, b, p, a)
    elif ph == TAKE:
        apply_take(st, ru, b, p, a)


# ====================================================================== batch kernels
@njit
def new_episodes(st, ru, active, orders, has_order, dealers):
    """Engine.new_state for every active game: fresh episode fields, dealer (drawn if < 0), deal."""
    g, scores, rpoints, rng, hist = st[0], st[5], st[6], st[11], st[12]
    n = ru[0][CFG_N]
    for b in range(g.shape[0]):
        if not active[b]:
            continue
        g[b, :] = 0
        g[b, F_COLOR] = -1
        g[b, F_DIR] = 1
        g[b, F_PKIND] = NO_PENDING
        g[b, F_LAST] = -1
        g[b, F_WD4P] = -1
        g[b, F_WD4COLOR] = -1
        g[b, F_DRAWN] = -1
        g[b, F_OFFENDER] = -1
        g[b, F_RWINNER] = -1
        g[b, F_WINNER] = -1
        scores[b] = 0
        rpoints[b] = 0
        dealer = dealers[b]
        if dealer < 0:
            dealer = R.bounded(rng, b, n)
        _deal(st, ru, b, orders[b], has_order[b], dealer)


@njit
def first_illegal(st, cfg, actions, active, scratch):
    """Index of the first active game whose action is not legal (-1: all legal)."""
    out = scratch[0]
    for b in range(active.shape[0]):
        if not active[b]:
            continue
        c = legal_into(st, cfg, b, out)
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
def step_batch(st, ru, actions, active):
    """Apply ``actions[b]`` (legal: check with ``first_illegal``) to every active game."""
    for b in range(active.shape[0]):
        if active[b]:
            step_one(st, ru, b, np.int64(actions[b]))


@njit
def masks_batch(st, cfg, active, masks, scratch):
    """Action masks (int8, one row a game; zero rows for inactive or finished games)."""
    out = scratch[0]
    for b in range(active.shape[0]):
        masks[b, :] = 0
        if not active[b]:
            continue
        c = legal_into(st, cfg, b, out)
        for i in range(c):
            masks[b, out[i]] = 1


@njit
def legal_one(st, cfg, b, out):
    """legal_into for one game (called from Python)."""
    return legal_into(st, cfg, b, out)


@njit
def legal_lists(st, cfg, active, out, counts):
    """Legal action ids per game into ``out[b, :counts[b]]`` (sorted)."""
    for b in range(active.shape[0]):
        counts[b] = legal_into(st, cfg, b, out[b]) if active[b] else 0


@njit
def observe_batch(st, cfg, template, seats, active, obs):
    """ObservationEncoder.encode of ``seats[b]`` for every active game into ``obs[b]``: the first
    ``obs.shape[1]`` entries (``V0_SIZE``: layout 0; ``OBS_SIZE``: layout 1, with HISTORY and
    WD4_COLOR)."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, hist, queue, answers, juno, offers = st
    n = cfg[CFG_N]
    explicit = cfg[CFG_EXPLICIT] != 0
    multi = cfg[CFG_EPISODE] != EPISODE_ROUND
    giving = cfg[CFG_GIVING] != 0
    history = obs.shape[1] > O.V0_SIZE
    deck_size = np.float64(cfg[CFG_DECK])
    target = np.float64(cfg[CFG_TARGET])
    width = obs.shape[1]
    for b in range(g.shape[0]):
        if not active[b]:
            continue
        p = seats[b]
        row = obs[b]
        for i in range(width):
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
            row[O.PENDING_KIND + g[b, F_PKIND]] = 1.0
        if g[b, F_DIR] < 0:
            row[O.DIRECTION] = 1.0
        row[O.DRAW_SIZE] = g[b, F_DRAWLEN] / deck_size
        row[O.TURN + (g[b, F_TURN] - p) % n] = 1.0
        if explicit:
            row[O.SELF] = uno[b, p]
        if multi:
            row[O.SELF_SCORE] = scores[b, p] / target
        known_any = g[b, F_KNOWNANY] != 0
        for j in range(1, n):
            q = (p + j) % n
            base = O.OPPONENTS + (j - 1) * O.OPP_FIELDS
            row[base + O.OPP_HAND_SIZE] = hsize[b, q]
            if explicit:
                row[base + O.OPP_UNO] = uno[b, q]
            if multi:
                row[base + O.OPP_SCORE] = scores[b, q] / target
            if known_any:
                for k in range(NK):
                    row[base + O.OPP_KNOWN + k] = known[b, p, q, k]
            if giving and offers[b, q] >= 0:
                row[base + O.OPP_OFFER + offers[b, q]] = 1.0
            if history:
                base = O.HISTORY + (j - 1) * O.HIST_FIELDS
                for i in range(H_DREW_ON_COLOR, H_RECEIVED + 1):
                    row[base + O.HIST_DREW_ON_COLOR + i - H_DREW_ON_COLOR] = hist[b, q, i]
                row[base + O.HIST_LAST + hist[b, q, H_LAST]] = 1.0
                if hist[b, q, H_LEFT] >= 0:
                    row[base + O.HIST_LEFT + hist[b, q, H_LEFT]] = 1.0
        if history and cfg[CFG_CHALLENGE] != 0 and g[b, F_WD4P] >= 0 and g[b, F_WD4COLOR] >= 0:
            row[O.WD4_COLOR + g[b, F_WD4COLOR]] = 1.0


@njit
def global_state_batch(st, cfg, template, seats, active, out):
    """GlobalStateEncoder.encode of every active game seen from ``seats[b]`` (seat 0: absolute
    seats) into ``out[b]``: every hand, the DRAW pile's counts, the public table."""
    g, hands, held, hsize, uno, scores, rpoints, draw, disc, played, known, rng, hist, queue, answers, juno, offers = st
    n = cfg[CFG_N]
    target = np.float64(cfg[CFG_TARGET])
    for b in range(g.shape[0]):
        if not active[b]:
            continue
        p = seats[b]
        row = out[b]
        for i in range(row.shape[0]):
            row[i] = template[i]
        for j in range(n):  # slot j: the seat j places to p's left
            q = (p + j) % n
            for k in range(NK):
                row[G.HANDS + j * NK + k] = hands[b, q, k]
            row[G.SIZES + j] = hsize[b, q]
            row[G.SCORES + j] = scores[b, q] / target
            row[G.UNO + j] = uno[b, q]
        for i in range(g[b, F_DRAWLEN]):
            row[G.DRAW + draw[b, i]] += 1.0
        row[G.TOP + _top(g, disc, b)] = 1.0
        if g[b, F_COLOR] >= 0:
            row[G.COLOR + g[b, F_COLOR]] = 1.0
        row[G.PHASE + g[b, F_PHASE]] = 1.0
        if g[b, F_ACTOR] >= 0:
            row[G.ACTOR + (g[b, F_ACTOR] - p) % n] = 1.0
        row[G.TURN + (g[b, F_TURN] - p) % n] = 1.0
        if g[b, F_PENDING]:
            row[G.PENDING] = g[b, F_PENDING]
            row[G.PENDING + 1 + g[b, F_PKIND]] = 1.0
        if g[b, F_DIR] < 0:
            row[G.DIRECTION] = 1.0
        for k in range(NK):
            row[G.PLAYED + k] = played[b, k]


@njit
def uniform_actions(st, cfg, active, prng, actions, scratch):
    """A uniformly random legal action per active game (``prng``: one PCG64 row a game)."""
    out = scratch[0]
    for b in range(active.shape[0]):
        if not active[b]:
            continue
        c = legal_into(st, cfg, b, out)
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
def _coin(prng, b):
    """True with probability 1/2 (``py.random() < 0.5``)."""
    return R.next32(prng, b) < np.uint64(0x80000000)


@njit
def _random_bot_one(st, cfg, b, prng, legal, plays, opts):
    """The ``random`` bot's move (``bots.random_move``) for the actor of game ``b`` (the same
    choice distribution), from ``prng``."""
    c = legal_into(st, cfg, b, legal)
    if c == 1:
        return legal[0]
    uno_at = -1
    for i in range(c):
        if legal[i] == A.UNO:
            uno_at = i
    if uno_at >= 0:  # call UNO or not, uniformly
        if _coin(prng, b):
            return A.UNO
        for i in range(uno_at, c - 1):
            legal[i] = legal[i + 1]
        c -= 1
    ph = st[0][b, F_PHASE]
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
    if ph == JUMP or ph == OFFER:  # jump in (offer a card) or pass, uniformly
        if _coin(prng, b):
            return A.PASS
        if ph == JUMP:
            return _random_card(plays, m, prng, b, opts)
        return legal[1 + R.bounded(prng, b, c - 1)]  # the offers follow PASS
    return legal[R.bounded(prng, b, c)]  # colour, discard, catch, take


@njit
def random_bot_actions(st, cfg, active, prng, actions, scratch):
    """The ``random`` bot (uno_env.agents.bots.RandomAgent) for the actor of every active game."""
    for b in range(active.shape[0]):
        if active[b]:
            actions[b] = _random_bot_one(st, cfg, b, prng, scratch[0], scratch[1], scratch[2])


@njit
def random_bots_until(st, ru, active, seats, max_steps, prng, scratch):
    """In every active game, the ``random`` bot plays every seat but ``seats[b]`` until that seat
    decides, the game ends or ``max_steps`` decisions are reached (one call, no Python loop)."""
    g = st[0]
    cfg = ru[0]
    for b in range(active.shape[0]):
        if not active[b]:
            continue
        while g[b, F_OVER] == 0 and g[b, F_ACTOR] != seats[b] and g[b, F_STEPS] < max_steps:
            a = _random_bot_one(st, cfg, b, prng, scratch[0], scratch[1], scratch[2])
            step_one(st, ru, b, a)
