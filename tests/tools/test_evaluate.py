"""The evaluation tool: seat rotation, reproducibility, game logs, paired mode, CLI and its files.

The statistics are tested in test_stats.py, the game loop in tests/agents/test_arena.py."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from uno_env.agents.heuristic import HeuristicAgent
from uno_env.tools import evaluate as evaluate_module
from uno_env.tools import matches as matches_module
from uno_env.tools.evaluate import evaluate, evaluate_paired, evaluate_vs
from uno_env.tools.matches import play_matches
from uno_env.tools.table import game_log_path
from uno_env.tools.evaluate_cli import main
from uno_env.tools.gamelog_read import read_log
from uno_env.tools.gamelog_replay import replay
from uno_env.game.rules import make_rules

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _strip_timing(result):
    out = dict(result)
    for key in ("elapsed_s", "games_per_s"):
        out.pop(key, None)
    out["config"] = {k: v for k, v in out["config"].items() if k != "workers"}
    return out


# ---------------------------------------------------------------------- playing
def test_seat_rotation_is_balanced():
    r = evaluate(["heuristic", "random", "greedy"], games=30, seed=1)
    for a in r["agents"]:
        assert a["seat_games"] == [10, 10, 10]
        assert sum(a["seat_wins"]) == a["wins"]
    assert all(s["games"] == 30 for s in r["seats"])
    assert sum(s["wins"] for s in r["seats"]) == sum(a["wins"] for a in r["agents"])
    assert r["first_seat"] == r["seats"][0]


def test_lineup_repeats_to_fill_seats_and_labels():
    r = evaluate(["heuristic", "random"], num_players=4, games=8, seed=0)
    assert [a["label"] for a in r["agents"]] == ["heuristic", "random", "heuristic#2", "random#2"]
    assert r["config"]["num_players"] == 4
    with pytest.raises(ValueError):
        evaluate(["random"] * 3, num_players=2, games=2)


def test_statistics_are_consistent():
    r = evaluate(["heuristic", "random"], games=120, seed=3)
    wins = sum(a["wins"] for a in r["agents"])
    assert wins + r["truncated"] == 120
    for a in r["agents"]:
        lo, hi = a["win_ci95"]
        assert lo <= a["win_rate"] <= hi
        assert a["win_rate"] == a["wins"] / 120
        if r["truncated"] == 0:  # 2 players: rank 1 for a win, 2 for a loss
            assert a["mean_rank"] == pytest.approx(2 - a["win_rate"])
    # only the winner scores in a one-round game
    assert r["agents"][0]["mean_points"] > 0
    t, s = r["length"]["turns"], r["length"]["steps"]
    assert t["count"] == 120 and s["mean"] >= t["mean"] > 0
    assert t["p5"] <= t["p50"] <= t["p90"] <= t["p99"] <= t["max"]


def test_seeded_run_is_reproducible_with_one_or_two_workers():
    kwargs = dict(agents=["heuristic", "greedy", "random"], rules="classic", games=60, seed=11)
    a = evaluate(workers=1, **kwargs)
    b = evaluate(workers=1, **kwargs)
    c = evaluate(workers=2, **kwargs)
    assert _strip_timing(a) == _strip_timing(b) == _strip_timing(c)
    d = evaluate(workers=1, **{**kwargs, "seed": 12})
    assert _strip_timing(d) != _strip_timing(a)


def test_truncated_games_count_as_no_win():
    r = evaluate(["random", "random"], rules="house", games=12, seed=0, max_steps=25)
    assert r["truncated"] > 0
    assert r["truncated_rate"] == r["truncated"] / 12
    assert sum(a["wins"] for a in r["agents"]) == 12 - r["truncated"]
    assert r["length"]["steps"]["max"] <= 25


def test_other_rulesets_and_multi_round_episodes():
    r = evaluate(["heuristic", "random", "greedy"], rules="tmnt", games=9, seed=0, uno_call="explicit")
    assert r["config"]["rules"] == "tmnt"
    r = evaluate(["heuristic", "random"], games=4, seed=0, episode="game", target_score=100)
    assert sum(a["wins"] for a in r["agents"]) + r["truncated"] == 4
    winners = [a for a in r["agents"] if a["wins"]]
    assert winners and all(a["mean_points"] > 0 for a in winners)


def test_agent_instances_in_process():
    from uno_env.agents import make_agent
    from uno_env.game.rules import make_rules

    rules = make_rules("classic")
    r = evaluate([make_agent("heuristic", rules, 2, 0), "random"], games=6, seed=0)
    assert r["agents"][0]["label"] == "heuristic"
    with pytest.raises(ValueError, match="workers=1"):
        evaluate([make_agent("heuristic", rules, 2, 0), "random"], games=6, workers=2)


# ---------------------------------------------------------------------- game logs
def _check_logs(log_dir, lineup, rules, n, games, seed, logged, duplicate=True):
    """Every log in ``log_dir`` replays exactly and matches the evaluation's own record of
    its game (winner entry, truncation, steps, turns, scores). Returns the logs."""
    names = sorted(os.listdir(log_dir))
    assert names == [f"game-{g:06d}.jsonl" for g in range(logged)]
    (records,) = play_matches([lineup], rules, n, games, seed, 1, duplicate, False)
    logs = []
    for g in range(logged):
        path = game_log_path(str(log_dir), g)
        log = read_log(path)
        h, end = log.header, log.end
        assert h["meta"]["tool"] == "uno-evaluate" and h["meta"]["game"] == g and h["meta"]["seed"] == seed
        assert h["meta"]["deal"] == (g // n if duplicate else g) and h["dealer"] == n - 1
        entries = h["meta"]["entries"]
        assert entries == [(s + g) % n for s in range(n)]  # the seat rotation
        assert h["specs"] == [lineup[e] for e in entries]
        assert h["rules"] == rules.to_dict() and h["num_players"] == n
        env = replay(log)  # checks every action, the table after it and the final snapshot
        assert env.snapshot() == end["snapshot"]
        game = records[g]
        assert game.game == g and list(game.seat_entry) == entries
        rec = game.record
        assert end["status"] == ("truncated" if rec.truncated else "finished")
        assert end["steps"] == rec.steps == len(log.actions) and env.game_state.turns == rec.turns
        logged_winner = -1 if end["winner"] is None else entries[int(end["winner"].split("_")[1])]
        assert logged_winner == game.winner_entry
        assert end["scores"] == list(rec.scores)
        logs.append(log)
    return logs


def test_game_logs_replay_and_match_the_results(tmp_path):
    """Two workers each log their own games; every log replays exactly and its winner is
    the one the evaluation counted; logging does not change the games."""
    lineup = ["heuristic", "random"]
    kwargs = dict(agents=lineup, rules="classic", games=6, seed=5, engine="scalar")  # the arena's logs
    plain = evaluate(workers=2, **kwargs)
    logged = evaluate(workers=2, log_dir=tmp_path / "logs", **kwargs)
    assert logged["config"].pop("log_dir") == str(tmp_path / "logs")
    assert logged["config"].pop("logged_games") == 6
    assert _strip_timing(logged) == _strip_timing(plain)
    logs = _check_logs(tmp_path / "logs", lineup, make_rules("classic"), 2, 6, 5, 6)
    wins = [0, 0]
    for log in logs:
        if log.end["winner"] is not None:
            wins[log.header["meta"]["entries"][int(log.end["winner"].split("_")[1])]] += 1
    assert wins == [a["wins"] for a in logged["agents"]]
    assert [a["wins"] for a in logged["agents"]] != [0, 0]


def test_game_logs_first_games_only_one_worker_truncated_and_multi_round(tmp_path):
    lineup = ["random", "greedy", "heuristic"]
    rules = make_rules("house", max_steps=40)
    r = evaluate(lineup, rules=rules, games=9, seed=2, workers=1, log_dir=tmp_path / "a", log_games=4)
    assert r["config"]["logged_games"] == 4 and r["truncated"] > 0
    logs = _check_logs(tmp_path / "a", lineup, rules, 3, 9, 2, 4)
    assert any(log.end["status"] == "truncated" for log in logs)
    rules = make_rules("tmnt", uno_call="explicit", episode="game", target_score=100)
    evaluate(lineup, rules=rules, games=3, seed=0, workers=1, duplicate=False, log_dir=tmp_path / "b")
    logs = _check_logs(tmp_path / "b", lineup, rules, 3, 3, 0, 3, duplicate=False)
    assert all(log.end["status"] == "finished" for log in logs)
    assert any(sum("round_end" in a for a in log.actions) > 1 for log in logs)  # several rounds
    with pytest.raises(ValueError, match="log_dir"):
        evaluate(lineup, games=3, log_games=2)


def test_cli_writes_game_logs(tmp_path, capsys):
    logs = tmp_path / "logs"
    rc = main(["--agents", "heuristic", "random", "--games", "8", "--seed", "1", "--workers", "2",
               "--log-dir", str(logs), "--log-games", "3", "--no-progress", "--out", str(tmp_path / "out")])
    assert rc == 0
    assert f"wrote 3 game logs to {logs}" in capsys.readouterr().out
    data = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    assert data["config"]["logged_games"] == 3
    _check_logs(logs, ["heuristic", "random"], make_rules("classic"), 2, 8, 1, 3)
    # the replay program accepts them
    proc = subprocess.run([sys.executable, "-m", "uno_env.tools.replay", game_log_path(str(logs), 2), "--quiet"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "matches the log exactly" in proc.stdout
    # --log-dir alone logs every game
    assert main(["--agents", "random", "random", "--games", "2", "--workers", "1", "--quiet",
                 "--no-progress", "--log-dir", str(tmp_path / "all")]) == 0
    assert sorted(os.listdir(tmp_path / "all")) == ["game-000000.jsonl", "game-000001.jsonl"]
    for bad in (["--agents", "random", "random", "--log-games", "2"],
                ["--pool", "random", "greedy", "--log-dir", str(tmp_path / "x")],
                ["--agents", "random", "random", "--log-dir", str(tmp_path / "x"), "--log-games", "-1"]):
        with pytest.raises(SystemExit):
            main(bad + ["--games", "2", "--no-progress"])


# ---------------------------------------------------------------------- paired mode
def test_paired_agents_play_the_games_of_evaluate_vs():
    """Only the agent in the tested seat changes: each agent's games are its 1-vs-3 games."""
    paired = evaluate_paired(["heuristic", "greedy"], "random", num_players=4, games=24, seed=7)
    for spec, row in zip(["heuristic", "greedy"], paired["specs"]):
        alone = evaluate_vs(spec, "random", num_players=4, games=24, seed=7)
        assert (row["wins"], row["win_ci95"]) == (alone["wins"], alone["ci95"])
    assert [sum(w) for w in paired["won"]] == [r["wins"] for r in paired["specs"]]


