"""Search with learned beliefs: the ``search`` bot dealing the hidden hands from a belief network, or an oracle.

    python experiments/belief_search.py --players 4 --fit-games 8000 --fit-seed 99 \\
        --games 1600 --seed 20261202 --simulations 200 --workers 2

``experiments/belief_quality.py`` finds that a network reading the observation predicts "does this
opponent hold a card of colour c" better than the heuristic's ``Beliefs`` (held-out Brier
0.146 against 0.172, 4 players), and ``experiments/headroom.py`` that a player who knows the hands
wins 44% against 3 heuristics where ``search`` sits at par. This script asks what the
better beliefs are worth to the ``search`` bot:

1. **Fit** the belief network of ``belief_quality`` (``obs_features`` in, two tanh layers of
   256, one logit per opponent and colour) on every turn with a choice of ``--fit-games``
   heuristic self-play games (seed ``--fit-seed``), ``--epochs`` passes of Adam.
2. **Play** ``--games`` games (classic, seats rotated: the searching seat is ``game % players``)
   once per arm of ``--arms``, against ``players - 1`` heuristics: the ``search`` bot with
   ``--simulations`` rollouts per decision, dealing the hidden hands

   ================  ===================================================================
   ``Beliefs``       the bot as shipped: from the colour voids of the heuristic's ``Beliefs``
                     (``deals=beliefs``) in 3+ players, from its tracker's colours and faces
                     in 2 (``deals=tracker``, the default)
   ``learned``       from the network's probabilities, through
                     :func:`colour_evidence`
                     (:class:`LearnedBeliefSearch`)
   ``events``        from the probabilities of a network that also reads the round's public
                     events (``experiments/history_beliefs.py``'s GRU, fitted on the same
                     games), through :func:`colour_evidence` (:class:`EventBeliefSearch`)
   ``summary``       the same network and trainer without the GRU (the observation alone):
                     the controlled comparison for ``events``
   ``true-colours``  an oracle (0.5.9): every colour an opponent's hidden cards lack is
                     left out of its deals, surely (:class:`TrueVoidSearch`)
   ``true-voids``    an oracle (0.5.9): every colour and every face (number or action)
                     they lack is left out
   ``true-hands``    an oracle (0.5.9): every opponent is dealt its true hand; only the
                     DRAW pile is shuffled (:class:`TrueHandSearch`)
   ``true-actions``  an oracle (0.5.10): every opponent is dealt its true action cards
                     and wilds, the rest of its hand uniformly from the unseen numbers
                     (:class:`TrueKindSearch`)
   ``true-numbers``  an oracle (0.5.10): the converse, its true numbers and the rest
                     uniformly from the unseen action cards and wilds
   ``replayed``      the opponents' policy inverted (0.5.10): the ``Beliefs`` deals,
                     each opponent's hand dealt again until the heuristic holding it
                     would have made that opponent's last play (:class:`ReplayedSearch`)
   ``replayed-all``  the same, on every play it made since it last took a card (or
                     made any other decision)
   ================  ===================================================================

   The void oracles bound what any void belief, learned or counted, can give this search
   (the rest of each hand is still dealt at random); ``true-hands`` bounds what any belief
   can. Every arm plays the same deals with the same seeds, so the differences between arms
   are paired.

Prints each arm's win rate (Wilson 95%), each other arm's paired difference from the first
(mean over games of win(arm) - win(first), with its 95% normal interval), for each replayed arm
how its opponents' plays were checked (``checks``: plays read, agreed at once, a new deal
agreed, none found) and, first, how good each way of dealing is (:func:`deal_brier`,
``--brier-games`` games from ``--seed``). The
network is fitted only when the ``learned`` arm or the Brier scores use it; the ``summary`` and
``events`` arms fit theirs (``history_beliefs.EventBelief``, on the same ``--fit-games`` games
from ``--fit-seed``, ``--epochs`` passes) only when named. ``--out`` also writes the results,
with every arm's game-by-game wins, to a new JSON file: arms of separate runs with the same
``--seed``, ``--games`` and ``--simulations`` play the same deals and pair game by game.

The network is a bench object, fitted at run time: no agent spec uses it, and nothing is
loaded from disk.

Measured (0.5.8), the command above (the arms were played by the probe this script was cut
from, on the same fit and games: the script's fit gives the probe's weights, and it replays
the probe's first 8 games of each arm): the network fitted on 285,320 turns in 291 s; 1,600
games per arm, about 50 minutes per arm on one core: ``Beliefs`` 25.0% [22.9, 27.2],
learned 24.6% [22.6, 26.8], paired difference -0.4 points [-1.8, +1.0]. Deal Brier (40
games, 30 deals a turn): uniform 0.204, ``Beliefs`` 0.177, learned 0.153, the network
itself 0.149. The deals are better; the search bot is not.

Measured (0.5.9), the oracles: ``--games 1600 --seed 20261202 --simulations 200 --workers 2
--brier-games 0 --arms Beliefs,true-colours,true-voids,true-hands``, 2,051 s on 2 cores:
``Beliefs`` 25.0% [22.9, 27.2] (the 0.5.8 arm, replayed exactly), ``true-colours`` 27.4%
[25.2, 29.6], ``true-voids`` 27.8% [25.6, 30.0], ``true-hands`` 43.8% [41.3, 46.2]; paired
differences from ``Beliefs`` +2.4 [+0.8, +3.9], +2.8 [+1.0, +4.5] and +18.8 [+16.2, +21.3]
points. Perfect voids are worth under 3 points; the hands card by card, the rest.

Measured (0.5.10), the same command with ``--arms Beliefs,true-actions,true-numbers``
(1,584 s on 2 cores for the two new arms): ``true-actions`` 28.8% [26.6, 31.1] and
``true-numbers`` 31.8% [29.6, 34.1], paired +3.8 [+2.0, +5.6] and +6.8 [+4.9, +8.7] points:
no one slice of the hands holds the edge. (The 0.5.9 probe they come from did not mix the
DRAW pile again after dealing the random part of the hands, and measured 29.0% and 30.6%.) With ``--arms Beliefs,replayed,replayed-all``
(824 s and 1,259 s on 2 cores for the two new arms): ``replayed`` 25.5% [23.4, 27.7] and
``replayed-all`` 25.4% [23.3, 27.6], paired +0.5 [-0.9, +1.9] and +0.4 [-1.0, +1.8] points.
Over the first 40 of those games (``--games 40 --arms replayed,replayed-all``, which prints
the counts), 55.5% of the ``Beliefs`` deals agreed with an opponent's last play and 38.0%
with every play since its last draw (no agreeing deal was found for 1.1% and 8.3% of the
plays read): the opponents' moves tell about a bit of each hand, which the search does not
turn into wins.

Deterministic: the network from ``--fit-seed``, every game from ``(--seed, game)``; ``--workers``
changes the wall time, not the games.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import time
from collections import Counter
from typing import Sequence
from concurrent.futures import ProcessPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from belief_quality import collect, colour_face_grid, holds_colours, train_mlp  # noqa: E402
from uno_env.agents.checkpoint import obs_features_layout  # noqa: E402
from uno_env.agents.heuristic import HeuristicAgent  # noqa: E402
from uno_env.agents.search import SearchAgent  # noqa: E402
from uno_env.agents.search.determinise import Evidence, Template, deal, settle, template, unseen_counts  # noqa: E402
from uno_env.agents.view import View, decode  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game import cards as C  # noqa: E402
from uno_env.game.engine import TURN, Engine, State  # noqa: E402
from uno_env.game.observation import ObservationEncoder  # noqa: E402
from uno_env.game.rules import Rules, make_rules  # noqa: E402
from uno_env.tools.stats import mean_interval, wilson_interval  # noqa: E402

EVENT_ARMS = ("summary", "events")  # the arms that deal from history_beliefs' networks
ARMS = ("Beliefs", "learned", "summary", "events", "true-colours", "true-voids", "true-hands", "true-actions", "true-numbers",
        "replayed", "replayed-all")
# the action cards and wilds (Draw Two, Reverse, Skip of each colour, every wild kind): the
# kinds the ``true-actions`` arm deals as they are, and ``true-numbers`` deals at random
ACTION_KINDS = np.array([C.COLOR_OF[k] < 0 or C.FACE_OF[k] >= C.FACE_DRAW2 for k in range(C.NUM_KINDS)])


def determinise(bot: SearchAgent, v: View) -> State | None:
    """One deal ``bot``'s search would play in decision ``v`` (decoded with its mask), as an
    engine state in which it is seat 0 (the player ``j`` seats to its left is seat ``j``);
    None where the observation does not rebuild a state. As in the search: after ``bot`` has
    seen the decisions before ``v`` and :meth:`SearchAgent.observe` has read ``v``."""
    tp = bot.deal_template(v)
    return None if tp is None else bot.sample_deal(tp)


def colour_evidence(v: View, deck: Sequence[int], p_holds) -> list[tuple[Evidence, Evidence]]:
    """Per opponent, the colour evidence under which :func:`deal` gives it at least one card of
    colour ``c`` with probability ``p_holds[j][c]`` (``j``: 0 for the player to my left; any
    predictor of "holds a card of that colour", wilds aside, e.g. a learned belief model).

    A uniform deal of the unseen cards gives an opponent that needs ``n`` more cards a card
    of colour ``c`` with the hypergeometric chance ``prior = 1 - C(U - u_c, n) / C(U, n)``
    (``U`` unseen cards, ``u_c`` of colour ``c``). Leaving the colour out with probability
    ``e`` makes it ``(1 - e) * prior``, so ``e = 1 - p / prior``; where ``p >= prior`` the
    evidence is 0 (a deal cannot be pushed towards a colour) and a colour among its known
    cards gets none. Per-colour effects are treated as independent, and the opponents dealt
    before it are ignored: an approximation, measured here."""
    unseen = np.maximum(np.asarray(unseen_counts(v, deck), np.int64), 0)
    known = np.asarray(v.known, np.int64) if v.known_any else None
    total = int(unseen.sum())
    per_colour = [int(unseen[sl].sum()) for sl in C.COLOR_SLICES]
    out: list[tuple[Evidence, Evidence]] = []
    for j, opp in enumerate(v.opponents):
        need = opp.hand_size - (int(known[j].sum()) if known is not None else 0)
        evidence = []
        for c in range(C.NUM_COLORS):
            if need <= 0 or (known is not None and known[j][C.COLOR_SLICES[c]].any()):
                evidence.append(0.0)
                continue
            none = 1.0  # the chance that ``need`` cards drawn from the unseen ones hold no ``c``
            for i in range(need):
                none *= max(0, total - per_colour[c] - i) / max(1, total - i)
            prior = 1.0 - none
            evidence.append(max(0.0, 1.0 - float(p_holds[j][c]) / prior) if prior > 0.0 else 0.0)
        out.append((evidence, None))
    return out


class BeliefNet:
    """The fitted network in numpy: ``(weights, biases)`` per layer, tanh between layers;
    called on an observation, the probability that each opponent (row) holds each colour."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], num_players: int):
        self.layers = layers
        self.keep, self.scale = obs_features_layout(num_players)
        self.shape = (num_players - 1, C.NUM_COLORS)

    @classmethod
    def from_torch(cls, net, num_players: int) -> "BeliefNet":
        linear = [m for m in net if hasattr(m, "weight")]
        return cls([(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()) for m in linear], num_players)

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        h = observation[self.keep] * self.scale
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                h = np.tanh(h)
        return (1.0 / (1.0 + np.exp(-h))).reshape(self.shape)


