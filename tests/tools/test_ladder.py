"""The ladder (``uno_env.tools.ladder``): who plays at each table, fillers unrated, slow agents
on fewer games, OpenSkill ratings from the finishing order, head-to-head rates, and the
``uno-evaluate --ladder`` page."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("openskill")

from openskill.models import PlackettLuce  # noqa: E402

from uno_env.tools import ladder  # noqa: E402
from uno_env.tools.evaluate_cli import main  # noqa: E402
from uno_env.tools.matches import play_matches  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402


def test_each_table_rates_the_bots_and_the_pretrained_agents_made_for_it():
    assert ladder.table_agents("classic", 2) == ["random", "greedy", "heuristic", "search", "pretrained:classic-2p"]
    assert ladder.table_agents("classic", 4) == ["random", "greedy", "heuristic", "search", "pretrained:classic-4p"]
    assert ladder.table_agents("tmnt", 2) == ["random", "greedy", "heuristic", "search", "pretrained:tmnt-2p"]
    assert ladder.table_agents("tmnt", 4) == ["random", "greedy", "heuristic", "search"]  # no agent yet
    assert "search" not in ladder.table_agents("house", 4)  # too slow there
    assert len(ladder.TABLES) == 6


def test_two_player_matches_are_every_pair_and_a_slow_agent_meets_every_fast_one():
    fast, slow = ladder.table_matches(["random", "greedy", "heuristic", "search"], 2)
    assert fast == [["random", "greedy"], ["random", "heuristic"], ["greedy", "heuristic"]]
    assert slow == [["search", "random"], ["search", "greedy"], ["search", "heuristic"]]


def test_seats_beyond_the_fast_agents_are_filled_with_random():
    fast, slow = ladder.table_matches(["random", "greedy", "heuristic", "search"], 4)
    assert fast == [["random", "greedy", "heuristic", ladder.FILLER]]
    assert slow == [["search", "random", "greedy", "heuristic"]]


def test_a_filler_plays_but_is_not_rated():
    r = ladder.rate_table("classic", 4, agents=["heuristic", "greedy", "random"], games=8)
    assert sorted(x["agent"] for x in r["ratings"]) == ["greedy", "heuristic", "random"]
    assert all(x["games"] == 8 for x in r["ratings"])
    assert r["matches"] == [{"agents": ["heuristic", "greedy", "random", "random"], "rated": 3, "games": 8}]


def test_a_game_ranks_its_winner_first_and_the_others_tied():
    assert ladder.result_ranks(2, 4) == [2, 2, 1, 2]
    assert ladder.result_ranks(0, 2) == [1, 2]


def test_ratings_are_openskill_updates_from_each_games_winner_game_by_game():
    """The same games rated by hand with OpenSkill, in the ladder's order (game g of every
    match, then g + 1), give the ladder's ratings."""
    agents, games = ["heuristic", "greedy", "random"], 8
    r = ladder.rate_table("classic", 2, agents=agents, games=games, seed=4)
    lineups, _ = ladder.table_matches(agents, 2)
    played = play_matches(lineups, make_rules("classic"), 2, games, 4, 1, True, False,
                          engine=r["engines"]["fast"]["engine"])  # the engine the ladder played on
    model = PlackettLuce()
    rating = {a: model.rating(name=a) for a in agents}
    for g in range(games):
        for lineup, table_games in zip(lineups, played):
            game = table_games[g]
            if not game.record.truncated:
                ranks = [1 if e == game.winner_entry else 2 for e in range(len(lineup))]
                new = model.rate([[rating[a]] for a in lineup], ranks=ranks)
                for a, team in zip(lineup, new):
                    rating[a] = team[0]
    for row in r["ratings"]:
        assert row["mu"] == pytest.approx(rating[row["agent"]].mu)
        assert row["sigma"] == pytest.approx(rating[row["agent"]].sigma)
    ordinals = [row["ordinal"] for row in r["ratings"]]
    assert ordinals == sorted(ordinals, reverse=True)


def test_head_to_head_rates_of_a_pair_add_up_to_one():
    r = ladder.rate_table("classic", 2, agents=["heuristic", "greedy", "random"], games=12)
    h2h, names = r["head_to_head"]["ahead_rate"], r["head_to_head"]["agents"]
    for i in range(len(names)):
        assert h2h[i][i] is None
        for j in range(len(names)):
            if i != j:
                assert h2h[i][j] + h2h[j][i] == pytest.approx(1.0)
                assert r["head_to_head"]["games"][i][j] == 12


def test_the_heuristic_is_rated_above_random():
    r = ladder.rate_table("classic", 2, agents=["random", "heuristic"], games=200)
    assert [x["agent"] for x in r["ratings"]] == ["heuristic", "random"]


