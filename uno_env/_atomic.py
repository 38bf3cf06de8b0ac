"""Output files written atomically: a reader (or a run resumed after a crash) sees the old
file or the new one, never a part of one.

    with atomic_write("runs/x/evaluation.json") as fh:
        json.dump(result, fh)

The data goes to ``<path>.partial`` in the same directory, is flushed to disk, then
renamed over ``path`` (``os.replace``: atomic on POSIX and Windows). If the writer raises,
the partial file is removed and ``path`` is untouched; if the process is killed, at most a
``.partial`` file is left behind (the next write of that file replaces it). One writer per
output file is assumed.
"""

from __future__ import annotations

import contextlib
import os
from typing import IO, Iterator

PARTIAL_SUFFIX = ".partial"


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8",
                 newline: str | None = None) -> Iterator[IO]:
    """Open ``path + ".partial"`` for writing (text ``"w"`` or binary ``"wb"``); on a clean
    exit it replaces ``path``."""
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', got {mode!r}")
    path = os.fspath(path)
    tmp = path + PARTIAL_SUFFIX
    kwargs = {} if mode == "wb" else {"encoding": encoding, "newline": newline}
    try:
        with open(tmp, mode, **kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    _fsync_dir(os.path.dirname(path) or ".")


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    with atomic_write(path, "wb") as fh:
        fh.write(data)


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_write(path, "w") as fh:
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
