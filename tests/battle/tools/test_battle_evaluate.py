"""``uno-evaluate --game``: the battle-card games with the UNO evaluation's statistics, seat
rotation, duplicate deals, workers and game logs."""

from __future__ import annotations

import json

import pytest

from uno_env.battle.tools.evaluate import BattleTable, BattleConfig, evaluate
from uno_env.battle.tools.gamelog import read_log, replay
from uno_env.battle.game.rules import make_rules
from uno_env.battle.game.cards import load_cards
from uno_env.tools import evaluate_cli


def test_a_result_has_the_uno_statistics_and_the_shared_wins():
    r = evaluate("attack", ["strong", "random"], games=40, seed=3)
    assert r["games"] == 40 and r["config"]["game"] == "attack" and r["config"]["cards"] == "tmnt-standin"
    a, b = r["agents"]
    assert a["label"] == "strong" and 0 <= a["win_ci95"][0] <= a["win_rate"] <= a["win_ci95"][1] <= 1
    assert a["wins"] + b["wins"] + r["shared"] == 40 and r["truncated"] == 0
    assert a["seat_games"] == [20, 20] and b["seat_games"] == [20, 20]  # seats rotated
    assert r["length"]["turns"]["mean"] == 5 and {"p50", "p99"} <= set(r["length"]["steps"])
    assert all(x["shared_wins"] <= r["shared"] for x in r["agents"])


@pytest.mark.parametrize("duplicate", [True, False])
def test_duplicate_deals_give_every_rotation_of_a_block_the_same_deal(tmp_path, duplicate):
    table = BattleTable(["strong", "random"], BattleConfig("dragon", make_rules("dragon"), load_cards()), 2, 0)
    decks = []
    for game in range(4):
        played = table.play(0, game, duplicate, str(tmp_path / f"{game}.jsonl"))
        assert played.seat_entry == ((0, 1) if game % 2 == 0 else (1, 0)) and played.record.dealer == 0
        decks.append(read_log(tmp_path / f"{game}.jsonl").header["deck"])
    assert (decks[0] == decks[1] and decks[2] == decks[3]) == duplicate and decks[0] != decks[2]


def test_workers_give_the_same_games_as_one_process():
    one = evaluate("elusive", ["strong", "random", "random"], games=30, seed=5, workers=1)
    two = evaluate("elusive", ["strong", "random", "random"], games=30, seed=5, workers=2)
    for key in ("agents", "length", "seats", "shared"):
        assert one[key] == two[key]


def test_bad_arguments_are_value_errors_naming_them():
    with pytest.raises(ValueError, match="unknown battle agent spec 'heuristic'"):
        evaluate("battle", ["heuristic", "random"], games=2)
    with pytest.raises(ValueError, match="dragon rule 'race'"):
        evaluate("dragon", ["strong", "random"], games=2, race="fast")
    with pytest.raises(ValueError, match="need 30 characters"):
        evaluate("attack", ["strong"], num_players=5, games=2)
    with pytest.raises(ValueError, match="must be a list of agents"):
        evaluate("battle", "strong", games=2)


def test_the_command_line_evaluates_a_game_and_logs_replayable_games(tmp_path, capsys):
    code = evaluate_cli.main(["--game", "names", "--agents", "strong", "random", "--games", "8", "--no-progress",
                              "--workers", "1", "--out", str(tmp_path / "out"), "--log-dir", str(tmp_path / "logs"),
                              "--log-games", "2", "--set", "max_rounds=300"])
    out = capsys.readouterr().out
    assert code == 0 and "names (names, cards tmnt-standin), 2 players, 8 games" in out and "shared wins" in out
    result = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    assert result["config"]["rule_options"]["max_rounds"] == 300
    logs = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert logs == ["game-000000.jsonl", "game-000001.jsonl"]
    log = read_log(tmp_path / "logs" / "game-000001.jsonl")
    assert log.header["meta"]["tool"] == "uno-evaluate" and log.header["specs"] == ["random", "strong"]
    engine, state = replay(log)
    assert state.game_over and state.winners == log.end["winners"]


@pytest.mark.parametrize("argv, message", [
    (["--game", "battle", "--pool", "strong", "random"], "supports --agents only"),
    (["--game", "battle", "--agents", "strong", "--rules", "battle-nope"], "unknown battle preset"),
    (["--agents", "random", "--cards", "x.yaml"], "--cards needs --game"),
    (["--game", "chess", "--agents", "random"], "invalid choice"),
])
def test_the_command_line_refuses_bad_arguments_with_exit_code_2(argv, message, capsys):
    try:
        code = evaluate_cli.main(argv + ["--games", "2", "--no-progress"])
    except SystemExit as e:
        code = e.code
    assert code == 2 and message in capsys.readouterr().err
