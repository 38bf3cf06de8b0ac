"""Golden playthroughs of the battle-card games (tests/battle/golden/*.txt): the code still plays
every seeded game line for line. After an intended change of the rules, the events or the
view, regenerate them with ``python -m uno_env.battle.tools.playthrough --regen`` and review
``git diff tests/battle/golden``."""

from __future__ import annotations

import os

import pytest

from uno_env.battle.game import GAMES
from uno_env.battle.game.rules import RULES_CLASSES, make_rules
from uno_env.battle.tools import playthrough as P


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
                    f"`git diff tests/battle/golden`.", pytrace=False)


def test_golden_files_are_exactly_the_listed_games():
    assert set(os.listdir(P.GOLDEN_DIR)) == {f"{g.name}.txt" for g in P.GOLDEN}


NON_DEFAULT = {"battle": ("view", "choice", "chooser", "tie"), "dragon": ("race", "false_cover", "remainder"),
               "attack": ("beat", "tie", "hand_size", "at_top"), "names": ("guess", "restrictions", "in_a_row"),
               "bonus": ("bluff", "challenge_cost", "no_repeat", "answered"),
               "elusive": ("shout", "take", "race", "deal", "deal_to", "unshouted")}


def test_golden_games_cover_every_game_its_options_and_2_to_4_players():
    assert {g.game for g in P.GOLDEN} == set(GAMES) and {g.players for g in P.GOLDEN} == {2, 3, 4}
    for game, options in NON_DEFAULT.items():
        default = RULES_CLASSES[game]()
        for option in options:
            assert any(getattr(make_rules(g.game, g.rules, **g.overrides), option) != getattr(default, option)
                       for g in P.GOLDEN if g.game == game), (game, option)


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


def test_a_playthrough_is_the_same_for_the_same_seed_and_shows_the_deciding_players_view():
    a = P.playthrough("attack", 3, 11, 20)
    assert a == P.playthrough("attack", 3, 11, 20) != P.playthrough("attack", 3, 12, 20)
    decisions = [x for x in a if x.startswith("[")]
    assert len(decisions) == sum(x.startswith("  legal  ") for x in a) == sum(x.startswith("  action ") for x in a)
    assert a[-1].startswith("end: game over after 15 decisions")


def test_the_command_line_prints_a_playthrough_and_refuses_bad_arguments(capsys):
    assert P.main(["--game", "names", "--players", "3", "--seed", "1", "--max-decisions", "5"]) == 0
    assert "[5] player_" in capsys.readouterr().out
    for argv in (["--players", "9"], ["--seed", "-1"], ["--set", "view=maybe"], ["--max-decisions", "0"]):
        with pytest.raises(SystemExit) as e:
            P.main(argv)
        assert e.value.code == 2
