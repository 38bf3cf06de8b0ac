"""Output files written atomically: a reader (or a run resumed after a crash) sees the old
file or the new one, never a part of one.

    with atomic_write("runs/x/evaluation.json", encoding="utf-8") as fh:
        json.dump(result, fh)

The data goes to a new hidden temporary file beside ``path`` (``.<name>.<pid>.<random>.tmp``,
created with the usual permissions), is flushed to disk, then renamed over ``path``
(``os.replace``: atomic on POSIX and Windows). If the writer raises, the temporary file is
removed and ``path`` is untouched; a process killed while writing leaves at most a hidden
``.tmp`` file. Used by checkpoints (``uno_env.agents``), the evaluation reports
(``uno_env.tools.report``) and ``training/train.py``.

**One writer per directory** (:func:`hold_lock`, :func:`writer_lock`): a training run holds the
lock of its checkpoint directory for as long as it runs, and every checkpoint save takes it for
the save, so a second writer (``train.py`` twice with one ``--run``, a converter writing into a
running run) is refused with :class:`LockedError` naming the holder, instead of racing it. The
lock is ``fcntl.flock`` on the hidden file ``LOCK_FILE`` in the directory: the kernel drops it
when its process ends, however it ends, so a killed run leaves no stale lock (the empty file
stays). Where ``fcntl`` is missing (Windows) there is no lock.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import time
from typing import IO, Any, Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock
    fcntl = None

LOCK_FILE = ".uno-lock"
_HELD: dict[str, IO] = {}  # directory (real path) -> the open lock file this process holds


class LockedError(RuntimeError):
    """Another process holds the writer's lock of a directory."""


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", **open_kwargs: Any) -> Iterator[IO]:
    """Open a temporary file for writing (``"w"`` text or ``"wb"`` binary; ``open_kwargs`` such
    as ``encoding`` and ``newline`` go to ``open``); on a clean exit it replaces ``path``."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', got {mode!r}")
    path = os.fspath(path)
    directory, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(tmp, mode.replace("w", "x"), **open_kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    _fsync_dir(directory)


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    with atomic_write(path, "wb") as fh:
        fh.write(data)


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_write(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _fsync_dir(directory: str) -> None:
    """Make the rename itself durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------------- one writer per directory
def _lock_key(directory: str | os.PathLike) -> str:
    return os.path.realpath(os.fspath(directory))


def hold_lock(directory: str | os.PathLike, what: str = "a writer") -> None:
    """Take the writer's lock of ``directory`` (which must exist) for the rest of this process,
    or raise :class:`LockedError` naming the process that holds it. Taking it twice is a no-op."""
    key = _lock_key(directory)
    if key in _HELD or fcntl is None:
        return
    path = os.path.join(key, LOCK_FILE)
    fh = open(path, "a+", encoding="utf-8")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.seek(0)
        holder = fh.read(200).strip() or "another process"
        fh.close()
        raise LockedError(f"{os.fspath(directory)} is being written by {holder}: one writer at a "
                          f"time (wait for it to finish, or use another directory)") from None
    fh.seek(0)
    fh.truncate()
    fh.write(f"{what} (pid {os.getpid()} on {socket.gethostname()}, since "
             f"{time.strftime('%Y-%m-%d %H:%M:%S')})\n")
    fh.flush()
    _HELD[key] = fh


def release_lock(directory: str | os.PathLike) -> None:
    """Give back a lock taken with :func:`hold_lock` (a no-op if this process does not hold it)."""
    fh = _HELD.pop(_lock_key(directory), None)
    if fh is not None:
        fh.close()  # closing the file releases the flock


@contextlib.contextmanager
def writer_lock(directory: str | os.PathLike, what: str = "a checkpoint save") -> Iterator[None]:
    """The writer's lock of ``directory`` for the duration of a ``with`` block: nothing to do if
    this process already holds it (a training run saving into its own directory), else taken
    for the block and given back after it; :class:`LockedError` if another process holds it."""
    key = _lock_key(directory)
    if key in _HELD:
        yield
        return
    hold_lock(directory, what)
    try:
        yield
    finally:
        release_lock(directory)
