"""Files from strangers read with bounds: the one reader of every file the package loads.

    text = read_bounded_text("mine.yaml", MAX_YAML_BYTES, "rules file")
    card = read_json("ckpt/card.json", MAX_CARD_BYTES, "checkpoint card", follow_symlinks=False)
    for no, line in bounded_lines("game.jsonl", "game log", max_line_bytes=1 << 20, max_bytes=64 << 20): ...

Rules and training configs (YAML), checkpoint cards (JSON) and weights, game logs (JSON
Lines), demonstration caches, a run's own state files: a file named on a command line may be
anything, so every reader here:

* **looks before it opens**: ``os.stat`` (``os.lstat`` with ``follow_symlinks=False``) must
  show a regular file, else :class:`FileBoundsError` naming what it is (a FIFO, a character
  device such as ``/dev/zero``, a directory, a socket, a symbolic link). A FIFO is never
  opened, so it cannot hang the reader;
* **opens without blocking or following**: ``O_NONBLOCK`` (a FIFO swapped in between the look
  and the open does not hang either), ``O_NOCTTY``, and ``O_NOFOLLOW`` when symbolic links are
  refused; the open file is checked again with ``fstat`` (regular, within the size);
* **caps the size** before reading (the ``stat`` size, then the bytes actually read: a file
  that grows while it is read is refused too), and for line streams also each line's length;
* **names the file** in every error: ``<what> '<path>' is a FIFO, not a regular file``,
  ``<what> '<path>' has 2097163 bytes (at most 262144)``. A refused symbolic link is named as
  such, without anything about its target (not even its size).

:func:`read_json` also names the key of an integer too long for Python to convert (the
interpreter refuses decimal strings of more than ``sys.get_int_max_str_digits()`` digits,
4300 by default, with a ``ValueError`` raised deep inside the parser that names neither file
nor key): the parser keeps a :class:`TooLongInteger` in its place and :func:`too_long_integer_at`
finds it (``policy.sizes[1]``, :func:`too_long_integer_problem`). The YAML readers (:mod:`uno_env.game.rules`) do the same.
Nesting too deep for the parser is named too.

:func:`check_directory` checks a folder named on a command line (``--log-dir``, ``--out``,
``--checkpoint-root``) before a command spends anything: a file there is a one-line error;
:func:`check_output_file` likewise a file a command writes at its end (``--markdown``).

:func:`sha256_of` hashes an open file in chunks of ``HASH_CHUNK`` bytes: a weights file of
gigabytes (even a sparse one, holding nothing on disk) costs one chunk of memory.

Standard library only: the game layer imports it (the YAML readers of the rules), as every
layer above it may.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from typing import IO, Any, Iterator

HASH_CHUNK = 1 << 20  # bytes read at a time when hashing a file

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


class FileBoundsError(ValueError):
    """A file refused by its reader (not a regular file, too large, a line too long, not UTF-8,
    not JSON, an integer too long...): the message names the file and the problem."""


def _name(what: str, path: str | os.PathLike) -> str:
    return f"{what} {os.fspath(path)!r}"


def _check(st: os.stat_result, what: str, path: str | os.PathLike, max_bytes: int | None) -> None:
    if not stat.S_ISREG(st.st_mode):
        kind = next((k for test, k in _KINDS if test(st.st_mode)), "not a plain file")
        raise FileBoundsError(f"{_name(what, path)} is {kind}, not a regular file")
    if max_bytes is not None and st.st_size > max_bytes:
        raise FileBoundsError(f"{_name(what, path)} has {st.st_size} bytes (at most {max_bytes})")


def check_regular(path: str | os.PathLike, what: str, max_bytes: int | None = None,
                  follow_symlinks: bool = True) -> os.stat_result:
    """The ``stat`` of ``path`` if it is a regular file of at most ``max_bytes`` (``OSError``
    if it does not exist or cannot be looked at, :class:`FileBoundsError` otherwise). With
    ``follow_symlinks=False`` a symbolic link is refused as one."""
    st = os.stat(path, follow_symlinks=follow_symlinks)
    _check(st, what, path, max_bytes)
    return st


@contextlib.contextmanager
def open_regular(path: str | os.PathLike, what: str, max_bytes: int | None = None,
                 follow_symlinks: bool = True) -> Iterator[IO[bytes]]:
    """``with open_regular(...) as fh``: ``path`` opened for reading bytes, after
    :func:`check_regular` and without blocking or following a link (module doc)."""
    check_regular(path, what, max_bytes, follow_symlinks)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if not follow_symlinks and os.path.islink(path):  # swapped for a link since the look
            raise FileBoundsError(f"{_name(what, path)} is a symbolic link, not a regular file") from None
        raise
    try:
        _check(os.fstat(fd), what, path, max_bytes)  # what was opened, not what was looked at
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        yield fh


def read_bounded_bytes(path: str | os.PathLike, max_bytes: int, what: str,
                       follow_symlinks: bool = True) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (module doc)."""
    with open_regular(path, what, max_bytes, follow_symlinks) as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew after the look
        raise FileBoundsError(f"{_name(what, path)} has more than {max_bytes} bytes")
    return data