def test_a_slow_agent_plays_fewer_games_per_match_and_none_with_slow_games_0(monkeypatch):
    monkeypatch.setattr(ladder, "SLOW", frozenset({"greedy"}))
    r = ladder.rate_table("classic", 2, agents=["heuristic", "random", "greedy"], games=8, slow_games=2)
    games = {x["agent"]: x["games"] for x in r["ratings"]}
    assert games == {"heuristic": 8 + 2, "random": 8 + 2, "greedy": 2 + 2}
    r = ladder.rate_table("classic", 2, agents=["heuristic", "random", "greedy"], games=8, slow_games=0)
    assert [x["agent"] for x in r["ratings"]].count("greedy") == 0


def test_the_ratings_do_not_depend_on_the_workers():
    one = ladder.rate_table("classic", 2, agents=["heuristic", "random"], games=8, workers=1)
    two = ladder.rate_table("classic", 2, agents=["heuristic", "random"], games=8, workers=2)
    assert one["ratings"] == two["ratings"]


def test_uno_evaluate_ladder_writes_the_page_and_the_json(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ladder, "TABLES", (("classic", 2),))
    page, out = tmp_path / "LADDER.md", tmp_path / "out"
    args = ["--ladder", "--games", "4", "--slow-games", "0", "--markdown", str(page), "--out", str(out),
            "--no-progress", "--workers", "1"]
    assert main(args) == 0
    result = json.loads((out / "ladder.json").read_text())
    text = page.read_text()
    assert "uno-evaluate " + " ".join(args) in text
    assert "## classic, 2 players" in text
    for row in result["tables"][0]["ratings"]:
        assert f"`{row['agent']}` | {row['ordinal']:.2f} | {row['mu']:.2f}" in text
    assert "search" not in [r["agent"] for r in result["tables"][0]["ratings"]]


@pytest.mark.parametrize("args,words", [
    (["--agents", "random", "random", "--markdown", "x.md"], "--markdown and --slow-games need --ladder"),
    (["--ladder", "--rules", "house"], "--ladder plays its own tables"),
])
def test_ladder_options_misused_are_refused(capsys, args, words):
    with pytest.raises(SystemExit):
        main(args)
    assert words in capsys.readouterr().err


@pytest.mark.parametrize("kwargs,words", [
    (dict(agents=["random", "random"]), r"ladder agents must be distinct.*'random' twice"),
    (dict(agents=["heuristic", "random", "heuristic"]), "'heuristic' twice"),
    (dict(agents=["heuristic", "random"], games=0), "games must be >= 1"),
    (dict(agents=["heuristic", "random"], games=-4), "games must be >= 1"),
    (dict(agents=["heuristic", "random"], slow_games=-1), "slow_games >= 0"),
])
def test_rate_table_refuses_an_agent_twice_and_no_games(monkeypatch, kwargs, words):
    # one agent twice would be rated against itself with every game counted twice; no games
    # would rate nothing: refused before anything is played
    monkeypatch.setattr(ladder, "play_matches", lambda *a, **k: pytest.fail("played"))
    with pytest.raises(ValueError, match=words):
        ladder.rate_table("classic", 2, **kwargs)


@pytest.mark.parametrize("bad,words", [
    (("classic", 1), r"tables\[1\] \('classic', 1\): the player count must be an integer in 2\.\.10, got 1"),
    (("classic", 11), "the player count must be an integer in 2..10, got 11"),
    (("classic", 2.0), "the player count must be an integer in 2..10, got 2.0"),
    (("nosuch", 2), r"tables\[1\] \('nosuch', 2\): unknown rules preset 'nosuch'"),
    ("classic", r"tables\[1\] must be a pair \(preset, num_players\)"),
])
def test_run_ladder_checks_every_table_before_playing_any(monkeypatch, bad, words):
    monkeypatch.setattr(ladder, "rate_table", lambda *a, **k: pytest.fail("a table was played"))
    with pytest.raises(ValueError, match=words):
        ladder.run_ladder(games=4, tables=[("classic", 2), bad])


@pytest.mark.parametrize("where,words", [
    ("missing/LADDER.md", r"--markdown '.*missing/LADDER.md': its folder '.*missing' does not exist"),
    ("folder", r"--markdown '.*folder' is a directory, not a file it can write"),
    ("file/LADDER.md", r"--markdown '.*file/LADDER.md': '.*file' is not a directory"),
])
def test_uno_evaluate_ladder_checks_the_markdown_path_before_playing(tmp_path, monkeypatch, capsys, where, words):
    # the page is written after every table is played (minutes to hours): a path it cannot be
    # written to is a one-line error first, not a lost run naming a temporary file
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(ladder, "run_ladder", lambda *a, **k: pytest.fail("the ladder was played"))
    assert main(["--ladder", "--markdown", str(tmp_path / where), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert re.search(words, err), err
