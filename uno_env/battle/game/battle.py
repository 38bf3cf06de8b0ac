"""Game 1, **Battle**: name a skill, the higher card in it takes the cards; win them all.

Rules (docs/TMNT-BATTLE.md, game 1; Decisions B1-B4, C1-C5):

1. The characters and Purple Dragons are dealt equally, face down (bonus cards are set aside).
2. A round: every player with cards turns its top card. The **chooser** (the first player
   in round 1) names a skill (ingenuity, dexterity, strength, skill) of its card; with
   ``view: own`` (B1) it has seen only its own card, with ``open`` every top card is face
   up before it names one. With ``choice: highest`` (B2) it must name one of its card's
   highest skills.
3. The highest points in the named skill win the round: its player takes every card of the
   round (its own first, then the others in seat order from its left, then the pot, oldest
   first) under its pile. A tie for the highest (B4): ``pot`` keeps the round's cards in
   the middle for the next round's winner, ``return`` puts each card back under its pile.
4. The next chooser (B3): the round's winner (``winner``; after a tie the same chooser), or
   the next player with cards to the left (``rotate``). A player with no cards is out.
5. The last player with cards wins (the pot is theirs). If the last players run out in
   the same tie they share the win. After ``max_rounds`` rounds the most cards wins (C4).

=======  ==================================================
phase    decision of ``state.actor``
=======  ==================================================
CHOOSE   the chooser names a skill: actions 0..3 (``SKILLS``)
OVER     the game is over
=======  ==================================================

Observation (:data:`BattleEncoder.layout`, float32; slots are seats from the observer to
its left, slot 0 itself; ``T`` card types, ``n`` players):

===============  ========  ====================================================
block            size      content
===============  ========  ====================================================
choosing         1         1 when I name the skill now
my_top           T         my top card, one-hot (zero without cards)
my_skills        4         its points / the set's highest points
open_tops        (n-1) T   the others' top cards (``view: open`` only, else 0)
piles            n         cards in each pile / the deck's size
out              n         1 for a player who is out
pot              1         cards in the pot / the deck's size
chooser          n         who names the skill, one-hot
last_skill       4         the skill named last round, one-hot
last_cards       n T       the cards shown last round, one-hot per slot
rounds           1         rounds played / ``max_rounds``
rules            4         view open, choice highest, chooser rotate, tie return
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
from uno_env.battle.game.cards import FIGHTERS, NUM_SKILLS, SKILLS, card_text

CHOOSE, OVER = range(2)
PHASE_NAMES = ("choose", "over")


@dataclass(eq=False)
class BattleState(State):
    piles: list = field(default_factory=list)  # per seat: deque of type ids, top first
    pot: list = field(default_factory=list)  # cards of tied rounds, oldest first
    out: list = field(default_factory=list)  # per seat: out of the game
    chooser: int = 0
    last_skill: int = -1  # the skill named last round
    last_cards: list = field(default_factory=list)  # per seat: card shown last round, -1


class BattleEngine(Engine):
    game = "battle"
    PHASE_NAMES = PHASE_NAMES
    DECK_KINDS = FIGHTERS
    num_actions = NUM_SKILLS

    def make_action_names(self) -> list[str]:
        return [f"name {k}" for k in SKILLS]

    def new_game_state(self, rng: np.random.Generator) -> BattleState:
        return BattleState(n=self.n, rng=rng)

    def setup(self, s: BattleState, order: list[int]) -> None:
        s.piles = [deque(p) for p in self.deal(s, order, remainder=self.rules.remainder)]
        s.out = [not p for p in s.piles]
        s.pot, s.last_cards = [], [-1] * s.n
        s.chooser = s.first if s.piles[s.first] else self._next_in(s, s.first)
        self._start_round(s)

    # ------------------------------------------------------------------ rules
    def _next_in(self, s: BattleState, p: int) -> int:
        for j in range(1, s.n + 1):
            q = (p + j) % s.n
            if not s.out[q]:
                return q
        return -1

    def _start_round(self, s: BattleState) -> None:
        alive = [q for q in range(s.n) if not s.out[q]]
        if len(alive) == 1:
            s.piles[alive[0]].extend(s.pot)
            s.pot = []
            self.finish(s, alive)
        elif s.rounds >= self.rules.max_rounds:
            self.finish_by_count(s, [len(p) for p in s.piles], most=True)
        else:
            s.phase, s.actor = CHOOSE, s.chooser

    def top_value(self, card: int, skill: int) -> int:
        return self.cards.types[card].skills[skill]

    # --- CHOOSE: the chooser names a skill
    def _legal_choose(self, s: BattleState, p: int) -> list[int]:
        if self.rules.choice == "highest":
            skills = self.cards.types[s.piles[p][0]].skills
            return [k for k in range(NUM_SKILLS) if skills[k] == max(skills)]
        return list(range(NUM_SKILLS))

    def _apply_choose(self, s: BattleState, p: int, skill: int) -> None:
        self.event(s, E.NAMED, p, -1, skill)
        shown = [(q, s.piles[q].popleft()) for q in self.slots(p) if not s.out[q]]  # chooser first
        s.last_skill, s.last_cards = skill, [-1] * s.n
        for q, card in shown:
            s.last_cards[q] = card
            self.event(s, E.SHOWN, q, card, self.top_value(card, skill))
        best = max(self.top_value(c, skill) for _, c in shown)
        top = [q for q, c in shown if self.top_value(c, skill) == best]
        if len(top) == 1:
            w = top[0]
            won = [c for q, c in sorted(shown, key=lambda qc: (qc[0] - w) % s.n)] + s.pot
            s.piles[w].extend(won)
            s.pot = []
            self.event(s, E.WON, w, -1, len(won))
        elif self.rules.tie == "pot":
            s.pot.extend(c for _, c in shown)
            self.event(s, E.TIED, -1, -1, len(s.pot))
        else:  # return: each card back under its own pile
            for q, c in shown:
                s.piles[q].append(c)
            self.event(s, E.TIED, -1, -1, 0)
        for q, _ in shown:
            if not s.piles[q]:
                s.out[q] = True
                self.event(s, E.OUT, q)
        s.rounds += 1
        if all(s.out):  # the last players ran out in one tie: they share the win
            self.finish(s, [q for q, _ in shown])
            return
        if len(top) == 1 and self.rules.chooser == "winner":
            s.chooser = top[0]
        elif self.rules.chooser == "rotate" or s.out[s.chooser]:
            s.chooser = self._next_in(s, s.chooser)
        self._start_round(s)

    # ------------------------------------------------------------------ outcomes and views
    def scores(self, s: BattleState) -> list[int]:
        return [len(p) for p in s.piles]

    def describe(self, s: BattleState, seat: int) -> str:
        names = self.card_names
        lines = [f"battle  round {s.rounds + 1}  chooser player_{s.chooser}  pot {len(s.pot)}" if not s.game_over
                 else f"battle  over after {counted(s.rounds, 'round')}  pot {len(s.pot)}"]
        if s.last_skill >= 0:
            shown = ", ".join(f"player_{q} {names[c]}" for q, c in enumerate(s.last_cards) if c >= 0)
            lines.append(f"last round: {SKILLS[s.last_skill]}: {shown}")
        for q in range(s.n):
            top = ""
            if s.piles[q] and (q == seat or self.rules.view == "open") and not s.game_over:
                top = "  top " + card_text(self.cards, s.piles[q][0])
            size = len(s.piles[q])
            lines.append(f"  player_{q}: {size:3d} {plural(size, 'card')}{' (out)' if s.out[q] else ''}{top}")
        return "\n".join(lines)

    def snapshot(self, s: BattleState) -> dict[str, Any]:
        names = self.card_names
        return {"game": self.game, "piles": [[names[c] for c in p] for p in s.piles],
                "pot": [names[c] for c in s.pot], "out": list(s.out), "chooser": s.chooser,
                "aside": [names[c] for c in s.aside], "rounds": s.rounds, "phase": PHASE_NAMES[s.phase],
                "winners": list(s.winners)}


class BattleEncoder:
    """What one player of Battle may know, as a float32 vector (module table)."""

    def __init__(self, engine: BattleEngine):
        self.engine = engine
        n, t = engine.n, engine.cards.size
        self.layout = Layout([("choosing", 1), ("my_top", t), ("my_skills", NUM_SKILLS),
                              ("open_tops", (n - 1) * t), ("piles", n), ("out", n), ("pot", 1),
                              ("chooser", n), ("last_skill", NUM_SKILLS), ("last_cards", n * t),
                              ("rounds", 1), ("rules", 4)])
        self.size = self.layout.size
        self._deck = max(1, len(engine.deck))
        self._top_points = max(1, max(max(ct.skills) for ct in engine.cards.types))
        r = engine.rules
        self._rules = np.array([r.view == "open", r.choice == "highest", r.chooser == "rotate",
                                r.tie == "return"], np.float32)
        self._o = {name: self.layout.offset(name) for name, _ in self.layout.blocks}

    def encode(self, s: BattleState, seat: int) -> np.ndarray:
        e, o, t = self.engine, self._o, self.engine.cards.size
        out = self.layout.new()
        out[o["choosing"]] = float(s.phase == CHOOSE and s.actor == seat)
        slots = e.slots(seat)
        pile = s.piles[seat]
        if pile and not s.game_over:
            one_hot(out, o["my_top"], pile[0])
            out[self.layout.slice("my_skills")] = np.asarray(e.cards.types[pile[0]].skills) / self._top_points
        if e.rules.view == "open" and not s.game_over:
            for j, q in enumerate(slots[1:]):
                if s.piles[q]:
                    one_hot(out, o["open_tops"] + j * t, s.piles[q][0])
        for j, q in enumerate(slots):
            out[o["piles"] + j] = len(s.piles[q]) / self._deck
            out[o["out"] + j] = float(s.out[q])
            one_hot(out, o["last_cards"] + j * t, s.last_cards[q])
        out[o["pot"]] = len(s.pot) / self._deck
        one_hot(out, o["chooser"], slots.index(s.chooser) if not s.game_over else -1)
        one_hot(out, o["last_skill"], s.last_skill)
        out[o["rounds"]] = s.rounds / e.rules.max_rounds
        out[self.layout.slice("rules")] = self._rules
        return out
