"""The game loop of the battle-card games: agents play an engine; one game gives the UNO
arena's :class:`~uno_env.agents.arena.GameRecord`.

    from uno_env.battle.agents.arena import play_game
    record = play_game(engine, [make_battle_agent("strong", engine, 0), ...], np.random.default_rng(0))

Each deciding seat (``state.actor``; in a window the seats are asked one at a time, their
answers hidden, as the AEC env does) gets the encoder's observation and the int8 mask of
its legal actions; its agent's ``act`` answers. An answer that is not a legal action id
raises :class:`~uno_env.agents.arena.IllegalActionError` naming the agent, the seat, the
answer and the legal actions (state unchanged). The arena never resets agents (the caller
seeds them).

=================  ===================================================================
GameRecord field   meaning here
=================  ===================================================================
``winner``         the sole winner, -1 for a shared win (``winners`` has them all)
``truncated``      always False (the games end by their rules or at ``max_rounds``)
``turns``          rounds played (``state.rounds``)
``steps``          decisions taken (``state.steps``)
``rounds``         rounds played
``dealer``         the first player
``scores``         per seat: what the game counts (cards held, rounds won)
``hand_points``    the same (the UNO field, kept for the shared reports)
``cards_left``     the same
``rewards``        per seat: ``engine.returns`` (the shares of docs/TMNT-BATTLE.md C5)
``actions``        the action ids in order (``record_actions=True``), else None
=================  ===================================================================
"""

from __future__ import annotations

import operator
from typing import Any, Callable, Sequence

import numpy as np

from uno_env.agents.arena import GameRecord, IllegalActionError
from uno_env.battle.game import make_encoder

OnDecision = Callable[[Any, int, int], None]


def _illegal(engine: Any, state: Any, agent: Any, answer: Any) -> IllegalActionError:
    seat, legal = state.actor, engine.legal_actions(state)
    names = ", ".join(engine.describe_action(a) for a in legal)
    what = engine.describe_action(answer) if isinstance(answer, (int, np.integer)) else \
        f"{answer!r} ({type(answer).__name__}, not an action id)"
    return IllegalActionError(
        f"agent {agent!r} at seat {seat} chose an illegal action: {what} in phase "
        f"{engine.PHASE_NAMES[state.phase]!r} of {engine.game}; legal: {names}",
        agent=repr(agent), seat=seat, action=answer if isinstance(answer, int) else repr(answer), legal=legal)


def record_of(engine: Any, state: Any, actions: Sequence[int] | None = None) -> GameRecord:
    scores = tuple(int(x) for x in engine.scores(state))
    return GameRecord(winner=state.winner, truncated=False, turns=int(state.rounds), steps=int(state.steps),
                      rounds=int(state.rounds), dealer=int(state.first), scores=scores, hand_points=scores,
                      cards_left=scores, rewards=tuple(engine.returns(state)),
                      actions=None if actions is None else tuple(actions))


def play_state(engine: Any, state: Any, seat_agents: Sequence[Any], encoder: Any = None,
               on_decision: OnDecision | None = None, actions: list[int] | None = None) -> None:
    """Let ``seat_agents`` play ``state`` to the end of the game."""
    if len(seat_agents) != engine.n:
        raise ValueError(f"seat_agents must hold one agent per seat ({engine.n}), got {len(seat_agents)}")
    encode = (encoder or make_encoder(engine)).encode
    num_actions = engine.num_actions
    while not state.game_over:
        p = state.actor
        legal = engine.legal_actions(state)
        mask = np.zeros(num_actions, np.int8)
        mask[legal] = 1
        agent = seat_agents[p]
        answer = agent.act(encode(state, p), mask)
        try:
            action = operator.index(answer)
        except TypeError:
            raise _illegal(engine, state, agent, answer) from None
        if action not in legal:
            raise _illegal(engine, state, agent, action)
        if on_decision is not None:
            on_decision(state, p, action)
        engine.step(state, action)
        if actions is not None:
            actions.append(action)


def play_game(engine: Any, seat_agents: Sequence[Any], rng: np.random.Generator, first: int | None = None,
              deck: Sequence[int] | None = None, record_actions: bool = False,
              on_decision: OnDecision | None = None, encoder: Any = None) -> GameRecord:
    """Deal a new game with ``rng`` (``deck``: type ids top first; ``first``: a seat, else
    drawn) and let ``seat_agents`` play it to the end."""
    state = engine.new_state(rng, deck=deck, first=first)
    actions: list[int] | None = [] if record_actions else None
    play_state(engine, state, seat_agents, encoder, on_decision, actions)
    return record_of(engine, state, actions)