class LearnedBeliefSearch(SearchAgent):
    """The ``search`` bot whose deals give each opponent each colour with the network's
    probability (:func:`colour_evidence`) instead of the ``Beliefs``' voids."""

    def __init__(self, rules, num_players, seed=None, options=None, *, net: BeliefNet):
        super().__init__(rules, num_players, seed, options)
        self.net = net

    def voids(self, v):
        return colour_evidence(v, self.deck, self.net(v.obs))


class Watching(SearchAgent):
    """The ``search`` bot of an oracle arm: it reads the live game it plays, set by :meth:`watch`."""

    def __init__(self, rules, num_players, seed=None, options=None):
        super().__init__(rules, num_players, seed, options)
        self.game: tuple[State, int] | None = None

    def watch(self, state: State, seat: int) -> None:
        """Read the hands of ``state`` (updated in place as it is played), where I sit at ``seat``."""
        self.game = (state, seat)

    def hidden(self, v) -> list[np.ndarray]:
        """Per opponent (``j``: ``j + 1`` seats to my left), the cards of its hand I have not
        seen (cards per kind)."""
        if self.game is None:
            raise RuntimeError(f"{type(self).__name__} deals from the live game: call watch(state, seat) first")
        s, me = self.game
        n = v.num_players
        out = []
        for j in range(n - 1):
            hand = s.hands[(me + j + 1) % n].astype(np.int64)
            out.append(hand - np.asarray(v.known[j], np.int64) if v.known_any else hand)
        return out


