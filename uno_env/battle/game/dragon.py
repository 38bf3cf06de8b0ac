"""Game 2, **Catch the dragon!**: turn cards onto a common pile; cover a Purple Dragon first
to take the pile; the most cards wins.

Rules (docs/TMNT-BATTLE.md, game 2; Decisions D0-D5, C1-C5):

1. The whole deck (characters, Purple Dragons, bonus cards; at least one Purple Dragon) is
   dealt face down, equally: what does not divide is set aside unseen (D0, ``remainder:
   aside``; ``deal``: dealt on from the first player, every card in play).
2. In turn from the first player, each player turns the top card of its pile onto the
   common pile (turning has no decision, D1).
3. After every card turned, every player (the one who turned it too) covers it or waits, at
   the same moment (a simultaneous window, D2; the AEC env asks in seat order from the
   turner's left, answers hidden until all have answered).
4. A Purple Dragon covered: of the players who covered it, the first (D3: drawn at random,
   ``race: random``, or the nearest to the turner's left, the turner last, ``seat``) takes
   the common pile under its cards (in the order it was laid) and turns the next card. A
   dragon nobody covers stays in the pile; the next player turns.
5. A card that is no dragon covered (D4): each who covered it puts its top card face down
   under the common pile (``false_cover: burn``), or nothing happens (``none``). With
   ``burn``, a coverer without cards cannot pay: the game ends at once, as in 6 (it is "left
   without cards"), so a card-less player's cover is never free.
6. The game ends when the player who must turn a card has none (D5); the most cards wins,
   ties share (C5); after ``max_rounds`` cards turned the count decides too (C4). The
   ``turner`` stays the player who turned the top card.

=======  ==========================================================
phase    decision of ``state.actor``
=======  ==========================================================
COVER    window: every player ``wait`` (0) or ``cover`` (1)
OVER     the game is over
=======  ==========================================================

Observation (:data:`DragonEncoder.layout`; slots from the observer to its left):

===============  ========  ====================================================
block            size      content
===============  ========  ====================================================
deciding         1         1 when I answer the window now
top              T         the card just turned, one-hot
top_dragon       1         1 if it is a Purple Dragon
common           1         cards in the common pile / the deck's size
piles            n         cards in each pile / the deck's size
turner           n         who turned the card, one-hot
last_covers      n         who covered the previous card (public once it closed)
rounds           1         cards turned / ``max_rounds``
rules            2         race seat, false_cover none
===============  ========  ====================================================
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from uno_env.battle.game import events as E
from uno_env.battle.game.events import counted, plural
from uno_env.battle.game.base import Engine, Layout, State, best_of, one_hot
from uno_env.battle.game.cards import DRAGON

COVER, OVER = range(2)
PHASE_NAMES = ("cover", "over")
WAIT, COVER_IT = 0, 1


@dataclass(eq=False)
class DragonState(State):
    piles: list = field(default_factory=list)  # per seat: deque of type ids, top first
    common: list = field(default_factory=list)  # the common pile, first laid first
    turner: int = 0  # who turned the top card (or turns next)
    last_covers: list = field(default_factory=list)  # per seat: covered the previous card


class DragonEngine(Engine):
    game = "dragon"
    PHASE_NAMES = PHASE_NAMES
    num_actions = 2

    def check_cards(self) -> None:
        super().check_cards()
        if not self.cards.ids(DRAGON):
            raise ValueError(f"dragon: the card set {self.cards.name!r} has no Purple Dragon card "
                             "(Catch the dragon needs at least one)")

    def make_action_names(self) -> list[str]:
        return ["wait", "cover"]

    def new_game_state(self, rng: np.random.Generator) -> DragonState:
        return DragonState(n=self.n, rng=rng)

    def setup(self, s: DragonState, order: list[int]) -> None:
        s.piles = [deque(p) for p in self.deal(s, order, remainder=self.rules.remainder)]
        s.common, s.last_covers = [], [False] * s.n
        self._turn(s, s.first)

    def is_dragon(self, card: int) -> bool:
        return self.cards.types[card].kind == DRAGON

    def _turn(self, s: DragonState, p: int) -> None:
        """``p`` turns its top card and the cover window opens (or the game ends)."""
        if not s.piles[p]:
            self.finish(s, best_of([len(q) for q in s.piles], most=True))
            return
        if s.rounds >= self.rules.max_rounds:
            self.finish_by_count(s, [len(q) for q in s.piles], most=True)
            return
        s.turner = p  # who turned the top card: unchanged when the game ends instead
        card = s.piles[p].popleft()
        s.common.append(card)
        self.event(s, E.TURNED, p, card, int(self.is_dragon(card)))
        self.open_window(s, COVER, [(p + j) % s.n for j in range(1, s.n + 1)])  # the turner last

    # --- COVER (window): every player covers the card or waits
    def _legal_cover(self, s: DragonState, p: int) -> list[int]:
        return [WAIT, COVER_IT]

    def _apply_cover(self, s: DragonState, p: int, action: int) -> None:
        if not self.answer(s, p, action):
            return
        order = [(s.turner + j) % s.n for j in range(1, s.n + 1)]
        covers = [q for q in order if s.answers[q] == COVER_IT]
        s.last_covers = [s.answers[q] == COVER_IT for q in range(s.n)]
        s.queue, s.answers = [], {}
        for q in covers:
            self.event(s, E.COVERED, q)
        s.rounds += 1
        top = s.common[-1]
        if self.is_dragon(top) and covers:
            taker = self.pick_first(s, covers, self.rules.race)
            s.piles[taker].extend(s.common)
            self.event(s, E.TOOK_PILE, taker, -1, len(s.common))
            s.common = []
            self._turn(s, taker)
            return
        if not self.is_dragon(top) and self.rules.false_cover == "burn":
            broke = [q for q in covers if not s.piles[q]]
            for q in covers:
                if s.piles[q]:
                    s.common.insert(0, s.piles[q].popleft())
                    self.event(s, E.BURNED, q, -1, 1)
            if broke:  # D4: a coverer without cards cannot pay: the game ends (D5)
                self.finish(s, best_of([len(q) for q in s.piles], most=True))
                return
        self._turn(s, (s.turner + 1) % s.n)

    # ------------------------------------------------------------------ outcomes and views
    def scores(self, s: DragonState) -> list[int]:
        return [len(p) for p in s.piles]

    def describe(self, s: DragonState, seat: int) -> str:
        top = self.card_names[s.common[-1]] if s.common else "-"
        lines = [(f"catch the dragon  card {s.rounds + 1}" if not s.game_over
                  else f"catch the dragon  over after {counted(s.rounds, 'card')}") + f"  common pile {len(s.common)}"
                 f"  top {top}{' (PURPLE DRAGON)' if s.common and self.is_dragon(s.common[-1]) else ''}"
                 f"  turned by player_{s.turner}"]
        for q in range(s.n):
            lines.append(f"  player_{q}: {len(s.piles[q]):3d} {plural(len(s.piles[q]), 'card')}")
        return "\n".join(lines)

    def snapshot(self, s: DragonState) -> dict[str, Any]:
        names = self.card_names
        return {"game": self.game, "piles": [[names[c] for c in p] for p in s.piles],
                "common": [names[c] for c in s.common], "turner": s.turner,
                "aside": [names[c] for c in s.aside], "rounds": s.rounds, "phase": PHASE_NAMES[s.phase],
                "winners": list(s.winners)}


class DragonEncoder:
    """What one player of Catch the dragon may know, as a float32 vector (module table)."""

    def __init__(self, engine: DragonEngine):
        self.engine = engine
        n, t = engine.n, engine.cards.size
        self.layout = Layout([("deciding", 1), ("top", t), ("top_dragon", 1), ("common", 1), ("piles", n),
                              ("turner", n), ("last_covers", n), ("rounds", 1), ("rules", 2)])
        self.size = self.layout.size
        self._deck = max(1, len(engine.deck))
        r = engine.rules
        self._rules = np.array([r.race == "seat", r.false_cover == "none"], np.float32)
        self._o = {name: self.layout.offset(name) for name, _ in self.layout.blocks}

    def encode(self, s: DragonState, seat: int) -> np.ndarray:
        e, o = self.engine, self._o
        out = self.layout.new()
        out[o["deciding"]] = float(s.phase == COVER and s.actor == seat)
        if s.common:
            one_hot(out, o["top"], s.common[-1])
            out[o["top_dragon"]] = float(e.is_dragon(s.common[-1]))
        out[o["common"]] = len(s.common) / self._deck
        slots = e.slots(seat)
        for j, q in enumerate(slots):
            out[o["piles"] + j] = len(s.piles[q]) / self._deck
            out[o["last_covers"] + j] = float(s.last_covers[q])
        one_hot(out, o["turner"], slots.index(s.turner))
        out[o["rounds"]] = s.rounds / e.rules.max_rounds
        out[self.layout.slice("rules")] = self._rules
        return out
