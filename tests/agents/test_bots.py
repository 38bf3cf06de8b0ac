"""Scripted bots (``random``, ``greedy``, ``heuristic``) and the observation view they read.

* Bots only ever choose legal actions, in every preset, 2-10 players, both UNO-call modes
  (hypothesis property test over games of up to 400 decisions, every seat a different bot);
  a table of one bot kind plays whole games to the end.
* The decoded view matches the state it was encoded from.
* Specific decisions in stacked situations: the heuristic calls UNO (explicit mode), catches,
  jumps in, challenges a likely bluff, offers a card the asker can't play; greedy plays its
  highest card.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import uno_env
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.agents import agent_specs, make_agent
from uno_env.agents.arena import play_game
from uno_env.agents.bots import GreedyAgent, RandomAgent, UniformAgent
from uno_env.agents.heuristic import HeuristicAgent
from uno_env.agents.view import decode
from uno_env.game.engine import CATCH, CHALLENGE, JUMP, OFFER, Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import make_rules

from helpers import reset_stacked

BOTS = ("uniform", "random", "greedy", "heuristic")


def _mask(legal):
    mask = np.zeros(A.NUM_ACTIONS, np.int8)
    mask[legal] = 1
    return mask


def _python_ints(agent):
    """``agent`` with its answers checked to be Python ints (the arena also accepts numpy ints)."""
    act = agent.act

    def checked(observation, mask):
        action = act(observation, mask)
        assert type(action) is int, f"{agent!r} returned {type(action).__name__}"
        return action

    agent.act = checked
    return agent


def play_checked(rules, num_players, specs, seed, max_steps=600):
    """Play one game in the arena (which raises on an illegal action), every bot's answer a
    Python int; the game's record."""
    rules = make_rules(rules, max_steps=max_steps)
    agents = [_python_ints(make_agent(specs[i % len(specs)], rules, num_players, seed=seed * 31 + i))
              for i in range(num_players)]
    return play_game(Engine(rules, num_players), agents, np.random.default_rng(seed))


def test_bots_registered():
    assert set(BOTS) <= set(agent_specs())
    rules = make_rules("classic")
    assert isinstance(make_agent("uniform", rules, 2, 0), UniformAgent)
    assert isinstance(make_agent("random", rules, 2, 0), RandomAgent)
    assert isinstance(make_agent("greedy", rules, 2, 0), GreedyAgent)
    h = make_agent("heuristic:hold_wild=3", rules, 2, 0)
    assert isinstance(h, HeuristicAgent) and h.weights.hold_wild == 3
    with pytest.raises(ValueError, match="unknown heuristic parameter"):
        make_agent("heuristic:nonsense=1", rules, 2, 0)


@pytest.mark.parametrize("rules", ["house", {"preset": "tmnt", "hand_size": 5}, make_rules("classic", uno_call="explicit")])
@pytest.mark.parametrize("spec", ["random", "heuristic", "search:simulations=4"])
def test_make_agent_takes_rules_as_the_envs_do(spec, rules):
    """A preset name, a mapping of options or a Rules: the agent plays by the rules the env
    built from the same argument."""
    env = uno_env.raw_env(rules=rules, num_players=3)
    agent = make_agent(spec, rules, 3, seed=0)
    assert agent.rules == env.rules
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"])] == 1


@pytest.mark.parametrize("rules,message", [(7, "rules must be a preset name"), ("nosuch", "nosuch")])
def test_make_agent_refuses_rules_it_cannot_build(rules, message):
    with pytest.raises(ValueError, match=message):
        make_agent("heuristic", rules, 2)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(["classic", "tmnt", "house"]),
       num_players=st.integers(2, 10),
       uno_call=st.sampled_from(["auto", "explicit"]),
       first_bot=st.integers(0, 3),
       seed=st.integers(0, 2 ** 31 - 1))
def test_bots_only_choose_legal_actions(preset, num_players, uno_call, first_bot, seed):
    rules = make_rules(preset, uno_call=uno_call)
    specs = [BOTS[(first_bot + i) % len(BOTS)] for i in range(len(BOTS))]
    play_checked(rules, num_players, specs, seed, max_steps=400)