class EventBeliefSearch(SearchAgent):
    """The ``search`` bot whose deals give each opponent each colour with the probability of a
    network over its observation and the round's public events (``history_beliefs.EventBelief``).
    It holds the live game's event record alone (public: every seat saw them), set by
    :meth:`listen`, never the state."""

    def __init__(self, rules, num_players, seed=None, options=None, *, net):
        super().__init__(rules, num_players, seed, options)
        self.net = net
        self.heard: tuple[list, int] | None = None

    def listen(self, events: list, seat: int) -> None:
        """Read ``events`` (the engine's record, appended in place as the game goes on), where I sit at ``seat``."""
        self.heard = (events, seat)

    def voids(self, v):
        if self.heard is None:
            raise RuntimeError("EventBeliefSearch reads the live game's events: call listen(events, seat) first")
        events, me = self.heard
        return colour_evidence(v, self.deck, self.net(v.obs, events, me))


class TrueVoidSearch(Watching):
    """Oracle arms ``true-colours`` and ``true-voids``: the ``search`` bot whose deals leave
    out, surely, every colour (with ``faces``, every colour and every face) that an
    opponent's hidden cards lack: what void beliefs that were never wrong would give it. The
    rest of each hand is still dealt at random."""

    def __init__(self, rules, num_players, seed=None, options=None, *, faces: bool):
        super().__init__(rules, num_players, seed, options)
        self.faces = faces

    def voids(self, v):
        voids = []
        for hidden in self.hidden(v):
            grid = colour_face_grid(hidden)
            faces = [0.0 if x else 1.0 for x in grid.any(axis=0)] if self.faces else None
            voids.append(([0.0 if x else 1.0 for x in grid.any(axis=1)], faces))
        return voids