def read_bounded_text(path: str | os.PathLike, max_bytes: int, what: str,
                      follow_symlinks: bool = True) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes``; :class:`FileBoundsError`
    naming the file if it is not UTF-8."""
    data = read_bounded_bytes(path, max_bytes, what, follow_symlinks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FileBoundsError(f"{_name(what, path)} is not UTF-8 text (byte {e.start + 1})") from None


def bounded_lines(path: str | os.PathLike, what: str, max_line_bytes: int, max_bytes: int
                  ) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of a regular file, read one line at a time (the line's end
    kept): at most ``max_line_bytes`` a line (its end not counted) and ``max_bytes`` in all,
    else :class:`FileBoundsError` naming the file (and the line). Memory: one line."""
    with open_regular(path, what, max_bytes) as fh:
        total = no = 0
        while True:
            no += 1
            line = fh.readline(max_line_bytes + 2)  # room for the line's end: "\r\n"
            if not line:
                return
            total += len(line)
            if total > max_bytes:
                raise FileBoundsError(f"{_name(what, path)} has more than {max_bytes} bytes")
            if len(line.rstrip(b"\r\n")) > max_line_bytes:
                raise FileBoundsError(f"{_name(what, path)}:{no}: a line longer than {max_line_bytes} bytes")
            yield no, line


def sha256_of(fh: IO[bytes], chunk: int = HASH_CHUNK) -> str:
    """The SHA-256 (hex) of an open binary file from where it stands to its end, in chunks."""
    digest = hashlib.sha256()
    for block in iter(lambda: fh.read(chunk), b""):
        digest.update(block)
    return digest.hexdigest()