@pytest.mark.parametrize("uno_call", ["auto", "explicit"])
@pytest.mark.parametrize("num_players", range(2, 11))
@pytest.mark.parametrize("preset", ["classic", "tmnt", "house"])
def test_bots_legal_in_every_configuration(preset, num_players, uno_call):
    """Every preset x player count x UNO mode at least once (the property test samples)."""
    rules = make_rules(preset, uno_call=uno_call)
    play_checked(rules, num_players, list(BOTS), seed=num_players, max_steps=300)


@pytest.mark.parametrize("preset", ["classic", "tmnt", "house", "classic-stacking-jumpin"])
@pytest.mark.parametrize("bot", BOTS[1:])
def test_each_bot_alone_plays_whole_games(preset, bot):
    """A table of one bot kind plays games to the end (they end within 1,500 decisions; not
    ``uniform``'s: it draws as often as it plays, and a table of it takes a median 1,800
    decisions at 3 players under explicit UNO, up to 15,000)."""
    rules = make_rules(preset, uno_call="explicit")
    for seed in range(3):
        record = play_checked(rules, 3 + seed, [bot], seed, max_steps=1500)
        assert not record.truncated and 0 <= record.winner < 3 + seed, f"game {seed} did not finish"


def test_bots_through_the_aec_env():
    env = uno_env.env(rules="house", num_players=4, uno_call="explicit", max_steps=300)
    env.reset(seed=3)
    bots = {a: make_agent(spec, env.unwrapped.rules, 4, seed=i)
            for i, (a, spec) in enumerate(zip(env.possible_agents, BOTS + ("heuristic",)))}
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = bots[agent].act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1
        env.step(action)


def test_heuristic_wins_most_games_against_random():
    rules = make_rules("classic")
    wins = 0
    for seed in range(200):
        record = play_checked(rules, 2, ["heuristic", "random"], seed, max_steps=3000)
        wins += record.winner == 0
    assert wins >= 110  # ~65% expected; 110/200 is far below (a broken bot would sit near 100)


# ---------------------------------------------------------------------- the decoded view
@pytest.mark.parametrize("preset,num_players", [("classic", 2), ("tmnt", 5), ("house", 4)])
def test_view_matches_the_state(preset, num_players):
    rules = make_rules(preset, uno_call="explicit")
    engine = Engine(rules, num_players)
    encoder = ObservationEncoder(engine)
    state = engine.new_state(np.random.default_rng(7))
    rng = np.random.default_rng(1)
    for _ in range(120):
        if state.game_over:
            break
        for p in range(num_players):
            legal = engine.legal_actions(state) if p == state.actor else []
            v = decode(encoder.encode(state, p), A.legal_mask(legal))
            assert v.hand == [int(x) for x in state.hands[p]]
            assert v.hand_size == state.hand_size[p]
            assert v.top == state.discard[-1]
            assert v.color == state.color
            assert v.phase == (state.phase if p == state.actor else -1)
            assert v.pending == state.pending and v.pending_kind == state.pending_kind
            assert v.direction == state.direction
            assert v.played == [int(x) for x in state.played]
            assert v.turn_offset == (state.turn - p) % num_players
            assert v.num_players == num_players
            assert v.legal == sorted(legal)
            assert v.uno_called == state.uno_called[p]
            assert len(v.opponents) == num_players - 1
            for j, o in enumerate(v.opponents):
                q = (p + j + 1) % num_players
                assert o.offset == j + 1
                assert o.hand_size == state.hand_size[q]
                assert o.known == [int(x) for x in state.known[p, q]]
                assert o.offer == (state.offers[q] if rules.giving else -1)
            nxt = (p + state.direction) % num_players
            assert v.next_opponent.hand_size == state.hand_size[nxt]
            assert v.rules.stacking == rules.stacking and v.rules.explicit_uno
            assert v.rules.tmnt == (preset == "tmnt")
            _check_describe(v, rules.color_names)
        legal = engine.legal_actions(state)
        engine.step(state, legal[int(rng.integers(len(legal)))])


