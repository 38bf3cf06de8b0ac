"""Narration: the engine's public events (:mod:`uno_env.game.events`) as text, the one place
that words them.

The terminal game (:mod:`uno_env.tools.play`) tells the human what happened since its last
decision, and the replay program (:mod:`uno_env.tools.replay`) what every logged decision
led to, both from the events the engine recorded: never by diffing states, never from the
answers given inside a catch / jump-in / offer window. Events are public by construction, so a
narration shows what every player at the table may know. The one private addition is
``received``: the names of the cards the narrated seat itself drew, which only that player
sees (the terminal game passes them from the human's own hand; a spectator passes none).

A :class:`Narrator` words events in two forms. :meth:`Narrator.lines` narrates a table (the
first table below): the events of one decision as lines, in the past tense, the cards a
penalty drew attached to what caused it; it keeps the little public memory a table needs
across decisions: who played the last Wild Draw Four (named when it is challenged), who asked
for a card and whether anyone offered one, the round number. :meth:`Narrator.sentence` words
one event on its own, in the present tense (:data:`SENTENCES`, the second table), for lists
of events read one by one: the golden playthroughs and the browser's event list.

=============  =====================================================================
event          line (``who`` is ``you`` for the narrated seat)
=============  =====================================================================
DEALT          ``Player_1 dealt; the first card is red-5.`` (round 1); later rounds:
               ``*** scores: ... Round 2: player_1 deals, first card red-5``
PLAYED         ``player_1 played red-5`` / ``player_1 played wild, colour blue``
JUMPED_IN      ``player_1 jumped in with red-5``
DREW           ``player_1 drew [player_1 +2 cards]``; after an ask: ``nobody offered a
               card`` then the draw, or ``player_1 took no offer and drew [...]``
PENALTY        ``[player_2 +2 cards]`` after the play, challenge or colour choice that
               caused it in the same decision, else ``player_2 took the penalty [...]``;
               cards shown to everyone (REVEALED, FROM THE SEWERS) are named
CAUGHT         ``player_0 was caught without UNO [player_0 +2 cards]``
UNO            ``player_1 called UNO!``
CHALLENGED     ``player_2 challenged the Wild Draw Four of player_1`` (the penalty that
               follows tells who was right)
COLOR_CHOSEN   ``player_1 chose colour green``
DISCARDED      ``player_1 discarded the villain red-shredder``
SKIPPED        ``player_2 was skipped``
REVERSED       ``play now goes counter-clockwise``
ASKED          ``player_1 asked the others for a card``
OFFERED        ``player_2 offered red-3``
TOOK           ``player_1 took player_2's offer red-3``
RESHUFFLED     ``the discards were reshuffled into a new DRAW pile of 40 cards``
ROUND_OVER     ``*** player_1 went out and won round 1 (+57 points)`` (points with
               standard scoring)
GAME_OVER      ``*** player_1 won the game``
=============  =====================================================================

A catch window nobody used is told from its ``escaped`` event: ``nobody caught player_0 (no
UNO call)``.

=============  =====================================================================
event          sentence (``card`` and ``colour`` names; ``?`` for a field out of range)
=============  =====================================================================
DEALT          ``round 1: player_0 deals; red-5 is turned up``
PLAYED         ``player_1 plays red-5`` / ``player_1 plays wild (colour blue)``
JUMPED_IN      ``player_1 jumps in with red-5``
DREW           ``player_1 draws 2 cards``
PENALTY        ``player_2 draws 4 cards (penalty)``
CAUGHT         ``player_0 is caught without calling UNO and draws 2 cards``
ESCAPED        ``nobody catches player_0 without UNO``
UNO            ``player_1 calls UNO``
CHALLENGED     ``player_2 challenges the Wild Draw Four: it was illegal`` (or ``legal``)
COLOR_CHOSEN   ``player_1 chooses green``
DISCARDED      ``player_1 discards red-shredder``
SKIPPED        ``player_2 is skipped``
REVERSED       ``play turns counter-clockwise`` (or ``clockwise``)
ASKED          ``player_1 asks for a card``
OFFERED        ``player_2 offers red-3``
TOOK           ``player_1 takes red-3 from player_2``
REVEALED       ``player_1 shows blue-7``
RESHUFFLED     ``the discards are reshuffled into a DRAW pile of 40 cards``
ROUND_OVER     ``player_1 wins the round (57 points in the other hands)``
GAME_OVER      ``player_1 wins the game``
=============  =====================================================================
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from uno_env.game import cards as C
from uno_env.game import events as E


def _cards(n: int) -> str:
    return f"{n} card{'s' if n != 1 else ''}"


# One event on its own (Narrator.sentence; the module's second table). Fields: who (the seat's
# label), name (the card), color (the value as a colour), cards (the value as a card count),
# wild_color (" (colour c)" after a wild), verdict, direction, giver, value.
SENTENCES = {
    E.DEALT: "round {value}: {who} deals; {name} is turned up",
    E.PLAYED: "{who} plays {name}{wild_color}",
    E.JUMPED_IN: "{who} jumps in with {name}",
    E.DREW: "{who} draws {cards}",
    E.PENALTY: "{who} draws {cards} (penalty)",
    E.CAUGHT: "{who} is caught without calling UNO and draws {cards}",
    E.ESCAPED: "nobody catches {who} without UNO",
    E.UNO: "{who} calls UNO",
    E.CHALLENGED: "{who} challenges the Wild Draw Four: it was {verdict}",
    E.COLOR_CHOSEN: "{who} chooses {color}",
    E.DISCARDED: "{who} discards {name}",
    E.SKIPPED: "{who} is skipped",
    E.REVERSED: "play turns {direction}",
    E.ASKED: "{who} asks for a card",
    E.OFFERED: "{who} offers {name}",
    E.TOOK: "{who} takes {name} from {giver}",
    E.REVEALED: "{who} shows {name}",
    E.RESHUFFLED: "the discards are reshuffled into a DRAW pile of {cards}",
    E.ROUND_OVER: "{who} wins the round ({value} points in the other hands)",
    E.GAME_OVER: "{who} wins the game",
}


class Narrator:
    """Lines of text for the public events of one table, from one seat's point of view.

    ``labels[seat]`` names every seat (``"you"`` for the narrated one); ``me`` is the
    narrated seat (None: a spectator); ``paint`` paints a card or colour name (default:
    unchanged); ``scores()`` returns the current scores, told when a new round is dealt
    (omitted without it); ``standard_scoring`` tells the winner's round points.
    """

    def __init__(self, card_names: Sequence[str], color_names: Sequence[str], labels: Sequence[str],
                 me: int | None = None, paint: Callable[[str], str] | None = None,
                 scores: Callable[[], Sequence[int]] | None = None, standard_scoring: bool = True):
        self.card_names, self.colors, self.labels = list(card_names), list(color_names), list(labels)
        self.me = me
        self.paint = paint or (lambda text: text)
        self.scores = scores
        self.standard_scoring = standard_scoring
        self.round = 0  # from the last DEALT
        self.wd4_player = -1  # who played the last Wild Draw Four
        self.asker, self.offered = -1, False  # an ask whose outcome is not told yet

    # ------------------------------------------------------------------ names
    def was(self, seat: int) -> str:
        """``player_1 was`` / ``you were``."""
        return f"{self.labels[seat]} {'were' if seat == self.me else 'was'}"

    def whose(self, seat: int) -> str:
        """``player_1's`` / ``your``."""
        return "your" if seat == self.me else f"{self.labels[seat]}'s"

    def card(self, k: int) -> str:
        return self.paint(self.card_names[k])

    def color(self, c: int) -> str:
        return self.paint(self.colors[c]) if 0 <= c < len(self.colors) else "(none)"

    def played(self, k: int, color: int) -> str:
        """A played card, with the colour chosen for a wild."""
        return self.card(k) + (f", colour {self.color(color)}" if C.is_wild(k) else "")

    # ------------------------------------------------------------------ events
    def sentence(self, event: E.Event) -> str:
        """One event on its own, in the present tense (:data:`SENTENCES`), e.g. ``player_1
        plays red-5``: names unpainted, ``?`` for a seat, card or colour out of range."""
        kind, seat, card, value = event
        template = SENTENCES.get(kind)
        if template is None:
            raise ValueError(f"unknown event kind {kind!r}")

        def named(names: Sequence[str], i: int) -> str:
            return names[i] if 0 <= i < len(names) else "?"

        name, color = named(self.card_names, card), named(self.colors, value)
        return template.format(
            who=named(self.labels, seat), name=name, color=color, cards=_cards(value), value=value,
            wild_color=f" (colour {color})" if 0 <= card < C.NUM_KINDS and C.is_wild(card) else "",
            verdict="illegal" if value else "legal", giver=named(self.labels, value),
            direction="clockwise" if value > 0 else "counter-clockwise")

    def lines(self, events: Iterable[E.Event], received: Iterable[int] = ()) -> list[str]:
        """The lines for ``events`` (those of one decision, in order). ``received``: cards the
        narrated seat drew in it (named with its first draw or penalty)."""
        labels = self.labels
        got = sorted(received)
        entries: list[list] = []  # [text, effects]: effects are told as " [a +2 cards, ...]"
        attach = -1  # index of the entry a PENALTY is attached to
        revealed: dict[int, list[int]] = {}  # cards shown while drawn (FROM THE SEWERS)

        def effect(seat: int, count: int) -> list[str]:
            nonlocal got
            names = revealed.pop(seat, [])
            if got and seat == self.me:
                names, got = got, []
            if not count:  # nothing drawn (a SEWERS penalty on a hand with every colour)
                return []
            text = f"{labels[seat]} +{_cards(count)}"
            return [text + (": " + " ".join(self.card(k) for k in names) if names else "")]

        def add(text: str, effects: list[str] | None = None, attachable: bool = False) -> None:
            nonlocal attach
            entries.append([text, effects or []])
            attach = len(entries) - 1 if attachable else -1

        for kind, seat, card, value in events:
            who = labels[seat] if 0 <= seat < len(labels) else "?"
            if kind == E.DEALT:
                self.round = value
                if value == 1:
                    add(f"{who[:1].upper()}{who[1:]} dealt; the first card is {self.card(card)}.")
                else:
                    scores = ""
                    if self.scores is not None:
                        scores = "scores: " + ", ".join(f"{labels[i]} {x}" for i, x in enumerate(self.scores())) + ". "
                    add(f"*** {scores}Round {value}: {who} deals, first card {self.card(card)}")
                self.wd4_player, self.asker = -1, -1
            elif kind in (E.PLAYED, E.JUMPED_IN):
                if card == C.WILD_DRAW4:
                    self.wd4_player = seat
                verb = "played" if kind == E.PLAYED else "jumped in with"
                add(f"{who} {verb} {self.played(card, value)}", attachable=True)
            elif kind == E.DREW:
                text = f"{who} drew"
                if seat == self.asker:
                    if self.offered:
                        text = f"{who} took no offer and drew"
                    else:
                        add("nobody offered a card")
                    self.asker = -1
                if value:
                    add(text, effect(seat, value))
                else:
                    add(f"{text} no card: the DRAW pile is empty")
            elif kind == E.PENALTY:
                if attach >= 0:
                    entries[attach][1] += effect(seat, value)
                else:
                    add(f"{who} took the penalty" + ("" if value else ": no card to draw"),
                        effect(seat, value), attachable=True)
            elif kind == E.ESCAPED:
                add(f"nobody caught {who} (no UNO call)")
            elif kind == E.CAUGHT:
                add(f"{self.was(seat)} caught without UNO", effect(seat, value))
            elif kind == E.UNO:
                add(f"{who} called UNO!")
            elif kind == E.CHALLENGED:
                target = labels[self.wd4_player] if self.wd4_player >= 0 else "the player"
                add(f"{who} challenged the Wild Draw Four of {target}", attachable=True)
            elif kind == E.COLOR_CHOSEN:
                add(f"{who} chose colour {self.color(value)}", attachable=True)
            elif kind == E.DISCARDED:
                add(f"{who} discarded the villain {self.card(card)}")
            elif kind == E.SKIPPED:
                add(f"{self.was(seat)} skipped")
            elif kind == E.REVERSED:
                add("play now goes " + ("clockwise" if value > 0 else "counter-clockwise"))
            elif kind == E.ASKED:
                self.asker, self.offered = seat, False
                add(f"{who} asked the others for a card")
            elif kind == E.OFFERED:
                self.offered = True
                add(f"{who} offered {self.card(card)}")
            elif kind == E.TOOK:
                self.asker = -1
                add(f"{who} took {self.whose(value)} offer {self.card(card)}")
            elif kind == E.REVEALED:
                revealed.setdefault(seat, []).append(card)
            elif kind == E.RESHUFFLED:  # may come in the middle of a draw: keeps the attachment
                keep = attach
                add(f"the discards were reshuffled into a new DRAW pile of {_cards(value)}")
                attach = keep
            elif kind == E.ROUND_OVER:
                points = f" (+{value} points)" if self.standard_scoring else ""
                add(f"*** {who} went out and won round {self.round}{points}")
            elif kind == E.GAME_OVER:
                add(f"*** {who} won the game")
            else:
                raise ValueError(f"unknown event kind {kind!r}")
        for seat, shown in revealed.items():  # shown but not counted by a penalty (not expected)
            add(f"{labels[seat]} showed " + " ".join(self.card(k) for k in shown))
        return [text + (f" [{', '.join(eff)}]" if eff else "") for text, eff in entries]
