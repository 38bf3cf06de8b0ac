"""The ``heuristic`` bot: the strongest scripted player here, and its weights.

Spec strings: ``heuristic`` (the defaults) or ``heuristic:key=value,...`` with keys the
fields of :class:`HeuristicWeights`, e.g. ``heuristic:hold_wild=3,bluff=0``. An unknown key,
a key without a value, a value that is not a finite number or a key given twice is a
``ValueError`` naming it.

It decides from the decoded observation (:class:`uno_env.agents.view.View`) and what its
:class:`uno_env.agents.beliefs.Beliefs` (card counting, opponent model) made of the
observations it saw; it never reads hidden state. See :class:`HeuristicAgent`.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.agents.base import parse_spec, register_agent
from uno_env.agents.beliefs import Beliefs
from uno_env.agents.bots import PyRngAgent, color_counts, playable
from uno_env.agents.view import View, decode
from uno_env.game.engine import CATCH, CHALLENGE, COLOR, DISCARD, DRAWN, JUMP, OFFER, TAKE, TURN

NCOL, NCOLORS = C.NUM_COLORED, C.NUM_COLORS
D2, REV, SKIP = C.FACE_DRAW2, C.FACE_REVERSE, C.FACE_SKIP
_COLOR_OF, _FACE_OF = C.COLOR_OF, C.FACE_OF
_COLOR_SLICES = C.COLOR_SLICES
_PLAYED_KIND = A.PLAYED_KIND
# the action cards of each colour (Draw Two, Reverse, Skip): they count extra for a wild's colour
_ACTION_SLICES = tuple(slice(C.kind_of(c, D2), s.stop) for c, s in enumerate(_COLOR_SLICES))
# which wild kind the heuristic plays first when it plays a wild: the strongest attacks when
# the next player is close to going out (danger), else the most flexible card
_WILD_RANK_DANGER = {C.WILD_DRAW4: 4, C.SEWERS: 3, C.TEAM_ATTACK: 2, C.WILD: 1}
_WILD_RANK = {C.TEAM_ATTACK: 4, C.WILD: 3, C.SEWERS: 2, C.WILD_DRAW4: 1}


@dataclasses.dataclass(frozen=True, slots=True)
class HeuristicWeights:
    """The heuristic's weights (all numbers; flags are 0/1).

    Scores of a coloured play (the highest wins). Tuned by coordinate search, 20,000 games
    per trial, heuristic vs random, 2 players, classic rules (see the issue 4 report).
    """

    # card ranking
    w_draw2: float = 3.0
    w_skip: float = 2.5
    w_reverse: float = 0.5
    w_number: float = 1.0
    w_same: float = 0.7  # per card of the played colour left in my hand (majority colour)
    w_follow: float = -0.3  # per card left matching the played card by colour or face (< 0: keep
    #                         cards that share a face with others, they switch colours later)
    w_unseen: float = 2.0  # x share of unseen cards in the colour left (opponents likely hold it)
    w_void: float = 0.0  # x chance that the next player holds no card of the colour left
    w_block: float = 1.5  # x chance that the next player can't play on the card left (must draw)
    w_block_end: float = 3.0  # added to w_block when the next player is close to out
    w_dead_again: float = 2.5  # 2 players: a Skip / Reverse with nothing to follow it
    w_points: float = 0.01  # dump high cards first (tie-break)
    attack: float = 6.0  # bonus for Draw Two / Skip / Draw Four when the next player is close to out
    danger: float = 1  # "close to out": the next player holds at most this many cards
    # wilds
    hold_wild: float = 4  # with only wilds playable, draw instead while holding >= this many non-wild cards
    hold_drawn_wild: float = 3  # keep a drawn wild while holding >= this many non-wild cards
    wd4_first: float = 0  # 1: play a legal Wild Draw Four before coloured cards
    ta_villains: float = 2  # play a Team Attack before coloured cards with this many villains to discard
    bluff: float = 1  # bluff a Wild Draw Four when the next player is close to out
    # reading opponents
    challenge: float = 0.19  # challenge when the estimated chance of a bluff exceeds this (break-even ~0.19)
    bluff_odds: float = 0.6  # odds factor on "held the colour": players bluff less than chance says
    track: float = 1  # infer which colours opponents lack from their draws and plays (Beliefs)
    switch_odds: float = 2.0  # odds factor for "has no colour c" when a player left colour c (2 players)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise ValueError(f"heuristic parameter {f.name!r} must be a finite number, got {value!r}")

    def as_array(self) -> np.ndarray:
        """The weights as float64 numbers in the order of the fields: what the compiled heuristic
        of the batched engine reads (``uno_env.game.batched.bots.WEIGHT_NAMES``)."""
        return np.array([float(getattr(self, name)) for name in FIELD_NAMES], np.float64)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "HeuristicWeights":
        """The defaults with ``values`` replaced; ``ValueError`` naming an unknown key."""
        unknown = sorted(set(values) - set(FIELD_NAMES))
        if unknown:
            raise ValueError(f"unknown heuristic parameter {unknown[0]!r}; known: {sorted(FIELD_NAMES)}")
        return cls(**values)

    @classmethod
    def from_spec(cls, spec: str) -> "HeuristicWeights":
        """``heuristic`` -> the defaults; ``heuristic:a=1,b=2`` -> the defaults with a = 1.0, b = 2.0."""
        if ":" not in spec:
            return _DEFAULTS
        values: dict[str, float] = {}
        for key, text in parse_spec(spec).options("heuristic parameter").items():
            if key not in FIELD_NAMES:
                raise ValueError(f"unknown heuristic parameter {key!r} in {spec!r}; known: {sorted(FIELD_NAMES)}")
            try:
                value = float(text)
            except ValueError:
                raise ValueError(f"heuristic parameter {key!r} must be a number, got {text!r} "
                                 f"in {spec!r}") from None
            values[key] = value
        return cls(**values)


FIELD_NAMES = tuple(f.name for f in dataclasses.fields(HeuristicWeights))
_DEFAULTS = HeuristicWeights()
# The default weights as a read-only mapping (name -> value).
DEFAULT_PARAMS = MappingProxyType(dataclasses.asdict(_DEFAULTS))


class HeuristicAgent(PyRngAgent):
    """The strongest scripted player here (pure Python over the decoded :class:`View`).

    It scores every playable card and plays the best; weights in :class:`HeuristicWeights`,
    overridable in the spec (``heuristic:hold_wild=3,bluff=0``). Its :class:`Beliefs`
    (``self.beliefs``) do the card counting and opponent modelling. Ingredients:

    * **Card ranking** (chausner/UnoAI's MixBot): Draw Two > Skip > number > Reverse (with
      two players a Reverse is a Skip, and one with nothing to follow it is worth little);
      prefer the colour it holds most of, and keep cards that share a face with others.
    * **Blocking, by card counting**: prefer the card the next player is least likely to be
      able to play on (:meth:`Beliefs.p_block`): unseen cards = deck - played - own hand -
      cards known to be in other hands (shown by a challenge, an offer, SEWERS), and what it
      has read about that player: one who drew while the colour stayed ``c`` has no ``c``;
      one who left colour ``c`` for another probably has none; cards received make colours
      likely again. Doubled when that player is close to going out.
    * **Hold wilds**: a Wild or Wild Draw Four only when no coloured card is playable, and
      even then it draws instead while it holds ``hold_wild`` or more other cards (it keeps
      a drawn wild the same way); a Team Attack early when it discards villains. Colour of a
      wild: the one it holds most of (action cards count extra) that the next player is
      least likely to match.
    * **Aggressive end game**: when the next player holds ``danger`` cards or fewer, Draw
      Two / Skip / Draw Four (bluffed if needed) come first, and a Reverse when it turns
      play away from that player.
    * **Challenges**: the chance that a Draw Four was a bluff = the chance that its player
      holds a card of the colour current before it (:meth:`Beliefs.p_held_previous_color`),
      with odds scaled by ``bluff_odds``; it challenges above ``challenge`` (drawing 4 and
      losing the turn vs a 6-card risk: break-even about 0.19).
    * Always calls UNO, catches, jumps in, stacks a pending penalty; asks for a card before
      drawing; offers a high card that the asker cannot play; takes the best playable
      offer; discards every villain it can after a Team Attack (highest first).

    Memory: its beliefs keep the colour and played counts after its own last decision and
    the per-opponent voids (reset with :meth:`reset`, once per episode); everything else
    comes from the current observation.
    """

    name = "heuristic"

    def __init__(self, rules, num_players, seed=None,
                 weights: HeuristicWeights | Mapping[str, Any] | None = None):
        super().__init__(rules, num_players, seed)
        if weights is None:
            weights = _DEFAULTS
        elif not isinstance(weights, HeuristicWeights):
            weights = HeuristicWeights.from_mapping(weights)
        self.weights = weights
        self.beliefs = Beliefs(rules, track=bool(weights.track), switch_odds=weights.switch_odds)
        self.points = [C.card_points(k, rules.sewers_points) for k in range(C.NUM_KINDS)]
        self.villains = frozenset(rules.villain_kinds())
        self.reverse_skips = rules.two_player_reverse_skips

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.beliefs.reset()

    # ------------------------------------------------------------------ entry point
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        v = decode(observation, action_mask)
        self.beliefs.observe(v)
        a = self.decide(v)
        self.beliefs.remember(v, a)
        return a

    def decide(self, v: View) -> int:
        legal = v.legal
        if len(legal) == 1:
            return legal[0]
        if A.UNO in legal:
            return A.UNO
        phase = v.phase
        if phase == TURN:
            return self._turn(v)
        if phase == DRAWN:
            return self._drawn(v)
        if phase == CHALLENGE:
            return self._challenge(v)
        if phase == CATCH:
            return A.CATCH
        if phase == JUMP:
            plays = [a for a in legal if a < A.PLAY_END]
            if not plays:
                return A.PASS
            k = A.played_kind(plays[0])
            return A.play_action(k, self._wild_color(v, k) if C.is_wild(k) else 0)
        if phase == COLOR:
            return A.color_action(self._wild_color(v, -1))
        if phase == DISCARD:
            return self._discard(v)
        if phase == OFFER:
            return self._offer(v)
        if phase == TAKE:
            return self._take(v)
        return legal[0]

    # ------------------------------------------------------------------ turn
    def _turn(self, v: View) -> int:
        legal = v.legal
        plays = [a for a in legal if a < A.PLAY_END]
        if not plays:
            return A.ASK if A.ASK in legal else A.DRAW
        a = self._choose_play(v, plays, stacking=v.pending > 0)
        if a < 0:  # only held-back wilds: ask or draw instead
            return A.ASK if A.ASK in legal else A.DRAW
        return a

    def _choose_play(self, v: View, plays: list[int], stacking: bool = False, drawn: bool = False) -> int:
        """The play to make among ``plays``; -1 to keep the wilds and draw instead."""
        w = self.weights
        beliefs = self.beliefs
        hand, n = v.hand, v.num_players
        kinds = []
        for a in plays:
            k = _PLAYED_KIND[a]
            if not kinds or kinds[-1] != k:
                kinds.append(k)
        counts = color_counts(hand)
        n_wild = sum(hand[C.WILD_SLICE])
        non_wild = v.hand_size - n_wild
        nxt_off = v.next_offset
        nxt = v.opponents[nxt_off - 1]
        danger = nxt.hand_size <= w.danger
        share = beliefs.shares(v)
        void = beliefs.opponent(v, nxt_off).p_no
        two = n == 2
        s0, s1, s2, s3 = _COLOR_SLICES
        face_counts = [a + b + c + d for a, b, c, d in zip(hand[s0], hand[s1], hand[s2], hand[s3])]
        w_blk = w.w_block + (w.w_block_end if danger else 0.0)
        best_a, best_s, best_attack = -1, -1e9, False
        for k in kinds:
            if k >= NCOL:
                continue
            c, f = _COLOR_OF[k], _FACE_OF[k]
            same = counts[c] - 1
            follow = same + face_counts[f] - 1
            s = w.w_same * same + w.w_follow * follow - w.w_unseen * share[c] \
                + w.w_void * void[c] + w.w_points * self.points[k]
            if w_blk:
                s += w_blk * beliefs.p_block(v, nxt_off, c, f)
            attack = False
            if f == D2:
                s += w.w_draw2
                attack = True
            elif f == SKIP or (f == REV and two and self.reverse_skips):
                s += w.w_skip
                attack = True
                if two and v.hand_size > 1 and follow + n_wild <= 0:
                    s -= w.w_dead_again
            elif f == REV:
                s += w.w_reverse
                if danger and v.previous_opponent.hand_size > nxt.hand_size:
                    s += w.attack * 0.8  # a Reverse that turns play away from that player
                    attack = True
            else:
                s += w.w_number
            if attack and danger:
                s += w.attack
            if s > best_s:
                best_a, best_s, best_attack = k, s, attack
        # wild cards
        color_now = v.color
        holds_color = color_now >= 0 and counts[color_now] > 0
        wild_k, wild_r = -1, -1
        wild_ranks = _WILD_RANK_DANGER if danger else _WILD_RANK
        for k in kinds:
            if k < NCOL:
                continue
            if stacking:
                use = True
            elif k == C.WILD_DRAW4:
                if holds_color:  # a bluff
                    use = bool(w.bluff) and danger and not best_attack
                else:
                    use = best_a < 0 or danger and not best_attack or bool(w.wd4_first)
            elif k == C.TEAM_ATTACK:
                villains = sum(hand[x] for x in self.villains)
                use = best_a < 0 or villains >= w.ta_villains
            elif k == C.SEWERS:
                use = best_a < 0 or danger and not best_attack
            else:
                use = best_a < 0
            if use:
                rank = wild_ranks[k]
                if rank > wild_r:
                    wild_k, wild_r = k, rank
        if wild_k >= 0:
            hold = w.hold_drawn_wild if drawn else w.hold_wild
            if best_a < 0 and not stacking and non_wild >= hold \
                    and not (danger and wild_k in (C.WILD_DRAW4, C.SEWERS)):
                return -1  # hold the wild, draw instead
            return A.play_action(wild_k, self._wild_color(v, wild_k))
        if best_a >= 0:
            return A.play_action(best_a)
        # only held-back wilds (a bluffable Draw Four): keep them
        return -1

    def _wild_color(self, v: View, kind: int) -> int:
        """Colour for a wild ``kind`` (-1: a colour choice without a play)."""
        w = self.weights
        beliefs = self.beliefs
        hand = v.hand
        share = beliefs.shares(v)
        void = beliefs.opponent(v, v.next_offset).p_no
        h_next = v.next_opponent.hand_size
        danger = h_next <= w.danger
        best_c, best_s = 0, -1e9
        ta = kind == C.TEAM_ATTACK
        for c in range(NCOLORS):
            s = sum(hand[_COLOR_SLICES[c]]) + 0.5 * sum(hand[_ACTION_SLICES[c]]) \
                - w.w_unseen * share[c] + w.w_void * void[c]
            if w.w_block or danger and w.w_block_end:
                s += (w.w_block + (w.w_block_end if danger else 0.0)) \
                    * beliefs.p_block(v, v.next_offset, c, C.NO_FACE)
            if ta:
                s -= sum(hand[k] for k in self.villains if _COLOR_OF[k] == c)  # they will be discarded
            if s > best_s:
                best_c, best_s = c, s
        return best_c

    # ------------------------------------------------------------------ other phases
    def _drawn(self, v: View) -> int:
        plays = [a for a in v.legal if a < A.PLAY_END]
        keep = A.PASS if A.PASS in v.legal else A.DRAW
        if not plays:
            return keep
        a = self._choose_play(v, plays, drawn=True)
        return keep if a < 0 else a

    def _challenge(self, v: View) -> int:
        legal = v.legal
        if any(a < A.PLAY_END for a in legal):  # stacking: pass the Draw Four on
            return A.play_action(C.WILD_DRAW4, self._wild_color(v, C.WILD_DRAW4))
        if A.CHALLENGE not in legal:
            return A.DRAW
        return A.CHALLENGE if self._guilt(v) > self.weights.challenge else A.DRAW

    def _guilt(self, v: View) -> float:
        """Estimated chance that the Draw Four just played was illegal (a bluff)."""
        p = self.beliefs.p_held_previous_color(v)
        if p >= 1.0:
            return 1.0
        odds = p / max(1e-9, 1.0 - p) * self.weights.bluff_odds
        return odds / (1.0 + odds)

    def _discard(self, v: View) -> int:
        villains = [A.discarded_kind(a) for a in v.legal if a in A.DISCARD_IDS]
        if not villains:
            return A.PASS
        counts = color_counts(v.hand)
        return A.discard_action(max(villains, key=lambda k: (self.points[k], -counts[_COLOR_OF[k]])))

    def _offer(self, v: View) -> int:
        """Offer a high card that the asker cannot play now (else pass)."""
        color, face = v.color, v.top_face
        counts = color_counts(v.hand)
        best, best_s = A.PASS, -1e9
        for a in v.legal:
            if a not in A.OFFER_IDS:
                continue
            k = A.offered_kind(a)
            if C.is_wild(k) or playable(k, color, face):
                continue
            s = self.points[k] - 3.0 * counts[_COLOR_OF[k]]
            if s > best_s:
                best, best_s = a, s
        return best

    def _take(self, v: View) -> int:
        """Take the playable offer that plays best (a wild first); else pass."""
        offers = v.offers
        color, face = v.color, v.top_face
        best, best_s = A.PASS, -1e9
        counts = color_counts(v.hand)
        for a in v.legal:
            if a not in A.TAKE_IDS:
                continue
            k = offers[A.take_offset(a) - 1]
            if k < 0 or not playable(k, color, face):
                continue
            s = 100.0 if C.is_wild(k) else counts[_COLOR_OF[k]] + (3.0 if _FACE_OF[k] in (D2, SKIP) else 0.0)
            if s > best_s:
                best, best_s = a, s
        return best


register_agent("heuristic",
               lambda spec, rules, n, seed: HeuristicAgent(rules, n, seed, HeuristicWeights.from_spec(spec)))
