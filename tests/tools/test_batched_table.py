"""Evaluation on the batched engine: the table's protocol, the engine choice, the CLI's line.

The batched engine's rules are tested against the scalar engine in
tests/game/test_batched_engine.py; here, that an evaluation played there is the scalar
evaluation's games (the same deals, seats and seeds) and the same statistics."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("numba")

from helpers import random_checkpoint  # noqa: E402

from uno_env.agents import base as agents_base  # noqa: E402
from uno_env.agents import batched as batched_module  # noqa: E402
from uno_env.agents.batched import NotBatched, batched_actor, why_not_batched  # noqa: E402
from uno_env.agents.bots import RandomAgent  # noqa: E402
from uno_env.agents.policy import CheckpointAgent  # noqa: E402
from uno_env.game.batched import BatchedEngine  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402
from uno_env.tools.batched_table import play_batched  # noqa: E402
from uno_env.tools.evaluate import evaluate, evaluate_paired, evaluate_vs  # noqa: E402
from uno_env.tools.evaluate_cli import main  # noqa: E402
from uno_env.tools.matches import choose_engine, play_matches  # noqa: E402

CLASSIC = make_rules("classic")


@pytest.fixture(scope="module")
def ckpts(tmp_path_factory):
    """Small random checkpoints: two for 2 players, one for 4."""
    out = {}
    for name, n, seed in (("a2", 2, 0), ("b2", 2, 1), ("a4", 4, 2)):
        d = tmp_path_factory.mktemp(name)
        random_checkpoint(d, num_players=n, seed=seed)
        out[name] = f"checkpoint:{d}"
    return out


def _games(played):
    return [(t.game, t.seat_entry, t.record, t.seat_ranks) for t in played]


@pytest.mark.parametrize("duplicate", [True, False])
@pytest.mark.parametrize("n", [2, 4])
def test_deterministic_policies_play_the_scalar_arenas_games(ckpts, n, duplicate):
    """Same deals, dealer, seat rotation and agents: game for game the arena's records."""
    lineup = [ckpts["a2"], ckpts["b2"]] if n == 2 else [ckpts["a4"]] * 4
    (scalar,) = play_matches([lineup], CLASSIC, n, 3 * n, 7, 1, duplicate, False, engine="scalar")
    (batched,) = play_matches([lineup], CLASSIC, n, 3 * n, 7, 1, duplicate, False, engine="batched")
    assert _games(batched) == _games(scalar)


def test_game_g_depends_only_on_seed_and_g_not_on_the_batch():
    """A compiled bot's stream is seeded per (seed, game, entry): any batch, any start."""
    lineup = ["random", "random", "random"]
    whole = play_batched(lineup, CLASSIC, 3, 18, seed=4, batch=18)
    assert _games(play_batched(lineup, CLASSIC, 3, 18, seed=4, batch=5)) == _games(whole)
    assert _games(play_batched(lineup, CLASSIC, 3, 9, seed=4, batch=2, start=9)) == _games(whole[9:])
    assert _games(play_batched(lineup, CLASSIC, 3, 18, seed=5, batch=18)) != _games(whole)


def test_batched_and_scalar_evaluations_of_one_seed_agree_within_their_intervals(ckpts):
    """A checkpoint against random (the bot's draws differ between the engines, its play does
    not): the two win rates' Wilson intervals overlap, and so do the game lengths'."""
    results = {e: evaluate([ckpts["a2"], "random"], games=1200, seed=3, engine=e) for e in ("batched", "scalar")}
    b, s = results["batched"], results["scalar"]
    assert b["config"]["engine"] == "batched" and s["config"]["engine"] == "scalar"
    for i in range(2):
        (blo, bhi), (slo, shi) = b["agents"][i]["win_ci95"], s["agents"][i]["win_ci95"]
        assert blo <= shi and slo <= bhi
    lb, ls = b["length"]["steps"], s["length"]["steps"]
    spread = 1.96 * math.hypot(lb["std"], ls["std"]) / math.sqrt(1200)
    assert abs(lb["mean"] - ls["mean"]) <= 2 * spread
    assert b["agents"][0]["seat_games"] == s["agents"][0]["seat_games"] == [600, 600]


def test_auto_plays_batched_only_where_every_agent_plays_there(ckpts, tmp_path):
    assert choose_engine([["random", ckpts["a2"]]], CLASSIC, 2) == ("batched", "")
    engine, why = choose_engine([["random", ckpts["a2"]], ["search", "random"]], CLASSIC, 2)
    assert engine == "scalar" and why == "search has no compiled kernel"
    engine, why = choose_engine([["random", "random"]], CLASSIC, 2, log_dir=str(tmp_path))
    assert engine == "scalar" and "game logs" in why
    assert choose_engine([["random", "random"]], CLASSIC, 2, "scalar") == ("scalar", "asked for")
    with pytest.raises(ValueError, match="engine 'batched' cannot play this: search has no compiled kernel"):
        choose_engine([["search", "random"]], CLASSIC, 2, "batched")
    with pytest.raises(ValueError, match="engine must be one of"):
        choose_engine([["random", "random"]], CLASSIC, 2, "gpu")


def test_a_bot_with_options_or_a_scripted_instance_plays_in_the_arena():
    assert why_not_batched("random:x=1", CLASSIC, 2) == "random:x=1 has options: the compiled random plays its defaults only"
    assert "no policy agent" in why_not_batched(RandomAgent(CLASSIC, 2), CLASSIC, 2)
    with pytest.raises(ValueError, match="unknown"):
        why_not_batched("nonesuch", CLASSIC, 2)


