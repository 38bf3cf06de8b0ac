"""``uno-battle``: each game played in the terminal against bots, answers by number or name,
bad answers asked again, quitting, logs, and what the human is shown."""

from __future__ import annotations

import re

import numpy as np
import pytest

from uno_env.battle.game import GAMES, TITLES
from uno_env.battle.tools import play as P
from uno_env.battle.tools.gamelog import read_log, replay


class Script:
    """Answers from a list, then ``default`` for ever; records the prompts' output."""

    def __init__(self, answers=(), default="1"):
        self.answers, self.default, self.out = list(answers), default, []

    def read(self, prompt):
        if self.answers:
            x = self.answers.pop(0)
            if isinstance(x, BaseException):
                raise x
            return x
        if self.default is None:
            raise EOFError
        return self.default

    def write(self, text):
        self.out.append(str(text))

    @property
    def text(self):
        return "\n".join(self.out)


@pytest.mark.parametrize("game", GAMES)
def test_each_game_can_be_played_to_the_end_against_a_bot(game, tmp_path):
    s = Script()
    extra = ["--set", "max_rounds=40"] if game in ("bonus", "names") else []
    code = P.main(["--game", game, "--seed", "3", "--log", str(tmp_path / "g.jsonl")] + extra, s.read, s.write)
    assert code == 0 and s.text.startswith(TITLES[game]) and "(seed 3)" in s.out[-1]
    assert "you win!" in s.text or "winner:" in s.text or "you share the win" in s.text
    log = read_log(tmp_path / "g.jsonl")
    assert log.end["status"] == "finished" and log.header["specs"] == ["human", "strong"]
    assert replay(log)[1].game_over


def test_an_answer_may_be_a_number_a_name_or_its_unique_beginning():
    game = P.TerminalGame(P.make_engine("battle", None, None, 2, record_events=True), 0, ["human", "strong"], 1)
    legal = game.options() if game.state.actor == 0 else list(range(4))
    assert game.parse("2", legal) == (legal[1], None)
    assert game.parse("name skill", legal)[0] == 3 and game.parse("SKILL", legal)[0] == 3
    assert game.parse("str", legal)[0] == 2 and game.parse("  Strength ", legal)[0] == 2
    assert game.parse("9", legal) == (None, "9 is not one of the numbers 1..4")
    assert "could be" in game.parse("name", legal)[1] and "not a legal action" in game.parse("luck", legal)[1]
    assert "not a legal action" in game.parse("²", legal)[1] and "not one of" in game.parse("0", legal)[1]


def test_bad_answers_are_asked_again_and_help_and_table_are_shown():
    s = Script(["luck", "?", "table", "strength"], default=None)
    assert P.main(["--game", "battle", "--seed", "5", "--opponents", "random"], s.read, s.write) == 0
    assert "'luck' is not a legal action now" in s.text and "Enter the number of an action" in s.text
    assert "game ended by the player (seed 5)" in s.text  # end of input ends the game


def test_table_shows_the_table_and_the_numbered_actions_again():
    engine = P.make_engine("battle", None, None, 2, record_events=True)
    s = Script(["table"], default=None)
    game = P.TerminalGame(engine, 0, ["human", "strong"], 1, s.read, s.write, first=0)
    with pytest.raises(P.Quit):
        game.ask_human()
    assert s.text.count("your decision (choose)") == 2 and s.text.count("  1. name ingenuity") == 2


@pytest.mark.parametrize("game", GAMES)
def test_the_final_table_says_the_game_is_over_and_names_no_next_player(game):
    s = Script()
    extra = ["--set", "max_rounds=40"] if game in ("bonus", "names") else []
    assert P.main(["--game", game, "--seed", "3"] + extra, s.read, s.write) == 0
    header = s.out[-3].splitlines()[0]  # the final table, then the winner and the scores
    assert " over after " in header and "next" not in header and "leader" not in header
    assert "chooser" not in header and "turn " not in header and "exchange 41" not in header


def test_counts_of_one_are_singular_on_the_table():
    engine = P.make_engine("attack", None, None, 2, record_events=True)
    state = engine.new_state(np.random.default_rng(0), first=0)
    state.won = [1, 2]
    text = engine.describe(state, 0)
    assert "player_0: 1 round won" in text and "player_1: 2 rounds won" in text
    dragon = P.make_engine("dragon", None, None, 2, record_events=True)
    s = dragon.new_state(np.random.default_rng(0), first=0)
    s.piles[1] = type(s.piles[1])(list(s.piles[1])[:1])
    assert re.search(r"player_1: +1 card$", dragon.describe(s, 0), re.M)


def test_quit_and_ctrl_c_end_the_game_and_the_log_says_aborted(tmp_path):
    s = Script(["quit"])
    assert P.main(["--game", "dragon", "--seed", "2", "--log", str(tmp_path / "q.jsonl")], s.read, s.write) == 0
    assert read_log(tmp_path / "q.jsonl").end["status"] == "aborted"
    s = Script([KeyboardInterrupt()])
    assert P.main(["--game", "names", "--seed", "2"], s.read, s.write) == 0 and "ended by the player" in s.text


def test_the_human_sees_only_its_own_top_card_before_naming_a_skill():
    engine = P.make_engine("battle", None, None, 2, record_events=True)
    deck = sorted(engine.deck)
    s = Script([], default=None)
    game = P.TerminalGame(engine, 0, ["human", "strong"], 1, s.read, s.write, first=0, deck=deck)
    with pytest.raises(P.Quit):
        game.ask_human()
    mine, theirs = (engine.card_names[p[0]] for p in game.state.piles)
    assert f"top {mine}" in s.text and theirs not in s.text


def test_in_a_window_the_human_answers_without_seeing_the_others_answers():
    engine = P.make_engine("dragon", None, None, 3, record_events=True)
    s = Script(["quit"])
    game = P.TerminalGame(engine, 2, ["strong", "strong", "human"], 4, s.read, s.write, first=0)
    game.run()
    asked_at = s.text.index("your decision (cover)")
    assert "covers it" not in s.text[:asked_at].split("turns")[-1]  # the bots' answers of this window are not told


@pytest.mark.parametrize("argv, message", [
    (["--seat", "3"], "--seat must be in 0..1"),
    (["--opponents", "heuristic"], "unknown battle agent spec"),
    (["--set", "tie=maybe"], "battle rule 'tie'"),
    (["--seed", "-1"], "--seed"),
    (["--game", "attack", "--opponents", "strong", "strong", "strong", "strong"], "need 30 characters"),
    (["--cards", "missing.yaml"], "cannot be read"),
])
def test_bad_arguments_exit_2_with_the_reason(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        P.main(argv, Script().read, Script().write)
    assert e.value.code == 2 and message in capsys.readouterr().err
