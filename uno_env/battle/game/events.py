"""Public events of the battle-card games: what every player at the table sees happen.

The engines record events only when asked (``record_events=True``), as the UNO engine does:
each decision appends zero or more :class:`~uno_env.game.events.Event` (``kind, seat, card,
value``; unused fields -1) to ``state.events``. Events are **public information only**: a
card passed face down is a count, never its type; the answers of a simultaneous window
(covers, cards played in Unexpected attack, the others' shouts) appear when the window
closes, all at once.

=============  =========  ========  ===============================================  =========
kind           seat       card      value                                            games
=============  =========  ========  ===============================================  =========
DEALT          first      -1        cards dealt to each player                       all
NAMED          chooser    -1        the skill named (index into ``SKILLS``)          battle
SHOWN          player     card      its points in the named skill                    battle
WON            player     -1        cards it takes (the round's and the pot)         battle,
                                                                                     attack
TIED           -1         -1        cards left in the pot (0: returned)              battle
OUT            player     -1        -1 (no cards left: out of the game)              battle
TURNED         player     card      1 if it is a Purple Dragon                       dragon
COVERED        player     -1        -1 (covered the card; told when the window       dragon
                                    closes)
TOOK_PILE      player     -1        cards taken (the common pile / the table)        dragon,
                                                                                     elusive
BURNED         player     -1        1 (its top card went under the common pile)      dragon
INVISIBLE      -1         card      its highest points                               attack
PLAYED         player     card      points it scores (0: it does not beat the card)  attack
NOBODY         -1         -1        round number (nobody takes the cards)            attack
GUESSED        player     card      the name said (index into the names); the card   names
                                    is shown
LED            player     -1        the characteristic named (index into SKILLS)     bonus
ANSWERED       player     card      -1 (answered with that card; the leader takes    bonus
                                    both)
REVEALED       player     card      -1 (a card shown to everyone: the led card)      bonus
TOOK           player     -1        1 (took the led card, face down)                 bonus
CHALLENGED     player     card      1 if the lead was a bluff (the led card shown)   bonus
GAVE           player     -1        seat that receives the card (face down)          bonus
SHOUTED        player     -1        -1 ("Bonus!")                                    elusive
LAID           player     card      1 if it is a bonus card                          elusive
CLEARED        -1         -1        cards that leave the game (a round without a     elusive
                                    mistake)
LIMIT          -1         -1        rounds played (the round limit: the count        all
                                    decides)
GAME_OVER      winner     -1        number of winners (a shared win: one event each) all
=============  =========  ========  ===============================================  =========
"""

from __future__ import annotations

from typing import Sequence

from uno_env.battle.game.cards import SKILLS
from uno_env.game.events import Event

__all__ = ["Event", "EVENT_NAMES", "describe"]

EVENT_NAMES = ("dealt", "named", "shown", "won", "tied", "out", "turned", "covered", "took_pile", "burned",
               "invisible", "played", "nobody", "guessed", "led", "answered", "revealed", "took",
               "challenged", "gave", "shouted", "laid", "cleared", "limit", "game_over")
(DEALT, NAMED, SHOWN, WON, TIED, OUT, TURNED, COVERED, TOOK_PILE, BURNED, INVISIBLE, PLAYED, NOBODY,
 GUESSED, LED, ANSWERED, REVEALED, TOOK, CHALLENGED, GAVE, SHOUTED, LAID, CLEARED, LIMIT,
 GAME_OVER) = range(len(EVENT_NAMES))
NUM_EVENT_KINDS = len(EVENT_NAMES)


def plural(n: int, noun: str) -> str:
    """``noun`` for one, ``noun + "s"`` for any other count (``1 card``, ``0 cards``)."""
    return noun if n == 1 else noun + "s"


def counted(n: int, noun: str) -> str:
    """``n`` and its noun: ``1 card``, ``3 cards``."""
    return f"{n} {plural(n, noun)}"


def _cards(n: int) -> str:
    return counted(n, "card")


def describe(event: Event, card_names: Sequence[str], player_names: Sequence[str],
             guess_names: Sequence[str] = ()) -> str:
    """One event as a short English sentence, e.g. ``player_1 names strength``."""
    kind, seat, card, value = event
    who = player_names[seat] if 0 <= seat < len(player_names) else "?"
    name = card_names[card] if 0 <= card < len(card_names) else "?"
    skill = SKILLS[value] if 0 <= value < len(SKILLS) else "?"
    if kind == DEALT:
        return f"{_cards(value)} dealt to each player; {who} begins"
    if kind == NAMED:
        return f"{who} names {skill}"
    if kind == SHOWN:
        return f"{who} shows {name} ({value})"
    if kind == WON:
        return f"{who} wins the round" + (f" and takes {_cards(value)}" if value > 0 else "")
    if kind == TIED:
        return "a tie: " + (f"{_cards(value)} {'waits' if value == 1 else 'wait'} in the pot" if value
                            else "every card goes back")
    if kind == OUT:
        return f"{who} has no cards left and is out"
    if kind == TURNED:
        return f"{who} turns {name}" + (": a Purple Dragon!" if value else "")
    if kind == COVERED:
        return f"{who} covers it"
    if kind == TOOK_PILE:
        return f"{who} takes {_cards(value)}"
    if kind == BURNED:
        return f"{who} covered no dragon and puts a card under the pile"
    if kind == INVISIBLE:
        return f"the invisible player turns {name} (highest {value})"
    if kind == PLAYED:
        return f"{who} plays {name}" + (f" ({value})" if value > 0 else " (does not beat it)")
    if kind == NOBODY:
        return f"nobody wins round {value}"
    if kind == GUESSED:
        said = guess_names[value] if 0 <= value < len(guess_names) else "?"
        right = 0 <= value < len(guess_names) and name == said
        return f"{who} says {said}: it is {name}" + (" (right)" if right else " (wrong)")
    if kind == LED:
        return f"{who} leads a bonus card, face down, naming {skill}"
    if kind == ANSWERED:
        return f"{who} answers with {name}"
    if kind == REVEALED:
        return f"{who}'s card was {name}"
    if kind == TOOK:
        return f"{who} takes the card"
    if kind == CHALLENGED:
        return f"{who} challenges: the card is {name}, " + ("a bluff" if value else "as named")
    if kind == GAVE:
        to = player_names[value] if 0 <= value < len(player_names) else "?"
        return f"{who} gives a card to {to}"
    if kind == SHOUTED:
        return f"{who} shouts \"Bonus!\""
    if kind == LAID:
        return f"{who} lays {name}" + (" (a bonus card)" if value else "")
    if kind == CLEARED:
        return f"{_cards(value)} {'leaves' if value == 1 else 'leave'} the game"
    if kind == LIMIT:
        return f"the round limit ({value}) is reached: the count decides"
    if kind == GAME_OVER:
        return f"{who} wins the game" if value == 1 else f"{who} shares the win"
    raise ValueError(f"unknown event kind {kind!r}")
