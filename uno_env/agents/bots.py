"""Scripted bots: ``random``, ``greedy`` and ``heuristic``.

Each bot decides from what its player observes only: the observation vector and the action
mask, decoded by :func:`uno_env.agents.view.decode` (``random`` reads just the mask and the
phase). None of them reads hidden state. All three play every ruleset and every decision
(turns, drawn cards, challenges, colour choices, Team Attack discards, UNO calls and
catches, jump-ins, offers and takes).

``random``
    A uniformly random playable card (a uniformly random colour for wilds; each card kind
    counts once, not once per colour), drawing only when nothing is playable, and playing a
    drawn card that is playable. Every other decision is uniform over its options: call UNO
    or not, challenge / draw (/ stack), jump in or pass, catch or pass, offer (a random
    card) or pass, take (any offer) or pass, discard a villain or stop, the colour of a
    first wild.
``greedy``
    Plays the card with the most points (wilds first, then action cards, then the highest
    number; ties at random); wild colour = its most common colour. It always calls UNO,
    catches, jumps in, never challenges, offers its highest card, takes the best playable
    offer and discards its highest villains.
``heuristic``
    The strongest scripted player here; see :class:`HeuristicAgent`. Its weights can be
    set in the spec, e.g. ``heuristic:hold_wild=3,bluff=0``.
"""

from __future__ import annotations

import random as _random

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import observation as O
from uno_env.agents.base import Agent, register_agent
from uno_env.agents.view import View, decode
from uno_env.game.engine import CATCH, CHALLENGE, COLOR, DISCARD, DRAWN, JUMP, OFFER, TAKE, TURN

