"""The PettingZoo AEC API of ``uno_env``: pettingzoo.test suites, registry, seeding across
processes, snapshot, action names and the observation layout."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import uno_env
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import observation as O
from uno_env.game.engine import LAST_NAMES, LAST_NONE, NUM_PENDING_KINDS, NUM_PHASES

from helpers import CLASSIC_COLORS, TMNT_COLORS, act, legal_names, reset_stacked

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES = [(rules, n, call) for rules in ("classic", "tmnt") for n in (2, 3, 4, 10)
         for call in ("auto", "explicit")]
CASE_IDS = [f"{r}-{n}p-{c}" for r, n, c in CASES]
SNAPSHOT_KEYS = {"hands", "draw_pile", "discard_pile", "top", "color", "direction", "current",
                 "phase", "pending_draw", "scores", "round"}


# ---------------------------------------------------------------------- pettingzoo.test
@pytest.mark.parametrize("rules,n,call", CASES, ids=CASE_IDS)
def test_pettingzoo_api_test(rules, n, call):
    api_test(uno_env.env(rules=rules, num_players=n, uno_call=call), num_cycles=150)


@pytest.mark.parametrize("rules,n,call", CASES, ids=CASE_IDS)
def test_pettingzoo_seed_test(rules, n, call):
    seed_test(lambda: uno_env.env(rules=rules, num_players=n, uno_call=call), num_cycles=150)


@pytest.mark.parametrize("rules,n,call", CASES, ids=CASE_IDS)
def test_pettingzoo_render_test(rules, n, call):
    render_test(lambda render_mode=None: uno_env.env(rules=rules, num_players=n, uno_call=call,
                                                     render_mode=render_mode))


def test_pettingzoo_make_after_import_uno_env():
    env = pettingzoo.make("aec", "uno_env/uno-v1", rules="tmnt", num_players=3, uno_call="explicit")
    u = env.unwrapped
    assert isinstance(u, uno_env.raw_env)
    assert u.rules.name == "tmnt" and u.rules.uno_call == "explicit" and u.engine.n == 3
    env.reset(seed=0)
    assert env.agents == ["player_0", "player_1", "player_2"]
    api_test(pettingzoo.make("aec", "uno_env/uno-v1", rules="classic", num_players=4), num_cycles=100)


def test_env_and_raw_env_show_their_arguments_and_reset_its_options():
    """``help(uno_env.env)`` shows the real arguments, not ``**kwargs``; env() is raw_env
    with illegal_reward=-1, positional arguments included; reset's docstring names its options."""
    import inspect
    import pydoc

    for make in (uno_env.env, uno_env.raw_env):
        params = inspect.signature(make).parameters
        assert list(params)[:3] == ["rules", "num_players", "render_mode"] and "illegal_reward" in params
        assert "num_players: 'int' = 4" in pydoc.render_doc(make, renderer=pydoc.plaintext) and make.__doc__
    assert "**kwargs" not in pydoc.render_doc(uno_env.env, renderer=pydoc.plaintext)
    assert inspect.signature(uno_env.env).parameters["illegal_reward"].default == -1
    e = uno_env.env("tmnt", 3, uno_call="explicit")
    assert (e.rules.name, e.engine.n, e.rules.uno_call, e.illegal_reward) == ("tmnt", 3, "explicit", -1.0)
    assert uno_env.env(illegal_reward=None).illegal_reward is None
    assert all(f'"{key}"' in uno_env.raw_env.reset.__doc__ for key in ("deck", "dealer"))


@pytest.mark.skipif(not hasattr(pettingzoo, "register"), reason="this PettingZoo has no registry")
def test_the_retired_v0_id_is_refused_saying_what_changed():
    with pytest.raises(Exception, match=r"1254 entries .* 1537 .* or uno_env/uno-v1 \(pettingzoo.make\)"):
        pettingzoo.make("aec", "uno_env/uno-v0")


def test_env_pickles():
    env = uno_env.env(rules="tmnt", num_players=3, uno_call="explicit")
    clone = pickle.loads(pickle.dumps(env))
    env.reset(seed=5)
    clone.reset(seed=5)
    assert clone.unwrapped.snapshot() == env.unwrapped.snapshot()


