"""Where a progress bar writes: a terminal as it is, a file or a pipe a whole line at a time.

    from tqdm import tqdm
    bar = tqdm(total=n, file=progress_file(sys.stderr))

tqdm redraws its bar in place with carriage returns and clears it (``\\r`` and spaces) before
a ``bar.write`` line. On a terminal that is what one wants; in a log file (``bash
scripts/main.sh > log 2>&1``) every redraw piles onto one line, and the line written next,
the training's evaluation line, lands on the bar's line too. :func:`progress_file` gives a
file or pipe a :class:`LineStream` instead: each redraw becomes a line of its own, clearing
writes nothing, so every other line starts on a line of its own.
"""

from __future__ import annotations

from typing import Any, TextIO


class LineStream:
    """A text stream for tqdm that writes each redraw of the bar as one whole line."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> int:
        for part in text.replace("\n", "\r").split("\r"):
            part = part.rstrip()
            if part:
                self.stream.write(part + "\n")
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:  # encoding, errors, ...: the stream's
        return getattr(self.stream, name)


def progress_file(stream: TextIO) -> Any:
    """``stream`` itself on a terminal, else a :class:`LineStream` over it."""
    isatty = getattr(stream, "isatty", None)
    return stream if isatty is not None and isatty() else LineStream(stream)
