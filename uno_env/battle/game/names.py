"""Game 4, **Name the character**: take your top card, say whose it is; the first with no
cards wins.

Rules (docs/TMNT-BATTLE.md, game 4; Decisions N1-N5, C1-C5):

1. The bonus cards are removed; the characters and Purple Dragons are dealt equally, face
   down. The cards of a type share its name (the four Purple Dragons of the stand-in set
   are all "Purple Dragon").
2. In turn from the first player, a player takes its top card and says a name (an action:
   one of the card set's character names), then shows the card to everyone.
3. The guess (N1): with ``guess: right_discards`` a right name puts the card face up in the
   middle and a wrong one puts it back, face down, under the player's pile; with
   ``wrong_discards`` (the sheet's words as translated) the other way round.
4. Names (N2, ``restrictions``): a player may not say the name it said on its previous turn
   (N5, ``in_a_row: own``; ``last``: not the name said just before, by anyone, across a
   round's end too), nor a name another player said in this round (N3: a round is one turn
   of each player, from the first player). The card set has more names than players, so a
   name is always left.
5. Everyone saw every card shown and where it went (N4): the observation tells, for every
   pile, how many of its cards are known and which, and whether its top card is known.
6. A player whose pile is empty after its turn wins at once. After ``max_rounds`` rounds
   the fewest cards wins, ties share (C4, C5).

=======  ==========================================================
phase    decision of ``state.actor``
=======  ==========================================================
GUESS    say a name: action ``i`` = ``engine.guess_names[i]``
OVER     the game is over
=======  ==========================================================

Observation (:data:`NamesEncoder.layout`; ``N`` names; slots from the observer to its left):

================  ========  ====================================================
block             size      content
================  ========  ====================================================
deciding          1         1 when I say a name now
said              N         names said by the others this round
my_last           N         the name I said last turn, one-hot
just_said         N         the name said just before (by anyone), one-hot
middle            N         cards in the middle, by name
piles             n         cards in each pile / the deck's size
known             n N       cards of each pile that were shown, by name
top_known         n         1 if that pile's top card was shown before
top_name          n N       that known top card's name, one-hot
turn              n         whose turn it is, one-hot
rounds            1         rounds played / ``max_rounds``
rules             3         guess wrong_discards, no restrictions, in_a_row last
================  ========  ====================================================
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from uno_env.battle.game import events as E
from uno_env.battle.game.events import counted, plural
from uno_env.battle.game.base import Engine, Layout, State, one_hot
from uno_env.battle.game.cards import FIGHTERS

GUESS, OVER = range(2)
PHASE_NAMES = ("guess", "over")


@dataclass(eq=False)
class NamesState(State):
    piles: list = field(default_factory=list)  # per seat: deque of type ids, top first
    shown: list = field(default_factory=list)  # per seat: deque of bools, parallel to the pile
    middle: list = field(default_factory=list)  # cards put in the middle, in order
    said: list = field(default_factory=list)  # (seat, name) said this round
    last_name: list = field(default_factory=list)  # per seat: the name said last turn, -1
    just_said: int = -1  # the name said just before (by anyone), -1


class NamesEngine(Engine):
    game = "names"
    PHASE_NAMES = PHASE_NAMES
    DECK_KINDS = FIGHTERS

    def __init__(self, rules, cards, num_players, record_events=False):
        fighters = cards.ids(*FIGHTERS)  # names are unique in a card set: one name per type
        self.guess_names = [cards.types[t].name for t in fighters]
        self.name_of = {t: i for i, t in enumerate(fighters)}
        self.num_actions = len(self.guess_names)
        super().__init__(rules, cards, num_players, record_events)

    def check_cards(self) -> None:
        super().check_cards()
        if len(self.guess_names) <= self.n:
            raise ValueError(f"names: {self.n} players need at least {self.n + 1} character names; the card "
                             f"set {self.cards.name!r} has {len(self.guess_names)}")

    def make_action_names(self) -> list[str]:
        return [f"say {name}" for name in self.guess_names]

    def new_game_state(self, rng: np.random.Generator) -> NamesState:
        return NamesState(n=self.n, rng=rng)

    def setup(self, s: NamesState, order: list[int]) -> None:
        s.piles = [deque(p) for p in self.deal(s, order, remainder=self.rules.remainder)]
        s.shown = [deque(False for _ in p) for p in s.piles]
        s.middle, s.said, s.last_name = [], [], [-1] * s.n
        s.phase, s.actor = GUESS, s.first
        if not s.piles[s.first]:  # nothing dealt to anyone: the first player has no cards
            self.finish(s, [q for q in range(s.n) if not s.piles[q]])

    # --- GUESS: say a name for the top card
    def _legal_guess(self, s: NamesState, p: int) -> list[int]:
        if not self.rules.restrictions:
            return list(range(self.num_actions))
        banned = {name for q, name in s.said if q != p}
        banned.add(s.last_name[p] if self.rules.in_a_row == "own" else s.just_said)
        return [i for i in range(self.num_actions) if i not in banned]

    def _apply_guess(self, s: NamesState, p: int, name: int) -> None:
        card = s.piles[p].popleft()
        s.shown[p].popleft()
        self.event(s, E.GUESSED, p, card, name)
        right = self.name_of[card] == name
        if right == (self.rules.guess == "right_discards"):
            s.middle.append(card)
        else:
            s.piles[p].append(card)
            s.shown[p].append(True)
        s.last_name[p] = s.just_said = name
        s.said.append((p, name))
        if not s.piles[p]:
            self.finish(s, [p])
            return
        nxt = (p + 1) % s.n
        if nxt == s.first:
            s.rounds += 1
            s.said = []
            if s.rounds >= self.rules.max_rounds:
                self.finish_by_count(s, [len(q) for q in s.piles], most=False)
                return
        s.actor = nxt

    # ------------------------------------------------------------------ outcomes and views
    def scores(self, s: NamesState) -> list[int]:
        return [len(p) for p in s.piles]

    def known_names(self, s: NamesState, q: int) -> list[int]:
        """The names of the shown cards in ``q``'s pile, top first (public)."""
        return [self.name_of[c] for c, shown in zip(s.piles[q], s.shown[q]) if shown]

    def describe(self, s: NamesState, seat: int) -> str:
        g = self.guess_names
        lines = [f"name the character  round {s.rounds + 1}  middle {len(s.middle)}  turn player_{s.actor}"
                 if not s.game_over else f"name the character  over after {counted(s.rounds, 'round')}"]
        if s.said:
            lines.append("said this round: " + ", ".join(f"player_{q} {g[name]}" for q, name in s.said))
        for q in range(s.n):
            known = self.known_names(s, q)
            top = f"  top known: {g[self.name_of[s.piles[q][0]]]}" if s.piles[q] and s.shown[q][0] else ""
            lines.append(f"  player_{q}: {len(s.piles[q]):3d} {plural(len(s.piles[q]), 'card')}, {len(known)} shown{top}")
        if s.last_name[seat] >= 0 and not s.game_over:
            lines.append(f"player_{seat} said {g[s.last_name[seat]]} last turn")
        if self.rules.in_a_row == "last" and s.just_said >= 0 and not s.game_over:
            lines.append(f"said just before: {g[s.just_said]}")
        return "\n".join(lines)

    def snapshot(self, s: NamesState) -> dict[str, Any]:
        names = self.card_names
        return {"game": self.game, "piles": [[names[c] for c in p] for p in s.piles],
                "shown": [list(x) for x in s.shown], "middle": [names[c] for c in s.middle],
                "said": [[q, self.guess_names[name]] for q, name in s.said],
                "aside": [names[c] for c in s.aside], "rounds": s.rounds, "phase": PHASE_NAMES[s.phase],
                "turn": s.actor, "winners": list(s.winners)}


