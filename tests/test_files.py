"""The bounded file readers (``uno_env._files``): regular files only, sizes and lines capped,
symbolic links refused when asked without a word about their target, hashes in chunks,
over-long integers named with their key. The memory and hang bounds are checked in a child
process under an address-space limit and a timeout (``helpers.run_bounded``)."""

from __future__ import annotations

import hashlib
import json
import os
import socket

import pytest

from uno_env import _files
from uno_env._files import FileBoundsError

from helpers import not_a_regular_file, run_bounded


def test_a_fifo_is_refused_without_being_opened(tmp_path):
    fifo = not_a_regular_file(tmp_path / "pipe.yaml", "FIFO")  # opening it to read would block for ever
    child = run_bounded("import sys; from uno_env import _files\n"
                        "_files.read_bounded_text(sys.argv[1], 1000, 'rules file')",
                        args=(fifo,), timeout_s=60)
    assert not child.timed_out
    assert child.returncode == 1
    assert child.last_line.endswith(f"rules file {fifo!r} is a FIFO, not a regular file")


@pytest.mark.parametrize("kind", ["character device", "directory", "socket"])
def test_devices_directories_and_sockets_are_named_and_not_read(tmp_path, kind):
    if kind == "character device":
        path = "/dev/zero"  # endless: a read() of it would fill the memory
    elif kind == "directory":
        path = str(tmp_path)
    else:
        path = str(tmp_path / "s")
        server = socket.socket(socket.AF_UNIX)
        server.bind(path)
    with pytest.raises(FileBoundsError, match=f"^game log {path!r} is a {kind}, not a regular file$"):
        list(_files.bounded_lines(path, "game log", 100, 1000))
    with pytest.raises(FileBoundsError, match=f"is a {kind}"):
        _files.read_bounded_bytes(path, 1000, "config")


def test_a_file_larger_than_the_cap_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as fh:
        fh.truncate(10 << 30)  # 10 GB, sparse: nothing on disk
    child = run_bounded("import sys; from uno_env import _files\n"
                        "_files.read_json(sys.argv[1], 1 << 20, 'checkpoint card')",
                        args=(str(path),), memory_mb=400)
    assert child.returncode == 1
    assert child.last_line.endswith(f"checkpoint card {str(path)!r} has {10 << 30} bytes (at most {1 << 20})")
    assert child.cpu_s < 10


def test_a_refused_symbolic_link_says_nothing_of_its_target(tmp_path):
    secret = tmp_path / "elsewhere.bin"
    secret.write_bytes(b"x" * 123_457)
    link = tmp_path / "card.json"
    link.symlink_to(secret)
    with pytest.raises(FileBoundsError) as exc:
        _files.read_json(link, 1000, "checkpoint card", follow_symlinks=False)
    assert str(exc.value) == f"checkpoint card {str(link)!r} is a symbolic link, not a regular file"
    assert _files.read_bounded_bytes(link, 200_000, "data") == secret.read_bytes()  # followed when allowed


def test_lines_are_streamed_with_a_cap_per_line_and_in_all(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"a" * 10 + b"\n" + b"b" * 10 + b"\r\n" + b"c" * 11 + b"\n")
    lines = _files.bounded_lines(path, "game log", 10, 1000)
    assert next(lines) == (1, b"a" * 10 + b"\n") and next(lines) == (2, b"b" * 10 + b"\r\n")
    with pytest.raises(FileBoundsError, match=rf"^game log '.*log\.jsonl':3: a line longer than 10 bytes$"):
        next(lines)
    with pytest.raises(FileBoundsError, match=r"has 35 bytes \(at most 30\)"):
        list(_files.bounded_lines(path, "game log", 100, 30))


def test_one_endless_line_costs_one_line_of_memory(tmp_path):
    path = tmp_path / "one-line.jsonl"
    path.write_bytes(b"x" * (200 << 20))  # 200 MB without a line end
    child = run_bounded("import sys; from uno_env import _files\n"
                        "list(_files.bounded_lines(sys.argv[1], 'game log', 1 << 20, 1 << 30))",
                        args=(str(path),), memory_mb=300)
    assert child.returncode == 1 and child.last_line.endswith(":1: a line longer than 1048576 bytes")


def test_a_sparse_file_of_gigabytes_is_hashed_in_one_chunk_of_memory(tmp_path):
    path = tmp_path / "weights.safetensors"
    with open(path, "wb") as fh:
        fh.truncate(1 << 30)
    child = run_bounded("import sys; from uno_env import _files\n"
                        "with _files.open_regular(sys.argv[1], 'weights') as fh: print(_files.sha256_of(fh))",
                        args=(str(path),), memory_mb=300, timeout_s=120)
    assert child.returncode == 0, child.stderr
    zeros = hashlib.sha256()
    block = bytes(1 << 20)
    for _ in range(1 << 10):
        zeros.update(block)
    assert child.stdout.strip() == zeros.hexdigest()


def test_a_5000_digit_integer_in_json_names_the_file_and_the_key(tmp_path):
    path = tmp_path / "card.json"
    path.write_text(json.dumps({"policy": {"sizes": [361, "X", 195]}, "format": 2}).replace('"X"', "9" * 5000))
    with pytest.raises(FileBoundsError, match=rf"^checkpoint card '.*card\.json': key 'policy\.sizes\[1\]' "
                                              r"holds an integer of 5000 digits, too long to read$"):
        _files.read_json(path, 1 << 20, "checkpoint card")
    path.write_text("9" * 5000)
    with pytest.raises(FileBoundsError, match=r"card\.json' is an integer of 5000 digits"):
        _files.read_json(path, 1 << 20, "checkpoint card")


@pytest.mark.parametrize("text,message", [
    ("[" * 100_000 + "]" * 100_000, "is nested too deeply"),
    ('{"a": NaN}', "is not JSON: NaN is not a JSON number"),
    ("{ nope", r"is not JSON: Expecting property name enclosed in double quotes \(line 1, column 3\)"),
])
def test_json_that_cannot_be_read_is_named(tmp_path, text, message):
    path = tmp_path / "state.json"
    path.write_text(text)
    with pytest.raises(FileBoundsError, match=rf"^trainer state '.*state\.json' {message}$"):
        _files.read_json(path, 1 << 20, "trainer state")


def test_the_integer_walk_visits_a_shared_container_once():
    """A YAML alias bomb shares its lists: 2^60 paths, 60 containers."""
    level: list = [1]
    for _ in range(60):
        level = [level, level]
    assert _files.too_long_integer_at({"a": level}) is None
    level.append(_files.TooLongInteger(5000))
    assert _files.too_long_integer_problem({"a": [level]}) == (
        ": key 'a[0][2]' holds an integer of 5000 digits, too long to read")
