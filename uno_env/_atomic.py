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
"""

from __future__ import annotations

import contextlib
import os
import secrets
from typing import IO, Any, Iterator


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
