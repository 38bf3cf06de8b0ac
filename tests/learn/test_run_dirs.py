"""A training run's folders (uno_env.learn.run_dirs): plain run names, --force deletes only a
run's own marked folders, one writer at a time (uno_env._atomic's lock), and checkpoint saves
that a concurrent reader survives."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from helpers import random_checkpoint
from uno_env import _atomic
from uno_env.agents import checkpoint as ckpt
from uno_env.learn import run_dirs

MODEL = "model.zip"


def open_run(tmp_path, name="r", **kw):
    kw = {"resume": False, "force": False, "holds_run": MODEL, "script": "test", **kw}
    try:
        return run_dirs.open_run(str(tmp_path / "checkpoints"), str(tmp_path / "runs"), name, **kw)
    finally:
        _atomic.release_lock(tmp_path / "checkpoints" / name) if run_dirs.RUN_NAME.fullmatch(name) else None


def snapshot(root) -> dict[str, bytes]:
    """Every file under ``root`` with its content (what a refused command must leave as it was)."""
    out = {}
    for folder, _, files in os.walk(root):
        for f in files:
            if f == _atomic.LOCK_FILE:  # says who holds the lock, not data
                continue
            path = os.path.join(folder, f)
            with open(path, "rb") as fh:
                out[os.path.relpath(path, root)] = fh.read()
    return out


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "../x", "/tmp/x", "x" * 65, "a b", "-x",
                                  ".hidden", "r\u00e9", "a\x00b", "run\n"])
def test_run_name_must_be_a_plain_folder_name(tmp_path, name):
    (tmp_path / "checkpoints" / "keep").mkdir(parents=True)
    (tmp_path / "checkpoints" / "keep" / "card.json").write_text("{}")
    before = snapshot(tmp_path)
    with pytest.raises(run_dirs.RunDirError, match="not a plain folder name"):
        open_run(tmp_path, name, force=True)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("name", ["a", "classic-2p", "run_1.v2", "X" * 64])
def test_plain_run_names_are_accepted(tmp_path, name):
    dirs = open_run(tmp_path, name)
    assert os.path.isdir(dirs.run_dir) and os.path.isdir(dirs.log_dir)
    assert run_dirs.is_marked(dirs.run_dir, name) and run_dirs.is_marked(dirs.log_dir, name)


def test_force_deletes_a_folder_only_if_it_holds_this_runs_mark(tmp_path):
    """A shipped agent or a run of an earlier uno_env: a card, no mark. --force refuses it."""
    folder = tmp_path / "checkpoints" / "classic-2p"
    folder.mkdir(parents=True)
    (folder / "card.json").write_text('{"run": "classic-2p"}')
    (folder / MODEL).write_bytes(b"zip")
    before = snapshot(tmp_path)
    with pytest.raises(run_dirs.RunDirError, match="deletes only a run's own folders"):
        open_run(tmp_path, "classic-2p", force=True)
    assert snapshot(tmp_path) == before


def test_force_refuses_a_log_folder_without_the_mark_before_deleting_anything(tmp_path):
    dirs = open_run(tmp_path, "r")
    (tmp_path / "checkpoints" / "r" / MODEL).write_bytes(b"zip")
    (tmp_path / "runs" / "r" / run_dirs.MARK_FILE).unlink()  # the log folder is not the run's
    (tmp_path / "runs" / "r" / "notes.txt").write_text("mine")
    before = snapshot(tmp_path)
    with pytest.raises(run_dirs.RunDirError, match=r"runs/r holds notes.txt but no \.uno-run"):
        open_run(tmp_path, "r", force=True)
    assert snapshot(tmp_path) == before and os.path.isdir(dirs.run_dir)


def test_force_starts_a_marked_run_over(tmp_path):
    open_run(tmp_path, "r")
    (tmp_path / "checkpoints" / "r" / MODEL).write_bytes(b"zip")
    (tmp_path / "checkpoints" / "r" / "eval.csv").write_text("steps\n1\n")
    (tmp_path / "runs" / "r" / "tb").mkdir()
    (tmp_path / "checkpoints" / "other").mkdir()
    (tmp_path / "checkpoints" / "other" / "x").write_text("x")
    open_run(tmp_path, "r", force=True)
    assert sorted(os.listdir(tmp_path / "checkpoints" / "r")) == sorted([run_dirs.MARK_FILE, _atomic.LOCK_FILE])
    assert os.listdir(tmp_path / "runs" / "r") == [run_dirs.MARK_FILE]
    assert (tmp_path / "checkpoints" / "other" / "x").read_text() == "x"  # another run: untouched


def test_a_mark_of_another_run_is_not_this_runs(tmp_path):
    open_run(tmp_path, "a")
    os.rename(tmp_path / "checkpoints" / "a", tmp_path / "checkpoints" / "b")
    (tmp_path / "checkpoints" / "b" / MODEL).write_bytes(b"zip")
    with pytest.raises(run_dirs.RunDirError, match="no .uno-run of run 'b'"):
        open_run(tmp_path, "b", force=True)


def test_a_new_run_refuses_a_folder_with_files_it_did_not_write(tmp_path):
    (tmp_path / "checkpoints" / "r").mkdir(parents=True)
    (tmp_path / "checkpoints" / "r" / "eval.csv").write_text("mine")
    with pytest.raises(run_dirs.RunDirError, match="holds files this run did not write"):
        open_run(tmp_path, "r")
    assert (tmp_path / "checkpoints" / "r" / "eval.csv").read_text() == "mine"


def test_any_of_several_files_that_hold_a_run_makes_it_one(tmp_path):
    holds = (MODEL, "learner.safetensors")  # train.py: either learner's resumable state
    open_run(tmp_path, "r", holds_run=holds)
    (tmp_path / "checkpoints" / "r" / "learner.safetensors").write_bytes(b"state")
    with pytest.raises(run_dirs.RunDirError, match="pass --resume to continue it, --force"):
        open_run(tmp_path, "r", holds_run=holds)
    assert open_run(tmp_path, "r", resume=True, holds_run=holds).name == "r"
    with pytest.raises(run_dirs.RunDirError, match=r"no run to resume .*\(model.zip or learner.safetensors not found\)"):
        open_run(tmp_path, "s", resume=True, holds_run=holds)


def test_an_existing_run_needs_resume_or_force_and_resume_needs_a_run(tmp_path):
    open_run(tmp_path, "r")
    (tmp_path / "checkpoints" / "r" / MODEL).write_bytes(b"zip")
    with pytest.raises(run_dirs.RunDirError, match="pass --resume to continue it, --force"):
        open_run(tmp_path, "r")
    with pytest.raises(run_dirs.RunDirError, match=r"--resume: no run to resume .*model.zip not found"):
        open_run(tmp_path, "s", resume=True)
    assert open_run(tmp_path, "r", resume=True, force=True).name == "r"  # resume wins: nothing deleted
    assert (tmp_path / "checkpoints" / "r" / MODEL).read_bytes() == b"zip"


def test_resume_of_an_unmarked_run_of_an_earlier_version_marks_it(tmp_path):
    (tmp_path / "checkpoints" / "old").mkdir(parents=True)
    (tmp_path / "checkpoints" / "old" / MODEL).write_bytes(b"zip")
    dirs = open_run(tmp_path, "old", resume=True)
    assert run_dirs.is_marked(dirs.run_dir, "old") and (tmp_path / "checkpoints" / "old" / MODEL).exists()


@pytest.mark.parametrize("flag", ["checkpoints", "runs"])
def test_a_root_that_is_a_file_is_an_error(tmp_path, flag):
    (tmp_path / flag).write_text("a file")
    with pytest.raises(run_dirs.RunDirError, match=f"--{flag.replace('checkpoints', 'checkpoint')}-dir .* is not a folder"):
        open_run(tmp_path, "r")


def test_a_run_folder_that_is_a_symbolic_link_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "checkpoints").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "checkpoints" / "r")
    with pytest.raises(run_dirs.RunDirError, match="symbolic link"):
        open_run(tmp_path, "r", force=True)


# ---------------------------------------------------------------------- one writer at a time
@pytest.fixture
def other_writer():
    """Holds the writer's lock of a directory in another process until the test ends."""
    children = []

    def hold(directory) -> None:
        code = ("import sys, time; from uno_env import _atomic; "
                "_atomic.hold_lock(sys.argv[1], 'the other writer'); print('held', flush=True); time.sleep(60)")
        child = subprocess.Popen([sys.executable, "-c", code, str(directory)], stdout=subprocess.PIPE, text=True)
        children.append(child)
        assert child.stdout.readline().strip() == "held"

    yield hold
    for child in children:
        child.kill()
        child.wait()