def test_a_compiled_bot_joins_by_its_player(monkeypatch):
    """A bot spec plays batched once a BotPlayer is registered for its kind (and its kernels exist)."""
    monkeypatch.setitem(agents_base._REGISTRY, "twin", lambda spec, rules, n, seed: RandomAgent(rules, n, seed))
    with pytest.raises(NotBatched, match="twin has no compiled kernel"):
        batched_actor("twin", CLASSIC, 2)
    monkeypatch.setitem(batched_module.BOT_PLAYERS, "twin", batched_module.RandomPlayer)
    assert batched_actor("twin", CLASSIC, 2).kind == "bot"
    twin = evaluate(["twin", "random"], games=40, seed=1)
    plain = evaluate(["random", "random"], games=40, seed=1)
    assert twin["config"]["engine"] == "batched"
    assert [a["wins"] for a in twin["agents"]] == [a["wins"] for a in plain["agents"]]


def test_a_player_whose_kernels_the_engine_lacks_plays_in_the_arena(monkeypatch):
    class Missing(batched_module.RandomPlayer):
        @classmethod
        def available(cls, engine_class):
            return False

    monkeypatch.setitem(batched_module.BOT_PLAYERS, "random", Missing)
    assert why_not_batched("random", CLASSIC, 2) == "random has no compiled kernel"


def test_paired_mode_on_the_batched_engine_plays_the_same_games_for_every_agent(ckpts, tmp_path):
    """The same policy under two names: the same games, difference 0 game by game."""
    other = tmp_path / "copy"
    random_checkpoint(other, num_players=2, seed=0)  # the weights of ckpts["a2"]
    r = evaluate_paired([ckpts["a2"], f"checkpoint:{other}", ckpts["b2"]], "random", num_players=2, games=60, seed=2)
    assert r["config"]["engine"] == "batched"
    assert r["won"][0] == r["won"][1] and r["specs"][1]["difference"]["mean"] == 0.0
    assert r["won"][2] != r["won"][0]


def test_training_evaluates_a_policy_instance_batched_with_the_specs_games(ckpts):
    """training/train.py's evaluate_vs of the in-memory policy: batched, the checkpoint's games."""
    path = ckpts["a4"].partition(":")[2]
    instance = CheckpointAgent(path, CLASSIC, 4)
    by_instance = evaluate_vs(instance, "random", num_players=4, games=40, seed=9)
    by_spec = evaluate_vs(ckpts["a4"], "random", num_players=4, games=40, seed=9)
    assert by_instance["engine"] == by_spec["engine"] == "batched"
    assert (by_instance["wins"], by_instance["truncated"]) == (by_spec["wins"], by_spec["truncated"])


def test_the_ladder_plays_a_table_batched_when_all_its_fast_agents_can(ckpts):
    pytest.importorskip("openskill")
    from uno_env.tools.ladder import rate_table

    t = rate_table("classic", 2, agents=["random", ckpts["a2"]], games=8, slow_games=0)
    assert t["engines"] == {"fast": {"engine": "batched", "note": ""}}
    t = rate_table("classic", 2, agents=["random", ckpts["a2"]], games=8, slow_games=0, engine="scalar")
    assert t["engines"] == {"fast": {"engine": "scalar", "note": "asked for"}}


def test_the_cli_says_which_engine_ran(ckpts, capsys):
    assert main(["--agents", ckpts["a2"], "random", "--games", "8", "--no-progress"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "engine: batched"
    assert main(["--agents", "search", "random", "--games", "2", "--no-progress"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "engine: scalar (search has no compiled kernel)"
    assert main(["--paired", "random", ckpts["a2"], "--num-players", "2", "--games", "8", "--no-progress",
                 "--engine", "scalar"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "engine: scalar (asked for)"
    assert main(["--agents", "search", "random", "--games", "2", "--engine", "batched"]) == 2
    assert capsys.readouterr().err.strip() == ("uno-evaluate: error: engine 'batched' cannot play this: "
                                               "search has no compiled kernel")


def test_an_illegal_policy_answer_names_the_game(ckpts):
    bad = CheckpointAgent(ckpts["a2"].partition(":")[2], CLASSIC, 2)
    bad.policy = type("P", (), {"act": staticmethod(lambda o, m, d, r: (m == 0).argmax(axis=1)), "width": 0})()
    with pytest.raises(ValueError, match=r"game \d+: checkpoint:.* at seat \d chose an illegal action"):
        play_batched([bad, "random"], CLASSIC, 2, 4, seed=0)



def _compiled(kind: str) -> bool:
    return batched_module.BOT_PLAYERS[kind].available(BatchedEngine)


@pytest.mark.parametrize("bot", ["greedy", "heuristic", "heuristic:w_skip=0.5,w_block=3"])
@pytest.mark.parametrize("n", [2, 4])
def test_compiled_greedy_and_heuristic_play_the_arenas_games(ckpts, bot, n):
    """Once the engine has their kernels (equal to the scalar bots decision for decision), the
    compiled bots, seeded as the arena seeds them, play the arena's very games."""
    if not _compiled(bot.partition(":")[0]):
        pytest.skip(f"the engine has no compiled {bot.partition(':')[0]} yet")
    lineup = [bot, ckpts["a2"]] if n == 2 else [bot, "greedy" if _compiled("greedy") else "random", bot, ckpts["a4"]]
    if "random" in lineup:
        pytest.skip("greedy is not compiled")
    (scalar,) = play_matches([lineup], CLASSIC, n, 4 * n, 11, 1, True, False, engine="scalar")
    (batched,) = play_matches([lineup], CLASSIC, n, 4 * n, 11, 1, True, False, engine="batched")
    assert _games(batched) == _games(scalar)
