"""Play a TMNT battle-card game in the terminal against bots: ``uno-battle``.

    uno-battle --game battle                               # you against the strong bot
    uno-battle --game dragon --opponents strong random --seat 1 --seed 7
    uno-battle --game elusive --rules elusive-others --opponents strong strong --log game.jsonl
    uno-battle --game names --cards my-cards.yaml --set guess=wrong_discards

One human seat (``--seat``, default 0) and one seat per ``--opponents`` spec (``strong``
(default), ``random``), so the player count is 1 + the number of opponents. ``--rules`` is a
preset of the game (or a YAML file), ``--set key=value`` (repeatable) overrides one option,
``--cards`` replaces the card set (a YAML card list).

At each of your decisions the program tells what happened since your last one (the public
events, :mod:`uno_env.battle.game.events`), shows the table as you know it
(``engine.describe``: your own cards, every public count, nothing hidden) and your legal
actions, numbered. Answer with a number or an action's name (``name strength`` or just
``strength``, ``cover``, ``say Krang``; a unique beginning is enough, any case). In a
simultaneous window (covering the dragon, the cards of Unexpected attack) you are asked
without seeing the others' answers; they are told when the window closes. ``?`` shows
help, ``table`` the table and the numbered actions again, ``quit`` (or end of input, or Ctrl-C) ends the game.
``--log game.jsonl`` writes a game log (:mod:`uno_env.battle.tools.gamelog`; it holds the
deck, so reading it during the game is reading the cards). The seed (``--seed``, or one
drawn at random) is shown when the game ends, not before: it deals every pile.

Bad answers (an unknown name, a number out of range) are answered with the reason and asked
again; bad arguments end the program with a one-line error and exit code 2.
"""

from __future__ import annotations

import argparse
import copy
import secrets
import sys
from typing import Any, Callable, Sequence

import numpy as np

from uno_env.battle.agents import battle_agent_specs, make_battle_agent
from uno_env.battle.game import GAMES, TITLES, make_engine, make_encoder
from uno_env.battle.game.events import describe as describe_event
from uno_env.battle.tools.gamelog import GameWriter
from uno_env.tools.overrides import parse_overrides

HUMAN = "human"
MAX_SEED = 2**63 - 1
_MAX_ECHO = 40

HELP = """\
Enter the number of an action, or its name (or a unique beginning of it; the word before
the name may be left out: "strength" for "name strength").
Other commands: table (the table and your actions again), help or ?, quit (end the game)."""


class Quit(Exception):
    """The human ended the game."""