def test_wrapped_env_illegal_move_ends_episode_with_minus_one():
    env = uno_env.env(rules="classic", num_players=3)
    env.reset(seed=1)
    agent = env.agent_selection
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values()) or all(env.truncations.values())
    got = {}
    for a in env.agent_iter():
        got[a] = env.last()[1]
        env.step(None)
    assert got[agent] == -1 and all(r == 0 for a, r in got.items() if a != agent)


# ---------------------------------------------------------------------- determinism
TRAJECTORY_SCRIPT = r"""
import hashlib, json, sys
import numpy as np
import uno_env

h = hashlib.sha256()
for rules, n, call in (("classic", 4, "explicit"), ("tmnt", 3, "auto"), ("tmnt", 10, "explicit")):
    env = uno_env.env(rules=rules, num_players=n, uno_call=call)
    env.reset(seed=2024)
    rng = np.random.default_rng(7)
    for agent in env.agent_iter(max_iter=3000):
        obs, reward, term, trunc, info = env.last()
        h.update(agent.encode()); h.update(obs["observation"].tobytes()); h.update(obs["action_mask"].tobytes())
        h.update(repr((float(reward), term, trunc, sorted(info.items()))).encode())
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(len(legal))])
        env.step(action)
    h.update(json.dumps(env.unwrapped.snapshot(), sort_keys=True).encode())
print(h.hexdigest())
"""