def _check_describe(v, colors) -> None:
    """``View.describe``: the table line, my hand, one line per opponent, the rules."""
    names = C.card_names(colors)
    lines = v.describe(colors).splitlines()
    assert len(lines) == 2 + len(v.opponents) + 1
    assert lines[0].startswith(f"phase {v.phase_name()}  top {names[v.top]}  colour ")
    assert lines[0].split("colour ")[1].startswith(colors[v.color] if v.color >= 0 else "-")
    head, _, cards = lines[1].partition(": ")
    assert head == f"my hand ({v.hand_size})"
    assert sorted(cards.removesuffix("  UNO").split()) == sorted(names[k] for k in range(C.NUM_KINDS)
                                                               for _ in range(v.hand[k]))
    for o, line in zip(v.opponents, lines[2:]):
        assert line.startswith(f"  +{o.offset}: {o.hand_size} cards")
    assert lines[-1] == f"rules: {v.rules!r}  players {v.num_players}"


# ---------------------------------------------------------------------- stacked decisions
def _obs(env):
    agent = env.agent_selection
    o = env.unwrapped.observe(agent)
    return agent, o["observation"], o["action_mask"]


def test_heuristic_calls_uno_before_its_next_to_last_card():
    env = uno_env.env(rules="classic", num_players=2, uno_call="explicit", hand_size=2)
    reset_stacked(env, dealer=1, hands={0: ["red-5", "red-7"], 1: ["blue-1", "blue-2"]}, first="red-3")
    u = env.unwrapped
    bot = make_agent("heuristic", u.rules, 2, seed=0)
    agent, obs, mask = _obs(env)
    assert agent == "player_0"
    assert bot.act(obs, mask) == A.UNO
    env.step(A.UNO)
    agent, obs, mask = _obs(env)
    action = bot.act(obs, mask)
    assert action in (u.action_id("play red-5"), u.action_id("play red-7"))
    env.step(action)
    assert u.game_state.uno_called[0] and u.game_state.hand_size[0] == 1


def test_heuristic_catches_a_missed_uno():
    env = uno_env.env(rules="classic", num_players=2, uno_call="explicit", hand_size=2)
    reset_stacked(env, dealer=1, hands={0: ["red-5", "red-7"], 1: ["blue-1", "blue-2"]}, first="red-3")
    u = env.unwrapped
    env.step(u.action_id("play red-5"))  # seat 0 forgets UNO
    assert u.game_state.phase == CATCH
    agent, obs, mask = _obs(env)
    assert agent == "player_1"
    assert make_agent("heuristic", u.rules, 2, seed=0).act(obs, mask) == A.CATCH


def test_heuristic_jumps_in():
    env = uno_env.env(rules="classic", num_players=3, jump_in=True)
    reset_stacked(env, dealer=2, hands={0: ["red-5", "green-1"], 1: ["blue-2"], 2: ["red-5", "yellow-9"]},
                  first="red-3")
    u = env.unwrapped
    env.step(u.action_id("play red-5"))
    assert u.game_state.phase == JUMP
    agent, obs, mask = _obs(env)
    assert agent == "player_2"
    assert make_agent("heuristic", u.rules, 3, seed=0).act(obs, mask) == u.action_id("play red-5")


def _wd4_challenge_view(hand_1, hand_size=7):
    """Seat 0 can't play on red-8 and draws an unplayable blue-9; seat 1 plays a Wild Draw
    Four; seat 0 now decides: challenge or draw. Returns (env, obs, mask, bot)."""
    env = uno_env.env(rules="classic", num_players=2, hand_size=hand_size)
    hand_0 = ["blue-1", "blue-2", "blue-6", "green-4", "green-5", "yellow-6", "yellow-7"][:hand_size]
    reset_stacked(env, dealer=1, hands={0: hand_0, 1: hand_1}, first="red-8", draw_top=["blue-9"])
    u = env.unwrapped
    bot = make_agent("heuristic", u.rules, 2, seed=0)
    agent, obs, mask = _obs(env)
    assert agent == "player_0"
    assert bot.act(obs, mask) == A.DRAW  # no red, no 8
    env.step(A.DRAW)
    env.step(u.action_id("play wild-draw4 blue"))
    agent, obs, mask = _obs(env)
    assert u.game_state.phase == CHALLENGE and agent == "player_0"
    return env, obs, mask, bot


