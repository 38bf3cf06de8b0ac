"""Reading YAML files from strangers with bounds: the one reader of card lists and rules files
of :mod:`uno_env.battle`.

:func:`read_yaml` checks, in this order, and raises ``ValueError`` naming the kind of file,
its path and the problem:

==========================  ======================================================
check                       why
==========================  ======================================================
a regular file              a FIFO, a device or a directory is refused (checked on the
                            descriptor, opened without blocking: ``/dev/zero`` would
                            never end, a FIFO would wait for a writer)
at most ``max_bytes``       read with a bound (``max_bytes + 1`` bytes at most), so a
                            huge file costs nothing
UTF-8 text                  a binary file is named as such
``yaml.safe_load``          never runs code; a YAML error gives its first line
nesting depth               a deeply nested document is refused (``RecursionError``)
==========================  ======================================================

The parsed document may hold YAML aliases; callers check sizes of what they read (a card
list has at most ``MAX_TYPES`` entries), so an alias bomb is refused by the callers' counts,
not expanded.

Version history: 0 (first release).
"""

from __future__ import annotations

import os
import stat
from typing import Any

from uno_env.game.rules import show_value

MAX_FILE_BYTES = 256 * 1024  # the default bound of a card list or rules file


def read_bytes(path: Any, kind: str, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (``ValueError`` naming ``kind``
    and the path otherwise). The file is opened without blocking and checked on the open
    descriptor, so a FIFO swapped in after a check cannot hang the reader."""
    try:
        path = os.fspath(path)
    except TypeError:
        raise ValueError(f"{kind} path must be a string or path, got {type(path).__name__}") from None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as e:
        raise ValueError(f"{kind} {path!r} cannot be read: {getattr(e, 'strerror', None) or e}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{kind} {path!r} is not a regular file")
        if info.st_size > max_bytes:
            raise ValueError(f"{kind} {path!r} is {info.st_size} bytes, more than the {max_bytes} allowed")
        chunks, left = [], max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as e:
        raise ValueError(f"{kind} {path!r} cannot be read: {e.strerror or e}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:  # it grew after the check
        raise ValueError(f"{kind} {path!r} is more than the {max_bytes} bytes allowed")
    return data


def read_yaml(path: Any, kind: str, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """The YAML document in ``path`` (``None`` for an empty file), read with the checks above."""
    import yaml

    data = read_bytes(path, kind, max_bytes)
    path = os.fspath(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{kind} {path!r} is not UTF-8 text") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ValueError(f"{kind} {path!r} is not valid YAML: {str(e).splitlines()[0]}") from None
    except RecursionError:
        raise ValueError(f"{kind} {path!r} is nested too deeply") from None


def read_yaml_mapping(path: Any, kind: str, max_bytes: int = MAX_FILE_BYTES) -> dict[str, Any]:
    """The mapping in a YAML file (an empty file: ``{}``), with string keys; ``ValueError``
    otherwise (see :func:`read_yaml`)."""
    data = read_yaml(path, kind, max_bytes)
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ValueError(f"{kind} {os.fspath(path)!r} must hold a mapping of keys to values, "
                         f"got {type(data).__name__}")
    bad = [k for k in data if not isinstance(k, str)]
    if bad:
        raise ValueError(f"{kind} {os.fspath(path)!r}: keys must be strings, got {show_value(bad)}")
    return dict(data)
