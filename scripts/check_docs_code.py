#!/usr/bin/env python3
"""Run every ``python`` and ``bash`` code block of README.md, docs/*.md and the model cards, so
that no snippet can rot.

    python scripts/check_docs_code.py            # every block but those marked slow or skip
    python scripts/check_docs_code.py --slow     # the slow ones too
    python scripts/check_docs_code.py --only-slow  # only those (tests/test_docs.py, -m slow)
    python scripts/check_docs_code.py --list     # what would run, and why each skip is skipped

Each block runs on its own, in a fresh process (``python -c`` or ``bash -euo pipefail -c``), in
a scratch folder that holds a copy of the shipped checkpoints and links to the repository's
``configs/``, ``bench/``, ``training/``, ``examples/``, ``experiments/`` and ``scripts/``, so
what a block writes (``runs/``, a game log) lands there, never in the repository. ``python``
and the console scripts (``uno-evaluate``, ...) are those of the interpreter running this
script. A block's standard input is empty (a terminal game ends at once, cleanly).

A marker on the line just before a block's opening fence changes what happens to it:

``<!-- docs-code: skip REASON -->``   never run (a server, an install, hours of training);
                                      the reason is required and ``--list`` prints it
``<!-- docs-code: slow REASON -->``   run only with ``--slow``
``<!-- docs-code: output -->``        on a ``text`` block right after a block: the block's
                                      standard output must equal it (trailing spaces aside)

Exit status 1 and, per failure, the file, the line and the block's output tail.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = {"python": "python", "py": "python", "bash": "bash", "sh": "bash", "shell": "bash"}
MARKER = re.compile(r"^<!--\s*docs-code:\s*(skip|slow|output)\b\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
LINKED = ("configs", "bench", "training", "examples", "experiments", "scripts")
TIMEOUT_S = 900  # per block; the slowest marked slow takes about a minute on a 2-core machine
TAIL = 3000  # characters of a failed block's output shown


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    mark: str | None = None  # "skip", "slow" or None
    reason: str = ""
    expected: str | None = None  # the output a following marked text block shows


def shown(path: Path) -> str:
    """A path as the messages name it: relative to the repository where it is inside."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def doc_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "docs").glob("*/*.md")), *sorted((ROOT / "checkpoints").glob("*/README.md"))]
    return [f for f in files if f.is_file()]


def blocks_of(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file with their markers; ValueError for a marker
    without a reason or an output marker that follows no runnable block."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group(2), m.group(3).lower()
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        indent = len(m.group(1))
        body = "\n".join(line[indent:] for line in lines[i + 1:j])
        k = i - 1
        marker = MARKER.match(lines[k].strip()) if k >= 0 else None
        where = f"{shown(path)}:{i + 1}"
        if marker and marker.group(1) == "output":
            if info != "text" or not found or found[-1].mark == "skip":
                raise ValueError(f"{where}: an output marker must open a text block after a block that runs")
            found[-1].expected = body
        elif info in LANGUAGES:
            mark, reason = (marker.group(1), marker.group(2)) if marker else (None, "")
            if mark and not reason:
                raise ValueError(f"{where}: a '{mark}' marker needs a reason")
            found.append(Block(path, i + 1, LANGUAGES[info], body, mark, reason))
        elif marker:
            raise ValueError(f"{where}: a '{marker.group(1)}' marker before a {info or 'plain'} block")
        i = j + 1
    return found


def scratch_folder() -> Path:
    """A folder that looks like the repository to a block, holding copies of the shipped
    checkpoints (the loader refuses links) and links to the read-only folders."""
    tmp = Path(tempfile.mkdtemp(prefix="docs-code-"))
    for name in LINKED:
        if (ROOT / name).is_dir():
            (tmp / name).symlink_to(ROOT / name, target_is_directory=True)
    for card in (ROOT / "checkpoints").glob("*/card.json"):
        shutil.copytree(card.parent, tmp / "checkpoints" / card.parent.name)
    return tmp


def run_block(block: Block, cwd: Path) -> tuple[bool, str, float]:
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env.pop("PYTHONPATH", None)
    if block.language == "python":
        cmd = [sys.executable, "-c", block.code]
    else:
        cmd = ["bash", "-euo", "pipefail", "-c", block.code]
    began = time.monotonic()
    try:
        done = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {TIMEOUT_S} s", time.monotonic() - began
    elapsed = time.monotonic() - began
    output = done.stdout + done.stderr
    if done.returncode != 0:
        return False, f"exit status {done.returncode}\n{output[-TAIL:]}", elapsed
    if block.expected is not None:
        got = [line.rstrip() for line in done.stdout.rstrip("\n").split("\n")]
        want = [line.rstrip() for line in block.expected.rstrip("\n").split("\n")]
        if got != want:
            return False, "output differs from the text block after it:\n" + done.stdout[-TAIL:], elapsed
    return True, output, elapsed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--slow", action="store_true", help="also run the blocks marked slow")
    p.add_argument("--only-slow", action="store_true", help="run only the blocks marked slow")
    p.add_argument("--list", action="store_true", help="list the blocks and what would happen; run none")
    p.add_argument("files", nargs="*", type=Path, help="Markdown files (default: README, docs, model cards)")
    args = p.parse_args(argv)
    files = [f.resolve() for f in args.files] or doc_files()
    try:
        blocks = [b for f in files for b in blocks_of(f)]
    except ValueError as e:
        print(f"check_docs_code: {e}", file=sys.stderr)
        return 1
    failures = ran = skipped = 0
    cwd = None if args.list else scratch_folder()
    try:
        for b in blocks:
            where = f"{shown(b.path)}:{b.line} [{b.language}]"
            if b.mark == "skip" or (b.mark == "slow" and not (args.slow or args.only_slow)) \
                    or (args.only_slow and b.mark != "slow"):
                skipped += 1
                print(f"skip  {where}: {b.mark}: {b.reason}" if b.mark else f"skip  {where}: not marked slow")
                continue
            if args.list:
                print(f"run   {where}" + (" (output checked)" if b.expected is not None else ""))
                continue
            ok, output, elapsed = run_block(b, cwd)
            ran += 1
            print(f"{'ok  ' if ok else 'FAIL'}  {where} ({elapsed:.1f} s)", flush=True)
            if not ok:
                failures += 1
                print("      " + output.replace("\n", "\n      "))
    finally:
        if cwd is not None:
            shutil.rmtree(cwd, ignore_errors=True)  # the scratch folder this run made
    if not args.list:
        print(f"{ran - failures} passed, {failures} failed, {skipped} skipped")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
