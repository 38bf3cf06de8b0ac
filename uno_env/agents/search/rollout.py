"""The rollout policies of the ``search`` bot: the heuristic's card ranking played on the
engine state, fast enough to play thousands of rounds per decision, and the ``random`` bot's.

:class:`RolloutPolicy` plays every seat of a rollout (option ``rollouts=policy``, the default);
with ``rollouts=agents`` the rollouts are played by heuristic agents on observations instead
(slower). With ``opponents=random`` the opponents' seats are played by
:class:`RandomRolloutPolicy` (with ``rollouts=agents``: by ``random`` agents on observations),
the model of a table of ``random`` bots.
"""

from __future__ import annotations

import random

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.agents.bots import random_move
from uno_env.agents.heuristic import HeuristicWeights
from uno_env.game.engine import CHALLENGE, COLOR, DRAWN, TURN, Engine, State

NCOLORS, NFACES = C.NUM_COLORS, C.NUM_FACES
_COLOR_OF, _FACE_OF = C.COLOR_OF, C.FACE_OF
_D2, _REV, _SKIP = C.FACE_DRAW2, C.FACE_REVERSE, C.FACE_SKIP
# which wild kind to play first: the strongest attack when the next player is close to going
# out (danger), else the most flexible card (as the heuristic)
_WILD_RANK_DANGER = {C.WILD_DRAW4: 4, C.SEWERS: 3, C.TEAM_ATTACK: 2, C.WILD: 1}
_WILD_RANK = {C.TEAM_ATTACK: 4, C.WILD: 3, C.SEWERS: 2, C.WILD_DRAW4: 1}


