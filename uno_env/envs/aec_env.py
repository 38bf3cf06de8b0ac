"""UNO as a PettingZoo AEC environment: a thin adapter over :mod:`uno_env.game.engine`.

=====================  ==========================================================
Import                 ``import uno_env; uno_env.env(rules="classic", num_players=4)``
                       or ``pettingzoo.make("aec", "uno_env/uno-v1", ...)``
Agents                 ``player_0 ... player_{n-1}`` (n = 2..10); seat i+1 is left of seat i
Action space           ``Discrete(195)``, the same for every ruleset (``uno_env.game.actions``)
Observation space      ``Dict(observation=Box(0, inf, (1537,), float32),
                       action_mask=Box(0, 1, (195,), int8))`` (``uno_env.game.observation``)
=====================  ==========================================================

Constructor: ``raw_env(rules="classic", num_players=4, render_mode=None, *,
illegal_reward=None, **overrides)``. ``rules`` is a preset name, a YAML path, a dict or a
:class:`~uno_env.game.rules.Rules`; keyword overrides change single options
(``uno_env.env(rules="tmnt", uno_call="explicit")``).

**Turns and windows.** ``agent_selection`` is the player who decides next: the player on
turn, a Wild Draw Four victim, or one player asked in a catch / jump-in / offer window.
The action mask is all zero except for ``agent_selection``, which always has a legal action.
``env.unwrapped.action_names[i]`` names action ``i``; ``env.unwrapped.action_id(name)`` maps
back.

**Reset options.** ``reset(seed=..., options={"deck": [card strings, top first],
"dealer": seat})`` stacks the deck (it must be exactly the ruleset's deck) and fixes the
dealer. Any other option key is a ``ValueError`` naming it (a typo such as ``"dek"`` is not
ignored), but ``options``, PettingZoo's api_test probe. A bad seed or option is a
``ValueError`` raised before anything changes (:mod:`uno_env.envs.checks`).

**Rewards.** ``episode="round"``: winner +1, every other player -1/(n-1), at the end of the
round. ``episode="game"`` / ``"rounds"``: the same at the end of the game; at the end of
every round ``infos[agent]["round_points"]`` holds the round's points. Every agent, the
losers included, receives its reward through ``_cumulative_rewards`` (``last()``).
At ``rules.max_steps`` decisions the episode is truncated with reward 0.

**Bad input and illegal actions.** ``step`` takes a Python int, a numpy integer or a 0-d
integer array in ``0..194``; anything else (a float, a string, ``None`` for a live agent, a
bool) or an id out of range is a ``ValueError`` naming it, and the state is unchanged; so
is anything but ``None`` for a terminated or truncated agent. An in-range action that the
mask forbids:

- ``raw_env(...)``: ``ValueError`` naming the action, phase and legal actions (state
  unchanged), for engines, tests and bots that must never err;
- ``env(...)`` (``illegal_reward=-1``): the episode ends, -1 for its player and 0 for the
  others, every agent terminated, ``infos[agent]["illegal"] = True`` (and
  ``"illegal_action"``: the id) and a PettingZoo warning:
  the contract of PettingZoo's ``TerminateIllegalWrapper``, except that ``truncations`` stay
  False (the episode did not time out).

**Call order** (what PettingZoo's ``OrderEnforcingWrapper`` checks): ``step``, ``observe``,
``last``, ``agent_iter``, ``legal_actions``, ``snapshot`` and ``state`` before the first
``reset()`` raise ``RuntimeError``; ``agents``, ``rewards``, ``terminations``, ``truncations``, ``infos`` and
``agent_selection`` do not exist before it (``AttributeError``: a ``__getattr__`` with a
friendlier message would turn off CPython's attribute specialisation and cost 5% of the
speed); ``agent_iter()`` raises ``RuntimeError`` if a loop asks for the next agent without
stepping; ``step`` after every agent has been stepped out raises ``RuntimeError``.

**Why no wrappers.** ``env()`` used to be ``raw_env`` inside PettingZoo's three classic
wrappers (``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper``,
``OrderEnforcingWrapper``): three Python layers on every ``step``/``last``/``observe`` made it
3x slower than ``raw_env`` and their checks were bare ``AssertionError``s. The checks are now
built in (two attribute tests and a type test per step), so ``env()`` is a ``raw_env`` with
``illegal_reward=-1``, runs at ``raw_env``'s speed and passes PettingZoo's ``api_test``;
``env.unwrapped`` is the env itself.

**Inspection.** ``snapshot()`` returns the whole state as a JSON-serialisable dict;
``render()`` shows the public table and the acting player's hand (``ansi`` returns the text,
``human`` prints it). ``state()`` (space ``state_space``, ``Box(807,)``) is PettingZoo's global
state: every hand, the DRAW pile's contents and the public table
(:mod:`uno_env.game.global_state`), for centralised critics in training only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils.env import AECIterable, AECIterator
from pettingzoo.utils.env_logger import EnvLogger

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import PHASE_NAMES, Engine
from uno_env.game.global_state import GLOBAL_STATE_SIZE, GlobalStateEncoder
from uno_env.game.observation import OBS_SIZE, ObservationEncoder
from uno_env.game.rules import make_rules
from uno_env.envs import checks
from uno_env.envs.render import RENDER_MODES, render_for_mode


_NUM_ACTIONS = A.NUM_ACTIONS
ILLEGAL_REWARD = -1.0  # env(): reward of an illegal action (PettingZoo's TerminateIllegalWrapper: -1)


def env(rules: Any = "classic", num_players: int = 4, render_mode: str | None = None, *,
        illegal_reward: float | None = ILLEGAL_REWARD, **overrides: Any) -> raw_env:
    """The UNO AEC env as PettingZoo's classic ``env()``: a :class:`raw_env` (the same
    arguments) whose illegal actions end the episode with ``illegal_reward`` (-1) for their
    player; bounds and call order are checked by the env itself (the guarantees of
    PettingZoo's three classic wrappers at ``raw_env``'s speed).

        env = uno_env.env(rules="tmnt", num_players=3, uno_call="explicit")
    """
    return raw_env(rules, num_players, render_mode, illegal_reward=illegal_reward, **overrides)


class _CheckedIterator(AECIterator):
    """``agent_iter``'s iterator: one ``step()`` (or ``reset()``) per agent it yields. A step
    changes the game's step count, the agents left, or ends the episode; a reset makes a new
    game state (so the check costs nothing in ``step``)."""

    def __init__(self, env: "raw_env", max_iter: int):
        super().__init__(env, max_iter)
        self._seen: tuple | None = None  # what the env looked like when the last agent was yielded

    def __next__(self) -> str:
        agent = super().__next__()
        env = self.env
        now = (env.game_state, env.game_state.steps, len(env.agents), env._ended)
        seen = self._seen
        if seen is not None and seen[0] is now[0] and seen[1:] == now[1:]:
            raise RuntimeError("agent_iter(): call step() (or reset()) once for every agent it yields")
        self._seen = now
        return agent


class _CheckedIterable(AECIterable):
    def __iter__(self) -> _CheckedIterator:
        return _CheckedIterator(self.env, self.max_iter)


class raw_env(AECEnv, EzPickle):
    """UNO as a PettingZoo AEC env (spaces, turns, rewards and checks: the module docstring).

    ``rules``: a preset name (``"classic"``, ``"tmnt"``, ``"house"``), a YAML path, a mapping
    of rule options or a :class:`~uno_env.game.rules.Rules`; ``**overrides``: single rule
    options on top of it (``raw_env("tmnt", uno_call="explicit")``). ``num_players``: 2..10.
    ``render_mode``: None, ``"ansi"`` (``render()`` returns the text), ``"human"`` (prints
    it) or ``"rgb_array"`` (an image). ``illegal_reward``: None, an illegal action is a
    ``ValueError`` and the state is unchanged; a number, it ends the episode with that reward
    for the actor (:func:`env`: -1).
    """

    metadata = {"render_modes": RENDER_MODES, "name": "uno_v1", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, rules: Any = "classic", num_players: int = 4, render_mode: str | None = None,
                 *, illegal_reward: float | None = None, **overrides: Any):
        EzPickle.__init__(self, rules, num_players, render_mode, illegal_reward=illegal_reward, **overrides)
        super().__init__()
        self.rules = make_rules(rules, **overrides)
        self.engine = Engine(self.rules, num_players)
        self.encoder = ObservationEncoder(self.engine)
        self.state_encoder = GlobalStateEncoder(self.engine)
        self.state_space = spaces.Box(0.0, np.inf, (GLOBAL_STATE_SIZE,), np.float32)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"got {checks.show(render_mode)}")
        self.render_mode = render_mode
        if illegal_reward is not None and (isinstance(illegal_reward, bool) or not isinstance(
                illegal_reward, (int, float, np.integer, np.floating)) or not math.isfinite(illegal_reward)):
            raise ValueError(f"illegal_reward must be None (illegal actions raise ValueError) or a "
                             f"finite number, got {checks.show(illegal_reward)}")
        self.illegal_reward = None if illegal_reward is None else float(illegal_reward)
        n = self.engine.n
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, np.inf, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (A.NUM_ACTIONS,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(A.NUM_ACTIONS) for a in self.possible_agents}
        self.colors = self.rules.color_names
        self.action_names = A.action_names(self.colors)
        self._action_ids = {name: i for i, name in enumerate(self.action_names)}
        self.card_names = C.card_names(self.colors)
        self._card_ids = {name: k for k, name in enumerate(self.card_names)}
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.game_state = None  # None until the first reset()
        self._ended = True  # the episode is over: game won, truncated, or ended by an illegal action
        self.history: list[tuple[int, int]] = []  # (seat, action) of every decision this episode

    # ------------------------------------------------------------------ spaces and names
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def action_id(self, name: str) -> int:
        """Action id of an action name such as ``play wild-draw4 green``."""
        try:
            return self._action_ids[name]
        except (KeyError, TypeError):
            raise ValueError(f"unknown action name {checks.show(name)}") from None

    def card_id(self, name: str) -> int:
        try:
            return self._card_ids[name]
        except (KeyError, TypeError):
            raise ValueError(f"unknown card {checks.show(name)} for the {self.rules.name!r} deck "
                             f"(colours: {', '.join(self.colors)})") from None

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start an episode. ``seed`` (an int, or None to go on with the env's generator)
        seeds the env's one generator: it shuffles, draws the dealer and makes every random
        pick of the game. ``options`` (both keys optional; any other key is a ``ValueError``):

        * ``"deck"``: the deck as card strings, top first (``["red-5", "wild-draw4", ...]``;
          names in ``card_names``), exactly this ruleset's cards: dealt as given instead of
          shuffled (a stacked deck);
        * ``"dealer"``: the dealer's seat (``0..num_players-1``), instead of a random one.

        A bad seed or option is a ``ValueError`` raised before anything changes."""
        seed = checks.seed(seed)
        deck, dealer = checks.reset_options(options, self.colors, self.engine.n)
        if deck is not None:
            self.engine.check_deck(deck)  # before the RNG moves: a refused reset changes nothing
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.game_state = self.engine.new_state(self.np_random, deck=deck, dealer=dealer)
        self.history = []
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._last_round = 0
        self._ended = False
        self._skip_agent_selection = None  # PettingZoo's dead-step bookkeeping, from a cut-off episode
        self.agent_selection = self.possible_agents[self.game_state.actor]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        try:
            seat = self.agent_seat[agent]
        except (KeyError, TypeError):
            raise ValueError(f"unknown agent {checks.show(agent)}; agents: {self.possible_agents}") from None
        s = self.game_state
        if self._ended:  # before the first reset, or the episode is over: no legal action
            if s is None:
                raise RuntimeError("reset() needs to be called before observe()")
            mask = np.zeros(_NUM_ACTIONS, np.int8)
        elif s.actor == seat:
            mask = A.legal_mask(self.engine.legal_actions(s))
        else:
            mask = np.zeros(_NUM_ACTIONS, np.int8)
        return {"observation": self.encoder.encode(s, seat), "action_mask": mask}

    def last(self, observe: bool = True):
        """``(observation, cumulative reward, terminated, truncated, info)`` of ``agent_selection``."""
        try:
            agent = self.agent_selection
        except AttributeError:  # agent_selection exists from the first reset on
            raise RuntimeError("reset() needs to be called before last()") from None
        try:
            return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                    self.terminations[agent], self.truncations[agent], self.infos[agent])
        except KeyError:
            raise RuntimeError("the episode is over and every agent has been stepped out "
                               "(dead steps): call reset()") from None

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        """PettingZoo's agent iterator; under ``env()`` (``illegal_reward`` set) it also checks
        that every agent it yields is stepped (the order enforcement of PettingZoo's wrapper),
        which ``raw_env`` skips for speed."""
        if self.game_state is None:
            raise RuntimeError("reset() needs to be called before agent_iter()")
        if self.illegal_reward is None:
            return AECIterable(self, max_iter)
        return _CheckedIterable(self, max_iter)

    def legal_actions(self) -> list[int]:
        """Legal action ids of ``agent_selection`` (empty once the episode is over)."""
        if self.game_state is None:
            raise RuntimeError("reset() needs to be called before legal_actions()")
        if self._ended:
            return []
        return list(self.engine.legal_actions(self.game_state))

    def step(self, action: Any) -> None:
        if self._ended:  # before the first reset, or the episode is over
            self._step_ended(action)
            return
        s = self.game_state
        agent = self.agent_selection
        if type(action) is not int or not 0 <= action < _NUM_ACTIONS:
            action = checks.action_id(action, agent)
        seat = s.actor
        if self.illegal_reward is not None and action not in self.engine.legal_actions(s):
            self._end_illegal(agent, action)
            return
        self.engine.step(s, action)  # ValueError (state unchanged) if illegal
        self._cumulative_rewards[agent] = 0.0
        self.history.append((seat, action))
        if s.round != self._last_round:
            self._last_round = s.round
            for i, a in enumerate(self.agents):
                self.infos[a] = {"round": s.round, "round_points": s.round_points[i],
                                 "scores": list(s.scores)}
        if s.game_over:
            for a, r in zip(self.agents, self.engine.returns(s)):
                self.rewards[a] = r
                self.terminations[a] = True
            self._accumulate_rewards()
            self._ended = True
            self.agent_selection = self.possible_agents[seat]
        elif self.engine.truncated(s):
            for a in self.agents:
                self.truncations[a] = True
            self._ended = True
            self.agent_selection = self.possible_agents[s.actor]
        else:
            self.agent_selection = self.possible_agents[s.actor]
        if self.render_mode == "human":
            self.render()

    def _step_ended(self, action: Any) -> None:
        """``step`` before the first reset or once the episode is over: PettingZoo's dead step."""
        if self.game_state is None:
            raise RuntimeError("reset() needs to be called before step()")
        if not self.agents:
            raise RuntimeError("the episode is over and every agent has been stepped out "
                               "(dead steps): call reset()")
        if action is not None:  # every agent left is terminated or truncated
            raise ValueError(f"{self.agent_selection} is done (terminated or truncated): its only "
                             f"valid action is None (PettingZoo's dead step), got {checks.show(action)}")
        self._was_dead_step(None)

    def _end_illegal(self, agent: str, action: int) -> None:
        """``env()``: an illegal (in-range) action ends the episode, as PettingZoo's
        TerminateIllegalWrapper does: ``illegal_reward`` for ``agent``, 0 for the others, every
        agent terminated; the state of the game is unchanged. ``infos[agent]["illegal"]`` is
        True."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
            self.terminations[a] = True
        self.rewards[agent] = self.illegal_reward
        self.infos[agent] = {**self.infos[agent], "illegal": True, "illegal_action": action}
        self._accumulate_rewards()
        self._ended = True
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ inspection
    def state(self) -> np.ndarray:
        """The global state (:mod:`uno_env.game.global_state`): every hand and the DRAW pile's
        contents with the public table. Hidden information: for centralised critics in
        training only, never for a policy that acts."""
        if self.game_state is None:
            raise RuntimeError("reset() needs to be called before state()")
        return self.state_encoder.encode(self.game_state)

    def snapshot(self) -> dict[str, Any]:
        """The whole state as a JSON-serialisable dict (hidden information included)."""
        s, names = self.game_state, self.card_names
        if s is None:
            raise RuntimeError("reset() needs to be called before snapshot()")
        return {
            "rules": self.rules.name,
            "hands": {a: [names[k] for k in self.engine.hand_cards(s, i)]
                      for i, a in enumerate(self.possible_agents)},
            "draw_pile": [names[k] for k in reversed(s.draw_pile)],
            "discard_pile": [names[k] for k in s.discard],
            "top": names[s.discard[-1]],
            "color": self.colors[s.color] if s.color >= 0 else None,
            "direction": "clockwise" if s.direction > 0 else "counter-clockwise",
            "current": self.possible_agents[s.actor] if s.actor >= 0 else None,
            "turn": self.possible_agents[s.turn],
            "phase": PHASE_NAMES[s.phase],
            "pending_draw": int(s.pending),
            "scores": {a: int(s.scores[i]) for i, a in enumerate(self.possible_agents)},
            "round": int(s.round),
            "dealer": self.possible_agents[s.dealer],
            "uno_called": {a: bool(s.uno_called[i]) for i, a in enumerate(self.possible_agents)},
            "steps": int(s.steps),
            "winner": self.possible_agents[s.winner] if s.winner >= 0 else None,
        }

    def render(self) -> str | None:
        s = self.game_state
        return render_for_mode(self, (s.actor if s.actor >= 0 else s.turn) if s is not None else 0)

    def close(self) -> None:
        pass