def test_a_second_writer_of_a_run_is_refused_naming_the_first(tmp_path, other_writer):
    dirs = open_run(tmp_path, "r")
    other_writer(dirs.run_dir)
    with pytest.raises(run_dirs.RunDirError, match=r"being written by the other writer \(pid \d+"):
        open_run(tmp_path, "r", force=True)


def test_a_lock_is_free_again_when_its_process_ends(tmp_path):
    code = "import sys; from uno_env import _atomic; _atomic.hold_lock(sys.argv[1], 'gone')"
    (tmp_path / "d").mkdir()
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "d")], check=True)
    with _atomic.writer_lock(tmp_path / "d"):
        pass


def test_a_checkpoint_save_into_a_directory_another_process_writes_is_refused(tmp_path, other_writer):
    random_checkpoint(tmp_path / "c", seed=1)
    before = snapshot(tmp_path / "c")
    other_writer(tmp_path / "c")
    with pytest.raises(_atomic.LockedError, match="being written by the other writer"):
        random_checkpoint(tmp_path / "c", seed=2)
    assert snapshot(tmp_path / "c") == before


def test_a_save_keeps_the_weights_the_replaced_card_named(tmp_path):
    """A reader that read the card before a save still finds its weights; older ones go."""
    cards = [random_checkpoint(tmp_path, seed=s) for s in range(3)]
    weights = sorted(f for f in os.listdir(tmp_path) if f.endswith(ckpt.WEIGHTS_SUFFIX))
    assert weights == sorted(c["policy"]["weights"] for c in cards[1:])
    tensors = ckpt.load_weights(str(tmp_path), cards[1])  # the card read before the last save
    assert set(tensors) == set(ckpt.tensor_shapes(cards[1]["policy"]))


def test_a_reader_whose_card_went_stale_reads_the_card_again(tmp_path, monkeypatch):
    """The card a reader holds names weights two saves have since removed: it reads again."""
    stale = random_checkpoint(tmp_path, seed=0)
    for seed in (1, 2):
        current = random_checkpoint(tmp_path, seed=seed)
    real, calls = ckpt.load_card, []

    def load_card(path, *args, **kwargs):
        calls.append(path)
        return stale if len(calls) == 1 else real(path, *args, **kwargs)

    monkeypatch.setattr(ckpt, "load_card", load_card)
    card, tensors = ckpt.load_checkpoint(str(tmp_path))
    assert card == current and len(calls) >= 2
    expected = ckpt.load_weights(str(tmp_path), current)
    assert all(np.array_equal(tensors[k], expected[k]) for k in expected)