class TrueKindSearch(Watching):
    """Oracle arms ``true-actions`` and ``true-numbers``: the ``search`` bot whose deals give
    every opponent its true cards of the kinds of ``kinds`` (a mask over the card kinds) and
    the rest of its hand uniformly from the unseen cards of the other kinds (no voids): what
    knowing one slice of every hand is worth."""

    def __init__(self, rules, num_players, seed=None, options=None, *, kinds: np.ndarray):
        super().__init__(rules, num_players, seed, options)
        self.kinds = np.asarray(kinds, bool)

    def deal_template(self, v):
        tp = super().deal_template(v)
        if tp is None:
            return None
        revealed = [hidden * self.kinds for hidden in self.hidden(v)]
        rest = np.bincount(tp.pool, minlength=C.NUM_KINDS) - np.sum(revealed, axis=0)
        if (rest < 0).any():
            raise RuntimeError("the live hands hold cards my observation counts as seen")
        tp.pool = np.repeat(np.arange(C.NUM_KINDS), rest)
        for j, cards in enumerate(revealed):
            tp.state.hands[j + 1] += cards.astype(tp.state.hands.dtype)
            tp.deal[j] = (tp.deal[j][0] - int(cards.sum()), None, None)
        return tp

    def sample_deal(self, tp: Template) -> State:
        s = tp.state.clone()
        order = self.rng.permutation(tp.pool).tolist()
        for j, (need, _, _) in enumerate(tp.deal):
            if need == 0:
                continue
            take, rest = [], []
            for k in order:  # the first ``need`` unseen cards of the other kinds
                (take if len(take) < need and not self.kinds[k] else rest).append(k)
            order = rest
            for k in take:
                s.hands[j + 1][k] += 1
        if any(need for need, _, _ in tp.deal):
            self.rng.shuffle(order)  # the cards taken came from the front: mix the DRAW pile again
        s.draw_pile = order
        return settle(s, tp, self.rng)


class TrueHandSearch(TrueKindSearch):
    """Oracle arm ``true-hands``: the ``search`` bot whose deals give every opponent its true
    hand (every kind known); only the DRAW pile's order is dealt at random
    (``experiments/headroom.py``'s clairvoyant player, on the ``search`` bot's own search)."""

    def __init__(self, rules, num_players, seed=None, options=None):
        super().__init__(rules, num_players, seed, options, kinds=np.ones(C.NUM_KINDS, bool))


