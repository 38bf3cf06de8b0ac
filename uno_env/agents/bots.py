"""Scripted bots: ``uniform``, ``random`` and ``greedy`` (the ``heuristic`` lives in :mod:`.heuristic`).

Each bot decides from what its player observes only: the observation vector and the action
mask, decoded by :func:`uno_env.agents.view.decode` (``uniform`` reads just the mask,
``random`` the mask and the phase). None of them reads hidden state. All of them play every
ruleset and every decision (turns, drawn cards, challenges, colour choices, Team Attack discards, UNO calls and
catches, jump-ins, offers and takes).

``uniform``
    Uniform over the legal actions of every decision: each legal action id equally likely
    (a wild counts once per colour, drawing counts as one option beside each playable card).
    The baseline that other projects call a random player; the compiled twin is
    :meth:`uno_env.game.batched.BatchedEngine.uniform_actions`, with the same choice
    distribution.
``random``
    Not uniform over the legal actions: a uniformly random playable card (a uniformly random
    colour for wilds; each card kind counts once, not once per colour), drawing only when
    nothing is playable, and playing a drawn card that is playable. Every other decision is uniform over its options: call UNO
    or not, challenge / draw (/ stack), jump in or pass, catch or pass, offer (a random
    card) or pass, take (any offer) or pass, discard a villain or stop, the colour of a
    first wild.
``greedy``
    Plays the card with the most points (wilds first, then action cards, then the highest
    number; ties at random); wild colour = its most common colour. It always calls UNO,
    catches, jumps in, never challenges, offers its highest card, takes the best playable
    offer and discards its highest villains.
``heuristic``
    The strongest scripted player here: :class:`uno_env.agents.heuristic.HeuristicAgent`.

The small helpers below (:class:`PyRngAgent`, :func:`card_options`, :func:`color_counts`,
:func:`best_color`, :func:`playable`, :func:`phase_of`) are shared with the heuristic;
:func:`random_move` (the ``random`` bot's policy, from the phase and the legal actions) with
the search's rollouts, which model opponents as ``random`` with ``search:opponents=random``.
"""

from __future__ import annotations

import random as _random

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import observation as O
from uno_env.agents.base import Agent, register_agent
from uno_env.agents.view import decode
from uno_env.game.engine import CHALLENGE, COLOR, DISCARD, DRAWN, JUMP, OFFER, TAKE, TURN

_PHASE_SLICE = slice(O.PHASE, O.PHASE + O.NUM_PHASES)
_HAND_SLICE = slice(O.HAND, O.HAND + C.NUM_KINDS)
_COLOR_SLICES = C.COLOR_SLICES


# ====================================================================== shared helpers
def phase_of(observation: np.ndarray) -> int:
    """The phase of the observing player's decision (-1: it is not deciding)."""
    ph = observation[_PHASE_SLICE]
    i = int(ph.argmax())
    return i if ph[i] else -1


class PyRngAgent(Agent):
    """An agent with a fast Python RNG (``self.py``) seeded from the agent's numpy RNG."""

    def __init__(self, rules, num_players, seed=None):
        super().__init__(rules, num_players, seed)
        self.py = _random.Random(int(self.rng.integers(2 ** 63)))

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            self.py = _random.Random(int(self.rng.integers(2 ** 63)))


def card_options(plays: list[int]) -> list[int]:
    """One action per card kind among play ids (ascending): coloured ids, and each wild
    kind's first id (its colour 0)."""
    out = []
    seen_wild = -1
    for a in plays:
        if a < A.PLAY_WILD:
            out.append(a)
        else:
            w = A.wild_index(a)
            if w != seen_wild:
                out.append(A.play_action(C.WILD_KINDS[w]))
                seen_wild = w
    return out


def color_counts(hand: list[int]) -> list[int]:
    """Cards of each colour in ``hand`` (counts per kind)."""
    return [sum(hand[s]) for s in _COLOR_SLICES]


def best_color(hand: list[int]) -> int:
    """Most common colour in ``hand`` (counts per kind); ties: the lowest index."""
    counts = color_counts(hand)
    return counts.index(max(counts))


def playable(k: int, color: int, top_face: int) -> bool:
    """Whether card kind ``k`` may be played on the current colour / top face (wilds: yes)."""
    if C.is_wild(k):
        return True
    return C.color_of(k) == color or (C.face_of(k) == top_face and top_face != C.NO_FACE)


