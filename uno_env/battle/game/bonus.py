"""Game 5, **Bonus battle**: lead a bonus card face down naming its characteristic; the next
player answers with one of the same or takes it; the first with no cards wins.

Rules (docs/TMNT-BATTLE.md, game 5; Decisions O1-O7, C1-C5):

1. Only the bonus cards are used, dealt equally.
2. The leader (the first player, then O5) plays a card face down and names a
   characteristic. Without ``bluff`` (O1) the name is the card's own characteristic; with
   ``bluff`` any may be named. With ``no_repeat`` (O3) it may not name the characteristic it
   named on its previous lead, unless every card it holds has that characteristic.
3. The next player (to the left) responds (O2):
   - **answer** with a bonus card of the named characteristic, if it holds one (then it must
     answer or, with ``bluff``, challenge): both cards are shown and leave the game
     (``answered: out``, O7; ``leader``: the leader takes them, a reading under which a
     two-player game can never end, tests/battle/game/test_bonus_reachability.py);
   - **take** the led card, face down, when it holds none of that characteristic;
   - with ``bluff``, **challenge**: the led card is shown. A bluff: the leader takes it back
     and the challenger gives the leader ``challenge_cost`` cards of its hand (drawn at
     random, face down). As named: the challenger takes it and the leader gives the
     challenger ``challenge_cost`` random cards of its hand (O4).
4. The responder leads the next exchange ("and vice versa"; with more players the lead
   passes left, O5).
5. A player with no cards after an exchange wins (several at once share); after
   ``max_rounds`` exchanges the fewest cards wins (C4, C5).

**What a player knows** (O6). ``known[o, q, c]``: cards of characteristic ``c`` that
observer ``o`` knows are in ``q``'s hand: cards seen going into it (the two cards of an
answer, a card shown in a challenge, without ``bluff`` a taken card by its named
characteristic), less those seen leaving it. Without ``bluff`` a named characteristic is
the card's, so leads are public by characteristic. With ``bluff`` a card that moves face
down (a taken lead, the cards of a challenge's cost) is known to the giver and the receiver
only, and the other observers forget what they knew of the giver's hand (they cannot tell
which card left it).

=========  ======================================================================
phase      decision of ``state.actor``
=========  ======================================================================
LEAD       ``lead <card> as <c>``: action ``b * 4 + c`` (``b``: the bonus type's index)
RESPOND    ``answer <card>``: ``4 B + b``; ``take``: ``5 B``; ``challenge``: ``5 B + 1``
OVER       the game is over
=========  ======================================================================

Observation (:data:`BonusEncoder.layout`; ``B`` bonus types; slots from the observer to
its left):

===============  ========  ====================================================
block            size      content
===============  ========  ====================================================
phase            2         I lead now, I respond now
hand             B         my hand: count of each bonus type
hand_chars       4         my hand by characteristic
sizes            n         cards in each hand / the deck's size
known            n 4       cards of each characteristic known in each hand (slot
                           0: my own, by characteristic)
named            4         the characteristic named for the open lead, one-hot
leader           n         who led it, one-hot
last_named       n 4       the characteristic each player named on its last lead
deck_chars       4         the bonus deck by characteristic / the deck's size
rounds           1         exchanges / ``max_rounds``
rules            3         bluff, no_repeat, challenge_cost / 5
===============  ========  ====================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from uno_env.battle.game import events as E
from uno_env.battle.game.events import counted, plural
from uno_env.battle.game.base import Engine, Layout, State, one_hot
from uno_env.battle.game.cards import BONUS, NUM_SKILLS, SKILLS

LEAD, RESPOND, OVER = range(3)
PHASE_NAMES = ("lead", "respond", "over")


@dataclass(eq=False)
class BonusState(State):
    hands: np.ndarray | None = None  # (n, B) counts of each bonus type (index b, not type id)
    known: np.ndarray | None = None  # (n, n, 4) [observer, seat, characteristic] known cards
    leader: int = 0
    responder: int = -1
    led: int = -1  # the bonus index of the led card (face down)
    named: int = -1  # the characteristic named
    last_named: list = field(default_factory=list)  # per seat: characteristic of its last lead, -1
    gone: list = field(default_factory=list)  # bonus indices of answered exchanges (answered: out)


class BonusEngine(Engine):
    game = "bonus"
    PHASE_NAMES = PHASE_NAMES
    DECK_KINDS = (BONUS,)

    def __init__(self, rules, cards, num_players, record_events=False):
        self.bonus_ids = cards.ids(BONUS)  # bonus index b -> card type id
        self.char_of = [cards.types[t].characteristic for t in self.bonus_ids]
        nb = len(self.bonus_ids)
        self.num_actions = 5 * nb + 2
        self.TAKE, self.CHALLENGE = 5 * nb, 5 * nb + 1
        super().__init__(rules, cards, num_players, record_events)

    def check_cards(self) -> None:
        if len(self.deck) < self.n:
            raise ValueError(f"bonus: {self.n} players need at least {self.n} bonus cards; the card set "
                             f"{self.cards.name!r} has {len(self.deck)}")

    def make_action_names(self) -> list[str]:
        names = [self.card_names[t] for t in self.bonus_ids]
        return ([f"lead {names[b]} as {c}" for b in range(len(names)) for c in SKILLS]
                + [f"answer {x}" for x in names] + ["take", "challenge"])

    def lead_action(self, b: int, c: int) -> int:
        return b * NUM_SKILLS + c

    def answer_action(self, b: int) -> int:
        return NUM_SKILLS * len(self.bonus_ids) + b

    def new_game_state(self, rng: np.random.Generator) -> BonusState:
        return BonusState(n=self.n, rng=rng)

    def setup(self, s: BonusState, order: list[int]) -> None:
        n, nb = s.n, len(self.bonus_ids)
        index = {t: b for b, t in enumerate(self.bonus_ids)}
        s.hands = np.zeros((n, nb), np.int16)
        for q, pile in enumerate(self.deal(s, order, remainder=self.rules.remainder)):
            for t in pile:
                s.hands[q, index[t]] += 1
        s.known = np.zeros((n, n, NUM_SKILLS), np.int16)
        s.last_named = [-1] * n
        s.leader = s.first
        self._start_lead(s)

    # ------------------------------------------------------------------ knowledge
    def chars(self, s: BonusState, q: int) -> np.ndarray:
        """``q``'s hand by characteristic."""
        out = np.zeros(NUM_SKILLS, np.int16)
        np.add.at(out, self.char_of, s.hands[q])
        return out

    def _move(self, s: BonusState, giver: int, taker: int, b: int, public: bool) -> None:
        """Card ``b`` moves from ``giver``'s hand (-1: the table) to ``taker``'s; ``public``:
        every player saw it, else only the two."""
        c = self.char_of[b]
        if giver >= 0:
            s.hands[giver, b] -= 1
            seers = range(s.n) if public else (taker,)
            for o in seers:
                s.known[o, giver, c] = max(0, s.known[o, giver, c] - 1)
            if not public:
                for o in range(s.n):
                    if o not in (giver, taker):
                        s.known[o, giver] = 0  # they cannot tell which card left
        s.hands[taker, b] += 1
        for o in (range(s.n) if public else (giver,) if giver >= 0 else ()):
            if o != taker:
                s.known[o, taker, c] += 1

    # ------------------------------------------------------------------ rules
    def _start_lead(self, s: BonusState) -> None:
        empty = [q for q in range(s.n) if not s.hands[q].any()]
        if empty:
            self.finish(s, empty)
        elif s.rounds >= self.rules.max_rounds:
            self.finish_by_count(s, [int(h.sum()) for h in s.hands], most=False)
        else:
            s.phase, s.actor, s.led, s.named, s.responder = LEAD, s.leader, -1, -1, -1

    # --- LEAD: a card face down, naming a characteristic
    def _legal_lead(self, s: BonusState, p: int) -> list[int]:
        held = [int(b) for b in np.flatnonzero(s.hands[p])]
        banned = -1
        if self.rules.no_repeat and s.last_named[p] >= 0:
            if any(self.char_of[b] != s.last_named[p] for b in held):
                banned = s.last_named[p]
        out = []
        for b in held:
            names = range(NUM_SKILLS) if self.rules.bluff else (self.char_of[b],)
            out.extend(self.lead_action(b, c) for c in names if c != banned)
        return out

    def _apply_lead(self, s: BonusState, p: int, action: int) -> None:
        b, c = divmod(action, NUM_SKILLS)
        s.hands[p, b] -= 1
        if not self.rules.bluff:  # the name is the card's: everyone knows which left the hand
            for o in range(s.n):
                s.known[o, p, c] = max(0, s.known[o, p, c] - 1)
        s.led, s.named, s.last_named[p] = b, c, c
        self.event(s, E.LED, p, -1, c)
        s.responder = (p + 1) % s.n
        s.phase, s.actor = RESPOND, s.responder

    # --- RESPOND: answer with the named characteristic, take the card, or challenge
    def _legal_respond(self, s: BonusState, p: int) -> list[int]:
        answers = [self.answer_action(int(b)) for b in np.flatnonzero(s.hands[p]) if self.char_of[b] == s.named]
        out = answers or [self.TAKE]
        return out + ([self.CHALLENGE] if self.rules.bluff else [])

    def _apply_respond(self, s: BonusState, p: int, action: int) -> None:
        leader, b = s.leader, s.led
        led_card = self.bonus_ids[b]
        if action == self.TAKE:
            self._move(s, -1, p, b, public=not self.rules.bluff)
            if self.rules.bluff:
                for o in range(s.n):
                    if o not in (leader, p):
                        s.known[o, leader] = 0  # a hidden card left the leader's hand
                s.known[leader, p, self.char_of[b]] += 1
            self.event(s, E.TOOK, p, -1, 1)
        elif action == self.CHALLENGE:
            bluff = self.char_of[b] != s.named
            if self.rules.bluff:  # the card left the leader's hand: now everyone sees which
                for o in range(s.n):
                    s.known[o, leader, self.char_of[b]] = max(0, s.known[o, leader, self.char_of[b]] - 1)
            self.event(s, E.CHALLENGED, p, led_card, int(bluff))
            self._move(s, -1, leader if bluff else p, b, public=True)
            if bluff:  # the leader takes its card back; the challenger gives it cards
                self._pay(s, p, leader)
            else:  # the challenger takes the card; the leader gives it cards
                self._pay(s, leader, p)
        else:
            a = action - NUM_SKILLS * len(self.bonus_ids)
            self.event(s, E.ANSWERED, p, self.bonus_ids[a], -1)
            self.event(s, E.REVEALED, leader, led_card, -1)
            if self.rules.bluff:
                for o in range(s.n):
                    s.known[o, leader, self.char_of[b]] = max(0, s.known[o, leader, self.char_of[b]] - 1)
            if self.rules.answered == "leader":
                self._move(s, p, leader, a, public=True)
                self._move(s, -1, leader, b, public=True)
            else:  # "out": both cards leave the game
                s.hands[p, a] -= 1
                for o in range(s.n):
                    s.known[o, p, self.char_of[a]] = max(0, s.known[o, p, self.char_of[a]] - 1)
                s.gone.extend((b, a))
        s.rounds += 1
        s.leader = p
        self._start_lead(s)

    def _pay(self, s: BonusState, giver: int, taker: int) -> None:
        """A lost challenge: ``giver`` gives ``taker`` ``challenge_cost`` random cards of its hand."""
        for _ in range(self.rules.challenge_cost):
            held = s.hands[giver]
            if not held.any():
                return
            b = int(s.rng.choice(len(held), p=held / held.sum()))
            self._move(s, giver, taker, b, public=False)
            self.event(s, E.GAVE, giver, -1, taker)

    # ------------------------------------------------------------------ outcomes and views
    def scores(self, s: BonusState) -> list[int]:
        return [int(h.sum()) for h in s.hands]

    def describe(self, s: BonusState, seat: int) -> str:
        names = [self.card_names[t] for t in self.bonus_ids]
        lines = [f"bonus battle  exchange {s.rounds + 1}  leader player_{s.leader}" if not s.game_over
                 else f"bonus battle  over after {counted(s.rounds, 'exchange')}"]
        if s.phase == RESPOND:
            lines.append(f"player_{s.leader} led a card face down, naming {SKILLS[s.named]}")
        for q in range(s.n):
            known = ", ".join(f"{SKILLS[c]} {int(x)}" for c, x in enumerate(s.known[seat, q]) if x)
            last = f"  last named {SKILLS[s.last_named[q]]}" if s.last_named[q] >= 0 else ""
            size = int(s.hands[q].sum())
            lines.append(f"  player_{q}: {size:2d} {plural(size, 'card')}{last}"
                         + (f"  known: {known}" if known and q != seat else ""))
        hand = [f"{names[b]} ({SKILLS[self.char_of[b]]})" for b in np.flatnonzero(s.hands[seat])
                for _ in range(int(s.hands[seat, b]))]
        lines.append(f"player_{seat} hand: " + (", ".join(hand) or "-"))
        return "\n".join(lines)

    def snapshot(self, s: BonusState) -> dict[str, Any]:
        names = [self.card_names[t] for t in self.bonus_ids]
        return {"game": self.game,
                "hands": [[names[b] for b in np.flatnonzero(h) for _ in range(int(h[b]))] for h in s.hands],
                "led": names[s.led] if s.led >= 0 else None,
                "named": SKILLS[s.named] if s.named >= 0 else None, "leader": s.leader,
                "aside": [self.card_names[c] for c in s.aside], "rounds": s.rounds,
                "phase": PHASE_NAMES[s.phase], "winners": list(s.winners)}


