"""The game loop: agents play the engine; one game gives a typed :class:`GameRecord`.

    from uno_env.agents.arena import play_game
    engine = Engine(rules, num_players)
    record = play_game(engine, [make_agent("heuristic", rules, n, seed=0), ...], np.random.default_rng(0))
    record.winner, record.truncated, record.turns, record.rewards, record.hand_points

Every loop that lets agents play the engine goes through here: the evaluation tool
(:mod:`uno_env.tools.evaluate`), the opponents of the Gymnasium view
(:mod:`uno_env.envs.gym_env` calls :func:`play_until`), the tests and the benchmark. It lives
in the agents layer because the Gymnasium view uses it (envs may import agents, not tools).

**One decision.** The deciding seat (``state.actor``) gets ``ObservationEncoder.encode(state,
seat)`` and the int8 mask of ``engine.legal_actions(state)`` (:func:`uno_env.game.actions.legal_mask`);
its agent's ``act(observation, mask)`` answers. The answer must be an integer (a Python
int, a numpy integer or a 0-d integer array) and a legal action id: anything else raises
:class:`IllegalActionError` (a ``ValueError``) naming the agent, the seat, the answer and
the legal actions, with the state unchanged.

**Decisions taken here.**

* The arena never resets agents: the caller seeds them (``agent.reset(seed)``) before a
  game, so that it decides which seed each agent gets (the evaluation tool derives them
  from ``(seed, game, entry)``; the Gymnasium view draws them from its RNG).
* ``seat_agents[s]`` is the agent of seat ``s``; the same instance may sit at several seats.
  :func:`play_until` never asks ``seat_agents[stop_seat]`` (the Gymnasium view leaves
  the learner's seat ``None``).
* A game ends when ``state.game_over`` (the episode of ``rules.episode`` is over) or when
  the engine truncates it at ``rules.max_steps`` decisions (:meth:`Engine.truncated`); a
  truncated game has no winner (``winner == -1``) and all rewards 0.
* ``on_decision(state, seat, action)`` (optional) is called for every decision after the
  agent answered and before the engine applies it, with the answer as a Python int.
  Actions are kept only when asked (``record_actions=True``): the list costs ~1% of a game.

=================  ===================================================================
GameRecord field   meaning
=================  ===================================================================
``winner``         seat that won the episode, -1 if truncated
``truncated``      cut at ``rules.max_steps`` decisions
``turns``          regular turns begun (``state.turns``)
``steps``          decisions taken, all seats, windows included (``state.steps``)
``rounds``         rounds finished (``state.round``; 1 for a finished one-round episode)
``dealer``         the dealer of the first round
``scores``         per seat: game score (``state.scores``; the round's points in a
                   one-round episode, only the winner scores; alternative scoring: tally)
``hand_points``    per seat: points of the cards left in hand (:func:`uno_env.game.cards.card_points`)
``cards_left``     per seat: number of cards left in hand
``rewards``        per seat: ``Engine.returns`` (+1 winner, -1/(n-1) the others; 0 for all
                   when truncated)
``actions``        the action ids in order (``record_actions=True``), else None
=================  ===================================================================
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from uno_env.game import cards as C
from uno_env.game.actions import legal_mask
from uno_env.game.engine import PHASE_NAMES, Engine, State
from uno_env.game.observation import ObservationEncoder

OnDecision = Callable[[State, int, int], None]


class IllegalActionError(ValueError):
    """An agent answered with something that is not a legal action id (state unchanged).

    ``agent`` is the agent's ``repr`` (a string, so that the error pickles across worker
    processes), ``seat`` its seat, ``action`` its answer (an int, or the ``repr`` of an
    answer that is not an integer), ``legal`` the legal action ids.
    """

    def __init__(self, message: str, *, agent: str = "", seat: int = -1, action: Any = None,
                 legal: Sequence[int] = ()):
        super().__init__(message)
        self.agent, self.seat, self.action, self.legal = agent, seat, action, list(legal)


@dataclass(frozen=True)
class GameRecord:
    """The outcome of one game played by :func:`play_game` (fields: the module's table)."""

    winner: int
    truncated: bool
    turns: int
    steps: int
    rounds: int
    dealer: int
    scores: tuple[int, ...]
    hand_points: tuple[int, ...]
    cards_left: tuple[int, ...]
    rewards: tuple[float, ...]
    actions: tuple[int, ...] | None = None

    @property
    def num_players(self) -> int:
        return len(self.scores)


def _illegal(engine: Engine, state: State, agent: Any, answer: Any) -> IllegalActionError:
    seat, legal = state.actor, engine.legal_actions(state)
    names = ", ".join(f"{a} ({engine.describe(a)})" for a in legal)
    if isinstance(answer, (int, np.integer)):
        answer = int(answer)
        what = f"action {answer} ({engine.describe(answer)})"
    else:
        what = f"{answer!r} ({type(answer).__name__}, not an action id)"
        answer = repr(answer)
    return IllegalActionError(
        f"agent {agent!r} at seat {seat} chose an illegal action: {what} in phase "
        f"{PHASE_NAMES[state.phase]!r}; legal: {names}",
        agent=repr(agent), seat=seat, action=answer, legal=legal)


def record_of(engine: Engine, state: State, dealer: int,
              actions: Sequence[int] | None = None) -> GameRecord:
    """The :class:`GameRecord` of a game that ended (or was cut) in ``state``."""
    truncated = engine.truncated(state)
    points = state.hands.astype(np.int64) @ np.asarray(engine.points, np.int64)
    return GameRecord(
        winner=-1 if truncated else int(state.winner), truncated=truncated,
        turns=int(state.turns), steps=int(state.steps), rounds=int(state.round), dealer=int(dealer),
        scores=tuple(int(x) for x in state.scores), hand_points=tuple(int(x) for x in points),
        cards_left=tuple(int(x) for x in state.hand_size), rewards=tuple(engine.returns(state)),
        actions=None if actions is None else tuple(actions))


def _check_seats(engine: Engine, seat_agents: Sequence[Any]) -> None:
    if len(seat_agents) != engine.n:
        raise ValueError(f"seat_agents must hold one agent per seat ({engine.n}), got {len(seat_agents)}")


def _loop(engine: Engine, state: State, seat_agents: Sequence[Any], stop_seat: int,
          encode: Callable[[State, int], np.ndarray], on_decision: OnDecision | None,
          actions: list[int] | None) -> int:
    """The one game loop: decisions until ``stop_seat`` decides, the episode ends or is cut."""
    legal_actions, step, truncated = engine.legal_actions, engine.step, engine.truncated
    start = state.steps
    while not state.game_over and state.actor != stop_seat and not truncated(state):
        p = state.actor
        agent = seat_agents[p]
        answer = agent.act(encode(state, p), legal_mask(legal_actions(state)))
        try:
            action = operator.index(answer)
        except TypeError:
            raise _illegal(engine, state, agent, answer) from None
        if on_decision is not None:  # it sees legal actions only
            if action not in legal_actions(state):
                raise _illegal(engine, state, agent, action)
            on_decision(state, p, action)
        try:
            step(state, action)  # checks legality first; the state is unchanged if it raises
        except ValueError:
            if action in legal_actions(state):
                raise  # not the agent's fault
            raise _illegal(engine, state, agent, action) from None
        if actions is not None:
            actions.append(action)
    return state.steps - start


def play_game(engine: Engine, seat_agents: Sequence[Any], rng: np.random.Generator,
              dealer: int | None = None, deck: Sequence[Any] | None = None,
              record_actions: bool = False, on_decision: OnDecision | None = None,
              encoder: ObservationEncoder | None = None) -> GameRecord:
    """Deal a new game with ``rng`` (``deck``: kinds or card strings, top first, as
    ``Engine.new_state``; ``dealer``: a seat, else drawn with ``rng``) and let
    ``seat_agents`` play it to the end of the episode or the step cap. ``encoder``: one
    :class:`ObservationEncoder` of ``engine`` to reuse across games (else one is built)."""
    _check_seats(engine, seat_agents)
    if deck is not None and len(deck) and isinstance(deck[0], str):
        deck = C.parse_deck(list(deck), engine.rules.color_names)
    state = engine.new_state(rng, deck=deck, dealer=dealer)
    first_dealer = state.dealer
    encode = (encoder or ObservationEncoder(engine)).encode
    actions: list[int] | None = [] if record_actions else None
    _loop(engine, state, seat_agents, -1, encode, on_decision, actions)
    return record_of(engine, state, first_dealer, actions)


def play_until(engine: Engine, state: State, seat_agents: Sequence[Any], stop_seat: int,
               encoder: ObservationEncoder | None = None,
               on_decision: OnDecision | None = None) -> int:
    """Let the agents decide in ``state`` until ``stop_seat`` must decide, the episode ends
    or it is truncated; returns the number of decisions taken (``stop_seat=-1``: play on to
    the end). ``seat_agents[stop_seat]`` is never asked and may be None."""
    _check_seats(engine, seat_agents)
    encode = (encoder or ObservationEncoder(engine)).encode
    return _loop(engine, state, seat_agents, stop_seat, encode, on_decision, None)
