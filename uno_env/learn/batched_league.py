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
    the learner's frozen snapshots (the ``snapshot_keep`` newest), drawn for the slices anew at
    every new deal (every snapshot and checkpoint), each a ``checkpoint:<dir>#sample`` policy
    (``checkpoint:<dir>`` with ``snapshot_sample: false``) evaluated once per batch; before the
    first snapshot exists, the learner itself;
``self``
    the learner's current weights, sampled (self-play; :meth:`uno_env.learn.lean_ppo.Learner.opponent`).

A mixture's weights become slice counts by largest remainders (:func:`slice_opponents`): a
league is resolved to ``1 / league_slices`` of the games, and an entry with too small a weight
gets no slice at all: ``{heuristic: .6, random: .2, snapshots: .2}`` on 8 slices plays 5, 2 and 1
slices (62%, 25%, 12%), as :func:`league_line` prints it when the run starts and whenever the
mixture changes. The
learner's seat is drawn per game (``seat="random"``).

**Truncation.** A game cut at ``rules.max_steps`` or ``max_learner_steps`` counts as ended for
the learner (no bootstrap from its last state, where SB3's ``TimeLimit.truncated`` bootstraps
it): the lean PPO's return is the round's, and a cut game (0.0% of them in the shipped runs'
logs: ``truncated`` in the play line) scores 0.

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
SAMPLE_SUFFIX = "#sample"  # a snapshot opponent samples its moves (snapshot_sample: true)
SNAPSHOT_DRAW_TAG = 0x5A9  # the snapshot draw's generator: default_rng([draw, tag]), apart from the deals'
OPPONENT_SEED_TAG = 0x0BB  # an opponent's seed: SeedSequence([seed, slice, tag]), apart from the deals' seed + i


def slice_opponents(mixture: dict[str, float], n_slices: int, snapshots: list[str], sample: bool = True,
                    draw: int = 0) -> list[str]:
    """One league entry per slice for ``mixture`` (weights >= 0, not all 0), by largest
    remainders, in the mixture's order. ``snapshots`` slices play snapshots drawn without
    replacement (as far as there are enough) from the ``snapshots`` directories, uniformly, by a
    generator seeded with ``draw`` (the training loop passes the step: a new draw at every new
    deal), as ``checkpoint:<dir>#sample`` (``sample``: ``snapshot_sample``) or ``checkpoint:<dir>``;
    :data:`SELF` while there are none."""
    entries = [(e, float(w)) for e, w in mixture.items() if w > 0]
    total = sum(w for _, w in entries)
    exact = [w / total * n_slices for _, w in entries]
    counts = [int(x) for x in exact]
    for i in sorted(range(len(entries)), key=lambda i: counts[i] - exact[i])[:n_slices - sum(counts)]:
        counts[i] += 1
    out: list[str] = []
    suffix = SAMPLE_SUFFIX if sample else ""
    for (entry, _), count in zip(entries, counts):
        if entry == SNAPSHOTS and snapshots:
            order = np.random.default_rng([draw, SNAPSHOT_DRAW_TAG]).permutation(len(snapshots))
            out += [f"checkpoint:{snapshots[order[k % len(snapshots)]]}{suffix}" for k in range(count)]
        else:
            out += [SELF if entry == SNAPSHOTS else entry] * count
    return out


def league_line(specs: list[str], snapshots: list[str]) -> str:
    """The league as it is played: each entry's share of the slices (``snapshots`` for the
    learner's snapshots), e.g. ``heuristic 5/8 (62%), random 2/8 (25%), snapshots 1/8 (12%)``."""
    kinds = [SNAPSHOTS if spec.split("#")[0].removeprefix("checkpoint:") in snapshots else spec for spec in specs]
    counts = {kind: kinds.count(kind) for kind in dict.fromkeys(kinds)}
    return ", ".join(f"{kind} {c}/{len(specs)} ({c / len(specs):.0%})" for kind, c in counts.items())


def opponent_seed(seed: int, k: int) -> int:
    """The seed of slice ``k``'s policy opponent: a stream of its own (``SeedSequence``), not
    one of the deals' ``default_rng(seed + i)``."""
    return int(np.random.SeedSequence([seed, k, OPPONENT_SEED_TAG]).generate_state(1, np.uint64)[0])


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
            return make_agent(spec, self.rules, self.num_players, seed=seed)  # seed: opponent_seed()
        return spec

    def start(self, specs: list[str], seed: int) -> None:
        """Deal every game anew (game ``i`` from ``seed + i``) with ``specs[k]`` in slice ``k``'s
        opponent seats, slice ``k``'s policy opponent seeded by :func:`opponent_seed`."""
        if len(specs) != self.n_slices:
            raise ValueError(f"{len(specs)} league entries for {self.n_slices} slices")
        self.specs = list(specs)
        for k, (env, spec) in enumerate(zip(self.envs, specs)):
            env.set_opponents([self._opponent(spec, opponent_seed(seed, k))])
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
