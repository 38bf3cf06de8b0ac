"""Soak test: millions of random legal games straight on the engine, checked after every decision.

    python bench/soak.py --games 100000                       # every variant, 100,000 games each
    python bench/soak.py --variants classic house --games 1000000 --workers 2 --out runs/soak
    python bench/soak.py --repro house-explicit:123456        # replay one game, checked at every step

**Variants** (``--variants``): ``classic``, ``tmnt``, ``house`` (the presets) and
``classic-explicit``, ``tmnt-explicit``, ``house-explicit`` (the same with
``uno_call="explicit"``) are the default; ``everything`` (house + explicit UNO + 4 Team
Attack cards: every rule option on) can be asked for.

**A game is its seed.** Game ``seed`` of a variant (``--seed`` is the first seed, one per
game after it) is fully determined by the pair ``(variant, seed)``:

=================  ==============================================================
player count       ``2 + seed % 9`` (every count 2..10 equally often)
engine RNG         ``numpy.random.default_rng(seed)`` (shuffles, random picks)
policy RNG         ``random.Random(seed)``, whose first draws pick the options below
rule options       the variant's, plus per game: 1 in 8 ``episode="game"`` to 200 points
                   (several deals), 1 in 16 ``wd4_bluff=False``, 1 in 16 ``challenge=False``,
                   1 in 32 ``episode="rounds"`` (3 rounds) with ``scoring="alternative"``,
                   1 in 4 ``stacked_challenge="last"`` (a difference only with stacking)
policy             per decision, with probability ``eps`` a uniformly random legal action,
                   otherwise a random playable card when one is legal (else uniform);
                   ``eps`` per game from (0, 0.05, 0.1, 0.2, 0.3), and 1 (purely uniform
                   play, the RLCard way) for 1 in 64, with ``max_steps=2000``: long games,
                   most house ones truncated;
                   with explicit UNO, ``uno`` whenever legal with probability 1/2 first
=================  ==============================================================

**Checks** (a failure records the variant, seed, decision and message; ``--repro`` replays it):

* after every decision: the legal action set is non-empty before OVER; the chosen action
  is accepted by ``step``; total cards (hand sizes + DRAW + DISCARD) equal the deck size;
  the public table rebuilt from the engine's public events alone (hand sizes, DISCARD size,
  top card, colour, direction, rounds, winner) equals the state, and no event of a draw,
  penalty, call or outcome names a card (``--no-events``: the engine records no events);
* every ``--check-every`` decisions and at the end (full checks): per card kind, hands +
  DRAW + DISCARD equal the deck; no negative count; the per-seat caches (``hand_size``,
  ``held``) agree with the hands; DISCARD is never empty; the legal actions are sorted,
  distinct action ids; ``phase == OVER`` exactly when the game is over; and **every** legal
  action is accepted by ``step`` on a copy of the state, keeps the card total and leaves
  a legal action (unless it ends the game);
* at the end: a finished game has a winner and ``Engine.returns`` gives +1 to it, -1/(n-1)
  to the others, summing to 0; a game stopped at ``max_steps`` is ``Engine.truncated``,
  returns all 0 (truncation accounting: truncated games and their decisions are counted).

Variants run one after the other, each over ``--workers`` processes (chunks of games);
the summary table gives per variant games, decisions, decisions/s (wall), truncated
games and failures, with the seed that reproduces each (a failure is also printed as soon
as it is found). ``--out DIR`` writes ``soak.json`` with per-player-count figures, every
minute while the soak runs (``"complete": false``) and at the end; ``--resume`` goes on
from it after an interruption (same seeds, figures added; decisions/s then counts the wall
time of every part).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import traceback
from dataclasses import dataclass, field

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import events as E
from uno_env.game import engine as G
from uno_env.game.engine import OVER, Engine, State
from uno_env.game.rules import make_rules

VARIANTS = {
    "classic": ("classic", {}),
    "tmnt": ("tmnt", {}),
    "house": ("house", {}),
    "classic-explicit": ("classic", {"uno_call": "explicit"}),
    "tmnt-explicit": ("tmnt", {"uno_call": "explicit"}),
    "house-explicit": ("house", {"uno_call": "explicit"}),
    "everything": ("house", {"uno_call": "explicit", "count_team_attack": 4}),
}
DEFAULT_VARIANTS = ("classic", "tmnt", "house", "classic-explicit", "tmnt-explicit", "house-explicit")
PLAYER_COUNTS = tuple(range(2, 11))
EPS_LEVELS = (0.0, 0.05, 0.1, 0.2, 0.3)
UNIFORM_ONE_IN = 64
UNIFORM_MAX_STEPS = 2000  # step cap of the purely uniform games (most house ones reach it)
CHUNK = 250  # games per task handed to a worker
MAX_FAILURES_KEPT = 20  # per variant and chunk; every failure is counted


class SoakFailure(AssertionError):
    """A broken invariant, with the decision at which it was found."""


# ---------------------------------------------------------------------- one game
def game_setup(variant: str, seed: int) -> tuple[int, dict, float, random.Random]:
    """Player count, option overrides, ``eps`` and the policy RNG of game ``seed``."""
    base, overrides = VARIANTS[variant]
    pick = random.Random(seed)
    n = PLAYER_COUNTS[seed % len(PLAYER_COUNTS)]
    opts = dict(overrides)
    if pick.randrange(8) == 0:
        opts.update(episode="game", target_score=200)
    if pick.randrange(16) == 0:
        opts["wd4_bluff"] = False
    if pick.randrange(16) == 0:
        opts["challenge"] = False
    if pick.randrange(32) == 0:
        opts.update(episode="rounds", num_rounds=3, scoring="alternative")
    if pick.randrange(4) == 0:
        opts["stacked_challenge"] = "last"
    eps = 1.0 if pick.randrange(UNIFORM_ONE_IN) == 0 else EPS_LEVELS[pick.randrange(len(EPS_LEVELS))]
    if eps == 1.0:
        opts["max_steps"] = UNIFORM_MAX_STEPS
    return n, opts, eps, pick


_ENGINES: dict[tuple, Engine] = {}


def engine_for(variant: str, n: int, opts: dict, events: bool = True) -> Engine:
    key = (variant, n, tuple(sorted(opts.items())), events)
    eng = _ENGINES.get(key)
    if eng is None:
        eng = _ENGINES[key] = Engine(make_rules(VARIANTS[variant][0], **opts), n, record_events=events)
    return eng


_HIDDEN_CARD_KINDS = frozenset((E.DREW, E.PENALTY, E.CAUGHT, E.UNO, E.CHALLENGED, E.COLOR_CHOSEN,
                                 E.SKIPPED, E.REVERSED, E.ASKED, E.RESHUFFLED, E.ROUND_OVER,
                                 E.GAME_OVER, E.ESCAPED))  # event kinds whose card field must be -1


class PublicTable:
    """The public table rebuilt from the events alone: hand sizes, DISCARD size, top card,
    colour, direction, rounds, the winner. After every decision it must equal the state:
    the events are then complete, and they never name a drawn card."""

    def __init__(self, engine: Engine):
        self.n, self.hand_size = engine.n, engine.rules.hand_size
        self.sizes = [0] * engine.n
        self.discards = 0
        self.top = self.color = -1
        self.direction = 1
        self.rounds = 0
        self.winner = -1

    def feed(self, events: list) -> None:
        for ev in events:
            kind, seat, card, value = ev
            if not 0 <= kind < E.NUM_EVENT_KINDS or not -1 <= seat < self.n \
                    or not -1 <= card < C.NUM_KINDS:
                raise SoakFailure(f"malformed event {ev}")
            if kind in _HIDDEN_CARD_KINDS and card != -1:
                raise SoakFailure(f"event {E.EVENT_NAMES[kind]} names a card: {ev}")
            if kind == E.DEALT:
                self.sizes = [self.hand_size] * self.n
                self.discards, self.top, self.direction = 1, card, 1
                self.color = C.color_of(card)
                if value != self.rounds + 1:
                    raise SoakFailure(f"deal of round {value} after {self.rounds} rounds")
            elif kind in (E.PLAYED, E.JUMPED_IN):
                self.sizes[seat] -= 1
                self.discards += 1
                self.top, self.color = card, value
            elif kind in (E.DREW, E.PENALTY, E.CAUGHT):
                self.sizes[seat] += value
            elif kind == E.DISCARDED:
                self.sizes[seat] -= 1
                self.discards += 1
            elif kind == E.TOOK:
                self.sizes[seat] += 1
                self.sizes[value] -= 1
            elif kind == E.COLOR_CHOSEN:
                self.color = value
            elif kind == E.REVERSED:
                self.direction = value
            elif kind == E.RESHUFFLED:
                if value != self.discards - 1:
                    raise SoakFailure(f"reshuffle of {value} cards from a DISCARD of {self.discards}")
                self.discards = 1
            elif kind == E.ROUND_OVER:
                self.rounds += 1
                if self.sizes[seat] != 0:
                    raise SoakFailure(f"round won by seat {seat} holding {self.sizes[seat]} cards")
            elif kind == E.GAME_OVER:
                self.winner = seat

    def check(self, s: State) -> None:
        seen = (self.sizes, self.discards, self.top, self.color, self.direction, self.rounds, self.winner)
        state = (list(s.hand_size), len(s.discard), s.discard[-1], s.color, s.direction, s.round, s.winner)
        if seen != state:
            names = ("hand sizes", "DISCARD size", "top", "colour", "direction", "rounds", "winner")
            diff = [f"{k}: events {a} state {b}" for k, a, b in zip(names, seen, state) if a != b]
            raise SoakFailure("the events disagree with the state: " + "; ".join(diff))


_BITS = np.int64(1) << np.arange(C.NUM_KINDS, dtype=np.int64)  # kind k -> bit k of `held`


_SCRATCH: dict[type, np.random.Generator] = {}  # one reusable RNG per bit generator type


def clone(s: State) -> State:
    """A copy of a state to step once and discard (:meth:`State.clone`) whose RNG is a scratch
    generator set to the same stream (valid until the next ``clone``)."""
    kind = type(s.rng.bit_generator)
    scratch = _SCRATCH.get(kind)
    if scratch is None:
        scratch = _SCRATCH[kind] = np.random.Generator(kind(0))
    scratch.bit_generator.state = s.rng.bit_generator.state
    return s.clone(rng=scratch)


def full_check(engine: Engine, s: State, deck: np.ndarray) -> None:
    """Per-kind conservation, caches, DISCARD, phase/over agreement (``SoakFailure``)."""
    counts = s.hands.sum(axis=0, dtype=np.int64)
    counts += np.bincount(np.asarray(s.draw_pile, np.int64), minlength=C.NUM_KINDS)
    counts += np.bincount(np.asarray(s.discard, np.int64), minlength=C.NUM_KINDS)
    if not np.array_equal(counts, deck):
        diff = {C.card_name(k, engine.rules.color_names): int(counts[k] - deck[k])
                for k in np.flatnonzero(counts != deck)}
        raise SoakFailure(f"hands + DRAW + DISCARD != deck (count - deck per card: {diff})")
    if (s.hands < 0).any():
        raise SoakFailure("negative card count in a hand")
    if list(s.hand_size) != s.hands.sum(axis=1).tolist():
        raise SoakFailure(f"hand_size {list(s.hand_size)} != hands {s.hands.sum(axis=1).tolist()}")
    if list(s.held) != ((s.hands > 0).astype(np.int64) @ _BITS).tolist():
        raise SoakFailure("held bitsets disagree with the hands")
    if not s.discard:
        raise SoakFailure("DISCARD is empty")
    if s.game_over != (s.phase == OVER):
        raise SoakFailure(f"game_over={s.game_over} but phase={s.phase}")
    h = s.history  # the public history: 0/1 flags, counts >= 0, kinds and colours in range
    if (h.shape != (s.n, G.NUM_HISTORY_COLUMNS) or (h[:, :G.H_RECEIVED] & ~1).any()
            or (h[:, G.H_RECEIVED] < 0).any() or (h[:, G.H_LAST] < 0).any()
            or (h[:, G.H_LAST] >= G.NUM_LAST_KINDS).any() or (h[:, G.H_LAST] == G.LAST_RESERVED).any()
            or (h[:, G.H_LEFT] < -1).any()
            or (h[:, G.H_LEFT] >= C.NUM_COLORS).any() or not -1 <= s.wd4_color < C.NUM_COLORS):
        raise SoakFailure(f"public history out of range: {h.tolist()}, wd4_color {s.wd4_color}")
    if not s.game_over and not 0 <= s.actor < s.n:
        raise SoakFailure(f"actor {s.actor} is not a seat")


def check_all_actions(engine: Engine, s: State, legal: list[int], deck: np.ndarray, total: int) -> None:
    """The legal set is well-formed and every legal action is accepted by ``step`` (on copies)."""
    if legal != sorted(set(legal)) or not 0 <= legal[0] <= legal[-1] < A.NUM_ACTIONS:
        raise SoakFailure(f"malformed legal action list {legal}")
    for a in legal:
        c = clone(s)
        c.legal_cache = None
        try:
            engine.step(c, a)
        except Exception as e:  # noqa: BLE001 - any exception is the failure we look for
            raise SoakFailure(f"legal action {a} ({engine.describe(a)}) rejected: "
                              f"{type(e).__name__}: {e}") from e
        if sum(c.hand_size) + len(c.draw_pile) + len(c.discard) != total:
            raise SoakFailure(f"legal action {a} ({engine.describe(a)}) breaks the card total")
        if not c.game_over and not engine.legal_actions(c):
            raise SoakFailure(f"no legal action after legal action {a} ({engine.describe(a)})")


@dataclass
class GameResult:
    n: int
    decisions: int
    truncated: bool
    rounds: int


def play_game(variant: str, seed: int, check_every: int, events: bool = True) -> GameResult:
    """Play and check game ``seed`` of ``variant``; ``SoakFailure`` (with the decision) if broken.
    With ``events`` the engine records public events, checked against the state (same game)."""
    n, opts, eps, pick = game_setup(variant, seed)
    engine = engine_for(variant, n, opts, events)
    table = PublicTable(engine) if events else None
    deck = np.asarray(engine.deck_counts, np.int64)
    total = int(deck.sum())
    max_steps = engine.rules.max_steps
    legal_actions, step = engine.legal_actions, engine.step
    rand, randrange = pick.random, pick.randrange
    explicit = engine.rules.uno_call == "explicit"
    s = engine.new_state(np.random.default_rng(seed))
    decision = 0
    try:
        full_check(engine, s, deck)
        if table is not None:
            table.feed(s.events)
            s.events.clear()
            table.check(s)
        until_full = check_every
        while not s.game_over and s.steps < max_steps:
            legal = legal_actions(s)
            if not legal:
                raise SoakFailure(f"no legal action in phase {s.phase} for seat {s.actor}")
            until_full -= 1
            if until_full <= 0:
                until_full = check_every
                full_check(engine, s, deck)
                check_all_actions(engine, s, legal, deck, total)
            if explicit and A.UNO in legal and rand() < 0.5:
                action = A.UNO
            elif legal[0] < A.DRAW and rand() >= eps:  # a random playable card
                plays = [a for a in legal if a < A.DRAW]
                action = plays[randrange(len(plays))]
            else:
                action = legal[randrange(len(legal))]
            step(s, action)
            decision += 1
            if sum(s.hand_size) + len(s.draw_pile) + len(s.discard) != total:
                raise SoakFailure(f"card total changed by action {action} ({engine.describe(action)})")
            if table is not None:
                table.feed(s.events)
                s.events.clear()
                table.check(s)
        full_check(engine, s, deck)
        if s.steps != decision:
            raise SoakFailure(f"state.steps {s.steps} != decisions taken {decision}")
        rewards = engine.returns(s)
        if len(rewards) != n:
            raise SoakFailure(f"{len(rewards)} returns for {n} seats")
        truncated = engine.truncated(s)
        if s.game_over:
            if truncated or not 0 <= s.winner < n:
                raise SoakFailure(f"finished game: winner {s.winner}, truncated {truncated}")
            expected = [1.0 if i == s.winner else -1.0 / (n - 1) for i in range(n)]
            if any(abs(a - b) > 1e-12 for a, b in zip(rewards, expected)) or abs(sum(rewards)) > 1e-9:
                raise SoakFailure(f"returns {rewards} (winner {s.winner}) do not sum to 0 as +1/-1/(n-1)")
        else:
            if not truncated or s.steps != max_steps:
                raise SoakFailure(f"stopped unfinished at {s.steps} steps but truncated={truncated}")
            if any(rewards):
                raise SoakFailure(f"truncated game has non-zero returns {rewards}")
    except SoakFailure as e:
        raise SoakFailure(f"decision {decision}: {e}") from e
    except Exception as e:  # noqa: BLE001 - an engine crash is a failure like any other
        raise SoakFailure(f"decision {decision}: {type(e).__name__}: {e}") from e
    return GameResult(n, decision, not s.game_over, s.round)


# ---------------------------------------------------------------------- chunks and workers
@dataclass
class Tally:
    """Figures of one variant (or one chunk of it)."""

    games: int = 0
    decisions: int = 0
    truncated: int = 0
    truncated_decisions: int = 0
    rounds: int = 0
    failed: int = 0
    failures: list = field(default_factory=list)  # (seed, message), the first few
    by_players: dict = field(default_factory=dict)  # n -> [games, decisions, truncated, failed]

    def add(self, other: "Tally") -> None:
        self.games += other.games
        self.decisions += other.decisions
        self.truncated += other.truncated
        self.truncated_decisions += other.truncated_decisions
        self.rounds += other.rounds
        self.failed += other.failed
        self.failures += other.failures[:max(0, MAX_FAILURES_KEPT - len(self.failures))]
        for n, row in other.by_players.items():
            mine = self.by_players.setdefault(n, [0, 0, 0, 0])
            for i, v in enumerate(row):
                mine[i] += v


def run_chunk(task: tuple) -> Tally:
    """Games ``first .. first + count - 1`` of a variant: ``(variant, first, count, check_every[, events])``."""
    variant, first, count, check_every, *rest = task
    events = rest[0] if rest else True
    t = Tally()
    for seed in range(first, first + count):
        row = None
        try:
            r = play_game(variant, seed, check_every, events)
            t.decisions += r.decisions
            t.rounds += r.rounds
            row = [1, r.decisions, int(r.truncated), 0]
            if r.truncated:
                t.truncated += 1
                t.truncated_decisions += r.decisions
        except SoakFailure as e:
            t.failed += 1
            if len(t.failures) < MAX_FAILURES_KEPT:
                t.failures.append((seed, str(e)))
            row = [1, 0, 0, 1]
        t.games += 1
        n = PLAYER_COUNTS[seed % len(PLAYER_COUNTS)]
        mine = t.by_players.setdefault(n, [0, 0, 0, 0])
        for i, v in enumerate(row):
            mine[i] += v
    return t


def soak_variant(variant: str, games: int, first_seed: int, workers: int, check_every: int,
                 events: bool, bar, on_progress=None) -> tuple[Tally, float]:
    """Soak one variant; ``on_progress(tally, wall)`` after every chunk. Chunks are taken in
    seed order, so a partial tally covers the seeds ``first_seed .. first_seed + games - 1``."""
    tasks = [(variant, s, min(CHUNK, first_seed + games - s), check_every, events)
             for s in range(first_seed, first_seed + games, CHUNK)]
    total = Tally()
    t0 = time.perf_counter()
    if workers <= 1:
        results = map(run_chunk, tasks)
        pool = None
    else:
        import multiprocessing as mp

        pool = mp.get_context("fork" if sys.platform != "win32" else "spawn").Pool(workers)
        results = pool.imap(run_chunk, tasks)
    try:
        for t in results:
            for seed, message in t.failures:
                bar.write(f"FAILED {variant}:{seed}  {message}")
            total.add(t)
            bar.update(t.games)
            if on_progress is not None:
                on_progress(total, time.perf_counter() - t0)
            bar.set_postfix(variant=variant, failed=total.failed,
                            dps=f"{total.decisions / max(time.perf_counter() - t0, 1e-9):,.0f}")
    finally:
        if pool is not None:
            pool.terminate()
    total.failures.sort()
    return total, time.perf_counter() - t0


# ---------------------------------------------------------------------- CLI
def summary_table(results: dict[str, tuple[Tally, float]]) -> str:
    lines = ["| variant | games | decisions | decisions/s | decisions/game | truncated games "
             "| rounds | failures |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for variant, (t, wall) in results.items():
        lines.append(f"| {variant} | {t.games:,} | {t.decisions:,} | {t.decisions / max(wall, 1e-9):,.0f} "
                     f"| {t.decisions / max(t.games - t.failed, 1):,.0f} | {t.truncated:,} "
                     f"| {t.rounds:,} | {t.failed} |")
    return "\n".join(lines)


def players_table(results: dict[str, tuple[Tally, float]]) -> str:
    lines = ["| variant | " + " | ".join(f"{n}p games / trunc." for n in PLAYER_COUNTS) + " |",
             "|---|" + "---:|" * len(PLAYER_COUNTS)]
    for variant, (t, _) in results.items():
        cells = [f"{t.by_players.get(n, [0, 0, 0, 0])[0]:,} / {t.by_players.get(n, [0, 0, 0, 0])[2]:,}"
                 for n in PLAYER_COUNTS]
        lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def repro(spec: str, check_every: int, events: bool) -> int:
    """Replay one game with full checks at every decision; print the outcome."""
    variant, _, seed = spec.rpartition(":")
    if variant not in VARIANTS or not seed.lstrip("-").isdigit():
        print(f"soak.py: error: --repro wants VARIANT:SEED with a variant in {sorted(VARIANTS)}, "
              f"got {spec!r}", file=sys.stderr)
        return 2
    n, opts, eps, _ = game_setup(variant, int(seed))
    print(f"{variant} seed {seed}: {n} players, eps {eps}, options {opts}")
    try:
        r = play_game(variant, int(seed), check_every, events)
    except SoakFailure:
        traceback.print_exc()
        return 1
    print(f"ok: {r.decisions} decisions, {r.rounds} rounds, truncated {r.truncated}")
    return 0


def load_report(args) -> dict[str, tuple[Tally, float]]:
    """``--resume``: the figures of ``args.out/soak.json`` per variant (empty if there is none);
    ``ValueError`` if it was made with other settings."""
    path = os.path.join(args.out, "soak.json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as fh:
        report = json.load(fh)
    for key, mine in (("first_seed", args.seed), ("check_every", args.check_every), ("events", args.events)):
        if report.get(key) != mine:
            raise ValueError(f"{path} was made with {key}={report.get(key)!r}, not {mine!r}: "
                             f"resume with the same settings or use another --out")
    out = {}
    for v, d in report["variants"].items():
        t = Tally(games=d["games"], decisions=d["decisions"], truncated=d["truncated"],
                  truncated_decisions=d["truncated_decisions"], rounds=d["rounds"], failed=d["failed"],
                  failures=[(f["seed"], f["message"]) for f in d["failures"]],
                  by_players={int(n): [row["games"], row["decisions"], row["truncated"], row["failed"]]
                              for n, row in d["by_players"].items()})
        out[v] = (t, d["wall_s"])
    return out


def write_report(args, started: str, results: dict[str, tuple[Tally, float]], complete: bool) -> None:
    """``soak.json`` in ``args.out`` (atomically): the figures so far, per variant and player count."""
    os.makedirs(args.out, exist_ok=True)
    report = {"complete": complete, "games_per_variant": args.games, "first_seed": args.seed,
              "workers": args.workers, "check_every": args.check_every, "events": args.events,
              "started": started, "written": time.strftime("%Y-%m-%d %H:%M:%S"),
              "variants": {v: {"wall_s": round(wall, 1), "games": t.games, "decisions": t.decisions,
                               "truncated": t.truncated, "truncated_decisions": t.truncated_decisions,
                               "rounds": t.rounds, "failed": t.failed,
                               "failures": [{"seed": s, "message": m} for s, m in t.failures],
                               "by_players": {str(n): dict(zip(("games", "decisions", "truncated", "failed"), row))
                                              for n, row in sorted(t.by_players.items())}}
                           for v, (t, wall) in results.items()}}
    path = os.path.join(args.out, "soak.json")
    with open(path + ".tmp", "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=1)
    os.replace(path + ".tmp", path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", nargs="+", default=list(DEFAULT_VARIANTS), choices=sorted(VARIANTS))
    ap.add_argument("--games", type=int, default=10_000, help="games per variant (all player counts)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first game (one seed per game after it)")
    ap.add_argument("--workers", type=int, default=1, help="processes")
    ap.add_argument("--check-every", type=int, default=64,
                    help="decisions between full checks (every legal action tried on copies)")
    ap.add_argument("--no-events", dest="events", action="store_false",
                    help="do not record public events (faster; the games are the same)")
    ap.add_argument("--out", help="directory for soak.json")
    ap.add_argument("--resume", action="store_true",
                    help="go on from the figures in --out's soak.json (a stopped run loses at most a minute)")
    ap.add_argument("--repro", metavar="VARIANT:SEED", help="replay one game, full checks at every decision")
    args = ap.parse_args(argv)
    if args.games < 1 or args.workers < 1 or args.check_every < 1 or args.seed < 0:
        ap.error("--games, --workers and --check-every must be >= 1, --seed >= 0")
    if args.repro:
        return repro(args.repro, 1, args.events)
    if args.resume and not args.out:
        ap.error("--resume needs --out (the directory of the soak.json to go on from)")
    from tqdm import tqdm

    started = time.strftime("%Y-%m-%d %H:%M:%S")
    try:
        before = load_report(args) if args.resume else {}
    except (ValueError, OSError, KeyError, TypeError) as e:
        ap.error(f"cannot resume: {e}")
    results: dict[str, tuple[Tally, float]] = {v: r for v, r in before.items() if v not in args.variants}
    last_write = [time.monotonic()]

    def progress(variant: str, tally: Tally, wall: float) -> None:  # soak.json every minute
        if args.out and time.monotonic() - last_write[0] > 60:
            last_write[0] = time.monotonic()
            write_report(args, started, {**results, variant: (tally, wall)}, complete=False)

    def combined(variant: str, tally: Tally, wall: float) -> tuple[Tally, float]:
        """This run's tally of ``variant`` added to the resumed one."""
        old, old_wall = before.get(variant, (Tally(), 0.0))
        total = Tally()
        total.add(old)
        total.add(tally)
        return total, old_wall + wall

    done_before = sum(min(before.get(v, (Tally(), 0))[0].games, args.games) for v in args.variants)
    with tqdm(total=args.games * len(args.variants), initial=done_before, unit="game", smoothing=0.05,
              mininterval=2.0, file=sys.stderr) as bar:
        for variant in args.variants:
            done = before.get(variant, (Tally(), 0.0))[0].games
            if done >= args.games:
                results[variant] = before[variant]
                continue
            t, wall = soak_variant(variant, args.games - done, args.seed + done, args.workers,
                                   args.check_every, args.events, bar,
                                   lambda t, wall, v=variant: progress(v, *combined(v, t, wall)))
            results[variant] = combined(variant, t, wall)
    resumed = f" (resumed from {sum(t.games for t, _ in before.values()):,} games)" if before else ""
    print(f"soak: {args.games:,} games per variant from seed {args.seed}{resumed}, {args.workers} worker(s), "
          f"full checks every {args.check_every} decisions, events {'on' if args.events else 'off'}; "
          f"started {started}")
    print(summary_table(results))
    print()
    print(players_table(results))
    failures = [(v, seed, msg) for v, (t, _) in results.items() for seed, msg in t.failures]
    if failures:
        print("\nfailures (replay with: python bench/soak.py --repro VARIANT:SEED):")
        for v, seed, msg in failures:
            print(f"  {v}:{seed}  {msg}")
    if args.out:
        write_report(args, started, results, complete=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
