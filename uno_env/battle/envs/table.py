"""What the AEC and the parallel env of a battle-card game share: the engine and encoder,
the spaces, the checks of actions, seeds and reset options, observations and rendering.

=====================  ==================================================  ============================
input                  accepted                                            otherwise
=====================  ==================================================  ============================
constructor            ``game`` (one of ``GAMES``), ``num_players``        ``ValueError`` naming it
                       2..8, ``rules`` (preset, YAML path, mapping,
                       rules object; None: the game's default) and
                       keyword overrides, ``cards`` (a packaged set, a
                       YAML card list, a mapping, a ``CardSet``; None:
                       the stand-in), ``render_mode`` (None, ``human``,
                       ``ansi``)
action (live agent)    a Python ``int``, a numpy integer or a 0-d integer  ``ValueError`` naming the type
                       array in ``0..num_actions-1``                       and value (state unchanged)
``seed``               ``None`` or an integer ``>= 0``                     ``ValueError``
``options``            ``None`` or a mapping with the keys ``deck``,        ``ValueError`` if not a mapping,
                       ``first`` (and ``options``, ignored: PettingZoo's    or naming the unknown keys
                       api_test probes ``reset(options={"options": 1})``)  (:func:`uno_env.envs.checks.option_keys`)
``options["deck"]``    card names, top first: exactly the game's deck      ``ValueError`` naming the cards
``options["first"]``   ``None`` (drawn with the env RNG) or a seat          ``ValueError`` naming the range
=====================  ==================================================  ============================

The observation of every agent is ``{"observation": Box(0, inf, (size,), float32),
"action_mask": Box(0, 1, (num_actions,), int8)}``: the game's encoder (its module's table)
and the mask of that agent's legal actions, all zero for an agent that does not decide now
(in a window: the seats still to answer decide; the AEC env asks one at a time).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from uno_env.battle.game import GAMES, make_engine, make_encoder
from uno_env.envs import checks

RENDER_MODES = ["human", "ansi"]
RESET_OPTIONS = ("deck", "first")  # reset options of the AEC and the parallel env


class GameTable:
    """One game's engine, encoder and spaces for a fixed number of players (module table)."""

    def __init__(self, game: Any, num_players: Any, rules: Any, cards: Any, render_mode: Any,
                 overrides: dict[str, Any]):
        if not isinstance(game, str) or game not in GAMES:
            raise ValueError(f"game must be one of {list(GAMES)}, got {checks.show(game)}")
        self.game = game
        self.engine = make_engine(game, rules, cards, num_players, **overrides)
        self.encoder = make_encoder(self.engine)
        self.rules, self.cards, self.n = self.engine.rules, self.engine.cards, self.engine.n
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, got {checks.show(render_mode)}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.n)]
        self.agent_seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.num_actions = self.engine.num_actions
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, np.inf, (self.encoder.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self.action_names = list(self.engine.action_names)
        self._card_ids = {name: k for k, name in enumerate(self.engine.card_names)}
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.state = None

    # ------------------------------------------------------------------ checks
    def action_id(self, action: Any, agent: str) -> int:
        """``action`` as an action id in ``0..num_actions-1``; ``ValueError`` otherwise."""
        if not checks.is_integer(action):
            hint = "; None is only for a terminated agent (PettingZoo's dead step)" if action is None else ""
            raise ValueError(f"action for {agent} must be an integer action id in 0..{self.num_actions - 1} "
                             f"(Python int, numpy integer or 0-d integer array), got {checks.show(action)}{hint}")
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise ValueError(f"action {a} for {agent} is out of range: action ids are 0..{self.num_actions - 1} "
                             f"(Discrete({self.num_actions}))")
        return a

    def reset_options(self, options: Any) -> tuple[list[int] | None, int | None]:
        """``(deck, first)`` from reset ``options``: the deck as type ids (top first) or None,
        the first seat or None; checked before anything changes."""
        if options is None:
            return None, None
        checks.option_keys(options, RESET_OPTIONS, checks.IGNORED_OPTIONS)
        deck = options.get("deck")
        if deck is not None:
            if not isinstance(deck, (list, tuple)) or not all(isinstance(c, str) for c in deck):
                raise ValueError(f"reset option 'deck' must be a list of card names, top first, got "
                                 f"{checks.show(deck)}")
            unknown = [c for c in deck if c not in self._card_ids]
            if unknown:
                raise ValueError(f"reset option 'deck': unknown card(s) {checks.show(unknown[:5])} in the card set "
                                 f"{self.cards.name!r}")
            deck = [self._card_ids[c] for c in deck]
            self.engine.check_deck(deck)
        first = options.get("first")
        if first is not None:
            if not checks.is_integer(first) or not 0 <= int(first) < self.n:
                raise ValueError(f"reset option 'first' must be a seat in 0..{self.n - 1} (an integer), got "
                                 f"{checks.show(first)}")
            first = int(first)
        return deck, first

    def new_state(self, seed: Any, options: Any):
        """The state of a new game (``reset``): everything checked before the RNG moves."""
        seed = checks.seed(seed)
        deck, first = self.reset_options(options)
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.state = self.engine.new_state(self.np_random, deck=deck, first=first)
        return self.state

    # ------------------------------------------------------------------ views
    def legal_of(self, seat: int) -> list[int]:
        """Legal actions of ``seat`` now: the actor's, or a seat still to answer a window."""
        return self.engine.legal_actions_of(self.state, seat)

    def observation(self, seat: int, deciding: bool) -> dict[str, np.ndarray]:
        mask = np.zeros(self.num_actions, np.int8)
        if deciding:
            mask[self.legal_of(seat)] = 1
        return {"observation": self.encoder.encode(self.state, seat), "action_mask": mask}

    def render(self, seat: int) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        if self.state is None:
            return None
        text = self.engine.describe(self.state, seat)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def snapshot(self) -> dict[str, Any]:
        if self.state is None:
            raise RuntimeError("snapshot() before reset(): reset the env first")
        return {**self.engine.snapshot(self.state), "rules": self.rules.to_dict(), "cards": self.cards.name,
                "first": self.state.first, "steps": self.state.steps}
