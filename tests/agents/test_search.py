"""The ``search`` bot (:mod:`uno_env.agents.search`).

* Options: a frozen dataclass; specs ``search:key=value,...``; an unknown key, a missing,
  non-numeric or non-integer value, a value out of range or a key given twice is a
  ``ValueError`` naming it.
* Legal in every phase of every ruleset (classic, tmnt, house; 2-4 players; both UNO-call
  modes), including the phases where it plays the heuristic's move (windows, discards).
* It never reads hidden state: with the same seed and history, its decision is the same
  when only cards hidden from it change. Deterministic for a seed.
* The cards it has not seen are the others' hidden cards and the DRAW pile. Its sampled
  deals agree with its observation (every field it sees, the deck conserved), and leave
  out of an opponent's hand the colour and face it could not play on.
* The rollout policy plays whole games of every preset; the search replaces some of the
  heuristic's moves.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import random
import re
from collections import Counter

import numpy as np
import pytest

from helpers import CLASSIC_COLORS, make_env, perturb_hidden

from uno_env.agents import make_agent
from uno_env.agents.arena import play_game
from uno_env.agents.bots import RandomAgent
from uno_env.agents.heuristic import HeuristicAgent
from uno_env.agents import search
from uno_env.agents.search import OPTION_NAMES, SEARCHED_PHASES, RolloutPolicy, SearchAgent, SearchOptions, deal, template
from uno_env.agents.search.options import CHOICES, OLD_SPELLINGS
from uno_env.agents.search.rollout import RandomRolloutPolicy
from uno_env.agents.view import decode
from uno_env.game import cards as C
from uno_env.game.actions import legal_mask
from uno_env.game.engine import Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import make_rules

FAST = "search:simulations=8"  # a few rollouts per decision: the tests check behaviour, not strength
RED = CLASSIC_COLORS.index("red")


# ---------------------------------------------------------------------- options
def test_spec_overrides_the_named_options_only():
    o = SearchOptions.from_spec("search:simulations=200, z=1.5,")
    assert o.simulations == 200 and isinstance(o.simulations, int) and o.z == 1.5
    assert dataclasses.replace(o, simulations=SearchOptions().simulations, z=SearchOptions().z) == SearchOptions()
    assert SearchOptions.from_spec("search") == SearchOptions()
    bot = make_agent("search:simulations=50,deals=beliefs", make_rules("classic"), 2, seed=0)
    assert isinstance(bot, SearchAgent) and bot.options.simulations == 50 and bot.options.deals == "beliefs"
    assert SearchAgent(make_rules("classic"), 2, 0, {"simulations": 3}).options.simulations == 3


@pytest.mark.parametrize("spec,message", [
    ("search:nonsense=1", "unknown search option 'nonsense'"),
    ("search:simulations=many", "'simulations' must be an integer, got 'many'"),
    ("search:simulations=1.5", "'simulations' must be an integer, got '1.5'"),
    ("search:z=high", "'z' must be a number, got 'high'"),
    ("search:simulations", "'simulations' has no value"),
    ("search:z=", "'z' has no value"),
    ("search:z=1,z=2", "'z' is given twice"),
    ("search:simulations=0", r"'simulations' must be in \[1, "),
    ("search:deals=voids", "'deals' must be one of 'tracker', 'beliefs', 'uniform', got 'voids'"),
    ("search:rollouts=1", "'rollouts' must be one of 'policy', 'agents', got '1'"),
    ("search:voids=3", r"'voids' \(now 'deals'\) must be 0..2 or one of 'tracker', 'beliefs', 'uniform', got 3"),
    ("search:fast=yes", "'fast' must be one of 'policy', 'agents', got 'yes'"),
    ("search:voids=1,deals=tracker", "'deals' is given twice"),
    ("search:z=-1", r"'z' must be in \[0.0, "),
    ("search:z=nan", "'z' must be a finite number"),
])
def test_bad_spec_is_a_value_error_naming_it(spec, message):
    with pytest.raises(ValueError, match=message):
        SearchOptions.from_spec(spec)
    with pytest.raises(ValueError, match=message):
        make_agent(spec, make_rules("classic"), 2, seed=0)


def test_options_are_frozen_and_validated():
    o = SearchOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.simulations = 3
    with pytest.raises(ValueError, match="'budget' must be one of 'halving', 'even', got 1"):
        SearchOptions(budget=1)
    with pytest.raises(ValueError, match="'max_steps' must be an integer"):
        SearchOptions(max_steps=2.5)
    with pytest.raises(ValueError, match="'simulations' must be a finite number"):
        SearchOptions(simulations=True)
    with pytest.raises(ValueError, match="'fast' \\(now 'rollouts'\\) must be 0..1"):
        SearchOptions.from_mapping({"fast": True})
    with pytest.raises(ValueError, match="unknown search option 'sims'"):
        SearchOptions.from_mapping({"sims": 3})
    assert set(OPTION_NAMES) == {f.name for f in dataclasses.fields(SearchOptions)}


def test_every_choice_is_described_and_the_defaults_are_choices():
    for name, choices in CHOICES.items():
        assert choices and all(isinstance(doc, str) and doc for doc in choices.values()), name
        assert getattr(SearchOptions(), name) == next(iter(choices)), f"{name}: the default is listed first"


def test_the_old_numeric_spellings_name_the_same_options():
    """Specs of uno_env 0.5 (``voids=0/1/2``, ``fast``, ``halving``, ``colors``, ``opponents=0/1``)
    still build the agent they named."""
    old = SearchOptions.from_spec("search:simulations=50,halving=0,colors=0,voids=1,fast=0,opponents=1")
    new = SearchOptions.from_spec("search:simulations=50,budget=even,wild_colors=all,deals=beliefs,"
                                  "rollouts=agents,opponents=random")
    assert old == new and SearchOptions.from_mapping({"voids": 2, "fast": 1, "opponents": 0}) == SearchOptions()
    for key, (name, meant) in OLD_SPELLINGS.items():
        for number, choice in enumerate(meant):
            assert getattr(SearchOptions.from_spec(f"search:{key}={number}"), name) == choice


# ---------------------------------------------------------------------- legality
def _play(rules, n, specs, seed, max_steps=400):
    rules = make_rules(rules, max_steps=max_steps) if not hasattr(rules, "max_steps") else rules
    agents = [make_agent(specs[i % len(specs)], rules, n, seed=seed * 31 + i) for i in range(n)]
    record = play_game(Engine(rules, n), agents, np.random.default_rng(seed))  # raises on an illegal answer
    return record, agents


@pytest.mark.parametrize("uno_call", ["auto", "explicit"])
@pytest.mark.parametrize("preset,num_players", [("classic", 2), ("classic", 4), ("tmnt", 2), ("tmnt", 3),
                                                ("house", 2), ("house", 4), ("classic-stacking-jumpin", 3)])
def test_search_is_legal_in_every_phase_and_ruleset(preset, num_players, uno_call):
    rules = make_rules(preset, uno_call=uno_call, max_steps=300)
    seen = Counter()
    for seed in range(2):
        agents = [make_agent(FAST, rules, num_players, seed=seed * 7 + i) for i in range(num_players)]
        engine = Engine(rules, num_players)
        play_game(engine, agents, np.random.default_rng(seed),
                  on_decision=lambda s, p, a: seen.update([s.phase]))
        assert sum(a.stats["searched"] for a in agents) > 0  # it did search
    assert seen  # decisions were taken (the arena raises on an illegal one)


@pytest.mark.parametrize("preset,num_players", [("classic", 2), ("house", 3)])
def test_heuristic_rollouts_are_legal_too(preset, num_players):
    """``rollouts=agents``: rollouts by heuristic agents on observations (slower) play legal games."""
    rules = make_rules(preset, max_steps=200)
    agents = [make_agent(FAST + ",rollouts=agents", rules, num_players, seed=i) for i in range(num_players)]
    play_game(Engine(rules, num_players), agents, np.random.default_rng(1))
    assert sum(a.stats["searched"] for a in agents) > 0


def test_search_answers_every_window_without_searching():
    """Jump-in, catch and offer windows, takes, Team Attack discards: the heuristic's move, no search."""
    rules = make_rules("house", uno_call="explicit", max_steps=400)
    engine = Engine(rules, 3)
    encoder = ObservationEncoder(engine)
    agents = [make_agent(FAST, rules, 3, seed=i) for i in range(3)]
    windows = Counter()
    for seed in range(3):
        state = engine.new_state(np.random.default_rng(seed))
        while not state.game_over and not engine.truncated(state):
            p, phase = state.actor, state.phase
            legal = engine.legal_actions(state)
            before = agents[p].stats["searched"]
            action = agents[p].act(encoder.encode(state, p), legal_mask(legal))
            assert action in legal
            if phase not in SEARCHED_PHASES:
                windows[phase] += 1
                assert agents[p].stats["searched"] == before
            engine.step(state, action)
    assert len(windows) >= 2, windows  # several kinds of window came up


