"""A training run's two folders, its name, ``--force`` and one writer at a time.

A run named ``NAME`` writes ``<checkpoint_dir>/NAME/`` (card, weights, model, eval.csv, curve;
``trainer.json`` and ``rllib/`` for RLlib) and ``<runs_dir>/NAME/`` (TensorBoard, snapshots).
:func:`open_run` is the one way both training scripts get them:

- **The name** is a plain folder name (:data:`RUN_NAME`): 1-64 characters of letters, digits,
  ``.``, ``_`` and ``-``, starting with a letter or digit, so never empty, ``.``, ``..`` or a
  path (an unset ``$RUN`` in a script is an error, not the whole ``checkpoints/`` folder).
- **Each folder is marked** when the script makes it: ``MARK_FILE`` (JSON: the run's name, the
  script, when). ``--force`` deletes a folder only if it holds the mark of this run; a folder
  without it (a run of uno_env before 0.6, a shipped agent, a folder of yours) is never
  deleted: that is an error naming it, checked for both folders before anything is deleted.
  A new run (no ``--force``) also refuses a folder that holds files it did not write.
- **One writer**: the run holds the writer's lock of its checkpoint folder while it runs
  (``uno_env._atomic.hold_lock``), so a second ``train.py --run NAME`` is refused, naming the
  first; checkpoint saves take the same lock, so a converter cannot write into a running run.
- ``--checkpoint-dir`` / ``--runs-dir`` that are files, and run folders that are symbolic links
  or files, are errors.
- A run's files read back (the mark, ``eval.csv``, ``trainer.json``) are read with bounds
  (:mod:`uno_env._files`: regular files only, at most ``MAX_MARK_BYTES`` / ``MAX_STATE_BYTES``).
- **The overrides go with the run**: the card records, under :data:`OVERRIDES_KEY`, the
  ``--set`` keys and the flags (``--total-steps``, ``--time-limit-min``, as the config keys
  ``total_steps``, ``time_limit_min``) in effect, and ``--resume`` starts from them
  (:func:`stored_overrides`, through :func:`check_run_args`, which the scripts call first;
  what is given again wins): a resumed run trains under the same
  config and rules as it began, without repeating them. ``--config`` is read again.

Every problem is a :class:`RunDirError` (a ``ValueError``): the scripts print it as one line
and exit with 2, having changed nothing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from typing import Any, Mapping

from uno_env import _atomic, _files
from uno_env.game.rules import show_value

RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
MARK_FILE = ".uno-run"
_KEEP = (MARK_FILE, _atomic.LOCK_FILE)  # not the run's outputs: kept by --force, ignored as content
MAX_MARK_BYTES = 4096
MAX_STATE_BYTES = 64 << 20  # a run's own state files read back (eval.csv, trainer.json; uno_env._files)
OVERRIDES_KEY = "overrides"  # the card's record of the overrides in effect
_OPTION = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # a config key or rule option (uno_env.tools.overrides)


class RunDirError(ValueError):
    """A run's name or folders cannot be used as asked (nothing was changed)."""


@dataclass(frozen=True)
class RunDirs:
    name: str
    run_dir: str  # <checkpoint_dir>/<name>: the checkpoint and the run's record
    log_dir: str  # <runs_dir>/<name>: TensorBoard, snapshots


def check_run_name(name: object) -> str:
    """``name`` if it is a plain run name, else :class:`RunDirError` saying what is allowed."""
    if not isinstance(name, str) or not RUN_NAME.fullmatch(name):
        shown = repr(name) if not isinstance(name, str) or len(name) <= 80 else repr(name[:77] + "...")
        raise RunDirError(f"run name {shown} is not a plain folder name: use 1-64 letters, digits, "
                          f"'.', '_' or '-', starting with a letter or digit (no '/', not '.' or '..')")
    return name


def is_marked(folder: str, name: str) -> bool:
    """Whether ``folder`` holds the mark a training script left in a folder it made for run ``name``."""
    try:  # a regular file (not a link) of at most MAX_MARK_BYTES, JSON
        mark = _files.read_json(os.path.join(folder, MARK_FILE), MAX_MARK_BYTES, "run mark",
                                follow_symlinks=False)
    except (OSError, ValueError):
        return False
    return isinstance(mark, dict) and mark.get("run") == name


def check_run(checkpoint_root: str, runs_root: str, name: str, *, resume: bool, force: bool,
              holds_run: str | tuple[str, ...]) -> RunDirs:
    """The run's folders, if :func:`open_run` may use them as asked; changes nothing.

    ``holds_run`` is the file (or files, any of them) whose presence in the checkpoint folder
    means a run to resume (``model.zip`` or ``learner.safetensors`` for ``train.py``,
    ``trainer.json`` for ``train_rllib.py``). Refuses
    (:class:`RunDirError`): a bad name; roots or run folders that are not folders (or are
    symbolic links); ``--resume`` without a run, an existing run without ``--resume`` or
    ``--force``; ``--force`` on a folder without this run's mark; a new run in a folder holding
    files it did not write."""
    name = check_run_name(name)
    for flag, root in (("--checkpoint-dir", checkpoint_root), ("--runs-dir", runs_root)):
        if os.path.exists(root) and not os.path.isdir(root):
            raise RunDirError(f"{flag} {root!r} is not a folder")
    dirs = RunDirs(name, os.path.join(checkpoint_root, name), os.path.join(runs_root, name))
    for folder in (dirs.run_dir, dirs.log_dir):
        if os.path.islink(folder):
            raise RunDirError(f"{folder!r} is a symbolic link: a run writes only into folders of its own")
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise RunDirError(f"{folder!r} is not a folder")
    holds = (holds_run,) if isinstance(holds_run, str) else tuple(holds_run)
    exists = any(os.path.isfile(os.path.join(dirs.run_dir, h)) for h in holds)
    holds_run = " or ".join(holds)
    if exists and not (resume or force):
        raise RunDirError(f"{dirs.run_dir} already holds a run: pass --resume to continue it, "
                          f"--force to start over")
    if resume and not exists:
        raise RunDirError(f"--resume: no run to resume in {dirs.run_dir} ({holds_run} not found)")
    start_over = force and not resume
    if not resume:
        for folder in (dirs.run_dir, dirs.log_dir):
            foreign = _content(folder)
            if foreign and not is_marked(folder, name):
                shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
                if start_over:
                    raise RunDirError(
                        f"--force deletes only a run's own folders: {folder} holds {shown} but no "
                        f"{MARK_FILE} of run {name!r} (a run of uno_env before 0.6, a shipped agent "
                        f"or a folder of yours); delete it yourself if it is yours to delete, or "
                        f"choose another --run")
                raise RunDirError(f"{folder} holds files this run did not write ({shown}): choose "
                                  f"another --run, or move them")
    return dirs


