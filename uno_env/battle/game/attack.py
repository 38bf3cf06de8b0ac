"""Game 3, **Unexpected attack: fight an invisible enemy**: beat the invisible player's card
with one of your five; the most rounds won wins.

Rules (docs/TMNT-BATTLE.md, game 3; Decisions A1-A5, C1, C5):

1. The bonus cards are set aside. Each player is dealt ``hand_size`` (5) characters or
   Purple Dragons, then ``hand_size`` more go face down in a row for the "invisible
   player"; the rest is set aside unseen.
2. A round: the invisible player's next card is turned face up. Its *target* is its highest
   points ``S`` and the skills that have them. Every player chooses a card of its hand and
   plays it face down at the same moment (A1: a simultaneous window; the AEC env asks in
   seat order from the first player, answers hidden), then all are shown.
3. A card beats the invisible card (A2) if its points in a target skill exceed ``S``
   (``beat: same``; its score: its best points in a target skill), or if its highest points
   exceed ``S`` (``any``; its score: its highest points). An invisible card whose ``S`` is
   the card set's highest points cannot be exceeded, so its round is dead (A5, ``at_top:
   dead``); ``match``: there, equal points beat it.
4. Of the cards that beat it the highest score wins the round and takes all the round's
   cards (n + 1); equal best scores (A3): the higher total of the four skills wins, still
   equal nobody (``tie: total``), or nobody at once (``nobody``). No card beats it: nobody
   takes the cards (they leave the game).
5. After ``hand_size`` rounds the most rounds won wins; ties share (C5).

=======  ======================================================================
phase    decision of ``state.actor``
=======  ======================================================================
PLAY     window: every player plays a card of its hand (action = its type id)
OVER     the game is over
=======  ======================================================================

Observation (:data:`AttackEncoder.layout`; slots from the observer to its left):

===============  ========  ====================================================
block            size      content
===============  ========  ====================================================
deciding         1         1 when I choose my card now
hand             T         my hand: count of each card type
target           T         the invisible card of this round, one-hot
target_skills    4         its points / the set's highest points
target_mask      4         1 for its target skills (its highest)
seen             T         cards shown so far (invisible and played), counts
won              n         rounds won by each slot / ``hand_size``
round            1         rounds played / ``hand_size``
rules            3         beat any, tie nobody, at_top match
===============  ========  ====================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from uno_env.battle.game import events as E
from uno_env.battle.game.events import counted, plural
from uno_env.battle.game.base import Engine, Layout, State, best_of, one_hot
from uno_env.battle.game.cards import FIGHTERS, NUM_SKILLS, card_text

PLAY, OVER = range(2)
PHASE_NAMES = ("play", "over")


@dataclass(eq=False)
class AttackState(State):
    hands: np.ndarray | None = None  # (n, T) counts of each card type in each hand
    invisible: list = field(default_factory=list)  # the invisible player's row, next first
    target: int = -1  # the invisible card of this round
    seen: np.ndarray | None = None  # (T,) cards shown so far
    won: list = field(default_factory=list)  # per seat: rounds won
    taken: list = field(default_factory=list)  # per seat: the cards of the rounds it won
    gone: list = field(default_factory=list)  # the cards of rounds nobody won (out of the game)
    last_played: list = field(default_factory=list)  # per seat: card played last round, -1


class AttackEngine(Engine):
    game = "attack"
    PHASE_NAMES = PHASE_NAMES
    DECK_KINDS = FIGHTERS

    def __init__(self, rules, cards, num_players, record_events=False):
        self.num_actions = cards.size
        super().__init__(rules, cards, num_players, record_events)
        # the highest points of the card set's fighters: no card can exceed them (A5)
        self.top_points = max(max(self.cards.types[t].skills) for t in self.deck)

    def check_cards(self) -> None:
        need = (self.n + 1) * self.rules.hand_size
        if len(self.deck) < need:
            raise ValueError(f"attack: {self.n} players and the invisible player need {need} characters "
                             f"and Purple Dragons (hand_size {self.rules.hand_size}); the card set "
                             f"{self.cards.name!r} has {len(self.deck)}")

    def make_action_names(self) -> list[str]:
        return [f"play {name}" for name in self.card_names]

    def new_game_state(self, rng: np.random.Generator) -> AttackState:
        return AttackState(n=self.n, rng=rng)

    def setup(self, s: AttackState, order: list[int]) -> None:
        h, n = self.rules.hand_size, s.n
        s.hands = np.zeros((n, self.cards.size), np.int16)
        for i, card in enumerate(order[:h * n]):
            s.hands[(s.first + i) % n, card] += 1
        s.invisible = list(order[h * n:h * (n + 1)])
        s.aside = list(order[h * (n + 1):])
        s.seen = np.zeros(self.cards.size, np.int16)
        s.won, s.last_played = [0] * n, [-1] * n
        s.taken, s.gone = [[] for _ in range(n)], []
        self.event(s, E.DEALT, s.first, -1, h)
        self._next_round(s)

    # ------------------------------------------------------------------ rules
    def target_skills(self, card: int) -> list[int]:
        skills = self.cards.types[card].skills
        return [k for k in range(NUM_SKILLS) if skills[k] == max(skills)]

    def score(self, card: int, target: int) -> int:
        """The points ``card`` scores against the invisible ``target`` (0 if it does not beat it)."""
        t_skills = self.cards.types[target].skills
        skills = self.cards.types[card].skills
        if self.rules.beat == "same":
            points = max(skills[k] for k in self.target_skills(target))
        else:
            points = max(skills)
        beaten = max(t_skills)
        if self.rules.at_top == "match" and beaten >= self.top_points:  # A5: equal points beat the top
            return points if points >= beaten else 0
        return points if points > beaten else 0

    def _next_round(self, s: AttackState) -> None:
        if s.rounds >= self.rules.hand_size:
            self.finish(s, best_of(s.won, most=True))
            return
        s.target = s.invisible.pop(0)
        s.seen[s.target] += 1
        self.event(s, E.INVISIBLE, -1, s.target, max(self.cards.types[s.target].skills))
        self.open_window(s, PLAY, [(s.first + j) % s.n for j in range(s.n)])

    # --- PLAY (window): every player plays a card of its hand
    def _legal_play(self, s: AttackState, p: int) -> list[int]:
        return [int(k) for k in np.flatnonzero(s.hands[p])]

    def _apply_play(self, s: AttackState, p: int, card: int) -> None:
        if not self.answer(s, p, card):
            return
        played = dict(s.answers)
        s.queue, s.answers = [], {}
        scores = {}
        for q in sorted(played, key=lambda q: (q - s.first) % s.n):
            c = played[q]
            s.hands[q, c] -= 1
            s.seen[c] += 1
            s.last_played[q] = c
            scores[q] = self.score(c, s.target)
            self.event(s, E.PLAYED, q, c, scores[q])
        s.rounds += 1
        beaters = [q for q in scores if scores[q] > 0]
        winner = -1
        if beaters:
            top = best_of([scores.get(q, 0) for q in range(s.n)], most=True)
            if len(top) > 1 and self.rules.tie == "total":
                totals = [sum(self.cards.types[played[q]].skills) if q in top else -1 for q in range(s.n)]
                top = best_of(totals, most=True)
            if len(top) == 1:
                winner = top[0]
        cards = [s.target] + [played[q] for q in sorted(played)]
        s.target = -1
        if winner >= 0:
            s.won[winner] += 1
            s.taken[winner].extend(cards)
            self.event(s, E.WON, winner, -1, len(cards))
        else:
            s.gone.extend(cards)
            self.event(s, E.NOBODY, -1, -1, s.rounds)
        self._next_round(s)

    # ------------------------------------------------------------------ outcomes and views
    def scores(self, s: AttackState) -> list[int]:
        return list(s.won)

    def describe(self, s: AttackState, seat: int) -> str:
        names = self.card_names
        lines = [f"unexpected attack  round {s.rounds + 1} of {self.rules.hand_size}" if not s.game_over
                 else f"unexpected attack  over after {counted(s.rounds, 'round')}"]
        if s.target >= 0:
            lines.append(f"invisible player: {card_text(self.cards, s.target)}")
        for q in range(s.n):
            last = f"  last played {names[s.last_played[q]]}" if s.last_played[q] >= 0 else ""
            lines.append(f"  player_{q}: {counted(s.won[q], 'round')} won{last}")
        hand = [card_text(self.cards, int(k)) for k in np.flatnonzero(s.hands[seat])
                for _ in range(int(s.hands[seat, k]))]
        lines.append(f"player_{seat} hand: " + ("; ".join(hand) or "-"))
        return "\n".join(lines)

    def snapshot(self, s: AttackState) -> dict[str, Any]:
        names = self.card_names
        return {"game": self.game,
                "hands": [[names[k] for k in np.flatnonzero(h) for _ in range(int(h[k]))] for h in s.hands],
                "invisible": [names[c] for c in s.invisible],
                "target": names[s.target] if s.target >= 0 else None, "won": list(s.won),
                "aside": [names[c] for c in s.aside], "rounds": s.rounds, "phase": PHASE_NAMES[s.phase],
                "winners": list(s.winners)}


class AttackEncoder:
    """What one player of Unexpected attack may know, as a float32 vector (module table)."""

    def __init__(self, engine: AttackEngine):
        self.engine = engine
        n, t = engine.n, engine.cards.size
        self.layout = Layout([("deciding", 1), ("hand", t), ("target", t), ("target_skills", NUM_SKILLS),
                              ("target_mask", NUM_SKILLS), ("seen", t), ("won", n), ("round", 1), ("rules", 3)])
        self.size = self.layout.size
        self._top_points = max(1, max(max(ct.skills) for ct in engine.cards.types))
        r = engine.rules
        self._rules = np.array([r.beat == "any", r.tie == "nobody", r.at_top == "match"], np.float32)
        self._o = {name: self.layout.offset(name) for name, _ in self.layout.blocks}

    def encode(self, s: AttackState, seat: int) -> np.ndarray:
        e, o, L = self.engine, self._o, self.layout
        out = L.new()
        out[o["deciding"]] = float(s.phase == PLAY and s.actor == seat)
        out[L.slice("hand")] = s.hands[seat]
        if s.target >= 0:
            one_hot(out, o["target"], s.target)
            out[L.slice("target_skills")] = np.asarray(e.cards.types[s.target].skills) / self._top_points
            for k in e.target_skills(s.target):
                out[o["target_mask"] + k] = 1.0
        out[L.slice("seen")] = s.seen
        for j, q in enumerate(e.slots(seat)):
            out[o["won"] + j] = s.won[q] / e.rules.hand_size
        out[o["round"]] = s.rounds / e.rules.hand_size
        out[L.slice("rules")] = self._rules
        return out