# ---------------------------------------------------------------------- hidden information
@pytest.mark.parametrize("preset,num_players", [("classic", 2), ("tmnt", 3), ("house", 4)])
def test_decision_unchanged_when_only_hidden_cards_change(preset, num_players):
    """At every decision of the search bot, a copy of it (same seed, same memory) decides
    the same on the observation of a state whose hidden cards (other hands, DRAW order)
    were changed."""
    rules = make_rules(preset, max_steps=250)
    engine = Engine(rules, num_players)
    encoder = ObservationEncoder(engine)
    bot = make_agent(FAST, rules, num_players, seed=5)
    others = [make_agent("heuristic", rules, num_players, seed=i) for i in range(num_players)]
    rng = np.random.default_rng(11)
    checked = 0
    for game in range(2):
        state = engine.new_state(np.random.default_rng([3, game]))
        while not state.game_over and not engine.truncated(state):
            p = state.actor
            mask = legal_mask(engine.legal_actions(state))
            if p == 0:
                twin = copy.deepcopy(bot)  # the same seed, generators and memory
                changed, did = perturb_hidden(state, 0, rng)
                obs = encoder.encode(state, 0)
                assert (encoder.encode(changed, 0) == obs).all()
                action = bot.act(obs, mask)
                if did:
                    assert twin.act(encoder.encode(changed, 0), legal_mask(engine.legal_actions(changed))) == action
                    checked += 1
            else:
                action = others[p].act(encoder.encode(state, p), mask)
            engine.step(state, action)
    assert checked >= 10


