"""Property tests over many seeded random games.

* Card conservation: after every step, hands + DRAW + DISCARD hold exactly the deck
  (checked by counts per card kind), and the engine's per-seat caches agree with the hands.
* Mask validity: after every step the mask of ``agent_selection`` is non-empty and equals
  the engine's legal actions; every other agent's mask is all zero; all zero once over.
* Legality: in every turn the legal plays equal a naive recomputation from card strings
  (colour, number or symbol match, wilds, the Wild Draw Four rule); the other phases offer
  exactly their documented actions.
* Rewards: every agent receives its reward through ``last()`` on its dead step; they sum to 0.
* Hidden information: an observation never changes when only hidden cards change (another
  player's unknown cards swapped with DRAW cards or with a third player's unknown cards,
  DRAW reordered), and neither does the observer's own mask; the public history blocks of
  layout 1 are compared on their own too (that they are built from public events only is
  tested in ``test_history.py``).

The default run plays a few hundred games; the ``slow`` variants play thousands.
"""

from __future__ import annotations


import numpy as np
import pytest

import uno_env
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import PHASE_NAMES

from helpers import assert_conserved, check_hidden, stacked_deck

PRESETS = ("classic", "tmnt")
PHASE = {name: i for i, name in enumerate(PHASE_NAMES)}
_BITS = np.int64(1) << np.arange(C.NUM_KINDS, dtype=np.int64)  # kind k -> bit k of `held`
PLAYER_COUNTS = tuple(range(2, 11))


def variant(seed: int) -> dict:
    """Rule options varied by seed (the presets' defaults most of the time)."""
    overrides = {}
    if seed % 2:
        overrides["uno_call"] = "explicit"
    if seed % 5 == 3:
        overrides["wd4_bluff"] = False
    if seed % 7 == 4:
        overrides["challenge"] = False
    if seed % 11 == 6:
        overrides.update(episode="game", target_score=150)
    if seed % 6 == 0:  # purely random play can hoard every card: keep those games short
        overrides["max_steps"] = 1500
    return overrides


def pick(rng: np.random.Generator, legal: list[int], greedy: bool) -> int:
    """A random legal action; a ``greedy`` player plays a card whenever it can (shorter games)."""
    if greedy:
        plays = [a for a in legal if a < A.DRAW or A.DISCARD <= a < A.ASK]
        if plays and rng.random() < 0.9:
            return plays[int(rng.integers(len(plays)))]
    return legal[int(rng.integers(len(legal)))]


def check_conservation(env) -> None:
    """Card conservation, and the engine's per-seat caches agree with the hands."""
    s = env.game_state
    assert_conserved(env, snapshot=False)
    assert (s.hands >= 0).all()
    assert list(s.hand_size) == s.hands.sum(axis=1).tolist()
    assert list(s.held) == ((s.hands > 0).astype(np.int64) @ _BITS).tolist()
    assert s.discard, "DISCARD never empty"


def check_masks(env) -> None:
    s = env.game_state
    sel = env.agent_selection
    for agent in env.agents:
        obs = env.observe(agent)
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (A.NUM_ACTIONS,)
        assert obs["observation"].dtype == np.float32 and (obs["observation"] >= 0).all()
        live = agent == sel and not s.game_over and not env.truncations[agent]
        if live:
            assert mask.any(), f"empty mask for {agent} in phase {s.phase}"
            assert np.flatnonzero(mask).tolist() == sorted(env.engine.legal_actions(s))
        else:
            assert not mask.any(), f"non-zero mask for {agent} (selected: {sel})"
    if not s.game_over and not env.truncations[sel]:
        assert env.possible_agents[s.actor] == sel


WILD_NAMES = ("wild", "wild-draw4", "team-attack", "from-the-sewers")


def check_legality(env) -> None:
    """The legal actions of the decision, recomputed naively from card strings (RULES.md 3)."""
    s, r = env.game_state, env.rules
    if s.game_over or env.truncations[env.agent_selection]:
        return
    legal = set(env.engine.legal_actions(s))
    explicit_uno = r.uno_call == "explicit" and s.hand_size[s.actor] == 2 and not s.uno_called[s.actor]
    if s.phase == PHASE["turn"] and not s.pending:
        hand = {env.card_names[k] for k in env.engine.hand_cards(s, s.actor)}
        color = env.colors[s.color]
        top = env.card_names[s.discard[-1]]
        top_face = None if top in WILD_NAMES else top.split("-", 1)[1]
        holds_color = any(c.split("-", 1)[0] == color for c in hand if c not in WILD_NAMES)
        expected = {"draw"} | ({"uno"} if explicit_uno else set())
        for card in hand:
            if card in WILD_NAMES:
                if card == "wild-draw4" and holds_color and not r.wd4_bluff:
                    continue
                expected |= {f"play {card} {c}" for c in env.colors}
            elif card.split("-", 1)[0] == color or card.split("-", 1)[1] == top_face:
                expected.add(f"play {card}")
        assert {env.action_names[a] for a in legal} == expected
    elif s.phase == PHASE["catch"]:
        assert legal == {A.PASS, A.CATCH} and s.actor != s.offender
    elif s.phase == PHASE["challenge"]:
        assert legal == {A.DRAW, A.CHALLENGE}
    elif s.phase == PHASE["color"]:
        assert legal == {A.COLOR + c for c in range(C.NUM_COLORS)}
    elif s.phase == PHASE["drawn"]:
        assert A.PASS in legal and all(a < A.DRAW for a in legal - {A.PASS, A.UNO})
        assert len({A.played_kind(a) for a in legal - {A.PASS, A.UNO}}) == 1
    elif s.phase == PHASE["discard"]:
        names = {env.action_names[a] for a in legal - {A.PASS, A.UNO}}
        assert A.PASS in legal and all(n.startswith("discard ") and n.split("-")[-1] in r.villain_faces
                                       for n in names)
    else:
        raise AssertionError(f"phase {s.phase} should not occur with {r.name} rules")


