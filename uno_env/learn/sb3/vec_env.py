"""Stable-Baselines3's ``VecEnv`` over the batched engine: N games per step for SB3 and MaskablePPO.

    from sb3_contrib import MaskablePPO
    from uno_env.learn.sb3.vec_env import UnoSB3VecEnv
    env = UnoSB3VecEnv(num_envs=256, rules="classic", num_players=2, opponents=["random"], seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=4096, device="cpu")
    model.learn(100_000)

An SB3 :class:`~stable_baselines3.common.vec_env.VecEnv` (subclassed, so ``isinstance`` checks,
``VecNormalize``, ``VecMonitor`` and the algorithms' wrapping all see a vector env) around
:class:`~uno_env.envs.vector_env.UnoVectorEnv`: the same games, rewards, opponents (one spec, or one per
opponent seat: compiled ``random``, ``checkpoint:`` / ``pretrained:`` policies once per batch,
a callable for self-play; other specs game by game), ``seat``, ``layout`` and ``critic_state``
(``"append"`` only: SB3's infos carry no batched state). What it adds is SB3's conventions:

**Same-step autoreset.** The Gymnasium vector env resets a finished game on the *next* step
(the action of that step is ignored); SB3 expects the step that ends an episode to return the
first observation of the next one already, with the last observation in
``infos[i]["terminal_observation"]``. This env does exactly that
(:meth:`~uno_env.envs.vector_env.UnoVectorEnv.restart`: only the finished games are observed again),
so no step of an SB3 rollout is a dummy step and every learner action is played.

**Infos.** Per game, a dict: ``terminal_observation`` and ``TimeLimit.truncated`` (a game cut
at ``rules.max_steps``: SB3 bootstraps its value) on the step that ends an episode, and
``episode`` = ``{"r": return, "l": learner decisions, "t": seconds since the env started}``, what
SB3's ``Monitor`` writes, so ``rollout/ep_rew_mean`` and ``ep_len_mean`` are logged without a
``VecMonitor``; ``winner`` (seat, -1 if cut), ``seat`` (the learner's) and ``illegal`` (an illegal
action: reward -1) beside it. Infos are built only for the games that ended (the others are
empty dicts).

**Masks.** :meth:`action_masks` gives the legal actions of every game's learner, bools
``(N, 195)``: MaskablePPO finds it through ``env_method("action_masks")``, which returns its rows.

**Seeding.** ``seed(s)`` (SB3 calls it with the algorithm's seed) or ``UnoSB3VecEnv(..., seed=s)``
seeds the next ``reset()``: game ``i``'s cards from ``default_rng(s + i)``, as the vector env's
``reset(seed=s)``.

``get_attr`` / ``set_attr`` / ``env_method`` reach the one vector env (its attribute, once per
index); ``env_is_wrapped`` is True for ``Monitor`` (what it writes is here), else False. Needs gymnasium, numba (the batched engine) and
stable-baselines3 (imported here: this module is in the learn layer).
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from uno_env.envs.vector_env import UnoVectorEnv


class UnoSB3VecEnv(VecEnv):
    """N games of UNO as one SB3 vector env (module docstring); ``env`` is the Gymnasium one."""

    def __init__(self, num_envs: int = 1, rules: Any = "classic", num_players: int = 2,
                 opponents: Any = ("random",), seat: "str | int" = "random", seed: int | None = None,
                 critic_state: str | None = None, **kwargs: Any):
        if critic_state == "info":
            raise ValueError("critic_state='info' gives the batched state in the Gymnasium infos; "
                             "SB3's infos are per game: use critic_state='append' (or None)")
        self.env = UnoVectorEnv(num_envs, rules=rules, num_players=num_players, opponents=opponents, seat=seat,
                                critic_state=critic_state, **kwargs)
        super().__init__(self.env.num_envs, self.env.single_observation_space, self.env.single_action_space)
        self._next_seed = seed
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(self.num_envs)
        self._lengths = np.zeros(self.num_envs, np.int64)
        self._t0 = time.perf_counter()

    # ------------------------------------------------------------------ SB3's API
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seeds the next ``reset()`` (game ``i``: ``seed + i``)."""
        self._next_seed = None if seed is None else int(seed)
        return [None if seed is None else int(seed) + i for i in range(self.num_envs)]

    def reset(self) -> np.ndarray:
        obs, _ = self.env.reset(seed=self._next_seed)
        self._next_seed = None
        self._returns[:] = 0.0
        self._lengths[:] = 0
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_async() needs to be called before step_wait()")
        obs, rewards, terminated, truncated, info = self.env.step(self._actions)
        self._actions = None
        done = terminated | truncated
        self._returns += rewards
        self._lengths += 1
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if done.any():
            rows = np.flatnonzero(done)
            terminal = obs[rows].copy()  # restart() writes the next episode's rows of obs
            now = round(time.perf_counter() - self._t0, 6)
            illegal = info.get("illegal", np.zeros(self.num_envs, bool))
            for k, i in enumerate(rows):
                infos[i] = {"terminal_observation": terminal[k],
                            "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                            "episode": {"r": float(self._returns[i]), "l": int(self._lengths[i]), "t": now},
                            "winner": int(info["winner"][i]), "seat": int(info["seat"][i]),
                            "illegal": bool(illegal[i])}
            self._returns[rows] = 0.0
            self._lengths[rows] = 0
            self.env.restart(done, obs)
        return obs, rewards.astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        """Legal actions of every game's learner decision, bools ``(N, 195)``."""
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    def _indices(self, indices: Any) -> list[int]:
        return list(self._get_indices(indices))

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name) if attr_name == "action_masks" else getattr(self.env, attr_name)
        return [value for _ in self._indices(indices)]

    def _whole(self, what: str, indices: Any) -> list[int]:
        """``indices`` for an operation on the whole vector env: every game, or a ``ValueError``
        (one game of the batch cannot be set or called apart from the others)."""
        idx = self._indices(indices)
        if idx != list(range(self.num_envs)):
            raise ValueError(f"{what} acts on all {self.num_envs} games of the batched engine at once, "
                             f"not on indices {idx[:8]}{'...' if len(idx) > 8 else ''}")
        return idx

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        self._whole(f"set_attr({attr_name!r})", indices)
        setattr(self.env, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: Any = None, **method_kwargs) -> list[Any]:
        if method_name == "action_masks":
            masks = self.action_masks()
            return list(masks[self._indices(indices)])
        idx = self._whole(f"env_method({method_name!r})", indices)
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """True for SB3's ``Monitor`` only: every game writes ``info["episode"]`` as it does (so
        ``evaluate_policy`` reads the episodes' returns from it), no other wrapper."""
        from stable_baselines3.common.monitor import Monitor

        return [wrapper_class is Monitor for _ in self._indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]