def test_same_seed_same_game():
    rules = make_rules("classic")
    runs = []
    for _ in range(2):
        actions = []
        agents = [make_agent(FAST, rules, 2, seed=9), make_agent("heuristic", rules, 2, seed=1)]
        play_game(Engine(rules, 2), agents, np.random.default_rng(4),
                  on_decision=lambda s, p, a: actions.append(a))
        agents[0].reset(123)
        play_game(Engine(rules, 2), agents, np.random.default_rng(5),
                  on_decision=lambda s, p, a: actions.append(a))
        runs.append(actions)
    assert runs[0] == runs[1]


# ---------------------------------------------------------------------- determinisation
@pytest.mark.parametrize("preset,num_players,spec", [
    ("classic", 2, FAST), ("classic", 2, FAST + ",deals=beliefs"), ("classic", 3, FAST),
    ("classic", 3, FAST + ",deals=uniform"),
    ("tmnt", 2, FAST), ("house", 3, FAST)])
def test_sampled_deals_agree_with_the_observation(preset, num_players, spec):
    """Every field of the observation of a sampled deal is what the bot saw, its legal
    actions are its mask, and the deal holds exactly the deck."""
    rules = make_rules(preset, max_steps=300)
    engine = Engine(rules, num_players)
    encoder = ObservationEncoder(engine)
    bot = make_agent(spec, rules, num_players, seed=2)
    others = [make_agent("heuristic", rules, num_players, seed=i) for i in range(num_players)]
    deck = np.array(rules.deck_counts())
    sampled = 0
    for game in range(2):
        state = engine.new_state(np.random.default_rng([8, game]))
        while not state.game_over and not engine.truncated(state):
            p = state.actor
            legal = engine.legal_actions(state)
            obs = encoder.encode(state, p)
            if p == 0 and state.phase in SEARCHED_PHASES:
                v = decode(obs, legal_mask(legal))
                twin = copy.deepcopy(bot)
                twin.observe(v)
                tp = twin.deal_template(v)
                assert tp is not None
                for _ in range(3):
                    s = twin.sample_deal(tp)
                    assert (encoder.encode(s, 0) == obs).all()
                    assert engine.legal_actions(s) == legal
                    cards = s.hands.sum(axis=0) + np.bincount(s.draw_pile, minlength=C.NUM_KINDS) \
                        + np.bincount(s.discard, minlength=C.NUM_KINDS)
                    assert (cards == deck).all()
                    sampled += 1
            agent = bot if p == 0 else others[p]
            engine.step(state, agent.act(obs, legal_mask(legal)))
    assert sampled >= 30