NK, NF, NCOL, NCOLORS = C.NUM_KINDS, C.NUM_FACES, C.NUM_COLORED, C.NUM_COLORS
D2, REV, SKIP = C.FACE_DRAW2, C.FACE_REVERSE, C.FACE_SKIP
PLAY_END = A.DRAW  # play ids are 0..67
_PHASE_SLICE = slice(O.PHASE, O.PHASE + O.NUM_PHASES)
_PLAYED_SLICE = slice(O.PLAYED, O.PLAYED + C.NUM_KINDS)
_HAND_SLICE = slice(O.HAND, O.HAND + C.NUM_KINDS)
# card kinds -> (4 colours, 13 faces, wilds): one matrix product sums counts per colour and face
_AGG = np.zeros((C.NUM_KINDS, C.NUM_COLORS + C.NUM_FACES + 1), np.float32)
for _k in range(C.NUM_COLORED):
    _AGG[_k, _k // C.NUM_FACES] = _AGG[_k, C.NUM_COLORS + _k % C.NUM_FACES] = 1.0
_AGG[C.NUM_COLORED:, -1] = 1.0


def _phase_of(observation: np.ndarray) -> int:
    ph = observation[_PHASE_SLICE]
    i = int(ph.argmax())
    return i if ph[i] else -1


class _PyRngAgent(Agent):
    """An agent with a fast Python RNG (``self.py``) seeded from the agent's numpy RNG."""

    def __init__(self, rules, num_players, seed=None):
        super().__init__(rules, num_players, seed)
        self.py = _random.Random(int(self.rng.integers(2 ** 63)))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self.py = _random.Random(int(self.rng.integers(2 ** 63)))


def _card_options(plays: list[int]) -> list[int]:
    """One action per card kind among play ids: coloured ids, and each wild kind's first id."""
    out = []
    seen_wild = -1
    for a in plays:
        if a < A.PLAY_WILD:
            out.append(a)
        else:
            w = (a - A.PLAY_WILD) >> 2
            if w != seen_wild:
                out.append(A.PLAY_WILD + 4 * w)
                seen_wild = w
    return out


# ====================================================================== random
class RandomAgent(_PyRngAgent):
    """A uniformly random playable card (random colour for wilds), drawing only when nothing
    is playable; uniform choices in every other decision (see the module docstring)."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = action_mask.nonzero()[0].tolist()
        if len(legal) == 1:
            return legal[0]
        py = self.py
        if A.UNO in legal:  # call UNO or not, uniformly
            if py.random() < 0.5:
                return A.UNO
            legal.remove(A.UNO)
        phase = _phase_of(observation)
        plays = [a for a in legal if a < PLAY_END]
        if phase in (TURN, DRAWN):
            if plays:
                return self._random_card(plays)
            return legal[py.randrange(len(legal))]  # draw (or ask)
        if phase == CHALLENGE:  # stack / draw / challenge, uniformly
            options = [a for a in legal if a >= PLAY_END]
            i = py.randrange(len(options) + (1 if plays else 0))
            return options[i] if i < len(options) else self._random_card(plays)
        if phase == JUMP or phase == OFFER:  # jump in (offer a card) or pass, uniformly
            if py.random() < 0.5:
                return A.PASS
            cards = [a for a in legal if a != A.PASS]
            return self._random_card(cards) if phase == JUMP else cards[py.randrange(len(cards))]
        return legal[py.randrange(len(legal))]  # colour, discard, catch, take

    def _random_card(self, plays: list[int]) -> int:
        options = _card_options(plays)
        a = options[self.py.randrange(len(options))]
        if a >= A.PLAY_WILD:
            a += self.py.randrange(NCOLORS)
        return a


# ====================================================================== shared helpers
def _color_counts(hand: list[int]) -> list[int]:
    return [sum(hand[c * NF:(c + 1) * NF]) for c in range(NCOLORS)]


def _best_color(hand: list[int], exclude: int = -1) -> int:
    """Most common colour in ``hand`` (one ``exclude`` kind removed); ties: lowest index."""
    counts = _color_counts(hand)
    if 0 <= exclude < NCOL:
        counts[exclude // NF] -= 1
    return counts.index(max(counts))


# ====================================================================== greedy
class GreedyAgent(_PyRngAgent):
    """Plays the card with the most points; wild colour = its most common colour."""

    name = "greedy"

    def __init__(self, rules, num_players, seed=None):
        super().__init__(rules, num_players, seed)
        self.points = [C.card_points(k, rules.sewers_points) for k in range(NK)]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = action_mask.nonzero()[0].tolist()
        if len(legal) == 1:
            return legal[0]
        if A.UNO in legal:
            return A.UNO
        if A.CATCH in legal:
            return A.CATCH
        plays = [a for a in legal if a < PLAY_END]
        phase = _phase_of(observation)
        if phase == CHALLENGE and not plays:
            return A.DRAW
        if plays:
            return self._best_play(observation, plays)
        if phase == OFFER:
            offers = [a - A.OFFER for a in legal if A.OFFER <= a < A.TAKE]
            return A.OFFER + self._highest(offers)
        if phase == DISCARD:
            villains = [a - A.DISCARD for a in legal if A.DISCARD <= a < A.ASK]
            return A.DISCARD + self._highest(villains) if villains else A.PASS
        if phase == COLOR:
            hand = observation[O.HAND:O.HAND + NK].astype(np.int64).tolist()
            return A.COLOR + _best_color(hand)
        if phase == TAKE:
            return self._take(observation, legal)
        if A.ASK in legal:
            return A.ASK
        return A.DRAW if A.DRAW in legal else legal[0]

    def _highest(self, kinds: list[int]) -> int:
        pts = self.points
        best = max(pts[k] for k in kinds)
        top = [k for k in kinds if pts[k] == best]
        return top[self.py.randrange(len(top))] if len(top) > 1 else top[0]

    def _best_play(self, observation: np.ndarray, plays: list[int]) -> int:
        kinds = sorted({A.played_kind(a) for a in plays})
        k = self._highest(kinds)
        if k < NCOL:
            return k
        hand = observation[O.HAND:O.HAND + NK].astype(np.int64).tolist()
        return A.play_action(k, _best_color(hand))

    def _take(self, observation: np.ndarray, legal: list[int]) -> int:
        v = decode(observation, None)
        best, best_pts = A.PASS, -1
        for a in legal:
            if a >= A.TAKE:
                k = v.offers[a - A.TAKE]
                if k >= 0 and _playable(k, v.color, v.top_face) and self.points[k] > best_pts:
                    best, best_pts = a, self.points[k]
        return best


def _playable(k: int, color: int, top_face: int) -> bool:
    """Whether card kind ``k`` may be played on the current colour / top face (wilds: yes)."""
    if k >= NCOL:
        return True
    return k // NF == color or (k % NF == top_face and top_face < NF)


# ====================================================================== heuristic
# which wild kind the heuristic plays first when it plays a wild: the strongest attacks when
# the next player is close to going out (danger), else the most flexible card
_WILD_RANK_DANGER = {C.WILD_DRAW4: 4, C.SEWERS: 3, C.TEAM_ATTACK: 2, C.WILD: 1}
_WILD_RANK = {C.TEAM_ATTACK: 4, C.WILD: 3, C.SEWERS: 2, C.WILD_DRAW4: 1}

DEFAULT_PARAMS = {
    # Scores of a coloured play (the highest wins). Tuned by coordinate search, 20,000 games
    # per trial, heuristic vs random, 2 players, classic rules (see the issue 4 report).
    "w_draw2": 3.0, "w_skip": 2.5, "w_reverse": 0.5, "w_number": 1.0,  # card ranking
    "w_same": 0.7,  # per card of the played colour left in my hand (majority colour)
    "w_follow": -0.3,  # per card left matching the played card by colour or face (< 0: keep
    #                    cards that share a face with others, they switch colours later)
    "w_unseen": 2.0,  # x share of unseen cards in the colour left (opponents likely hold it)
    "w_void": 0.0,  # x chance that the next player holds no card of the colour left
    "w_block": 1.5,  # x chance that the next player can't play on the card left (must draw)
    "w_block_end": 3.0,  # added to w_block when the next player is close to out
    "w_dead_again": 2.5,  # 2 players: a Skip / Reverse with nothing to follow it
    "w_points": 0.01,  # dump high cards first (tie-break)
    "attack": 6.0,  # bonus for Draw Two / Skip / Draw Four when the next player is close to out
    "danger": 1,  # "close to out": the next player holds at most this many cards
    # wilds
    "hold_wild": 4,  # with only wilds playable, draw instead while holding >= this many non-wild cards
    "hold_drawn_wild": 3,  # keep a drawn wild while holding >= this many non-wild cards
    "wd4_first": 0,  # 1: play a legal Wild Draw Four before coloured cards
    "ta_villains": 2,  # play a Team Attack before coloured cards with this many villains to discard
    "bluff": 1,  # bluff a Wild Draw Four when the next player is close to out
    # reading opponents
    "challenge": 0.19,  # challenge when the estimated chance of a bluff exceeds this (break-even ~0.19)
    "bluff_odds": 0.6,  # odds factor on "held the colour": players bluff less than chance says
    "track": 1,  # infer which colours opponents lack from their draws and plays
    "switch_odds": 2.0,  # odds factor for "has no colour c" when a player left colour c (2 players)
}


class HeuristicAgent(_PyRngAgent):
    """The strongest scripted player here (pure Python over the decoded :class:`View`).

    It scores every playable card and plays the best; weights in :data:`DEFAULT_PARAMS`,
    overridable in the spec (``heuristic:hold_wild=3,bluff=0``). Ingredients:

    * **Card ranking** (chausner/UnoAI's MixBot): Draw Two > Skip > number > Reverse (with
      two players a Reverse is a Skip, and one with nothing to follow it is worth little);
      prefer the colour it holds most of, and keep cards that share a face with others.
    * **Blocking, by card counting**: prefer the card the next player is least likely to be
      able to play on: unseen cards = deck - played - own hand - cards known to be in other
      hands (shown by a challenge, an offer, SEWERS), and what it has read about that player:
      one who drew while the colour stayed ``c`` has no ``c``; one who left colour ``c`` for
      another probably has none; cards received make colours likely again. Doubled when
      that player is close to going out.
    * **Hold wilds**: a Wild or Wild Draw Four only when no coloured card is playable, and
      even then it draws instead while it holds ``hold_wild`` or more other cards (it keeps
      a drawn wild the same way); a Team Attack early when it discards villains. Colour of a
      wild: the one it holds most of (action cards count extra) that the next player is
      least likely to match.
    * **Aggressive end game**: when the next player holds ``danger`` cards or fewer, Draw
      Two / Skip / Draw Four (bluffed if needed) come first, and a Reverse when it turns
      play away from that player.
    * **Challenges**: the chance that a Draw Four was a bluff = the chance that its player
      holds a card of the colour current before it (remembered from its own last decision
      and the cards played since), from that player's hand size, known cards and the unseen
      cards; it challenges above ``challenge`` (drawing 4 and losing the turn vs a 6-card
      risk: break-even about 0.19).
    * Always calls UNO, catches, jumps in, stacks a pending penalty; asks for a card before
      drawing; offers a high card that the asker cannot play; takes the best playable
      offer; discards every villain it can after a Team Attack (highest first).

    Memory: it keeps the colour and played counts after its own last decision (reset with
    :meth:`reset`, once per episode); everything else comes from the current observation.
    """

    name = "heuristic"

    def __init__(self, rules, num_players, seed=None, params: dict | None = None):
        super().__init__(rules, num_players, seed)
        p = dict(DEFAULT_PARAMS)
        p.update(params or {})
        self.params = p
        for key, value in p.items():
            setattr(self, key, value)
        self.deck = rules.deck_counts()
        self._deck_agg = np.array(self.deck, np.float32) @ _AGG
        self.points = [C.card_points(k, rules.sewers_points) for k in range(NK)]
        self.villains = frozenset(rules.villain_kinds())
        self.reverse_skips = rules.two_player_reverse_skips
        self._forget()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._forget()

    def _forget(self) -> None:
        self._mem_color = -1  # current colour right after my last action
        self._mem_played: np.ndarray | None = None  # played counts right after my last action
        self._snap = None  # (played after, colour after, opponent sizes, penalty to next, next offset)
        self._void: list[list[float]] | None = None  # per opponent: P(holds no card of colour c)
        self._share_key = None
        self._share = None
        self._model_cache = None

    # ------------------------------------------------------------------ entry point
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        v = decode(observation, action_mask)
        self._observe(v)
        a = self.decide(v)
        self._remember(v, a)
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
            plays = [a for a in legal if a < PLAY_END]
            if not plays:
                return A.PASS
            k = A.played_kind(plays[0])
            return k if k < NCOL else A.play_action(k, self._wild_color(v, k))
        if phase == COLOR:
            return A.COLOR + self._wild_color(v, -1)
        if phase == DISCARD:
            return self._discard(v)
        if phase == OFFER:
            return self._offer(v)
        if phase == TAKE:
            return self._take(v)
        return legal[0]

    # ------------------------------------------------------------------ memory
    def _remember(self, v: View, a: int) -> None:
        """The colour and played counts right after my action, and what it does to the next
        player (for challenge judgements and for reading opponents' draws and plays)."""
        penalty = 0
        if a < PLAY_END:
            k = A.played_kind(a)
            color = k // NF if k < NCOL else (a - A.PLAY_WILD) & 3
            if k % NF == D2 and k < NCOL:
                penalty = 2 + v.pending
            elif k >= NCOL and k != C.WILD and k != C.TEAM_ATTACK:
                penalty = -1  # Draw Four / SEWERS: the next player's count is not readable
        elif A.COLOR <= a < A.DISCARD:
            color = a - A.COLOR
        else:
            color = v.color
        played_np = v.obs[_PLAYED_SLICE].copy()
        if a < PLAY_END:
            played_np[A.played_kind(a)] += 1
        self._mem_played, self._mem_color = played_np, color
        self._snap = (played_np, color, [o.hand_size for o in v.opponents], penalty, v.next_offset)

    def _observe(self, v: View) -> None:
        """Update what I believe opponents lack from what they did since my last decision.

        ``self._void[j][c]`` is evidence that opponent j holds no card of colour ``c``
        beyond what card counting alone says (see :meth:`_p_no_color`): a player who drew
        while the colour stayed ``c`` has none (it would have played it); one who left
        colour ``c`` for another probably has none; one who played a ``c`` card or received
        cards may have some again.
        """
        m = v.num_players - 1
        void = self._void
        if void is None or len(void) != m:
            void = self._void = [[0.0] * NCOLORS for _ in range(m)]
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
            if k >= NCOL:
                wild = True
            else:
                colors |= 1 << (k // NF)
                if k % NF == D2:
                    draw2 = True
        share = None
        steady = color_then >= 0 and not wild and not draw2 and colors | (1 << color_then) == 1 << color_then
        for j, o in enumerate(v.opponents):
            row = void[j]
            got = o.hand_size - sizes_then[j]
            steady_j = steady
            if j + 1 == next_off and penalty:
                if penalty < 0:
                    got = max(0, got - 4)
                    steady_j = False
                else:
                    got -= penalty
                    if share is None:
                        share = self._shares(v)
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
                        and (last >= NCOL or last // NF != color_then):
                    # it left the colour for another without drawing: likely it had none
                    if share is None:
                        share = self._shares(v)
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
                    share = self._shares(v)
                for c in range(NCOLORS):
                    if row[c]:
                        row[c] *= (1.0 - share[c]) ** extra

    # ------------------------------------------------------------------ card counting
    def _unseen(self, v: View) -> list[int]:
        """Cards of each kind whose place I don't know (other hands or DRAW)."""
        out = [d - p - h for d, p, h in zip(self.deck, v.played, v.hand)]
        known = False
        for row in v.known:
            if any(row):
                out = [x - y for x, y in zip(out, row)]
                known = True
        return [x if x > 0 else 0 for x in out] if known else out

    def _shares(self, v: View) -> list[float]:
        """Share of each colour among the unseen cards (cached per view)."""
        return self._counting(v)[0]

    def _counting(self, v: View) -> tuple:
        """(colour shares, unseen per kind or None, unseen total, per colour, per face,
        wilds), cached per view. Without known cards the per-kind list is not built (a
        kind's count is deck - played - my hand)."""
        if self._share_key is v:
            return self._share
        obs = v.obs
        if any(any(row) for row in v.known):
            unseen = self._unseen(v)
            agg = (np.array(unseen, np.float32) @ _AGG).tolist()
        else:  # deck minus played minus my hand, summed per colour, per face and for wilds
            unseen = None
            agg = (self._deck_agg - (obs[_PLAYED_SLICE] + obs[_HAND_SLICE]) @ _AGG).tolist()
        per_color, per_face, wilds = agg[:NCOLORS], agg[NCOLORS:NCOLORS + NF], agg[-1]
        total = sum(per_color) + wilds or 1.0
        out = ([x / total for x in per_color], unseen, total, per_color, per_face, wilds)
        self._share_key, self._share = v, out
        return out

    def _model(self, v: View, offset: int) -> tuple:
        """What I believe about the opponent ``offset`` seats to my left, cached per view:
        (P(no card of colour c) per colour, unknown card count, known cards, known colour
        bits, known face bits, holds a known wild)."""
        cache = self._model_cache
        if cache is not None and cache[0] is v and cache[1] == offset:
            return cache[2]
        o = v.opponents[offset - 1]
        known = o.known
        n_known = sum(known)
        unknown = max(0, o.hand_size - n_known)
        _, unseen, total, per_color, per_face, wilds = self._counting(v)
        row = self._void[offset - 1] if self._void is not None and self.track else (0.0,) * NCOLORS
        color_bits = face_bits = 0
        known_wild = False
        if n_known:
            for k in range(NK):
                if known[k]:
                    if k < NCOL:
                        color_bits |= 1 << (k // NF)
                        face_bits |= 1 << (k % NF)
                    else:
                        known_wild = True
        p_no = [0.0 if color_bits >> c & 1 else
                row[c] + (1.0 - row[c]) * (1.0 - per_color[c] / total) ** unknown for c in range(NCOLORS)]
        out = (p_no, unknown, known, color_bits, face_bits, known_wild)
        self._model_cache = (v, offset, out)
        return out

    def _p_block(self, v: View, offset: int, color: int, face: int) -> float:
        """Chance that the opponent ``offset`` seats to my left can't play on ``color``/``face``
        (a wild top: ``face`` = ``cards.NO_FACE``): its known cards, the colours I believe it
        lacks, and card counting over the unseen cards for the rest of its hand."""
        p_no, unknown, _, color_bits, face_bits, known_wild = self._model(v, offset)
        if known_wild or color_bits >> color & 1 or face < NF and face_bits >> face & 1:
            return 0.0
        _, unseen, total, _, per_face, wilds = self._counting(v)
        other = wilds
        if face < NF:
            k = color * NF + face
            other += per_face[face] - (unseen[k] if unseen is not None else
                                       self.deck[k] - v.played[k] - v.hand[k])
        return p_no[color] * (1.0 - other / total) ** unknown

    # ------------------------------------------------------------------ turn
    def _turn(self, v: View) -> int:
        legal = v.legal
        plays = [a for a in legal if a < PLAY_END]
        if not plays:
            return A.ASK if A.ASK in legal else A.DRAW
        a = self._choose_play(v, plays, stacking=v.pending > 0)
        if a < 0:  # only held-back wilds: ask or draw instead
            return A.ASK if A.ASK in legal else A.DRAW
        return a

    def _choose_play(self, v: View, plays: list[int], stacking: bool = False, drawn: bool = False) -> int:
        """The play to make among ``plays``; -1 to keep the wilds and draw instead."""
        hand, n = v.hand, v.num_players
        kinds = []
        for a in plays:
            k = a if a < A.PLAY_WILD else NCOL + ((a - A.PLAY_WILD) >> 2)
            if not kinds or kinds[-1] != k:
                kinds.append(k)
        counts = _color_counts(hand)
        n_wild = sum(hand[NCOL:])
        non_wild = v.hand_size - n_wild
        nxt_off = v.next_offset
        nxt = v.opponents[nxt_off - 1]
        danger = nxt.hand_size <= self.danger
        share = self._shares(v)
        void = self._model(v, nxt_off)[0]
        two = n == 2
        face_counts = [a + b + c + d for a, b, c, d in
                       zip(hand[0:NF], hand[NF:2 * NF], hand[2 * NF:3 * NF], hand[3 * NF:NCOL])]
        w_blk = self.w_block + (self.w_block_end if danger else 0.0)
        best_a, best_s, best_attack = -1, -1e9, False
        for k in kinds:
            if k >= NCOL:
                continue
            c, f = divmod(k, NF)
            same = counts[c] - 1
            follow = same + face_counts[f] - 1
            s = self.w_same * same + self.w_follow * follow - self.w_unseen * share[c] \
                + self.w_void * void[c] + self.w_points * self.points[k]
            if w_blk:
                s += w_blk * self._p_block(v, nxt_off, c, f)
            attack = False
            if f == D2:
                s += self.w_draw2
                attack = True
            elif f == SKIP or (f == REV and two and self.reverse_skips):
                s += self.w_skip
                attack = True
                if two and v.hand_size > 1 and follow + n_wild <= 0:
                    s -= self.w_dead_again
            elif f == REV:
                s += self.w_reverse
                if danger and v.previous_opponent.hand_size > nxt.hand_size:
                    s += self.attack * 0.8
                    attack = True
            else:
                s += self.w_number
            if attack and danger:
                s += self.attack
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
                    use = bool(self.bluff) and danger and not best_attack
                else:
                    use = best_a < 0 or danger and not best_attack or bool(self.wd4_first)
            elif k == C.TEAM_ATTACK:
                villains = sum(hand[x] for x in self.villains)
                use = best_a < 0 or villains >= self.ta_villains
            elif k == C.SEWERS:
                use = best_a < 0 or danger and not best_attack
            else:
                use = best_a < 0
            if use:
                rank = wild_ranks[k]
                if rank > wild_r:
                    wild_k, wild_r = k, rank
        if wild_k >= 0:
            hold = self.hold_drawn_wild if drawn else self.hold_wild
            if best_a < 0 and not stacking and non_wild >= hold \
                    and not (danger and wild_k in (C.WILD_DRAW4, C.SEWERS)):
                return -1  # hold the wild, draw instead
            return A.play_action(wild_k, self._wild_color(v, wild_k))
        if best_a >= 0:
            return best_a
        # only held-back wilds (a bluffable Draw Four): keep them
        return -1

    def _wild_color(self, v: View, kind: int) -> int:
        """Colour for a wild ``kind`` (-1: a colour choice without a play)."""
        hand = v.hand
        share = self._shares(v)
        void = self._model(v, v.next_offset)[0]
        h_next = v.next_opponent.hand_size
        danger = h_next <= self.danger
        best_c, best_s = 0, -1e9
        ta = kind == C.TEAM_ATTACK
        for c in range(NCOLORS):
            base = c * NF
            s = sum(hand[base:base + NF]) + 0.5 * sum(hand[base + D2:base + NF]) \
                - self.w_unseen * share[c] + self.w_void * void[c]
            if self.w_block or danger and self.w_block_end:
                s += (self.w_block + (self.w_block_end if danger else 0.0)) \
                    * self._p_block(v, v.next_offset, c, C.NO_FACE)
            if ta:
                s -= sum(hand[k] for k in self.villains if k // NF == c)  # they will be discarded
            if s > best_s:
                best_c, best_s = c, s
        return best_c

    # ------------------------------------------------------------------ other phases
    def _drawn(self, v: View) -> int:
        plays = [a for a in v.legal if a < PLAY_END]
        keep = A.PASS if A.PASS in v.legal else A.DRAW
        if not plays:
            return keep
        a = self._choose_play(v, plays, drawn=True)
        return keep if a < 0 else a

    def _challenge(self, v: View) -> int:
        legal = v.legal
        if any(a < PLAY_END for a in legal):  # stacking: pass the Draw Four on
            return A.play_action(C.WILD_DRAW4, self._wild_color(v, C.WILD_DRAW4))
        if A.CHALLENGE not in legal:
            return A.DRAW
        return A.CHALLENGE if self._guilt(v) > self.challenge else A.DRAW

    def _guilt(self, v: View) -> float:
        """Estimated chance that the Draw Four just played was illegal (a bluff)."""
        off = v.num_players - v.next_offset  # the player before me
        if v.opponents[off - 1].hand_size == 0:
            return 0.0
        p_no = self._model(v, off)[0]
        prev = self._previous_color(v)
        if prev >= 0:
            p = 1.0 - p_no[prev]
        else:
            p = sum(1.0 - x for x in p_no) / NCOLORS
        if p >= 1.0:
            return 1.0
        odds = p / max(1e-9, 1.0 - p) * self.bluff_odds
        return odds / (1.0 + odds)

    def _previous_color(self, v: View) -> int:
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
            if k < NCOL:
                colors.add(k // NF)
            else:
                wilds += d
        if wilds != 1:  # other wilds were played in between: the colour may have changed
            return -1
        if not colors:
            return self._mem_color
        if len(colors) == 1:
            return colors.pop()
        return -1

    def _discard(self, v: View) -> int:
        villains = [a - A.DISCARD for a in v.legal if A.DISCARD <= a < A.ASK]
        if not villains:
            return A.PASS
        counts = _color_counts(v.hand)
        return A.DISCARD + max(villains, key=lambda k: (self.points[k], -counts[k // NF]))

    def _offer(self, v: View) -> int:
        """Offer a high card that the asker cannot play now (else pass)."""
        color, face = v.color, v.top_face
        counts = _color_counts(v.hand)
        best, best_s = A.PASS, -1e9
        for a in v.legal:
            if not A.OFFER <= a < A.TAKE:
                continue
            k = a - A.OFFER
            if k >= NCOL or _playable(k, color, face):
                continue
            s = self.points[k] - 3.0 * counts[k // NF]
            if s > best_s:
                best, best_s = a, s
        return best

    def _take(self, v: View) -> int:
        """Take the playable offer that plays best (a wild first); else pass."""
        offers = v.offers
        color, face = v.color, v.top_face
        best, best_s = A.PASS, -1e9
        counts = _color_counts(v.hand)
        for a in v.legal:
            if a < A.TAKE:
                continue
            k = offers[a - A.TAKE]
            if k < 0 or not _playable(k, color, face):
                continue
            s = 100.0 if k >= NCOL else counts[k // NF] + (3.0 if k % NF in (D2, SKIP) else 0.0)
            if s > best_s:
                best, best_s = a, s
        return best


def _parse_params(spec: str) -> dict:
    """``heuristic:a=1,b=2`` -> {"a": 1.0, "b": 2.0} (known keys only)."""
    if ":" not in spec:
        return {}
    out = {}
    for item in spec.split(":", 1)[1].split(","):
        if not item.strip():
            continue
        key, _, value = item.partition("=")
        key = key.strip()
        if key not in DEFAULT_PARAMS:
            raise ValueError(f"unknown heuristic parameter {key!r} in {spec!r}; "
                             f"known: {sorted(DEFAULT_PARAMS)}")
        out[key] = float(value)
    return out


register_agent("random", lambda spec, rules, n, seed: RandomAgent(rules, n, seed))
register_agent("greedy", lambda spec, rules, n, seed: GreedyAgent(rules, n, seed))
register_agent("heuristic", lambda spec, rules, n, seed: HeuristicAgent(rules, n, seed, _parse_params(spec)))