def test_the_tested_seat_gets_the_same_seed_whichever_agent_sits_there():
    # the random bot decides by its seed alone: two of them in the tested seat play alike
    paired = evaluate_paired(["random", "random"], "heuristic", num_players=4, games=24, seed=4)
    assert paired["won"][0] == paired["won"][1] and 0 < sum(paired["won"][0]) < 24
    assert [r["label"] for r in paired["specs"]] == ["random", "random#2"]


def test_a_truncated_game_is_lost_by_every_agent_and_counted():
    paired = evaluate_paired(["heuristic", "random"], "random", num_players=3, games=12, seed=0, max_steps=6)
    assert [r["truncated"] for r in paired["specs"]] == [12, 12] and paired["won"] == [[0] * 12, [0] * 12]


def test_an_agent_that_plays_as_the_first_wins_the_same_games():
    # hold_wild=4 is the heuristic's default, and an instance of the same bot plays alike
    paired = evaluate_paired(["heuristic", "heuristic:hold_wild=4", HeuristicAgent(make_rules("classic"), 3)],
                             "random", num_players=3, games=30, seed=5)
    assert paired["won"][0] == paired["won"][1] == paired["won"][2] and 0 < sum(paired["won"][0]) < 30
    for row in paired["specs"][1:]:
        assert row["difference"] == {"mean": 0.0, "ci95": [0.0, 0.0]}
    assert "difference" not in paired["specs"][0]
    assert paired["config"]["specs"] == ["heuristic", "heuristic:hold_wild=4", "heuristic#2"]


