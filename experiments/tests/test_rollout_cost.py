"""experiments/rollout_cost.py: both ways play whole rounds of the policy on seat 0 from the same
deals (the scalar one against the card ranking, the batched one against the compiled heuristic),
each game for game the scalar engine's with the same players, and the bfloat16 forward pass plays
the policy's moves up to rounding."""

from __future__ import annotations

import numpy as np

from helpers import REPO_ROOT, cli_error, load_script
from uno_env.agents.heuristic import HeuristicAgent
from uno_env.agents.policy import load_policy
from uno_env.agents.search import RolloutPolicy
from uno_env.game import actions as A
from uno_env.game.engine import Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import LIMITS, make_rules

rollout_cost = load_script("experiments", "rollout_cost")
CLASSIC_2P = f"{REPO_ROOT}/checkpoints/classic-2p"


def test_batched_rounds_are_the_scalar_rounds_of_the_policy_against_the_heuristic():
    rules = make_rules("classic")
    net, _ = load_policy(CLASSIC_2P, rules, 2)
    out = rollout_cost.batched_rounds(net, rules, rounds=12, batch=5, seed=7)
    assert out["rounds"] == 15  # whole batches
    engine = Engine(rules.replace(episode="round", max_steps=LIMITS["max_steps"][1]), 2)
    encode = ObservationEncoder(engine).encode
    winners = []
    for r in range(15):
        s = engine.new_state(np.random.default_rng([7, r]))
        bot = HeuristicAgent(engine.rules, 2, seed=0)
        while not s.game_over:
            o, m = encode(s, s.actor), A.legal_mask(engine.legal_actions(s))
            engine.step(s, int(net.act(o, m)[0]) if s.actor == 0 else bot.act(o, m))
        winners.append(s.winner)
    assert out["winners"].tolist() == winners and out["won"] == winners.count(0) and 0 < out["won"] < 15
    assert all(v > 0 for v in out["parts"].values())


def test_scalar_rounds_are_the_experts_rollouts_of_the_policy_against_the_card_ranking():
    rules = make_rules("classic")
    net, _ = load_policy(CLASSIC_2P, rules, 2)
    out = rollout_cost.scalar_rounds(net, rules, rounds=20, seed=7)
    engine = Engine(rules.replace(episode="round", max_steps=LIMITS["max_steps"][1]), 2)
    encode, ranking = ObservationEncoder(engine).encode, RolloutPolicy(engine)
    won = 0
    for r in range(20):
        s = engine.new_state(np.random.default_rng([7, r]))
        while not s.game_over:
            legal = engine.legal_actions(s)
            engine.step(s, int(net.act(encode(s, 0), A.legal_mask(legal))[0]) if s.actor == 0 else ranking(s, legal))
        won += s.winner == 0
    assert out["won"] == won and 0 < won < 20 and out["cpu_s"] > 0


def test_the_bfloat16_forward_pass_plays_the_policys_moves_up_to_rounding():
    rules = make_rules("classic")
    net, _ = load_policy(CLASSIC_2P, rules, 2)
    engine = Engine(rules, 2)
    encode = ObservationEncoder(engine).encode
    obs, masks = [], []
    for g in range(10):
        s = engine.new_state(np.random.default_rng([3, g]))
        while not s.game_over:
            o, m = encode(s, s.actor), A.legal_mask(engine.legal_actions(s))
            obs.append(o)
            masks.append(m)
            engine.step(s, int(net.act(o, m)[0]))
    obs, masks = np.array(obs, np.float32), np.array(masks, np.int8)
    bf16 = rollout_cost.bf16_forward(net)(obs, masks)
    assert masks[np.arange(len(bf16)), bf16].all()
    assert (bf16 == net.act(obs, masks)).mean() > 0.95


def test_rounds_and_batches_out_of_range_are_refused(capsys):
    for argv in (["--rounds", "0"], ["--batch", "100000"], ["--rounds", str(10 ** 9)]):
        assert "--rounds must be in" in cli_error(rollout_cost.main, capsys, argv)