# ---------------------------------------------------------------------- folders named on a command line
def check_directory(path: str | os.PathLike, option: str, create: bool = False,
                    must_exist: bool = False) -> str:
    """``path`` if it names a directory (with ``create``, one made now if it is missing);
    :class:`FileBoundsError` naming ``option`` if it is a file or anything else, is missing
    with ``must_exist``, or cannot be made: ``--log-dir 'x' is a regular file, not a
    directory``. A command checks its folders with it before it spends anything."""
    path = os.fspath(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise FileBoundsError(f"{option} {path!r} cannot be used: {e.strerror or e}") from None
    if st is not None and not stat.S_ISDIR(st.st_mode):
        kind = "a regular file" if stat.S_ISREG(st.st_mode) else next(
            (k for test, k in _KINDS if test(st.st_mode)), "not a plain file")
        raise FileBoundsError(f"{option} {path!r} is {kind}, not a directory")
    if st is None and must_exist:
        raise FileBoundsError(f"{option} {path!r} does not exist")
    if st is None and create:
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as e:
            raise FileBoundsError(f"{option} {path!r} cannot be created: {e.strerror or e}") from None
    return path


# ---------------------------------------------------------------------- numbers and JSON
class TooLongInteger:
    """The place of a decimal integer too long for ``int()`` (``sys.get_int_max_str_digits``),
    kept by a parser instead of raising so that the error can name the key that holds it."""

    __slots__ = ("digits",)

    def __init__(self, digits: int):
        self.digits = digits

    def __repr__(self) -> str:
        return f"<integer of {self.digits} digits>"


def check_output_file(path: str | os.PathLike, option: str) -> str:
    """``path`` if a file can be written there: its folder exists, is a directory and is
    writable, and ``path`` is not a directory or anything but a regular file;
    :class:`FileBoundsError` naming ``option`` otherwise. A command that writes its result
    at the end (``uno-evaluate --ladder --markdown``) checks it before it plays."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        raise FileBoundsError(f"{option} {path!r}: its folder {folder!r} does not exist") from None
    except OSError as e:
        raise FileBoundsError(f"{option} {path!r} cannot be used: {e.strerror or e}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise FileBoundsError(f"{option} {path!r}: {folder!r} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise FileBoundsError(f"{option} {path!r}: its folder {folder!r} is not writable")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return path
    except OSError as e:
        raise FileBoundsError(f"{option} {path!r} cannot be used: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = next((k for test, k in _KINDS if test(st.st_mode)), "not a plain file")
        raise FileBoundsError(f"{option} {path!r} is {kind}, not a file it can write")
    return path


def parse_int(text: str) -> int | TooLongInteger:
    """``int(text)``, or a :class:`TooLongInteger` where the interpreter refuses to convert it."""
    try:
        return int(text)
    except ValueError:
        return TooLongInteger(sum(c.isdigit() for c in text))


def too_long_integer_at(value: Any) -> tuple[str, TooLongInteger] | None:
    """``(key path, placeholder)`` of the first :class:`TooLongInteger` in a parsed document
    (``policy.sizes[1]``; ``[0]`` for a list at the top, ``""`` for the document itself), or None. Walks without recursion,
    each container once (a YAML alias bomb shares its containers: no exponential walk)."""
    stack: list[tuple[str, Any]] = [("", value)]
    seen: set[int] = set()
    while stack:
        where, v = stack.pop()
        if isinstance(v, TooLongInteger):
            return where, v
        if isinstance(v, (dict, list)):
            if id(v) in seen:
                continue
            seen.add(id(v))
        if isinstance(v, dict):
            for k, item in reversed(list(v.items())):
                if isinstance(k, TooLongInteger):
                    return f"{where}.<key>" if where else "<a key>", k
                stack.append((f"{where}.{k}" if where else str(k), item))
        elif isinstance(v, list):
            stack.extend((f"{where}[{i}]", item) for i, item in reversed(list(enumerate(v))))
    return None


def too_long_integer_problem(value: Any) -> str | None:
    """What to append to a source's name for the first too-long integer of a parsed document
    (``": key 'policy.sizes[1]' holds an integer of 5000 digits, too long to read"``), or None."""
    found = too_long_integer_at(value)
    if found is None:
        return None
    where, number = found
    if not where:
        return f" is an integer of {number.digits} digits, too long to read"
    return f": key {where!r} holds an integer of {number.digits} digits, too long to read"


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def read_json(path: str | os.PathLike, max_bytes: int, what: str, follow_symlinks: bool = True) -> Any:
    """The JSON document in a regular file of at most ``max_bytes`` (``NaN``/``Infinity``
    refused); :class:`FileBoundsError` naming the file if it is not UTF-8 or not JSON, nests
    too deeply, or holds an integer too long to convert (the key named)."""
    text = read_bounded_text(path, max_bytes, what, follow_symlinks)
    try:
        data = json.loads(text, parse_int=parse_int, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise FileBoundsError(f"{_name(what, path)} is not JSON: {e.msg} (line {e.lineno}, "
                              f"column {e.colno})") from None
    except ValueError as e:
        raise FileBoundsError(f"{_name(what, path)} is not JSON: {e}") from None
    except RecursionError:
        raise FileBoundsError(f"{_name(what, path)} is nested too deeply") from None
    problem = too_long_integer_problem(data)
    if problem is not None:
        raise FileBoundsError(_name(what, path) + problem)
    return data