class NamesEncoder:
    """What one player of Name the character may know, as a float32 vector (module table)."""

    def __init__(self, engine: NamesEngine):
        self.engine = engine
        n, g = engine.n, engine.num_actions
        self.layout = Layout([("deciding", 1), ("said", g), ("my_last", g), ("just_said", g), ("middle", g),
                              ("piles", n), ("known", n * g), ("top_known", n), ("top_name", n * g),
                              ("turn", n), ("rounds", 1), ("rules", 3)])
        self.size = self.layout.size
        self._deck = max(1, len(engine.deck))
        r = engine.rules
        self._rules = np.array([r.guess == "wrong_discards", not r.restrictions, r.in_a_row == "last"],
                               np.float32)
        self._o = {name: self.layout.offset(name) for name, _ in self.layout.blocks}

    def encode(self, s: NamesState, seat: int) -> np.ndarray:
        e, o, g = self.engine, self._o, self.engine.num_actions
        out = self.layout.new()
        out[o["deciding"]] = float(s.phase == GUESS and s.actor == seat)
        for q, name in s.said:
            if q != seat:
                out[o["said"] + name] = 1.0
        one_hot(out, o["my_last"], s.last_name[seat])
        one_hot(out, o["just_said"], s.just_said)
        for c in s.middle:
            out[o["middle"] + e.name_of[c]] += 1.0
        slots = e.slots(seat)
        for j, q in enumerate(slots):
            out[o["piles"] + j] = len(s.piles[q]) / self._deck
            for name in e.known_names(s, q):
                out[o["known"] + j * g + name] += 1.0
            if s.piles[q] and s.shown[q][0]:
                out[o["top_known"] + j] = 1.0
                out[o["top_name"] + j * g + e.name_of[s.piles[q][0]]] = 1.0
        one_hot(out, o["turn"], slots.index(s.actor) if s.actor >= 0 else -1)
        out[o["rounds"]] = s.rounds / e.rules.max_rounds
        out[self.layout.slice("rules")] = self._rules
        return out
