"""Hypothesis fuzzing of the battle-card envs: any value as an action, reset option or
parallel action dict either works or raises ValueError, and the env stays usable."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import ANY_VALUE, FAST, SLOW
from uno_env.battle import GAMES
from uno_env.battle.envs import BattleParallelEnv, raw_env

STEPS = st.lists(st.one_of(ANY_VALUE, st.integers(-2, 70)), min_size=1, max_size=25)
OPTIONS = st.one_of(ANY_VALUE, st.dictionaries(st.sampled_from(["deck", "first", "other"]), ANY_VALUE, max_size=3))


def _fuzz_aec(game, actions, options):
    e = raw_env(game=game, num_players=3)
    try:
        e.reset(seed=0, options=options)
    except ValueError:
        e.reset(seed=0)
    for a in actions:
        if all(e.terminations.values()):
            break
        before = e.snapshot()
        try:
            e.step(a)
        except ValueError:
            assert e.snapshot() == before
    obs = e.observe(e.agent_selection)  # still usable
    if not all(e.terminations.values()):
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))


def _fuzz_parallel(game, actions):
    p = BattleParallelEnv(game=game, num_players=3)
    p.reset(seed=1)
    for a in actions:
        if not p.agents:
            break
        before = p.snapshot()
        try:
            p.step({agent: a for agent in p.agents})
        except ValueError:
            assert p.snapshot() == before


@FAST
@given(st.sampled_from(GAMES), STEPS, OPTIONS)
def test_fuzzed_actions_and_options_work_or_raise_value_error(game, actions, options):
    _fuzz_aec(game, actions, options)


@FAST
@given(st.sampled_from(("dragon", "attack", "elusive")), STEPS)
def test_fuzzed_parallel_actions_work_or_raise_value_error(game, actions):
    _fuzz_parallel(game, actions)


@pytest.mark.slow
@SLOW
@given(st.sampled_from(GAMES), STEPS, OPTIONS)
def test_fuzzed_actions_and_options_work_or_raise_value_error_slow(game, actions, options):
    _fuzz_aec(game, actions, options)


@pytest.mark.slow
@SLOW
@given(st.sampled_from(("dragon", "attack", "elusive")), STEPS)
def test_fuzzed_parallel_actions_work_or_raise_value_error_slow(game, actions):
    _fuzz_parallel(game, actions)