def test_the_paired_difference_is_the_mean_of_the_games_differences():
    paired = evaluate_paired(["heuristic", "random"], "heuristic", num_players=4, games=40, seed=9)
    h, r = np.array(paired["won"][0]), np.array(paired["won"][1])
    d = paired["specs"][1]["difference"]
    assert d["mean"] == pytest.approx((r - h).mean()) and d["ci95"][0] < d["mean"] < d["ci95"][1]
    assert d["ci95"][1] - d["ci95"][0] == pytest.approx(2 * 1.959964 * (r - h).std(ddof=1) / np.sqrt(40))


def test_paired_results_do_not_depend_on_the_workers():
    one = evaluate_paired(["heuristic", "greedy"], "random", num_players=3, games=18, seed=2, workers=1)
    two = evaluate_paired(["heuristic", "greedy"], "random", num_players=3, games=18, seed=2, workers=2)
    assert one["won"] == two["won"] and one["specs"][1]["difference"] == two["specs"][1]["difference"]


@pytest.mark.parametrize("kwargs,message", [
    ({"specs": []}, "at least one agent"),
    ({"games": 1}, "games >= 2"),
    ({"num_players": 11}, "num_players"),
    ({"specs": "heuristic"}, "a list of agents"),
    ({"opponent": HeuristicAgent(make_rules("classic"), 4)}, "cannot sit in the 3 opponents' seats"),
    ({"specs": ["heuristic", HeuristicAgent(make_rules("classic"), 4)], "workers": 2}, "workers=1"),
    ({"opponent": "search:bogus=1"}, "bogus"),
])
def test_paired_mode_refuses_bad_input_naming_it(kwargs, message):
    args = {"specs": ["heuristic"], "opponent": "random", "games": 4} | kwargs
    with pytest.raises(ValueError, match=message):
        evaluate_paired(args.pop("specs"), **args)