class Recording(HeuristicAgent):
    """A ``heuristic`` opponent that keeps its last decision (:attr:`last`): the view, its
    ``Beliefs`` as they stood when it decided (a copy), the move."""

    last: tuple | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.last = None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        v = decode(observation, action_mask)
        self.beliefs.observe(v)
        beliefs = copy.copy(self.beliefs)  # decide only reads the voids, and caches per view
        if beliefs.void is not None:
            beliefs.void = [list(row) for row in beliefs.void]
        a = self.decide(v)
        self.beliefs.remember(v, a)
        self.last = (v, beliefs, a)
        return a


class ReplayedSearch(SearchAgent):
    """Arms ``replayed`` and ``replayed-all``: the ``search`` bot that inverts its opponents'
    policy. Every deal must agree with each opponent's last play (``depth=1``), or with every
    play it made since it last took a card (``depth=None``): the heuristic, holding the hand
    the deal gives that opponent plus the cards it played since, would have made that play.
    Where it would not, that opponent's hidden cards are dealt again, uniformly from its own
    and the DRAW pile's (without the ``Beliefs``' voids), up to ``tries`` times (the first hand
    that agrees; none: the deal as it was).

    A play is read only where it was a turn with a choice and the opponent has neither drawn
    nor been dealt a card since (its hand sizes tell), so that its hand then was its hand now
    plus the cards it played since; any other decision of its forgets the plays before it.
    The opponents' decisions are told by :meth:`note`. Their views are public but for the
    hand; their ``Beliefs`` read the public history and their owner's past hands. The bench
    takes both from the opponents themselves rather than rebuilding them, so these arms are a
    slightly generous measure of the inversion: a player would rebuild the ``Beliefs`` from
    its deals of those past hands."""

    TRIES = 20  # new deals of an opponent's hand, at most, until one agrees

    def __init__(self, rules, num_players, seed=None, options=None, *, depth: int | None = 1, tries: int = TRIES):
        super().__init__(rules, num_players, seed, options)
        self.depth, self.tries = depth, tries
        self.replayer = HeuristicAgent(rules, num_players, seed=0)  # deterministic, as the search's own
        self.live = Engine(rules, num_players)
        self.live_encoder = ObservationEncoder(self.live)
        # per opponent, its plays since it last took a card, oldest first (at most ``depth``):
        # (the state as it stood, its seat, its hand size then, its Beliefs then, the play)
        self.plays: list[list[tuple]] = [[] for _ in range(num_players - 1)]
        self.checks = {"plays read": 0, "agreed": 0, "dealt again": 0, "not found": 0}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.plays = [[] for _ in self.plays]

    def note(self, j: int, state: State, seat: int, last: tuple) -> None:
        """Opponent ``j`` (``j + 1`` seats to my left), at ``seat`` of the game, decided ``last``
        (:attr:`Recording.last`) in ``state`` (a copy as it stood, with its true hand)."""
        v, beliefs, a = last
        kept = self.plays[j]
        if not (v.phase == TURN and a < A.PLAY_END and len(v.legal) > 1):
            kept.clear()
            return
        if kept and v.hand_size != kept[-1][2] - 1:  # it took cards since its last play
            kept.clear()
        kept.append((state, seat, v.hand_size, beliefs, a))
        if self.depth is not None:
            del kept[:-self.depth]

    def agrees(self, j: int, hand_now: np.ndarray) -> bool:
        """Would opponent ``j``, whose whole hand is now ``hand_now`` (cards per kind, those I
        know included), have made each of its plays (:attr:`plays`) holding that hand plus the
        cards it played since?"""
        hand = hand_now.astype(np.int16)
        replayer = self.replayer
        for s, seat, _, beliefs, a in reversed(self.plays[j]):  # the latest first
            hand[A.PLAYED_KIND[a]] += 1
            true_hand, true_held = s.hands[seat].copy(), s.held[seat]
            s.hands[seat] = hand  # (copies the counts into the state's row)
            s.held[seat] = sum(1 << k for k in np.flatnonzero(hand).tolist())
            s.legal_cache = None
            legal = self.live.legal_actions(s)
            v = decode(self.live_encoder.encode(s, seat), A.legal_mask(legal))
            s.hands[seat], s.held[seat], s.legal_cache = true_hand, true_held, None
            replayer.beliefs = beliefs
            if replayer.decide(v) != a:
                return False
        return True

    def sample_deal(self, tp: Template) -> State:
        s = deal(tp, self.rng)
        changed = False
        for j, plays in enumerate(self.plays):
            need = tp.deal[j][0]
            if not plays or need == 0 or tp.sizes[j + 1] != plays[-1][2] - 1:
                continue
            self.checks["plays read"] += 1
            if self.agrees(j, s.hands[j + 1]):
                self.checks["agreed"] += 1
                continue
            known = tp.state.hands[j + 1]
            pool = np.concatenate([np.repeat(np.arange(C.NUM_KINDS), s.hands[j + 1] - known),
                                   np.asarray(s.draw_pile, np.int64)])
            for _ in range(self.tries):
                order = self.rng.permutation(pool)
                hand = known + np.bincount(order[:need], minlength=C.NUM_KINDS).astype(known.dtype)
                if self.agrees(j, hand):
                    s.hands[j + 1], s.draw_pile = hand, order[need:].tolist()
                    changed = True
                    self.checks["dealt again"] += 1
                    break
            else:
                self.checks["not found"] += 1
        return settle(s, tp, self.rng) if changed else s