class RolloutPolicy:
    """The heuristic's card ranking, wild holding, attacks and wild colours (the weights of
    :class:`HeuristicWeights`) on the state, for rollouts: ``policy(state, legal)`` -> an
    action for ``state.actor``, from its own hand and what the table shows (hand sizes, top,
    colour); no card counting or opponent model. About 4 us a decision (the heuristic on an
    observation: about 35 us); it wins 48.0% [45.8, 50.2] against ``heuristic`` (2,000
    games, classic, 2 players), like ``heuristic:track=0,w_block=0,w_block_end=0,w_unseen=0``.
    Every phase: it calls UNO, challenges a Wild Draw Four whose player holds 2+ cards,
    catches, jumps in, discards its highest villains, never offers or takes.
    """

    def __init__(self, engine: Engine, weights: HeuristicWeights = HeuristicWeights()):
        self.w = weights
        self.points = engine.points
        self.villain_bits = engine.villain_bits
        self.reverse_skips = engine.rules.two_player_reverse_skips

    def __call__(self, s: State, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if A.UNO in legal:
            return A.UNO
        phase = s.phase
        if phase == TURN or phase == DRAWN:
            a = self._play(s, legal, phase == DRAWN)
            if a >= 0:
                return a
            return A.PASS if A.PASS in legal else A.DRAW
        if phase == CHALLENGE:
            if legal[0] < A.PLAY_END:  # stacking: pass the Draw Four on
                return A.play_action(C.WILD_DRAW4, self._color(s, C.WILD_DRAW4))
            return A.CHALLENGE if A.CHALLENGE in legal and s.hand_size[s.wd4_player] >= 2 else A.DRAW
        if phase == COLOR:
            return A.color_action(self._color(s, -1))
        if A.CATCH in legal:
            return A.CATCH
        if legal[0] < A.PLAY_END:  # a jump-in
            k = A.PLAYED_KIND[legal[0]]
            return A.play_action(k, self._color(s, k)) if k >= C.NUM_COLORED else legal[0]
        if legal[0] in A.DISCARD_IDS:
            return max((a for a in legal if a in A.DISCARD_IDS), key=lambda a: self.points[a - A.DISCARD])
        return A.PASS if A.PASS in legal else legal[0]

    def _color(self, s: State, kind: int) -> int:
        """The colour for a wild ``kind`` (-1: a first card's colour): the colour held most,
        action cards counting 1.5 (villains not counted before a Team Attack)."""
        h = s.hands[s.actor].tolist()
        best_c, best_s = 0, -1e9
        for c in range(NCOLORS):
            b = c * NFACES
            sc = sum(h[b:b + NFACES]) + 0.5 * (h[b + _D2] + h[b + _REV] + h[b + _SKIP])
            if kind == C.TEAM_ATTACK:
                sc -= sum(h[k] for k in range(b, b + NFACES) if self.villain_bits >> k & 1)
            if sc > best_s:
                best_c, best_s = c, sc
        return best_c

    def _play(self, s: State, legal: list[int], drawn: bool) -> int:
        """The play to make (as the heuristic's ``_choose_play``); -1 to keep wilds and draw."""
        w = self.w
        p, n = s.actor, s.n
        h = s.hands[p].tolist()
        size = s.hand_size[p]
        counts = [sum(h[0:13]), sum(h[13:26]), sum(h[26:39]), sum(h[39:52])]
        n_wild = size - sum(counts)
        nxt = (p + s.direction) % n
        danger = s.hand_size[nxt] <= w.danger
        two = n == 2
        stacking = s.pending > 0
        best_a, best_s, best_attack = -1, -1e9, False
        wilds: list[int] = []
        for a in legal:
            if a >= A.PLAY_WILD:
                if a < A.PLAY_END:
                    k = A.PLAYED_KIND[a]
                    if not wilds or wilds[-1] != k:
                        wilds.append(k)
                continue
            c, f = _COLOR_OF[a], _FACE_OF[a]
            same = counts[c] - 1
            follow = same + h[f] + h[13 + f] + h[26 + f] + h[39 + f] - 1
            sc = w.w_same * same + w.w_follow * follow + w.w_points * self.points[a]
            attack = False
            if f == _D2:
                sc += w.w_draw2
                attack = True
            elif f == _SKIP or (f == _REV and two and self.reverse_skips):
                sc += w.w_skip
                attack = True
                if two and size > 1 and follow + n_wild <= 0:
                    sc -= w.w_dead_again
            elif f == _REV:
                sc += w.w_reverse
                if danger and s.hand_size[(p - s.direction) % n] > s.hand_size[nxt]:
                    sc += w.attack * 0.8
                    attack = True
            else:
                sc += w.w_number
            if attack and danger:
                sc += w.attack
            if sc > best_s:
                best_a, best_s, best_attack = a, sc, attack
        wild_k, wild_r = -1, -1
        if wilds:
            holds_color = s.color >= 0 and counts[s.color] > 0
            ranks = _WILD_RANK_DANGER if danger else _WILD_RANK
            for k in wilds:
                if stacking:
                    use = True
                elif k == C.WILD_DRAW4:
                    use = (bool(w.bluff) and danger and not best_attack) if holds_color else \
                        (best_a < 0 or danger and not best_attack or bool(w.wd4_first))
                elif k == C.TEAM_ATTACK:
                    use = best_a < 0 or sum(h[x] for x in range(C.NUM_COLORED)
                                            if self.villain_bits >> x & 1) >= w.ta_villains
                elif k == C.SEWERS:
                    use = best_a < 0 or danger and not best_attack
                else:
                    use = best_a < 0
                if use and ranks[k] > wild_r:
                    wild_k, wild_r = k, ranks[k]
        if wild_k >= 0:
            hold = w.hold_drawn_wild if drawn else w.hold_wild
            if best_a < 0 and not stacking and size - n_wild >= hold \
                    and not (danger and wild_k in (C.WILD_DRAW4, C.SEWERS)):
                return -1
            return A.play_action(wild_k, self._color(s, wild_k))
        return best_a


class RandomRolloutPolicy:
    """The ``random`` bot's policy (:func:`uno_env.agents.bots.random_move`, its one source) on
    the state: ``policy(state, legal)`` -> an action for ``state.actor``, uniformly random as
    that bot's (a playable card if there is one, each card kind once, a random colour for a
    wild). :meth:`seed` at the start of a rollout makes its coins a function of the rollout's
    seed, shared by the moves compared on it (common random numbers)."""

    def __init__(self) -> None:
        self.py = random.Random(0)

    def seed(self, value: int) -> None:
        self.py.seed(value)

    def __call__(self, s: State, legal: list[int]) -> int:
        return random_move(s.phase, legal, self.py)
