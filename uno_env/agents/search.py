"""The ``search`` bot: determinised Monte-Carlo search on top of the heuristic.

Spec strings: ``search`` (the defaults) or ``search:key=value,...`` with keys the fields of
:class:`SearchOptions`, e.g. ``search:simulations=400`` or ``search:simulations=200,z=1.5``.
An unknown key, a key without a value, a value that is not a number (an integer where
the field is one), out of its range, or a key given twice is a ``ValueError`` naming it.

**How it decides.** It keeps a :class:`~uno_env.agents.heuristic.HeuristicAgent` that
sees every observation (its :class:`~uno_env.agents.beliefs.Beliefs` count cards and read
opponents) and proposes the heuristic's move, the *default*. In a searched phase with a
choice, it then compares the candidate moves on sampled deals:

1. **Determinise** (:meth:`SearchAgent.determinise`): deal the cards hidden from it (other
   hands, the DRAW pile) at random, consistently with its observation only: the unseen
   cards are deck - played since the last reshuffle - my hand - cards known to be in other
   hands; each opponent gets its known cards plus as many unseen ones as its hand size
   says; the rest, shuffled, is the DRAW pile. Sampling is biased by what it read about
   the opponents (option ``voids``): a colour (or face) an opponent is believed to lack is
   left out of its hand with that probability. With two players the :class:`Tracker`
   below supplies these; otherwise the heuristic's ``Beliefs`` (colours only).
2. **Roll out** every candidate on the same deal with the same random numbers (common
   random numbers: the comparison is paired) on a private :class:`Engine` (one round),
   every seat played by :class:`RolloutPolicy` (the heuristic's card ranking on the state,
   ~4 us a decision), to the end of the round (``+1`` win, ``-1`` loss; ``0`` if cut at
   ``max_steps``) or, with ``depth``, for that many decisions and then scored by a
   logistic value model of the position (:func:`value_features`, two players).
3. **Keep the default unless another move wins the paired test**: the candidate with the
   best mean gain over the default (outcome difference on the same deals) replaces it
   only if that gain exceeds ``margin`` and ``z`` standard errors. With ``halving`` the
   budget of ``simulations`` rollouts is spent in rounds of successive halving: after each
   round the worse half of the candidates (never the default) is dropped.

Candidates: every legal action, except that with ``colors=1`` a wild is tried only in
the colours still in my hand and the heuristic's colour for it.

**Where it searches.** Turns, drawn cards, Wild Draw Four challenges and the colour of a
first wild (phases ``turn``, ``drawn``, ``challenge``, ``color``), in every ruleset and
player count. Elsewhere it plays the heuristic's move: a UNO call, Team Attack discards,
and the windows (catch, jump-in, offers, takes), whose state (who was asked, hidden
answers) its observation does not rebuild; also wherever the rebuilt state's legal moves
differ from its mask (a safety net: it then does not search). Multi-round episodes are
searched as one round (the round's winner scores +1).

**The opponent tracker** (:class:`Tracker`, two players, rules without stacking, jump-in,
SEVEN slap, giving or explicit UNO calls, where every change between two of my decisions
is the opponent's): from the cards played and its hand size since my last move,

* an opponent that drew (and played at most the card it drew) could not play: it holds no
  card of the colour then current, nor of the top card's face (wilds aside);
* one that played a Wild (or a Wild Draw Four while I held 2+ cards) without drawing had
  no playable coloured card either (a player keeps wilds for later);
* one that left colour ``c`` for another colour without drawing probably lacks ``c``
  (evidence 0.5, measured on heuristic games: it then held ``c`` 33% of the time, against
  68% at other times);
* a card of colour ``c`` or face ``f`` it plays clears that void; every card it receives
  weakens the voids by the chance that the card is of that colour or face, the cards it drew
  and kept by the chance given that they were not playable.

Measured on 150 heuristic games (2,404 decisions), the Brier score of "the opponent holds
colour c" of the sampled hands is 0.215 with uniform sampling, 0.174 with the heuristic's
Beliefs and 0.159 with the tracker; with voids at 1.0 the opponent held the colour 1.2% of
the time (Beliefs: 9.9%).

**Cost.** One rollout to the end of a 2-player classic round takes about 0.15 ms of CPU;
``simulations`` sets the time per searched decision (the module of the bench
``bench/bench_search.py`` measures it), and a decision without a choice costs nothing.

It never reads hidden state: it decides from its observations (decoded by
:func:`~uno_env.agents.view.decode`) and its own seeded generators.

Version history: 0 (first release).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import numbers
from typing import Any, Mapping

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import observation as O
from uno_env.game.rules import LIMITS
from uno_env.agents.base import register_agent
from uno_env.agents.bots import PyRngAgent
from uno_env.agents.heuristic import HeuristicAgent, HeuristicWeights
from uno_env.agents.view import View, decode
from uno_env.game.engine import CHALLENGE, COLOR, COLOR_BITS, DRAWN, TURN, Engine, State, new_history
from uno_env.game.observation import ObservationEncoder

NCOLORS, NFACES = C.NUM_COLORS, C.NUM_FACES
_COLOR_OF, _FACE_OF = C.COLOR_OF, C.FACE_OF
_PLAYED_SLICE = slice(O.PLAYED, O.PLAYED + C.NUM_KINDS)
_D2, _REV, _SKIP = C.FACE_DRAW2, C.FACE_REVERSE, C.FACE_SKIP
SEARCHED_PHASES = frozenset((TURN, DRAWN, CHALLENGE, COLOR))
SWITCH_EVIDENCE = 0.5  # the tracker's void evidence for a colour an opponent left (see above)


@dataclasses.dataclass(frozen=True, slots=True)
class SearchOptions:
    """The search's options (``search:key=value,...``); see the module docstring."""

    simulations: int = 800  # rollouts per searched decision, shared by the candidate moves
    z: float = 1.0  # the default is replaced only by a move whose mean gain exceeds z standard errors
    margin: float = 0.0  # ... and this mean gain (outcomes +1 / -1)
    halving: int = 1  # 1: successive halving of the candidates; 0: every candidate gets the same samples
    colors: int = 1  # 1: a wild is tried in the colours I hold and the heuristic's; 0: in all four
    voids: int = 2  # sampling of hidden hands: 0 uniform, 1 the Beliefs' colour voids, 2 the Tracker's
    depth: int = 0  # two players: decisions before the value model scores a rollout (0: to the end)
    fast: int = 1  # rollout players: 1 the RolloutPolicy on the state, 0 heuristic agents on observations
    max_steps: int = 1000  # a rollout longer than this many decisions is a draw (0)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            low, high = _BOUNDS[f.name]
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise ValueError(f"search option {f.name!r} must be a finite number, got {value!r}")
            if f.name in _INTEGER and value != int(value):
                raise ValueError(f"search option {f.name!r} must be an integer, got {value!r}")
            if not low <= value <= high:
                raise ValueError(f"search option {f.name!r} must be in [{low}, {high}], got {value!r}")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "SearchOptions":
        """The defaults with ``values`` replaced; ``ValueError`` naming an unknown key."""
        unknown = sorted(set(values) - set(OPTION_NAMES))
        if unknown:
            raise ValueError(f"unknown search option {unknown[0]!r}; known: {sorted(OPTION_NAMES)}")
        return cls(**{k: int(v) if k in _INTEGER and isinstance(v, numbers.Real) and v == int(v) else v
                      for k, v in values.items()})

    @classmethod
    def from_spec(cls, spec: str) -> "SearchOptions":
        """``search`` -> the defaults; ``search:simulations=400,z=1.5`` -> those replaced."""
        if ":" not in spec:
            return cls()
        values: dict[str, Any] = {}
        for item in spec.split(":", 1)[1].split(","):
            if not item.strip():
                continue
            key, eq, text = item.partition("=")
            key, text = key.strip(), text.strip()
            if key not in OPTION_NAMES:
                raise ValueError(f"unknown search option {key!r} in {spec!r}; known: {sorted(OPTION_NAMES)}")
            if not eq or not text:
                raise ValueError(f"search option {key!r} has no value in {spec!r} (key=value)")
            if key in values:
                raise ValueError(f"search option {key!r} is given twice in {spec!r}")
            try:
                values[key] = int(text) if key in _INTEGER else float(text)
            except ValueError:
                kind = "an integer" if key in _INTEGER else "a number"
                raise ValueError(f"search option {key!r} must be {kind}, got {text!r} in {spec!r}") from None
        return cls(**values)


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(SearchOptions))
_INTEGER = frozenset(f.name for f in dataclasses.fields(SearchOptions) if f.type in (int, "int"))
_BOUNDS = {"simulations": (1, 10 ** 6), "z": (0.0, 100.0), "margin": (0.0, 2.0), "halving": (0, 1),
           "colors": (0, 1), "voids": (0, 2), "depth": (0, 10 ** 6), "fast": (0, 1),
           "max_steps": (1, 10 ** 6)}


