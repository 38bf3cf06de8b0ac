"""Card counting and opponent modelling for scripted bots, from public information only.

A :class:`Beliefs` object belongs to one player (one agent instance). It reads the decoded
observation (:class:`uno_env.agents.view.View`) and remembers a little of its own past
decisions, never hidden state. Per decision, in this order::

    beliefs.observe(view)        # what happened since my last decision (updates the void beliefs)
    ... beliefs.p_block(view, offset, color, face), beliefs.shares(view), ...
    beliefs.remember(view, action)   # the state right after my action

What it knows and believes:

* **Unseen cards** (:meth:`Beliefs.unseen`): per card kind, deck - played since the last
  reshuffle - my hand - cards known to be in other hands (shown by a challenge, an offer,
  SEWERS). These are in other hands or in DRAW, each place equally likely.
* **Colour shares** (:meth:`Beliefs.shares`): the share of each colour among the unseen
  cards (wilds count in the total).
* **Voids** (:meth:`Beliefs.observe`): per opponent and colour, evidence that it holds *no*
  card of that colour beyond what counting says, read from its draws and plays since my
  last decision (classic and TMNT rules without stacking, jump-in, SEVEN slap or giving,
  where every card played between two of my decisions is attributable):

  - a player who drew while the colour stayed ``c`` holds no ``c`` (it would have played);
  - with two players, one who left colour ``c`` for another without drawing probably holds
    none (odds factor ``switch_odds`` on the counting prior);
  - a player who played a ``c`` card may hold more; every card it receives (a draw, a
    Draw Two's penalty) may be any colour, which weakens each void by the chance that the
    new card is not of that colour; the cards my Wild Draw Four or SEWERS makes it take
    are not read at all (their number depends on a challenge).

* **Per opponent** (:meth:`Beliefs.opponent`): P(no card of colour ``c``) for each colour,
  combining its void and counting over its cards that are not known; its known cards.
* **P(block)** (:meth:`Beliefs.p_block`): the chance that an opponent cannot play on a
  given colour and face (it must draw).
* **Inputs of a challenge** (:meth:`Beliefs.previous_color`,
  :meth:`Beliefs.p_held_previous_color`): the colour current before a Wild Draw Four
  (from my memory and the cards played since) and the chance that its player held a card
  of it, i.e. that the Wild Draw Four was illegal.

Results are cached per view object (one decision), so the per-kind counting and the model
of an opponent are computed at most once per decision.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import observation as O
from uno_env.game.rules import Rules
from uno_env.agents.view import View

NCOLORS, NF = C.NUM_COLORS, C.NUM_FACES
_PLAYED_SLICE = slice(O.PLAYED, O.PLAYED + C.NUM_KINDS)
_HAND_SLICE = slice(O.HAND, O.HAND + C.NUM_KINDS)
_COLOR_OF, _FACE_OF = C.COLOR_OF, C.FACE_OF
_PLAYED_KIND = A.PLAYED_KIND
_KIND_OF = C.KIND_OF
# card kinds -> (4 colours, 13 faces, wilds): one matrix product sums counts per colour and face
_AGG = np.zeros((C.NUM_KINDS, NCOLORS + NF + 1), np.float32)
for _k in range(C.NUM_COLORED):
    _AGG[_k, _COLOR_OF[_k]] = _AGG[_k, NCOLORS + _FACE_OF[_k]] = 1.0
_AGG[C.WILD_SLICE, -1] = 1.0
_NO_VOID = (0.0,) * NCOLORS
_NCOL = C.NUM_COLORED


class Counting(NamedTuple):
    """Card counting over the unseen cards (:meth:`Beliefs.counting`)."""

    shares: list  # share of each colour among the unseen cards
    unseen: list | None  # unseen cards per kind; None when no card is known to be in a hand
    #                      (then a kind's count is deck - played - my hand)
    total: float  # unseen cards in all (1.0 if none)
    per_color: list  # unseen cards of each colour
    per_face: list  # unseen coloured cards of each face
    wilds: float  # unseen wild cards


class OpponentModel(NamedTuple):
    """What I believe about one opponent (:meth:`Beliefs.opponent`)."""

    p_no: list  # per colour: P(it holds no card of that colour)
    unknown: int  # cards in its hand that are not known to me
    known: list  # counts per kind of its cards known to me
    color_bits: int  # bit c set: it holds a known card of colour c
    face_bits: int  # bit f set: it holds a known card of face f
    known_wild: bool  # it holds a known wild


class Beliefs:
    """One player's card counting and opponent model (see the module docstring).

    ``track``: read voids from opponents' draws and plays (off: counting only).
    ``switch_odds``: odds factor for "holds no colour ``c``" when, with two players, the
    opponent left colour ``c`` for another without drawing.
    """

    def __init__(self, rules: Rules, track: bool = True, switch_odds: float = 2.0):
        self.track = track
        self.switch_odds = switch_odds
        self.deck = rules.deck_counts()
        self._deck_agg = np.array(self.deck, np.float32) @ _AGG
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new episode)."""
        self._mem_color = -1  # current colour right after my last action
        self._mem_played: np.ndarray | None = None  # played counts right after my last action
        self._snap = None  # (played after, colour after, opponent sizes, penalty to next, next offset)
        self.void: list[list[float]] | None = None  # per opponent, per colour: evidence of no card
        self._count_key = None
        self._count = None
        self._model_cache = None

    # ------------------------------------------------------------------ memory
    def remember(self, v: View, action: int) -> None:
        """The colour and played counts right after my ``action``, and what it does to the next
        player (for challenge judgements and for reading opponents' draws and plays)."""
        penalty = 0
        if action < A.PLAY_END:
            k = _PLAYED_KIND[action]
            color = _COLOR_OF[k]
            if color < 0:  # a wild
                color = A.played_color(action)
                if k != C.WILD and k != C.TEAM_ATTACK:
                    penalty = -1  # Draw Four / SEWERS: the next player's count is not readable
            elif _FACE_OF[k] == C.FACE_DRAW2:
                penalty = C.DRAW2_CARDS + v.pending
        elif action in A.COLOR_IDS:
            color = A.chosen_color(action)
        else:
            color = v.color
        played_np = v.obs[_PLAYED_SLICE].copy()
        if action < A.PLAY_END:
            played_np[_PLAYED_KIND[action]] += 1
        self._mem_played, self._mem_color = played_np, color
        self._snap = (played_np, color, [o.hand_size for o in v.opponents], penalty, v.next_offset)

    def observe(self, v: View) -> None:
        """Update the voids from what opponents did since my last decision.

        ``self.void[j][c]`` is evidence that opponent ``j + 1`` seats to my left holds no
        card of colour ``c`` beyond what card counting alone says (see :meth:`opponent`).
        """
        m = v.num_players - 1
        void = self.void
        if void is None or len(void) != m:
            void = self.void = [[0.0] * NCOLORS for _ in range(m)]
        snap, self._snap = self._snap, None
        if snap is None or not self.track:
            return
        played_then, color_then, sizes_then, penalty, next_off = snap
        r = v.rules
        if r.stacking or r.seven_slap or r.giving or r.jump_in:
            return
        diff = v.obs[_PLAYED_SLICE] - played_then
        changed = diff.nonzero()[0].tolist()
        colors = 0  # bit set of colours played since
        wild = draw2 = False
        n_played = 0
        last = -1
        for k, d in zip(changed, diff[changed].tolist()):
            if d < 0:
                return  # a reshuffle since my last decision
            n_played += int(d)
            last = k
            c = _COLOR_OF[k]
            if c < 0:  # a wild
                wild = True
            else:
                colors |= 1 << c
                if _FACE_OF[k] == C.FACE_DRAW2:
                    draw2 = True
        share = None
        steady = color_then >= 0 and not wild and not draw2 and colors | (1 << color_then) == 1 << color_then
        for j, o in enumerate(v.opponents):
            row = void[j]
            got = o.hand_size - sizes_then[j]
            steady_j = steady
            if j + 1 == next_off and penalty:
                if penalty < 0:
                    got = max(0, got - C.DRAW4_CARDS)
                    steady_j = False
                else:
                    got -= penalty
                    if share is None:
                        share = self.shares(v)
                    for c in range(NCOLORS):  # the penalty cards may be of any colour
                        row[c] *= (1.0 - share[c]) ** penalty
            if m == 1:  # two players: every card played since was this opponent's
                drew = got + n_played
                if drew >= 1 and steady_j:
                    row[color_then] = 1.0  # it drew on that colour: it had none
                for c in range(NCOLORS):
                    if colors >> c & 1 and (c != color_then or not (drew >= 1 and steady_j)):
                        row[c] = 0.0
                if n_played == 1 and drew == 0 and color_then >= 0 and last >= 0 \
                        and _COLOR_OF[last] != color_then:
                    # it left the colour for another without drawing: likely it had none
                    if share is None:
                        share = self.shares(v)
                    prior = (1.0 - share[color_then]) ** o.hand_size
                    p = row[color_then] + (1.0 - row[color_then]) * prior
                    p = self.switch_odds * p / (self.switch_odds * p + 1.0 - p)
                    row[color_then] = (p - prior) / (1.0 - prior) if prior < 1.0 else 1.0
                extra = drew - (1 if drew >= 1 and steady_j else 0)
            else:
                if got >= 1 and steady_j:
                    row[color_then] = 1.0
                extra = got - 1 if got >= 1 and steady_j else got
            if extra > 0:
                if share is None:
                    share = self.shares(v)
                for c in range(NCOLORS):
                    if row[c]:
                        row[c] *= (1.0 - share[c]) ** extra

    # ------------------------------------------------------------------ card counting
    def unseen(self, v: View) -> list[int]:
        """Cards of each kind whose place I don't know (other hands or DRAW)."""
        out = [d - p - h for d, p, h in zip(self.deck, v.played, v.hand)]
        if not v.known_any:
            return out
        for row in v.known:
            if any(row):
                out = [x - y for x, y in zip(out, row)]
        return [x if x > 0 else 0 for x in out]

    def shares(self, v: View) -> list[float]:
        """Share of each colour among the unseen cards (cached per view)."""
        return self.counting(v)[0]

    def counting(self, v: View) -> Counting:
        """Counts of the unseen cards per colour, face and wild, cached per view. Without
        known cards the per-kind list is not built."""
        if self._count_key is v:
            return self._count
        obs = v.obs
        if v.known_any:
            unseen = self.unseen(v)
            agg = (np.array(unseen, np.float32) @ _AGG).tolist()
        else:  # deck minus played minus my hand, summed per colour, per face and for wilds
            unseen = None
            agg = (self._deck_agg - (obs[_PLAYED_SLICE] + obs[_HAND_SLICE]) @ _AGG).tolist()
        per_color, per_face, wilds = agg[:NCOLORS], agg[NCOLORS:NCOLORS + NF], agg[-1]
        total = sum(per_color) + wilds or 1.0
        # tuple.__new__ skips the NamedTuple's Python-level __new__ (3x faster; once per decision)
        out = tuple.__new__(Counting, ([x / total for x in per_color], unseen, total, per_color, per_face, wilds))
        self._count_key, self._count = v, out
        return out

    # ------------------------------------------------------------------ opponents
    def opponent(self, v: View, offset: int) -> OpponentModel:
        """What I believe about the opponent ``offset`` seats to my left (cached per view)."""
        cache = self._model_cache
        if cache is not None and cache[0] is v and cache[1] == offset:
            return cache[2]
        o = v.opponents[offset - 1]
        known = o.known
        n_known = sum(known) if v.known_any else 0
        unknown = max(0, o.hand_size - n_known)
        _, unseen, total, per_color, per_face, wilds = self.counting(v)
        row = self.void[offset - 1] if self.void is not None and self.track else _NO_VOID
        color_bits = face_bits = 0
        known_wild = False
        if n_known:
            for k in range(C.NUM_KINDS):
                if known[k]:
                    if k >= _NCOL:  # a wild
                        known_wild = True
                    else:
                        color_bits |= 1 << _COLOR_OF[k]
                        face_bits |= 1 << _FACE_OF[k]
        p_no = [0.0 if color_bits >> c & 1 else
                row[c] + (1.0 - row[c]) * (1.0 - per_color[c] / total) ** unknown for c in range(NCOLORS)]
        out = tuple.__new__(OpponentModel, (p_no, unknown, known, color_bits, face_bits, known_wild))
        self._model_cache = (v, offset, out)
        return out

    def p_block(self, v: View, offset: int, color: int, face: int) -> float:
        """Chance that the opponent ``offset`` seats to my left can't play on ``color``/``face``
        (a wild top: ``face`` = ``cards.NO_FACE``): its known cards, the colours I believe it
        lacks, and card counting over the unseen cards for the rest of its hand."""
        p_no, unknown, _, color_bits, face_bits, known_wild = self.opponent(v, offset)
        if known_wild or color_bits >> color & 1 or face != C.NO_FACE and face_bits >> face & 1:
            return 0.0
        _, unseen, total, _, per_face, wilds = self.counting(v)
        other = wilds
        if face != C.NO_FACE:
            k = _KIND_OF[color][face]
            other += per_face[face] - (unseen[k] if unseen is not None else
                                       self.deck[k] - v.played[k] - v.hand[k])
        return p_no[color] * (1.0 - other / total) ** unknown

    # ------------------------------------------------------------------ challenges
    def previous_color(self, v: View) -> int:
        """The colour current before the Draw Four on top, if my memory tells it; else -1."""
        mem = self._mem_played
        if mem is None or self._mem_color < 0:
            return -1
        diff = v.obs[_PLAYED_SLICE] - mem
        changed = diff.nonzero()[0].tolist()
        colors = set()
        wilds = 0
        for k, d in zip(changed, diff[changed].tolist()):
            if d < 0:
                return -1  # a reshuffle (or a new round) since my last decision
            c = _COLOR_OF[k]
            if c < 0:  # a wild
                wilds += d
            else:
                colors.add(c)
        if wilds != 1:  # other wilds were played in between: the colour may have changed
            return -1
        if not colors:
            return self._mem_color
        if len(colors) == 1:
            return colors.pop()
        return -1

    def p_held_previous_color(self, v: View) -> float:
        """Chance that the player before me (who just played the Wild Draw Four on top) held a
        card of the colour current before it, i.e. that the Draw Four was illegal: from the
        colour if :meth:`previous_color` knows it, else averaged over the colours; 0.0 if
        that player has no cards left."""
        off = v.num_players - v.next_offset  # the player before me
        if v.opponents[off - 1].hand_size == 0:
            return 0.0
        p_no = self.opponent(v, off).p_no
        prev = self.previous_color(v)
        if prev >= 0:
            return 1.0 - p_no[prev]
        return sum(1.0 - x for x in p_no) / NCOLORS