def searcher(arm: str, rules, players: int, seed: int, options: dict, net: BeliefNet | None,
             events_net: dict | None = None) -> SearchAgent:
    """The searching player of ``arm``."""
    if arm in EVENT_ARMS:
        return EventBeliefSearch(rules, players, seed, options, net=events_net[arm])
    if arm in ("true-actions", "true-numbers"):
        return TrueKindSearch(rules, players, seed, options,
                              kinds=ACTION_KINDS if arm == "true-actions" else ~ACTION_KINDS)
    if arm in ("replayed", "replayed-all"):
        return ReplayedSearch(rules, players, seed, options, depth=1 if arm == "replayed" else None)
    if arm == "learned":
        return LearnedBeliefSearch(rules, players, seed, options, net=net)
    if arm in ("true-colours", "true-voids"):
        return TrueVoidSearch(rules, players, seed, options, faces=arm == "true-voids")
    if arm == "true-hands":
        return TrueHandSearch(rules, players, seed, options)
    return SearchAgent(rules, players, seed, options)


_NET: BeliefNet | None = None  # the networks of this process (set by _init in workers)
_EVENT_NET: dict | None = None  # arm ("events", "summary") -> its history_beliefs.EventBelief


def _init(net: BeliefNet | None, events_net: dict | None = None) -> None:
    global _NET, _EVENT_NET
    _NET, _EVENT_NET = net, events_net


def seated_deal(rules: Rules, players: int, seed: int, game: int,
                record_events: bool = False) -> tuple[Engine, ObservationEncoder, State, int, list[int]]:
    """Game ``game`` of the bench: its engine (recording the public events if asked), encoder
    and dealt state (from ``(seed, game)`` alone, the same for every arm), the searching seat
    (``game % players``) and every seat's agent seed."""
    engine = Engine(rules, players, record_events=record_events)
    rng = np.random.default_rng([seed, game])
    s = engine.new_state(rng)
    seeds = [int(x) for x in rng.integers(2 ** 31, size=players)]
    return engine, ObservationEncoder(engine), s, game % players, seeds


def play(job: tuple[str, int, int, int, int]) -> tuple[int, dict[str, int]]:
    """One game: 1 if the searching seat (``game % players``) wins, and the searcher's
    counts of plays read (:attr:`ReplayedSearch.checks`; empty for other arms). ``job``: the
    arm, players, simulations, seed, game."""
    arm, players, simulations, seed, game = job
    rules = make_rules("classic")
    engine, encoder, s, me, seeds = seated_deal(rules, players, seed, game, record_events=arm in EVENT_ARMS)
    options = {"simulations": simulations}
    bot = searcher(arm, rules, players, seeds[me], options, _NET, _EVENT_NET)
    if isinstance(bot, Watching):
        bot.watch(s, me)
    if isinstance(bot, EventBeliefSearch):
        bot.listen(s.events, me)
    replayed = isinstance(bot, ReplayedSearch)
    opponent = Recording if replayed else HeuristicAgent  # the same moves; Recording keeps the last
    agents = [bot if p == me else opponent(rules, players, seed=x) for p, x in enumerate(seeds)]
    for agent, x in zip(agents, seeds):
        agent.reset(seed=x)
    while not s.game_over and not engine.truncated(s):
        p = s.actor
        then = s.clone() if replayed and p != me else None
        engine.step(s, agents[p].act(encoder.encode(s, p), A.legal_mask(engine.legal_actions(s))))
        if then is not None:
            bot.note((p - me - 1) % players, then, p, agents[p].last)
    return int(s.game_over and s.winner == me), dict(bot.checks) if replayed else {}