def play_game(rules: str, n: int, seed: int, hidden_check: bool = False, max_steps: int = 0) -> int:
    """One seeded random game with every check after every step; the number of steps.

    ``max_steps`` (if set) lowers the step limit, to bound the time of the default run.
    """
    overrides = variant(seed)
    if max_steps:
        overrides["max_steps"] = min(max_steps, overrides.get("max_steps", max_steps))
    env = uno_env.raw_env(rules=rules, num_players=n, **overrides)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed + 1000)
    greedy = seed % 6 != 0
    check_conservation(env)
    check_masks(env)
    steps = 0
    rewards = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        if term or trunc:
            rewards[agent] = reward
            env.step(None)
            continue
        legal = env.engine.legal_actions(env.game_state)
        env.step(pick(rng, legal, greedy))
        steps += 1
        check_conservation(env)
        check_masks(env)
        check_legality(env)
        if hidden_check:
            check_hidden(env, rng)
    assert set(rewards) == set(env.possible_agents)
    if env.game_state.game_over:
        winner = env.possible_agents[env.game_state.winner]
        assert rewards[winner] == 1.0
        assert all(r == pytest.approx(-1.0 / (n - 1)) for a, r in rewards.items() if a != winner)
        assert sum(rewards.values()) == pytest.approx(0.0)
    else:  # truncated at the step limit
        assert all(r == 0.0 for r in rewards.values())
    return steps


# ---------------------------------------------------------------------- tests
GAMES_PER_CASE = 12  # 2 presets x 9 player counts x 12 = 216 games by default
STEP_CAP = 2000  # default run: truncate long games (random play can hoard every card)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
@pytest.mark.parametrize("rules", PRESETS)
def test_card_conservation_and_mask_validity_in_random_games(rules, n):
    for seed in range(GAMES_PER_CASE):
        play_game(rules, n, seed, max_steps=STEP_CAP)


@pytest.mark.parametrize("n", [2, 3, 5, 10])
@pytest.mark.parametrize("rules", PRESETS)
def test_observation_unchanged_when_only_hidden_cards_change(rules, n):
    for seed in range(3):
        play_game(rules, n, 501 + seed, hidden_check=True, max_steps=STEP_CAP // 2)


@pytest.mark.parametrize("rules", PRESETS)
def test_stacked_decks_differing_in_hidden_cards_give_equal_observations(rules):
    """Two deals that differ only in seat 1's cards and the DRAW order look the same to seat 0."""
    colors = C.COLOR_SETS["tmnt" if rules == "tmnt" else "classic"]
    c0, c1, c2, c3 = colors
    p0 = [f"{c0}-1", f"{c1}-2", f"{c2}-3", f"{c3}-4", f"{c0}-skip", "wild", f"{c1}-9"]
    variants = [
        ({1: [f"{c2}-7", f"{c3}-8", "wild-draw4"]}, [f"{c0}-5", f"{c1}-6"]),
        ({1: [f"{c0}-5", f"{c3}-8", f"{c1}-6"]}, ["wild-draw4", f"{c2}-7"]),
    ]
    obs = []
    for hands, draw in variants:
        env = uno_env.raw_env(rules=rules, num_players=3)
        env.reset(seed=0, options={"deck": stacked_deck(rules, 3, 2, {0: p0, **hands}, f"{c0}-9", draw),
                                   "dealer": 2})
        assert env.snapshot()["hands"]["player_1"] != []
        o = env.observe("player_0")
        env.step(env.action_id(f"play {c0}-1"))  # a public move; seat 0's view afterwards too
        obs.append((o["observation"], o["action_mask"], env.observe("player_0")["observation"],
                    env.observe("player_2")["observation"]))
    for a, b in zip(*obs):
        assert (a == b).all()


@pytest.mark.slow
@pytest.mark.parametrize("n", PLAYER_COUNTS)
@pytest.mark.parametrize("rules", PRESETS)
def test_card_conservation_and_mask_validity_in_many_random_games_slow(rules, n):
    for seed in range(GAMES_PER_CASE, GAMES_PER_CASE + 150):
        play_game(rules, n, seed)


@pytest.mark.slow
@pytest.mark.parametrize("n", PLAYER_COUNTS)
@pytest.mark.parametrize("rules", PRESETS)
def test_observation_unchanged_when_only_hidden_cards_change_slow(rules, n):
    for seed in range(20):
        play_game(rules, n, 1000 + seed, hidden_check=True)
