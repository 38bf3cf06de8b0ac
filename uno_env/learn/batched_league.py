"""The league inside one batch: N games split into slices, each slice against one opponent.

=========================  ==================================================================
:func:`slice_opponents`    a league mixture (``{entry: weight}``) -> one entry per slice
:class:`BatchedLeague`     the slices' vector envs stepped as one batch of N games
=========================  ==================================================================

``training/train.py`` with ``learner: batched`` plays its N games (``n_envs``) on
:class:`uno_env.envs.vector_env.UnoVectorEnv`: the games are split into ``league_slices``
slices of (nearly) equal size, one vector env each, and each slice plays one league entry in
every opponent seat:

``random``, ``heuristic``, ``greedy``, ``checkpoint:<dir>`` ...
    the agent spec, given to the vector env as it is (compiled where the engine compiles it);
``snapshots``
    the learner's frozen snapshots, one per slice in turn (the newest first), each a
    ``checkpoint:<dir>#sample`` policy evaluated once per batch; before the first snapshot
    exists, the learner itself;
``self``
    the learner's current weights, sampled (self-play; :meth:`uno_env.learn.lean_ppo.Learner.opponent`).

A mixture's weights become slice counts by largest remainders (:func:`slice_opponents`): a
league is resolved to ``1 / league_slices`` of the games, and an entry with too small a weight
gets no slice at all. The learner's seat is drawn per game (``seat="random"``).

A game ends when it is won or lost, at the engine's ``rules.max_steps``, or after
``max_learner_steps`` learner decisions; an ended game is dealt again at once
(``reset(options={"reset_mask": ...})``), so every row of the batch is a learner decision.

**Determinism.** :meth:`BatchedLeague.start` deals every game anew from a seed and seeds every
opponent from it; the training loop calls it at the start of a run, at every periodic
checkpoint and when the league changes, so a run resumed from a checkpoint plays the games the
run would have played.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from uno_env.agents.base import make_agent
from uno_env.envs.vector_env import UnoVectorEnv
from uno_env.game.rules import Rules

SNAPSHOTS, SELF = "snapshots", "self"


def slice_opponents(mixture: dict[str, float], n_slices: int, snapshots: list[str]) -> list[str]:
    """One league entry per slice for ``mixture`` (weights >= 0, not all 0), by largest
    remainders, in the mixture's order; ``snapshots`` slices become ``checkpoint:<dir>#sample``
    of the ``snapshots`` directories in turn, newest first (:data:`SELF` while there are none)."""
    entries = [(e, float(w)) for e, w in mixture.items() if w > 0]
    total = sum(w for _, w in entries)
    exact = [w / total * n_slices for _, w in entries]
    counts = [int(x) for x in exact]
    for i in sorted(range(len(entries)), key=lambda i: counts[i] - exact[i])[:n_slices - sum(counts)]:
        counts[i] += 1
    out: list[str] = []
    newest_first = list(reversed(snapshots))
    for (entry, _), count in zip(entries, counts):
        for k in range(count):
            if entry == SNAPSHOTS:
                out.append(f"checkpoint:{newest_first[k % len(newest_first)]}#sample" if snapshots else SELF)
            else:
                out.append(entry)
    return out


class BatchedLeague:
    """``n_games`` games in ``n_slices`` vector envs, stepped as one batch."""

    def __init__(self, rules: Rules, num_players: int, n_games: int, n_slices: int,
                 self_play: Callable[[np.ndarray, np.ndarray], np.ndarray], max_learner_steps: int | None):
        self.rules, self.num_players = rules, num_players
        self.self_play = self_play
        self.max_learner_steps = max_learner_steps
        sizes = [len(a) for a in np.array_split(np.arange(n_games), min(n_slices, n_games))]
        self.bounds = np.cumsum([0] + sizes)
        self.envs = [UnoVectorEnv(size, rules, num_players, opponents=["random"], seat="random") for size in sizes]
        self.n_games = n_games
        self.specs: list[str] = ["random"] * len(sizes)
        self.observations = np.zeros((n_games, self.envs[0].single_observation_space.shape[0]), np.float32)
        self.masks = np.zeros((n_games, self.envs[0].single_action_space.n), bool)
        self.decisions = np.zeros(n_games, np.int64)  # learner decisions in each game so far

    @property
    def n_slices(self) -> int:
        return len(self.envs)

    def _opponent(self, spec: str, seed: int) -> Any:
        if spec == SELF:
            return self.self_play
        if spec.startswith("checkpoint:") or spec.startswith("pretrained:"):  # a seeded policy agent
            return make_agent(spec, self.rules, self.num_players, seed=seed)
        return spec

    def start(self, specs: list[str], seed: int) -> None:
        """Deal every game anew (game ``i`` from ``seed + i``) with ``specs[k]`` in slice ``k``'s
        opponent seats, every opponent seeded from ``seed``."""
        if len(specs) != self.n_slices:
            raise ValueError(f"{len(specs)} league entries for {self.n_slices} slices")
        self.specs = list(specs)
        for k, (env, spec) in enumerate(zip(self.envs, specs)):
            env.set_opponents([self._opponent(spec, seed + k)])
            lo, hi = self.bounds[k], self.bounds[k + 1]
            obs, info = env.reset(seed=seed + int(lo))
            self.observations[lo:hi] = obs
            self.masks[lo:hi] = info["action_mask"].astype(bool)
        self.decisions[:] = 0

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every game's learner plays ``actions``; returns ``(rewards, done, won)`` per game
        (``done``: the game ended and was dealt again; ``won``: it ended won).
        :attr:`observations` and :attr:`masks` then hold the next decisions."""
        rewards = np.zeros(self.n_games, np.float32)
        done = np.zeros(self.n_games, bool)
        self.decisions += 1
        for k, env in enumerate(self.envs):
            lo, hi = self.bounds[k], self.bounds[k + 1]
            obs, r, terminated, truncated, info = env.step(actions[lo:hi])
            ended = terminated | truncated
            if self.max_learner_steps is not None:
                ended |= self.decisions[lo:hi] >= self.max_learner_steps
            rewards[lo:hi] = r
            done[lo:hi] = ended
            if ended.any():  # dealt again now: every row of the batch stays a learner decision
                obs, info = env.reset(options={"reset_mask": ended})
            self.observations[lo:hi] = obs
            self.masks[lo:hi] = info["action_mask"].astype(bool)
        self.decisions[done] = 0
        return rewards, done, done & (rewards > 0)
