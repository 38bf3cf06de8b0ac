"""The batched collector of ``uno-dataset``: a dataset's episodes played on the batched engine.

    from uno_env.tools.dataset_batched import play_episodes_batched, why_not_batched
    why_not_batched(["heuristic", "heuristic"], rules, 2)      # None: it plays batched
    for episode in play_episodes_batched(rules, 2, ["heuristic", "heuristic"], seed=0, episodes=100): ...

:func:`play_episodes_batched` yields the very :class:`~uno_env.tools.dataset_read.Episode`
records that :func:`uno_env.tools.dataset.play_episodes` (the scalar env) yields for the same
arguments, in the same order, from :class:`~uno_env.game.batched.BatchedEngine`'s games
(``tests/tools/test_dataset_batched.py`` compares them): the same seeds, observations, masks,
actions, rewards and ends, so each episode replays exactly through ``uno_env/Uno-v1``.

**Seeding as the env.** Episode ``i``'s seed ``s`` (the ``i``-th of
``default_rng(--seed)``) gives ``g = default_rng(s)``, the generator ``env.reset(seed=s)``
makes; from it, in the env's order: the learner's seat (``seat="random"``), one agent seed per
opponent seat (to the learner's left), then the game's card stream (``engine.reset(rngs=[g])``
copies ``g``'s state: the dealer, the shuffle and every reshuffle; a deal that ends before the
learner's first decision is dealt again from the same stream, as the env does). The learner is
reset with the ``i``-th seed of ``default_rng([--seed, 1])``. Each game of the batch is an episode
of its own seed: which slot plays it, and when, changes nothing.

**Who plays batched** (:func:`why_not_batched`: None, or the reason): every seat must make the
choices the scalar agent of the same spec and seed makes, for the opponents are replayed by
that agent inside the env. The compiled bots (:data:`DATASET_BOTS`): ``heuristic`` (any
options: it draws nothing), ``greedy`` (ties from the Mersenne Twister a ``GreedyAgent``
seeded alike draws), ``random`` and ``uniform`` (drawn from the Mersenne Twister a
``RandomAgent``/``UniformAgent`` seeded alike draws: :mod:`uno_env.game.batched.bots`'
``*_like_agent`` kernels, not the PCG64 streams of the batched evaluation's bots); and numpy
policies (``pretrained:``, ``checkpoint:``, :func:`uno_env.agents.batched.batched_actor`),
evaluated once per batch on the rows where they decide. A ``#sample`` policy may be the learner
(its actions are stored; it samples from one generator across the batch, seeded with the first
learner seed, so its dataset differs from the scalar collector's) but not an opponent (the env
would sample other cards). A deterministic policy opponent's action is the argmax of a batched
matrix product; the env's is of one row: they differ only on a tie within float rounding.
Everything else (``search``, ``module:``) is the scalar collector's.

**How.** ``batch`` games at once; a finished game's slot starts the next episode. Per round,
the learner's decisions are recorded (observation and mask, then its action), every seat's
entry answers in one call for the games where it decides, and the engine steps every running
game. Episodes come out in episode order: those finished ahead of an earlier one wait (at most
``batch`` of them; beyond that, slots idle until it ends). With ``decisions``, no episode starts
once the finished ones hold that many decisions, and those past the whole episodes needed are
dropped.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from uno_env.agents.base import parse_spec
from uno_env.game import actions as A
from uno_env.game.observation import LAYOUT_VERSION
from uno_env.game.rules import Rules
from uno_env.tools.dataset_read import Episode

DEFAULT_BATCH = 512  # games at once (the waiting episodes: at most as many again; ~110 KB each in classic)
MAX_REDEALS = 100  # as the env (uno_env.envs.gym_env.UnoGymEnv.reset)
SEED_BOUND = 2 ** 31  # agent and learner seeds are drawn below it, as the env and the scalar collector draw them


class _LikeAgentBot:
    """A compiled bot on the Mersenne Twister per game and seat of its scalar agent
    (``GreedyStreams``): ``greedy``, ``random`` or ``uniform`` (``kernel``)."""

    def __init__(self, engine: Any, kernel: str | None):
        from uno_env.game.batched import bots
        from uno_env.game.batched import kernels as K

        self.engine, self.kernel = engine, kernel and getattr(bots, kernel)
        self.streams = bots.GreedyStreams(engine.batch_size, engine.n)
        self.scratch = np.zeros((3, K.MAX_LEGAL), np.int64)

    def start(self, b: int, seat: int, seed: int) -> None:
        self.streams.seed_like_agent(b, seat, seed)

    def actions(self, active: np.ndarray) -> np.ndarray:
        eng = self.engine
        if self.kernel is None:
            return eng.greedy_actions(self.streams, active)
        out = np.full(eng.batch_size, -1, np.int64)
        self.kernel(eng.st, eng.cfg, active & ~eng.game_over, self.streams.mt, self.streams.pos, out, self.scratch)
        return out


class _HeuristicBot:
    """``heuristic[:options]``: the compiled heuristic, beliefs per game and seat forgotten at a new episode."""

    def __init__(self, engine: Any, spec: str):
        from uno_env.agents.heuristic import HeuristicWeights
        from uno_env.game.batched import bots

        self.engine = engine
        self.weights = HeuristicWeights.from_spec(spec).as_array()
        self.beliefs = bots.HeuristicBeliefs(engine.batch_size, engine.n)

    def start(self, b: int, seat: int, seed: int) -> None:
        self.beliefs.reset(np.array([b]))  # (the heuristic draws nothing: no seed)

    def actions(self, active: np.ndarray) -> np.ndarray:
        return self.engine.heuristic_actions(self.beliefs, self.weights, active)


# bot kinds that play batched with the scalar agent's very choices: kind -> (engine, spec) -> bot
DATASET_BOTS = {
    "heuristic": lambda engine, spec: _HeuristicBot(engine, spec),
    "greedy": lambda engine, spec: _LikeAgentBot(engine, None),
    "random": lambda engine, spec: _LikeAgentBot(engine, "random_like_agent_actions"),
    "uniform": lambda engine, spec: _LikeAgentBot(engine, "uniform_like_agent_actions"),
}


def why_not_batched(agents: list[str], rules: Rules, num_players: int) -> str | None:
    """None if every seat of the line-up (``agents``: one spec per seat, the learner's first)
    plays batched with the scalar agent's choices (module doc), else the reason, in words. A spec
    that is no agent at all is the usual ``ValueError``."""
    from uno_env.agents.base import make_agent
    from uno_env.agents.batched import NotBatched, batched_actor

    try:
        from uno_env.game import batched  # noqa: F401
    except ImportError as e:  # numba missing
        return f"the batched engine is not installed ({e})"
    for entry, spec in enumerate(agents):
        if not isinstance(spec, str):
            return f"{spec!r} is no agent spec"
        parsed = parse_spec(spec)
        if parsed.is_policy:
            if parsed.sample and entry > 0:
                return (f"{spec} samples: as an opponent, the env would sample its own choices "
                        f"(only the learner may sample on the batched engine)")
            try:
                batched_actor(spec, rules, num_players)
            except NotBatched as e:
                return str(e)
            continue
        if parsed.kind not in DATASET_BOTS:
            return f"{spec} has no compiled kernel"
        if parsed.kind != "heuristic" and (parsed.argument or parsed.sample):
            return f"{spec} has options: the compiled {parsed.kind} plays its defaults only"
        make_agent(spec, rules, num_players)  # ValueError for a bad option, now
    return None


def play_episodes_batched(rules: Rules, num_players: int, agents: list[str], seed: int,
                          episodes: int | None = None, decisions: int | None = None, seat: Any = "random",
                          max_learner_steps: int | None = 1000,  # the env's DEFAULT_MAX_LEARNER_STEPS
                          batch: int = DEFAULT_BATCH) -> Iterator[Episode]:
    """The episodes of :func:`uno_env.tools.dataset.play_episodes`, played on the batched engine
    (module doc). ``agents``: one spec per seat, the learner's first; ``ValueError`` naming the
    seat that cannot play batched."""
    from uno_env.tools.batched_table import blas_threads

    if len(agents) != num_players:
        raise ValueError(f"agents must hold one spec per seat ({num_players}), got {len(agents)}: {agents}")
    why = why_not_batched(agents, rules, num_players)
    if why is not None:
        raise ValueError(f"this line-up cannot play on the batched engine: {why}")
    if (episodes is None) == (decisions is None):
        raise ValueError("give exactly one of episodes and decisions")
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise ValueError(f"batch must be a positive integer, got {batch!r}")
    with blas_threads():
        yield from _Collector(rules, num_players, list(agents), seed, episodes, decisions, seat,
                              max_learner_steps, int(batch)).run()


class _Collector:
    def __init__(self, rules: Rules, n: int, agents: list[str], seed: int, episodes: int | None,
                 decisions: int | None, seat: Any, max_learner_steps: int | None, batch: int):
        from uno_env.agents.batched import batched_actor
        from uno_env.game.batched import BatchedEngine

        self.n, self.agents, self.seat_choice = n, agents, seat
        self.episodes, self.decisions, self.max_learner_steps = episodes, decisions, max_learner_steps
        self.max_steps = rules.max_steps
        B = self.B = batch if episodes is None else min(batch, episodes)
        self.eng = eng = BatchedEngine(rules, n, B, layout=LAYOUT_VERSION)
        self.seeds, self.learner_seeds = np.random.default_rng(seed), np.random.default_rng([seed, 1])
        first_learner_seed = int(np.random.default_rng([seed, 1]).integers(SEED_BOUND))
        # one bot (its memory per game and seat) or policy per distinct spec
        self.bots: dict[str, Any] = {}
        self.policies: dict[str, Any] = {}
        for spec in agents:
            parsed = parse_spec(spec)
            if parsed.is_policy:
                if spec not in self.policies:  # the learner's (entry 0) first: a sampling one is seeded as it
                    self.policies[spec] = batched_actor(spec, rules, n, first_learner_seed).act
            elif spec not in self.bots:
                self.bots[spec] = DATASET_BOTS[parsed.kind](eng, spec)
        self.entry_at = np.zeros((B, n), np.int64)  # line-up entry at each seat
        self.seats = np.zeros(B, np.int64)  # the learner's seat
        self.index = np.full(B, -1, np.int64)  # the episode each slot plays (-1: none)
        self.started = np.zeros(B, bool)  # the learner's first observation is recorded
        self.redeals = np.zeros(B, np.int64)
        self.learner_steps = np.zeros(B, np.int64)
        self.record: list[dict | None] = [None] * B
        self.obs = np.zeros((B, eng.obs_size), np.float32)
        self.masks = np.zeros((B, A.NUM_ACTIONS), np.int8)
        self.next_index = 0
        self.finished_steps = 0  # decisions in every finished episode, emitted or waiting

    # ------------------------------------------------------------------ episodes
    def _may_start(self, starting: int = 0) -> bool:
        """Whether another episode starts, ``starting`` being about to."""
        if self.episodes is not None:
            return self.next_index + starting < self.episodes
        return self.finished_steps < self.decisions

    def _start(self, slots: list[int]) -> None:
        """``slots`` start the next episodes, in order, each seeded as ``env.reset(seed=s)`` (module doc)."""
        n, gens = self.n, []
        for b in slots:
            i = self.next_index
            self.next_index += 1
            s = int(self.seeds.integers(SEED_BOUND))
            learner_seed = int(self.learner_seeds.integers(SEED_BOUND))
            g = np.random.default_rng(s)
            seat = int(g.integers(n)) if self.seat_choice == "random" else int(self.seat_choice)
            opponent_seeds = [int(g.integers(SEED_BOUND)) for _ in range(1, n)]
            gens.append(g)
            self.seats[b], self.index[b] = seat, i
            for e, spec in enumerate(self.agents):
                at = (seat + e) % n
                self.entry_at[b, at] = e
                if spec in self.bots:
                    self.bots[spec].start(b, at, learner_seed if e == 0 else opponent_seeds[e - 1])
            self.record[b] = {"seed": s, "obs": [], "masks": [], "actions": [], "rewards": [], "ends": []}
        games = np.array(slots, np.int64)
        self.eng.reset(games, rngs=gens)  # each game's cards: its generator, after the draws above
        self.started[games], self.redeals[games], self.learner_steps[games] = False, 0, 0

    def run(self) -> Iterator[Episode]:
        eng, B = self.eng, self.B
        waiting: dict[int, Episode] = {}  # finished ahead of an earlier episode
        emitted, emitted_steps = 0, 0
        rows_b = np.arange(B)
        actions = np.zeros(B, np.int64)
        while True:
            slots = []
            for b in np.flatnonzero(self.index < 0).tolist():  # free slots start the next episodes
                if not (self._may_start(len(slots)) and len(waiting) < B):
                    break
                slots.append(b)
            if slots:
                self._start(slots)
            done = self._views()
            for b in np.flatnonzero(done).tolist():
                episode = self._episode(b)
                waiting[int(self.index[b])] = episode
                self.finished_steps += len(episode)
                self.index[b] = -1
            while emitted in waiting:  # in episode order
                episode = waiting.pop(emitted)
                emitted += 1
                emitted_steps += len(episode)
                yield episode
                if self.decisions is not None and emitted_steps >= self.decisions:
                    return
            if self.episodes is not None and emitted == self.episodes:
                return
            live = (self.index >= 0) & ~eng.game_over & (eng.steps < self.max_steps)
            if not live.any():
                continue  # every slot just finished: start the next ones
            at_learner = live & (eng.actor == self.seats)
            deciding = self.entry_at[rows_b, np.where(live, eng.actor, 0)]
            for e, spec in enumerate(self.agents):
                sel = live & (deciding == e)
                if not sel.any():
                    continue
                if spec in self.bots:
                    actions[sel] = self.bots[spec].actions(sel)[sel]
                else:
                    actions[sel] = self._policy(spec, sel)
            for b in np.flatnonzero(at_learner).tolist():
                self.record[b]["actions"].append(int(actions[b]))
            self.learner_steps[at_learner] += 1
            eng.step(actions, active=live)  # ValueError names an illegal action of a policy

    def _policy(self, spec: str, sel: np.ndarray) -> np.ndarray:
        eng = self.eng
        rows = np.flatnonzero(sel)
        got = np.asarray(self.policies[spec](eng.observe(eng.actor, sel, out=self.obs)[rows],
                                             eng.legal_masks(sel, out=self.masks)[rows])).reshape(-1)
        if got.shape != (len(rows),) or not np.issubdtype(got.dtype, np.integer):
            raise ValueError(f"{spec} answered {got.dtype} of shape {got.shape} for {len(rows)} decisions; "
                             f"it must give one action id per decision")
        return got

    def _views(self) -> np.ndarray:
        """What the learner sees where a step of the env ends: its decision (the first of an
        episode, or after its last action and the opponents' answers), or the episode's end
        (game over, the engine's ``max_steps``, or ``max_learner_steps``). A deal that ends before
        the learner's first decision is dealt again. Returns the slots whose episode is over."""
        eng = self.eng
        running = self.index >= 0
        ended = running & (eng.game_over | (eng.steps >= self.max_steps))
        redeal = ended & ~self.started
        if redeal.any():
            if (self.redeals[redeal] >= MAX_REDEALS - 1).any():
                raise RuntimeError(f"the opponents ended {MAX_REDEALS} deals in a row before the learner's "
                                   f"first decision")
            self.redeals[redeal] += 1
            eng.reset(redeal)  # the slot's stream goes on, as the env's new_state(rng) again
            ended &= ~redeal
        at_learner = running & ~ended & (eng.actor == self.seats)
        stepped = (ended | at_learner) & self.started  # an env step of these slots ends here
        cut = np.zeros_like(stepped)
        if self.max_learner_steps is not None:
            cut = stepped & ~ended & (self.learner_steps >= self.max_learner_steps)
        done = (stepped & ended) | cut
        first = at_learner & ~self.started
        view = stepped | first
        if not view.any():
            return done
        obs = eng.observe(self.seats, view, out=self.obs)
        masks = eng.legal_masks(view & ~done, out=self.masks)
        masks[done] = 0
        returns = eng.returns() if (done & eng.game_over).any() else None
        for b in np.flatnonzero(view).tolist():
            rec = self.record[b]
            rec["obs"].append(obs[b].copy())
            rec["masks"].append(masks[b].copy())
            if stepped[b]:
                terminated = bool(done[b] and eng.game_over[b])
                rec["rewards"].append(float(returns[b, self.seats[b]]) if terminated else 0.0)
                rec["ends"].append((terminated, bool(done[b]) and not terminated))
        self.started |= first
        return done

    def _episode(self, b: int) -> Episode:
        rec = self.record[b]
        self.record[b] = None
        ends = np.array(rec["ends"], bool).reshape(-1, 2)
        T = len(rec["actions"])
        return Episode(seed=rec["seed"], observations=np.array(rec["obs"], np.float32),
                       actions=np.array(rec["actions"], np.int64), rewards=np.array(rec["rewards"], np.float64),
                       terminations=ends[:, 0].copy(), truncations=ends[:, 1].copy(),
                       masks=np.array(rec["masks"], np.int8), seats=np.full(T + 1, self.seats[b], np.int64))
