"""The batched engine equals the scalar engine (the reference), game by game and step by step.

For the same generators (or stacked decks and dealers) and the same actions, every game of
a :class:`BatchedEngine` passes through exactly the states of ``Engine`` (every field of
``State``: hands, piles, top, colour, direction, phase, actor, pending penalty, windows'
queues and hidden answers, offers, UNO flags, known cards, public history, scores, winner,
step and turn counts), with the same legal actions, the same observation for every seat
(layouts 0 and 1), the same global state seen from every seat and the same RNG state (so the same reshuffles, jump-in picks and SEVEN
slaps), after every step. The default run plays a few games per preset (every one of
``PRESETS``), house option and player count and checks that the random play reached every
phase and rule it is meant to cover; the ``slow`` variants play many more, at 2-10 players.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from uno_env.game import actions as A  # noqa: E402
from uno_env.game import cards as C  # noqa: E402
from uno_env.game.batched import BatchedEngine, rng_words, state_dict  # noqa: E402
from uno_env.game.batched import pcg64 as R  # noqa: E402
from uno_env.game.engine import CATCH, CHALLENGE, COLOR, DISCARD, OVER, TURN, Engine  # noqa: E402
from collections import Counter  # noqa: E402

from uno_env.game import events as EV  # noqa: E402
from uno_env.game.engine import JUMP, OFFER, PENDING_SEWERS, PHASE_NAMES, TAKE  # noqa: E402
from uno_env.game.global_state import GlobalStateEncoder  # noqa: E402
from uno_env.game.observation import OBS_SIZE, V0_SIZE, ObservationEncoder  # noqa: E402
from uno_env.game.rules import MAX_COUNT, PRESETS, make_rules  # noqa: E402

from helpers import stacked_deck  # noqa: E402

VARIANTS = (
    {},
    {"wd4_bluff": False},
    {"challenge": False},
    {"episode": "game", "target_score": 150},
    {"episode": "rounds", "num_rounds": 2, "scoring": "alternative"},
    {"draw_rule": "until_playable", "winner_starts": True, "episode": "game", "target_score": 100},
    {"two_player_reverse_skips": False, "uno_penalty": 4},
)


def pick(rng: np.random.Generator, legal: list[int]) -> int:
    """A random legal action; plays a card 90% of the time it can (games of realistic length)."""
    plays = [a for a in legal if a < A.DRAW or A.DISCARD <= a < A.ASK]
    if plays and rng.random() < 0.9:
        return plays[int(rng.integers(len(plays)))]
    return legal[int(rng.integers(len(legal)))]


def assert_same(be: BatchedEngine, engine: Engine, encoder: ObservationEncoder, states, where: str,
                observe: bool = True) -> None:
    """Game b of ``be`` equals ``states[b]``: state, RNG, legal actions, every seat's observation
    (the first ``be.obs_size`` entries of the scalar encoder's: layout 0 or 1) and the global
    state seen from every seat (seat 0's: the absolute one)."""
    masks = be.legal_masks()
    obs = [be.observe(p) for p in range(be.n)] if observe else []
    global_states = [be.global_state(p) for p in range(be.n)] if observe else []
    state_encoder = GlobalStateEncoder(engine)
    width = be.obs_size
    returns, truncated = be.returns(), be.truncated()
    for b, s in enumerate(states):
        got, want = be.game_state(b), state_dict(s)
        if got != want:
            diff = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
            pytest.fail(f"{where}, game {b}: batched != scalar in {diff}")
        assert be.rng_state(b) == s.rng.bit_generator.state, f"{where}, game {b}: RNG streams differ"
        assert returns[b].tolist() == engine.returns(s), f"{where}, game {b}: returns differ"
        assert truncated[b] == engine.truncated(s), f"{where}, game {b}: truncation differs"
        legal = [] if s.game_over else engine.legal_actions(s)
        assert np.flatnonzero(masks[b]).tolist() == legal, f"{where}, game {b}: legal actions differ"
        for p in range(be.n if observe else 0):
            np.testing.assert_array_equal(obs[p][b], encoder.encode(s, p)[:width],
                                          err_msg=f"{where}, game {b}, seat {p}")
            np.testing.assert_array_equal(global_states[p][b], state_encoder.encode(s, p),
                                          err_msg=f"{where}, game {b}, global state from seat {p}")
        if observe:
            np.testing.assert_array_equal(global_states[0][b], state_encoder.encode(s),
                                          err_msg=f"{where}, game {b}, global state")


def _covered(s, t: int, seen: Counter) -> None:
    """Count what the scalar state ``s`` went through since event ``t``: event kinds by name,
    the phase it is in, SEVEN slaps (a penalty right after a Seven was played or turned up)."""
    seen["phase:" + PHASE_NAMES[s.phase]] += 1
    if s.pending_kind == PENDING_SEWERS:
        seen["pending:sewers"] += 1
    if s.phase == TURN and s.pending:  # a turn facing a penalty: it may stack on it
        seen["pending:stacked"] += 1
    for before, e in zip(s.events[max(t - 1, 0):], s.events[max(t, 1):]):
        seen[EV.EVENT_NAMES[e.kind]] += 1
        if e.kind == EV.PENALTY and before.kind in (EV.PLAYED, EV.JUMPED_IN, EV.DEALT) \
                and 0 <= before.card < C.NUM_COLORED and before.card % C.NUM_FACES == C.FACE_SEVEN:
            seen["seven_slap"] += 1


def play_both(rules, n: int, games: int, seed: int, max_steps: int = 400, decks=None, dealers=None,
              observe: bool = True, layout: int = 1) -> Counter:
    """Play ``games`` random games in both engines side by side, comparing after every step;
    what was covered (``decisions`` compared, event names, ``phase:<name>``, see ``_covered``)."""
    engine = Engine(rules, n, record_events=True)  # events change nothing but state.events
    encoder = ObservationEncoder(engine)
    be = BatchedEngine(rules, n, games, layout=layout)
    seeds = [seed * 10_000 + g for g in range(games)]
    be.reset(seeds=seeds, decks=decks, dealers=dealers)
    decks = decks or [None] * games
    dealers = dealers if dealers is not None else [None] * games
    states = [engine.new_state(np.random.default_rng(s), deck=d, dealer=dl)
              for s, d, dl in zip(seeds, decks, dealers)]
    policy = np.random.default_rng(seed)
    assert_same(be, engine, encoder, states, "after the deal", observe)
    seen: Counter = Counter()
    for s in states:
        _covered(s, 0, seen)
    for t in range(max_steps):
        if be.game_over.all():
            break
        actions = np.zeros(games, np.int64)
        for b, s in enumerate(states):
            if not s.game_over:
                actions[b] = pick(policy, engine.legal_actions(s))
                before = len(s.events)
                engine.step(s, int(actions[b]))
                seen["decisions"] += 1
                _covered(s, before, seen)
        be.step(actions)
        assert_same(be, engine, encoder, states, f"step {t}", observe)
    return seen


@pytest.mark.parametrize("preset", ["classic", "tmnt"])
@pytest.mark.parametrize("uno_call", ["auto", "explicit"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_pass_through_the_scalar_engines_states(preset, uno_call, n):
    for i in (n % len(VARIANTS), (n + 3) % len(VARIANTS)):  # two option sets per case
        rules = make_rules(preset, uno_call=uno_call, **VARIANTS[i])
        assert play_both(rules, n, games=4, seed=100 * n + i, max_steps=120)["decisions"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["classic", "tmnt"])
@pytest.mark.parametrize("uno_call", ["auto", "explicit"])
@pytest.mark.parametrize("n", range(2, 11))
def test_many_random_games_pass_through_the_scalar_engines_states(preset, uno_call, n):
    for i, variant in enumerate(VARIANTS):
        rules = make_rules(preset, uno_call=uno_call, **variant)
        play_both(rules, n, games=12, seed=1000 * n + i, max_steps=2000, observe=(i == 0))


# ---------------------------------------------------------------------- every preset and house option
# each house option on the classic deck, with what random play must show it did (``_covered``)
HOUSE_OPTIONS = {
    "stacking": ({"stacking": True}, "pending:stacked"),
    "stacking-last-no-bluff": ({"stacking": True, "stacked_challenge": "last", "wd4_bluff": False},
                               "pending:stacked"),
    "jump_in": ({"jump_in": True}, "jumped_in"),
    "jump_in-first-explicit": ({"jump_in": True, "jump_in_random_pick": False, "uno_call": "explicit"},
                               "jumped_in"),
    "seven_slap": ({"seven_slap": True}, "seven_slap"),
    "seven_slap-next": ({"seven_slap": True, "seven_slap_random": False}, "seven_slap"),
    "giving": ({"giving": True}, "took"),
    "sewers": ({"count_sewers": 8}, "revealed"),  # the cards drawn for a SEWERS are shown
    "sewers-stacking-jump_in": ({"count_sewers": 8, "stacking": True, "jump_in": True}, "pending:sewers"),
}
# every house option at once on a deck small enough to reshuffle in a short game
SMALL_HOUSE = {"count_zero": 1, "count_number": 2, "count_draw2": 2, "count_reverse": 2, "count_skip": 2,
               "count_wild": 4, "count_wild_draw4": 4, "count_sewers": 6}


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("n", [2, 4])
def test_every_preset_passes_through_the_scalar_engines_states(preset, n):
    seen = play_both(make_rules(preset), n, games=3, seed=7 * n, max_steps=150)
    assert seen["round_over"] > 0  # a game played to its end


@pytest.mark.parametrize("option,shows", HOUSE_OPTIONS.values(), ids=HOUSE_OPTIONS.keys())
@pytest.mark.parametrize("n", [2, 4])
def test_each_house_option_passes_through_the_scalar_engines_states(option, shows, n):
    seen = play_both(make_rules("classic", **option), n, games=6, seed=11 * n, max_steps=150)
    assert seen[shows] > 0, f"random play never showed {shows!r}: {dict(seen)}"


def test_house_rules_on_a_small_deck_reach_every_window_and_reshuffle():
    rules = make_rules("house", **SMALL_HOUSE)
    seen = Counter()
    for n, seed in ((2, 1), (4, 2), (10, 3)):
        seen += play_both(rules, n, games=3, seed=seed, max_steps=200)
    for shows in ("phase:jump", "phase:offer", "phase:take", "phase:challenge", "phase:color",
                  "pending:stacked", "pending:sewers", "seven_slap", "reshuffled", "round_over"):
        assert seen[shows] > 0, f"random play never showed {shows!r}: {dict(seen)}"


def test_ten_players_of_the_house_preset_pass_through_the_scalar_engines_states():
    assert play_both(make_rules("house", uno_call="explicit"), 10, games=2, seed=5, max_steps=150)["decisions"] > 0


@pytest.mark.parametrize("n", [2, 4])
def test_layout_0_observations_are_the_prefix_of_the_scalar_encoders(n):
    assert play_both(make_rules("house"), n, games=2, seed=n, max_steps=60, layout=0)["decisions"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("uno_call", ["auto", "explicit"])
@pytest.mark.parametrize("n", range(2, 11))
def test_long_random_games_of_every_preset_pass_through_the_scalar_engines_states(preset, uno_call, n):
    for small in (False, True):
        rules = make_rules(preset, uno_call=uno_call, **(SMALL_HOUSE if small and preset == "house" else {}))
        play_both(rules, n, games=6, seed=100 * n + small, max_steps=1500, observe=small)


@pytest.mark.slow
@pytest.mark.parametrize("option,shows", HOUSE_OPTIONS.values(), ids=HOUSE_OPTIONS.keys())
@pytest.mark.parametrize("n", [2, 3, 5, 10])
def test_long_random_games_of_each_house_option_pass_through_the_scalar_engines_states(option, shows, n):
    for i, variant in enumerate(VARIANTS):
        play_both(make_rules("classic", **{**variant, **option}), n, games=4, seed=1000 * n + i, max_steps=1000,
                  observe=(i == 0))


# ---------------------------------------------------------------------- stacked decks
def _stacked(preset, n, dealer, hands, first, draw_top=(), **overrides):
    rules = make_rules(preset, hand_size=overrides.pop("hand_size", 3), **overrides)
    names = C.card_names(rules.color_names)
    deck = stacked_deck(rules, n, dealer, hands, first, list(draw_top))
    return rules, [names.index(c) for c in deck]


STACKED = [
    # first card effects (RULES.md 2.3): wild (colour choice), draw2, skip, reverse
    ("classic", 2, 1, {}, "wild", (), {}),
    ("classic", 3, 2, {}, "red-draw2", (), {}),
    ("classic", 3, 0, {}, "blue-skip", (), {}),
    ("classic", 4, 3, {}, "green-reverse", (), {}),
    ("classic", 2, 0, {}, "yellow-reverse", (), {"two_player_reverse_skips": False}),
    # a first Wild Draw Four goes back and the DRAW pile is reshuffled
    ("classic", 2, 1, {}, "wild-draw4", (), {}),
    # Wild Draw Four challenges: guilty (holds red) and innocent
    ("classic", 2, 1, {0: ["wild-draw4", "red-1", "blue-2"], 1: ["green-3", "green-4", "green-5"]},
     "red-7", (), {}),
    ("classic", 2, 1, {0: ["wild-draw4", "blue-1", "blue-2"], 1: ["green-3", "green-4", "green-5"]},
     "red-7", (), {}),
    # Team Attack with villains to discard (tmnt), the catch window of explicit UNO
    ("tmnt", 3, 2, {0: ["team-attack", "blue-1", "orange-2", "red-3"]}, "blue-9", (),
     {"hand_size": 4}),
    ("tmnt", 2, 1, {0: ["team-attack", "blue-1"]}, "blue-9", (), {"hand_size": 2}),
    ("classic", 3, 2, {0: ["red-1", "red-2"], 1: ["blue-1", "blue-2"]}, "red-5", (),
     {"hand_size": 2, "uno_call": "explicit"}),
    ("tmnt", 2, 1, {0: ["team-attack", "blue-1", "red-2"]}, "team-attack", (),
     {"hand_size": 3, "uno_call": "explicit"}),
]


@pytest.mark.parametrize("case", STACKED, ids=[f"{c[0]}-{c[1]}p-{c[4]}-{i}" for i, c in enumerate(STACKED)])
def test_stacked_decks_pass_through_the_scalar_engines_states(case):
    preset, n, dealer, hands, first, draw_top, overrides = case
    rules, deck = _stacked(preset, n, dealer, hands, first, draw_top, **overrides)
    # several random continuations of the same deal
    play_both(rules, n, games=4, seed=n, decks=[deck] * 4, dealers=[dealer] * 4, max_steps=60)


def test_a_first_wild_draw_four_stays_when_only_wild_draw_fours_are_left():
    # 8 players x 13 cards = 104 dealt: the 4 cards left are the Wild Draw Fours
    rules = make_rules("classic", hand_size=13)
    names = C.card_names(rules.color_names)
    others = [names[k] for k in range(C.NUM_KINDS) for _ in range(rules.deck_counts()[k]) if k != C.WILD_DRAW4]
    deck = others + ["wild-draw4"] * 4
    kinds = [names.index(c) for c in deck]
    be = BatchedEngine(rules, 8, 1)
    be.reset(seeds=[0], decks=[kinds], dealers=[7])
    assert be.phase[0] == COLOR and be.actor[0] == 0
    be.step(np.array([A.COLOR + 2]))
    # seat 0 takes the Draw Four (three are left to draw), then seat 1 plays
    assert be.hand_size[0, 0] == 16 and be.actor[0] == 1 and be.phase[0] == TURN
    play_both(rules, 8, games=2, seed=3, decks=[kinds] * 2, dealers=[7, 7], max_steps=60)


def test_challenge_of_a_guilty_wild_draw_four_makes_the_player_draw_and_shows_the_hand():
    rules, deck = _stacked("classic", 2, 1, {0: ["wild-draw4", "red-1", "blue-2"]}, "red-7")
    be = BatchedEngine(rules, 2, 1)
    be.reset(seeds=[0], decks=[deck], dealers=[1])
    be.step(np.array([A.play_action(C.WILD_DRAW4, 3)]))
    assert be.phase[0] == CHALLENGE and be.actor[0] == 1
    be.step(np.array([A.CHALLENGE]))
    assert be.hand_size[0, 0] == 6 and be.hand_size[0, 1] == 3  # the guilty player drew 4
    assert be.known[0, 1, 0].sum() == 2  # the challenger saw red-1 and blue-2
    assert be.actor[0] == 1 and be.phase[0] == TURN


def test_team_attack_lets_the_player_discard_villains_under_the_top_card():
    rules, deck = _stacked("tmnt", 2, 1, {0: ["team-attack", "blue-1", "orange-2", "red-5"]}, "blue-9",
                           hand_size=4)
    be = BatchedEngine(rules, 2, 1)
    be.reset(seeds=[0], decks=[deck], dealers=[1])
    be.step(np.array([A.play_action(C.TEAM_ATTACK, 0)]))
    assert be.phase[0] == DISCARD
    names = C.card_names(rules.color_names)
    blue1 = names.index("blue-1")
    assert set(be.legal_actions(0)) == {A.PASS, A.DISCARD + blue1, A.DISCARD + names.index("orange-2")}
    be.step(np.array([A.DISCARD + blue1]))
    top = be.game_state(0)["discard"]
    assert top[-1] == C.TEAM_ATTACK and top[-2] == blue1


def test_catch_window_asks_every_other_player_and_the_caught_player_draws():
    rules, deck = _stacked("classic", 3, 2, {0: ["red-1", "red-2"]}, "red-5", hand_size=2, uno_call="explicit")
    be = BatchedEngine(rules, 3, 1)
    be.reset(seeds=[0], decks=[deck], dealers=[2])
    be.step(np.array([A.play_action(names_index(rules, "red-1"))]))  # no UNO call
    assert be.phase[0] == CATCH and be.actor[0] == 1
    be.step(np.array([A.PASS]))
    assert be.phase[0] == CATCH and be.actor[0] == 2
    be.step(np.array([A.CATCH]))
    assert be.hand_size[0, 0] == 3 and be.phase[0] == TURN and be.actor[0] == 1


def names_index(rules, card: str) -> int:
    return C.card_names(rules.color_names).index(card)


# ---------------------------------------------------------------------- RNG
@pytest.mark.parametrize("seed", range(20))
def test_pcg64_streams_equal_numpys_generator(seed):
    gen = np.random.default_rng(seed)
    words = R.words_from_generator(gen)[None].copy()
    sizes = np.random.default_rng(seed + 99).integers(1, 120, 30)
    for m in sizes:
        if m % 3:
            ref = list(range(m))
            gen.shuffle(ref)
            arr = np.arange(m, dtype=np.int64)[None].copy()
            R.shuffle(arr, 0, int(m), words)
            assert arr[0].tolist() == ref
        else:
            high = int(m % 10) + 1
            assert R.bounded(words, 0, high) == int(gen.integers(high))
        assert R.generator_state(words[0]) == gen.bit_generator.state


def test_reset_without_seeds_continues_each_games_stream_like_a_scalar_env():
    rules = make_rules("classic")
    engine = Engine(rules, 2)
    be = BatchedEngine(rules, 2, 2)
    gens = [np.random.default_rng(5), np.random.default_rng(6)]
    be.reset(seeds=[5, 6])
    states = [engine.new_state(g) for g in gens]
    be.reset()  # a second episode from the same streams
    states = [engine.new_state(g) for g in gens]
    for b in range(2):
        assert be.game_state(b) == state_dict(states[b])


# ---------------------------------------------------------------------- API and errors
def test_the_compared_form_holds_every_field_of_the_scalar_state():
    # a State field missing from state_dict / game_state would go unchecked by the lockstep tests
    import dataclasses

    from uno_env.game.engine import State

    fields = {f.name for f in dataclasses.fields(State)} - {"n", "rng", "legal_cache", "events"}
    s = Engine(make_rules("house"), 3).new_state(np.random.default_rng(0))
    be = BatchedEngine("house", 3, 1)
    be.reset(seeds=[0])
    assert set(state_dict(s)) == fields and set(be.game_state(0)) == fields


def test_the_card_arrays_hold_every_deck_a_ruleset_can_name():
    # hands, piles and counts are int8: every count a Rules may give (MAX_COUNT) must fit
    assert MAX_COUNT <= np.iinfo(np.int8).max


def test_an_unknown_observation_layout_is_refused():
    with pytest.raises(ValueError, match=r"layout must be an observation layout version \[0, 1\], got 2"):
        BatchedEngine("classic", 2, 2, layout=2)


def test_illegal_action_is_refused_and_no_game_changes():
    be = BatchedEngine("classic", 2, 3)
    be.reset(seeds=[1, 2, 3])
    before = [be.game_state(b) for b in range(3)]
    actions = np.array([be.legal_actions(b)[0] for b in range(3)])
    actions[1] = A.CATCH
    with pytest.raises(ValueError, match="illegal action 72 .*game 1"):
        be.step(actions)
    assert [be.game_state(b) for b in range(3)] == before


def test_a_step_the_caller_checked_plays_as_a_checked_step():
    # step(checked=True) (the vector env, which checked the actions against its masks) skips
    # only the legality scan: the same legal actions leave every game in the same state
    engines = [BatchedEngine("house", 3, 4), BatchedEngine("house", 3, 4)]
    for be in engines:
        be.reset(seeds=[5, 6, 7, 8])
    rng = np.random.default_rng(0)
    for _ in range(200):
        live = ~engines[0].game_over
        if not live.any():
            break
        actions = np.array([rng.choice(engines[0].legal_actions(b)) if live[b] else 0 for b in range(4)])
        engines[0].step(actions, active=live)
        engines[1].step(actions, active=live, checked=True)
        assert [engines[0].game_state(b) for b in range(4)] == [engines[1].game_state(b) for b in range(4)]


@pytest.mark.parametrize("bad", [dict(batch_size=0), dict(batch_size=True), dict(num_players=1),
                                 dict(num_players=11)])
def test_bad_sizes_are_refused(bad):
    kwargs = {"rules": "classic", "num_players": 2, "batch_size": 2, **bad}
    with pytest.raises(ValueError):
        BatchedEngine(**kwargs)


def test_bad_reset_arguments_are_refused():
    be = BatchedEngine("classic", 2, 2)
    with pytest.raises(ValueError, match="seeds must hold one entry per game"):
        be.reset(seeds=[1])
    with pytest.raises(ValueError, match="deck is not the 'classic' deck"):
        be.reset(decks=[[0] * 108, None])
    with pytest.raises(ValueError, match="dealer must be a seat"):
        be.reset(dealers=5)
    with pytest.raises(ValueError, match="actions must be integer ids"):
        be.reset(seeds=[1, 2]) is None or be.step(np.zeros(3, np.int64))


def engine_state(be) -> list:
    return [a.tolist() for a in be.st]


BAD_RESETS = {  # reset(...) of 3 games: what the error names
    "float seed": (dict(seeds=[1, 1.5, 3]), r"seeds\[1\] must be an integer >= 0 .*got 1\.5 \(float\)"),
    "numpy float seed": (dict(seeds=[np.float64(2.0), 2, 3]), r"seeds\[0\] .*2\.0.*\(float64\)"),
    "negative seed": (dict(seeds=[1, 2, -1]), r"seeds\[2\] .*got -1 \(int\)"),
    "string seed": (dict(seeds=["3", 2, 1]), r"seeds\[0\] .*got '3' \(str\)"),
    "bool seed": (dict(seeds=[1, True, 2]), r"seeds\[1\] .*got True \(bool\)"),
    "float entropy": (dict(seeds=[[1, 2.5], 2, 3]), r"seeds\[0\] .*got \[1, 2\.5\] \(list\)"),
    "seeds not a sequence": (dict(seeds=5), "seeds must be a sequence"),
    "not a Generator": (dict(rngs=[np.random.default_rng(0), 5, None]), "expected a numpy Generator, got int"),
    "float dealer": (dict(dealers=1.5), r"dealers must be integers, got \[1\.5, 1\.5, 1\.5\]"),
    "bool dealer": (dict(dealers=[0, True, 1]), "dealers must be integers, got a bool"),
    "dealer out of range": (dict(dealers=[0, 1, 2]), r"dealer must be a seat in 0\.\.1"),
    "float deck": (dict(decks=[None, [0.5] * 108, None]), r"decks \(game 1: card kinds\) must be integers"),
    "deck of strings": (dict(decks=[None, None, ["red-1"] * 108]), "must be integers"),
    "deck of lists": (dict(decks=[None, [[0]] * 108, None]), r"must be lists of card kinds, got shape \(108, 1\)"),
}


@pytest.mark.parametrize("kwargs,named", BAD_RESETS.values(), ids=BAD_RESETS.keys())
def test_bad_reset_inputs_are_value_errors_naming_them_and_change_no_game(kwargs, named):
    be = BatchedEngine("classic", 2, 3)
    be.reset(seeds=[7, 8, 9])
    be.step(np.array([be.legal_actions(b)[0] for b in range(3)]))
    before = engine_state(be)
    if "rngs" not in kwargs:  # good seeds with a bad deck or dealer: no stream is written either
        kwargs = {"seeds": [4, 5, 6], **kwargs}
    with pytest.raises(ValueError, match=named):
        be.reset(**kwargs)
    assert engine_state(be) == before


def test_float_seeds_are_a_value_error_not_a_type_error():
    be = BatchedEngine("classic", 2, 2)
    with pytest.raises(ValueError, match="seeds"):
        be.reset(seeds=[0.0, 1.0])


def test_seeds_take_numpy_integers_and_entropy_lists_as_default_rng_does():
    def dealt(**kwargs):
        be = BatchedEngine("classic", 2, 3)
        be.reset(**kwargs)
        return [be.game_state(b) for b in range(3)], [be.rng_state(b) for b in range(3)]

    gens = lambda *seeds: [np.random.default_rng(s) for s in seeds]  # noqa: E731
    assert dealt(seeds=np.array([5, 6, 7], np.uint32)) == dealt(rngs=gens(5, 6, 7))
    assert dealt(seeds=[[5, 0], [5, 1], np.int8(9)]) == dealt(rngs=gens([5, 0], [5, 1], 9))


BAD_CALLS = {  # a call on a batch of 2 games: what the error names
    "legal_actions of a game outside": (lambda be: be.legal_actions(2), r"game must be an integer in 0\.\.1, got 2"),
    "legal_actions of -1": (lambda be: be.legal_actions(-1), "game must be an integer in 0..1"),
    "legal_actions of 1.0": (lambda be: be.legal_actions(1.0), "game must be an integer"),
    "observe with float seats": (lambda be: be.observe(np.array([0.5, 1.0])), r"seats must be integers"),
    "observe with 3 seats": (lambda be: be.observe(np.array([0, 1, 0])), r"one per game \(2,\)"),
    "observe with seat 2": (lambda be: be.observe(2), r"seats must be in 0\.\.1"),
    "observe into a short out": (lambda be: be.observe(0, out=np.zeros((1, V0_SIZE), np.float32)),
                                 r"observe out must be a float32 array of shape \(2, 1254\), got float32 \(1, 1254\)"),
    "observe into float64": (lambda be: be.observe(0, out=np.zeros((2, V0_SIZE))), "float64"),
    "global_state with seat 2": (lambda be: be.global_state(2), r"seats must be in 0\.\.1"),
    "global_state into a short out": (lambda be: be.global_state(0, out=np.zeros((1, 807), np.float32)),
                                      r"global_state out must be a float32 array of shape \(2, 807\)"),
    "masks into a short out": (lambda be: be.legal_masks(out=np.zeros((2, 10), np.int8)),
                               r"legal_masks out must be a int8 array of shape \(2, 195\)"),
    "masks into a list": (lambda be: be.legal_masks(out=[0] * 390), "legal_masks out must be"),
    "a short prng": (lambda be: be.random_bot_actions(rng_words([1])), r"prng .* must be a uint64 array of shape \(2, 6\)"),
    "an int64 prng": (lambda be: be.uniform_actions(np.zeros((2, 6), np.int64)), r"uint64 array .*, got int64 \(2, 6\)"),
    "a prng list": (lambda be: be.random_bots_until(0, [[0] * 6] * 2), r"prng .* must be a uint64 array"),
    "float seats until": (lambda be: be.random_bots_until(0.5, rng_words([1, 2])), "seats must be integers"),
    "float actions": (lambda be: be.step(np.array([52.7, 18.0])), "actions must be integers, got array"),
}


@pytest.mark.parametrize("call,named", BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_bad_arguments_are_value_errors_before_any_kernel_runs(call, named):
    be = BatchedEngine("classic", 2, 2)
    be.reset(seeds=[1, 2])
    before = engine_state(be)
    with pytest.raises(ValueError, match=named):
        call(be)
    assert engine_state(be) == before


def test_stepping_a_finished_game_is_refused():
    be = BatchedEngine("classic", 2, 2)
    with pytest.raises(ValueError, match="is over"):
        be.step(np.zeros(2, np.int64), active=[0])


def test_returns_and_truncation_of_short_games():
    rules = make_rules("classic", hand_size=2, max_steps=8)
    be = BatchedEngine(rules, 3, 64)
    be.reset(seeds=range(64))
    prng = rng_words(range(64))
    for _ in range(40):
        live = ~be.game_over & ~be.truncated()
        if not live.any():
            break
        be.step(be.random_bot_actions(prng, active=live), active=live)
    ret = be.returns()
    over = be.game_over
    assert over.any() and (~over).any()
    assert np.allclose(ret[~over], 0.0)
    assert np.allclose(ret[over].sum(axis=1), 0.0)
    assert (ret[over, be.winner[over]] == 1.0).all()
    assert (be.truncated() == (~over & (be.steps >= 8))).all()


def test_random_bot_kernel_plays_a_card_whenever_it_can_on_its_turn():
    be = BatchedEngine("tmnt", 3, 256)
    be.reset(seeds=range(256))
    prng = rng_words(range(256))
    for _ in range(60):
        masks = be.legal_masks()
        acts = be.random_bot_actions(prng)
        live = ~be.game_over
        assert (masks[live, acts[live]] == 1).all()
        turn = live & (be.phase == TURN)
        can_play = masks[:, :A.DRAW].any(axis=1)
        assert (acts[turn & can_play] < A.DRAW).all()
        be.step(np.where(live, acts, 0))
        if be.game_over.any():
            be.reset(be.game_over)
    assert OVER not in be.phase[~be.game_over]


def test_the_state_of_a_game_fits_in_a_kilobyte():
    be = BatchedEngine("classic", 2, 10)
    assert all(len(a) == 10 for a in be.st)  # every state array is per game of the batch
    assert sum(a.nbytes for a in be.st) // 10 < 1024


def test_random_bots_until_stops_at_the_given_seat_and_equals_stepping_bot_by_bot():
    a, b = BatchedEngine("tmnt", 3, 64), BatchedEngine("tmnt", 3, 64)
    for e in (a, b):
        e.reset(seeds=range(64))
    pa, pb = rng_words(range(64)), rng_words(range(64))
    seats = np.arange(64) % 3
    a.random_bots_until(seats, pa)
    while True:  # the same, one decision at a time
        todo = ~b.game_over & (b.actor != seats) & (b.steps < b.rules.max_steps)
        if not todo.any():
            break
        b.step(b.random_bot_actions(pb, todo), active=todo)
    assert [a.game_state(i) for i in range(64)] == [b.game_state(i) for i in range(64)]
    live = ~a.game_over
    assert (a.actor[live] == seats[live]).all()


@pytest.mark.parametrize("bad,named", [
    ([True, 0], "actions must be integers, got a bool"),
    ((np.True_, 0), "actions must be integers, got a bool"),
    ([1.0, 0], "actions must be integers"),
    (np.array([1.0, 0.0]), "actions must be integers"),
    (["1", "0"], "actions must be integers"),
    (np.array([2 ** 64 - 1, 0], np.uint64), r"action 18446744073709551615 in game 0 is no action id \(0\.\.194\)"),
    (np.array([0, 195]), r"action 195 in game 1 is no action id"),
    (np.array([-1, 0]), r"action -1 in game 0 is no action id"),
])
def test_step_reads_actions_as_integers_never_cast_and_changes_no_game(bad, named):
    # numpy casts [True, 5] to [1, 5] and uint64 2**64-1 to int64 -1: the one input contract
    # (uno_env.game.inputs) refuses both, before any game moves
    be = BatchedEngine("classic", 2, 2)
    be.reset(seeds=[1, 2])
    before = engine_state(be)
    with pytest.raises(ValueError, match=named):
        be.step(bad)
    assert engine_state(be) == before


def test_an_action_of_a_game_left_out_is_not_read():
    be = BatchedEngine("classic", 2, 2)
    be.reset(seeds=[1, 2])
    actions = np.array([be.legal_actions(0)[0], -1])
    be.step(actions, active=np.array([True, False]))
    assert be.game_state(0)["steps"] == 1 and be.game_state(1)["steps"] == 0


@pytest.mark.parametrize("layout", [1.0, 0.0, np.float64(1), "1"])
def test_a_layout_that_is_not_an_integer_is_refused(layout):
    with pytest.raises(ValueError, match="layout must be an observation layout version"):
        BatchedEngine("classic", 2, 2, layout=layout)


def _choices_scalar_and_batched(rules, n, seed, moves, draws):
    """One state (``moves`` legal actions from a deal of ``seed``, the same in every game of a
    batch), then ``draws`` choices of the compiled ``uniform`` (one per game, each game its own
    stream) and ``draws`` of the scalar ``UniformAgent`` on that state's observation and mask."""
    from uno_env.agents import make_agent

    be = BatchedEngine(rules, n, draws, layout=1)
    be.reset(seeds=[seed] * draws)
    pick = np.random.default_rng(seed)
    for _ in range(moves):
        if be.game_over[0]:
            break
        legal = be.legal_actions(0)
        be.step(np.full(draws, legal[pick.integers(len(legal))]))
    batched = Counter(be.uniform_actions(rng_words(range(draws))).tolist())
    obs, mask = be.observe(be.actor)[0], be.legal_masks()[0]
    agent = make_agent("uniform", be.rules, n, seed=seed)
    scalar = Counter(agent.act(obs, mask) for _ in range(draws))
    return be.legal_actions(0), scalar, batched


@pytest.mark.parametrize("rules,n,seed,moves", [("classic", 2, 16, 0), ("classic", 2, 5, 7), ("house", 3, 17, 0),
                                                ("tmnt", 4, 11, 0), ("house", 3, 1, 12)])
def test_uniform_bot_and_its_kernel_choose_each_legal_action_equally_often(rules, n, seed, moves):
    draws = 6000
    legal, scalar, batched = _choices_scalar_and_batched(rules, n, seed, moves, draws)
    assert set(scalar) == set(batched) == set(legal)  # every legal action, nothing else
    expected = draws / len(legal)
    sigma = (draws * (1 / len(legal)) * (1 - 1 / len(legal))) ** 0.5
    for a in legal:  # each within 5 standard deviations of draws / (legal actions), in both
        assert abs(scalar[a] - expected) <= 5 * sigma and abs(batched[a] - expected) <= 5 * sigma, (a, scalar, batched)


def test_uniform_is_not_the_random_bot_it_draws_while_holding_a_playable_card():
    from uno_env.agents import make_agent

    be = BatchedEngine("classic", 2, 1)
    be.reset(seeds=[3])
    legal = be.legal_actions(0)
    assert A.DRAW in legal and any(a < A.DRAW for a in legal)  # a turn with a playable card
    obs, mask = be.observe(be.actor)[0], be.legal_masks()[0]
    uniform, random = make_agent("uniform", "classic", 2, seed=0), make_agent("random", "classic", 2, seed=0)
    assert A.DRAW in {uniform.act(obs, mask) for _ in range(200)}
    assert A.DRAW not in {random.act(obs, mask) for _ in range(200)}
