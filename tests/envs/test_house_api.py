"""PettingZoo API, seeding and random-game properties with every house option on.

``house`` + ``uno_call="explicit"`` turns on every option (stacking, jump-in, SEVEN slap,
giving cards, draw until playable, winner starts, FROM THE SEWERS, explicit UNO with its
catch window). Random play in ``house`` rarely ends a round (hands grow faster than they
shrink), so the property games use a small ``max_steps`` and, besides uniformly random
actions, a "greedy" policy that prefers playing a card, which does end rounds. The hidden
information check of ``test_properties`` (an observer's observation and mask do not change
when only cards hidden from it change) runs after every step of some of these games.
"""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import uno_env
from uno_env.game import actions as A
from uno_env.game.engine import NUM_PHASES, OVER
from uno_env.game.observation import OBS_SIZE, PHASE

from helpers import assert_conserved, check_hidden


PLAYER_COUNTS = (2, 3, 5, 10)
ALL_ON = dict(rules="house", uno_call="explicit")


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_house_api_test_every_option_on(num_players):
    api_test(uno_env.env(num_players=num_players, **ALL_ON), num_cycles=150)


@pytest.mark.parametrize("num_players", (2, 5))
def test_house_api_test_with_truncation(num_players):
    api_test(uno_env.env(num_players=num_players, max_steps=40, **ALL_ON), num_cycles=100)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_house_seed_test_every_option_on(num_players):
    seed_test(lambda: uno_env.env(num_players=num_players, **ALL_ON), num_cycles=150)


def test_classic_stacking_jumpin_config_api_and_seed():
    kwargs = dict(rules="classic-stacking-jumpin", num_players=4)
    api_test(uno_env.env(**kwargs), num_cycles=100)
    seed_test(lambda: uno_env.env(**kwargs), num_cycles=100)


# ====================================================================== random-game properties
def _check_state(e) -> None:
    s, eng = e.game_state, e.engine
    n = s.n
    assert_conserved(e, snapshot=False)
    assert (s.hands >= 0).all() and s.discard
    assert list(s.hand_size) == [int(x) for x in s.hands.sum(axis=1)]
    for q in range(n):
        assert s.held[q] == sum(1 << k for k in np.flatnonzero(s.hands[q]))
    # publicly known cards never exceed what a hand holds
    assert (s.known <= s.hands[None, :, :]).all(), "known cards exceed the hand"
    if s.game_over:
        return
    # mask validity: only agent_selection may act, and its mask is exactly the legal actions
    assert e.agent_selection == e.possible_agents[s.actor]
    truncated = any(e.truncations.values())
    for q, agent in enumerate(e.possible_agents):
        ob = e.observe(agent)
        mask, obs = ob["action_mask"], ob["observation"]
        assert mask.shape == (A.NUM_ACTIONS,) and mask.dtype == np.int8
        assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
        assert np.isfinite(obs).all() and (obs >= 0).all()
        if q == s.actor and not truncated:
            legal = eng.legal_actions(s)
            assert legal and list(np.flatnonzero(mask)) == sorted(legal)
            assert obs[PHASE + s.phase] == 1 and obs[PHASE:PHASE + NUM_PHASES].sum() == 1
        else:
            assert not mask.any()
        if q != s.actor:
            assert not obs[PHASE:PHASE + NUM_PHASES].any()  # windows never show who is asked


def _greedy(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    plays = legal[legal < A.DRAW]
    pool = plays if len(plays) else legal
    return int(pool[rng.integers(len(pool))])


def _uniform(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


def run_game(seed: int, num_players: int, policy, max_steps: int, hidden_check: bool = False,
             **overrides) -> dict:
    """One seeded game with the state checks after every step (and with ``hidden_check``,
    :func:`helpers.check_hidden`, from its own RNG: the game is the same either way)."""
    e = uno_env.raw_env(rules="house", num_players=num_players, max_steps=max_steps, **overrides)
    e.reset(seed=seed)
    rng = np.random.default_rng(10_000 + seed)
    hidden_rng = np.random.default_rng(20_000 + seed)
    _check_state(e)
    steps = 0
    while not (e.game_state.game_over or any(e.truncations.values())):
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(policy(mask, rng))
        steps += 1
        _check_state(e)
        if hidden_check:
            check_hidden(e, hidden_rng)
    s = e.game_state
    assert steps == s.steps <= max_steps
    if s.game_over:
        assert s.phase == OVER and 0 <= s.winner < num_players and all(e.terminations.values())
        assert sum(e._cumulative_rewards.values()) == pytest.approx(0.0)
    return {"over": s.game_over, "rounds": s.round, "steps": steps}


def _cases(count: int):
    counts = (2, 3, 4, 5, 10)
    return [(seed, counts[seed % len(counts)], "explicit" if seed % 2 else "auto")
            for seed in range(count)]


@pytest.mark.parametrize("seed,num_players,uno_call", _cases(24))
def test_house_random_games_conserve_cards_and_masks(seed, num_players, uno_call):
    run_game(seed, num_players, _uniform, max_steps=150, uno_call=uno_call)


@pytest.mark.parametrize("seed,num_players,uno_call", _cases(12))
def test_house_greedy_games_conserve_cards_and_masks_over_rounds(seed, num_players, uno_call):
    result = run_game(seed, num_players, _greedy, max_steps=1500, uno_call=uno_call,
                      episode="rounds", num_rounds=2)
    assert result["rounds"] == 2 if result["over"] else result["rounds"] < 2


@pytest.mark.parametrize("seed,num_players", [(0, 2), (1, 3), (2, 4), (3, 5), (4, 10)])
@pytest.mark.parametrize("policy", [_uniform, _greedy], ids=["uniform", "greedy"])
def test_house_observation_unchanged_when_only_hidden_cards_change(seed, num_players, policy):
    """Every house option and explicit UNO (catch windows, hidden jump-in answers, offers,
    SEWERS reveals, taken offers): no observation depends on cards hidden from its seat."""
    run_game(seed, num_players, policy, max_steps=300, hidden_check=True, uno_call="explicit",
             episode="rounds", num_rounds=2)


def test_house_greedy_games_do_finish_rounds():
    """Greedy play ends rounds: these 2-round games finish, within 1,500 decisions."""
    for seed in range(4):
        result = run_game(seed, 4, _greedy, max_steps=1500, episode="rounds", num_rounds=2)
        assert result["over"] and result["rounds"] == 2, f"game {seed}: {result}"


@pytest.mark.slow
@pytest.mark.parametrize("seed,num_players,uno_call", _cases(120))
def test_house_random_games_long_slow(seed, num_players, uno_call):
    run_game(seed, num_players, _uniform, max_steps=1500, uno_call=uno_call)
    result = run_game(seed, num_players, _greedy, max_steps=4000, uno_call=uno_call,
                      episode="rounds", num_rounds=3)
    assert result["rounds"] == 3 if result["over"] else result["rounds"] < 3