def _trajectory_hash(hashseed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", TRAJECTORY_SCRIPT], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_seeded_trajectory_identical_across_processes_and_hash_seeds():
    hashes = {_trajectory_hash(seed) for seed in ("0", "12345")}
    assert len(hashes) == 1 and len(next(iter(hashes))) == 64


def test_same_seed_same_episode_different_seed_different_deal():
    env = uno_env.raw_env(rules="classic", num_players=4)
    env.reset(seed=11)
    a = env.snapshot()
    env.reset(seed=11)
    assert env.snapshot() == a
    env.reset(seed=12)
    assert env.snapshot() != a


# ---------------------------------------------------------------------- snapshot
def _snapshots():
    env = uno_env.raw_env(rules="classic", num_players=3)
    reset_stacked(env, 2, {0: ["wild-draw4", "red-9"]}, "red-5")
    yield "start", env
    act(env, "play wild-draw4 green", "player_0")
    yield "challenge", env
    env = uno_env.raw_env(rules="tmnt", num_players=4, hand_size=1)
    reset_stacked(env, 3, {0: ["blue-draw2"]}, "blue-5")
    act(env, "play blue-draw2", "player_0")
    yield "over", env


def test_snapshot_json_serialisable_with_documented_keys():
    for label, env in _snapshots():
        snap = env.snapshot()
        assert SNAPSHOT_KEYS <= set(snap), label
        assert json.loads(json.dumps(snap)) == snap, label
        s = env.game_state
        assert set(snap["hands"]) == set(env.possible_agents)
        assert [len(snap["hands"][a]) for a in env.possible_agents] == list(s.hand_size)
        assert len(snap["draw_pile"]) == len(s.draw_pile)
        assert snap["draw_pile"] == [env.card_names[k] for k in reversed(s.draw_pile)]  # top first
        assert snap["discard_pile"] == [env.card_names[k] for k in s.discard]  # top last
        assert snap["top"] == snap["discard_pile"][-1]
        assert snap["direction"] in ("clockwise", "counter-clockwise")
        assert set(snap["scores"]) == set(env.possible_agents)
        assert isinstance(snap["pending_draw"], int) and isinstance(snap["round"], int)
        if label == "challenge":
            assert snap["phase"] == "challenge" and snap["pending_draw"] == 4
            assert snap["current"] == "player_1" and snap["color"] == "green"
        if label == "over":
            assert snap["phase"] == "over" and snap["current"] is None
            assert snap["winner"] == "player_0" and snap["round"] == 1


# ---------------------------------------------------------------------- action names
@pytest.mark.parametrize("rules", ["classic", "tmnt"])
def test_action_names_and_action_id_round_trip(rules):
    env = uno_env.raw_env(rules=rules, num_players=4)
    names = env.action_names
    assert len(names) == A.NUM_ACTIONS == env.action_space("player_0").n == 195
    assert len(set(names)) == len(names)
    for i, name in enumerate(names):
        assert env.action_id(name) == i
    with pytest.raises(ValueError, match="no such action"):
        env.action_id("no such action")
    colors = env.colors
    assert env.action_id("draw") == A.DRAW and env.action_id("pass") == A.PASS
    assert env.action_id("challenge") == A.CHALLENGE and env.action_id("uno") == A.UNO
    assert env.action_id("catch") == A.CATCH and env.action_id("ask") == A.ASK
    assert env.action_id(f"play {colors[2]}-7") == 2 * 13 + 7
    assert env.action_id(f"play {colors[0]}-skip") == 12
    assert env.action_id(f"play wild-draw4 {colors[2]}") == 52 + 4 * 1 + 2
    assert env.action_id(f"play team-attack {colors[1]}") == 52 + 4 * 2 + 1
    assert env.action_id(f"color {colors[3]}") == A.COLOR + 3
    assert env.action_id(f"discard {colors[1]}-1") == A.DISCARD + 13 + 1
    assert env.action_id("offer from-the-sewers") == A.OFFER + C.SEWERS
    assert env.action_id("take 1") == A.TAKE and env.action_id("take 9") == A.NUM_ACTIONS - 1
    for k in range(C.NUM_KINDS):
        card = env.card_names[k]
        play = A.play_action(k, 1)
        assert names[play].startswith(f"play {card}") and A.played_kind(play) == k
        assert env.card_id(card) == k


def test_card_names_by_deck_colours():
    assert uno_env.raw_env(rules="classic").colors == CLASSIC_COLORS
    assert uno_env.raw_env(rules="house").colors == CLASSIC_COLORS
    assert uno_env.raw_env(rules="tmnt").colors == TMNT_COLORS
    names = C.card_names(CLASSIC_COLORS)
    assert names[0] == "red-0" and names[12] == "red-skip" and names[13 + 10] == "yellow-draw2"
    assert names[2 * 13 + 11] == "green-reverse"
    assert names[52:] == ("wild", "wild-draw4", "team-attack", "from-the-sewers")


# ---------------------------------------------------------------------- observation layout
def test_observation_layout_constants_are_consistent():
    assert O.HAND == 0
    assert O.TOP == O.HAND + C.NUM_KINDS
    assert O.COLOR == O.TOP + C.NUM_KINDS
    assert O.PHASE == O.COLOR + C.NUM_COLORS
    assert O.PENDING == O.PHASE + NUM_PHASES
    assert O.DIRECTION == O.PENDING + 1 + NUM_PENDING_KINDS
    assert O.DRAW_SIZE == O.DIRECTION + 1
    assert O.PLAYED == O.DRAW_SIZE + 1
    assert O.TURN == O.PLAYED + C.NUM_KINDS
    assert O.SELF == O.TURN + 10
    assert O.OPPONENTS == O.SELF + 2
    assert O.OPP_FIELDS == 4 + 2 * C.NUM_KINDS and O.OPP_KNOWN == 4 and O.OPP_OFFER == 4 + C.NUM_KINDS
    assert O.RULES == O.OPPONENTS + O.MAX_OPPONENTS * O.OPP_FIELDS
    assert O.V0_SIZE == O.RULES + O.NUM_RULE_FLAGS == 1254  # layout 0, unchanged: the prefix of layout 1
    assert O.HISTORY == O.V0_SIZE
    assert O.HIST_FIELDS == C.NUM_COLORS + C.NUM_FACES + 1 + len(LAST_NAMES) + C.NUM_COLORS == 31
    assert (O.HIST_DREW_ON_FACE, O.HIST_RECEIVED, O.HIST_LAST, O.HIST_LEFT) == (4, 17, 18, 27)
    assert O.WD4_COLOR == O.HISTORY + O.MAX_OPPONENTS * O.HIST_FIELDS
    assert O.OBS_SIZE == O.WD4_COLOR + C.NUM_COLORS == 1537
    assert O.LAYOUT_SIZES == {0: 1254, 1: 1537} and O.LAYOUT_VERSION == 1
    for rules in ("classic", "tmnt"):
        for n in (2, 10):
            env = uno_env.raw_env(rules=rules, num_players=n)
            space = env.observation_space("player_0")
            assert space["observation"].shape == (O.OBS_SIZE,) and space["observation"].dtype == np.float32
            assert space["action_mask"].shape == (A.NUM_ACTIONS,) and space["action_mask"].dtype == np.int8
            env.reset(seed=0)
            obs = env.observe("player_0")
            assert space.contains(obs)


def test_observation_content_matches_the_table():
    env = uno_env.raw_env(rules="tmnt", num_players=3, uno_call="explicit")
    reset_stacked(env, 2, {0: ["blue-1", "blue-1", "wild"], 1: ["orange-7"]}, "blue-5")
    snap = env.snapshot()
    for seat in range(3):
        o = env.observe(f"player_{seat}")["observation"]
        hand = np.zeros(C.NUM_KINDS, np.float32)
        for card in snap["hands"][f"player_{seat}"]:
            hand[env.card_id(card)] += 1
        assert (o[O.HAND:O.HAND + C.NUM_KINDS] == hand).all()
        assert o[O.TOP + env.card_id("blue-5")] == 1 and o[O.TOP:O.TOP + C.NUM_KINDS].sum() == 1
        assert o[O.COLOR + 0] == 1 and o[O.COLOR:O.COLOR + 4].sum() == 1  # blue is colour 0 in tmnt
        phase = o[O.PHASE:O.PHASE + NUM_PHASES]
        assert phase.sum() == (1 if seat == 0 else 0) and (seat != 0 or phase[0] == 1)
        assert o[O.PENDING:O.DIRECTION].sum() == 0 and o[O.DIRECTION] == 0
        assert o[O.DRAW_SIZE] == pytest.approx(len(snap["draw_pile"]) / 112)
        assert o[O.PLAYED + env.card_id("blue-5")] == 1 and o[O.PLAYED:O.PLAYED + C.NUM_KINDS].sum() == 1
        assert o[O.TURN + (0 - seat) % 3] == 1 and o[O.TURN:O.TURN + 10].sum() == 1
        block = o[O.OPPONENTS:O.RULES].reshape(O.MAX_OPPONENTS, O.OPP_FIELDS)
        for j in (1, 2):
            assert block[j - 1, 0] == 1 and block[j - 1, 1] == 7 and block[j - 1, 2] == 0
        assert not block[2:].any()  # no third opponent
        flags = o[O.RULES:O.V0_SIZE]
        # stacking, jump_in, seven_slap, giving, until_playable, explicit, bluff, challenge, tmnt, n/10
        assert flags.tolist() == pytest.approx([0, 0, 0, 0, 0, 1, 1, 1, 1, 0.3])
        hist = o[O.HISTORY:O.WD4_COLOR].reshape(O.MAX_OPPONENTS, O.HIST_FIELDS)
        for j in (1, 2):  # nothing happened yet: last action "none", no flags, no count
            assert hist[j - 1].tolist() == [1.0 if i == O.HIST_LAST + LAST_NONE else 0.0
                                            for i in range(O.HIST_FIELDS)]
        assert not hist[2:].any() and not o[O.WD4_COLOR:].any()


def test_mask_only_for_agent_selection_and_names_match():
    env = uno_env.raw_env(rules="classic", num_players=4)
    reset_stacked(env, 3, {0: ["red-9", "blue-5"]}, "red-5")
    assert {"play red-9", "play blue-5", "draw"} <= legal_names(env)
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == env.agent_selection == "player_0")
    assert sorted(env.legal_actions()) == np.flatnonzero(env.observe("player_0")["action_mask"]).tolist()


def test_render_ansi_shows_public_table_and_acting_hand():
    env = uno_env.raw_env(rules="classic", num_players=3, render_mode="ansi")
    reset_stacked(env, 2, {0: ["green-7"], 1: ["yellow-3"]}, "red-5")
    text = env.render()
    assert isinstance(text, str)
    assert "red-5" in text and "green-7" in text
    assert "player_0 hand" in text and "player_1 hand" not in text and "player_2 hand" not in text
    act(env, "draw", "player_0")
    text = env.render()
    assert env.agent_selection in ("player_0", "player_1")
    assert f"{env.agent_selection} hand" in text


@pytest.mark.slow
def test_pettingzoo_performance_benchmark_runs():
    """PettingZoo's performance_benchmark (prints turns/s and cycles/s; ~5 s of random play)."""
    from pettingzoo.test import performance_benchmark

    performance_benchmark(uno_env.env(rules="classic", num_players=4))
