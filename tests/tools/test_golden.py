"""Golden playthroughs (tests/golden/*.txt): the code still plays every seeded game line for line.

A failure shows the first differing line. After an intended change of the rules, the events,
the observation or its summary, regenerate the files with
``python -m uno_env.tools.playthrough --regen`` and review ``git diff tests/golden``.
"""

from __future__ import annotations

import os

import pytest

from uno_env.game.rules import make_rules
from uno_env.tools import playthrough as P


@pytest.mark.parametrize("golden", P.GOLDEN, ids=[g.name for g in P.GOLDEN])
def test_golden_playthrough_is_unchanged(golden):
    path = P.golden_path(golden)
    assert os.path.exists(path), f"{path} is missing; create it with: {P.REGEN_COMMAND}"
    with open(path, encoding="utf-8") as fh:
        expected = fh.read().splitlines()
    diff = P.first_difference(expected, P.golden_lines(golden))
    if diff is not None:
        pytest.fail(f"{os.path.relpath(path)} differs from the game the code plays now, at {diff}\n"
                    f"If the change is intended, regenerate with `{P.REGEN_COMMAND}` and review "
                    f"`git diff tests/golden`.", pytrace=False)


def test_golden_files_are_exactly_the_listed_games():
    listed = {f"{g.name}.txt" for g in P.GOLDEN}
    assert set(os.listdir(P.GOLDEN_DIR)) == listed


def test_golden_games_cover_every_preset_variant_and_player_counts_2_to_4():
    variants = {(g.preset, tuple(sorted(g.overrides.items()))) for g in P.GOLDEN}
    for preset in ("classic", "tmnt", "house"):
        assert (preset, ()) in variants and (preset, (("uno_call", "explicit"),)) in variants
    assert ("house", tuple(sorted(P.EVERYTHING.items()))) in variants
    assert {g.players for g in P.GOLDEN} <= {2, 3, 4} and {2, 3, 4} <= {g.players for g in P.GOLDEN}


def test_first_difference_names_the_line_and_both_texts():
    assert P.first_difference(["a", "b"], ["a", "b"]) is None
    assert P.first_difference(["a", "b", "c"], ["a", "x", "c"]) == "line 2:\n  golden: b\n  now:    x"
    assert P.first_difference(["a"], ["a", "more"]) == "line 2: only the now text goes on:\n  now: more"
    assert P.first_difference(["a", "gone"], ["a"]) == "line 2: only the golden text goes on:\n  golden: gone"


def test_check_reports_an_edited_golden_file_and_regen_repairs_it(tmp_path, capsys):
    P.regen(str(tmp_path))
    assert P.main(["--check", "--golden-dir", str(tmp_path)]) == 0
    path = tmp_path / f"{P.GOLDEN[0].name}.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[7] += " (edited)"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert P.main(["--check", "--golden-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "line 8:" in out and "(edited)" in out and P.REGEN_COMMAND in out
    assert P.main(["--regen", "--golden-dir", str(tmp_path)]) == 0
    assert P.main(["--check", "--golden-dir", str(tmp_path)]) == 0


def test_a_playthrough_shows_every_decision_with_its_view_legal_actions_and_events():
    lines = P.playthrough("classic", 2, 5, max_decisions=20)
    decisions = [line for line in lines if line.startswith("[")]
    assert decisions[0].startswith("[1] player_") and len(decisions) <= 20
    assert sum(line.startswith("  legal  ") for line in lines) == len(decisions)
    assert sum(line.startswith("  action ") for line in lines) == len(decisions)
    assert sum(line.startswith("  view   phase ") for line in lines) == len(decisions)
    assert any(" plays " in line for line in lines if line.startswith("  -> "))
    assert lines[-1].startswith("end: ")


def test_a_playthrough_is_the_same_for_the_same_seed_and_differs_for_another():
    rules = make_rules("tmnt", uno_call="explicit")
    assert P.playthrough(rules, 3, 11, 40) == P.playthrough(rules, 3, 11, 40)
    assert P.playthrough(rules, 3, 11, 40) != P.playthrough(rules, 3, 12, 40)


def test_a_finished_game_ends_with_the_winner_and_returns_summing_to_zero():
    lines = P.playthrough("classic", 2, 5, max_decisions=10_000)
    end = lines[-1]
    assert end.startswith("end: game over after ") and "winner player_" in end
    returns = [float(x) for x in end.split("returns ")[1].split()]
    assert sorted(returns) == [-1.0, 1.0]


def test_cli_prints_a_playthrough_with_agents(capsys):
    assert P.main(["--rules", "tmnt", "--seed", "4", "--max-decisions", "5",
                   "--agents", "random", "heuristic", "greedy"]) == 0  # 3 players: one per agent
    out = capsys.readouterr().out
    assert "policy agents random heuristic greedy" in out and "[5] player_" in out


@pytest.mark.parametrize("argv, message", [
    (["--players", "11"], "num_players"),
    (["--set", "stacking=maybe"], "stacking"),
    (["--players", "3", "--agents", "random", "random"], "one spec per seat"),
    (["--seed", "-1"], "--seed"),
    (["--max-decisions", "0"], "max_decisions"),
])
def test_cli_bad_arguments_exit_2_with_the_reason(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        P.main(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err
