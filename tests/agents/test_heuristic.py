"""The ``heuristic`` bot: its weights (:class:`HeuristicWeights`) and the behaviour its
docstring describes, from stacked decks.

* Weights: a frozen dataclass; specs ``heuristic:key=value,...``; an unknown key, a missing
  or non-numeric value or a key given twice is a ``ValueError`` naming it.
* Card ranking Draw Two > Skip > number > Reverse; wilds held while it has enough other
  cards (``hold_wild``); a bluffed Wild Draw Four against a player about to go out
  (``bluff``); the colour the next player is believed to lack (its :class:`Beliefs`).
* ``reset`` forgets everything the beliefs remembered: a reset agent plays like a new one.
(Challenges, UNO calls, catches, jump-ins and offers: ``test_bots.py``.)
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from helpers import CLASSIC_COLORS, P, make_env

from uno_env.agents import make_agent
from uno_env.agents.heuristic import DEFAULT_PARAMS, FIELD_NAMES, HeuristicAgent, HeuristicWeights
from uno_env.agents.view import decode
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import make_rules

RED, BLUE = CLASSIC_COLORS.index("red"), CLASSIC_COLORS.index("blue")


# ---------------------------------------------------------------------- weights
def test_spec_overrides_the_named_weights_only():
    w = HeuristicWeights.from_spec("heuristic:hold_wild=3, bluff=0,")
    assert w.hold_wild == 3.0 and w.bluff == 0.0
    assert dataclasses.replace(w, hold_wild=HeuristicWeights().hold_wild, bluff=1) == HeuristicWeights()
    assert HeuristicWeights.from_spec("heuristic") == HeuristicWeights()
    bot = make_agent("heuristic:challenge=0.5", make_rules("classic"), 2, seed=0)
    assert isinstance(bot, HeuristicAgent) and bot.weights.challenge == 0.5


@pytest.mark.parametrize("spec,message", [
    ("heuristic:nonsense=1", "unknown heuristic parameter 'nonsense'"),
    ("heuristic:hold_wild=three", "'hold_wild' must be a number, got 'three'"),
    ("heuristic:hold_wild", "'hold_wild' has no value"),
    ("heuristic:bluff=", "'bluff' has no value"),
    ("heuristic:bluff=1,bluff=0", "'bluff' is given twice"),
    ("heuristic:challenge=nan", "'challenge' must be a finite number"),
    ("heuristic:attack=inf", "'attack' must be a finite number"),
])
def test_bad_spec_is_a_value_error_naming_it(spec, message):
    with pytest.raises(ValueError, match=message):
        HeuristicWeights.from_spec(spec)
    with pytest.raises(ValueError, match=message):
        make_agent(spec, make_rules("classic"), 2, seed=0)


def test_weights_are_frozen_and_validated():
    w = HeuristicWeights()
    with pytest.raises(dataclasses.FrozenInstanceError):
        w.bluff = 0
    with pytest.raises(ValueError, match="'hold_wild' must be a finite number, got '3'"):
        HeuristicWeights(hold_wild="3")
    with pytest.raises(ValueError, match="unknown heuristic parameter 'holdwild'"):
        HeuristicAgent(make_rules("classic"), 2, weights={"holdwild": 3})
    assert HeuristicAgent(make_rules("classic"), 2, weights={"hold_wild": 3}).weights.hold_wild == 3


def test_default_params_is_a_read_only_view_of_the_defaults():
    assert tuple(DEFAULT_PARAMS) == FIELD_NAMES
    assert dict(DEFAULT_PARAMS) == dataclasses.asdict(HeuristicWeights())
    with pytest.raises(TypeError):
        DEFAULT_PARAMS["bluff"] = 0


# ---------------------------------------------------------------------- behaviour
def decide(e, spec: str = "heuristic", seat: int = 0) -> str:
    """The name of the action the bot ``spec`` chooses for ``seat`` now."""
    assert e.agent_selection == P(seat)
    o = e.observe(P(seat))
    bot = make_agent(spec, e.rules, e.engine.n, seed=0)
    return e.action_names[bot.act(o["observation"], o["action_mask"])]


@pytest.mark.parametrize("hand,expected", [
    (["red-5", "red-draw2", "red-skip", "red-reverse"], "play red-draw2"),
    (["red-5", "red-skip", "red-reverse", "green-1"], "play red-skip"),
    (["red-5", "red-reverse", "green-1", "yellow-2"], "play red-5"),
])
def test_card_ranking_draw2_then_skip_then_number_then_reverse(hand, expected):
    e = make_env(3, {0: hand}, "red-3", hand_size=4)
    assert decide(e) == expected


@pytest.mark.parametrize("spec,plays_wild", [("heuristic", False), ("heuristic:hold_wild=5", True)])
def test_holds_a_wild_while_it_has_hold_wild_other_cards(spec, plays_wild):
    """Only a Wild is playable, with 4 other cards: it draws instead (hold_wild=4); with
    hold_wild=5 it plays the wild."""
    e = make_env(2, {0: ["wild", "green-1", "yellow-2", "blue-4", "green-6"]}, "red-3", hand_size=5)
    choice = decide(e, spec)
    assert choice.startswith("play wild ") if plays_wild else choice == "draw"


@pytest.mark.parametrize("spec,expected", [("heuristic", "play wild-draw4"), ("heuristic:bluff=0", "play red-5")])
def test_bluffs_a_wild_draw4_against_a_player_about_to_go_out(spec, expected):
    e = make_env(2, {0: ["red-5", "wild-draw4"], 1: ["red-9", "green-1"]}, "red-3", dealer=0, hand_size=2)
    e.step(e.action_id("play red-9"))  # seat 1 is down to one card
    assert decide(e, spec).startswith(expected)


@pytest.mark.parametrize("void", [RED, BLUE])
def test_plays_the_colour_the_next_player_is_believed_to_lack(void):
    """red-5 and blue-5 are alike in every other respect; the one whose colour the next
    player is believed to hold none of blocks it."""
    e = make_env(2, {0: ["red-5", "blue-5", "red-8", "blue-8"]}, "green-5", hand_size=4)
    o = e.observe(P(0))
    bot = make_agent("heuristic", e.rules, 2, seed=0)
    bot.beliefs.void = [[1.0 if c == void else 0.0 for c in range(C.NUM_COLORS)]]
    action = bot.decide(decode(o["observation"], o["action_mask"]))
    assert action == e.action_id(f"play {CLASSIC_COLORS[void]}-5")


def _game(agents, rules, seed: int) -> list[int]:
    engine = Engine(rules, len(agents))
    encoder = ObservationEncoder(engine)
    s = engine.new_state(np.random.default_rng(seed))
    actions = []
    while not s.game_over:
        p = s.actor
        a = agents[p].act(encoder.encode(s, p), A.legal_mask(engine.legal_actions(s)))
        engine.step(s, a)
        actions.append(a)
    return actions


@pytest.mark.parametrize("preset", ["classic", "tmnt"])
def test_reset_forgets_what_the_beliefs_remembered(preset):
    """After a game and ``reset(seed)``, a heuristic plays the next games exactly as a new
    heuristic with that seed (same opponents, same deals)."""
    rules = make_rules(preset)
    used = make_agent("heuristic", rules, 2, seed=1)
    _game([used, make_agent("random", rules, 2, seed=2)], rules, seed=0)
    assert used.beliefs.void is not None
    used.reset(seed=7)
    fresh = make_agent("heuristic", rules, 2, seed=7)
    for seed in (1, 2, 3):
        opponent = make_agent("random", rules, 2, seed=seed)
        again = make_agent("random", rules, 2, seed=seed)
        assert _game([used, opponent], rules, seed) == _game([fresh, again], rules, seed)
