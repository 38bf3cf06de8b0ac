"""Game 6, **Elusive bonus** (like Drunkard): lay your top card, shouting "Bonus!" if you
expect a bonus card; a mistake takes the cards; the first with no cards wins.

Rules (docs/TMNT-BATTLE.md, game 6; Decisions E1-E7, C1-C5):

1. The whole deck is shuffled and ``deal`` (20) cards are dealt to each player, face down
   (fewer each, as many as divide equally, if the deck is short); the rest is set aside
   unseen (E1; ``deal_to: all``: ``deal`` cards in all, as many each as divide equally).
   Nobody looks at its own cards.
2. In turn from the first player, a player lays its top card face up on the table.
3. ``shout: own`` (E2): before laying it, the player shouts "Bonus!" or stays silent. Right
   (a shout and a bonus card, or silence and another card): play goes on. Wrong: it takes
   the cards on the table (this one included) under its pile, in the order they were laid.
4. ``shout: others`` (the sheet's variant, E2): before the card is laid, every *other*
   player shouts or stays silent, at the same moment (a simultaneous window; the AEC env
   asks in seat order from the layer's left, answers hidden). A shout and a bonus card: the
   layer takes the cards. A shout and another card: the shouter takes them; of several
   shouters the first (E4: ``race: random``, drawn with the RNG, or ``seat``, the nearest to
   the layer's left). Nobody shouts: play goes on (E7, ``unshouted: free``; ``layer``: a
   bonus card nobody shouted at is the layer's mistake, it takes the cards, as in 3).
5. Which cards are taken (E3): ``take: round``: the cards laid in this round (one turn of
   each player from the first player; at the end of a round the cards on the table leave
   the game); ``table``: every card on the table (they stay until someone takes them).
6. A player whose pile is empty after its card is laid (and it took nothing) wins at once.
   After ``max_rounds`` rounds the fewest cards wins; ties share (C4, C5).

**What everyone knows** (E5): cards that were taken were seen face up and go under the
pile in a known order, so every pile is a block of *unseen* cards (dealt, never shown) on
top of a block of known ones. The observation holds, for every pile, its unseen count and
whether its top card is known to be a bonus card; and the count of unseen cards (in the
piles and set aside) and of unseen bonus cards: what card counting needs.

=======  ==================================================================
phase    decision of ``state.actor``
=======  ==================================================================
SHOUT    ``shout: own``: the layer stays ``silent`` (0) or ``shout``s (1)
WATCH    ``shout: others``: window of the others: ``silent`` (0) or ``shout`` (1)
OVER     the game is over
=======  ==================================================================

Observation (:data:`ElusiveEncoder.layout`; slots from the observer to its left):

===============  ========  ====================================================
block            size      content
===============  ========  ====================================================
phase            2         I decide now: on my own card, on another's card
layer            n         who lays the next card, one-hot
piles            n         cards in each pile / the deck's size
unseen           n         unseen cards on top of each pile / the deck's size
top_known        n         1 if that pile's top card is known (no unseen cards left)
top_bonus        n         1 if that known top card is a bonus card
table            1         cards on the table / the deck's size
table_bonus      1         bonus cards among them / the deck's size
unseen_all       1         cards never shown (piles and set aside) / the deck's size
unseen_bonus     1         bonus cards never shown / the deck's size
round_laid       1         cards laid in this round / n
rounds           1         rounds played / ``max_rounds``
rules            4         shout others, take table, race seat, unshouted layer
===============  ========  ====================================================
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from uno_env.battle.game import events as E
from uno_env.battle.game.events import counted, plural
from uno_env.battle.game.base import Engine, Layout, State, one_hot
from uno_env.battle.game.cards import BONUS

SHOUT, WATCH, OVER = range(3)
PHASE_NAMES = ("shout", "watch", "over")
SILENT, SHOUT_IT = 0, 1


@dataclass(eq=False)
class ElusiveState(State):
    piles: list = field(default_factory=list)  # per seat: deque of type ids, top first
    unseen: list = field(default_factory=list)  # per seat: cards on top never shown
    table: list = field(default_factory=list)  # cards on the table, first laid first
    layer: int = 0  # who lays the next card
    laid_in_round: int = 0  # cards laid in this round
    unseen_all: int = 0  # cards never shown (piles and aside)
    unseen_bonus: int = 0  # bonus cards never shown
    cleared: list = field(default_factory=list)  # cards that left the game (take: round)


class ElusiveEngine(Engine):
    game = "elusive"
    PHASE_NAMES = PHASE_NAMES
    num_actions = 2

    def make_action_names(self) -> list[str]:
        return ["silent", "shout"]

    def is_bonus(self, card: int) -> bool:
        return self.cards.types[card].kind == BONUS

    def per_player(self) -> int:
        """E1: ``deal`` cards to each (``deal_to: each``) or in all (``all``), as many as divide
        equally when the deck is short."""
        if self.rules.deal_to == "all":
            return min(self.rules.deal, len(self.deck)) // self.n
        return min(self.rules.deal, len(self.deck) // self.n)

    def new_game_state(self, rng: np.random.Generator) -> ElusiveState:
        return ElusiveState(n=self.n, rng=rng)

    def setup(self, s: ElusiveState, order: list[int]) -> None:
        s.piles = [deque(p) for p in self.deal(s, order, per_player=self.per_player())]
        s.unseen = [len(p) for p in s.piles]
        s.table, s.laid_in_round = [], 0
        s.unseen_all = len(order)
        s.unseen_bonus = sum(self.is_bonus(c) for c in order)
        self._next_lay(s, s.first)

    def _next_lay(self, s: ElusiveState, p: int) -> None:
        s.layer = p
        if self.rules.shout == "own":
            s.phase, s.actor = SHOUT, p
        else:
            self.open_window(s, WATCH, [(p + j) % s.n for j in range(1, s.n)])

    def _lay(self, s: ElusiveState) -> int:
        p = s.layer
        card = s.piles[p].popleft()
        if s.unseen[p]:
            s.unseen[p] -= 1
            s.unseen_all -= 1
            s.unseen_bonus -= self.is_bonus(card)
        s.table.append(card)
        s.laid_in_round += 1
        self.event(s, E.LAID, p, card, int(self.is_bonus(card)))
        return card

    def _take(self, s: ElusiveState, q: int) -> None:
        s.piles[q].extend(s.table)
        self.event(s, E.TOOK_PILE, q, -1, len(s.table))
        s.table = []

    def _after(self, s: ElusiveState, took: bool) -> None:
        """The end of a lay: a win, the end of a round, the next layer."""
        p = s.layer
        if not s.piles[p] and not took:
            self.finish(s, [p])
            return
        nxt = (p + 1) % s.n
        if nxt == s.first:
            s.rounds += 1
            s.laid_in_round = 0
            if self.rules.take == "round" and s.table:
                self.event(s, E.CLEARED, -1, -1, len(s.table))
                s.cleared.extend(s.table)
                s.table = []
            if s.rounds >= self.rules.max_rounds:
                self.finish_by_count(s, [len(q) for q in s.piles], most=False)
                return
        self._next_lay(s, nxt)

    # --- SHOUT: the layer shouts "Bonus!" or stays silent, then lays its card
    def _legal_shout(self, s: ElusiveState, p: int) -> list[int]:
        return [SILENT, SHOUT_IT]

    def _apply_shout(self, s: ElusiveState, p: int, action: int) -> None:
        if action == SHOUT_IT:
            self.event(s, E.SHOUTED, p)
        card = self._lay(s)
        wrong = (action == SHOUT_IT) != self.is_bonus(card)
        if wrong:
            self._take(s, p)
        self._after(s, wrong)

    # --- WATCH (window): the others shout or stay silent before the card is laid
    def _legal_watch(self, s: ElusiveState, p: int) -> list[int]:
        return [SILENT, SHOUT_IT]

    def _apply_watch(self, s: ElusiveState, p: int, action: int) -> None:
        if not self.answer(s, p, action):
            return
        order = [(s.layer + j) % s.n for j in range(1, s.n)]
        shouters = [q for q in order if s.answers[q] == SHOUT_IT]
        s.queue, s.answers = [], {}
        for q in shouters:
            self.event(s, E.SHOUTED, q)
        card = self._lay(s)
        took = False
        if shouters:
            if self.is_bonus(card):
                self._take(s, s.layer)
                took = True
            else:
                self._take(s, self.pick_first(s, shouters, self.rules.race))
        elif self.is_bonus(card) and self.rules.unshouted == "layer":  # E7: laid silently, as the main rule
            self._take(s, s.layer)
            took = True
        self._after(s, took)

    # ------------------------------------------------------------------ outcomes and views
    def scores(self, s: ElusiveState) -> list[int]:
        return [len(p) for p in s.piles]

    def top_known(self, s: ElusiveState, q: int) -> bool:
        return bool(s.piles[q]) and not s.unseen[q]

    def describe(self, s: ElusiveState, seat: int) -> str:
        names = self.card_names
        head = (f"elusive bonus  round {s.rounds + 1}  next player_{s.layer}" if not s.game_over
                else f"elusive bonus  over after {counted(s.rounds, 'round')}")
        lines = [f"{head}  table {len(s.table)}  unseen {s.unseen_all} ({s.unseen_bonus} bonus)"]
        if s.table:
            lines.append("table: " + ", ".join(names[c] for c in s.table[-6:]) + (" ..." if len(s.table) > 6 else ""))
        for q in range(s.n):
            top = ""
            if self.top_known(s, q):
                top = f"  top known: {names[s.piles[q][0]]}" + (" (bonus)" if self.is_bonus(s.piles[q][0]) else "")
            lines.append(f"  player_{q}: {len(s.piles[q]):3d} {plural(len(s.piles[q]), 'card')} ({s.unseen[q]} unseen){top}")
        return "\n".join(lines)

    def snapshot(self, s: ElusiveState) -> dict[str, Any]:
        names = self.card_names
        return {"game": self.game, "piles": [[names[c] for c in p] for p in s.piles], "unseen": list(s.unseen),
                "table": [names[c] for c in s.table], "layer": s.layer, "aside": [names[c] for c in s.aside],
                "rounds": s.rounds, "phase": PHASE_NAMES[s.phase], "winners": list(s.winners)}


class ElusiveEncoder:
    """What one player of Elusive bonus may know, as a float32 vector (module table)."""

    def __init__(self, engine: ElusiveEngine):
        self.engine = engine
        n = engine.n
        self.layout = Layout([("phase", 2), ("layer", n), ("piles", n), ("unseen", n), ("top_known", n),
                              ("top_bonus", n), ("table", 1), ("table_bonus", 1), ("unseen_all", 1),
                              ("unseen_bonus", 1), ("round_laid", 1), ("rounds", 1), ("rules", 4)])
        self.size = self.layout.size
        self._deck = max(1, len(engine.deck))
        r = engine.rules
        self._rules = np.array([r.shout == "others", r.take == "table", r.race == "seat",
                                r.unshouted == "layer"], np.float32)
        self._o = {name: self.layout.offset(name) for name, _ in self.layout.blocks}

    def encode(self, s: ElusiveState, seat: int) -> np.ndarray:
        e, o, d = self.engine, self._o, self._deck
        out = self.layout.new()
        if s.actor == seat and not s.game_over:
            out[o["phase"] + (0 if s.phase == SHOUT else 1)] = 1.0
        slots = e.slots(seat)
        one_hot(out, o["layer"], slots.index(s.layer))
        for j, q in enumerate(slots):
            out[o["piles"] + j] = len(s.piles[q]) / d
            out[o["unseen"] + j] = s.unseen[q] / d
            if e.top_known(s, q):
                out[o["top_known"] + j] = 1.0
                out[o["top_bonus"] + j] = float(e.is_bonus(s.piles[q][0]))
        out[o["table"]] = len(s.table) / d
        out[o["table_bonus"]] = sum(e.is_bonus(c) for c in s.table) / d
        out[o["unseen_all"]] = s.unseen_all / d
        out[o["unseen_bonus"]] = s.unseen_bonus / d
        out[o["round_laid"]] = s.laid_in_round / s.n
        out[o["rounds"]] = s.rounds / e.rules.max_rounds
        out[self.layout.slice("rules")] = self._rules
        return out
