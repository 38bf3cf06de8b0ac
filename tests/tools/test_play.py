"""The terminal program ``python -m uno_env.tools.play``: driven through a pseudo-terminal (pexpect)
and, for coverage of every decision kind, in-process with scripted input."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys

import pexpect
import pytest

import uno_env
from uno_env.agents import make_agent
from uno_env.game.engine import PHASE_NAMES
from uno_env.tools.gamelog_read import read_log
from uno_env.tools.gamelog_replay import replay
from uno_env.tools.play import HUMAN, TerminalGame

from helpers import expect_clean_exit, stacked_deck, wait_for_input

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = sys.executable
PROMPT = r"Your move \((\d+)(?:-(\d+))?, \? for help\): "
END = [r"Game over after \d+ steps\.", r"Game stopped after \d+ steps"]


def spawn(args: str, timeout: float = 30) -> pexpect.spawn:
    env = dict(os.environ, PYTHONPATH=ROOT, TERM="dumb")
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(f"{PY} -m uno_env.tools.play {args}", cwd=ROOT, env=env, encoding="utf-8",
                          timeout=timeout, dimensions=(50, 200))
    child.delaybeforesend = None  # pexpect waits 50 ms before every send by default
    return child


def n_choices(child: pexpect.spawn) -> int:
    lo, hi = child.match.group(1), child.match.group(2)
    return int(hi or lo)


def play_through(child: pexpect.spawn, choose, max_prompts: int = 5000) -> tuple[int, str]:
    """Answer every prompt with ``choose(n_choices)`` until the game ends; (prompts, end text)."""
    prompts = 0
    while True:
        i = child.expect([PROMPT] + END)
        if i > 0:
            ended = child.after
            child.expect(pexpect.EOF)
            child.close()
            return prompts, ended
        prompts += 1
        assert prompts <= max_prompts
        child.sendline(choose(n_choices(child)))


# ---------------------------------------------------------------------------- pexpect
def test_full_game_against_bots_answering_1():
    child = spawn("--rules classic --opponents random --seed 3 --no-color")
    child.expect(r"UNO, classic rules, 2 players: player_0 \(you\), player_1 \(random\)\.\r?\n")
    # the seed deals every hand: the first line does not show it, the end does
    prompts, ended = play_through(child, lambda n: "1")
    assert prompts > 0 and ended.startswith("Game over")
    assert "Seed 3: --seed 3 deals this game again." in child.before
    assert child.exitstatus == 0


def test_full_house_game_random_answers_with_log_replays(tmp_path):
    log = tmp_path / "house.jsonl"
    rng = random.Random(1)
    child = spawn(f"--rules house --set uno_call=explicit --set max_steps=1500 --opponents random random "
                  f"--seat 1 --seed 11 --no-color --log {log}")
    prompts, _ = play_through(child, lambda n: str(rng.randint(1, n)))
    assert child.exitstatus == 0 and prompts > 0
    game = read_log(log)
    assert game.header["specs"] == ["random", HUMAN, "random"]
    assert game.end["status"] in ("finished", "truncated")
    env = replay(game)
    assert env.snapshot() == game.end["snapshot"]


def test_invalid_input_is_answered_and_asked_again():
    child = spawn("--rules classic --opponents random --seed 3 --no-color")
    child.expect(PROMPT)
    n = n_choices(child)
    child.sendline("xyzzy")
    child.expect(r"Unknown input 'xyzzy': enter a number from 1 to \d+")
    child.expect(PROMPT)
    child.sendline(str(n + 5))
    child.expect(rf"There is no action {n + 5}: enter a number from 1 to {n}\.")
    child.expect(PROMPT)
    child.sendline("0")
    child.expect(r"There is no action 0")
    child.expect(PROMPT)
    child.sendline("play red-9")  # seed 3: player_0 does not hold red-9
    child.expect(r"'play red-9' is not possible now: you do not hold red-9\.")
    child.expect(PROMPT)
    child.sendline("play blue-2")  # held, but does not match yellow-6
    child.expect(r"'play blue-2' is not possible now: blue-2 does not match the top card yellow-6")
    child.expect(PROMPT)
    child.sendline("challenge")
    child.expect(r"'challenge' is not possible now")
    child.expect(PROMPT)
    child.sendline("?")
    child.expect("Enter the number of an action, or its name")
    child.expect(PROMPT)
    child.sendline("yellow-5")  # a card name alone plays it
    child.expect(r"you played yellow-5")
    child.expect(PROMPT)
    child.sendline("draw")
    child.expect(r"you drew \[you \+1 card: \S+\]")
    child.sendeof()
    child.expect("Game abandoned")
    expect_clean_exit(child)


def test_eof_ends_cleanly_and_log_is_aborted(tmp_path):
    log = tmp_path / "g.jsonl"
    child = spawn(f"--opponents random --seed 4 --no-color --log {log}")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(PROMPT)
    child.sendeof()
    child.expect("Game abandoned. Bye!")
    expect_clean_exit(child)
    game = read_log(log)
    assert game.end["status"] == "aborted" and len(game.actions) >= 1
    assert replay(game).snapshot() == game.end["snapshot"]


def test_ctrl_c_ends_cleanly():
    child = spawn("--opponents random --seed 4")
    child.expect(PROMPT)
    wait_for_input(child)  # as a person presses it: at the waiting prompt
    child.sendintr()
    child.expect("Game abandoned. Bye!")
    expect_clean_exit(child)


def strace_works() -> bool:
    return shutil.which("strace") is not None and os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children") \
        and subprocess.run(["strace", "-o", os.devnull, "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not strace_works(), reason="needs strace (and ptrace)")
def test_ctrl_c_at_once_on_a_slow_machine():
    """A loaded machine, made reproducible: strace holds the program after every write, as a
    scheduler that preempts it right after it printed the prompt. Sent at once, the Ctrl-C
    would land before the program reads and be lost (the old failure, a pexpect timeout);
    ``wait_for_input`` sends it at the waiting prompt, where it ends the game."""
    env = dict(os.environ, PYTHONPATH=ROOT, TERM="dumb")
    child = pexpect.spawn(f"strace -o {os.devnull} -e trace=write -e inject=write:delay_exit=100000 "
                          f"{PY} -m uno_env.tools.play --opponents random --seed 4 --no-color",
                          cwd=ROOT, env=env, encoding="utf-8", timeout=60, dimensions=(50, 200))
    child.delaybeforesend = None
    child.expect(PROMPT)
    with open(f"/proc/{child.pid}/task/{child.pid}/children") as f:  # the game, strace's one child
        game = int(f.read().split()[0])
    wait_for_input(child, pid=game)
    child.sendintr()
    child.expect("Game abandoned. Bye!")
    expect_clean_exit(child)


def test_colours_on_a_tty_and_quit_command():
    child = spawn("--opponents random --seed 3")
    child.expect(r"Your hand \(7\): ")
    child.expect(PROMPT)
    assert "\x1b[" in child.before  # cards are painted
    child.sendline("quit")
    child.expect("Game abandoned")
    expect_clean_exit(child)


def test_bad_arguments_exit_2():
    for args in (["--seat", "3", "--opponents", "random"], ["--rules", "nope"],
                 ["--opponents", "nobody"], ["--set", "stacking"], ["--set", "hand_size=0"]):
        r = subprocess.run([PY, "-m", "uno_env.tools.play", *args], cwd=ROOT, capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=ROOT), stdin=subprocess.DEVNULL, timeout=30)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert "error" in r.stderr


# ---------------------------------------------------------------------------- in-process
class Scripted:
    """Answers prompts for TerminalGame: by number or by action name, recording phases."""

    def __init__(self, game_ref, seed, names=True, answers=()):
        self.game_ref = game_ref
        self.rng = random.Random(seed)
        self.names = names
        self.answers = list(answers)
        self.phases = set()
        self.prompts = 0

    def __call__(self, prompt):
        game = self.game_ref[0]
        u = game.u
        self.prompts += 1
        self.phases.add(PHASE_NAMES[u.game_state.phase])
        if self.answers:
            return self.answers.pop(0)
        legal = u.legal_actions()
        i = self.rng.randrange(len(legal))
        return u.action_names[legal[i]] if self.names and self.rng.random() < 0.5 else str(i + 1)


def run_game(rules, n, seed, human=0, max_steps=3000, names=True, answers=(), deck=None, dealer=None,
             specs=None, **overrides):
    env = uno_env.raw_env(rules=rules, num_players=n, max_steps=max_steps, **overrides)
    specs = list(specs or ["random"] * n)
    specs[human] = HUMAN
    agents = {i: make_agent(specs[i], env.rules, n, seed=seed + i) for i in range(n) if i != human}
    out: list[str] = []
    ref: list = []
    reader = Scripted(ref, seed, names, answers)
    game = TerminalGame(env, human, agents, specs, seed, read=reader, write=out.append,
                        dealer=dealer, deck=deck)
    ref.append(game)
    assert game.run() == 0
    return game, reader, "\n".join(out)


def test_every_decision_kind_is_asked():
    """Across the rulesets, the human is asked every kind of decision and answers by number
    or by action name; every game ends."""
    seen: set[str] = set()
    cases = [("house", 4, dict(uno_call="explicit")), ("tmnt", 3, dict(uno_call="explicit")),
             ("classic", 3, dict(uno_call="explicit", episode="game", target_score=100))]
    for rules, n, ov in cases:
        for seed in range(6):
            game, reader, text = run_game(rules, n, seed, human=seed % n, **ov)
            assert "Game over" in text or "Game stopped" in text
            seen |= reader.phases
    missing = set(PHASE_NAMES) - {"over", "color"} - seen  # colour: test_first_card_wild_asks_colour
    assert not missing, f"never asked: {missing}"


def test_first_card_wild_asks_colour():
    deck = stacked_deck("classic", 2, dealer=1, hands={}, first="wild")
    game, reader, text = run_game("classic", 2, 0, deck=deck, dealer=1, answers=["colour green"])
    assert "The first card is wild: choose the colour." in text
    assert "color" in reader.phases
    assert "you chose colour green" in text


def test_challenge_with_reasons():
    """player_1 (random) can only play its Wild Draw Four; the human is asked to challenge."""
    hands = {0: ["red-1", "red-2", "yellow-3", "yellow-4", "green-5", "green-6", "blue-7"],
             1: ["wild-draw4", "blue-1", "blue-2", "green-3", "green-4", "yellow-6", "yellow-7"]}
    deck = stacked_deck("classic", 2, dealer=0, hands=hands, first="red-5")
    game, reader, text = run_game("classic", 2, 0, deck=deck, dealer=0, max_steps=3,
                                  answers=["play red-1", "draw 4", "challenge"])
    assert "player_1 played a Wild Draw Four on you: challenge it, or draw 4." in text
    assert "'play red-1' is not possible now: you may only challenge, draw." in text
    assert "Unknown input 'draw 4'" in text
    # player_1 held no card of the colour before (red): the challenge fails, +6 for the human
    assert "you challenged the Wild Draw Four of player_1 [you +6 cards: " in text
    assert "Game stopped after 3 steps" in text


def test_game_against_a_checkpoint(tmp_path):
    """``checkpoint:<dir>`` opponents play through the terminal (an untrained tiny model)."""
    from helpers import random_checkpoint

    ckpt = tmp_path / "ckpt"
    random_checkpoint(ckpt, "classic", 2, hidden=(8,))
    log = tmp_path / "g.jsonl"
    child = spawn(f"--rules classic --opponents checkpoint:{ckpt} --seed 5 --no-color --log {log}",
                  timeout=120)
    child.expect(r"player_1 \(checkpoint:")
    prompts, ended = play_through(child, lambda n: "1")
    assert child.exitstatus == 0 and ended.startswith("Game over")
    game = read_log(log)
    assert game.header["specs"][1] == f"checkpoint:{ckpt}"
    assert replay(game).snapshot() == game.end["snapshot"]


# ---------------------------------------------------------------------------- hidden window answers
class ScriptedBot:
    """A bot seat that plays the named actions in order (each must be legal)."""

    def __init__(self, env, names):
        self.u = env.unwrapped
        self.names = list(names)

    def reset(self, seed=None):
        pass

    def act(self, observation, mask):
        a = self.u.action_id(self.names.pop(0))
        assert mask[a], f"scripted {self.u.action_names[a]!r} is not legal"
        return a


WINDOW_SCRIPTS = {0: ["play wild red"], 1: ["catch", "uno", "play wild blue"],
                  2: ["pass", "uno", "play wild green"]}


def window_game(random_pick: bool, seed: int = 0, scripts=WINDOW_SCRIPTS):
    """classic + jump-in + explicit UNO, 4 players with 2 cards each, the human at seat 3.

    With the default ``scripts``: player_0 plays a wild without calling UNO; player_1 catches,
    player_2 and the human pass. In the jump-in window player_1 and player_2 (both holding a
    wild, 2 cards) each call UNO and jump in; the human passes. One jump-in is played; the
    game stops after these 9 steps. Returns the game and the output, one string per write."""
    ov = dict(hand_size=2, uno_call="explicit", jump_in=True, jump_in_random_pick=random_pick,
              max_steps=9)
    rules = uno_env.make_rules("classic", **ov)
    hands = {0: ["wild", "red-3"], 1: ["wild", "blue-4"], 2: ["wild", "green-6"], 3: ["wild", "yellow-8"]}
    deck = stacked_deck(rules, 4, dealer=3, hands=hands, first="red-1", draw_top=["red-2", "red-4"])
    env = uno_env.raw_env(rules=rules, num_players=4)
    agents = {seat: ScriptedBot(env, names) for seat, names in scripts.items()}
    out: list[str] = []
    answers = iter(["pass"] * 3)
    game = TerminalGame(env, 3, agents, ["heuristic"] * 3 + [HUMAN], seed, read=lambda _: next(answers),
                        write=out.append, dealer=3, deck=deck)
    assert game.run() == 0
    return game, out


def test_catch_window_shows_the_penalty_not_the_catchers():
    game, out = window_game(random_pick=False)
    text = "\n".join(out)
    assert "player_0 was caught without UNO [player_0 +2 cards]" in text
    assert " caught player_0" not in text


def test_jump_in_window_shows_only_the_played_jump_in_and_its_uno_call():
    """Several players jump in and call UNO in the window: only the jump-in that is played
    (and that player's UNO call, which then takes effect) is told; the others stay hidden."""
    chosen_seen = set()
    for seed in range(12):
        game, out = window_game(random_pick=True, seed=seed)
        text = "\n".join(out)
        s = game.u.game_state
        (chosen,) = [q for q in (1, 2) if s.hands[q, game.u.card_names.index("wild")] == 0]
        other = 3 - chosen
        chosen_seen.add(chosen)
        assert s.uno_called[chosen] and not s.uno_called[other]
        colour = {1: "blue", 2: "green"}[chosen]
        assert f"player_{chosen} called UNO!\n  player_{chosen} jumped in with wild, colour {colour}" in text
        assert f"player_{other} called UNO" not in text
        assert f"player_{other} jumped" not in text
        assert text.count("jumped in") == 1
    assert chosen_seen == {1, 2}


def test_jump_in_window_first_in_order_pick():
    game, out = window_game(random_pick=False)
    text = "\n".join(out)
    assert "player_1 called UNO!\n  player_1 jumped in with wild, colour blue" in text
    assert "player_2 called UNO" not in text and "player_2 jumped" not in text


def test_screens_before_a_window_answer_do_not_depend_on_hidden_answers():
    """What the human sees up to its jump-in decision is the same whether the players asked
    before it called UNO and jumped in or not (no step count shows the hidden answers)."""
    quiet = {0: ["play wild red"], 1: ["catch", "play wild blue"], 2: ["pass", "pass", "pass"]}
    _, loud_out = window_game(random_pick=False)
    _, quiet_out = window_game(random_pick=False, scripts=quiet)
    last_prompt = max(i for i, line in enumerate(loud_out) if line.startswith("You hold the same card"))
    assert loud_out[:last_prompt + 1] == quiet_out[:last_prompt + 1]


def test_house_games_tell_only_public_window_outcomes(monkeypatch):
    """Seeded house games with explicit UNO, with windows where several players jump in and
    calls UNO that lapse: the text tells one line per jump-in played, one per UNO call that
    the state shows (``uno_called`` flips), and never who caught a player."""
    from uno_env.game import actions as A
    from uno_env.game.engine import JUMP

    counts = {"jumps": 0, "calls": 0, "multi": 0, "lapsed": 0}
    apply = TerminalGame.apply

    def counting_apply(self, action):
        s = self.u.game_state
        called, uno = list(s.uno_called), set()
        if s.phase == JUMP and action != A.UNO and len(s.queue) == 1:  # the window closes
            answers = s.answers + [(s.actor, action)]
            jumpers = {q for q, a in answers if a < A.DRAW}
            counts["jumps"] += bool(jumpers)
            counts["multi"] += len(jumpers) > 1
            uno = {q for q, a in answers if a == A.UNO}
        apply(self, action)
        flipped = {q for q, (b, a) in enumerate(zip(called, self.u.game_state.uno_called)) if a and not b}
        counts["calls"] += len(flipped)
        counts["lapsed"] += len(uno - flipped)

    monkeypatch.setattr(TerminalGame, "apply", counting_apply)
    text = ""
    for seed in range(6):
        _, _, t = run_game("house", 4, seed, human=seed % 4, uno_call="explicit", max_steps=1500)
        text += t + "\n"
    lines = text.splitlines()
    assert sum(" jumped in with " in line for line in lines) == counts["jumps"] > 0
    assert sum(" called UNO!" in line for line in lines) == counts["calls"] > 0
    assert counts["multi"] > 0 and counts["lapsed"] > 0
    assert any(" was caught without UNO" in line for line in lines)
    assert not any(re.search(r"(?<!nobody) caught (player_\d|you)", line) for line in lines)


def test_catch_window_nobody_caught_is_told_at_the_next_decision():
    """A catch window that closes without a catch leaves no event: the human, who answered it,
    is told at its next decision that nobody caught the player."""
    scripts = {0: ["play wild red"], 1: ["pass", "pass", "play wild blue"], 2: ["pass", "pass", "pass"]}
    game, out = window_game(random_pick=False, scripts=scripts)
    text = "\n".join(out)
    jump_prompt = next(i for i, line in enumerate(out) if line.startswith("You hold the same card"))
    assert "  nobody caught player_0 (no UNO call)" in out[:jump_prompt]
    assert "was caught" not in text and " caught " not in text.replace("nobody caught", "")


OFFER_HANDS = {0: ["yellow-1", "yellow-2", "yellow-3"], 1: ["green-4", "green-5", "green-6"],
               2: ["blue-7", "blue-8", "blue-9"]}


def offer_game(scripts, human_answers, max_steps):
    """classic + giving cards, 3 players, the human at seat 2: player_0 cannot play on red-5 and
    asks; player_1 and then the human are asked for an offer. DRAW starts with yellow-9 and
    yellow-8, which play on nothing here. Returns the output, one string per write."""
    rules = uno_env.make_rules("classic", hand_size=3, giving=True, max_steps=max_steps)
    deck = stacked_deck(rules, 3, dealer=2, hands=OFFER_HANDS, first="red-5", draw_top=["yellow-9", "yellow-8"])
    env = uno_env.raw_env(rules=rules, num_players=3)
    agents = {seat: ScriptedBot(env, names) for seat, names in scripts.items()}
    out: list[str] = []
    answers = iter(human_answers)
    game = TerminalGame(env, 2, agents, ["heuristic", "heuristic", HUMAN], 0, read=lambda _: next(answers),
                        write=out.append, dealer=2, deck=deck)
    assert game.run() == 0
    return out


def test_offers_are_told_when_the_window_closes_never_who_passed():
    out = offer_game({0: ["ask", "take 1"], 1: ["offer green-4"]}, ["offer blue-7"], max_steps=4)
    text = "\n".join(out)
    assert "Since your last decision:\n  player_0 asked the others for a card\n" in text
    assert ("Last moves:\n  player_1 offered green-4\n  you offered blue-7\n"
            "  player_0 took player_1's offer green-4\n  player_0 drew [player_0 +1 card]\n") in text
    # the human's offer prompt does not depend on player_1's (earlier, hidden) answer
    quiet = offer_game({0: ["ask", "take 2"], 1: ["pass"]}, ["offer blue-7"], max_steps=4)
    prompt = next(i for i, line in enumerate(out) if line.endswith("asks for a card: offer one of yours or pass."))
    assert out[:prompt + 1] == quiet[:prompt + 1]
    quiet_text = "\n".join(quiet)
    assert "player_1 offered" not in quiet_text and "player_1 passed" not in quiet_text
    assert "Last moves:\n  you offered blue-7\n  player_0 took your offer blue-7\n" in quiet_text


def test_an_ask_without_offers_and_an_offer_refused():
    text = "\n".join(offer_game({0: ["ask"], 1: ["pass"]}, ["pass"], max_steps=3))
    assert "Last moves:\n  nobody offered a card\n  player_0 drew [player_0 +1 card]\n" in text
    assert " offered " not in text.replace("nobody offered", "")
    text = "\n".join(offer_game({0: ["ask", "pass"], 1: ["offer green-4"]}, ["pass"], max_steps=4))
    assert "Last moves:\n  player_1 offered green-4\n  player_0 took no offer and drew [player_0 +1 card]\n" in text
    assert "you offered" not in text


def test_terminal_game_reads_no_window_internals():
    """The narration comes from the engine's public events: the terminal game's code never
    reads a window's queue or its hidden answers."""
    import inspect

    from uno_env.tools import narrate, play

    for module in (play, narrate):
        source = inspect.getsource(module)
        assert ".queue" not in source and ".answers" not in source, module.__name__


def narration_lines(text: str) -> list[str]:
    """The narrated lines of a game's output: the deal's (before the first table) and those
    listed under "Since your last decision:" / "Last moves:"."""
    lines = text.splitlines()
    out = lines[1:lines.index("-" * 64)]
    block = False
    for line in lines:
        if line in ("Since your last decision:", "Last moves:"):
            block = True
        elif block and line.startswith("  "):
            out.append(line[2:])
        else:
            block = False
    return out


def test_narration_tells_every_hand_size_change():
    """Someone who reads only the narration can follow every hand size: the plays, jump-ins
    and discards (-1), the draws, penalties and catches in brackets (+n), the offers taken and
    the deals add up to the table at the end of the game."""
    for rules, n, ov in [("house", 4, dict(uno_call="explicit")), ("tmnt", 3, dict(uno_call="explicit")),
                         ("classic", 3, dict(uno_call="explicit", jump_in=True, stacking=True, episode="game",
                                             target_score=100))]:
        for seed in range(3):
            human = seed % n
            game, _, text = run_game(rules, n, seed, human=human, max_steps=600, **ov)
            seat = {f"player_{i}": i for i in range(n)} | {"you": human, "your": human}
            sizes = [0] * n
            for line in narration_lines(text):
                if "dealt; the first card is" in line or re.match(r"\*\*\* .*Round \d+: ", line):
                    sizes = [game.u.rules.hand_size] * n
                m = re.match(r"(\S+) (played|jumped in with|discarded the villain) ", line)
                if m:
                    sizes[seat[m.group(1)]] -= 1
                m = re.match(r"(\S+) took (player_\d+|your)(?:'s)? offer ", line)
                if m:
                    sizes[seat[m.group(1)]] += 1
                    sizes[seat[m.group(2)]] -= 1
                m = re.search(r" \[(.*)\]$", line)
                for effect in m.group(1).split(", ") if m else ():
                    who, count = re.match(r"(\S+) \+(\d+) cards?", effect).groups()
                    sizes[seat[who]] += int(count)
            assert sizes == game.u.game_state.hand_size, (rules, seed)