def open_run(checkpoint_root: str, runs_root: str, name: str, *, resume: bool, force: bool,
             holds_run: str | tuple[str, ...], script: str) -> RunDirs:
    """The run's folders, checked (:func:`check_run`), then made (or emptied, with ``force``
    and without ``resume``), marked and locked by this process for as long as it runs
    (``script`` names the writer in the lock); :class:`RunDirError` if another process is
    writing the run, nothing changed."""
    dirs = check_run(checkpoint_root, runs_root, name, resume=resume, force=force, holds_run=holds_run)
    start_over = force and not resume
    os.makedirs(dirs.run_dir, exist_ok=True)
    try:
        _atomic.hold_lock(dirs.run_dir, f"{script} --run {dirs.name}")
    except _atomic.LockedError as exc:
        raise RunDirError(str(exc)) from None
    if start_over:  # both folders checked above: each holds this run's mark, or nothing
        _empty(dirs.run_dir)
        if os.path.isdir(dirs.log_dir):
            shutil.rmtree(dirs.log_dir)
    os.makedirs(dirs.log_dir, exist_ok=True)
    for folder in (dirs.run_dir, dirs.log_dir):
        if not is_marked(folder, dirs.name):
            _atomic.write_text(os.path.join(folder, MARK_FILE), json.dumps(
                {"run": dirs.name, "script": script, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}) + "\n")
    return dirs


def stored_overrides(run_dir: str, config_cls: type, checks: Mapping[str, Any]) -> dict[str, Any]:
    """The overrides a run's card records (:data:`OVERRIDES_KEY`; ``{}`` for a card without
    them: a run of uno_env before 0.6), its config keys checked as the config's own
    (``config_cls``, ``checks``: :func:`uno_env.learn.configs.check_values`); ``ValueError``
    naming the card otherwise. Rule options are checked when the rules are made."""
    from uno_env.agents import checkpoint as ckpt
    from uno_env.learn import configs

    card = ckpt.load_card(run_dir, require_policy=False)
    where = f"{os.path.join(run_dir, ckpt.CARD_FILE)}: {OVERRIDES_KEY!r}"
    stored = card.get(OVERRIDES_KEY, {})
    if not isinstance(stored, dict) or not all(isinstance(k, str) and _OPTION.fullmatch(k) for k in stored):
        raise RunDirError(f"{where} must map option names to values, got {show_value(stored)}")
    try:
        config_part, _ = configs.split_overrides(config_cls, stored)
    except ValueError as exc:  # a key neither this config's nor a rule option
        raise RunDirError(f"{where}: {str(exc).removeprefix('--set: ')}") from None
    configs.check_values(config_cls, checks, config_part, where)
    return dict(stored)


def check_run_args(args: Any, config_cls: type, checks: Mapping[str, Any], holds_run: str | tuple[str, ...]
                   ) -> tuple[RunDirs, dict[str, Any]]:
    """A training script's run, from its command line (``args``: ``run``, ``checkpoint_dir``,
    ``runs_dir``, ``resume``, ``force``, ``overrides`` (the ``--set`` items), ``total_steps``,
    ``time_limit_min``): its folders checked (:func:`check_run`, nothing changed) and the
    overrides in effect: the ``--set`` items and the flags (which win:
    :func:`uno_env.tools.overrides.parse_overrides`) over those stored with the run when it
    is resumed (:func:`stored_overrides`). ``ValueError`` naming the problem (a stored one
    after ``--resume:``)."""
    from uno_env.tools.overrides import parse_overrides

    dirs = check_run(args.checkpoint_dir, args.runs_dir, args.run, resume=args.resume, force=args.force,
                     holds_run=holds_run)
    given = parse_overrides(args.overrides, total_steps=args.total_steps, time_limit_min=args.time_limit_min)
    if not args.resume:
        return dirs, given
    try:
        return dirs, {**stored_overrides(dirs.run_dir, config_cls, checks), **given}
    except ValueError as exc:
        raise RunDirError(f"--resume: {exc}") from None


def _content(folder: str) -> list[str]:
    """The entries of ``folder`` (sorted) but the mark and the lock; [] if there is no folder."""
    if not os.path.isdir(folder):
        return []
    return sorted(e for e in os.listdir(folder) if e not in _KEEP)


def _empty(folder: str) -> None:
    """Remove everything in ``folder`` but the mark and the lock this process holds."""
    for entry in _content(folder):
        path = os.path.join(folder, entry)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
