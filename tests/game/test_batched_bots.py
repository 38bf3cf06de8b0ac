"""The compiled ``greedy`` and ``heuristic`` bots decide as the scalar bots, decision for decision.

The scalar engine with the scalar bots (``GreedyAgent``, ``HeuristicAgent`` on the encoded
observation and action mask) and the batched engine with the kernels of
:mod:`uno_env.game.batched.bots` play the same deals side by side; every decision of every
bot seat must be the same action (greedy's ties drawn from the same Mersenne Twister stream,
so no distribution comparison is needed: both are exact). Seat 0 is sometimes a random
"learner" (the same random legal action in both engines) so that the bots also face states
they would not reach among themselves. The default run plays a few games per preset and
option mix at 2-4 players (and 10 once); the ``slow`` variants play whole games at 2, 3, 5, 7 and 10 players.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

pytest.importorskip("numba")

from uno_env.agents.base import make_agent  # noqa: E402
from uno_env.agents.heuristic import FIELD_NAMES, HeuristicWeights  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game.batched import BatchedEngine, state_dict  # noqa: E402
from uno_env.game.batched import bots as BK  # noqa: E402
from uno_env.game.batched import kernels as K  # noqa: E402
from uno_env.game.batched import rng_words  # noqa: E402
from uno_env.game.engine import PHASE_NAMES, Engine  # noqa: E402
from uno_env.game.observation import ObservationEncoder  # noqa: E402
from uno_env.game.rules import PRESETS, make_rules  # noqa: E402

from test_batched_engine import HOUSE_OPTIONS, SMALL_HOUSE, VARIANTS, pick  # noqa: E402

LEARNER = "learner"  # a seat playing random legal actions in both engines (pick)
ODD_WEIGHTS = "heuristic:w_block=0,hold_wild=2,bluff=0,track=0,challenge=0.5,danger=2,wd4_first=1"
ODD_WEIGHTS_2 = "heuristic:w_void=1.5,switch_odds=4,ta_villains=1,hold_drawn_wild=1,w_reverse=2"


def _kind(spec: str) -> str:
    return spec.split(":")[0]


def play_bots(rules, n: int, games: int, seed: int, specs, max_steps: int = 400) -> Counter:
    """Play ``games`` games with ``specs[seat]`` (``greedy``, ``heuristic[:k=v]`` or ``LEARNER``) in
    both engines; every bot decision must be equal. What was covered: ``decisions`` per bot
    kind and ``<kind>:<phase>``."""
    engine = Engine(rules, n)
    encoder = ObservationEncoder(engine)
    be = BatchedEngine(rules, n, games, layout=1)
    seeds = [seed * 10_000 + g for g in range(games)]
    be.reset(seeds=seeds)
    states = [engine.new_state(np.random.default_rng(s)) for s in seeds]
    agents = [[None if spec == LEARNER else make_agent(spec, rules, n, seed=seed * 1000 + b * n + p)
               for p, spec in enumerate(specs)] for b in range(games)]
    streams, beliefs = BK.GreedyStreams(games, n), BK.HeuristicBeliefs(games, n)
    for b in range(games):
        for p, spec in enumerate(specs):
            if spec == "greedy":
                streams.seed(b, p, agents[b][p].py)
    weights = {spec: HeuristicWeights.from_spec(spec).as_array() for spec in set(specs) if _kind(spec) == "heuristic"}
    policy = np.random.default_rng(seed)
    seen: Counter = Counter()
    for t in range(max_steps):
        if be.game_over.all():
            break
        want = np.zeros(games, np.int64)
        actor = np.array([s.actor if not s.game_over else -1 for s in states])
        for b, s in enumerate(states):
            if s.game_over:
                continue
            legal = engine.legal_actions(s)
            agent = agents[b][s.actor]
            if agent is None:
                want[b] = pick(policy, legal)
            else:
                mask = np.zeros(A.NUM_ACTIONS, np.int8)
                mask[legal] = 1
                want[b] = agent.act(encoder.encode(s, s.actor), mask)
                seen["decisions"] += 1
                seen[f"{_kind(specs[s.actor])}:{PHASE_NAMES[s.phase]}"] += 1
        got = want.copy()
        for spec in set(specs) - {LEARNER}:
            sel = ~be.game_over & np.isin(actor, [p for p, x in enumerate(specs) if x == spec])
            if not sel.any():
                continue
            if spec == "greedy":
                out = be.greedy_actions(streams, sel)
            else:
                out = be.heuristic_actions(beliefs, weights[spec], sel)
            got[sel] = out[sel]
        if not np.array_equal(got, want):
            b = int(np.flatnonzero(got != want)[0])
            s = states[b]
            pytest.fail(f"step {t}, game {b}, seat {s.actor} ({specs[s.actor]}), phase {PHASE_NAMES[s.phase]}: "
                        f"compiled {engine.describe(int(got[b]))} ({got[b]}) != scalar "
                        f"{engine.describe(int(want[b]))} ({want[b]}); legal {engine.legal_actions(s)}")
        for b, s in enumerate(states):
            if not s.game_over:
                engine.step(s, int(want[b]))
        be.step(want)
    for b, s in enumerate(states):
        assert be.game_state(b) == state_dict(s), f"game {b}: the engines parted"
    return seen


# the seats' bots per case: every bot plays every seat position, mixed and alone
def lineups(n: int, learner: bool) -> list[list[str]]:
    ring = ["heuristic", "greedy", ODD_WEIGHTS, "heuristic", ODD_WEIGHTS_2]
    out = [[ring[(i + p) % len(ring)] for p in range(n)] for i in range(2)]
    if learner:
        out = [[LEARNER] + line[1:] for line in out]
    return out


@pytest.mark.parametrize("preset", ["classic", "tmnt"])
@pytest.mark.parametrize("uno_call", ["auto", "explicit"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_compiled_bots_decide_as_the_scalar_bots_in_every_option_mix(preset, uno_call, n):
    seen = Counter()
    for i in (n % len(VARIANTS), (n + 3) % len(VARIANTS)):
        rules = make_rules(preset, uno_call=uno_call, **VARIANTS[i])
        for j, specs in enumerate(lineups(n, learner=bool(i % 2))):
            seen += play_bots(rules, n, games=2, seed=100 * n + 10 * i + j, specs=specs, max_steps=300)
    assert seen["heuristic:turn"] > 0 and seen["greedy:turn"] > 0


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("n", [2, 4])
def test_compiled_bots_decide_as_the_scalar_bots_in_every_preset(preset, n):
    seen = Counter()
    for j, specs in enumerate(lineups(n, learner=False) + lineups(n, learner=True)):
        seen += play_bots(make_rules(preset), n, games=2, seed=7 * n + j, specs=specs, max_steps=300)
    assert seen["heuristic:turn"] > 0 and seen["greedy:turn"] > 0


@pytest.mark.parametrize("option,shows", HOUSE_OPTIONS.values(), ids=HOUSE_OPTIONS.keys())
def test_compiled_bots_decide_as_the_scalar_bots_under_each_house_option(option, shows):
    for n in (2, 4):
        for j, specs in enumerate(lineups(n, learner=True)):
            play_bots(make_rules("classic", **option), n, games=2, seed=11 * n + j, specs=specs, max_steps=250)


def test_compiled_bots_reach_every_window_of_the_house_rules_as_the_scalar_bots():
    rules = make_rules("house", **SMALL_HOUSE, uno_call="explicit")
    seen = Counter()
    for n, seed in ((2, 1), (4, 2), (10, 3)):
        for j, specs in enumerate(lineups(n, learner=True) + lineups(n, learner=False)):
            seen += play_bots(rules, n, games=2, seed=seed * 10 + j, specs=specs, max_steps=300)
    for kind in ("heuristic", "greedy"):
        for phase in ("turn", "drawn", "challenge", "catch", "jump", "offer", "take"):
            assert seen[f"{kind}:{phase}"] > 0, f"{kind} never decided in phase {phase}: {dict(seen)}"


# The slow variants: whole games (up to 1,500 decisions) at 2, 3, 5, 7 and 10 players, each
# preset, both ways of calling UNO (alternating with the player count), every option mix; sized
# to a few minutes of CI (each scalar heuristic decision costs ~70 us, each case plays
# VARIANTS x line-ups x games). A seed per case: another run of the suite plays the same games.
@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("n", [2, 3, 5, 7, 10])
def test_many_games_of_compiled_bots_decide_as_the_scalar_bots(preset, n):
    uno_call = ("auto", "explicit")[n % 2]
    for i, variant in enumerate(VARIANTS):
        rules = make_rules(preset, uno_call=uno_call, **variant)
        for j, specs in enumerate(lineups(n, learner=bool(i % 2))):
            play_bots(rules, n, games=2, seed=1000 * n + 10 * i + j, specs=specs, max_steps=1500)


@pytest.mark.slow
@pytest.mark.parametrize("option,shows", HOUSE_OPTIONS.values(), ids=HOUSE_OPTIONS.keys())
@pytest.mark.parametrize("n", [3, 10])
def test_many_games_of_compiled_bots_decide_as_the_scalar_bots_under_each_house_option(option, shows, n):
    for i, variant in enumerate(VARIANTS):
        for j, specs in enumerate(lineups(n, learner=bool(i % 2))):
            play_bots(make_rules("classic", **{**variant, **option}), n, games=2, seed=1000 * n + 10 * i + j,
                      specs=specs, max_steps=1000)


# ---------------------------------------------------------------------- the parts
def test_the_kernels_weights_are_the_heuristics_fields_in_order():
    assert BK.WEIGHT_NAMES == FIELD_NAMES
    w = HeuristicWeights.from_spec("heuristic:bluff=0,w_skip=7")
    assert w.as_array()[BK.W_SKIP] == 7.0 and w.as_array()[BK.W_BLUFF] == 0.0


@pytest.mark.parametrize("seed", [0, 1, 12345, 2 ** 62 + 7])
def test_the_greedy_streams_draw_as_pythons_randrange(seed):
    import random
    py = random.Random(seed)
    streams = BK.GreedyStreams(2, 3)
    streams.seed(1, 2, py)
    want = [py.randrange(n) for n in [2, 3, 5, 7, 56, 2, 4] * 200]  # past a twist of the 624 words
    got = [BK.mt_randbelow(streams.mt, streams.pos, 1, 2, n) for n in [2, 3, 5, 7, 56, 2, 4] * 200]
    assert got == want
    assert streams.getstate(1, 2) == py.getstate()


@pytest.mark.parametrize("x", [0, 1, 5, 2 ** 32 - 1, 2 ** 32, 12345678901234, 2 ** 63 - 1, 2 ** 64 - 1])
def test_a_greedy_stream_seeded_in_compiled_code_is_pythons_random_of_that_seed(x):
    import random
    streams = BK.GreedyStreams(1, 2)
    streams.seed_python(0, 1, x)
    assert streams.getstate(0, 1) == random.Random(x).getstate()


def test_mt_random_is_pythons_random_of_the_same_stream():
    import random
    py = random.Random(2024)
    streams = BK.GreedyStreams(1, 2)
    streams.seed(0, 1, py)
    want = [py.random() for _ in range(700)]  # past a twist of the 624 words
    assert [BK.mt_random(streams.mt, streams.pos, 0, 1) for _ in range(700)] == want
    assert streams.getstate(0, 1) == py.getstate()


def test_a_greedy_stream_seeded_like_an_agent_is_that_agents_stream():
    streams = BK.GreedyStreams(1, 1)
    streams.seed_like_agent(0, 0, 77)
    assert streams.getstate(0, 0) == make_agent("greedy", "classic", 2, seed=77).py.getstate()


def _decisions(be, streams, beliefs, weights):
    return be.greedy_actions(streams), be.heuristic_actions(beliefs, weights)


@pytest.mark.parametrize("preset,n", [("classic", 2), ("house", 4)])
def test_compiled_bots_read_no_hidden_information(preset, n):
    """Shuffling the DRAW pile and swapping cards between the other hands (sizes kept) changes no
    decision of the deciding seat (its known cards of other hands kept too)."""
    games = 64
    be = BatchedEngine(make_rules(preset), n, games, layout=1)
    be.reset(seeds=range(games))
    rng = np.random.default_rng(0)
    w = HeuristicWeights().as_array()
    changed = 0
    for _ in range(40):
        live = ~be.game_over
        if not live.any():
            break
        s1, h1 = BK.GreedyStreams(games, n), BK.HeuristicBeliefs(games, n)
        s2, h2 = BK.GreedyStreams(games, n), BK.HeuristicBeliefs(games, n)
        saved = [a.copy() for a in be.st]
        want = _decisions(be, s1, h1, w)
        for b in np.flatnonzero(live):
            p = be.actor[b]
            others = [q for q in range(n) if q != p]
            # every card of the other hands and DRAW, minus the cards p knows of, dealt anew
            pool = list(be.draw_pile[b, :be.g[b, K.F_DRAWLEN]])
            sizes = {}
            for q in others:
                free = be.hands[b, q].astype(np.int64) - be.known[b, p, q]
                sizes[q] = int(free.sum())
                pool += [k for k in range(free.size) for _ in range(int(free[k]))]
            rng.shuffle(pool)
            i = 0
            for q in others:
                hand = be.known[b, p, q].astype(np.int64)
                for k in pool[i:i + sizes[q]]:
                    hand[k] += 1
                i += sizes[q]
                changed += int((hand != be.hands[b, q]).any())
                be.hands[b, q] = hand
                be.held[b, q] = sum(1 << k for k in np.flatnonzero(hand))
            rest = pool[i:]
            be.draw_pile[b, :len(rest)] = rest
        got = _decisions(be, s2, h2, w)
        for arr, old in zip(be.st, saved):
            arr[...] = old
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        be.step(want[1])
    assert changed > 0


def test_bot_memory_of_the_wrong_shape_is_refused():
    be = BatchedEngine("classic", 2, 3)
    be.reset(seeds=range(3))
    with pytest.raises(ValueError, match="streams"):
        be.greedy_actions(BK.GreedyStreams(2, 2))
    with pytest.raises(ValueError, match="beliefs"):
        be.heuristic_actions(BK.HeuristicBeliefs(3, 3), HeuristicWeights().as_array())
    with pytest.raises(ValueError, match="weights"):
        be.heuristic_actions(BK.HeuristicBeliefs(3, 2), np.zeros(3))


def test_bots_until_equals_deciding_bot_by_bot():
    rules = make_rules("classic", uno_call="explicit")
    n, games = 3, 16
    kinds = [BK.BOT_NONE, BK.BOT_GREEDY, BK.BOT_HEURISTIC]
    w = np.tile(HeuristicWeights().as_array(), (n, 1))
    a, b = BatchedEngine(rules, n, games), BatchedEngine(rules, n, games)
    for e in (a, b):
        e.reset(seeds=range(games))
    mem = [(BK.GreedyStreams(games, n), BK.HeuristicBeliefs(games, n)) for _ in range(2)]
    for m in mem:
        for g in range(games):
            for p in range(n):
                m[0].seed_like_agent(g, p, g * n + p)
    prng = rng_words(range(games))
    picker = np.random.default_rng(1)
    for _ in range(30):
        a.bots_until(0, kinds, w, prng, *mem[0])
        while True:  # b: bot by bot
            todo = ~b.game_over & (b.actor != 0) & (b.steps < rules.max_steps)
            if not todo.any():
                break
            g_sel = todo & (b.actor == 1)
            h_sel = todo & (b.actor == 2)
            acts = np.zeros(games, np.int64)
            acts[g_sel] = b.greedy_actions(mem[1][0], g_sel)[g_sel]
            acts[h_sel] = b.heuristic_actions(mem[1][1], w[2], h_sel)[h_sel]
            b.step(acts, active=todo)
        for g in range(games):
            assert a.game_state(g) == b.game_state(g)
        live = ~a.game_over & (a.steps < rules.max_steps)
        if not live.any():
            break
        masks = a.legal_masks(live)
        acts = np.array([pick(picker, np.flatnonzero(m).tolist()) if live[g] else 0 for g, m in enumerate(masks)])
        a.step(acts, active=live)
        b.step(acts, active=live)