def test_a_bad_spec_anywhere_in_the_list_fails_before_any_game_is_played(monkeypatch):
    from uno_env.tools import evaluate as ev

    played = []
    monkeypatch.setattr(ev, "play_matches", lambda *a, **k: played.append(a) or [[]])
    with pytest.raises(ValueError, match="'typo' not found"):
        evaluate_paired(["heuristic", "greedy", "checkpoint:typo"], "random", games=400)
    assert played == []


def test_one_instance_in_several_seats_of_a_line_up_is_refused():
    bot = HeuristicAgent(make_rules("classic"), 4)
    with pytest.raises(ValueError, match=r"cannot sit in 3 seats"):
        evaluate_vs("heuristic", bot, num_players=4, games=4)
    assert evaluate_vs("heuristic", bot, num_players=2, games=4)["games"] == 4  # one seat: fine


# ---------------------------------------------------------------------- command line
def test_cli_end_to_end_writes_json_csv_png(tmp_path, capsys):
    out = tmp_path / "eval"
    rc = main(["--agents", "heuristic", "random", "--games", "300", "--seed", "0", "--workers", "2",
               "--out", str(out), "--no-progress"])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "heuristic" in printed and "win rate" in printed
    data = json.loads((out / "evaluation.json").read_text())
    assert data["games"] == 300 and data["config"]["workers"] == 2
    with open(out / "evaluation.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["agent"] for r in rows] == ["heuristic", "random"]
    assert int(rows[0]["wins"]) == data["agents"][0]["wins"]
    assert (out / "evaluation.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_pool_mode(tmp_path):
    out = tmp_path / "pool"
    assert main(["--pool", "heuristic", "random", "greedy", "--games", "30", "--workers", "1",
                 "--out", str(out), "--no-progress", "--quiet"]) == 0
    data = json.loads((out / "pool.json").read_text())
    assert len(data["ratings"]) == 3
    assert (out / "pool.png").exists() and (out / "pool.csv").exists()


def test_cli_paired_mode_writes_the_differences(tmp_path, capsys):
    out = tmp_path / "paired"
    assert main(["--paired", "heuristic", "random", "--opponent", "greedy", "--num-players", "3", "--games", "30",
                 "--workers", "1", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "1 vs 2 greedy" in printed and "difference" in printed
    data = json.loads((out / "paired.json").read_text())
    assert data["config"]["opponent"] == "greedy" and len(data["won"][1]) == 30
    with open(out / "paired.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["agent"] for r in rows] == ["heuristic", "random"] and rows[0]["difference"] == ""
    assert [int(r["truncated"]) for r in rows] == [r["truncated"] for r in data["specs"]]
    assert float(rows[1]["difference"]) == pytest.approx(data["specs"][1]["difference"]["mean"], abs=1e-6)
    assert (out / "paired.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args,message", [
    (["--paired", "heuristic", "--games", "1"], "games >= 2"),
    (["--paired", "heuristic", "--opponent", "nobody"], "nobody"),
])
def test_cli_paired_mode_errors_exit_2(capsys, args, message):
    assert main(args + ["--no-progress", "--workers", "1"]) == 2
    assert message in capsys.readouterr().err


def test_cli_paired_mode_plays_4_players_against_random_by_default(tmp_path):
    assert main(["--paired", "greedy", "--games", "8", "--workers", "1", "--no-progress", "--quiet",
                 "--out", str(tmp_path)]) == 0
    config = json.loads((tmp_path / "paired.json").read_text())["config"]
    assert (config["num_players"], config["opponent"]) == (4, "random")


@pytest.mark.parametrize("args,message", [
    (["--agents", "heuristic", "random", "--opponent", "random"], "--opponent needs --paired"),
    (["--paired", "heuristic", "random", "heuristic"], "'heuristic' is given twice"),
    (["--paired", "heuristic", "--log-dir", "logs"], "not supported in paired mode"),
    (["--paired", "heuristic", "--pool", "random", "greedy"], "not allowed with"),
])
def test_cli_paired_mode_misuse_is_refused(capsys, args, message):
    with pytest.raises(SystemExit) as info:
        main(args + ["--games", "4", "--no-progress"])
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_cli_errors_are_reported(capsys):
    assert main(["--agents", "nobody", "random", "--games", "2", "--no-progress"]) == 2
    assert "unknown agent spec" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--games", "2"])  # neither --agents nor --pool


def test_training_script_runs(tmp_path):
    """The thin CLI in training/ (a subprocess, as a user runs it)."""
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "training", "evaluate.py"),
                           "--agents", "heuristic", "random", "random", "--rules", "classic",
                           "--games", "30", "--workers", "1", "--no-progress",
                           "--set", "uno_call=explicit", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "evaluation.json").read_text())
    assert data["config"]["rule_options"]["uno_call"] == "explicit"
    assert data["config"]["num_players"] == 3


def test_cli_set_is_the_shared_parser_and_a_bad_item_exits_2(tmp_path, capsys):
    assert main(["--agents", "random", "random", "--games", "2", "--workers", "1", "--no-progress", "--quiet",
                 "--set", "hand_size=3", "--set", "max_steps=2000", "--out", str(tmp_path)]) == 0
    options = json.loads((tmp_path / "evaluation.json").read_text())["config"]["rule_options"]
    assert options["hand_size"] == 3 and options["max_steps"] == 2000
    for bad, named in ((["--set", "hand_size"], "'hand_size'"), (["--set", "villain_faces=[1,"], "'villain_faces=[1,'")):
        with pytest.raises(SystemExit) as info:
            main(["--agents", "random", "random", "--games", "2", "--no-progress"] + bad)
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert "uno-evaluate: error: --set" in err and named in err
    assert main(["--agents", "random", "random", "--games", "2", "--no-progress", "--set", "nonsense=1"]) == 2
    assert "nonsense" in capsys.readouterr().err


def test_out_files_are_replaced_atomically(tmp_path, monkeypatch):
    """A write that fails half-way leaves the previous file whole and no temporary file."""
    from uno_env.tools import report

    args = ["--agents", "random", "random", "--games", "4", "--workers", "1", "--no-progress", "--quiet",
            "--out", str(tmp_path)]
    assert main(args) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert sorted(before) == ["evaluation.csv", "evaluation.json", "evaluation.png"]

    def broken_dump(obj, fh, **kwargs):
        fh.write('{"games": ')
        raise OSError("disk full")

    monkeypatch.setattr(report.json, "dump", broken_dump)
    assert main(args[:-1] + [str(tmp_path)]) == 2
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_out_without_matplotlib_writes_json_and_csv_with_a_note(tmp_path, monkeypatch, capsys):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    out = tmp_path / "eval"
    assert main(["--agents", "heuristic", "random", "--games", "4", "--workers", "1", "--no-progress",
                 "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["evaluation.csv", "evaluation.json"]
    captured = capsys.readouterr()
    assert f"wrote {out / 'evaluation.json'}, {out / 'evaluation.csv'}\n" in captured.out
    notes = [line for line in captured.err.splitlines() if "matplotlib" in line]
    assert notes == ["note: evaluation.png not written: the PNG chart needs matplotlib (pip install matplotlib)"]


def test_an_illegal_move_names_the_game_and_stops_the_run():
    from uno_env.agents import Agent
    from uno_env.agents.arena import IllegalActionError

    class Cheater(Agent):
        name = "cheater"

        def act(self, observation, action_mask):
            return 72  # catch: never legal in a classic turn

    rules = make_rules("classic")
    with pytest.raises(IllegalActionError, match=r"^game 0: agent Cheater\('cheater'\) at seat 0"):
        evaluate([Cheater(rules, 2), "random"], games=2, workers=1)


@pytest.mark.parametrize("n", [2, 4])
def test_evaluate_vs_seats_the_agent_once_and_the_opponent_everywhere_else(n):
    # the training scripts' 1-vs-the-rest record; evaluate([agent, opponent]) at 4 players
    # would repeat the line-up (agent, opponent, agent, opponent)
    r = evaluate_vs("heuristic", "random", num_players=n, games=8 * n, seed=3)
    full = evaluate(["heuristic"] + ["random"] * (n - 1), num_players=n, games=8 * n, seed=3)
    assert full["config"]["agents"].count("heuristic") == 1
    assert (r["wins"], r["win_rate"], r["ci95"]) == (full["agents"][0]["wins"], full["agents"][0]["win_rate"],
                                                      full["agents"][0]["win_ci95"])
    assert r["games"] == 8 * n and r["lineup"] == f"1 vs {n - 1} random" and r["seats"] == "rotated"
    if n == 4:
        repeated = evaluate(["heuristic", "random"], num_players=4, games=32, seed=3)
        assert repeated["config"]["agents"].count("heuristic") == 2


# ---------------------------------------------------------------------- workers and folders
def test_uno_evaluate_with_40_workers_for_2_games_starts_no_process_and_says_so(monkeypatch, capsys):
    def no_pool(*args, **kwargs):
        raise AssertionError("a process pool was started")

    monkeypatch.setattr(matches_module, "mp_context_of", no_pool)
    assert main(["--agents", "random", "random", "--games", "2", "--workers", "40", "--no-progress", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("uno-evaluate: note: --workers 40: 1 worker process (the games make 1 task; "
                          "this machine lets it use ") and err.count("\n") == 1


@pytest.mark.parametrize("option", ["--log-dir", "--out"])
def test_a_folder_option_naming_a_file_is_a_one_line_error_before_any_game(monkeypatch, capsys, tmp_path, option):
    path = tmp_path / "a-file"
    path.write_text("mine")
    monkeypatch.setattr(evaluate_module, "play_matches", lambda *a, **k: pytest.fail("a game was played"))
    assert main(["--agents", "random", "random", "--games", "2", option, str(path), "--no-progress"]) == 2
    assert capsys.readouterr().err == f"uno-evaluate: error: {option} {str(path)!r} is a regular file, not a directory\n"
    assert path.read_text() == "mine"
    with pytest.raises(ValueError, match="log_dir .* is a regular file, not a directory"):
        evaluate(["random", "random"], games=2, log_dir=path)


def test_convert_checkpoint_out_naming_a_file_is_a_one_line_error(capsys, tmp_path):
    from uno_env.learn.sb3.convert import main as convert_main

    path = tmp_path / "a-file"
    path.write_text("mine")
    assert convert_main([str(tmp_path), "--out", str(path)]) == 2
    assert capsys.readouterr().err == (f"uno-convert-checkpoint: error: --out {str(path)!r} is a regular file, "
                                       f"not a directory\n")