def deal_brier(net: BeliefNet, players: int, games: int, seed: int, samples: int) -> dict[str, float]:
    """How well each way of dealing predicts the hands: over the turns with a choice of seat 0
    in ``games`` heuristic games, the Brier score of "opponent j holds colour c" taken as the
    share of ``samples`` deals that give it one (uniform deals, ``Beliefs``' voids, the
    network's), and of the network's own probabilities."""
    rules = make_rules("classic")
    engine = Engine(rules, players)
    encoder = ObservationEncoder(engine)
    opponents = range(1, players)  # seat 0 reads the deals, so its opponents are seats 1..
    errors: dict[str, list[float]] = {"uniform": [], "Beliefs": [], "learned": [], "network itself": []}
    for game in range(games):
        rng = np.random.default_rng([seed, game])
        s = engine.new_state(rng)
        me = LearnedBeliefSearch(rules, players, game, net=net)
        bots = [HeuristicAgent(rules, players, seed=int(x)) for x in rng.integers(2**31, size=players)]
        while not s.game_over and not engine.truncated(s):
            p = s.actor
            observation, mask = encoder.encode(s, p), A.legal_mask(engine.legal_actions(s))
            if p == 0:
                v = decode(observation, mask)
                me.observe(v)
                if s.phase == TURN and len(v.legal) > 1:
                    truth = holds_colours(s.hands, opponents)
                    ways = {"uniform": [(None, None)] * (players - 1), "Beliefs": SearchAgent.voids(me, v),
                            "learned": me.voids(v)}
                    for name, voids in ways.items():
                        tp = template(v, rules, me.deck, voids)
                        if tp is None:
                            continue
                        share = np.mean([holds_colours(deal(tp, me.rng).hands, opponents) for _ in range(samples)], axis=0)
                        errors[name].append(float(np.mean((share - truth) ** 2)))
                    errors["network itself"].append(float(np.mean((net(v.obs) - truth) ** 2)))
                a = me.h.decide(v)  # the heuristic's move, the search bot's default, unsearched
                me.remember(v, a)
            else:
                a = bots[p].act(observation, mask)
            engine.step(s, a)
    return {name: float(np.mean(e)) for name, e in errors.items()}


