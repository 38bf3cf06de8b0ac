"""Bad input to the terminal game (``uno-play``) and to game logs (``read_log``, ``uno-replay``):
a re-prompt for in-game answers, a one-line error with exit code 2 for arguments and files,
never a traceback."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pexpect
import pytest

import uno_env
from uno_env.agents import make_agent
from uno_env.tools.gamelog import ReplayError, record_game
from uno_env.tools.gamelog_read import read_log
from uno_env.tools.gamelog_replay import replay
from uno_env.tools.play import HUMAN, TerminalGame
from uno_env.tools.gamelog_read import MAX_LOG_LINE_BYTES
from uno_env.tools.replay import main as replay_main

from helpers import NOT_REGULAR, expect_clean_exit, not_a_regular_file, run_bounded

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = sys.executable
PROMPT = r"Your move \((\d+)(?:-(\d+))?, \? for help\): "


def run_cli(module, *args, stdin=subprocess.DEVNULL):
    return subprocess.run([PY, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT), stdin=stdin, timeout=60)


def assert_one_line_error(r, program):
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith(f"{program}: error: ")


# ---------------------------------------------------------------------------- uno-play answers
def answers_game(answers):
    """A 2-player game whose human answers ``answers`` then quits; the lines it wrote."""
    env = uno_env.raw_env(rules="classic", num_players=2)
    agents = {1: make_agent("random", env.rules, 2, seed=1)}
    queue = list(answers) + ["quit"]
    out: list[str] = []
    game = TerminalGame(env, 0, agents, [HUMAN, "random"], seed=3, read=lambda _: queue.pop(0),
                        write=out.append)
    assert game.run() == 0
    return out


@pytest.mark.parametrize("answer,reply", [
    ("9" * 5000, r"There is no action 9{37}\.\.\.: enter a number from 1 to \d+"),
    ("-" + "9" * 5000, r"There is no action -9{36}\.\.\."),
    ("²", r"Unknown input '²'"),
    ("٣", r"Unknown input '٣'"),
    ("x" * 100_000, r"Unknown input 'x{37}\.\.\.'"),
    ("\x00\x1b[31m", r"Unknown input"),
])
def test_long_numbers_and_non_ascii_digits_are_answered_and_asked_again(answer, reply):
    import re

    out = answers_game([answer])
    said = [line for line in out if re.search(reply, line)]
    assert said and all(len(line) < 200 for line in said)
    assert out[-1] == "Game abandoned. Bye!"


def test_unreadable_answer_is_answered_and_asked_again():
    env = uno_env.raw_env(rules="classic", num_players=2)
    answers = iter([UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "quit"])

    def read(_):
        a = next(answers)
        if isinstance(a, Exception):
            raise a
        return a

    out: list[str] = []
    game = TerminalGame(env, 0, {1: make_agent("random", env.rules, 2, seed=1)}, [HUMAN, "random"],
                        seed=3, read=read, write=out.append)
    assert game.run() == 0
    assert any("not UTF-8 text" in line for line in out)


def test_non_utf8_answer_on_a_terminal_is_asked_again():
    env = dict(os.environ, PYTHONPATH=ROOT, TERM="dumb")
    child = pexpect.spawn(f"{PY} -m uno_env.tools.play --opponents random --seed 3 --no-color", cwd=ROOT,
                          env=env, encoding="utf-8", codec_errors="replace", timeout=30)
    child.expect(PROMPT)
    os.write(child.child_fd, b"\xff\xfe\xc3\n")
    child.expect(r"Unknown input '.*': enter a number")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect("Game abandoned")
    expect_clean_exit(child)


def test_non_utf8_answers_on_piped_input_are_asked_again():
    r = subprocess.run([PY, "-m", "uno_env.tools.play", "--opponents", "random", "--seed", "3", "--no-color"],
                       cwd=ROOT, capture_output=True, env=dict(os.environ, PYTHONPATH=ROOT),
                       input=b"\xff\xfe\n\xc2\xb2\n1\nquit\n", timeout=60)
    out = r.stdout.decode("utf-8", "replace")
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    assert out.count("Unknown input") == 2 and "Game abandoned" in out


# ---------------------------------------------------------------------------- uno-play arguments
def bad_rules_files(tmp):
    files = {"malformed.yaml": b"stacking: [true\n", "latin1.yaml": b"name: caf\xe9\n",
             "self.yaml": b"preset: self\n", "huge.yaml": b"count_wild: 1000000000\n",
             "faces.yaml": b"preset: tmnt\nvillain_faces: 5\n", "keys.yaml": b"1: 2\n"}
    for name, content in files.items():
        (tmp / name).write_bytes(content)
    return [str(tmp / name) for name in files]


@pytest.mark.parametrize("args", [
    ["--seed", "-1"], ["--seed", "9" * 5000], ["--seed", "²"], ["--seed", "1.5"],
    ["--seat", "9" * 5000], ["--set", "villain_faces=5"], ["--set", "count_wild=1000000000"],
    ["--set", "max_steps=1e400"], ["--set", "name=\x1b[2J"], ["--rules", "nope.yaml"],
])
def test_bad_play_arguments_are_one_line_errors_with_exit_2(args):
    assert_one_line_error(run_cli("uno_env.tools.play", "--opponents", "random", *args), "uno-play")


def test_bad_rules_yaml_is_a_one_line_error_naming_the_file(tmp_path):
    for path in bad_rules_files(tmp_path):
        r = run_cli("uno_env.tools.play", "--opponents", "random", "--rules", path)
        assert_one_line_error(r, "uno-play")
        assert os.path.basename(path) in r.stderr.splitlines()[-1]


# ---------------------------------------------------------------------------- logs
@pytest.fixture(scope="module")
def good_log():
    env = uno_env.raw_env(rules="classic", num_players=2)
    out = io.StringIO()
    record_game(env, [make_agent("random", env.rules, 2, seed=i) for i in range(2)], out, seed=5)
    return out.getvalue().splitlines()


def with_header(lines, **changes):
    header = json.loads(lines[0])
    header.update(changes)
    return [json.dumps(header)] + lines[1:]


def test_header_with_num_players_1e400_is_rejected_naming_the_line(good_log):
    lines = [good_log[0].replace('"num_players":2', '"num_players":1e400')] + good_log[1:]
    assert lines != good_log
    with pytest.raises(ValueError, match=r"<log>:1: bad header: 'num_players' must be an integer in 2\.\.10, got inf"):
        read_log(lines)


@pytest.mark.parametrize("rule,value", [("count_wild", 10 ** 9), ("hand_size", 10 ** 6),
                                        ("max_steps", 10 ** 12), ("villain_faces", 5)])
def test_header_with_absurd_rule_values_is_rejected(good_log, rule, value):
    header = json.loads(good_log[0])
    lines = with_header(good_log, rules={**header["rules"], rule: value})
    with pytest.raises(ValueError, match=rf"<log>:1: bad header: 'rules': rule '{rule}'"):
        read_log(lines)


def test_non_utf8_line_is_named(tmp_path, good_log):
    path = tmp_path / "g.jsonl"
    data = [line.encode() for line in good_log]
    data[3] = data[3][:20] + b"\xff" + data[3][21:]
    path.write_bytes(b"\n".join(data) + b"\n")
    with pytest.raises(ValueError, match=r"g\.jsonl:4: not UTF-8 text"):
        read_log(str(path))
    assert replay_main([str(path), "--quiet"]) == 2


@pytest.mark.parametrize("change,message", [
    (lambda h: h.update(num_players=True), "'num_players' must be an integer"),
    (lambda h: h.update(num_players=11), "'num_players' must be an integer in 2..10"),
    (lambda h: h.update(dealer=2), r"'dealer' must be a seat in 0\.\.1"),
    (lambda h: h.update(dealer=0.5), "'dealer' must be a seat"),
    (lambda h: h.update(seed=-3), r"'seed' must be an integer in 0\.\.2\*\*128-1"),
    (lambda h: h.update(seed="7"), r"'seed' must be an integer in 0\.\.2\*\*128-1"),
    (lambda h: h.update(seed=2 ** 128), r"'seed' must be an integer in 0\.\.2\*\*128-1 or null, got <integer"),
    (lambda h: h.update(seed=int("9" * 4000)), r"'seed' must be an integer in 0\.\.2\*\*128-1"),
    (lambda h: h.update(deck="red-1"), "'deck' must be a list of card strings"),
    (lambda h: h.update(specs=["random"]), "'specs' must be a list of 2 agent specs"),
    (lambda h: h.update(rules=["classic"]), "'rules' must be a mapping"),
    (lambda h: h.update(rules={"count_wild": 5, "3": 4}), r"unknown rule key\(s\) \[.3.\]"),
    (lambda h: h.update(rng={"state": {"bit_generator": "PCG64", "state": 5}, "draw_dealer": True,
                             "shuffle": True}), "'rng': malformed PCG64 RNG state"),
    (lambda h: h.update(rng={"state": {"bit_generator": "os.system"}, "draw_dealer": True,
                             "shuffle": True}), "unknown bit generator"),
    (lambda h: h.update(specs=["\x1b]0;pwned\x07", "random"]), "control characters"),
])
def test_malformed_headers_name_the_line_and_the_field(good_log, change, message):
    header = json.loads(good_log[0])
    change(header)
    with pytest.raises(ValueError, match=message):
        read_log([json.dumps(header)] + good_log[1:])


@pytest.mark.parametrize("change,message", [
    (lambda r: r.update(action=3.7), "field 'action'"),
    (lambda r: r.update(action="3"), "field 'action'"),
    (lambda r: r.pop("agent"), "field 'agent'"),
    (lambda r: r.update(hand="red-1"), "'hand' must be a list"),
    (lambda r: r.update(after=[1]), "'after' must be a mapping"),
    (lambda r: r.update(name="\x1b[2J"), "control characters"),
])
def test_malformed_action_records_name_the_line(good_log, change, message):
    rec = json.loads(good_log[2])
    change(rec)
    lines = good_log[:2] + [json.dumps(rec)] + good_log[3:]
    with pytest.raises(ValueError, match=rf"<log>:3: .*{message}"):
        read_log(lines)


@pytest.mark.parametrize("line,message", [
    ('{"type": "header", "num_players": NaN}', "NaN is not a JSON number"),
    ('{"n": ' + "9" * 5000 + "}", "not JSON"),
    ("[" * 100_000, "not JSON"),
    ("[1, 2]", "a record must be a JSON object"),
])
def test_lines_that_are_not_json_records_are_named(line, message):
    with pytest.raises(ValueError, match=rf"<log>:1: .*{message}"):
        read_log([line])


def test_action_id_beyond_the_layout_does_not_replay(good_log):
    rec = json.loads(good_log[1])
    rec["action"] = 10 ** 30
    with pytest.raises(ReplayError, match="is not the logged action"):
        replay(read_log([good_log[0], json.dumps(rec)]))


def test_replay_cli_bad_logs_are_one_line_errors_with_exit_2(tmp_path, good_log):
    header = json.loads(good_log[0])
    cases = {
        "inf.jsonl": [good_log[0].replace('"num_players":2', '"num_players":1e400')],
        "count.jsonl": with_header(good_log, rules={**header["rules"], "count_wild": 10 ** 9}),
        "dealer.jsonl": with_header(good_log, dealer="0"),
        "bytes.jsonl": None,
    }
    for name, lines in cases.items():
        path = tmp_path / name
        if lines is None:
            path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
        else:
            path.write_text("\n".join(lines) + "\n")
        r = run_cli("uno_env.tools.replay", str(path), "--quiet")
        assert_one_line_error(r, "uno-replay")
        assert f"{name}:1:" in r.stderr


# ---------------------------------------------------------------------------- logs read with bounds
@pytest.mark.parametrize("kind", NOT_REGULAR)
def test_replay_of_a_fifo_a_device_or_a_directory_is_a_one_line_error_without_waiting(tmp_path, kind):
    # /dev/zero: read() of it filled the memory (a MemoryError traceback); a FIFO hung
    path = "/dev/zero" if kind == "character device" else not_a_regular_file(tmp_path / "game.jsonl", kind)
    child = run_bounded("import sys; from uno_env.tools.replay import main; sys.exit(main(sys.argv[1:]))",
                        args=(path, "--quiet"), memory_mb=500, timeout_s=60)
    assert not child.timed_out and child.returncode == 2, child.stderr
    assert child.stderr == f"uno-replay: error: game log {path!r} is a {kind}, not a regular file\n"


def test_a_log_line_beyond_the_cap_is_named_in_one_line_of_memory(tmp_path, good_log):
    path = tmp_path / "long.jsonl"
    with open(path, "w") as fh:
        fh.write(good_log[0] + "\n")
        fh.write('{"type": "action", "pad": "' + "x" * (40 << 20) + '"}\n')  # one line of 40 MB
    child = run_bounded("import sys; from uno_env.tools.replay import main; sys.exit(main(sys.argv[1:]))",
                        args=(str(path), "--quiet"), memory_mb=500, timeout_s=60)
    assert child.returncode == 2, child.stderr
    assert child.stderr == (f"uno-replay: error: game log {str(path)!r}:2: a line longer than "
                            f"{MAX_LOG_LINE_BYTES} bytes\n")


def test_a_log_beyond_the_total_cap_is_refused_before_it_is_read(tmp_path, good_log):
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(good_log) + "\n")
    size = path.stat().st_size
    assert read_log(str(path), max_bytes=size).end is not None
    with pytest.raises(ValueError, match=rf"^game log '.*g\.jsonl' has {size} bytes \(at most {size - 1}\)$"):
        read_log(str(path), max_bytes=size - 1)
    assert replay_main([str(path), "--quiet", "--max-bytes", str(size - 1)]) == 2
    assert replay_main([str(path), "--quiet", "--max-bytes", str(size)]) == 0


@pytest.mark.parametrize("binary", [True, False])
def test_a_log_read_from_a_file_object_keeps_the_same_caps(good_log, binary):
    text = "\n".join(good_log) + "\n"
    source = io.BytesIO(text.encode()) if binary else io.StringIO(text)
    assert len(read_log(source).actions) == len(good_log) - 2
    longest = max(len(line) for line in good_log)
    source = io.BytesIO(text.encode()) if binary else io.StringIO(text)
    with pytest.raises(ValueError, match=rf"^<log>:\d+: a line longer than {longest - 1} bytes$"):
        read_log(source, max_line_bytes=longest - 1)
    with pytest.raises(ValueError, match=r"^<log>: more than 1000 bytes$"):
        read_log(good_log, max_bytes=1000)
