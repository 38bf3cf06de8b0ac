"""UNO as a PettingZoo AEC environment: a thin adapter over :mod:`uno_env.game.engine`.

=====================  ==========================================================
Import                 ``import uno_env; uno_env.env(rules="classic", num_players=4)``
                       or ``pettingzoo.make("aec", "uno_env/uno-v0", ...)``
Agents                 ``player_0 ... player_{n-1}`` (n = 2..10); seat i+1 is left of seat i
Action space           ``Discrete(195)``, the same for every ruleset (``uno_env.game.actions``)
Observation space      ``Dict(observation=Box(0, inf, (1254,), float32),
                       action_mask=Box(0, 1, (195,), int8))`` (``uno_env.game.observation``)
=====================  ==========================================================

Constructor: ``raw_env(rules="classic", num_players=4, render_mode=None, **overrides)``.
``rules`` is a preset name, a YAML path, a dict or a :class:`~uno_env.game.rules.Rules`;
keyword overrides change single options (``uno_env.env(rules="tmnt", uno_call="explicit")``).

**Turns and windows.** ``agent_selection`` is the player who decides next: the player on
turn, a Wild Draw Four victim, or one player asked in a catch / jump-in / offer window.
The action mask is all zero except for ``agent_selection``, which always has a legal action.
``env.unwrapped.action_names[i]`` names action ``i``; ``env.unwrapped.action_id(name)`` maps
back.

**Reset options.** ``reset(seed=..., options={"deck": [card strings, top first],
"dealer": seat})`` stacks the deck (it must be exactly the ruleset's deck) and fixes the
dealer. Other option keys are ignored (PettingZoo's api_test passes its own).

**Rewards.** ``episode="round"``: winner +1, every other player -1/(n-1), at the end of the
round. ``episode="game"`` / ``"rounds"``: the same at the end of the game; at the end of
every round ``infos[agent]["round_points"]`` holds the round's points. Every agent, the
losers included, receives its reward through ``_cumulative_rewards`` (``last()``).
At ``rules.max_steps`` decisions the episode is truncated with reward 0.

**Illegal actions.** ``raw_env.step`` raises ``ValueError`` naming the action and phase
(state unchanged); ``env()`` applies PettingZoo's ``TerminateIllegalWrapper`` (-1 reward).

**Inspection.** ``snapshot()`` returns the whole state as a JSON-serialisable dict;
``render()`` shows the public table and the acting player's hand (``ansi`` returns the text,
``human`` prints it). ``state()`` (space ``state_space``, ``Box(807,)``) is PettingZoo's global
state: every hand, the DRAW pile's contents and the public table
(:mod:`uno_env.game.global_state`), for centralised critics in training only.

Version history: v0 (first release); 0.2: ``game_state`` (was ``state``), rewards from
``Engine.returns``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import PHASE_NAMES, Engine
from uno_env.game.global_state import GLOBAL_STATE_SIZE, GlobalStateEncoder
from uno_env.game.observation import OBS_SIZE, ObservationEncoder
from uno_env.game.rules import make_rules
from uno_env.envs.render import RENDER_MODES, render_for_mode


def env(**kwargs: Any) -> AECEnv:
    """The UNO AEC env with PettingZoo's classic wrappers (illegal move = -1 and episode end)."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    metadata = {"render_modes": RENDER_MODES, "name": "uno_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, rules: Any = "classic", num_players: int = 4, render_mode: str | None = None,
                 **overrides: Any):
        EzPickle.__init__(self, rules, num_players, render_mode, **overrides)
        super().__init__()
        self.rules = make_rules(rules, **overrides)
        self.engine = Engine(self.rules, num_players)
        self.encoder = ObservationEncoder(self.engine)
        self.state_encoder = GlobalStateEncoder(self.engine)
        self.state_space = spaces.Box(0.0, np.inf, (GLOBAL_STATE_SIZE,), np.float32)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"got {render_mode!r}")
        self.render_mode = render_mode
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
        self.game_state = None
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
        except KeyError:
            raise ValueError(f"unknown action name {name!r}") from None

    def card_id(self, name: str) -> int:
        try:
            return self._card_ids[name]
        except KeyError:
            raise ValueError(f"unknown card {name!r} for the {self.rules.name!r} deck "
                             f"(colours: {', '.join(self.colors)})") from None

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        options = options or {}
        deck = options.get("deck")
        if deck is not None:
            deck = C.parse_deck(deck, self.colors)
        self.game_state = self.engine.new_state(self.np_random, deck=deck, dealer=options.get("dealer"))
        self.history = []
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._last_round = 0
        self.agent_selection = self.possible_agents[self.game_state.actor]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        s, seat = self.game_state, self.agent_seat[agent]
        if s.actor == seat and not self.engine.truncated(s):  # actor is -1 once the game is over
            mask = A.legal_mask(self.engine.legal_actions(s))
        else:
            mask = np.zeros(A.NUM_ACTIONS, np.int8)
        return {"observation": self.encoder.encode(s, seat), "action_mask": mask}

    def legal_actions(self) -> list[int]:
        """Legal action ids of ``agent_selection`` (empty once the episode is over)."""
        if self.game_state.game_over or self.truncations[self.agent_selection]:
            return []
        return list(self.engine.legal_actions(self.game_state))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.game_state
        if action is None:
            raise ValueError(f"action None for live agent {agent} in phase {PHASE_NAMES[s.phase]!r}")
        seat, action = s.actor, int(action)
        self._cumulative_rewards[agent] = 0.0
        self.engine.step(s, action)
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
            self.agent_selection = self.possible_agents[seat]
        elif self.engine.truncated(s):
            for a in self.agents:
                self.truncations[a] = True
            self.agent_selection = self.possible_agents[s.actor]
        else:
            self.agent_selection = self.possible_agents[s.actor]
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------------ inspection
    def state(self) -> np.ndarray:
        """The global state (:mod:`uno_env.game.global_state`): every hand and the DRAW pile's
        contents with the public table. Hidden information: for centralised critics in
        training only, never for a policy that acts."""
        if self.game_state is None:
            raise ValueError("state() before reset()")
        return self.state_encoder.encode(self.game_state)

    def snapshot(self) -> dict[str, Any]:
        """The whole state as a JSON-serialisable dict (hidden information included)."""
        s, names = self.game_state, self.card_names
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
