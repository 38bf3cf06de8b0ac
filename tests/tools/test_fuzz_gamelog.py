"""Hypothesis fuzzing of game logs and terminal answers: random lines (bytes, text, JSON), valid
logs with one field replaced by random JSON, logs with corrupted bytes. ``read_log`` and
``replay`` either work or raise ``ValueError``; the terminal game's parser answers anything."""

from __future__ import annotations

import io
import json
import os
import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

import uno_env
from uno_env.agents import make_agent
from uno_env.tools.gamelog import record_game
from uno_env.tools.gamelog_read import read_log
from uno_env.tools.gamelog_replay import replay
from uno_env.tools.play import HUMAN, TerminalGame

from fuzzing import FAST, JSON, SLOW, replace_one_field


def _log(rules: str, n: int, seed: int, **kw) -> list[str]:
    env = uno_env.raw_env(rules=rules, num_players=n, **kw)
    out = io.StringIO()
    record_game(env, [make_agent("random", env.rules, n, seed=seed + i) for i in range(n)], out, seed=seed)
    return out.getvalue().splitlines()


LOGS = [_log("classic", 2, 1), _log("tmnt", 3, 2, uno_call="explicit"), _log("house", 3, 3, max_steps=60)]


def read_and_replay(source) -> None:
    """The property: ``read_log`` and ``replay`` work or raise ValueError, nothing else."""
    try:
        log = read_log(source)
    except ValueError:
        return
    try:
        env = replay(log)
    except ValueError:
        return
    assert env.game_state is not None


LINES = st.one_of(st.binary(max_size=60), st.text(max_size=60), JSON.map(json.dumps),
                  st.dictionaries(st.sampled_from(["type", "format", "version", "rules", "num_players",
                                                   "seed", "dealer", "deck", "rng", "action", "agent"]),
                                  JSON, max_size=6).map(json.dumps))


def fuzz_random_lines(data) -> None:
    lines = data.draw(st.lists(LINES, max_size=5), label="lines")
    if data.draw(st.booleans(), label="after a valid header"):
        lines = [data.draw(st.sampled_from(LOGS))[0]] + lines
    read_and_replay(lines)


def fuzz_one_field(data) -> None:
    lines = list(data.draw(st.sampled_from(LOGS), label="log"))
    i = data.draw(st.integers(0, len(lines) - 1), label="line")
    rec = json.loads(lines[i])
    replace_one_field(data, rec)
    lines[i] = json.dumps(rec)
    read_and_replay(lines)


def fuzz_bytes(data) -> None:
    raw = bytearray("\n".join(data.draw(st.sampled_from(LOGS), label="log")).encode())
    for _ in range(data.draw(st.integers(1, 4))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "g.jsonl")
        with open(path, "wb") as fh:
            fh.write(bytes(raw))
        read_and_replay(path)


@FAST
@given(st.data())
def test_fuzz_game_log_random_lines(data):
    fuzz_random_lines(data)


@FAST
@given(st.data())
def test_fuzz_game_log_one_field_replaced(data):
    fuzz_one_field(data)


@FAST
@given(st.data())
def test_fuzz_game_log_corrupted_bytes(data):
    fuzz_bytes(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_fuzz_game_logs_long(data):
    data.draw(st.sampled_from([fuzz_random_lines, fuzz_one_field, fuzz_bytes]))(data)


# ---------------------------------------------------------------------- terminal answers
GAME_ENV = uno_env.raw_env(rules="house", num_players=3, uno_call="explicit")


def fuzz_answer(data) -> None:
    GAME_ENV.reset(seed=data.draw(st.integers(0, 50)))
    game = TerminalGame(GAME_ENV, GAME_ENV.game_state.actor, {}, ["random", HUMAN, "random"], seed=0)
    legal = GAME_ENV.legal_actions()
    answer = data.draw(st.one_of(st.text(), st.from_regex(r"-?[0-9]{1,30}", fullmatch=True),
                                 st.tuples(st.sampled_from(GAME_ENV.action_names + GAME_ENV.card_names),
                                           st.sampled_from([str, str.upper, lambda s: f"  {s} "])).map(
                                     lambda t: t[1](t[0]))),
                       label="answer")
    action, reason = game.parse(answer, legal)
    assert (action in legal and reason is None) or (action is None and isinstance(reason, str))


@FAST
@given(st.data())
def test_fuzz_terminal_answers_are_parsed_or_answered(data):
    fuzz_answer(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_fuzz_terminal_answers_are_parsed_or_answered_long(data):
    fuzz_answer(data)
