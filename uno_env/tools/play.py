"""Play UNO in the terminal against scripted bots and trained agents.

    python -m uno_env.tools.play --rules classic --opponents heuristic heuristic checkpoint:checkpoints/classic-4p
    uno-play --rules house --opponents random greedy heuristic --seat 2 --seed 7 --log game.jsonl
    uno-play --rules tmnt --set uno_call=explicit --set episode=game --opponents heuristic

One human seat (``--seat``, default 0) and one seat per ``--opponents`` spec (any agent
spec: ``random``, ``greedy``, ``heuristic``, ``pretrained:<name>``, ``checkpoint:<dir>``,
``module:<package.module>:<Class>``: :mod:`uno_env.agents.base`), so the player count is
1 + the number of opponents. ``--rules`` is a preset (``classic``, ``tmnt``, ``house``) or a
YAML file; ``--set key=value`` (repeatable) overrides single rule options (values are read as
YAML: ``true``, ``3``, ``explicit``; :mod:`uno_env.tools.overrides`, the parser of every CLI).

At each decision the program shows the table (top card and colour, direction, pending
penalty, every hand size, UNO calls, scores), what happened since your last decision,
your hand, and your legal actions, numbered. You see what your player's observation shows,
no more: what happened is told from the engine's public events
(:mod:`uno_env.tools.narrate`), plus the names of the cards you drew. So answers in a window
(UNO catch, jump-in, offers) are told when it closes, and only its public outcome (who was
caught, the jump-in played with its player's UNO call, the offers made), not who else was
asked or what they answered; the table shows no turn or decision count (both count decisions
that depend on hidden cards). Answer with a number or an action name:
``play red-5`` (or just ``red-5``), ``play wild blue`` (or ``wild blue``), ``draw``,
``pass``, ``uno``, ``challenge``, ``catch``, ``color red``, ``discard red-1``, ``ask``,
``offer red-3``, ``take 1``. ``?`` shows help, ``hand`` / ``table`` show them again, ``quit``
(or end of input, or Ctrl-C) ends the game. Every decision of every ruleset (challenges,
colour choices, UNO catch windows, jump-ins, Team Attack discards, offers) is asked when it
arises. ``--log game.jsonl`` writes a game log (:mod:`uno_env.tools.gamelog`) that
``python -m uno_env.tools.replay`` replays; it is written as the game goes and holds every hand and
the deck, so reading it during the game is reading the cards. The seed (``--seed``, or one
drawn at random) is shown when the game ends, not before: it deals every hand and the DRAW
pile. The exit code is 0 unless the arguments are wrong (2).

**Bad input.** An answer that is no action (an unknown name, a number out of range however
long, digits that are not ASCII such as ``²``, a line that is not UTF-8) is answered with the
reason and asked again. Bad arguments (``--seed -1``, ``--seat 9``, an unknown agent spec, a
``--rules`` file that is missing, not UTF-8, not YAML or not valid rules, a bad ``--set``
value such as ``villain_faces=5``) end the program with a one-line error and exit code 2,
never a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
from collections import Counter
from typing import Any, Callable, Sequence

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import (CATCH, CHALLENGE, COLOR, DISCARD, DRAWN, JUMP, OFFER, PENDING_SEWERS,
                                 PHASE_NAMES, TAKE, TURN)
from uno_env.game import events as E
from uno_env.tools.gamelog import MAX_SEED, GameRecorder, fresh_seed, reset_env
from uno_env.tools.narrate import Narrator
from uno_env.tools.overrides import parse_overrides
from uno_env.tools.prompts import PENDING_TEXT, situation
from uno_env.envs.render import paint

HUMAN = "human"
# --seed: 0..MAX_SEED, a log's range (the agents' seeds are seed + 1 + seat); a random seed has 128 bits
_WINDOW_NAMES = {CATCH: "UNO catch window", JUMP: "jump-in window", OFFER: "offers"}

_NUMBER = re.compile(r"-?[0-9]+")
_MAX_NUMBER_CHARS = 6  # longer numbers are no action number (and int() of 5000 digits fails)
_MAX_ECHO = 40  # characters of a bad answer quoted back


def _clip(text: str) -> str:
    """``text`` cut to :data:`_MAX_ECHO` characters for quoting it back."""
    return text if len(text) <= _MAX_ECHO else text[:_MAX_ECHO - 3] + "..."


HELP = """\
Enter the number of an action, or its name:
  play red-5 (or red-5)      play a card        play wild blue (or wild blue)  a wild + colour
  draw                       draw (or take the pending penalty)
  pass                       keep the drawn card / don't jump in, catch, offer or take
  uno  challenge  catch      call UNO, challenge a Wild Draw Four, catch a missing UNO call
  color red   discard red-1  ask   offer red-3   take 1
