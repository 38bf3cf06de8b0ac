"""What the six battle-card engines share: the state record's common fields, the engine API,
simultaneous windows, the deal, the end and the rewards, and the observation layout helper.

The API of every engine (one subclass of :class:`Engine` per game, in its own module)::

    engine = BattleEngine(rules, cards, num_players, record_events=False)
    state = engine.new_state(rng, deck=None, first=None)  # shuffle (or stack) and deal
    engine.legal_actions(state) -> list[int]               # for state.actor, in state.phase
    engine.step(state, action)                             # ValueError if illegal, state unchanged
    engine.deciders(state) -> list[int]                    # seats deciding now (a window: all of them)
    engine.returns(state) -> list[float]                   # per seat, at the end
    engine.describe(state, seat) -> str                    # the table as that seat knows it
    engine.snapshot(state) -> dict                         # everything (hidden cards included)

Every decision is a *phase* with its own legal actions; ``legal_actions`` and ``step``
dispatch by phase to one pair of methods per phase, ``_legal_<phase>`` / ``_apply_<phase>``,
named from the engine's ``PHASE_NAMES`` (the last phase, ``over``, has no decision).

**Windows** (simultaneous moves). A window asks several seats the same question
(``_open_window``): ``state.queue`` holds the seats still to answer, next first, and
``state.actor`` is its head. An answer is stored in ``state.answers`` and nothing else
changes until the last seat has answered, so no seat's observation shows another's answer;
then the engine resolves the window. The AEC env asks the seats one at a time; the parallel
env gives every seat of the window one action per step.

**Decisions shared by the games** (docs/TMNT-BATTLE.md, C1-C5):

* C1 the first player is drawn uniformly at random with the state's RNG (before the
  shuffle), unless ``first`` is given (the env's reset option ``first``).
* C2 the deal: the game's deck is shuffled (or stacked: ``deck``, card type ids, top
  first) and dealt one card at a time, round-robin from the first player; the first card a
  player gets is the top of its pile. Cards that do not divide equally are set aside face
  down, unseen (``remainder: aside``), or dealt on from the first player (``deal``).
* C3 seat order: the next player is the next seat number (seat i+1 mod n), "to the left".
* C4 a game that could go on for ever stops after ``max_rounds`` rounds: the count decides
  (most cards, or fewest, as the game's goal says).
* C5 ties: players who tie for the win share it: with k winners of n, each winner gets
  (n-k) / (k (n-1)) and each other player -1/(n-1) (one winner: +1 and -1/(n-1); everyone
  tied: 0 each), so the rewards always sum to 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from uno_env.battle.game import events as E
from uno_env.battle.game.cards import CardSet
from uno_env.battle.game.events import Event
from uno_env.battle.game.rules import RULES_CLASSES, GameRules

MIN_PLAYERS, MAX_PLAYERS = 2, 8


@dataclass(eq=False)
class State:
    """The fields every game's state has (each game's ``State`` adds its own)."""

    n: int  # number of players
    rng: np.random.Generator  # the env's one RNG (shuffle, first player, random picks)
    first: int = 0  # the first player (C1)
    actor: int = 0  # the seat that decides now (-1 once the game is over)
    phase: int = 0
    steps: int = 0  # decisions taken
    rounds: int = 0  # rounds finished (what ``max_rounds`` counts)
    queue: list = field(default_factory=list)  # window: seats still to answer, next first
    answers: dict = field(default_factory=dict)  # window: seat -> action, hidden until it closes
    aside: list = field(default_factory=list)  # cards set aside unseen (C2)
    order: list = field(default_factory=list)  # the deck as dealt, top first (hidden: logs, snapshots)
    game_over: bool = False
    winners: list = field(default_factory=list)  # seats that won (several: a shared win, C5)
    legal_cache: list | None = None
    events: list | None = None  # public events, when the engine records them

    @property
    def winner(self) -> int:
        """The sole winner, -1 while running or for a shared win."""
        return self.winners[0] if len(self.winners) == 1 else -1


def shares(n: int, winners: Sequence[int]) -> list[float]:
    """The rewards of C5: ``len(winners)`` winners share the win, the others lose."""
    k = len(winners)
    if k == 0:
        return [0.0] * n
    win, lose = (n - k) / (k * (n - 1)), -1.0 / (n - 1)
    return [win if q in winners else lose for q in range(n)]


def best_of(counts: Sequence[int], most: bool) -> list[int]:
    """The seats with the most (``most``) or the fewest ``counts``."""
    best = max(counts) if most else min(counts)
    return [q for q, c in enumerate(counts) if c == best]


class Layout:
    """The named blocks of a flat observation vector, in order: ``offset(name)``,
    ``slice(name)``, ``get(obs, name)``, ``size``, and ``table()`` (for docstrings/tests)."""

    def __init__(self, blocks: Sequence[tuple[str, int]]):
        self.blocks = tuple(blocks)
        self._slices: dict[str, slice] = {}
        at = 0
        for name, size in self.blocks:
            if name in self._slices:
                raise ValueError(f"block {name!r} twice in a layout")
            self._slices[name] = slice(at, at + size)
            at += size
        self.size = at

    def slice(self, name: str) -> slice:
        return self._slices[name]

    def offset(self, name: str) -> int:
        return self._slices[name].start

    def get(self, obs: np.ndarray, name: str) -> np.ndarray:
        return obs[self._slices[name]]

    def new(self) -> np.ndarray:
        return np.zeros(self.size, np.float32)

    def table(self) -> list[tuple[str, int, int]]:
        return [(name, self._slices[name].start, size) for name, size in self.blocks]


def one_hot(out: np.ndarray, start: int, index: int) -> None:
    """``out[start + index] = 1`` when ``index >= 0``."""
    if index >= 0:
        out[start + index] = 1.0


class Engine:
    """The rules of one game for a fixed card set and number of players (module docstring)."""

    game = ""  # the game's name: its rules class is ``RULES_CLASSES[game]``
    PHASE_NAMES: tuple[str, ...] = ("over",)  # one pair ``_legal_<p>`` / ``_apply_<p>`` each; "over" last
    OVER = 0  # the index of "over" (set from PHASE_NAMES)
    DECK_KINDS: tuple[int, ...] = ()  # the card kinds the game plays with (none given: every card)
    num_actions = 0

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        assert cls.PHASE_NAMES[-1] == "over"
        cls.OVER = len(cls.PHASE_NAMES) - 1

    def __init__(self, rules: GameRules, cards: CardSet, num_players: int, record_events: bool = False):
        rules_class = RULES_CLASSES[self.game]
        if not isinstance(rules, rules_class):
            raise ValueError(f"the {self.game} engine needs {rules_class.__name__}, got {type(rules).__name__}")
        if not isinstance(cards, CardSet):
            raise ValueError(f"cards must be a CardSet, got {type(cards).__name__}")
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) \
                or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            raise ValueError(f"num_players must be an integer in {MIN_PLAYERS}..{MAX_PLAYERS}, got {num_players!r}")
        self.rules = rules
        self.cards = cards
        self.n = int(num_players)
        self.record_events = bool(record_events)
        self.card_names = cards.card_names()
        self.deck = self.game_deck()
        self.check_cards()
        self._legal_by_phase = tuple(getattr(self, f"_legal_{p}") for p in self.PHASE_NAMES)
        self._apply_by_phase = tuple(getattr(self, f"_apply_{p}") for p in self.PHASE_NAMES)
        self.action_names = self.make_action_names()
        assert len(self.action_names) == self.num_actions

    # ------------------------------------------------------------------ per game
    def game_deck(self) -> list[int]:
        """The cards this game plays with (type ids, sorted): those of ``DECK_KINDS``."""
        return sorted(self.cards.deck(*self.DECK_KINDS))

    def check_cards(self) -> None:
        """``ValueError`` if the card set cannot play this game with ``n`` players."""
        if len(self.deck) < self.n:
            raise ValueError(f"{self.game}: the {len(self.deck)} cards of {self.cards.name!r} cannot deal "
                             f"{self.n} players")

    def make_action_names(self) -> list[str]:
        raise NotImplementedError

    def new_game_state(self, rng: np.random.Generator) -> State:
        raise NotImplementedError

    def setup(self, s: State, order: list[int]) -> None:
        """Deal ``order`` (top first) and open the first decision."""
        raise NotImplementedError

    def scores(self, s: State) -> list[int]:
        """Per seat, what the game counts (cards held, rounds won)."""
        raise NotImplementedError

    def describe(self, s: State, seat: int) -> str:
        """The table as ``seat`` knows it, as text (rendering, the terminal game)."""
        raise NotImplementedError

    def snapshot(self, s: State) -> dict[str, Any]:
        raise NotImplementedError

    # ------------------------------------------------------------------ set-up
    def new_state(self, rng: np.random.Generator, deck: Sequence[int] | None = None,
                  first: int | None = None) -> State:
        """A new game: the first player (drawn, C1), the deck shuffled (or ``deck``), dealt."""
        if deck is not None:
            self.check_deck(deck)
        if first is None:
            first = int(rng.integers(self.n))
        elif isinstance(first, bool) or not isinstance(first, (int, np.integer)) or not 0 <= first < self.n:
            raise ValueError(f"first must be a seat in 0..{self.n - 1}, got {first!r}")
        if deck is None:
            order = list(self.deck)
            rng.shuffle(order)
        else:
            order = [int(k) for k in deck]
        s = self.new_game_state(rng)
        s.first, s.order = int(first), list(order)
        s.events = [] if self.record_events else None
        self.setup(s, order)
        return s

    def check_deck(self, deck: Sequence[int]) -> None:
        """``ValueError`` unless ``deck`` (type ids) is exactly this game's deck, in any order."""
        try:
            got = sorted(int(k) for k in deck)
        except (TypeError, ValueError):
            raise ValueError("deck must be a list of card type ids") from None
        if got != self.deck:
            counts = np.bincount(self.deck, minlength=self.cards.size)
            have = np.bincount([k for k in got if 0 <= k < self.cards.size], minlength=self.cards.size)
            names = self.card_names
            extra = [f"{names[k]} x{have[k] - counts[k]}" for k in range(self.cards.size) if have[k] > counts[k]]
            missing = [f"{names[k]} x{counts[k] - have[k]}" for k in range(self.cards.size) if have[k] < counts[k]]
            unknown = [k for k in got if not 0 <= k < self.cards.size]
            raise ValueError(f"deck is not the {self.game} deck of {len(self.deck)} cards (got {len(got)}): "
                             f"extra {extra[:6] or 'none'}, missing {missing[:6] or 'none'}"
                             + (f", unknown ids {unknown[:6]}" if unknown else ""))

    def deal(self, s: State, order: list[int], per_player: int | None = None,
             remainder: str = "aside") -> list[list[int]]:
        """C2: ``per_player`` cards each (None: as many as divide equally), round-robin from
        the first player (the first card dealt is the top); the rest set aside
        (``remainder="deal"``: dealt on, when ``per_player`` is None)."""
        n = s.n
        if per_player is None:
            per_player = len(order) // n
            dealt = len(order) if remainder == "deal" else per_player * n
        else:
            dealt = per_player * n
        piles: list[list[int]] = [[] for _ in range(n)]
        for i in range(dealt):
            piles[(s.first + i) % n].append(order[i])
        s.aside = list(order[dealt:])
        self.event(s, E.DEALT, s.first, -1, per_player)
        return piles

    # ------------------------------------------------------------------ decisions
    def legal_actions(self, s: State) -> list[int]:
        if s.legal_cache is None:
            s.legal_cache = self._legal_by_phase[s.phase](s, s.actor)
        return s.legal_cache

    def step(self, s: State, action: int) -> None:
        """Apply ``action`` of ``s.actor``; ``ValueError`` (state unchanged) if it is illegal."""
        legal = self.legal_actions(s)
        if action not in legal:
            raise ValueError(f"illegal action {self.describe_action(action)} for seat {s.actor} in phase "
                             f"{self.PHASE_NAMES[s.phase]!r}; legal: "
                             f"{', '.join(self.action_names[a] for a in legal) or 'none (the game is over)'}")
        s.legal_cache = None
        s.steps += 1
        self._apply_by_phase[s.phase](s, s.actor, int(action))

    def deciders(self, s: State) -> list[int]:
        """The seats deciding now: every seat of an open window, else the actor (none at the end)."""
        if s.game_over:
            return []
        return list(s.queue) if s.queue else [s.actor]

    def legal_actions_of(self, s: State, seat: int) -> list[int]:
        """Legal actions of ``seat`` now: the actor's, or those of a seat still to answer the
        open window (its question does not depend on the answers before it)."""
        if s.game_over:
            return []
        if seat == s.actor:
            return self.legal_actions(s)
        if seat in s.queue:
            return self._legal_by_phase[s.phase](s, seat)
        return []

    def describe_action(self, action: Any) -> str:
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < self.num_actions:
            return f"{int(action)} ({self.action_names[action]})"
        return f"{action!r} (not an action id)"

    def _legal_over(self, s: State, p: int) -> list[int]:
        return []

    def _apply_over(self, s: State, p: int, action: int) -> None:  # pragma: no cover (step refuses)
        raise ValueError("the game is over")

    # ------------------------------------------------------------------ windows
    def open_window(self, s: State, phase: int, seats: Sequence[int]) -> None:
        s.phase = phase
        s.queue = list(seats)
        s.answers = {}
        s.actor = s.queue[0]

    def answer(self, s: State, p: int, action: int) -> bool:
        """Store ``p``'s hidden answer; True once every seat of the window has answered."""
        s.answers[p] = action
        s.queue.pop(0)
        if s.queue:
            s.actor = s.queue[0]
            return False
        return True

    def pick_first(self, s: State, seats: Sequence[int], race: str) -> int:
        """Of several seats that acted at once, the one that was first: drawn at random with
        the state's RNG (``race="random"``) or the first in ``seats`` (``"seat"``)."""
        if len(seats) == 1 or race == "seat":
            return seats[0]
        return seats[int(s.rng.integers(len(seats)))]

    # ------------------------------------------------------------------ the end
    def finish(self, s: State, winners: Sequence[int]) -> None:
        s.game_over = True
        s.winners = sorted(int(w) for w in winners)
        s.phase, s.actor = self.OVER, -1
        s.queue, s.answers = [], {}
        for w in s.winners:
            self.event(s, E.GAME_OVER, w, -1, len(s.winners))

    def finish_by_count(self, s: State, counts: Sequence[int], most: bool) -> None:
        """The round limit (C4): the most (``most``) or fewest ``counts`` win, ties share."""
        self.event(s, E.LIMIT, -1, -1, s.rounds)
        self.finish(s, best_of(counts, most))

    def returns(self, s: State) -> list[float]:
        """Per seat: the shares of C5 once the game is over; all 0 before."""
        return shares(s.n, s.winners) if s.game_over else [0.0] * s.n

    def event(self, s: State, kind: int, seat: int = -1, card: int = -1, value: int = -1) -> None:
        if s.events is not None:
            s.events.append(Event(kind, seat, card, value))

    # ------------------------------------------------------------------ helpers
    def slots(self, seat: int) -> list[int]:
        """The seats in observation order for ``seat``: itself, then to its left."""
        return [(seat + j) % self.n for j in range(self.n)]
