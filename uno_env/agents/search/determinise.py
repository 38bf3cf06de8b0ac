"""Determinisation for the ``search`` bot: random deals of the cards hidden from a player,
consistent with its observation and with what it read about its opponents.

:func:`template` rebuilds, from a decoded observation, what every deal of one decision
shares (an engine state with the player at seat 0, the unseen cards, per opponent how many
cards to deal it and the evidence that it lacks each colour or face); :func:`deal` samples
one deal on it, and :func:`settle` finishes a deal made by any other means. How the cards
are dealt is described in :mod:`uno_env.agents.search` ("Determinise"); every deal is a
:meth:`~uno_env.game.engine.State.clone` of the template's state.
:func:`unseen_counts` counts the cards a player has not seen (what the deals share out).
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import observation as O
from uno_env.agents.view import View
from uno_env.game.engine import CHALLENGE, COLOR_BITS, DRAWN, State, new_history

NCOLORS, NFACES = C.NUM_COLORS, C.NUM_FACES
_COLOR_OF, _FACE_OF = C.COLOR_OF, C.FACE_OF
Evidence = Sequence[float] | None  # per colour (or face): evidence that a hand holds none; None: no evidence


@dataclasses.dataclass(slots=True)
class Template:
    """What every deal of one decision shares."""

    state: State  # my hand (seat 0), the table, the phase; other hands hold only their known cards
    pool: np.ndarray  # the unseen cards, one entry per card (kinds)
    deal: list[tuple[int, Evidence, Evidence]]  # per opponent: cards to deal it, colour voids, face voids
    previous_color: int  # the colour before a pending Wild Draw Four (-1: unknown)
    sizes: list[int]  # hand sizes, seat 0 first


def unseen_counts(v: View, deck: Sequence[int]) -> list[int]:
    """Per card kind, the cards of ``deck`` that decision ``v`` has not seen: not played, not
    in my hand, not among an opponent's known cards. Not clipped: a count below 0 means the
    observation holds more of a kind than ``deck`` (rules that do not match it)."""
    unseen = [d - p - h for d, p, h in zip(deck, v.played, v.hand)]
    if v.known_any:
        for row in v.known:
            unseen = [x - y for x, y in zip(unseen, row)]
    return unseen


def template(v: View, rules, deck: Sequence[int], voids: Sequence[tuple[Evidence, Evidence]],
             previous_color: int = -1) -> Template | None:
    """The template of the deals of decision ``v`` (decoded with its mask) under ``rules``
    (``deck``: its card counts); ``voids``: per opponent, the evidence that it lacks each
    colour and each face (either None: none); ``previous_color``: the colour before a pending
    Wild Draw Four if my memory knows it (the observation's, where it shows it, comes
    first). The player ``j`` seats to my left is seat ``j``. None where the
    observation does not rebuild a state (or the hidden cards cannot fill the hands)."""
    n = v.num_players
    hand, known = v.hand, v.known
    unseen = unseen_counts(v, deck)
    pool = np.array([k for k in range(C.NUM_KINDS) for _ in range(max(0, unseen[k]))], np.int64)
    hands = np.zeros((n, C.NUM_KINDS), np.int16)
    hands[0] = hand
    if v.known_any:
        hands[1:] = known
    played = v.played
    discard = [k for k in range(C.NUM_KINDS) for _ in range(played[k])]
    if v.top not in discard:
        return None
    discard.remove(v.top)
    discard.append(v.top)
    t = State(n=n, rng=None, hands=hands, held=[0] * n, hand_size=[0] * n, draw_pile=[],
              discard=discard, played=np.array(played, np.int16),
              known=np.zeros((n, n, C.NUM_KINDS), np.int16), history=new_history(n),
              offers=[-1] * n, uno_called=[False] * n, scores=[0] * n, round_points=[0] * n)
    t.history[1:], t.wd4_color = O.decode_history(v.obs, n)  # the public history I saw
    if v.known_any:
        t.known[0, 1:] = known
        t.known_any = True
    t.color, t.direction, t.turn, t.actor, t.phase = v.color, v.direction, v.turn_offset, 0, v.phase
    t.pending, t.pending_kind = v.pending, v.pending_kind
    if rules.giving:
        t.asked = A.ASK not in v.legal
        t.offers = [-1] + list(v.offers)  # offers stay open after a pass until the turn ends
    if v.phase == DRAWN:
        plays = [a for a in v.legal if a < A.PLAY_END]
        if not plays:
            return None
        t.drawn = A.PLAYED_KIND[plays[0]]
        t.drawn_from_offer = A.DRAW in v.legal
    if v.phase == CHALLENGE:
        t.wd4_player = (0 - v.direction) % n
        if t.wd4_color >= 0:  # the observation shows the colour before the Draw Four
            previous_color = t.wd4_color
    sizes = [v.hand_size] + [o.hand_size for o in v.opponents]
    t.uno_called = [v.uno_called] + [o.uno_called for o in v.opponents] \
        if rules.uno_call == "explicit" else [x == 1 for x in sizes]
    deal = []
    for j, opp in enumerate(v.opponents):
        need = opp.hand_size - int(hands[j + 1].sum())
        if need < 0:
            return None
        deal.append((need, *voids[j]))
    if sum(d[0] for d in deal) > len(pool):
        return None
    return Template(t, pool, deal, previous_color, sizes)


def deal(tp: Template, rng: np.random.Generator) -> State:
    """One deal of the hidden cards on ``tp``: each opponent gets ``need`` unseen cards, a
    colour (face) it is believed to lack left out with the probability of that evidence
    (relaxed when the rest cannot fill the hand); the rest, shuffled, is the DRAW pile."""
    s = tp.state.clone()
    order = rng.permutation(tp.pool).tolist()
    hands = s.hands
    for j, (need, pc, pf) in enumerate(tp.deal):
        if need == 0:
            continue
        excl = 0  # bits 0-3: colours left out of this hand; bits 4-16: faces
        if pc is not None:
            u = rng.random(NCOLORS + NFACES).tolist()
            for c in range(NCOLORS):
                if pc[c] and u[c] < pc[c]:
                    excl |= 1 << c
            if pf is not None:
                for f in range(NFACES):
                    if pf[f] and u[NCOLORS + f] < pf[f]:
                        excl |= 1 << (NCOLORS + f)
        if excl:
            take, rest = [], []
            for k in order:
                c = _COLOR_OF[k]
                left_out = c >= 0 and (excl >> c & 1 or excl >> (NCOLORS + _FACE_OF[k]) & 1)
                if len(take) < need and not left_out:
                    take.append(k)
                else:
                    rest.append(k)
            if len(take) < need:  # the voids cannot all hold: relax them
                short = need - len(take)
                take += rest[:short]
                rest = rest[short:]
            rng.shuffle(rest)  # the cards left out came first: mix them back
            order = rest
        else:
            take, order = order[:need], order[need:]
        row = hands[j + 1]
        for k in take:
            row[k] += 1
    s.draw_pile = order
    return settle(s, tp, rng)


def settle(s: State, tp: Template, rng: np.random.Generator) -> State:
    """Finish a deal on ``tp`` whose hands and DRAW pile ``s`` holds: the engine's per-hand
    bookkeeping (which kinds each hand holds, the hand sizes) and, with a Wild Draw Four
    pending, whether its player was guilty (its hand holds the colour before it; a random
    colour where that is unknown). Every deal ends here, :func:`deal`'s and any other."""
    s.held = [sum(1 << k for k in np.flatnonzero(s.hands[q]).tolist()) for q in range(s.n)]
    s.hand_size = list(tp.sizes)
    if s.phase == CHALLENGE:  # guilty if that hand holds the colour before the Draw Four
        prev = tp.previous_color
        if prev < 0:
            prev = int(rng.integers(NCOLORS))
        s.wd4_guilty = bool(s.held[s.wd4_player] & COLOR_BITS[prev])
    return s
