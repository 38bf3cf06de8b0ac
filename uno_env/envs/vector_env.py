"""UNO as a Gymnasium ``VectorEnv`` over the batched engine: N games in one step.

=====================  ==========================================================
Import                 ``import uno_env; gymnasium.make_vec("uno_env/Uno-v1", num_envs=1024,
                       vectorization_mode="vector_entry_point", rules="classic",
                       num_players=2, opponents=["random"])``
Action space           ``MultiDiscrete([195] * N)`` (single: ``Discrete(195)``, as ``Uno-v1``)
Observation space      ``Box(0, inf, (N, 1537), float32)``: per game, the scalar env's observation
                       (layout 1, with the public history); ``layout=0``: its first
                       ``observation.V0_SIZE`` (1254) entries, the observation of layout 0
Action mask            ``info["action_mask"]`` (int8, ``(N, 195)``) and ``env.action_masks()``
                       (bool); all zero in a game whose episode just ended
Critic state           ``critic_state``, as :class:`~uno_env.envs.gym_env.UnoGymEnv`'s (training
                       only: hidden information): ``"info"``: ``info["state"]`` ``(N, 807)``, the
                       global state seen from each game's learner; ``"append"``: appended to each
                       observation (``(N, 1537 + 807)``); ``None`` (default): nothing
Autoreset              next step (Gymnasium 1.x default): the step after a game's end resets
                       that game and ignores its action (an id all the same); reward 0, not
                       terminated
Inputs                 :mod:`uno_env.envs.checks`, the contract of every env: actions an integer
                       array ``(N,)`` of ids in ``0..194``, ``seed`` None or an integer >= 0,
                       ``options`` None or ``{"reset_mask": bools (N,)}``; anything else is a
                       ``ValueError`` naming it, raised before anything changes
=====================  ==========================================================

Game ``i`` is one :class:`~uno_env.envs.gym_env.UnoGymEnv` episode after another: one
learner seat (``seat="random"`` draws it per episode, or a fixed seat), the other seats
played inside ``step()`` by the opponents, the same rewards (+1 win, -1/(n-1) loss at the
end; 0 on a truncation at ``rules.max_steps`` decisions), illegal learner actions ending
the episode with -1 and ``info["illegal"]``. Every ruleset and option (presets ``classic``,
``tmnt``, ``house``, ..., see :mod:`uno_env.game.batched.engine`).

**Opponents** (one spec for every opponent seat, or one per seat to the learner's left):

``"random"``
    the ``random`` bot, as a compiled kernel over the batch (same choice distribution as
    :class:`~uno_env.agents.bots.RandomAgent`, its own per-game stream);
``"checkpoint:<dir>"``, ``"pretrained:<name>"`` (``#sample`` to sample) or a
:class:`~uno_env.agents.checkpoint.PolicyAgent`
    the policy, evaluated once per batch on the observations and masks of every game
    where that seat decides (a checkpoint of either observation layout: a layout-0 policy reads
    the first 1254 entries; with ``layout=0`` a layout-1 policy is a ``ValueError``);
a callable ``f(observations (M, 1537) float32, masks (M, 195) int8) -> actions (M,)``
    likewise once per batch: self-play with the learner's current weights;
any other agent spec (``"heuristic"``, ``"greedy"``)
    one agent per game and seat, asked game by game (correct, but Python-speed).

``set_opponents(opponents)`` swaps them (from the next decision on).

**Seeding.** ``reset(seed=s)`` starts game ``i``'s card stream at ``np.random.default_rng(s + i)``
(the scalar engine's dealer draw, shuffle and reshuffles, bit for bit) and seeds the seat
draws and the opponents from ``s``; later resets continue the streams.
``options={"reset_mask": mask}`` resets only some games.
"""

from __future__ import annotations

from typing import Any, Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from uno_env.agents.base import Agent, make_agent, parse_spec
from uno_env.envs import checks
from uno_env.envs.gym_env import CRITIC_STATE_MODES
from uno_env.game import actions as A
from uno_env.game import observation as O
from uno_env.game.batched import BatchedEngine, rng_words
from uno_env.game.global_state import GLOBAL_STATE_SIZE
from uno_env.game.rules import make_rules