class TerminalGame:
    """One game with a human seat, played through ``read``/``write``."""

    def __init__(self, engine: Any, human: int, specs: Sequence[str], seed: int,
                 read: Callable[[str], str] = input, write: Callable[[str], Any] = print,
                 log: Any = None, first: int | None = None, deck: Sequence[int] | None = None):
        self.engine, self.human, self.seed = engine, human, seed
        self.read, self.write = read, write
        self.specs = list(specs)
        self.encoder = make_encoder(engine)
        self.agents = {q: make_battle_agent(spec, engine, seed + 1 + q)
                       for q, spec in enumerate(specs) if spec != HUMAN}
        rng = np.random.default_rng(seed)
        rng_state = copy.deepcopy(rng.bit_generator.state)
        self.state = engine.new_state(rng, deck=deck, first=first)
        self.names = [f"player_{q}" + (" (you)" if q == human else "") for q in range(engine.n)]
        self._told = 0
        self.log = None
        if log is not None:
            self.log = GameWriter(log, engine, self.specs)
            self.log.start(self.state, rng_state, first is None, deck is None,
                           [None if q == human else seed + 1 + q for q in range(engine.n)],
                           {"tool": "uno-battle"})

    def tell_events(self) -> None:
        e, s = self.engine, self.state
        guesses = getattr(e, "guess_names", ())
        for event in s.events[self._told:]:
            self.write("  -> " + describe_event(event, e.card_names, self.names, guesses))
        self._told = len(s.events)

    def options(self) -> list[int]:
        return list(self.engine.legal_actions(self.state))

    def parse(self, text: str, legal: list[int]) -> tuple[int | None, str | None]:
        """``(action, None)`` for an answer naming a legal action, else ``(None, reason)``."""
        names = self.engine.action_names
        t = " ".join(text.split()).lower()
        if t.isascii() and t.isdigit() and len(t) <= 6:
            i = int(t)
            if 1 <= i <= len(legal):
                return legal[i - 1], None
            return None, f"{i} is not one of the numbers 1..{len(legal)}"
        full = {names[a].lower(): a for a in legal}
        short = {names[a].lower().split(" ", 1)[-1]: a for a in legal}
        for table in (full, short):
            if t in table:
                return table[t], None
        hits = sorted({a for table in (full, short) for key, a in table.items() if t and key.startswith(t)})
        if len(hits) == 1:
            return hits[0], None
        clip = text if len(text) <= _MAX_ECHO else text[:_MAX_ECHO - 3] + "..."
        if len(hits) > 1:
            return None, f"{clip!r} could be " + ", ".join(names[a] for a in hits)
        return None, f"{clip!r} is not a legal action now; ? for help"

    def show_table(self) -> None:
        self.write(self.engine.describe(self.state, self.human))

    def show_decision(self, legal: list[int]) -> None:
        """The table, then the legal actions, numbered (at each decision and on ``table``)."""
        self.show_table()
        phase = self.engine.PHASE_NAMES[self.state.phase]
        self.write(f"your decision ({phase}):")
        for i, a in enumerate(legal, 1):
            self.write(f"  {i}. {self.engine.action_names[a]}")

    def ask_human(self) -> int:
        legal = self.options()
        self.show_decision(legal)
        while True:
            try:
                text = self.read("> ")
            except (EOFError, KeyboardInterrupt):
                raise Quit from None
            t = text.strip().lower()
            if t in ("quit", "exit", "q"):
                raise Quit
            if t in ("?", "help", "h"):
                self.write(HELP)
                continue
            if t == "table":
                self.show_decision(legal)
                continue
            action, reason = self.parse(text, legal)
            if action is not None:
                return action
            self.write(reason)

    def run(self) -> int:
        e, s = self.engine, self.state
        self.write(f"{TITLES[e.game]}: {e.n} players, you are player_{self.human}; "
                   f"rules {e.rules.name}, cards {e.cards.name}")
        try:
            while not s.game_over:
                p = s.actor
                if p == self.human:
                    self.tell_events()
                    action = self.ask_human()
                else:
                    mask = np.zeros(e.num_actions, np.int8)
                    mask[self.options()] = 1
                    action = int(self.agents[p].act(self.encoder.encode(s, p), mask))
                phase = s.phase
                e.step(s, action)
                if self.log is not None:
                    self.log.action(p, phase, action)
        except Quit:
            self.write(f"game ended by the player (seed {self.seed})")
            return 0
        finally:
            if self.log is not None:
                self.log.close()
        self.tell_events()
        self.show_table()
        if self.human in s.winners:
            self.write("you win!" if len(s.winners) == 1 else "you share the win")
        else:
            self.write("winner: " + ", ".join(f"player_{w}" for w in s.winners))
        self.write(f"scores: {e.scores(s)}  (seed {self.seed})")
        return 0


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be an integer in 0..{MAX_SEED}, got {text[:_MAX_ECHO]!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="uno-battle",
                                 description="Play a TMNT battle-card game (docs/TMNT-BATTLE.md) against bots.")
    ap.add_argument("--game", default="battle", choices=GAMES, help="the game (default battle)")
    ap.add_argument("--rules", default=None, help="a preset of the game or a YAML rules file")
    ap.add_argument("--cards", default=None, help="a YAML card list (default: the tmnt-standin set)")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="override one rule option (repeatable)")
    ap.add_argument("--opponents", nargs="+", default=["strong"], metavar="SPEC",
                    help=f"one bot per other seat: {', '.join(battle_agent_specs())} (default: strong)")
    ap.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    ap.add_argument("--seed", type=_seed, default=None, help="game seed (default: random)")
    ap.add_argument("--log", default=None, metavar="PATH", help="write a JSON Lines game log")
    return ap


def main(argv: Sequence[str] | None = None, read: Callable[[str], str] = input,
         write: Callable[[str], Any] = print) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    n = 1 + len(args.opponents)
    if not 0 <= args.seat < n:
        ap.error(f"--seat must be in 0..{n - 1} for {n} players")
    try:
        overrides = parse_overrides(args.overrides)
        engine = make_engine(args.game, args.rules, args.cards, n, record_events=True, **overrides)
        specs = list(args.opponents)
        specs.insert(args.seat, HUMAN)
        for q, spec in enumerate(specs):
            if spec != HUMAN:
                make_battle_agent(spec, engine, 0)
    except ValueError as exc:
        ap.error(str(exc))
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    try:
        game = TerminalGame(engine, args.seat, specs, seed, read=read, write=write, log=args.log)
    except OSError as exc:
        ap.error(f"cannot write --log {args.log!r}: {exc.strerror or exc}")
    return game.run()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
