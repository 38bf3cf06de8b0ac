"""experiments/history_beliefs.py: each row's events are its round's public events up to the
decision, as its seat sees them; the network reads no event after the decision; a run
depends on its seed alone."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import cli_error, load_script

from uno_env.game import cards as C
from uno_env.game import events as E

history_beliefs = load_script("experiments", "history_beliefs")


def test_an_event_is_embedded_with_its_seat_relative_to_the_observer():
    token = history_beliefs.token
    red_7 = C.kind_of(0, 7)
    # seat 3's play seen by seat 1 of 4: two seats to the left; the colour after it
    assert token(E.Event(E.PLAYED, 3, red_7, 0), observer=1, players=4) == (E.PLAYED, 2, red_7,
                                                                            history_beliefs.VALUE_COLOUR)
    # the observer's own draw of 3 cards: seat 0, no card, the count
    assert token(E.Event(E.DREW, 1, -1, 3), observer=1, players=4) == (E.DREW, 0, history_beliefs.NO_CARD,
                                                                      history_beliefs.VALUE_COUNT + 3)
    # counts past the cap share the last code; a reversal's direction; no seat
    assert token(E.Event(E.PENALTY, 0, -1, 40), 0, 2)[3] == history_beliefs.VALUE_COUNT + history_beliefs.MAX_COUNT
    assert token(E.Event(E.REVERSED, -1, -1, -1), 0, 3) == (E.REVERSED, history_beliefs.NO_SEAT,
                                                           history_beliefs.NO_CARD, history_beliefs.VALUE_DIRECTION)
    assert token(E.Event(E.CHALLENGED, 2, -1, 1), 0, 3)[3] == history_beliefs.VALUE_CHALLENGE + 1 \
        == history_beliefs.NUM_VALUES - 1


def test_each_row_reads_its_rounds_public_events_up_to_the_decision():
    rows = history_beliefs.collect(players=3, games=8, seed=3)
    n = len(rows["x"])
    assert n > 30 and rows["truth"].shape == (n, 2 * 4) and rows["counts"].shape == (n, 2 * C.NUM_KINDS)
    assert np.all(rows["seq"] >= 0)
    for r in range(n):
        tokens = rows["sequences"][rows["seq"][r]]
        seen = rows["length"][r]
        assert 1 <= seen <= len(tokens)
        assert tokens[0, 0] == E.DEALT and not np.any(tokens[1:, 0] == E.DEALT)  # one round
        # a draw never names its cards; every seat is one of the table's, relative to the observer
        drawn = np.isin(tokens[:, 0], [E.DREW, E.PENALTY, E.CAUGHT])
        assert np.all(tokens[drawn, 2] == history_beliefs.NO_CARD)
        assert np.all((tokens[:, 1] < 3) | (tokens[:, 1] == history_beliefs.NO_SEAT))
        # the event that follows the decision is the deciding seat's own (its play or its draw):
        # the row saw every event before it, and not that one
        if seen < len(tokens):
            assert tokens[seen, 1] == 0 and tokens[seen, 0] in (E.PLAYED, E.DREW)
    # rows of one round and seat share a sequence and see more of it as the round goes on
    for q in np.unique(rows["seq"]):
        seen = rows["length"][rows["seq"] == q]
        assert np.all(np.diff(seen) > 0)


def test_the_network_reads_no_event_after_the_decision():
    import torch

    rows = history_beliefs.collect(players=2, games=4, seed=5)
    by, seqs = history_beliefs.with_rows(rows["seq"], np.ones(len(rows["x"]), bool))
    assert len(seqs) == len(rows["sequences"])
    net = history_beliefs.build_net(rows["x"].shape[1], 8, events=True, seed=0)
    batch, (x, tokens, place, seen) = history_beliefs.inputs(rows, by, seqs)
    with torch.no_grad():
        before = net(x, tokens, place, seen)
        for r in range(len(batch)):  # scramble every event from the decision on, row by row
            one = tokens.clone()
            one[place[r], seen[r]:] = torch.randint(0, 4, one[place[r], seen[r]:].shape)
            assert torch.allclose(net(x[r:r + 1], one, place[r:r + 1], seen[r:r + 1]), before[r:r + 1], atol=1e-5)
        # and it does read the events before it
        changed = tokens.clone()
        changed[:, 0, 0] = E.PLAYED
        assert not torch.allclose(net(x, changed, place, seen), before)


def test_a_run_depends_on_its_seed_alone():
    one = history_beliefs.main(["--players", "2", "--games", "60", "--epochs", "1", "--seed", "4"])
    again = history_beliefs.main(["--players", "2", "--games", "60", "--epochs", "1", "--seed", "4"])
    assert one["brier"] == again["brier"] and one["count_mse"] == again["count_mse"]
    assert set(one["brier"]) == {"base rate", "summary", "summary + events"}
    assert all(0.0 < v < 0.3 for v in one["brier"].values())


def test_the_searchs_event_belief_answers_per_opponent_and_colour_and_pickles_as_its_weights():
    import pickle

    from uno_env.game import actions as A
    from uno_env.game.engine import Engine
    from uno_env.game.observation import ObservationEncoder
    from uno_env.game.rules import make_rules

    rows = history_beliefs.collect(players=3, games=10, seed=2)
    belief = history_beliefs.EventBelief.fit(rows, players=3, epochs=1, seed=2)
    assert len(rows["x"]) > 30
    engine = Engine(make_rules("classic"), 3, record_events=True)
    s = engine.new_state(np.random.default_rng(0))
    for _ in range(12):
        engine.step(s, int(np.flatnonzero(A.legal_mask(engine.legal_actions(s)))[0]))
    obs = ObservationEncoder(engine).encode(s, s.actor)
    p = belief(obs, s.events, s.actor)
    assert p.shape == (2, C.NUM_COLORS) and np.all((p > 0) & (p < 1))
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(belief))(obs, s.events, s.actor), p)
    # the same events read from another seat's side (its seat relative to each event) answer otherwise
    assert not np.allclose(belief(obs, s.events, (s.actor + 1) % 3), p)
    with pytest.raises(ValueError, match="record_events=True"):
        belief(obs, None, s.actor)
    with pytest.raises(ValueError, match="no deal among the events"):
        belief(obs, s.events[1:2], s.actor)


def test_rows_are_split_by_sequence_exactly():
    seq = np.array([2, 0, 2, 1, 0, 2, 1])
    mask = np.array([True, True, False, True, True, True, False])
    by = history_beliefs.rows_by_sequence(seq, mask)
    assert [r.tolist() for r in by] == [[1, 4], [3], [0, 5]]
    assert [r.tolist() for r in history_beliefs.rows_by_sequence(seq, seq == 0)] == [[1, 4], [], []]


@pytest.mark.parametrize("argv, message", [(["--games", "4"], "--games must be in 5..40000"),
                                           (["--games", "40001"], "--games must be in 5..40000"),
                                           (["--epochs", "0"], "--epochs in 1..1000"),
                                           (["--players", "11"], "--players in 2..10"),
                                           (["--seed", "-1"], "--seed >= 0")])
def test_bad_arguments_are_refused(capsys, argv, message):
    assert message in cli_error(history_beliefs.main, capsys, argv)


def test_fresh_games_of_another_seed_are_scored_when_asked_and_their_rows_keep_their_rounds():
    first, second = history_beliefs.collect(2, 6, seed=1), history_beliefs.collect(2, 4, seed=2)
    rows = history_beliefs.joined(first, second)
    n = len(first["x"])
    assert len(rows["x"]) == n + len(second["x"]) and len(rows["sequences"]) == len(first["sequences"]) + len(
        second["sequences"])
    for r in (0, n, len(rows["x"]) - 1):  # a row's sequence is the one it had in its own collection
        own, i = (first, r) if r < n else (second, r - n)
        np.testing.assert_array_equal(rows["sequences"][rows["seq"][r]], own["sequences"][own["seq"][i]])
    assert rows["game"][n:].min() > rows["game"][:n].max()
    out = history_beliefs.main(["--games", "6", "--epochs", "1", "--seed", "1", "--test-seed", "2", "--test-games", "4"])
    assert out["held_out_rows"] == len(second["x"]) and out["rows"] == len(rows["x"])


@pytest.mark.parametrize("argv", [["--test-seed", "5", "--seed", "5"], ["--test-seed", "-2"],
                                  ["--test-seed", "6", "--test-games", "0"]])
def test_a_test_seed_must_be_another_and_its_games_bounded(capsys, argv):
    assert "--test-seed >= 0 and not --seed" in cli_error(history_beliefs.main, capsys, argv)
