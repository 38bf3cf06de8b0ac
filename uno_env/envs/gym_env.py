"""UNO as a single-agent Gymnasium env: one learner seat, the other seats played by agents.

=====================  ==========================================================
Import                 ``import uno_env; gymnasium.make("uno_env/Uno-v1", rules="classic",
                       num_players=2, opponents=["heuristic"], seat="random")``
                       (or ``gymnasium.make("uno_env:uno_env/Uno-v1", ...)``)
Action space           ``Discrete(195)``, the layout of :mod:`uno_env.game.actions`
Observation space      ``Box(0, inf, (1537,), float32)``, the vector of :mod:`uno_env.game.observation`
Action mask            ``env.action_masks()`` (bool, for sb3-contrib) and
                       ``info["action_mask"]`` (int8); all zero once the episode is over
=====================  ==========================================================

A thin adapter over :class:`uno_env.game.engine.Engine` (no AEC machinery, for speed). The
learner sees only its own decisions, windows included (a jump-in or catch window, a Wild
Draw Four challenge); every other decision is taken inside ``step()`` and ``reset()`` by
the opponents through the agent interface (``act(observation, action_mask)``).

**Opponents.** ``opponents`` is one agent spec (``"random"``, ``"heuristic"``,
``"checkpoint:<path>"``) or :class:`~uno_env.agents.Agent` for every other seat, or a list
with one per opponent seat (seats to the learner's left, in order). A spec string builds
one agent per seat (bots remember what they saw); an Agent instance is used as given.
For self-play, ``opponent_pool`` draws the opponents afresh each episode with the env
RNG: a list of ``(opponents, weight)`` pairs, or a callable ``pool(rng) -> opponents``;
``set_opponent_pool(pool)`` swaps it between episodes (``VecEnv.env_method`` works).
Agents built from spec strings are cached (a checkpoint's model is loaded once).

**Rewards.** At the end of the episode (``rules.episode``): +1 if the learner wins, else
-1/(n-1), as in the AEC env, also when an opponent's move ends it. 0 on every other step.

**Truncation.** An episode is truncated (``truncated=True``, reward 0) by whichever cap it
reaches first, named in ``info["truncated_reason"]``:

=======================  =================================================================
``"max_learner_steps"``  the learner took ``max_learner_steps`` decisions this episode
                         (default :data:`DEFAULT_MAX_LEARNER_STEPS` = 1000; ``None``: no cap)
``"max_steps"``          the engine's cap, ``rules.max_steps`` decisions of all seats
                         (default 10,000), the same as in the AEC env
=======================  =================================================================

Why a cap on the learner's own decisions: ``draw`` is always legal, so an untrained policy
(uniform over the legal actions) draws as often as it plays and, against another untrained
policy (early self-play), plays games of thousands of decisions. Measured with
``python bench/game_lengths.py --games 1000`` (learner decisions per game, 99th percentile /
maximum of 1,000 games; "uniform" is an untrained policy, ``random`` and ``heuristic`` the bots):

==============================  ===============  ===============  ===================
learner vs opponent             classic 2p       classic 4p       house 2p
==============================  ===============  ===============  ===================
heuristic vs heuristic          66 / 109         33 / 45          190 / 343
uniform vs heuristic            93 / 114         38 / 63          189 / 240
uniform vs random               184 / 250        47 / 91          836 / 1,100
uniform vs uniform              2,702 / 4,003    1,034 / 1,728    97 of 100 games
                                                                  unfinished after
                                                                  100,000 decisions
==============================  ===============  ===============  ===================

So 1,000 learner decisions never cuts a game in which a bot plays (house, uniform vs
random: 0.5% of games), while it ends the endless games of two untrained policies (classic
2p: 19% of them, median 399; house: nearly all). ``gymnasium.make(..., max_episode_steps=N)``
would count the same steps but wraps the env (``action_masks()`` is then out of reach of
sb3-contrib's ``ActionMasker(env, "action_masks")``) and names no reason; use
``max_learner_steps``. Trainers that tell truncation from termination (SB3's vector envs through
``info["TimeLimit.truncated"]``, Tianshou, TorchRL) bootstrap from the value of the state it
was cut in, so a cut game is not a loss; ``examples/cleanrl_ppo.py``, like CleanRL, ends the
return there with 0.

**Illegal actions** (an action id in ``0..194`` that the mask forbids) end the episode with
reward -1 and ``info["illegal"] = True`` (state unchanged). What is not an action id (a float,
a string, ``None``, a bool, an id out of range) is a ``ValueError`` naming it, raised before
anything changes (:mod:`uno_env.envs.checks`); so is a bad seed or reset option. An illegal
move by an *opponent* is a bug in that agent: :class:`~uno_env.agents.arena.IllegalActionError`
(a ``ValueError``). The opponents play through :func:`uno_env.agents.arena.play_until`, the
loop every tool shares.

**A global state for centralised critics** (``critic_state``; training only). The global
state of :mod:`uno_env.game.global_state` seen from the learner's seat (every hand, the DRAW
pile's contents: hidden information) for an asymmetric actor-critic, whose value network
reads it while the policy reads only the observation (PerfectDou, Suphx):

==============  ===================================================================
``None``        (default) nothing
``"info"``      ``info["state"]``, shape ``(807,)``, after every ``reset`` and ``step``
                (for trainers that read infos, e.g. a CleanRL-style loop)
``"append"``    the observation becomes ``Box(0, inf, (1537 + 807,))``: the observation,
                then the state (for trainers that store only observations, e.g. SB3:
                ``training/train.py`` with ``critic: state``). The policy must read only
                the first 1537 entries (the ``obs_features`` input does); one that reads
                the whole vector sees the hidden cards.
==============  ===================================================================

**Reset.** ``reset(seed=..., options={"deck": [card strings, top first], "dealer": seat})``
as in the AEC env (any other option key is a ``ValueError`` naming it). The learner's seat is drawn with the env RNG when ``seat="random"``.
If a round ends before the learner's first decision (an opponent playing out its whole
hand on skips), the cards are dealt again.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.agents.arena import play_until
from uno_env.agents.base import Agent, make_agent
from uno_env.game.engine import Engine
from uno_env.game.global_state import GLOBAL_STATE_SIZE, GlobalStateEncoder
from uno_env.game.observation import OBS_SIZE, ObservationEncoder
from uno_env.envs import checks
from uno_env.envs.render import RENDER_MODES, render_for_mode
from uno_env.game.rules import make_rules

ILLEGAL_REWARD = -1.0
DEFAULT_MAX_LEARNER_STEPS = 1000  # the learner's decisions per episode (see the docstring's table)
TRUNCATED_LEARNER = "max_learner_steps"  # info["truncated_reason"] values
TRUNCATED_ENGINE = "max_steps"
CRITIC_STATE_MODES = (None, "info", "append")


class UnoGymEnv(gym.Env):
    """One learner seat of UNO against agents (the module docstring has the details):
    ``gymnasium.make("uno_env/Uno-v1", **kwargs)`` passes its keyword arguments here.

    ``rules``: a preset name, a YAML path, a mapping of rule options or a
    :class:`~uno_env.game.rules.Rules`; ``**rule_overrides``: single rule options on top of
    it. ``num_players``: 2..10. ``opponents``: one agent spec or
    :class:`~uno_env.agents.Agent` for every other seat, or one per opponent seat (to the
    learner's left, in order). ``seat``: the learner's seat, or ``"random"`` (drawn each
    episode). ``render_mode``: None, ``"ansi"``, ``"human"`` or ``"rgb_array"``.
    ``opponent_pool``: None, a list of ``(opponents, weight)`` or a callable
    ``pool(rng) -> opponents``, drawn each episode (self-play leagues). ``max_learner_steps``:
    the cap on the learner's decisions per episode (None: no cap). ``critic_state``: None,
    ``"info"`` or ``"append"``: the global state for a centralised critic (training only).
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 1}

    def __init__(self, rules: Any = "classic", num_players: int = 2,
                 opponents: Any = ("heuristic",), seat: "str | int" = "random",
                 render_mode: str | None = None, opponent_pool: Any = None,
                 max_learner_steps: int | None = DEFAULT_MAX_LEARNER_STEPS,
                 critic_state: str | None = None, **rule_overrides: Any):
        if max_learner_steps is not None and not (checks.is_integer(max_learner_steps) and max_learner_steps >= 1):
            raise ValueError(f"max_learner_steps must be a positive integer or None, "
                             f"got {checks.show(max_learner_steps)}")
        self.max_learner_steps = None if max_learner_steps is None else int(max_learner_steps)
        if not (critic_state is None or (isinstance(critic_state, str) and critic_state in CRITIC_STATE_MODES)):
            raise ValueError(f"critic_state must be one of {list(CRITIC_STATE_MODES)}, got {checks.show(critic_state)}")
        self.critic_state = critic_state
        self.rules = make_rules(rules, **rule_overrides)
        self.engine = Engine(self.rules, num_players)
        self.encoder = ObservationEncoder(self.engine)
        self.state_encoder = GlobalStateEncoder(self.engine) if critic_state else None
        self.n = self.engine.n
        if seat != "random" and not (isinstance(seat, (int, np.integer)) and 0 <= seat < self.n):
            raise ValueError(f"seat must be 'random' or a seat in 0..{self.n - 1}, got {seat!r}")
        self.seat_choice = seat
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"got {render_mode!r}")
        self.render_mode = render_mode
        size = OBS_SIZE + (GLOBAL_STATE_SIZE if critic_state == "append" else 0)
        self.observation_space = spaces.Box(0.0, np.inf, (size,), np.float32)
        self.action_space = spaces.Discrete(A.NUM_ACTIONS)
        # names used by render_table and by people reading trajectories
        self.colors = self.rules.color_names
        self.card_names = C.card_names(self.colors)
        self.action_names = A.action_names(self.colors)
        self.possible_agents = [f"player_{i}" for i in range(self.n)]
        self._cache: dict[tuple[str, int], Agent] = {}  # (spec, opponent slot) -> agent
        self.set_opponents(opponents)
        self.set_opponent_pool(opponent_pool)
        self.game_state = None
        self.done = True  # no decision pending: before the first reset, or the episode ended
        self.seat = 0
        self.learner_steps = 0  # the learner's decisions this episode
        self.truncated_reason: str | None = None
        self.seat_agents: list[Agent | None] = [None] * self.n  # agent of each seat (None: learner)

    # ------------------------------------------------------------------ opponents
    def _resolve(self, opponents: Any) -> list[Agent]:
        """One agent per opponent seat from a spec, an Agent, or a list of them."""
        if isinstance(opponents, (str, Agent)):
            opponents = [opponents]
        opponents = list(opponents)
        if len(opponents) not in (1, self.n - 1):
            raise ValueError(f"opponents must hold 1 or {self.n - 1} specs for {self.n} players, "
                             f"got {len(opponents)}: {opponents!r}")
        if len(opponents) == 1:
            opponents = opponents * (self.n - 1)
        agents = []
        for j, spec in enumerate(opponents):
            if isinstance(spec, Agent):
                agents.append(spec)
            elif isinstance(spec, str):
                key = (spec, j)  # one instance per seat: bots remember what they saw
                if key not in self._cache:
                    self._cache[key] = make_agent(spec, self.rules, self.n)
                agents.append(self._cache[key])
            else:
                raise ValueError(f"an opponent must be an agent spec string or an Agent, got {spec!r}")
        return agents

    def set_opponents(self, opponents: Any) -> None:
        """Fixed opponents from the next episode on (and no pool)."""
        self.opponents = self._resolve(opponents)
        self.opponent_pool = None
        self._prune(self.opponents)

    def _prune(self, keep: list[Agent]) -> None:
        """Forget cached agents not in ``keep`` (e.g. self-play snapshots that left the pool)."""
        ids = {id(a) for a in keep}
        for key in [k for k, a in self._cache.items() if id(a) not in ids]:
            del self._cache[key]

    def set_opponent_pool(self, pool: Any) -> None:
        """Opponents drawn per episode: ``[(opponents, weight), ...]``, ``pool(rng)``, or None."""
        if pool is None or callable(pool):
            self.opponent_pool = pool
            return
        entries = [(opp, float(w)) for opp, w in pool]
        if not entries or any(w < 0 for _, w in entries) or sum(w for _, w in entries) <= 0:
            raise ValueError(f"opponent_pool needs non-negative weights with a positive sum, got {pool!r}")
        # build (and cache) every agent now, so that errors surface here
        self._prune(self.opponents + [a for opp, _ in entries for a in self._resolve(opp)])
        total = sum(w for _, w in entries)
        self.opponent_pool = ([opp for opp, _ in entries], np.array([w / total for _, w in entries]))

    def _draw_opponents(self) -> list[Agent]:
        pool = self.opponent_pool
        if pool is None:
            return self.opponents
        if callable(pool):
            return self._resolve(pool(self.np_random))
        choices, probs = pool
        return self._resolve(choices[int(self.np_random.choice(len(choices), p=probs))])

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode. ``seed`` (an int, or None to go on with the env's generator)
        seeds the env's one generator: it shuffles, draws the dealer and makes every random
        pick of the game. ``options`` (both keys optional; any other key is a ``ValueError``):

        * ``"deck"``: the deck as card strings, top first (``["red-5", "wild-draw4", ...]``;
          names in ``card_names``), exactly this ruleset's cards: dealt as given instead of
          shuffled (a stacked deck);
        * ``"dealer"``: the dealer's seat (``0..num_players-1``), instead of a random one.

        The learner's seat is drawn when ``seat="random"``; the opponents play until its
        first decision. A bad seed or option is a ``ValueError`` raised before anything
        changes. Returns ``(observation, info)``."""
        seed = checks.seed(seed)
        deck, dealer = checks.reset_options(options, self.colors, self.n)
        if deck is not None:
            self.engine.check_deck(deck)  # before the RNG moves: a refused reset changes nothing
        super().reset(seed=seed)
        rng = self.np_random
        self.seat = int(rng.integers(self.n)) if self.seat_choice == "random" else int(self.seat_choice)
        opponents = self._draw_opponents()
        self.seat_agents = [None] * self.n
        for j, agent in enumerate(opponents, start=1):
            self.seat_agents[(self.seat + j) % self.n] = agent
        for agent in dict.fromkeys(opponents):  # distinct agents, in seat order
            agent.reset(int(rng.integers(2**31)))
        for _ in range(100):
            self.game_state = self.engine.new_state(rng, deck=deck, dealer=dealer)
            self._play_opponents()
            if not self.game_state.game_over and not self.engine.truncated(self.game_state):
                break
            deck = None  # deal again (at random)
        else:
            raise RuntimeError("the opponents ended 100 deals in a row before the learner's first decision")
        self.done = False
        self.learner_steps = 0
        self.truncated_reason = None
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(self, action: Any):
        s = self.game_state
        if self.done:
            raise RuntimeError("the episode is over (or not started); call reset()")
        action = checks.action_id(action, "the learner")  # ValueError: not an action id
        if action not in self.engine.legal_actions(s):
            self.done = True
            info = self._info(done=True)
            info["illegal"] = True
            return self._observe(), ILLEGAL_REWARD, True, False, info
        self.engine.step(s, action)
        self.learner_steps += 1
        self._play_opponents()
        reward, terminated, truncated = 0.0, False, False
        if s.game_over:
            terminated = True
            reward = self.engine.returns(s)[self.seat]
        elif self.engine.truncated(s):
            truncated, self.truncated_reason = True, TRUNCATED_ENGINE
        elif self.max_learner_steps is not None and self.learner_steps >= self.max_learner_steps:
            truncated, self.truncated_reason = True, TRUNCATED_LEARNER
        self.done = terminated or truncated
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info(done=self.done)

    def _play_opponents(self) -> None:
        """Opponents decide until it is the learner's decision or the episode ends."""
        play_until(self.engine, self.game_state, self.seat_agents, self.seat, encoder=self.encoder)

    def _observe(self) -> np.ndarray:
        obs = self.encoder.encode(self.game_state, self.seat)
        if self.critic_state == "append":
            return np.concatenate([obs, self.state_encoder.encode(self.game_state, self.seat)])
        return obs

    def _mask(self) -> np.ndarray:
        if self.done:
            return np.zeros(A.NUM_ACTIONS, np.int8)
        return A.legal_mask(self.engine.legal_actions(self.game_state))

    def _info(self, done: bool = False) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask(), "seat": self.seat}
        if self.critic_state == "info":
            info["state"] = self.state_encoder.encode(self.game_state, self.seat)
        if done:
            info["winner"] = int(self.game_state.winner)
            info["steps"] = int(self.game_state.steps)
            info["learner_steps"] = self.learner_steps
            if self.truncated_reason is not None:
                info["truncated_reason"] = self.truncated_reason
        return info

    def action_masks(self, env: Any = None) -> np.ndarray:
        """Legal actions of the learner's current decision, as bools (sb3-contrib's hook).
        ``env`` is ignored: sb3-contrib's ``ActionMasker(env, "action_masks")`` passes the env
        to the method it finds by name."""
        return self._mask().astype(bool)

    def render(self) -> str | None:
        return render_for_mode(self, self.seat)

    def close(self) -> None:
        pass