def _bot_after(moves, hands, first, draw_top):
    """Seat 0 (the bot, hand_size 4) plays ``moves[0]``; seat 1 then makes ``moves[1:]``;
    the bot's view of its next decision, read (:meth:`SearchAgent.observe`)."""
    e = make_env(2, hands, first=first, draw_top=draw_top, hand_size=4)
    bot = make_agent(FAST, e.rules, 2, seed=0)
    obs = e.observe("player_0")
    assert bot.act(obs["observation"], obs["action_mask"]) == e.action_id(moves[0])
    for name in moves:
        e.step(e.action_id(name))
    assert e.agent_selection == "player_0"
    obs = e.observe("player_0")
    v = decode(obs["observation"], obs["action_mask"])
    bot.observe(v)
    return bot, v


def test_deals_and_their_rollouts_leave_the_template_unchanged():
    """One template serves every deal of a decision: dealing and playing a deal out on the
    engine never changes it (hands, piles, counts, sizes, the unseen pool)."""
    bot, v = _bot_after(["play red-5", "draw"], {0: ["red-5", "green-3", "yellow-8", "blue-9"], 1: OPPONENT},
                        first="red-1", draw_top=["blue-2"])
    tp = template(v, bot.rules, bot.deck, [(bot.tracker.cvoid[0], bot.tracker.fvoid[0])])
    before = copy.deepcopy(tp)
    rng = np.random.default_rng(0)
    for _ in range(20):
        s = deal(tp, rng)
        s.rng = np.random.default_rng(1)
        while not s.game_over:
            bot.engine.step(s, bot.policy(s, bot.engine.legal_actions(s)))
    assert (tp.pool == before.pool).all() and tp.deal == before.deal and tp.sizes == before.sizes
    for name, value in vars(before.state).items():
        now = getattr(tp.state, name)
        assert np.array_equal(now, value) if isinstance(value, np.ndarray) else now == value, name


OPPONENT = ["blue-1", "green-7", "yellow-2", "wild"]  # no red, no 5 (the wild is held back)


def test_an_opponent_that_drew_is_dealt_no_card_of_that_colour_or_face():
    bot, v = _bot_after(["play red-5", "draw"], {0: ["red-5", "green-3", "yellow-8", "blue-9"], 1: OPPONENT},
                        first="red-1", draw_top=["blue-2"])
    assert bot.tracker.cvoid[0][RED] == 1.0 and bot.tracker.fvoid[0][5] == 1.0
    assert v.opponents[0].hand_size == 5
    tp = bot.deal_template(v)
    for _ in range(50):
        hand1 = bot.sample_deal(tp).hands[1]
        assert hand1.sum() == 5
        assert hand1[C.kind_of(RED, 0):C.kind_of(RED, 12) + 1].sum() == 0
        assert hand1[5:C.NUM_COLORED:13].sum() == 0