try:  # Gymnasium >= 1.1 names the autoreset mode; 1.0 only has next-step autoreset
    from gymnasium.vector import AutoresetMode
    _NEXT_STEP: Any = AutoresetMode.NEXT_STEP
except ImportError:  # pragma: no cover
    _NEXT_STEP = "NextStep"

ILLEGAL_REWARD = -1.0
MAX_REDEALS = 100

_RANDOM, _BATCHED, _SCALAR = range(3)


def check_batched_policy(agent: Agent, layout: int) -> None:
    """``ValueError`` unless the policy of ``agent`` reads observations of a layout no later than
    ``layout`` (a prefix of what a batched engine of that layout gives)."""
    size = O.LAYOUT_SIZES[layout]
    width = getattr(agent.policy, "width", size)
    if width > size:
        raise ValueError(f"{getattr(agent, 'name', agent)!r} reads observations of layout "
                         f"{getattr(agent.policy, 'layout_version', '?')} ({width} entries); this batched "
                         f"engine gives layout {layout} ({size} entries): use layout={O.LAYOUT_VERSION}")


class UnoVectorEnv(gym.vector.VectorEnv):
    metadata = {"render_modes": [], "autoreset_mode": _NEXT_STEP}

    def __init__(self, num_envs: int = 1, rules: Any = "classic", num_players: int = 2,
                 opponents: Any = ("random",), seat: "str | int" = "random",
                 render_mode: str | None = None, layout: int = O.LAYOUT_VERSION,
                 critic_state: str | None = None, **rule_overrides: Any):
        if render_mode is not None:
            raise ValueError(f"the vector env does not render (render_mode must be None, got {render_mode!r})")
        if not (critic_state is None or (isinstance(critic_state, str) and critic_state in CRITIC_STATE_MODES)):
            raise ValueError(f"critic_state must be one of {list(CRITIC_STATE_MODES)}, got {checks.show(critic_state)}")
        self.critic_state = critic_state
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.rules = make_rules(rules, **rule_overrides)
        self.engine = BatchedEngine(self.rules, num_players, int(num_envs), layout=layout)
        self.layout = self.engine.layout
        size = self.engine.obs_size + (GLOBAL_STATE_SIZE if critic_state == "append" else 0)
        self.num_envs = N = int(num_envs)
        self.n = n = self.engine.n
        if seat != "random" and not (isinstance(seat, (int, np.integer)) and 0 <= seat < n):
            raise ValueError(f"seat must be 'random' or a seat in 0..{n - 1}, got {seat!r}")
        self.seat_choice = seat
        self.render_mode = None
        self.single_observation_space = spaces.Box(0.0, np.inf, (size,), np.float32)
        self.single_action_space = spaces.Discrete(A.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, N)
        self.action_space = batch_space(self.single_action_space, N)
        self.seats = np.zeros(N, np.int64)
        self._autoreset = np.zeros(N, bool)
        self._masks = np.zeros((N, A.NUM_ACTIONS), np.int8)
        self._obs = np.zeros((N, self.engine.obs_size), np.float32)  # opponents' observations and masks
        self._opp_masks = np.zeros((N, A.NUM_ACTIONS), np.int8)
        self._opp_rng = rng_words(range(N))
        self._started = False
        self.set_opponents(opponents)

    # ------------------------------------------------------------------ opponents
    def set_opponents(self, opponents: Any) -> None:
        """Opponents for every opponent seat (one spec) or per seat to the learner's left."""
        if isinstance(opponents, (str, Agent)) or callable(opponents):
            opponents = [opponents]
        opponents = list(opponents)
        if len(opponents) not in (1, self.n - 1):
            raise ValueError(f"opponents must hold 1 or {self.n - 1} entries for {self.n} players, "
                             f"got {len(opponents)}: {opponents!r}")
        if len(opponents) == 1:
            opponents = opponents * (self.n - 1)
        self.controllers: list[tuple[int, Any]] = []
        self.slot_controller = np.full(self.n, -1, np.int64)  # slot j = j seats to the learner's left
        made: dict[Any, int] = {}
        for j, spec in enumerate(opponents, start=1):
            key = spec if isinstance(spec, str) else id(spec)
            if isinstance(spec, str) and spec not in ("random",) and not parse_spec(spec).is_policy:
                key = (spec, j)  # scripted bots remember what they saw: one per seat (and game)
            if key not in made:
                made[key] = len(self.controllers)
                self.controllers.append(self._controller(spec, j))
            self.slot_controller[j] = made[key]
        if self._started:
            self._reset_agents(np.ones(self.num_envs, bool))

    def _controller(self, spec: Any, slot: int) -> tuple[int, Any]:
        if isinstance(spec, str):
            if spec == "random":
                return (_RANDOM, None)
            if parse_spec(spec).is_policy:
                agent = make_agent(spec, self.rules, self.n)
                return (_BATCHED, self._policy_fn(agent))
            make_agent(spec, self.rules, self.n)  # ValueError for an unknown spec, now
            agents = [make_agent(spec, self.rules, self.n) for _ in range(self.num_envs)]
            return (_SCALAR, agents)
        if isinstance(spec, Agent):
            fn = self._policy_fn(spec)
            if fn is None:
                raise ValueError(f"an Agent instance as a vector-env opponent must be a policy agent "
                                 f"(checkpoint); for scripted bots give the spec string, got {spec!r}")
            return (_BATCHED, fn)
        if callable(spec):
            return (_BATCHED, spec)
        raise ValueError(f"an opponent must be an agent spec string, a policy agent or a callable, got {spec!r}")

    def _policy_fn(self, agent: Agent) -> Callable | None:
        policy = getattr(agent, "policy", None)
        if policy is None or not hasattr(policy, "act"):
            return None
        check_batched_policy(agent, self.layout)
        deterministic, rng = getattr(agent, "deterministic", True), agent.rng
        return lambda obs, masks: policy.act(obs, masks, deterministic, rng)

    def _reset_agents(self, games: np.ndarray) -> None:
        for kind, agents in self.controllers:
            if kind == _SCALAR:
                for b in np.flatnonzero(games):
                    agents[b].reset(int(self.np_random.integers(2**31)))

    def _play_opponents(self, live: np.ndarray) -> None:
        """Opponents decide in every ``live`` game until the learner decides or the game ends."""
        eng, seats, n = self.engine, self.seats, self.n
        max_steps = self.rules.max_steps
        if all(kind == _RANDOM for kind, _ in self.controllers):  # the whole loop in one kernel
            eng.random_bots_until(seats, self._opp_rng, live)
            return
        actions = np.zeros(self.num_envs, np.int64)
        while True:
            todo = live & ~eng.game_over & (eng.actor != seats) & (eng.steps < max_steps)
            if not todo.any():
                return
            ctrl = self.slot_controller[(eng.actor - seats) % n]
            for c, (kind, impl) in enumerate(self.controllers):
                sel = todo & (ctrl == c)
                if not sel.any():
                    continue
                if kind == _RANDOM:
                    actions[sel] = eng.random_bot_actions(self._opp_rng, sel)[sel]
                    continue
                rows = np.flatnonzero(sel)
                obs = eng.observe(eng.actor, sel, out=self._obs)[rows]
                masks = eng.legal_masks(sel, out=self._opp_masks)[rows]
                if kind == _BATCHED:
                    actions[rows] = checks.action_ids(impl(obs, masks), len(rows), "an opponent policy")
                else:
                    for i, b in enumerate(rows):
                        actions[b] = int(impl[b].act(obs[i], masks[i]))
            eng.step(actions, active=todo)  # ValueError names an illegal opponent action

    # ------------------------------------------------------------------ gymnasium API
    def _reset_games(self, games: np.ndarray, seeds: list | None = None) -> None:
        rng = self.np_random
        idx = np.flatnonzero(games)
        if self.seat_choice == "random":
            self.seats[idx] = rng.integers(self.n, size=len(idx))
        else:
            self.seats[idx] = int(self.seat_choice)
        self._reset_agents(games)
        self.engine.reset(games, seeds=seeds)
        todo = games
        for _ in range(MAX_REDEALS):
            self._play_opponents(todo)
            todo = games & (self.engine.game_over | self.engine.truncated())
            if not todo.any():
                break
            self.engine.reset(todo)  # a round over before the learner's first decision: deal again
        else:
            raise RuntimeError(f"the opponents ended {MAX_REDEALS} deals in a row before the learner's "
                               f"first decision")
        self._autoreset[games] = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = checks.seed(seed)  # ValueError before anything changes (uno_env.envs.checks)
        games = checks.vector_reset_options(options, self.num_envs)
        super().reset(seed=seed)
        seeds = None
        if seed is not None:
            seeds = [seed + int(b) for b in np.flatnonzero(games)]
            self._opp_rng[games] = rng_words([int(x) for x in self.np_random.integers(2**63, size=int(games.sum()))])
        self._started = True
        self._reset_games(games, seeds)
        return self._observe(), self._info()

    def step(self, actions: Any):
        if not self._started:
            raise RuntimeError("reset() needs to be called before step()")
        N, eng = self.num_envs, self.engine
        acts = checks.action_ids(actions, N)  # ValueError before anything changes
        rewards = np.zeros(N)
        terminated = np.zeros(N, bool)
        truncated = np.zeros(N, bool)
        resetting = self._autoreset.copy()
        if resetting.any():
            self._reset_games(resetting)
        live = ~resetting
        legal = self._masks[np.arange(N), acts] == 1
        illegal = live & ~legal
        ok = live & legal
        eng.step(acts, active=ok, checked=True)  # ok: legal in the masks of this very state
        self._play_opponents(ok)
        over = ok & eng.game_over
        terminated[over] = True
        rewards[over] = eng.returns()[over, self.seats[over]]  # Engine.returns, per game
        truncated[:] = ok & eng.truncated()
        terminated[illegal] = True
        rewards[illegal] = ILLEGAL_REWARD
        self._autoreset = terminated | truncated
        info = self._info()
        done = self._autoreset
        if done.any():
            info["winner"] = np.where(done, eng.winner, -1)
            info["_winner"] = done.copy()
            info["steps"] = np.where(done, eng.steps, 0)
            info["_steps"] = done.copy()
        if illegal.any():
            info["illegal"] = illegal
            info["_illegal"] = illegal.copy()
        return self._observe(), rewards, terminated, truncated, info

    def _observe(self) -> np.ndarray:
        obs = self.engine.observe(self.seats)
        if self.critic_state == "append":
            return np.concatenate([obs, self.engine.global_state(self.seats)], axis=1)
        return obs

    def _info(self) -> dict[str, Any]:
        live = ~self._autoreset
        self.engine.legal_masks(live, out=self._masks)
        info = {"action_mask": self._masks.copy(), "_action_mask": np.ones(self.num_envs, bool),
                "seat": self.seats.copy(), "_seat": np.ones(self.num_envs, bool)}
        if self.critic_state == "info":
            info["state"] = self.engine.global_state(self.seats)
            info["_state"] = np.ones(self.num_envs, bool)
        return info

    def restart(self, games: Any, observations: np.ndarray) -> None:
        """Same-step autoreset, for wrappers whose library expects it (SB3's ``VecEnv``:
        :mod:`uno_env.learn.sb3.vec_env`): start the next episode of the games in the boolean
        mask ``games`` (at least one) now, as the step after their end would, and write their first
        observations into their rows of ``observations`` (the last step's, ``(N, size)``,
        updated in place; only those rows are observed again); the masks
        (:meth:`action_masks`) are refreshed. Their next ``step`` then plays their actions."""
        games = checks.vector_reset_options({"reset_mask": games}, self.num_envs)
        if not self._started:
            raise RuntimeError("reset() needs to be called before restart()")
        if observations.shape != (self.num_envs,) + self.single_observation_space.shape:
            raise ValueError(f"observations must have shape {(self.num_envs,) + self.single_observation_space.shape}, "
                             f"got {observations.shape}")
        self._reset_games(games)
        rows = np.flatnonzero(games)
        obs = self.engine.observe(self.seats, games, out=self._obs)[rows]
        if self.critic_state == "append":
            obs = np.concatenate([obs, self.engine.global_state(self.seats)[rows]], axis=1)
        observations[rows] = obs
        self.engine.legal_masks(~self._autoreset, out=self._masks)

    def action_masks(self) -> np.ndarray:
        """Legal actions of every game's learner decision, as bools ``(N, 195)``."""
        return self._masks.astype(bool)