# ---------------------------------------------------------------------- value model
def value_features(me: list, opp: list, color: int, top: int) -> list:
    """Features of a regular turn for the value model, for the player to move: ``me`` and
    ``opp`` the two hands (counts per kind), ``color`` / ``top`` the table. Per hand: log
    and inverse of (size + 1), size 1, size 2, Wilds, Wild Draw Fours, Draw Twos, Skips and
    Reverses, colours held, cards of its most held colour; then whether I can play."""
    out = []
    for h in (me, opp):
        n = sum(h)
        cols = [sum(h[0:13]), sum(h[13:26]), sum(h[26:39]), sum(h[39:52])]
        out += [math.log(n + 1.0), 1.0 / (n + 1.0), float(n == 1), float(n == 2), h[C.WILD],
                h[C.WILD_DRAW4], h[_D2] + h[13 + _D2] + h[26 + _D2] + h[39 + _D2],
                h[_REV] + h[13 + _REV] + h[26 + _REV] + h[39 + _REV]
                + h[_SKIP] + h[13 + _SKIP] + h[26 + _SKIP] + h[39 + _SKIP],
                sum(1 for x in cols if x), max(cols)]
    face = _FACE_OF[top]
    playable = any(me[C.NUM_COLORED:]) or color >= 0 and any(me[color * 13:color * 13 + 13]) \
        or face != C.NO_FACE and any(me[face:C.NUM_COLORED:13])
    out.append(float(playable))
    return out