def test_the_card_it_drew_and_played_does_not_clear_the_void():
    bot, v = _bot_after(["play red-5", "draw", "play red-9"],
                        {0: ["red-5", "green-3", "yellow-8", "blue-9"], 1: OPPONENT},
                        first="red-1", draw_top=["red-9"])
    assert bot.tracker.cvoid[0][RED] == 1.0  # it had no red before it drew the red 9


def test_leaving_the_colour_is_evidence_of_a_void():
    bot, _ = _bot_after(["play red-5", "play blue-5"],
                        {0: ["red-5", "green-3", "yellow-8", "blue-9"], 1: ["blue-5", "green-7", "yellow-2", "wild"]},
                        first="red-1", draw_top=[])
    cv = bot.tracker.cvoid[0]
    assert 0.0 < cv[RED] < 1.0
    assert cv[CLASSIC_COLORS.index("blue")] == 0.0  # it played blue


@pytest.mark.parametrize("preset", ["classic", "house"])
def test_the_unseen_cards_are_the_cards_hidden_in_the_other_hands_and_the_draw_pile(preset):
    engine = Engine(make_rules(preset), 4)
    encoder, deck = ObservationEncoder(engine), engine.rules.deck_counts()
    checked = shown = 0
    for seed in range(4):
        s = engine.new_state(np.random.default_rng(seed))
        rng = np.random.default_rng(seed + 50)
        while not s.game_over and s.steps < 150:
            p = s.actor
            v = decode(encoder.encode(s, p), legal_mask(engine.legal_actions(s)))
            known = np.asarray(v.known) if v.known_any else np.zeros((3, C.NUM_KINDS), np.int64)
            hidden = sum(s.hands[(p + j + 1) % 4] - known[j] for j in range(3))
            expected = np.bincount(s.draw_pile, minlength=C.NUM_KINDS) + hidden
            assert search.unseen_counts(v, deck) == expected.tolist()
            checked, shown = checked + 1, shown + int(known.sum())
            engine.step(s, int(rng.choice(engine.legal_actions(s))))
    assert checked > 200 and shown > 0  # decisions with cards shown to the player among them


# ---------------------------------------------------------------------- rollouts
@pytest.mark.parametrize("preset", ["classic", "tmnt", "house", "classic-stacking-jumpin"])
def test_rollout_policy_plays_whole_games(preset):
    rules = make_rules(preset, uno_call="explicit")
    for n in (2, 4):
        engine = Engine(rules, n)
        policy = RolloutPolicy(engine)
        for seed in range(3):
            s = engine.new_state(np.random.default_rng(seed))
            while not s.game_over and s.steps < 3000:
                engine.step(s, policy(s, engine.legal_actions(s)))  # raises on an illegal action
            assert s.game_over


def test_every_deal_the_search_plays_comes_from_sample_deal(monkeypatch):
    """``sample_deal`` is the one seam for deals: a subclass that changes it changes every deal
    the rollouts start from."""
    dealt, played = [], []

    class Counting(SearchAgent):
        def sample_deal(self, tp):
            s = super().sample_deal(tp)
            dealt.append(s)
            return s

    real = search.agent.play_each

    def spy(engine, base, *args, **kwargs):
        played.append(base)
        return real(engine, base, *args, **kwargs)

    monkeypatch.setattr(search.agent, "play_each", spy)
    rules = make_rules("classic")
    bot = Counting(rules, 4, 3, {"simulations": 8})
    for seed in range(3):
        bot.reset(seed)
        play_game(Engine(rules, 4), [bot] + [HeuristicAgent(rules, 4) for _ in range(3)], np.random.default_rng(seed))
    assert bot.stats["searched"] > 0 and len(played) >= 2 * bot.stats["searched"]
    assert {id(s) for s in played} <= {id(s) for s in dealt}


