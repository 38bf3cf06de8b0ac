"""The PettingZoo envs of the six battle-card games: pettingzoo.test suites (AEC for every game,
parallel for the simultaneous ones), the registry, stacked resets, bad input, illegal actions,
rewards through dead steps, pickling and determinism across processes."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

import uno_env  # noqa: F401  (registers the ids)
from uno_env.battle import GAMES, PARALLEL_GAMES, env_id
from uno_env.battle.envs import BattleParallelEnv, env, parallel_env, raw_env

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CASES = [(g, r, n) for g, r in [("battle", None), ("battle", "battle-open"), ("battle", "battle-sheet"),
                                ("dragon", None), ("attack", None),
                                ("names", None), ("names", "names-sheet"), ("bonus", None), ("bonus", "bonus-bluff"),
                                ("elusive", None), ("elusive", "elusive-others")] for n in (2, 3, 4)]
IDS = [f"{g}-{r or 'default'}-{n}p" for g, r, n in CASES]
PARALLEL = [(g, r, n) for g, r, n in CASES if g in PARALLEL_GAMES]
PIDS = [f"{g}-{r or 'default'}-{n}p" for g, r, n in PARALLEL]


@pytest.mark.parametrize("game, rules, n", CASES, ids=IDS)
def test_pettingzoo_api_seed_and_render_tests(game, rules, n):
    api_test(env(game=game, rules=rules, num_players=n), num_cycles=200)
    seed_test(lambda: env(game=game, rules=rules, num_players=n), num_cycles=200)
    render_test(lambda render_mode=None: env(game=game, rules=rules, num_players=n, render_mode=render_mode))


@pytest.mark.parametrize("game, rules, n", PARALLEL, ids=PIDS)
def test_pettingzoo_parallel_api_and_seed_tests(game, rules, n):
    parallel_api_test(parallel_env(game=game, rules=rules, num_players=n), num_cycles=200)
    parallel_seed_test(lambda: parallel_env(game=game, rules=rules, num_players=n), num_cycles=200)


def test_every_game_is_registered_beside_uno():
    assert "uno_env/uno-v1" in pettingzoo.aec_registry
    for game in GAMES:
        e = pettingzoo.make("aec", env_id(game), num_players=3)
        assert isinstance(e.unwrapped, raw_env) and e.unwrapped.game == game and e.metadata["name"] == f"tmnt_{game}_v0"
        assert (env_id(game) in pettingzoo.parallel_registry) == (game in PARALLEL_GAMES)
    p = pettingzoo.make("parallel", env_id("dragon"), num_players=4, race="seat")
    assert isinstance(p, BattleParallelEnv) and p.rules.race == "seat"
    api_test(pettingzoo.make("aec", env_id("bonus"), num_players=2, rules="bonus-bluff"), num_cycles=100)


def play_random(e, seed=0):
    """Play an AEC env to the end with random legal actions; the rewards every agent got."""
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    got = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        got[agent] = got.get(agent, 0.0) + reward
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) and obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        e.step(int(rng.choice(legal)))
    return got


@pytest.mark.parametrize("game", GAMES)
def test_every_agent_gets_its_reward_through_its_dead_step_and_they_sum_to_zero(game):
    e = env(game=game, num_players=3)
    got = play_random(e, seed=3)
    assert set(got) == set(e.possible_agents) and abs(sum(got.values())) < 1e-9
    winners = e.unwrapped.game_state.winners
    assert all(got[f"player_{w}"] >= 0 for w in winners)


@pytest.mark.parametrize("game", GAMES)
def test_only_the_selected_agent_has_a_non_zero_mask(game):
    e = env(game=game, num_players=3)
    e.reset(seed=1)
    for _ in range(20):
        sel = e.agent_selection
        for a in e.agents:
            assert e.observe(a)["action_mask"].any() == (a == sel)
        obs = e.observe(sel)
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if all(e.terminations.values()):
            break


def test_a_stacked_reset_deals_the_given_deck_from_the_given_first_player():
    e = raw_env(game="battle", num_players=2)
    deck = list(reversed(e.engine.card_names[:25])) + ["Purple Dragon"] * 3
    e.reset(seed=0, options={"deck": deck, "first": 1})
    s = e.game_state
    assert s.first == 1 and e.agent_selection == "player_1"
    assert e.engine.card_names[s.piles[1][0]] == deck[0] and e.engine.card_names[s.piles[0][0]] == deck[1]
    assert e.snapshot()["first"] == 1


@pytest.mark.parametrize("options, message", [
    ("deck", "reset options must be a dict"),
    ({"deck": "Leonardo"}, "must be a list of card names"),
    ({"deck": ["Leonardo"]}, "is not the battle deck of 28 cards"),
    ({"deck": ["Splinter Jr"] * 28}, "unknown card(s)"),
    ({"first": 2}, "'first' must be a seat in 0..1"),
    ({"first": True}, "'first' must be a seat"),
    ({"dealer": 0}, "unknown reset option(s) ['dealer']; reset options: 'deck', 'first'"),
    ({"frist": 0}, "(did you mean 'first'?)"),
])
def test_bad_reset_options_are_refused_before_anything_changes(options, message):
    e = raw_env(game="battle", num_players=2)
    e.reset(seed=4)
    before = e.snapshot()
    with pytest.raises(ValueError) as err:
        e.reset(seed=5, options=options)
    assert message in str(err.value) and e.snapshot() == before
    with pytest.raises(ValueError, match="seed must be None or an integer"):
        e.reset(seed=-1)
    e.reset(seed=0, options={"options": 1})  # api_test's own probe is ignored


@pytest.mark.parametrize("action, message", [
    (2.0, "must be an integer action id"), ("cover", "must be an integer action id"), (None, "None is only"),
    (True, "must be an integer action id"), (5, "out of range"), (-1, "out of range"),
    (np.array([1]), "must be an integer action id"),
])
def test_a_bad_action_is_a_value_error_and_the_state_is_unchanged(action, message):
    e = raw_env(game="dragon", num_players=2)
    e.reset(seed=0)
    before = e.snapshot()
    with pytest.raises(ValueError, match=message):
        e.step(action)
    assert e.snapshot() == before
    e.step(np.int64(1))  # numpy integers and 0-d arrays are actions
    e.step(np.array(0))


def test_an_illegal_action_raises_in_raw_env_and_ends_the_episode_in_env():
    raw = raw_env(game="battle", num_players=2, choice="highest")
    raw.reset(seed=0)
    illegal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0])
    before = raw.snapshot()
    with pytest.raises(ValueError, match="illegal action"):
        raw.step(illegal)
    assert raw.snapshot() == before
    e = env(game="battle", num_players=2, choice="highest")
    e.reset(seed=0)
    offender = e.agent_selection
    e.step(illegal)
    got = {}
    for a in e.agent_iter():
        got[a] = e.last()[1]
        assert e.infos[a].get("illegal", False) == (a == offender)
        e.step(None)
    assert got[offender] == -1 and all(v == 0 for a, v in got.items() if a != offender)


def test_the_parallel_env_needs_an_action_from_every_deciding_seat():
    p = BattleParallelEnv(game="attack", num_players=3)
    obs, infos = p.reset(seed=0)
    assert all(o["action_mask"].any() for o in obs.values())  # everyone plays at once
    first = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()}
    before = p.snapshot()
    with pytest.raises(ValueError, match="no action for player_2"):
        p.step({a: x for a, x in first.items() if a != "player_2"})
    with pytest.raises(ValueError, match="illegal action"):
        p.step({**first, "player_0": int(np.flatnonzero(obs["player_0"]["action_mask"] == 0)[0])})
    assert p.snapshot() == before
    obs, rewards, terms, truncs, infos = p.step(first)
    assert p.game_state.rounds == 1 and set(obs) == set(p.agents)
    q = parallel_env(game="attack", num_players=3)
    obs, _ = q.reset(seed=0)
    bad = {a: int(np.flatnonzero(o["action_mask"] == 0)[0]) for a, o in obs.items()}
    first = f"player_{q.game_state.queue[0]}"  # the first deciding seat is the offender named
    _, rewards, terms, _, infos = q.step(bad)
    assert all(terms.values()) and not q.agents and infos[first]["illegal"]
    assert rewards[first] == -1 and sorted(rewards.values()) == [-1, 0, 0]


def test_in_a_turn_based_decision_the_parallel_env_asks_only_the_actor():
    p = parallel_env(game="battle", num_players=3)
    obs, _ = p.reset(seed=2)
    deciding = [a for a, o in obs.items() if o["action_mask"].any()]
    assert deciding == [f"player_{p.game_state.actor}"]
    obs, *_ = p.step({deciding[0]: int(np.flatnonzero(obs[deciding[0]]["action_mask"])[0])})


@pytest.mark.parametrize("game", GAMES)
def test_envs_pickle_and_replay_the_same_game(game):
    e = env(game=game, num_players=2)
    clone = pickle.loads(pickle.dumps(e))
    assert play_random(e, 9) == play_random(clone, 9) and e.snapshot() == clone.snapshot()


def test_bad_constructor_arguments_are_named():
    with pytest.raises(ValueError, match="game must be one of"):
        raw_env(game="poker")
    with pytest.raises(ValueError, match="num_players must be an integer in 2..8"):
        raw_env(game="battle", num_players=9)
    with pytest.raises(ValueError, match="render_mode must be one of"):
        raw_env(game="battle", render_mode="rgb_array")
    with pytest.raises(ValueError, match="illegal_reward must be None"):
        raw_env(game="battle", illegal_reward=float("nan"))
    with pytest.raises(ValueError, match="unknown battle rule key"):
        raw_env(game="battle", stacking=True)


def test_call_order_errors_before_reset_and_after_the_end():
    e = raw_env(game="names", num_players=2)
    for call in (lambda: e.step(0), lambda: e.observe("player_0"), lambda: e.last(), lambda: e.legal_actions()):
        with pytest.raises(RuntimeError, match="reset"):
            call()
    play_random(e, 1)
    with pytest.raises(RuntimeError, match="every agent has been stepped out"):
        e.step(None)
    with pytest.raises(ValueError, match="unknown agent"):
        e.observe("player_7")


SCRIPT = """
import json, sys, numpy as np
from uno_env.battle.envs import env
out = {}
for game in %r:
    e = env(game=game, num_players=3)
    e.reset(seed=11)
    rng = np.random.default_rng(0)
    trail = []
    for agent in e.agent_iter():
        obs, r, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trail.append(a)
        e.step(a)
    out[game] = [trail, e.snapshot()["winners"]]
print(json.dumps(out))
"""


def test_a_seeded_game_is_the_same_in_processes_with_different_hash_seeds():
    runs = []
    for hash_seed in ("1", "2"):
        res = subprocess.run([sys.executable, "-c", SCRIPT % (list(GAMES),)], capture_output=True, text=True,
                             env={**os.environ, "PYTHONHASHSEED": hash_seed}, cwd=ROOT, check=True)
        runs.append(json.loads(res.stdout))
    assert runs[0] == runs[1]
