"""Shared helpers of the battle-card game tests (``tests/battle/``): stacked decks, playing
named actions, random play, and the hidden-information perturbation of every game.

``stacked(engine, piles, first=0, after=())`` builds the deck (type ids, top first) that
deals ``piles`` (seat -> card names, top first) round-robin from ``first``
(docs/TMNT-BATTLE.md C2), then ``after`` (the cards right after the deal: the invisible
player's row in Unexpected attack, else the first cards set aside); every card of the game's
deck not placed fills the rest in deck order. ``ValueError`` for a card the deck lacks.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any, Mapping, Sequence

import numpy as np

from uno_env.battle.game import make_engine


def per_player(engine: Any) -> int:
    """Cards dealt to each player (the ``remainder: deal`` extra cards not counted)."""
    if engine.game == "attack":
        return engine.rules.hand_size
    if engine.game == "elusive":
        return engine.per_player()
    return len(engine.deck) // engine.n


def stacked(engine: Any, piles: Mapping[int, Sequence[str]], first: int = 0, after: Sequence[str] = ()) -> list[int]:
    ids = {name: i for i, name in enumerate(engine.card_names)}
    spare = Counter(engine.deck)
    n, k = engine.n, per_player(engine)

    def take(name: str) -> int:
        t = ids[name]
        if spare[t] <= 0:
            raise ValueError(f"the {engine.game} deck has no (more) {name!r}")
        spare[t] -= 1
        return t

    placed = {q: [take(c) for c in cards] for q, cards in piles.items()}
    tail = [take(c) for c in after]
    rest = sorted(spare.elements())
    order: list[int] = []
    for i in range(n * k):
        q = (first + i) % n
        j = i // n
        cards = placed.get(q, [])
        order.append(cards[j] if j < len(cards) else rest.pop(0))
    return order + tail + rest


def engine_of(game: str, n: int = 2, rules: Any = None, cards: Any = None, **overrides: Any) -> Any:
    return make_engine(game, rules, cards, n, record_events=True, **overrides)


def character(name: str, *skills: int, copies: int = 1) -> dict:
    """A card-list entry of a character with the four skills (one value: all four)."""
    if len(skills) == 1:
        skills = skills * 4
    return {"name": name, **dict(zip(("ingenuity", "dexterity", "strength", "skill"), skills)), "copies": copies}


def card_set(characters=(), dragons=(), bonuses=()) -> dict:
    """A small card list (a mapping) for scenarios: ``bonuses`` as ``(name, characteristic, copies)``."""
    return {"name": "scenario", "characters": list(characters), "dragons": list(dragons),
            "bonuses": [{"name": b, "characteristic": c, "copies": k} for b, c, k in bonuses]}


def deal(engine: Any, piles: Mapping[int, Sequence[str]], first: int = 0, after: Sequence[str] = (), seed: int = 0):
    """A new state of ``engine`` dealt from the stacked deck."""
    return engine.new_state(np.random.default_rng(seed), deck=stacked(engine, piles, first, after), first=first)


def act(engine: Any, state: Any, name: str) -> None:
    """Step ``state.actor`` with the action named ``name`` (``ValueError`` if illegal)."""
    engine.step(state, engine.action_names.index(name))


def legal_names(engine: Any, state: Any) -> list[str]:
    return [engine.action_names[a] for a in engine.legal_actions(state)]


def kinds(engine: Any, state: Any) -> list[str]:
    """The names of the events recorded so far."""
    from uno_env.battle.game.events import EVENT_NAMES

    return [EVENT_NAMES[e.kind] for e in state.events]


def names_of(engine: Any, cards: Sequence[int]) -> list[str]:
    return [engine.card_names[c] for c in cards]


def random_play(engine: Any, state: Any, rng: np.random.Generator, steps: int = 10 ** 6, check=None) -> None:
    """Uniformly random legal actions until the end (or ``steps``), ``check(state)`` after each."""
    for _ in range(steps):
        if state.game_over:
            return
        legal = engine.legal_actions(state)
        assert legal, f"no legal action in phase {engine.PHASE_NAMES[state.phase]}"
        engine.step(state, legal[int(rng.integers(len(legal)))])
        if check is not None:
            check(state)


# ---------------------------------------------------------------------------- card conservation
def all_cards(engine: Any, s: Any) -> list[int]:
    """Every card of the state, wherever it is (for conservation checks)."""
    g = engine.game
    out = list(s.aside)
    if g in ("battle", "dragon", "names", "elusive"):
        for p in s.piles:
            out.extend(p)
    if g == "battle":
        out.extend(s.pot)
    if g == "dragon":
        out.extend(s.common)
    if g == "names":
        out.extend(s.middle)
    if g == "elusive":
        out.extend(s.table)
        out.extend(s.cleared)
    if g == "attack":
        out.extend(int(k) for h in s.hands for k in np.flatnonzero(h) for _ in range(int(h[k])))
        out.extend(s.invisible)
        out.extend(s.gone)
        for cards in s.taken:
            out.extend(cards)
        if s.target >= 0:
            out.append(s.target)
    if g == "bonus":
        out.extend(engine.bonus_ids[b] for h in s.hands for b in np.flatnonzero(h) for _ in range(int(h[b])))
        out.extend(engine.bonus_ids[b] for b in s.gone)
        if s.phase == 1:  # RESPOND: the led card is on the table
            out.append(engine.bonus_ids[s.led])
    return out


# ---------------------------------------------------------------------------- hidden information
def _shuffle_slots(rng: np.random.Generator, slots: list[tuple[list, int]]) -> bool:
    """Permute the cards at ``slots`` (``(list, index)`` pairs) among themselves; True if a card moved."""
    cards = [box[i] for box, i in slots]
    if len(set(cards)) < 2:
        return False
    perm = list(rng.permutation(len(cards)))
    for (box, i), j in zip(slots, perm):
        box[i] = cards[j]
    return any(cards[j] != c for j, c in zip(perm, cards))


def perturb_hidden(engine: Any, s: Any, observer: int, rng: np.random.Generator) -> bool:
    """Change, in place, only cards that ``observer`` cannot know (the rules say which, per game:
    docs/TMNT-BATTLE.md); True if anything changed. Piles become lists for the change and
    deques again after it."""
    g = engine.game
    slots: list[tuple[list, int]] = []
    aside = s.aside
    slots += [(aside, i) for i in range(len(aside))]
    if g in ("battle", "dragon", "names", "elusive"):
        piles = [list(p) for p in s.piles]
        for q, p in enumerate(piles):
            for i in range(len(p)):
                if g == "battle":
                    shown_top = i == 0 and not s.game_over and (q == observer or engine.rules.view == "open")
                    if shown_top:
                        continue
                if g == "names" and s.shown[q][i]:
                    continue
                if g == "elusive" and i >= s.unseen[q]:
                    continue
                slots.append((p, i))
        if g == "elusive":  # a bonus card swapped for another unseen card changes no count of unseen cards
            pass
        changed = _shuffle_slots(rng, slots)
        s.piles = [deque(p) for p in piles]
        return changed
    if g == "attack":
        hands = [[int(k) for k in np.flatnonzero(h) for _ in range(int(h[k]))] for h in s.hands]
        for q in range(s.n):
            if q != observer:
                slots += [(hands[q], i) for i in range(len(hands[q]))]
        slots += [(s.invisible, i) for i in range(len(s.invisible))]
        if s.queue:  # a window is open: cards chosen by others are hidden answers, not moved here
            pass
        changed = _shuffle_slots(rng, slots)
        s.hands[:] = 0
        for q, h in enumerate(hands):
            for k in h:
                s.hands[q, k] += 1
        return changed
    if g == "bonus":
        # cards of other hands that the observer does not know (per characteristic), and the aside
        hands = [[b for b in np.flatnonzero(h) for _ in range(int(h[b]))] for h in s.hands]
        free: list[tuple[list, int]] = []
        for q in range(s.n):
            if q == observer:
                continue
            known = s.known[observer, q].copy()
            for i, b in enumerate(hands[q]):
                c = engine.char_of[b]
                if known[c] > 0:
                    known[c] -= 1
                    continue
                free.append((hands[q], i))
        aside_b = [engine.bonus_ids.index(t) for t in s.aside]
        free += [(aside_b, i) for i in range(len(aside_b))]
        changed = _shuffle_slots(rng, free)
        s.hands[:] = 0
        for q, h in enumerate(hands):
            for b in h:
                s.hands[q, b] += 1
        s.aside = [engine.bonus_ids[b] for b in aside_b]
        return changed
    raise AssertionError(g)