def test_settle_rebuilds_the_hand_bookkeeping_from_the_hands():
    """A deal made by other means is finished by ``settle``: which kinds each hand holds and the
    hand sizes come from the hands and the template, as in ``deal``."""
    bot, v = _bot_after(["play red-5", "draw"], {0: ["red-5", "green-3", "yellow-8", "blue-9"], 1: OPPONENT},
                        first="red-1", draw_top=["blue-2"])
    tp = bot.deal_template(v)
    rng = np.random.default_rng(4)
    for _ in range(10):
        s = deal(tp, rng)
        moved = s.clone()
        k = int(np.flatnonzero(moved.hands[1])[0])  # swap one of the opponent's cards with the DRAW pile's top
        moved.hands[1][k] -= 1
        moved.hands[1][moved.draw_pile[-1]] += 1
        moved.draw_pile[-1] = k
        moved.held, moved.hand_size = [0] * 2, [0] * 2
        settled = search.settle(moved, tp, rng)
        assert settled.hand_size == s.hand_size == tp.sizes
        assert settled.held == [sum(1 << x for x in np.flatnonzero(h)) for h in moved.hands]
        assert bot.engine.legal_actions(settled) == v.legal


def test_search_bot_differs_from_the_heuristic_sometimes():
    """The search replaces some of the heuristic's moves (it is not the heuristic)."""
    rules = make_rules("classic")
    bot = make_agent("search:simulations=64", rules, 2, seed=3)
    for seed in range(6):
        bot.reset(seed)
        play_game(Engine(rules, 2), [bot, HeuristicAgent(rules, 2)], np.random.default_rng(seed))
    assert bot.stats["searched"] > 20 and bot.stats["overrides"] > 0


def test_last_search_holds_each_compared_moves_differences_from_the_default():
    """``last_search``: the moves compared and each one's outcome minus the default's on every
    sample (returns: +1 a win, -1 a loss, 0 cut at max_steps); the default's are all zero, a move that replaced it
    gained on average, a move halved out has fewer samples than the survivors."""
    rules = make_rules("classic")
    bot = make_agent("search:simulations=64", rules, 2, seed=3)
    seen, search_ = [], bot._search

    def spy(v, default):
        before = bot.stats["searched"]
        chosen = search_(v, default)
        if bot.stats["searched"] > before:
            seen.append((default, chosen, bot.last_search, v.legal))
        return chosen

    bot._search = spy
    assert bot.last_search is None
    for seed in range(6):
        bot.reset(seed)
        play_game(Engine(rules, 2), [bot, HeuristicAgent(rules, 2)], np.random.default_rng(seed))
    assert len(seen) > 20 and any(chosen != default for default, chosen, _, _ in seen)
    for default, chosen, (moves, diffs), legal in seen:
        assert len(moves) == len(diffs) >= 2 and set(moves) <= set(legal) and default in moves
        assert set(diffs[moves.index(default)]) == {0.0}
        assert all(set(d) <= {-2.0, -1.0, 0.0, 1.0, 2.0} for d in diffs)  # +-1: a rollout cut at max_steps
        if chosen != default:
            assert sum(diffs[moves.index(chosen)]) > 0
    for default, chosen, (moves, diffs), _ in seen:  # the halving keeps the default; it chooses a survivor
        most = max(len(d) for d in diffs)
        assert len(diffs[moves.index(default)]) == len(diffs[moves.index(chosen)]) == most
    assert any(len({len(d) for d in diffs}) > 1 for _, _, (_, diffs), _ in seen)