# Logistic regression: P(the player to move wins) = sigmoid(w0 + w . value_features), fitted
# on 626,914 turns of 20,000 heuristic-vs-heuristic games (classic, 2 players) by
# ``python bench/fit_search_value.py --games 20000 --seed 31337``; held-out log loss 0.584
# (constant 0.692, hand sizes only 0.665).
VALUE_WEIGHTS = (-1.2044, -1.7883, -3.7342, 0.6106, 0.0730, 0.3812, 0.9428, 0.4964, 0.1833, -0.3162, -0.0401,
                 2.0467, 6.1358, -0.7936, -0.1320, -0.4746, -1.0326, -0.4791, -0.1588, 0.2411, 0.0601,
                 0.7365)


def value(s: State) -> float:
    """The value model's estimate for seat 0 of a 2-player state in a regular turn, as an
    expected reward in [-1, 1]."""
    p = s.actor
    f = value_features(s.hands[p].tolist(), s.hands[1 - p].tolist(), s.color, s.discard[-1])
    w = VALUE_WEIGHTS
    z = w[0] + sum(a * b for a, b in zip(w[1:], f))
    v = 2.0 / (1.0 + math.exp(-z)) - 1.0
    return v if p == 0 else -v


# ---------------------------------------------------------------------- opponent tracker
class Tracker:
    """Colours and faces opponents lack, read from their draws and plays (two players; the
    rules of the module docstring). Per decision, like :class:`Beliefs`::

        tracker.observe(view, shares)   # shares: colour shares of the unseen cards
        tracker.cvoid[0][c], tracker.fvoid[0][f]   # evidence that it holds no colour c / face f
        tracker.remember(view, action)

    Evidence 1.0 means certain (it could not play on that colour), lower values come from
    colour switches and from cards received since.
    """

    def __init__(self, rules):
        self.active = not (rules.stacking or rules.jump_in or rules.seven_slap or rules.giving
                           or rules.uno_call == "explicit")
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new episode)."""
        self.snap = None  # after my last action: played counts, colour, top, skipped, my size, their sizes
        self.cvoid: list[list[float]] | None = None  # per opponent, per colour
        self.fvoid: list[list[float]] | None = None  # per opponent, per face

    def remember(self, v: View, action: int) -> None:
        """The table right after my ``action``."""
        top, color, skipped = v.top, v.color, False
        played = v.obs[_PLAYED_SLICE].copy()
        if action < A.PLAY_END:
            top = A.PLAYED_KIND[action]
            played[top] += 1
            color = _COLOR_OF[top] if _COLOR_OF[top] >= 0 else A.played_color(action)
            f = _FACE_OF[top]
            skipped = f == _SKIP or f == _D2 or (f == _REV and v.num_players == 2) \
                or top == C.WILD_DRAW4 or top == C.SEWERS
        elif action in A.COLOR_IDS:
            color = A.chosen_color(action)
        self.snap = (played, color, top, skipped, v.hand_size - (action < A.PLAY_END),
                     [o.hand_size for o in v.opponents])

    def observe(self, v: View, shares: list[float]) -> None:
        """Update the voids from what the opponent did since my last decision."""
        m = v.num_players - 1
        if self.cvoid is None or len(self.cvoid) != m:
            self.cvoid = [[0.0] * NCOLORS for _ in range(m)]
            self.fvoid = [[0.0] * NFACES for _ in range(m)]
        snap, self.snap = self.snap, None
        if snap is None or not self.active or m != 1:
            return
        played_then, color_then, top_then, skipped, my_size, sizes_then = snap
        diff = v.obs[_PLAYED_SLICE] - played_then
        if (diff < 0).any():
            return  # a reshuffle (or a new round) since
        changed = diff.nonzero()[0].tolist()
        n_played = int(diff.sum())
        got = v.opponents[0].hand_size - sizes_then[0]
        cv, fv = self.cvoid[0], self.fvoid[0]
        face_then = _FACE_OF[top_then]
        from_draw = False
        if skipped:  # it had no turn; what it got (a penalty) may be of any colour and face
            extra = got + n_played
        else:
            drew = got + n_played
            wild = n_played == 1 and drew == 0 and (changed[0] == C.WILD or changed[0] == C.WILD_DRAW4 and my_size > 1)
            lacked = color_then >= 0 and (drew >= 1 and n_played <= 1 or wild)
            extra = 0
            if lacked:
                from_draw = drew >= 1  # the card it played, if any, is the one it drew
                cv[color_then] = 1.0
                if face_then != C.NO_FACE:
                    fv[face_then] = 1.0
                kept = drew - n_played  # drawn and kept: not playable (or a wild it holds back)
                if kept > 0:
                    rest = max(1e-6, 1.0 - shares[color_then])
                    for c in range(NCOLORS):
                        if c != color_then and cv[c]:
                            cv[c] *= (1.0 - shares[c] / rest) ** kept
                    for f in range(NFACES):
                        if f != face_then and fv[f]:
                            fv[f] *= (1.0 - 1.0 / NFACES) ** kept
            else:
                extra = max(0, drew)
                if n_played == 1 and drew == 0 and color_then >= 0:
                    c = _COLOR_OF[changed[0]]
                    if c >= 0 and c != color_then:  # it left the colour
                        cv[color_then] = max(cv[color_then], SWITCH_EVIDENCE)
        if not from_draw:
            for k in changed:
                c = _COLOR_OF[k]
                if c >= 0:
                    cv[c] = 0.0
                    fv[_FACE_OF[k]] = 0.0
        if extra > 0:
            for c in range(NCOLORS):
                if cv[c]:
                    cv[c] *= (1.0 - shares[c]) ** extra
            for f in range(NFACES):
                if fv[f]:
                    fv[f] *= (1.0 - 1.0 / NFACES) ** extra


# ---------------------------------------------------------------------- the rollout policy
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


# ---------------------------------------------------------------------- the agent
def _clone(s: State) -> State:
    """A copy of ``s`` that the engine can play on without touching ``s``."""
    t = copy.copy(s)
    t.hands = s.hands.copy()
    t.held = list(s.held)
    t.hand_size = list(s.hand_size)
    t.draw_pile = list(s.draw_pile)
    t.discard = list(s.discard)
    t.played = s.played.copy()
    t.known = s.known.copy()
    t.history = s.history.copy()
    t.queue = list(s.queue)
    t.answers = list(s.answers)
    t.offers = list(s.offers)
    t.uno_called = list(s.uno_called)
    t.scores = list(s.scores)
    t.round_points = list(s.round_points)
    t.legal_cache = None
    return t


class SearchAgent(PyRngAgent):
    """Determinised Monte-Carlo search over the heuristic's moves (see the module docstring).

    ``options``: a :class:`SearchOptions` (or a mapping of its fields). ``stats``: searched
    decisions and how many of them replaced the heuristic's move, since construction.
    """

    name = "search"

    def __init__(self, rules, num_players, seed=None, options: SearchOptions | Mapping[str, Any] | None = None):
        super().__init__(rules, num_players, seed)
        if options is None:
            options = SearchOptions()
        elif not isinstance(options, SearchOptions):
            options = SearchOptions.from_mapping(options)
        self.options = options
        self.h = HeuristicAgent(rules, num_players)
        self.tracker = Tracker(rules)
        # rollouts: one round, no step cap of the rules (max_steps cuts them)
        self.engine = Engine(rules.replace(episode="round", max_steps=LIMITS["max_steps"][1]), num_players)
        self.policy = RolloutPolicy(self.engine)
        self._encoder: ObservationEncoder | None = None
        self._players: list[HeuristicAgent] | None = None
        self.deck = rules.deck_counts()
        self.stats = {"searched": 0, "overrides": 0}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.h.reset()
        self.tracker.reset()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        v = decode(observation, action_mask)
        self.observe(v)
        a = self.h.decide(v)
        if v.phase in SEARCHED_PHASES and len(v.legal) > 1 and A.UNO not in v.legal:
            a = self._search(v, a)
        self.h.beliefs.remember(v, a)
        self.tracker.remember(v, a)
        return a

    def observe(self, v: View) -> None:
        """Read what happened since my last decision (the first step of :meth:`act`)."""
        self.h.beliefs.observe(v)
        self.tracker.observe(v, self.h.beliefs.shares(v))

    # ------------------------------------------------------------------ search
    def candidates(self, v: View, default: int) -> list[int]:
        """The moves compared in decision ``v`` (``default``: the heuristic's move)."""
        if not self.options.colors:
            return list(v.legal)
        held = [sum(v.hand[sl]) for sl in C.COLOR_SLICES]
        out = []
        for a in v.legal:
            if A.PLAY_WILD <= a < A.PLAY_END and a != default:
                c = A.played_color(a)
                if not held[c] and c != self.h._wild_color(v, A.PLAYED_KIND[a]):
                    continue
            out.append(a)
        return out

    def _search(self, v: View, default: int) -> int:
        cands = self.candidates(v, default)
        if len(cands) < 2:
            return default
        prep = self._prepare(v)
        if prep is None:
            return default
        first = self._determinise(prep)
        if self.engine.legal_actions(first) != v.legal:
            return default  # the rebuilt state does not match what I see: no search
        o = self.options
        step = self.engine.step
        d = cands.index(default)
        alive = list(range(len(cands)))
        budget = int(o.simulations)
        rounds = max(1, math.ceil(math.log2(len(cands)))) if o.halving else 1
        diffs: list[list[float]] = [[] for _ in cands]
        for r in range(rounds):
            samples = max(2, budget // (len(alive) * (rounds - r)))
            budget -= samples * len(alive)
            for _ in range(samples):
                base = first if first is not None else self._determinise(prep)
                first = None
                seed = self.py.getrandbits(63)
                out = {}
                for ci in alive:  # common random numbers: the same deal and generator for each
                    s = _clone(base)
                    s.rng = np.random.default_rng(seed)
                    step(s, cands[ci])
                    out[ci] = self._rollout(s)
                for ci in alive:
                    diffs[ci].append(out[ci] - out[d])
            if r < rounds - 1:
                others = sorted((ci for ci in alive if ci != d), key=lambda ci: -sum(diffs[ci]) / len(diffs[ci]))
                alive = sorted([d] + others[:max(1, (len(alive) + 1) // 2 - 1)])
            if budget <= 0:
                break
        self.stats["searched"] += 1
        best, best_mean, best_se = -1, -math.inf, 0.0
        for ci in alive:
            if ci == d:
                continue
            x = diffs[ci]
            mean = sum(x) / len(x)
            if mean > best_mean:
                var = sum((y - mean) ** 2 for y in x) / max(1, len(x) - 1)
                best, best_mean, best_se = ci, mean, math.sqrt(var / len(x))
        if best >= 0 and best_mean > o.margin and best_mean > o.z * best_se:
            self.stats["overrides"] += 1
            return cands[best]
        return default

    def _rollout(self, s: State) -> float:
        """Play ``s`` on (to the end, or ``depth`` decisions and the value model); seat 0's outcome."""
        engine = self.engine
        legal_actions, step = engine.legal_actions, engine.step
        o = self.options
        cap = s.steps + int(o.max_steps)
        stop = s.steps + int(o.depth) if o.depth and s.n == 2 else cap
        if o.fast:
            policy = self.policy
            while not s.game_over:
                if s.steps >= stop:
                    if s.steps >= cap:
                        return 0.0
                    if s.phase == TURN:
                        return value(s)
                step(s, policy(s, legal_actions(s)))
        else:
            if self._players is None:
                self._encoder = ObservationEncoder(engine)
                self._players = [HeuristicAgent(self.rules, s.n) for _ in range(s.n)]
            encode, players = self._encoder.encode, self._players
            for p in players:
                p.beliefs.reset()
            while not s.game_over:
                if s.steps >= stop:
                    if s.steps >= cap:
                        return 0.0
                    if s.phase == TURN:
                        return value(s)
                p = s.actor
                step(s, players[p].act(encode(s, p), A.legal_mask(legal_actions(s))))
        return engine.returns(s)[0]

    # ------------------------------------------------------------------ determinisation
    def determinise(self, v: View) -> State | None:
        """One random deal of the cards hidden from me, consistent with my observation ``v``
        (decoded with its mask) and what I read about the opponents, as an engine state in
        which I am seat 0 (the player ``j`` seats to my left is seat ``j``); None where the
        observation does not rebuild a state. As in the search: after :meth:`act` has seen
        the decisions before ``v`` and :meth:`observe` has read ``v``."""
        prep = self._prepare(v)
        return None if prep is None else self._determinise(prep)

    def _prepare(self, v: View):
        """What every deal of this decision shares: a template state (my hand, the table, the
        phase), the unseen cards, and per opponent the cards to deal it and the evidence
        that it lacks each colour (and face). None if no state can be rebuilt."""
        n = v.num_players
        hand, known = v.hand, v.known
        unseen = [d - p - h for d, p, h in zip(self.deck, v.played, hand)]
        if v.known_any:
            for row in known:
                unseen = [x - y for x, y in zip(unseen, row)]
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
        if self.rules.giving:
            t.asked = A.ASK not in v.legal
            t.offers = [-1] + list(v.offers)  # offers stay open after a pass until the turn ends
        if v.phase == DRAWN:
            plays = [a for a in v.legal if a < A.PLAY_END]
            if not plays:
                return None
            t.drawn = A.PLAYED_KIND[plays[0]]
            t.drawn_from_offer = A.DRAW in v.legal
        prev = -1
        if v.phase == CHALLENGE:
            t.wd4_player = (0 - v.direction) % n
            prev = t.wd4_color if t.wd4_color >= 0 else self.h.beliefs.previous_color(v)
        sizes = [v.hand_size] + [o.hand_size for o in v.opponents]
        t.uno_called = [v.uno_called] + [o.uno_called for o in v.opponents] \
            if self.rules.uno_call == "explicit" else [x == 1 for x in sizes]
        o, tr = self.options, self.tracker
        use_tracker = o.voids == 2 and tr.active and n == 2 and tr.cvoid is not None
        deal = []
        for j, opp in enumerate(v.opponents):
            need = opp.hand_size - int(hands[j + 1].sum())
            if need < 0:
                return None
            if use_tracker:
                pc, pf = tr.cvoid[j], tr.fvoid[j]
            elif o.voids and self.h.beliefs.void is not None:
                pc, pf = self.h.beliefs.void[j], None
            else:
                pc, pf = None, None
            deal.append((need, pc, pf))
        if sum(d[0] for d in deal) > len(pool):
            return None
        return t, pool, deal, prev, sizes

    def _determinise(self, prep) -> State:
        """One deal of the hidden cards on the template of :meth:`_prepare`."""
        t, pool, deal, prev, sizes = prep
        s = _clone(t)
        rng = self.rng
        order = rng.permutation(pool).tolist()
        hands = s.hands
        for j, (need, pc, pf) in enumerate(deal):
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
                    if len(take) < need and not (c >= 0 and (excl >> c & 1 or excl >> (NCOLORS + _FACE_OF[k]) & 1)):
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
        s.held = [sum(1 << k for k in np.flatnonzero(hands[q]).tolist()) for q in range(s.n)]
        s.hand_size = list(sizes)
        if s.phase == CHALLENGE:  # guilty if that hand holds the colour before the Draw Four
            if prev < 0:
                prev = int(rng.integers(NCOLORS))
            s.wd4_guilty = bool(s.held[s.wd4_player] & COLOR_BITS[prev])
        return s


register_agent("search", lambda spec, rules, n, seed: SearchAgent(rules, n, seed, SearchOptions.from_spec(spec)))