def fit(players: int, games: int, seed: int, epochs: int) -> tuple[BeliefNet, int]:
    """The belief network fitted on ``games`` heuristic games; with the number of rows."""
    import torch

    torch.set_num_threads(1)
    rows = collect(players, games, seed)
    return BeliefNet.from_torch(train_mlp(rows["x"], rows["truth"], epochs, seed), players), len(rows["x"])


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-players", "--players", dest="players", type=int, default=4)
    p.add_argument("--fit-games", type=int, default=8000)
    p.add_argument("--fit-seed", type=int, default=99)
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--games", type=int, default=1600)
    p.add_argument("--seed", type=int, default=20261202)
    p.add_argument("--simulations", type=int, default=200, help="rollouts per searched decision")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--brier-games", type=int, default=40, help="games of the deals' Brier scores (0: none)")
    p.add_argument("--brier-samples", type=int, default=30, help="deals per turn for those scores")
    p.add_argument("--out", help="also write the results (every arm's game-by-game wins: pair arms of "
                   "separate runs on the same --seed) to this new JSON file")
    p.add_argument("--arms", default="Beliefs,learned",
                   help=f"comma-separated, from {', '.join(ARMS)}; differences are taken against the first")
    args = p.parse_args(argv)
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    if min(args.fit_games, args.epochs, args.games, args.simulations, args.workers, args.brier_samples) < 1 \
            or args.brier_games < 0 or not 2 <= args.players <= 10:
        p.error("--fit-games, --epochs, --games, --simulations, --workers and --brier-samples must be >= 1, "
                "--brier-games >= 0, --players in 2..10")
    if args.out and os.path.lexists(args.out):
        p.error(f"--out {args.out!r} exists: name a new file")
    if not arms or len(set(arms)) != len(arms) or not set(arms) <= set(ARMS):
        p.error(f"--arms {args.arms!r}: name distinct arms from {', '.join(ARMS)}")
    began = time.time()
    net, rows = fit(args.players, args.fit_games, args.fit_seed, args.epochs) \
        if "learned" in arms or args.brier_games else (None, 0)  # the network only where it is used
    events_net, event_rows = {}, 0
    if set(EVENT_ARMS) & set(arms):  # their networks fitted on one collection of the games
        from history_beliefs import EventBelief, collect as collect_events

        collection = collect_events(args.players, args.fit_games, args.fit_seed)
        event_rows = len(collection["x"])
        events_net = {arm: EventBelief.fit(collection, args.players, args.epochs, args.fit_seed, events=arm == "events")
                      for arm in EVENT_ARMS if arm in arms}
    fitted = time.time() - began
    briers = deal_brier(net, args.players, args.brier_games, args.seed, args.brier_samples) if args.brier_games else {}
    jobs = [(arm, args.players, args.simulations, args.seed, g) for arm in arms for g in range(args.games)]
    if args.workers == 1:
        _init(net, events_net)
        played = list(map(play, jobs))
    else:
        with ProcessPoolExecutor(args.workers, initializer=_init, initargs=(net, events_net)) as pool:
            played = list(pool.map(play, jobs, chunksize=4))
    per_arm = {arm: [won for won, _ in played[i * args.games:(i + 1) * args.games]] for i, arm in enumerate(arms)}
    checks: dict[str, Counter] = {}  # per replayed arm, summed over its games
    for (arm, *_), (_, counts) in zip(jobs, played):
        if counts:
            checks.setdefault(arm, Counter()).update(counts)
    differences = {}
    for arm in arms[1:]:
        mean, lo, hi = mean_interval(np.subtract(per_arm[arm], per_arm[arms[0]]))
        differences[arm] = {"mean": mean, "ci95": [lo, hi]}
    out = {"players": args.players, "games": args.games, "seed": args.seed, "simulations": args.simulations,
           "fit_games": args.fit_games, "fit_seed": args.fit_seed, "fit_rows": rows, "event_fit_rows": event_rows, "fit_s": fitted,
           "arms": {arm: {"wins": sum(w), "win_rate": sum(w) / args.games,
                          "ci95": list(wilson_interval(sum(w), args.games))} for arm, w in per_arm.items()},
           "deal_brier": briers, "differences": differences, "wall_s": time.time() - began,
           "won": per_arm,  # per arm, game by game: to pair with arms of other runs
           "checks": {arm: dict(c) for arm, c in checks.items()}}
    networks = [f"{', '.join(names)} on {n} turns" for names, n in ((["learned"] * bool(net), rows),
                                                                     (list(events_net), event_rows)) if names]
    fitted_line = f"; networks fitted ({'; '.join(networks)}) of {args.fit_games} games in {fitted:.0f} s" \
        if networks else ""
    print(f"search vs {args.players - 1} heuristic (classic, {args.simulations} simulations, seed {args.seed}, "
          f"{args.games} games per arm){fitted_line}")
    print("| deals from | wins | win rate (95% Wilson) |\n|---|---:|---:|")
    for arm, r in out["arms"].items():
        lo, hi = r["ci95"]
        print(f"| {arm} | {r['wins']} | {r['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] |")
    if briers:
        print(f"Brier of \"opponent j holds colour c\" over seat 0's turns of {args.brier_games} heuristic games "
              f"({args.brier_samples} deals a turn): " + ", ".join(f"{k} {x:.4f}" for k, x in briers.items()))
    for arm, d in differences.items():
        lo, hi = d["ci95"]
        print(f"paired difference ({arm} - {arms[0]}): {d['mean']:+.1%} [{lo:+.1%}, {hi:+.1%}]")
    for arm, c in checks.items():
        read = max(1, c["plays read"])
        print(f"{arm}: {c['plays read']} plays read in the deals; the first deal agreed with "
              f"{c['agreed'] / read:.1%}, a new deal agreed for {c['dealt again'] / read:.1%}, "
              f"none in {ReplayedSearch.TRIES} tries for {c['not found'] / read:.1%}")
    print(f"par {1 / args.players:.1%}; {out['wall_s']:.0f} s")
    if args.out:
        with open(args.out, "x", encoding="utf-8") as f:
            json.dump(out, f)
    return out


if __name__ == "__main__":
    main()