# ---------------------------------------------------------------------- the paired test
def test_paired_test_keeps_the_default_unless_a_gain_clears_z_standard_errors():
    """A move replaces the default only if its mean gain exceeds z standard errors (and margin)."""
    noisy = [1.0, -1.0, 1.0, -1.0, 1.0, 0.0]  # mean 1/6, standard error ~0.40
    steady = [0.5, 0.5, 0.5, 0.5, 0.5, 0.4]   # mean ~0.48, standard error ~0.02
    assert search.paired_choice([None, noisy], 0, 0.0, 2.0) == 0
    assert search.paired_choice([None, noisy], 0, 0.0, 0.3) == 1
    assert search.paired_choice([[0.0] * 6, steady], 0, 0.0, 2.0) == 1
    assert search.paired_choice([[0.0] * 6, steady], 0, 0.5, 2.0) == 0  # below the margin
    assert search.paired_choice([[0.0] * 6, [-0.5] * 6], 0, 0.0, 0.0) == 0  # a loss never replaces it


def test_paired_test_tries_only_the_best_mean_gain():
    """The move with the largest mean gain is the one tested (the first of equals); a move no
    longer compared (None) is skipped, and a sure smaller gain does not win over it."""
    sure_small = [0.2] * 8
    big_noisy = [2.0, -1.0] * 4  # mean 0.5, too noisy for z = 2
    assert search.paired_choice([None, sure_small, big_noisy], 0, 0.0, 2.0) == 0
    assert search.paired_choice([None, sure_small, None], 0, 0.0, 2.0) == 1
    assert search.paired_choice([None, sure_small, list(sure_small)], 0, 0.0, 2.0) == 1


def test_paired_rollouts_share_the_deal_and_the_random_numbers():
    """Every move is played on its own copy of the state with the same generator: equal moves
    have equal outcomes, the state is unchanged, and the seed alone decides each outcome."""
    rules = make_rules("classic")
    engine = Engine(rules, 3)
    policy = RolloutPolicy(engine)

    def rollout(s):
        while not s.game_over:
            engine.step(s, policy(s, engine.legal_actions(s)))
        return float(s.winner)

    for seed in range(5):
        base = engine.new_state(np.random.default_rng(seed))
        legal = engine.legal_actions(base)
        before = copy.deepcopy(base)
        moves = [legal[0], legal[-1], legal[0], legal[-1]]
        out = search.play_each(engine, base, moves, 1234 + seed, rollout)
        assert out[0] == out[2] and out[1] == out[3]
        assert out == search.play_each(engine, base, moves, 1234 + seed, rollout)
        assert repr(base.hands) == repr(before.hands) and list(base.draw_pile) == list(before.draw_pile)
        assert base.steps == before.steps


# ---------------------------------------------------------------------- opponents modelled as random
@pytest.mark.parametrize("preset,num_players", [("classic", 4), ("house", 3), ("classic-stacking-jumpin", 3),
                                                ("tmnt", 2)])
def test_random_rollout_policy_is_the_random_bot_on_the_state(preset, num_players):
    """With the same coins, the policy on the engine state and the ``random`` bot on the
    observation pick the same move in every decision of whole games (every phase)."""
    rules = make_rules(preset, uno_call="explicit")
    engine = Engine(rules, num_players)
    encoder = ObservationEncoder(engine)
    policy, bot = RandomRolloutPolicy(), RandomAgent(rules, num_players)
    phases = Counter()
    for seed in range(4):
        s = engine.new_state(np.random.default_rng(seed))
        while not s.game_over and s.steps < 3000:
            legal = engine.legal_actions(s)
            coins = seed * 10_000 + s.steps
            policy.seed(coins)
            bot.py = random.Random(coins)
            a = policy(s, legal)
            assert a == bot.act(encoder.encode(s, s.actor), legal_mask(legal))
            if len(legal) > 1:
                phases[s.phase] += 1
            engine.step(s, a)
    assert len(phases) >= 3  # turns, drawn cards, colours or windows: not one phase only


class _Seats:
    """A rollout policy that notes the seats it plays."""

    def __init__(self, inner, seen):
        self.inner, self.seen = inner, seen

    def seed(self, value):
        self.inner.seed(value)

    def __call__(self, s, legal):
        self.seen.add(s.actor)
        return self.inner(s, legal)


