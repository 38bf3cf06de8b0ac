"""experiments/expert_search.py: the expert keeps the policy's move unless the search finds a
better one, its rollouts play my seat with the policy, and its games depend on the seed alone."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import REPO_ROOT, cli_error, load_script, make_env
from uno_env.agents.policy import load_policy
from uno_env.agents.search import SearchOptions
from uno_env.game import actions as A
from uno_env.game.engine import Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import make_rules

expert_search = load_script("experiments", "expert_search")
CLASSIC_2P = f"{REPO_ROOT}/checkpoints/classic-2p"


class AlwaysDraw:
    """A stand-in policy: draw when it may, else pass, else the first legal move."""

    def __init__(self):
        self.calls = 0

    def act(self, observations, masks, deterministic=True, rng=None):
        self.calls += 1
        legal = np.flatnonzero(np.asarray(masks, bool).reshape(-1))
        for a in (A.DRAW, A.PASS):
            if a in legal:
                return np.array([a])
        return np.array([legal[0]])


def test_its_rollouts_play_my_seat_with_the_policy_not_the_heuristic_ranking():
    # my two reds go out on red-9 in two turns (the opponent holds greens); a policy that
    # always draws never plays a card, so the opponent goes out first
    e = make_env(2, {0: ["red-4", "red-5"], 1: ["green-3", "green-6"]}, first="red-9", hand_size=2)
    net = AlwaysDraw()
    ex = expert_search.ExpertSearch(e.rules, 2, 0, SearchOptions(simulations=8), net)
    s = e.game_state.clone()
    assert ex._rollout(s) == -1.0 and net.calls > 0
    assert s.hand_size[0] > 2 and s.winner == 1


def test_when_no_move_may_pass_the_test_it_plays_the_policys_moves():
    rules = make_rules("classic")
    net, _ = load_policy(CLASSIC_2P, rules, 2)
    never = SearchOptions(simulations=8, margin=2.0)  # a gain is at most 2 (a win for a loss)
    ex = expert_search.ExpertSearch(rules, 2, 0, never, net)
    engine = Engine(rules, 2)
    encode = ObservationEncoder(engine).encode
    s = engine.new_state(np.random.default_rng(5))
    moves = 0
    while not s.game_over and moves < 60:
        o, m = encode(s, s.actor), A.legal_mask(engine.legal_actions(s))
        a = ex.act(o, m) if s.actor == 0 else int(net.act(o, m)[0])
        if s.actor == 0:
            assert a == int(net.act(o, m)[0])
            moves += 1
        engine.step(s, a)
    assert ex.stats["searched"] > 0 and ex.stats["overrides"] == 0


def test_the_games_depend_on_the_seed_not_the_workers():
    args = ["--checkpoint", CLASSIC_2P, "--games", "8", "--simulations", "6"]
    one = expert_search.main(args + ["--seed", "3"])
    two = expert_search.main(args + ["--seed", "3", "--workers", "2"])
    assert one["won"] == two["won"] and one["difference"] == two["difference"]
    others = [expert_search.main(args + ["--seed", str(seed)])["won"] for seed in (4, 5)]
    assert any(won != one["won"] for won in others)  # 16 games a seed: another seed deals others


def test_it_refuses_search_options_whose_rollouts_it_replaces():
    net, _ = load_policy(CLASSIC_2P, make_rules("classic"), 2)
    with pytest.raises(ValueError, match="rollouts and opponents"):
        expert_search.ExpertSearch(make_rules("classic"), 2, 0, SearchOptions(opponents="random"), net)


def test_a_checkpoint_that_does_not_load_is_named(capsys, tmp_path):
    assert f"--checkpoint '{tmp_path}'" in cli_error(expert_search.main, capsys, ["--checkpoint", str(tmp_path)])