class BonusEncoder:
    """What one player of Bonus battle may know, as a float32 vector (module table)."""

    def __init__(self, engine: BonusEngine):
        self.engine = engine
        n, nb = engine.n, len(engine.bonus_ids)
        self.layout = Layout([("phase", 2), ("hand", nb), ("hand_chars", NUM_SKILLS), ("sizes", n),
                              ("known", n * NUM_SKILLS), ("named", NUM_SKILLS), ("leader", n),
                              ("last_named", n * NUM_SKILLS), ("deck_chars", NUM_SKILLS), ("rounds", 1),
                              ("rules", 4)])
        self.size = self.layout.size
        self._deck = max(1, len(engine.deck))
        deck_chars = np.zeros(NUM_SKILLS, np.float32)
        for t in engine.deck:
            deck_chars[engine.cards.types[t].characteristic] += 1
        self._deck_chars = deck_chars / self._deck
        r = engine.rules
        self._rules = np.array([r.bluff, r.no_repeat, r.challenge_cost / 5, r.answered == "out"], np.float32)
        self._o = {name: self.layout.offset(name) for name, _ in self.layout.blocks}

    def encode(self, s: BonusState, seat: int) -> np.ndarray:
        e, o, L = self.engine, self._o, self.layout
        out = L.new()
        if s.actor == seat and not s.game_over:
            out[o["phase"] + (0 if s.phase == LEAD else 1)] = 1.0
        out[L.slice("hand")] = s.hands[seat]
        mine = e.chars(s, seat)
        out[L.slice("hand_chars")] = mine
        slots = e.slots(seat)
        for j, q in enumerate(slots):
            out[o["sizes"] + j] = s.hands[q].sum() / self._deck
            at = o["known"] + j * NUM_SKILLS
            out[at:at + NUM_SKILLS] = mine if q == seat else s.known[seat, q]
            one_hot(out, o["last_named"] + j * NUM_SKILLS, s.last_named[q])
        if s.phase == RESPOND:
            one_hot(out, o["named"], s.named)
            one_hot(out, o["leader"], slots.index(s.leader))
        out[L.slice("deck_chars")] = self._deck_chars
        out[o["rounds"]] = s.rounds / e.rules.max_rounds
        out[L.slice("rules")] = self._rules
        return out
