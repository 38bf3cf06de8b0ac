"""Replay a game log (:mod:`uno_env.tools.gamelog`) in the terminal, showing every hand.

    python -m uno_env.tools.replay game.jsonl            # print the whole game
    python -m uno_env.tools.replay game.jsonl --step     # wait for Enter after every action
    uno-replay game.jsonl --quiet                  # only check that it replays exactly

The game is re-played from the logged rules, seed, deck and dealer; every logged action
must be legal for the logged player in the logged phase, the public table and the public
events after each action must match the log (a version-1 log has no events), and the final
state must equal the logged final snapshot. Every action is followed by what it led to, told
from the replay's public events (:mod:`uno_env.tools.narrate`, as the terminal game tells
it), then the table and all hands (it is a replay: nothing is hidden).

The log is read one line at a time (:func:`uno_env.tools.gamelog_read.read_log`): a regular
file only (a FIFO or ``/dev/zero`` is refused without being read), at most ``--max-bytes``
(default 64 MiB) and 1 MiB a line.

Exit codes: 0 the replay matches the log (or was stopped with ``q`` / end of input in
``--step`` mode), 1 it does not (the first difference is printed), 2 the file is not a
readable game log: a one-line error naming the line (too large, not a regular file, a line
too long, not UTF-8, not JSON, a header with
``num_players: 1e400`` or rule counts out of bounds, a malformed record; see
:func:`uno_env.tools.gamelog_read.read_log`), never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable, Sequence

from uno_env.game.engine import PHASE_NAMES, PENDING_SEWERS
from uno_env.tools.gamelog import ReplayError
from uno_env.tools.gamelog_read import MAX_LOG_BYTES, MAX_LOG_LINE_BYTES, GameLog, read_log
from uno_env.tools.gamelog_replay import replay
from uno_env.tools.narrate import Narrator
from uno_env.tools.play import paint_text
from uno_env.envs.render import paint


class _Stop(Exception):
    pass


def table_lines(env: Any, specs: Sequence[str], color: bool = False) -> list[str]:
    """The table and every hand of a raw env, as lines."""
    u = env.unwrapped
    s = u.game_state
    colour = u.colors[s.color] if s.color >= 0 else "-"
    pending = ""
    if s.pending:
        pending = f"  pending {s.pending}" + (" sewers" if s.pending_kind == PENDING_SEWERS else " cards")
    lines = [f"  top {paint(u.card_names[s.discard[-1]], color)}  colour {paint(colour, color)}  "
             f"{'clockwise' if s.direction > 0 else 'counter-clockwise'}{pending}  "
             f"draw pile {len(s.draw_pile)}  phase {PHASE_NAMES[s.phase]}"
             + (f"  next {u.possible_agents[s.actor]}" if s.actor >= 0 else "")]
    titles = [f"{a} ({specs[i]})" for i, a in enumerate(u.possible_agents)]
    width = max(len(t) for t in titles)
    show_scores = u.rules.episode != "round"
    for i, title in enumerate(titles):
        cards = " ".join(paint(u.card_names[k], color) for k in u.engine.hand_cards(s, i))
        marks = (" UNO" if s.uno_called[i] else "") + (f" score {s.scores[i]}" if show_scores else "")
        lines.append(f"  {title:<{width}} {s.hand_size[i]:3d}{marks}: {cards or '(empty)'}")
    return lines


def replay_game(log: "GameLog | str", color: bool = False, quiet: bool = False,
                step: bool = False, read: Callable[[str], str] = input,
                write: Callable[[str], Any] = print) -> int:
    """Replay ``log`` through ``write`` (see the module doc); returns the exit code."""
    if not isinstance(log, GameLog):
        log = read_log(log)
    h = log.header
    n = int(h["num_players"])
    specs = list(h.get("specs") or ["?"] * n)
    rules = h["rules"]

    narrator: Narrator | None = None
    seen = 0  # events told so far

    def show(env: Any) -> None:
        if not quiet:
            for line in table_lines(env, specs, color):
                write(line)

    def tell(env: Any) -> None:
        """The replay's public events since the last call (checked against the log's)."""
        nonlocal seen
        events = env.unwrapped.game_state.events
        for line in narrator.lines(events[seen:]):
            write("    " + line)
        seen = len(events)

    def on_reset(env: Any) -> None:
        nonlocal narrator
        u = env.unwrapped
        if quiet:
            return
        narrator = Narrator(u.card_names, u.colors, u.possible_agents, paint=lambda name: paint(name, color),
                            scores=lambda: u.game_state.scores, standard_scoring=u.rules.scoring == "standard")
        write(f"Game log {log.path or ''}: {rules.get('name')} rules, {n} players, seed {h['seed']}, "
              f"dealer {u.possible_agents[int(h['dealer'])]}, {len(log.actions)} actions")
        write("Players: " + ", ".join(f"{a} ({specs[i]})" for i, a in enumerate(u.possible_agents)))
        write("Deal:")
        tell(env)
        show(env)

    def on_step(env: Any, rec: dict) -> None:
        if not quiet:
            write(f"step {rec['step']} round {rec['round'] + 1}: {rec['agent']} ({rec.get('spec', '?')}) "
                  f"[{rec['phase']}] {paint_text(rec['name'], env, color)}")
            tell(env)
            show(env)
        if step and rec is not log.actions[-1]:
            try:
                answer = read("[Enter] next action, q to stop: ")
            except (EOFError, KeyboardInterrupt):
                raise _Stop() from None
            if answer.strip().lower() in ("q", "quit", "exit"):
                raise _Stop()

    try:
        env = replay(log, on_step=on_step, on_reset=on_reset)
    except _Stop:
        write("Replay stopped.")
        return 0
    except ReplayError as e:
        write(f"REPLAY MISMATCH: {e}")
        return 1
    s = env.unwrapped.game_state
    end = log.end
    if end is None:
        write(f"Replayed {len(log.actions)} actions; the log has no end record (the game was cut off).")
        return 0
    winner = end.get("winner")
    write(f"Replayed {len(log.actions)} actions: the final state matches the log exactly. "
          f"Status {end.get('status')}, winner {winner or '-'}, scores {list(map(int, s.scores))}.")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="uno-replay", description="Replay a UNO game log (JSON Lines).")
    ap.add_argument("log", help="game log written by uno-play, evaluation or uno_env.tools.gamelog")
    ap.add_argument("--step", action="store_true", help="wait for Enter after every action")
    ap.add_argument("--quiet", action="store_true", help="print only the verification result")
    ap.add_argument("--no-color", action="store_true", help="no ANSI colours")
    ap.add_argument("--max-bytes", type=int, default=MAX_LOG_BYTES, metavar="N",
                    help=f"refuse a log larger than this (default {MAX_LOG_BYTES}; a line: at most "
                         f"{MAX_LOG_LINE_BYTES})")
    args = ap.parse_args(argv)
    if args.max_bytes < 1:
        ap.error(f"--max-bytes must be >= 1, got {args.max_bytes}")
    if args.step and hasattr(sys.stdin, "reconfigure"):  # any answer is read, UTF-8 or not
        sys.stdin.reconfigure(errors="replace")
    try:
        log = read_log(args.log, max_bytes=args.max_bytes)
    except (OSError, ValueError) as e:
        print(f"uno-replay: error: {e}", file=sys.stderr)
        return 2
    color = not args.no_color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    try:
        return replay_game(log, color=color, quiet=args.quiet, step=args.step)
    except KeyboardInterrupt:
        print("\nReplay stopped.")
        return 0
    except BrokenPipeError:  # output piped into head & co.
        sys.stdout = open(os.devnull, "w")
        return 0
    except (KeyError, TypeError, ValueError) as e:  # a malformed record
        print(f"uno-replay: error: malformed game log: {e!r}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
