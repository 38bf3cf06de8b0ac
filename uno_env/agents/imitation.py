"""Demonstrations: a teacher's decisions as training data, for a behaviour-cloning warm start.

    demos = collect_demonstrations(make_rules("classic"), 2, decisions=100_000, seed=0)
    demos.observations, demos.masks, demos.actions, demos.returns   # one row per decision

A teacher (an agent spec, ``heuristic`` by default) plays every seat of games on the engine
(:func:`uno_env.agents.arena.play_game`); every decision of every seat becomes a row: the
observation that seat saw, its action mask, the teacher's action, and the seat's return at
the end of the game (``Engine.returns``: +1 for the winner, -1/(n-1) for the others, 0 for all
in a truncated game). ``critic_state=True`` also keeps the global state seen from that seat
(:mod:`uno_env.game.global_state`, for an asymmetric critic). Games are played whole, so a
collection holds at least ``decisions`` rows (the last game is not cut).

``training/train.py`` (``imitate_decisions``) fits the policy to the actions (masked
cross-entropy) and the value network to the returns (:func:`uno_env.agents.sb3.imitate`)
before PPO starts: the learner begins as a copy of the teacher instead of at random.

Determinism: the deals come from ``np.random.default_rng(seed)``, each teacher's own
generator is seeded from it per game; the same arguments give the same rows.

Version history: 0 (first version, uno_env 0.3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uno_env.agents.arena import play_game
from uno_env.agents.base import Agent, make_agent
from uno_env.game.engine import Engine
from uno_env.game.global_state import GlobalStateEncoder
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import Rules


@dataclass
class Demonstrations:
    """Rows of decisions (see the module doc); ``states`` is None unless asked for."""

    observations: np.ndarray  # (N, OBS_SIZE) float32
    masks: np.ndarray  # (N, NUM_ACTIONS) bool
    actions: np.ndarray  # (N,) int64
    returns: np.ndarray  # (N,) float32
    states: np.ndarray | None  # (N, GLOBAL_STATE_SIZE) float32 or None
    games: int

    def __len__(self) -> int:
        return len(self.actions)


class _Recording(Agent):
    """A seat's teacher, writing down what it saw and what it chose."""

    def __init__(self, teacher: Agent, rows: list):
        super().__init__(teacher.rules, teacher.num_players)
        self.teacher, self.rows, self.name = teacher, rows, teacher.name

    def reset(self, seed: int | None = None) -> None:
        self.teacher.reset(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action = int(self.teacher.act(observation, action_mask))
        self.rows.append((observation, action_mask.astype(bool), action))
        return action


def collect_demonstrations(rules: Rules, num_players: int, decisions: int, seed: int,
                           teacher: str = "heuristic", critic_state: bool = False) -> Demonstrations:
    """At least ``decisions`` decisions of ``teacher`` playing every seat (module doc)."""
    if decisions < 1:
        raise ValueError(f"decisions must be >= 1, got {decisions!r}")
    engine = Engine(rules, num_players)
    encoder = ObservationEncoder(engine)
    state_encoder = GlobalStateEncoder(engine) if critic_state else None
    rng = np.random.default_rng(seed)
    rows_by_seat: list[list] = [[] for _ in range(num_players)]
    seats = [_Recording(make_agent(teacher, rules, num_players), rows_by_seat[p]) for p in range(num_players)]
    observations, masks, actions, returns, states = [], [], [], [], []
    game_states: list[tuple[int, np.ndarray]] = []  # (seat, state) of each decision of a game

    def remember_state(s, p, action) -> None:
        game_states.append((p, state_encoder.encode(s, p)))

    games = 0
    while len(actions) < decisions:
        for rows in rows_by_seat:
            rows.clear()
        game_states.clear()
        for agent in seats:
            agent.reset(int(rng.integers(2 ** 31)))
        record = play_game(engine, seats, rng, on_decision=remember_state if critic_state else None,
                           encoder=encoder)
        games += 1
        for p, rows in enumerate(rows_by_seat):
            for obs, mask, action in rows:
                observations.append(obs)
                masks.append(mask)
                actions.append(action)
                returns.append(record.rewards[p])
        if critic_state:  # regroup the states seat by seat, as the rows above
            for p in range(num_players):
                states.extend(st for q, st in game_states if q == p)
    return Demonstrations(
        observations=np.asarray(observations, np.float32), masks=np.asarray(masks, bool),
        actions=np.asarray(actions, np.int64), returns=np.asarray(returns, np.float32),
        states=np.asarray(states, np.float32) if critic_state else None, games=games)