def test_heuristic_challenges_a_likely_bluff():
    # seat 1 keeps six cards after its Wild Draw Four: it very likely held a red one
    env, obs, mask, bot = _wd4_challenge_view(["red-1", "red-2", "red-4", "red-6", "red-9", "green-9",
                                               "wild-draw4"])
    assert env.unwrapped.game_state.wd4_guilty
    assert bot.act(obs, mask) == A.CHALLENGE


def test_heuristic_does_not_challenge_an_unlikely_bluff():
    # seat 1 keeps a single card: a red one is unlikely, drawing 4 beats risking 6
    env, obs, mask, bot = _wd4_challenge_view(["green-9", "wild-draw4"], hand_size=2)
    assert not env.unwrapped.game_state.wd4_guilty
    assert bot.act(obs, mask) == A.DRAW


def test_heuristic_offers_a_card_the_asker_cannot_play():
    env = uno_env.env(rules="classic", num_players=2, giving=True)
    reset_stacked(env, dealer=1, hands={0: ["blue-1", "blue-2", "green-4", "green-5", "yellow-6",
                                            "yellow-7", "blue-6"],
                                        1: ["red-9", "yellow-9", "green-1", "blue-skip", "red-1",
                                            "blue-4", "green-2"]}, first="red-3")
    u = env.unwrapped
    env.step(A.ASK)  # seat 0 can't play on red-3: asks
    assert u.game_state.phase == OFFER
    agent, obs, mask = _obs(env)
    assert agent == "player_1"
    action = make_agent("heuristic", u.rules, 2, seed=0).act(obs, mask)
    assert A.OFFER <= action < A.TAKE
    offered = action - A.OFFER
    assert offered < C.NUM_COLORED and C.color_of(offered) != 0 and C.face_of(offered) != 3


def test_greedy_plays_its_highest_card_and_most_common_colour():
    env = uno_env.env(rules="classic", num_players=2)
    reset_stacked(env, dealer=1, hands={0: ["red-3", "red-9", "red-skip", "blue-9", "green-1",
                                            "yellow-2", "yellow-4"]}, first="red-8")
    u = env.unwrapped
    _, obs, mask = _obs(env)
    assert make_agent("greedy", u.rules, 2, seed=0).act(obs, mask) == u.action_id("play red-skip")
    env = uno_env.env(rules="classic", num_players=2)
    reset_stacked(env, dealer=1, hands={0: ["red-3", "blue-5", "red-skip", "blue-9", "blue-1",
                                            "blue-2", "wild"]}, first="red-8")
    u = env.unwrapped
    _, obs, mask = _obs(env)
    assert make_agent("greedy", u.rules, 2, seed=0).act(obs, mask) == u.action_id("play wild blue")


def test_random_plays_a_card_when_it_can_and_varies():
    env = uno_env.env(rules="classic", num_players=2)
    reset_stacked(env, dealer=1, hands={0: ["red-3", "red-9", "red-skip", "blue-9", "green-1",
                                            "yellow-2", "wild"]}, first="red-8")
    u = env.unwrapped
    _, obs, mask = _obs(env)
    bot = make_agent("random", u.rules, 2, seed=0)
    picks = {bot.act(obs, mask) for _ in range(300)}
    assert A.DRAW not in picks
    assert {u.action_id("play red-3"), u.action_id("play red-9"), u.action_id("play red-skip")} <= picks
    assert {u.action_id(f"play wild {c}") for c in u.rules.color_names} <= picks


def test_bots_are_reproducible_with_a_seed():
    rules = make_rules("house", uno_call="explicit")
    a = play_checked(rules, 4, list(BOTS), seed=5, max_steps=300)
    b = play_checked(rules, 4, list(BOTS), seed=5, max_steps=300)
    assert a == b