@pytest.mark.parametrize("opponents", ["heuristic", "random"])
def test_rollout_opponents_play_every_seat_but_mine(opponents):
    """Seat 0 of every rollout (the searching player) is played by the heuristic's ranking,
    the other seats by the opponents' policy: the random bot's with ``opponents=random``, the
    ranking itself with ``opponents=heuristic``."""
    rules = make_rules("classic")
    bot = SearchAgent(rules, 4, 3, {"simulations": 8, "opponents": opponents})
    assert isinstance(bot.policy, RolloutPolicy)
    if opponents == "random":
        assert isinstance(bot.opponent_policy, RandomRolloutPolicy)
    else:
        assert bot.opponent_policy is bot.policy
    mine, others = set(), set()
    bot.policy = _Seats(bot.policy, mine)
    bot.opponent_policy = _Seats(bot.opponent_policy, others)
    play_game(Engine(rules, 4), [bot] + [RandomAgent(rules, 4, seed=i) for i in range(3)], np.random.default_rng(5))
    assert bot.stats["searched"] > 0
    assert (mine, others) == ({0}, {1, 2, 3})


@pytest.mark.parametrize("rollouts", ["policy", "agents"])
def test_rollouts_against_random_opponents_are_a_function_of_the_deal_its_generator_and_the_coins(rollouts):
    rules = make_rules("house")
    bot = SearchAgent(rules, 3, 0, {"simulations": 8, "opponents": "random", "rollouts": rollouts})
    outcomes = []
    for seed in range(6):
        base = bot.engine.new_state(np.random.default_rng(seed))
        for coins in (7, 8):
            twice = []
            for _ in range(2):
                s = base.clone(rng=np.random.default_rng(100 + seed))
                twice.append(bot._rollout(s, coins=coins))
            assert twice[0] == twice[1]
            outcomes.append(twice[0])
    assert len(set(outcomes)) > 1  # not a constant
    assert outcomes[0::2] != outcomes[1::2]  # the coins play: other coins, other games


def test_every_move_compared_on_a_deal_meets_the_same_opponents_coins(monkeypatch):
    """The search rolls each move out with the coins seeded by the deal's seed, whatever the
    move itself drew from the deal's generator (a reshuffle, a random pick)."""
    real, calls = search.agent.play_each, []

    def spy(engine, base, moves, seed, rollout):
        coins = []
        out = real(engine, base, moves, seed, lambda s: coins.append(rollout.keywords["coins"]) or rollout(s))
        calls.append((seed, coins))
        return out

    monkeypatch.setattr(search.agent, "play_each", spy)
    rules = make_rules("classic")
    bot = SearchAgent(rules, 4, 1, {"simulations": 8, "opponents": "random"})
    play_game(Engine(rules, 4), [bot] + [RandomAgent(rules, 4, seed=i) for i in range(3)], np.random.default_rng(9))
    assert calls and all(len(coins) >= 2 and set(coins) == {seed} for seed, coins in calls)
    assert len({seed for seed, _ in calls}) > 1


def test_search_against_random_opponents_plays_legal_games_in_every_ruleset():
    for preset, n in (("classic", 4), ("house", 3), ("tmnt", 2)):
        rules = make_rules(preset, uno_call="explicit", max_steps=300)
        for spec in (FAST + ",opponents=random", FAST + ",opponents=random,rollouts=agents"):
            agents = [make_agent(spec, rules, n, seed=i) for i in range(n)]
            play_game(Engine(rules, n), agents, np.random.default_rng(2))  # raises on an illegal answer
            assert sum(a.stats["searched"] for a in agents) > 0


# ---------------------------------------------------------------------- the package
def test_package_docstring_names_every_module():
    """The spec's table of modules (package docstring) lists exactly the package's modules."""
    modules = {os.path.splitext(f)[0] for f in os.listdir(os.path.dirname(search.__file__))
               if f.endswith(".py") and f != "__init__.py"}
    table = search.__doc__.split("**Modules.**", 1)[1]
    assert set(re.findall(r"^``(\w+)``", table, re.M)) == modules
