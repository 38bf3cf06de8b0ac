"""The league: which module plays each seat of an episode (:class:`LeagueMapping`, a
``policy_mapping_fn``), and the training progress it follows (:func:`update_league`)."""

from __future__ import annotations

import collections
from typing import Any, Mapping

import numpy as np

from uno_env.integrations.rllib.multi_agent_env import seat_of
from uno_env.integrations.rllib.specs import LEARNER, SNAPSHOT_PREFIX

SNAPSHOTS = "snapshots"  # league entry: the learner's frozen snapshots
_MAPPING_CACHE = 4096  # episodes whose seat table a LeagueMapping remembers


class LeagueMapping:
    """A ``policy_mapping_fn``: which module plays each seat of an episode.

    ``phases``: a mixture ``{module id: weight}`` or a list of ``{"until": u, "opponents":
    {module id: weight}}`` (``u`` <= 1: a fraction of training, > 1: a step count, None: the
    rest), as in ``configs/train``. One seat per episode is the learner (``"shared"``), the
    others draw from the mixture; ``"snapshots"`` splits its weight over the ``snapshot_i``
    modules filled so far (none yet: its weight is dropped). Draws use this object's own
    generator (seeded); an episode's table is drawn once, when its first seat is mapped."""

    def __init__(self, num_players: int, phases: Any, seed: int = 0, learner: str = LEARNER):
        if isinstance(phases, Mapping):
            phases = [{"until": None, "opponents": dict(phases)}]
        self.num_players = int(num_players)
        self.phases = [dict(p) for p in phases]
        if not self.phases:
            raise ValueError("the league needs at least one phase")
        for p in self.phases:
            weights = p.get("opponents")
            if not isinstance(weights, Mapping) or not weights or any(
                    not isinstance(w, (int, float)) or w < 0 for w in weights.values()):
                raise ValueError(f"league phase {p!r}: opponents must be a mapping of module ids "
                                 f"to weights >= 0")
        self.learner = learner
        self.seed = int(seed)
        self.progress, self.step, self.snapshots = 0.0, 0, 0
        self._rng: np.random.Generator | None = None
        self._tables: collections.OrderedDict[str, list[str]] = collections.OrderedDict()

    def update(self, progress: float, step: int, snapshots: int) -> None:
        """Training progress (fraction), steps so far and how many snapshot modules hold weights."""
        self.progress, self.step, self.snapshots = float(progress), int(step), int(snapshots)

    def mixture(self) -> list[tuple[str, float]]:
        """``(module id, weight)`` of the current phase, snapshots expanded (weights > 0)."""
        phase = self.phases[-1]
        for p in self.phases:
            until = p.get("until")
            if until is None or (self.progress < until if until <= 1 else self.step < until):
                phase = p
                break
        out = []
        for mid, w in phase["opponents"].items():
            if w <= 0:
                continue
            if mid == SNAPSHOTS:
                out += [(f"{SNAPSHOT_PREFIX}{i}", w / self.snapshots) for i in range(self.snapshots)]
            else:
                out.append((mid, float(w)))
        return out or [(self.learner, 1.0)]

    def table(self, rng: np.random.Generator) -> list[str]:
        """Module ids of every seat for a new episode."""
        ids, weights = zip(*self.mixture())
        p = np.asarray(weights, float) / sum(weights)
        seats = [ids[k] for k in rng.choice(len(ids), size=self.num_players, p=p)]
        seats[int(rng.integers(self.num_players))] = self.learner
        return seats

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        if self._rng is None:
            self._rng = np.random.default_rng(self.seed)
        key = getattr(episode, "id_", None)
        table = self._tables.get(key) if key is not None else None
        if table is None:
            table = self.table(self._rng)
            if key is not None:
                self._tables[key] = table
                if len(self._tables) > _MAPPING_CACHE:
                    self._tables.popitem(last=False)
        return table[seat_of(agent_id)]


def update_league(algo: Any, progress: float, step: int, snapshots: int) -> None:
    """Tell the ``LeagueMapping`` of every env runner (the local one included) the progress."""
    def apply(env_runner: Any) -> None:
        fn = env_runner.config.policy_mapping_fn
        if isinstance(fn, LeagueMapping):
            fn.update(progress, step, snapshots)

    algo.env_runner_group.foreach_env_runner(apply, local_env_runner=True)
