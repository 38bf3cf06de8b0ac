"""The ``search`` bot's agent: :class:`SearchAgent` (agent spec ``search:key=value,...``).

Per decision it reads the observation (the heuristic's Beliefs and the :class:`Tracker`),
takes the heuristic's move as the default and, in a searched phase with a choice, compares
the candidate moves by paired rollouts on sampled deals; the spec is in
:mod:`uno_env.agents.search`.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Mapping

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.rules import LIMITS
from uno_env.agents.bots import PyRngAgent, RandomAgent
from uno_env.agents.heuristic import HeuristicAgent
from uno_env.agents.search.determinise import Evidence, Template, deal, template
from uno_env.agents.search.options import SearchOptions
from uno_env.agents.search.paired import paired_choice, play_each
from uno_env.agents.search.rollout import RandomRolloutPolicy, RolloutPolicy
from uno_env.agents.search.tracker import Tracker
from uno_env.agents.view import View, decode
from uno_env.game.engine import CHALLENGE, COLOR, DRAWN, TURN, Engine, State
from uno_env.game.observation import ObservationEncoder

SEARCHED_PHASES = frozenset((TURN, DRAWN, CHALLENGE, COLOR))


class SearchAgent(PyRngAgent):
    """Determinised Monte-Carlo search over the heuristic's moves (spec: :mod:`uno_env.agents.search`).

    ``options``: a :class:`SearchOptions` (or a mapping of its fields). ``stats``: searched
    decisions and how many of them replaced the heuristic's move, since construction.
    ``last_search``: the last searched decision's moves and, per move, its outcome minus the
    default's on each sample it was played (a move dropped by the halving has fewer), for
    studies that learn from the search (``experiments/expert_distill.py``).

    :meth:`act` is :meth:`observe`, the heuristic's move, the search, :meth:`remember`; a
    program that follows a game without searching calls those two. :meth:`voids` is
    where the deals' beliefs come from, :meth:`deal_template` what every deal of a decision
    shares and :meth:`sample_deal` each deal: override them to deal from other beliefs
    (``experiments/belief_search.py`` does, to bound what beliefs are worth).
    """

    name = "search"

    def __init__(self, rules, num_players, seed=None, options: SearchOptions | Mapping[str, Any] | None = None):
        super().__init__(rules, num_players, seed)
        if options is None:
            options = SearchOptions()
        elif not isinstance(options, SearchOptions):
            options = SearchOptions.from_mapping(options)
        self.options = options
        self.h = HeuristicAgent(rules, num_players, seed=0)  # deterministic: its generators are unused
        self.tracker = Tracker(rules)
        # rollouts: one round, no step cap of the rules (max_steps cuts them)
        self.engine = Engine(rules.replace(episode="round", max_steps=LIMITS["max_steps"][1]), num_players)
        self.policy = RolloutPolicy(self.engine)
        self.opponent_policy = RandomRolloutPolicy() if options.opponents == "random" else self.policy
        self._encoder: ObservationEncoder | None = None
        self._players: list[HeuristicAgent | RandomAgent] | None = None
        self.deck = rules.deck_counts()
        self.stats = {"searched": 0, "overrides": 0}
        self.last_search: tuple[list[int], list[list[float]]] | None = None

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
        self.remember(v, a)
        return a

    def observe(self, v: View) -> None:
        """Read what happened since my last decision (the first step of :meth:`act`)."""
        self.h.beliefs.observe(v)
        self.tracker.observe(v, self.h.beliefs.shares(v))

    def remember(self, v: View, a: int) -> None:
        """Note that I chose ``a`` in decision ``v`` (the last step of :meth:`act`)."""
        self.h.beliefs.remember(v, a)
        self.tracker.remember(v, a)

    # ------------------------------------------------------------------ search
    def candidates(self, v: View, default: int) -> list[int]:
        """The moves compared in decision ``v`` (``default``: the heuristic's move)."""
        if self.options.wild_colors == "all":
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
        tp = self.deal_template(v)
        if tp is None:
            return default
        first = self.sample_deal(tp)
        if self.engine.legal_actions(first) != v.legal:
            return default  # the rebuilt state does not match what I see: no search
        o = self.options
        d = cands.index(default)
        alive = list(range(len(cands)))
        budget = int(o.simulations)
        rounds = max(1, math.ceil(math.log2(len(cands)))) if o.budget == "halving" else 1
        diffs: list[list[float]] = [[] for _ in cands]
        for r in range(rounds):
            samples = max(2, budget // (len(alive) * (rounds - r)))
            budget -= samples * len(alive)
            for _ in range(samples):
                base = first if first is not None else self.sample_deal(tp)
                first = None
                seed = self.py.getrandbits(63)  # the deal's generator and the opponents' coins
                out = play_each(self.engine, base, [cands[ci] for ci in alive], seed,
                                functools.partial(self._rollout, coins=seed))
                at_default = out[alive.index(d)]
                for ci, x in zip(alive, out):
                    diffs[ci].append(x - at_default)
            if r < rounds - 1:
                others = sorted((ci for ci in alive if ci != d), key=lambda ci: -sum(diffs[ci]) / len(diffs[ci]))
                alive = sorted([d] + others[:max(1, (len(alive) + 1) // 2 - 1)])
            if budget <= 0:
                break
        self.stats["searched"] += 1
        self.last_search = (cands, diffs)
        best = paired_choice([diffs[ci] if ci in alive else None for ci in range(len(cands))], d, o.margin, o.z)
        if best != d:
            self.stats["overrides"] += 1
        return cands[best]

    def _rollout(self, s: State, coins: int = 0) -> float:
        """Play ``s`` to the end of the round; seat 0's outcome (0 if cut at ``max_steps``).
        With ``opponents=random`` the other seats play as the ``random`` bot, their coins seeded
        with ``coins`` (the search passes the seed of the deal's generator: the same for every
        move compared on one deal, whatever the move itself drew from the generator)."""
        engine = self.engine
        legal_actions, step = engine.legal_actions, engine.step
        cap = s.steps + int(self.options.max_steps)
        random_opponents = self.options.opponents == "random"
        if self.options.rollouts == "policy":
            policy, other = self.policy, self.opponent_policy
            if random_opponents:
                other.seed(coins)
            while not s.game_over:
                if s.steps >= cap:
                    return 0.0
                step(s, (policy if s.actor == 0 else other)(s, legal_actions(s)))
        else:
            if self._players is None:
                self._encoder = ObservationEncoder(engine)
                self._players = [HeuristicAgent(self.rules, s.n, seed=0) if p == 0 or not random_opponents
                                 else RandomAgent(self.rules, s.n, seed=0) for p in range(s.n)]
            encode, players = self._encoder.encode, self._players
            for p, player in enumerate(players):
                if isinstance(player, HeuristicAgent):
                    player.beliefs.reset()
                else:
                    player.reset(seed=coins + p)
            while not s.game_over:
                if s.steps >= cap:
                    return 0.0
                p = s.actor
                step(s, players[p].act(encode(s, p), A.legal_mask(legal_actions(s))))
        return engine.returns(s)[0]

    # ------------------------------------------------------------------ determinisation
    def sample_deal(self, tp: Template) -> State:
        """One deal on ``tp`` (:func:`~uno_env.agents.search.determinise.deal`, from my
        generator): every deal the search plays comes from here."""
        return deal(tp, self.rng)

    def deal_template(self, v: View) -> Template | None:
        """What every deal of decision ``v`` shares, with the evidence of :meth:`voids`."""
        return template(v, self.rules, self.deck, self.voids(v),
                        self.h.beliefs.previous_color(v) if v.phase == CHALLENGE else -1)

    def voids(self, v: View) -> list[tuple[Evidence, Evidence]]:
        """Per opponent, the evidence that it lacks each colour and face: the Tracker's
        (``deals=tracker``, two players, where it is active), the Beliefs' colours
        (``deals=beliefs``, or ``tracker`` elsewhere) or none (``deals=uniform``)."""
        deals, tr, m = self.options.deals, self.tracker, v.num_players - 1
        if deals == "tracker" and tr.active and m == 1 and tr.cvoid is not None:
            return [(tr.cvoid[j], tr.fvoid[j]) for j in range(m)]
        if deals != "uniform" and self.h.beliefs.void is not None:
            return [(self.h.beliefs.void[j], None) for j in range(m)]
        return [(None, None)] * m


def make_search_agent(spec: str, rules, num_players: int, seed: int | None) -> SearchAgent:
    """The agent of spec ``search`` / ``search:key=value,...`` (registered by the package)."""
    return SearchAgent(rules, num_players, seed, SearchOptions.from_spec(spec))
