"""The arena, the one game loop: its record, determinism, illegal answers, play_until."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from helpers import stacked_deck
from uno_env.agents import Agent, make_agent
from uno_env.agents.arena import GameRecord, IllegalActionError, play_game, play_until
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import Engine
from uno_env.game.rules import make_rules


class FirstLegal(Agent):
    """Plays the lowest legal action id (deterministic, no RNG)."""

    name = "first-legal"

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


class Answer(Agent):
    """Answers ``answer`` whatever the mask says."""

    name = "answer"

    def __init__(self, rules, num_players, answer):
        super().__init__(rules, num_players)
        self.answer = answer

    def act(self, observation, action_mask):
        return self.answer


def _play_id(rules, card: str) -> int:
    return A.play_action(C.parse_card(card, rules.color_names))


# ---------------------------------------------------------------------- the record
def test_record_of_a_stacked_game():
    """Seat 0 plays red-5, seat 1 can only draw (green-4, unplayable, kept), seat 0 goes out
    with red-7: seat 0 wins the round and scores the 14 points left in seat 1's hand."""
    rules = make_rules("classic", hand_size=2)
    deck = stacked_deck(rules, 2, dealer=1, hands={0: ["red-5", "red-7"], 1: ["blue-1", "blue-9"]},
                        first="red-3", draw_top=["green-4"])
    engine = Engine(rules, 2)
    seen = []
    record = play_game(engine, [FirstLegal(rules, 2), FirstLegal(rules, 2)], np.random.default_rng(0),
                       dealer=1, deck=deck, record_actions=True,
                       on_decision=lambda state, seat, action: seen.append((seat, action, state.steps)))
    expected = (_play_id(rules, "red-5"), A.DRAW, _play_id(rules, "red-7"))
    assert record == GameRecord(winner=0, truncated=False, turns=3, steps=3, rounds=1, dealer=1,
                                scores=(14, 0), hand_points=(0, 14), cards_left=(0, 3),
                                rewards=(1.0, -1.0), actions=expected)
    assert record.num_players == 2
    # on_decision sees every decision before it is applied
    assert seen == [(0, expected[0], 0), (1, A.DRAW, 1), (0, expected[2], 2)]
    # the same deck as card kinds deals the same game; without record_actions no actions
    kinds = C.parse_deck(deck, rules.color_names)
    again = play_game(engine, [FirstLegal(rules, 2)] * 2, np.random.default_rng(0), dealer=1, deck=kinds)
    assert again == dataclasses.replace(record, actions=None)


def test_record_is_frozen_and_pickles():
    rules = make_rules("classic")
    record = play_game(Engine(rules, 2), [FirstLegal(rules, 2)] * 2, np.random.default_rng(3))
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.winner = 1
    assert pickle.loads(pickle.dumps(record)) == record


def test_four_player_rewards_and_points_sum_up():
    rules = make_rules("classic")
    engine = Engine(rules, 4)
    agents = [make_agent(spec, rules, 4, seed=i) for i, spec in enumerate(["heuristic", "random", "greedy", "random"])]
    for seed in range(5):
        r = play_game(engine, agents, np.random.default_rng(seed))
        assert not r.truncated and 0 <= r.winner < 4  # the games finish
        assert r.rewards[r.winner] == 1.0 and sum(r.rewards) == pytest.approx(0.0)
        assert all(x == pytest.approx(-1 / 3) for s, x in enumerate(r.rewards) if s != r.winner)
        assert r.cards_left[r.winner] == 0 and r.hand_points[r.winner] == 0
        assert r.scores[r.winner] == sum(r.hand_points)  # a one-round episode: the winner scores the rest
        assert r.steps >= r.turns > 0 and r.rounds == 1


def test_truncated_game_has_no_winner_and_zero_rewards():
    rules = make_rules("house", max_steps=7)
    agents = [make_agent("random", rules, 3, seed=i) for i in range(3)]
    r = play_game(Engine(rules, 3), agents, np.random.default_rng(0))
    assert r.truncated and r.winner == -1 and r.steps == 7 and r.rewards == (0.0, 0.0, 0.0)


def test_multi_round_episode_records_the_game_scores():
    rules = make_rules("classic", episode="game", target_score=150)
    agents = [make_agent("heuristic", rules, 2, seed=i) for i in range(2)]
    r = play_game(Engine(rules, 2), agents, np.random.default_rng(4))
    assert not r.truncated and r.rounds >= 2
    assert r.scores[r.winner] >= 150 and r.rewards[r.winner] == 1.0


