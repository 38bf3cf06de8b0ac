"""Decks as card strings: the ruleset's deck in card-kind order (:func:`deck_cards`) and a
stacked deck that deals a chosen position (:func:`stacked_deck`), for
``reset(options={"deck": deck, "dealer": dealer})`` of the AEC env and the Gymnasium view.

``stacked_deck`` builds the full ordered deck (card strings, top first) that the engine deals
into the given position, per RULES.md 2.2: ``hand_size`` rounds of one card each, round-robin
from the player to the left of the dealer; then the first DISCARD card; then the DRAW pile, top
first. Cards of the ruleset's deck that the caller does not place fill the short hands and then
the bottom of the DRAW pile, in card-kind order (deterministic). Unknown cards, a card placed
more often than the deck holds it, a seat outside the table or a hand over ``hand_size`` are a
``ValueError`` naming them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from uno_env.game import cards as C
from uno_env.game.rules import Rules, make_rules

MAX_PLAYERS = 10  # the engine's table size bound


def deck_cards(rules: Any) -> list[str]:
    """Every card string of the ruleset's deck, in card-kind order (duplicates repeated)."""
    r = rules if isinstance(rules, Rules) else make_rules(rules)
    names = C.card_names(r.color_names)
    return [names[k] for k, count in enumerate(r.deck_counts()) for _ in range(count)]


def stacked_deck(rules: Any, num_players: int, dealer: int, hands: Mapping[int, list[str]],
                 first: str, draw_top: list[str] = ()) -> list[str]:
    """The ordered deck (top first) that deals ``hands``, turns ``first`` and leaves ``draw_top``
    on top of DRAW.

    ``rules`` is anything :func:`uno_env.make_rules` accepts (a preset name, a dict, a
    :class:`Rules`). ``hands`` maps seats to cards; a seat may be omitted or given fewer
    than ``hand_size`` cards, and the rest of its hand is filled with unplaced cards.
    ``ValueError`` if a card is unknown or placed more often than the deck holds it.
    """
    r = rules if isinstance(rules, Rules) else make_rules(rules)
    size = r.hand_size
    if not 2 <= num_players <= MAX_PLAYERS or not 0 <= dealer < num_players:
        raise ValueError(f"bad num_players {num_players} / dealer {dealer}")
    unknown = [s for s in hands if not 0 <= s < num_players]
    if unknown:
        raise ValueError(f"seats {unknown} are not in 0..{num_players - 1}")
    spare = Counter(deck_cards(r))

    def take(card: str) -> str:
        if spare[card] <= 0:
            raise ValueError(f"card {card!r} is not in the {r.name!r} deck, or placed too often")
        spare[card] -= 1
        return card

    placed = {seat: [take(c) for c in hands.get(seat, [])] for seat in range(num_players)}
    for seat, cards_ in placed.items():
        if len(cards_) > size:
            raise ValueError(f"seat {seat} is given {len(cards_)} cards; hand_size is {size}")
    first = take(first)
    top = [take(c) for c in draw_top]
    rest: list[str] = []  # every unplaced card, once per copy, in card-kind order
    for card in deck_cards(r):
        if spare[card] > 0:
            spare[card] -= 1
            rest.append(card)
    for seat in range(num_players):
        while len(placed[seat]) < size:
            if not rest:
                raise ValueError("not enough cards left to fill the hands")
            placed[seat].append(rest.pop(0))
    deck: list[str] = []
    for i in range(size):
        for j in range(num_players):
            deck.append(placed[(dealer + 1 + j) % num_players][i])
    deck.append(first)
    deck += top
    deck += rest
    if Counter(deck) != Counter(deck_cards(r)):  # every card placed or filled exactly once
        raise ValueError("the stacked deck is not the ruleset's deck")
    return deck