Other commands: hand (your hand), table (the table), help or ?, quit (end the game)."""


class Quit(Exception):
    """The human ended the game (quit, end of input or Ctrl-C)."""


def paint_text(text: str, env: Any, color: bool) -> str:
    """``text`` with every card and colour name painted."""
    if not color:
        return text
    u = env.unwrapped
    known = set(u.card_names) | set(u.colors)
    return " ".join(paint(w, True) if w in known else w for w in text.split(" "))


class TerminalGame:
    """One game with a human seat: ``run()`` plays it through ``read``/``write``.

    ``read(prompt)`` returns a line (``EOFError``/``KeyboardInterrupt`` end the game);
    ``write(text)`` prints. ``agents[seat]`` is the bot of every other seat.
    """

    def __init__(self, env: Any, human: int, agents: dict[int, Any], specs: Sequence[str],
                 seed: int, color: bool = False, recorder: GameRecorder | None = None,
                 read: Callable[[str], str] = input, write: Callable[[str], Any] = print,
                 dealer: int | None = None, deck: Sequence[str] | None = None):
        self.env, self.u = env, env.unwrapped
        self.dealer, self.deck = dealer, deck  # a stacked deal (tests); default: from the seed
        self.human = human
        self.agents = agents
        self.specs = list(specs)
        self.seed = seed
        self.color = color
        self.recorder = recorder
        self.read, self.write = read, write
        self.u.engine.record_events = True  # the narration reads the engine's public events
        self.news: list[str] = []  # what happened since the human's last decision
        n = self.u.engine.n
        self.labels = [("you" if i == human else f"player_{i}") for i in range(n)]
        self.titles = [f"player_{i} ({'you' if i == human else self.specs[i]})" for i in range(n)]
        self.narrator = Narrator(self.u.card_names, self.u.colors, self.labels, me=human,
                                 paint=lambda name: paint(name, self.color),
                                 scores=lambda: self.u.game_state.scores,
                                 standard_scoring=self.u.rules.scoring == "standard")

    # ------------------------------------------------------------------ text helpers
    def p(self, text: str) -> str:
        return paint_text(text, self.env, self.color)

    def card(self, k: int) -> str:
        return paint(self.u.card_names[k], self.color)

    def hand_text(self) -> str:
        u, s = self.u, self.u.game_state
        cards = u.engine.hand_cards(s, self.human)
        return f"Your hand ({len(cards)}): " + " ".join(self.card(k) for k in cards)

    def table_text(self) -> str:
        u, s = self.u, self.u.game_state
        n = s.n
        arrow = "clockwise (seat numbers up)" if s.direction > 0 else \
            "counter-clockwise (seat numbers down)"
        rnd = s.round if s.game_over else s.round + 1
        colour = u.colors[s.color] if s.color >= 0 else "(not chosen yet)"
        # no turn counter: ``turns`` and ``steps`` count decisions that depend on hidden cards
        # (a victim who could stack, a window's answers), so a count would tell what they hide
        lines = ["-" * 64,
                 f"Round {rnd} | {u.rules.name} rules | direction {arrow}",
                 f"Top card: {self.card(s.discard[-1])}   colour: {paint(colour, self.color)}   "
                 f"draw pile: {len(s.draw_pile)}"]
        if s.pending:
            what = PENDING_TEXT.get(s.pending_kind, "penalty")
            amount = f"{s.pending} stacked" if s.pending_kind == PENDING_SEWERS else f"+{s.pending} cards"
            lines.append(f"Pending penalty: {amount} ({what})")
        width = max(len(t) for t in self.titles)
        for i in range(n):
            marks = []
            if i == s.turn:
                marks.append("<- turn")
            if s.uno_called[i]:
                marks.append("UNO!")
            if i == s.dealer:
                marks.append("(dealer)")
            score = f"  score {s.scores[i]}" if u.rules.episode != "round" else ""
            lines.append(f"  {self.titles[i]:<{width}}  {s.hand_size[i]:3d} card"
                         f"{'s' if s.hand_size[i] != 1 else ' '}{score}  {' '.join(marks)}".rstrip())
        return "\n".join(lines)

    def situation(self) -> str:
        """What the human is asked, in words (:func:`uno_env.tools.prompts.situation`)."""
        return situation(self.u.game_state, self.u.rules.uno_penalty, self.card, self.labels.__getitem__)

    # ------------------------------------------------------------------ events
    def apply(self, action: int) -> None:
        """Step the game with the actor's ``action`` and narrate the public events it caused
        (:mod:`uno_env.tools.narrate`); the cards the human drew are named from its own hand."""
        u = self.u
        s = u.game_state
        start = len(s.events)
        mine = Counter(u.engine.hand_cards(s, self.human))
        if self.recorder is not None:
            self.recorder.step(action)
        else:
            self.env.step(action)
        s = u.game_state
        events = s.events[start:]
        received: Counter = Counter()
        if not any(ev.kind == E.DEALT for ev in events):  # a new deal replaces the whole hand
            received = Counter(u.engine.hand_cards(s, self.human)) - mine
            received -= Counter(ev.card for ev in events if ev.kind == E.TOOK and ev.seat == self.human)
        self.news += self.narrator.lines(events, received.elements())

    # ------------------------------------------------------------------ input
    def parse(self, text: str, legal: list[int]) -> tuple[int | None, str | None]:
        """(action, None) for a valid answer, else (None, reason)."""
        u = self.u
        t = re.sub(r"\s+", " ", text.strip().lower())
        if not t:
            return None, f"Please enter a number from 1 to {len(legal)} or an action name (? for help)."
        if _NUMBER.fullmatch(t):  # ASCII digits only: int() would take "٣" and choke on "²"
            i = int(t) if len(t) <= _MAX_NUMBER_CHARS else None
            if i is None or not 1 <= i <= len(legal):
                return None, f"There is no action {_clip(t)}: enter a number from 1 to {len(legal)}."
            return legal[i - 1], None
        t = t.replace("colour ", "color ")
        candidates = [t, f"play {t}"]
        for name in candidates:
            if name in u._action_ids:
                a = u._action_ids[name]
                if a in legal:
                    return a, None
                return None, f"'{name}' is not possible now: {self.why_illegal(a)}"
        words = t.split(" ")
        card = words[-1] if words[0] == "play" else (words[0] if len(words) == 1 else None)
        if card in ("wild", "wild-draw4", "team-attack", "from-the-sewers"):
            if u.game_state.hands[u.game_state.actor, u.card_names.index(card)] == 0:
                return None, f"'play {card}' is not possible now: you do not hold {card}."
            return None, (f"Say which colour: e.g. 'play {card} {u.colors[0]}' "
                          f"(colours: {', '.join(u.colors)}).")
        return None, (f"Unknown input '{_clip(text.strip())}': enter a number from 1 to {len(legal)} "
                      "or an action name (? for help).")

    def why_illegal(self, action: int) -> str:
        """Why a known action is not legal for the human now."""
        u, s = self.u, self.u.game_state
        ph, p = s.phase, s.actor
        hand = s.hands[p]
        if A.is_play(action):
            k = A.played_kind(action)
            name = self.u.card_names[k]
            if hand[k] == 0:
                return f"you do not hold {name}."
            if ph == DRAWN:
                return f"only the card you just got ({u.card_names[s.drawn]}) may be played now."
            if ph == JUMP:
                return f"only a card identical to the top card ({u.card_names[s.discard[-1]]}) may jump in."
            if ph == CHALLENGE:
                return "you may only challenge, draw" + (" or stack a Wild Draw Four." if u.rules.stacking else ".")
            if ph != TURN:
                return f"no card may be played in this decision ({PHASE_NAMES[ph]})."
            if s.pending:
                return (f"a penalty of +{s.pending} is pending: you may only stack a card of the same "
                        "kind or draw.")
            if k == C.WILD_DRAW4:
                return f"a Wild Draw Four may be played only when you hold no {u.colors[s.color]} card."
            colour = u.colors[s.color] if s.color >= 0 else "-"
            return f"{name} does not match the top card {u.card_names[s.discard[-1]]} (colour {colour})."
        if action in A.COLOR_IDS and ph != COLOR:
            return "a colour is chosen with the wild card itself, e.g. 'play wild red'."
        if action in A.DISCARD_IDS and ph == DISCARD:
            return "only villain cards that you hold may be discarded."
        if action in A.OFFER_IDS and ph == OFFER:
            return "you can only offer a card that you hold."
        if action in A.TAKE_IDS and ph == TAKE:
            return "nobody at that position made an offer."
        if action == A.UNO and u.rules.uno_call == "auto":
            return "UNO is called for you in these rules (uno_call: auto)."
        if action == A.UNO:
            return "UNO is called when you have two cards and are about to play one."
        return f"it is not one of your choices in this decision ({PHASE_NAMES[ph]})."

    def ask_human(self) -> int:
        """Show the table and ask the human for a legal action."""
        u = self.u
        legal = u.legal_actions()
        w = self.write
        w(self.table_text())
        if self.news:
            w("Since your last decision:")
            for line in self.news:
                w("  " + line)
            self.news = []
        w(self.hand_text())
        w(self.situation())
        for i, a in enumerate(legal, 1):
            w(f"  {i:2d}) {self.p(u.action_names[a])}")
        while True:
            try:
                choices = "1" if len(legal) == 1 else f"1-{len(legal)}"
                answer = self.read(f"Your move ({choices}, ? for help): ")
            except (EOFError, KeyboardInterrupt):
                raise Quit() from None
            except UnicodeDecodeError:  # main() reads stdin with errors="replace"; other readers may not
                w("That input is not UTF-8 text: enter a number or an action name (? for help).")
                continue
            t = answer.strip().lower()
            if t in ("q", "quit", "exit"):
                raise Quit()
            if t in ("?", "h", "help"):
                w(HELP)
                continue
            if t == "hand":
                w(self.hand_text())
                continue
            if t == "table":
                w(self.table_text())
                w(self.hand_text())
                for i, a in enumerate(legal, 1):
                    w(f"  {i:2d}) {self.p(u.action_names[a])}")
                continue
            action, reason = self.parse(answer, legal)
            if action is not None:
                return action
            w(reason)

    # ------------------------------------------------------------------ main loop
    def over(self) -> bool:
        return self.u.game_state.game_over or any(self.u.truncations.values())

    def run(self) -> int:
        u, w = self.u, self.write
        n = u.engine.n
        players = ", ".join(self.titles)
        w(f"UNO, {u.rules.name} rules, {n} players: {players}.")  # the seed at the end: it deals every hand
        if self.recorder is not None:
            self.recorder.reset(seed=self.seed, dealer=self.dealer, deck=self.deck)
        else:
            reset_env(self.env, self.seed, self.dealer, self.deck)
        for seat, agent in self.agents.items():
            agent.reset(None)
        for line in self.narrator.lines(u.game_state.events):  # the deal: dealer, first card, its effect
            w(line)
        try:
            while not self.over():
                seat = u.game_state.actor
                if seat == self.human:
                    action = self.ask_human()
                else:
                    obs = u.observe(u.possible_agents[seat])
                    action = int(self.agents[seat].act(obs["observation"], obs["action_mask"]))
                self.apply(action)
        except Quit:
            w("")
            w(self.seed_line())
            w("Game abandoned. Bye!")
            if self.recorder is not None:
                self.recorder.finish("aborted")
                w(f"Game log written to {self.recorder.path}")
            return 0
        self.show_result()
        if self.recorder is not None:
            self.recorder.finish()
            w(f"Game log written to {self.recorder.path}")
        return 0

    def show_result(self) -> None:
        u, s, w = self.u, self.u.game_state, self.write
        w(self.table_text())
        if self.news:
            w("Last moves:")
            for line in self.news:
                w("  " + line)
            self.news = []
        w("Hands at the end:")
        for i in range(s.n):
            cards = " ".join(self.card(k) for k in u.engine.hand_cards(s, i)) or "(empty)"
            w(f"  {self.titles[i]}: {cards}")
        if s.game_over:
            winner = "You win!" if s.winner == self.human else f"{self.titles[s.winner]} wins."
            w(f"Game over after {s.steps} steps. {winner}")
            if u.rules.episode != "round" or u.rules.scoring != "standard":
                w("Scores: " + ", ".join(f"{self.labels[i]} {x}" for i, x in enumerate(s.scores)))
            else:
                w(f"Round points: {s.round_points[s.winner]}")
        else:
            w(f"Game stopped after {s.steps} steps (max_steps = {u.rules.max_steps}): no winner.")
        w(self.seed_line())

    def seed_line(self) -> str:
        """Shown when the game ends (played out or abandoned), never before: the seed deals every hand."""
        return f"Seed {self.seed}: --seed {self.seed} deals this game again."


# ---------------------------------------------------------------------------- CLI
def _seed(text: str) -> int:
    """``--seed``: an integer in 0..MAX_SEED (argparse turns the error into exit code 2)."""
    t = text.strip()
    if not (t.isascii() and t.isdigit() and len(t) <= len(str(MAX_SEED))) or int(t) > MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be an integer in 0..{MAX_SEED}, got {_clip(text)!r}")
    return int(t)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="uno-play", description="Play UNO in the terminal against bots and trained agents.",
        epilog="Example: uno-play --rules classic --opponents heuristic heuristic checkpoint:checkpoints/classic-4p")
    ap.add_argument("--rules", default="classic", help="preset (classic, tmnt, house) or YAML file")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="override one rule option (repeatable; values read as YAML), "
                         "e.g. --set uno_call=explicit")
    ap.add_argument("--opponents", nargs="+", default=None, metavar="SPEC",
                    help="agent spec of each opponent: random, greedy, heuristic, pretrained:<name>, "
                         "checkpoint:<dir>, module:<package.module>:<Class> (default: heuristic)")
    ap.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    ap.add_argument("--seed", type=_seed, default=None, help=f"game seed, 0..{MAX_SEED} (default: random)")
    ap.add_argument("--log", default=None, metavar="PATH", help="write a JSON Lines game log")
    ap.add_argument("--no-color", action="store_true", help="no ANSI colours")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if hasattr(sys.stdin, "reconfigure"):  # an answer that is not UTF-8 is answered, not a crash
        sys.stdin.reconfigure(errors="replace")
    # Ctrl-C ends the game cleanly even when started from a shell that ignores SIGINT (a job
    # started with & in a script): Python installs no KeyboardInterrupt handler then
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from uno_env.envs.aec_env import raw_env
    from uno_env.agents import agent_specs, make_agent
    from uno_env.game.rules import make_rules

    opponents = args.opponents
    if opponents is None:
        opponents = ["heuristic"] if "heuristic" in agent_specs() else ["random"]
    n = 1 + len(opponents)
    try:
        rules = make_rules(args.rules, **parse_overrides(args.overrides))
        if not 0 <= args.seat < n:
            raise ValueError(f"--seat must be in 0..{n - 1} for {n} players, got {args.seat}")
        env = raw_env(rules=rules, num_players=n)
        seed = args.seed if args.seed is not None else fresh_seed()
        specs: list[str] = []
        agents: dict[int, Any] = {}
        others = iter(opponents)
        for seat in range(n):
            if seat == args.seat:
                specs.append(HUMAN)
                continue
            spec = next(others)
            specs.append(spec)
            agents[seat] = make_agent(spec, rules, n, seed=seed + 1 + seat)
    except (ValueError, OSError, ImportError) as e:
        ap.error(str(e))
    color = not args.no_color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    recorder = None
    if args.log:
        try:
            recorder = GameRecorder(env, args.log, specs=specs,
                                    agent_seeds=[None if s == HUMAN else seed + 1 + i for i, s in enumerate(specs)],
                                    meta={"tool": "uno-play"})
        except OSError as e:
            ap.error(f"cannot write the log {args.log!r}: {e}")
    game = TerminalGame(env, args.seat, agents, specs, seed, color=color, recorder=recorder)
    try:
        return game.run()
    except KeyboardInterrupt:  # Ctrl-C while the bots think
        print("\nGame abandoned. Bye!")
        if recorder is not None:
            recorder.finish("aborted")
        return 0


if __name__ == "__main__":
    sys.exit(main())