# ====================================================================== uniform
class UniformAgent(PyRngAgent):
    """Each legal action equally likely, in every decision (no draw with one legal action)."""

    name = "uniform"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = action_mask.nonzero()[0]
        return int(legal[self.py.randrange(len(legal))]) if len(legal) > 1 else int(legal[0])


# ====================================================================== random
class RandomAgent(PyRngAgent):
    """A uniformly random playable card (random colour for wilds), drawing only when nothing
    is playable; uniform choices in every other decision (see the module docstring)."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return random_move(phase_of(observation), action_mask.nonzero()[0].tolist(), self.py)


def random_move(phase: int, legal: list[int], py: _random.Random) -> int:
    """The ``random`` bot's move in ``phase`` among the legal action ids ``legal`` (ascending),
    drawn with ``py`` (no draw when there is one legal action): the one source of its policy,
    played on observations by :class:`RandomAgent` and on engine states by the search's
    rollouts (:class:`uno_env.agents.search.rollout.RandomRolloutPolicy`)."""
    if len(legal) == 1:
        return legal[0]
    if A.UNO in legal:  # call UNO or not, uniformly
        if py.random() < 0.5:
            return A.UNO
        legal = [a for a in legal if a != A.UNO]
    plays = [a for a in legal if a < A.PLAY_END]
    if phase in (TURN, DRAWN):
        if plays:
            return random_card(plays, py)
        return legal[py.randrange(len(legal))]  # draw (or ask)
    if phase == CHALLENGE:  # stack / draw / challenge, uniformly
        options = [a for a in legal if a >= A.PLAY_END]
        i = py.randrange(len(options) + (1 if plays else 0))
        return options[i] if i < len(options) else random_card(plays, py)
    if phase == JUMP or phase == OFFER:  # jump in (offer a card) or pass, uniformly
        if py.random() < 0.5:
            return A.PASS
        cards = [a for a in legal if a != A.PASS]
        return random_card(cards, py) if phase == JUMP else cards[py.randrange(len(cards))]
    return legal[py.randrange(len(legal))]  # colour, discard, catch, take


def random_card(plays: list[int], py: _random.Random) -> int:
    """A uniformly random card kind among play ids ``plays`` (each wild kind once), a wild in
    a uniformly random colour."""
    options = card_options(plays)
    a = options[py.randrange(len(options))]
    if a >= A.PLAY_WILD:
        a = A.play_action(A.played_kind(a), py.randrange(C.NUM_COLORS))
    return a


# ====================================================================== greedy
class GreedyAgent(PyRngAgent):
    """Plays the card with the most points; wild colour = its most common colour."""

    name = "greedy"

    def __init__(self, rules, num_players, seed=None):
        super().__init__(rules, num_players, seed)
        self.points = [C.card_points(k, rules.sewers_points) for k in range(C.NUM_KINDS)]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = action_mask.nonzero()[0].tolist()
        if len(legal) == 1:
            return legal[0]
        if A.UNO in legal:
            return A.UNO
        if A.CATCH in legal:
            return A.CATCH
        plays = [a for a in legal if a < A.PLAY_END]
        phase = phase_of(observation)
        if phase == CHALLENGE and not plays:
            return A.DRAW
        if plays:
            return self._best_play(observation, plays)
        if phase == OFFER:
            offers = [A.offered_kind(a) for a in legal if a in A.OFFER_IDS]
            return A.offer_action(self._highest(offers))
        if phase == DISCARD:
            villains = [A.discarded_kind(a) for a in legal if a in A.DISCARD_IDS]
            return A.discard_action(self._highest(villains)) if villains else A.PASS
        if phase == COLOR:
            hand = observation[_HAND_SLICE].astype(np.int64).tolist()
            return A.color_action(best_color(hand))
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
        if not C.is_wild(k):
            return A.play_action(k)
        hand = observation[_HAND_SLICE].astype(np.int64).tolist()
        return A.play_action(k, best_color(hand))

    def _take(self, observation: np.ndarray, legal: list[int]) -> int:
        v = decode(observation, None)
        best, best_pts = A.PASS, -1
        for a in legal:
            if a in A.TAKE_IDS:
                k = v.offers[A.take_offset(a) - 1]
                if k >= 0 and playable(k, v.color, v.top_face) and self.points[k] > best_pts:
                    best, best_pts = a, self.points[k]
        return best


register_agent("uniform", lambda spec, rules, n, seed: UniformAgent(rules, n, seed))
register_agent("random", lambda spec, rules, n, seed: RandomAgent(rules, n, seed))
register_agent("greedy", lambda spec, rules, n, seed: GreedyAgent(rules, n, seed))