# ---------------------------------------------------------------------- determinism
def test_same_seeds_same_game():
    rules = make_rules("house", uno_call="explicit", max_steps=3000)
    engine = Engine(rules, 4)

    def game(seed):
        agents = [make_agent(spec, rules, 4, seed=seed * 10 + i)
                  for i, spec in enumerate(["heuristic", "random", "greedy", "heuristic"])]
        return play_game(engine, agents, np.random.default_rng(seed), record_actions=True)

    a, b = game(5), game(5)
    assert a == b and len(a.actions) == a.steps
    assert game(6).actions != a.actions


# ---------------------------------------------------------------------- illegal answers
def test_illegal_action_names_agent_seat_action_and_legal_set():
    rules = make_rules("classic")
    engine = Engine(rules, 2)
    cheater = Answer(rules, 2, A.CATCH)  # never legal in a classic turn
    with pytest.raises(IllegalActionError) as info:
        play_game(engine, [FirstLegal(rules, 2), cheater], np.random.default_rng(0), dealer=0)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.seat == 1 and err.action == A.CATCH and A.DRAW in err.legal and err.agent == repr(cheater)
    message = str(err)
    assert "Answer('answer')" in message and "seat 1" in message and f"{A.CATCH} (catch)" in message
    assert f"{A.DRAW} (draw)" in message and "'turn'" in message
    # the error crosses process boundaries (evaluation workers) intact
    copy = pickle.loads(pickle.dumps(err))
    assert str(copy) == message and copy.seat == 1 and copy.legal == err.legal
    # with an on_decision hook too; the hook never sees the illegal answer
    seen = []
    with pytest.raises(IllegalActionError, match="seat 1"):
        play_game(engine, [FirstLegal(rules, 2), cheater], np.random.default_rng(0), dealer=0,
                  on_decision=lambda state, seat, action: seen.append((seat, action)))
    assert seen and all(seat == 0 for seat, _ in seen)


@pytest.mark.parametrize("answer", [5.0, "68", None, [68]])
def test_a_non_integer_answer_is_an_error_naming_its_type(answer):
    rules = make_rules("classic")
    with pytest.raises(IllegalActionError, match=f"seat 0 .*{type(answer).__name__}, not an action id") as info:
        play_game(Engine(rules, 2), [Answer(rules, 2, answer), FirstLegal(rules, 2)],
                  np.random.default_rng(0), dealer=1)
    assert info.value.action == repr(answer) and pickle.loads(pickle.dumps(info.value)).action == repr(answer)


def test_numpy_integer_answers_are_accepted():
    rules = make_rules("classic")

    class NumpyFirst(FirstLegal):
        def act(self, observation, action_mask):
            return np.flatnonzero(action_mask)[:1].reshape(()) if self.rng.random() < 0.5 \
                else np.int16(np.flatnonzero(action_mask)[0])

    r = play_game(Engine(rules, 2), [NumpyFirst(rules, 2, seed=0), FirstLegal(rules, 2)],
                  np.random.default_rng(1), record_actions=True)
    assert not r.truncated and all(type(a) is int for a in r.actions)


def test_seat_agents_must_fill_every_seat():
    rules = make_rules("classic")
    with pytest.raises(ValueError, match="one agent per seat"):
        play_game(Engine(rules, 3), [FirstLegal(rules, 3)] * 2, np.random.default_rng(0))


# ---------------------------------------------------------------------- play_until
def test_play_until_stops_when_the_seat_must_decide():
    """With jump-in and explicit UNO the stop seat is also asked inside windows; the loop
    hands over at its every decision and never asks its (absent) agent."""
    rules = make_rules("classic", jump_in=True, uno_call="explicit")
    engine = Engine(rules, 3)
    for seed in range(4):
        state = engine.new_state(np.random.default_rng(seed))
        agents = [make_agent("heuristic", rules, 3, seed=i) for i in range(3)]
        stop = seed % 3
        agents[stop] = None
        decisions = 0
        while not state.game_over and state.steps < rules.max_steps:
            before = state.steps
            taken = play_until(engine, state, agents, stop)
            assert taken == state.steps - before
            decisions += 1
            if state.game_over:
                break
            assert state.actor == stop
            assert play_until(engine, state, agents, stop) == 0  # already its decision
            engine.step(state, engine.legal_actions(state)[-1])  # the learner's move
        assert decisions > 1


def test_play_until_stops_at_the_step_cap_and_at_the_end():
    rules = make_rules("house", max_steps=9)
    engine = Engine(rules, 3)
    agents = [make_agent("random", rules, 3, seed=i) for i in range(3)]
    state = engine.new_state(np.random.default_rng(2))
    assert play_until(engine, state, agents, -1) == 9 and state.steps == 9 and not state.game_over
    rules = make_rules("classic")
    engine = Engine(rules, 2)
    state = engine.new_state(np.random.default_rng(2))
    play_until(engine, state, [make_agent("heuristic", rules, 2, seed=i) for i in range(2)], -1)
    assert state.game_over
