"""A readable view of one player's observation: what scripted bots decide on.

:func:`decode` turns the observation vector of :mod:`uno_env.game.observation` and the action
mask into a :class:`View` with plain Python fields (lists and ints), so a bot never indexes
the raw vector and never sees more than its player observes::

    view = decode(observation, action_mask)
    view.hand[kind], view.top, view.color, view.phase, view.legal
    view.next_opponent.hand_size, view.opponents[j - 1].known   # j seats to my left

Decoding is cheap (a few microseconds): the scalar fields are read eagerly, the per-opponent
known cards and open offers only when first asked for.
"""

from __future__ import annotations

import numpy as np

from uno_env.game import cards as C
from uno_env.game import observation as O
from uno_env.game.engine import NO_PENDING, PHASE_NAMES
from uno_env.game.observation import RULE_FLAG_NAMES

_NK = C.NUM_KINDS
PENDING_NAMES = ("draw2", "draw4", "sewers")


class RuleFlags:
    """The rule flags of the observation (``RULES`` block), as booleans."""

    __slots__ = RULE_FLAG_NAMES

    def __init__(self, values):
        for name, v in zip(RULE_FLAG_NAMES, values):
            setattr(self, name, bool(v))

    def __repr__(self) -> str:
        on = [name for name in RULE_FLAG_NAMES if getattr(self, name)]
        return f"RuleFlags({', '.join(on) or 'official'})"


_RULES_CACHE: dict[tuple, RuleFlags] = {}


class OpponentView:
    """One opponent, ``offset`` seats to my left (1 = the player on my left)."""

    __slots__ = ("offset", "hand_size", "score", "uno_called", "_view")

    def __init__(self, offset: int, hand_size: int, score: float, uno_called: bool, view: "View"):
        self.offset = offset
        self.hand_size = hand_size
        self.score = score  # score / target_score (multi-round episodes; 0 otherwise)
        self.uno_called = uno_called
        self._view = view

    @property
    def known(self) -> list[int]:
        """Counts per card kind of the cards known to be in this hand (56 entries)."""
        return self._view.known[self.offset - 1]

    @property
    def offer(self) -> int:
        """Card kind this opponent offers in the open offer window, or -1."""
        return self._view.offers[self.offset - 1]

    def __repr__(self) -> str:
        return (f"OpponentView(offset={self.offset}, hand_size={self.hand_size}, "
                f"uno_called={self.uno_called})")


class View:
    """One player's decoded observation (see :func:`decode`).

    Fields: ``hand`` (56 counts), ``hand_size``, ``top`` (kind), ``color`` (-1 before a
    first-card colour choice), ``phase`` (engine phase of my decision, -1 when I am not
    deciding), ``pending`` / ``pending_kind`` (0 / -1 when none; kinds 0 draw2, 1 draw4,
    2 sewers), ``direction`` (+1 clockwise, -1 counter-clockwise), ``draw_fraction``
    (DRAW size / deck size), ``played`` (56 counts since the last reshuffle),
    ``turn_offset`` (seats to my left of the player whose regular turn it is),
    ``uno_called``, ``score``, ``num_players``, ``opponents`` (``num_players - 1``
    :class:`OpponentView`, index j-1 = j seats to my left), ``rules`` (:class:`RuleFlags`),
    ``legal`` (legal action ids, ascending) and the lazily decoded ``known`` / ``offers``.
    """

    __slots__ = ("obs", "hand", "hand_size", "top", "color", "phase", "pending", "pending_kind",
                 "direction", "draw_fraction", "played", "turn_offset", "uno_called", "score",
                 "num_players", "opponents", "rules", "legal", "_known", "_known_any", "_offers")

    @property
    def top_face(self) -> int:
        """Face of the top card (``cards.NO_FACE`` for a wild)."""
        return C.FACE_OF[self.top]

    @property
    def next_offset(self) -> int:
        """Seats to my left of the player after me in the current direction."""
        return 1 if self.direction > 0 else self.num_players - 1

    @property
    def next_opponent(self) -> OpponentView:
        """The player who plays after me."""
        return self.opponents[self.next_offset - 1]

    @property
    def previous_opponent(self) -> OpponentView:
        """The player who played before me (the next player after a Reverse)."""
        return self.opponents[self.num_players - 1 - self.next_offset]

    @property
    def known(self) -> list[list[int]]:
        """Per opponent (index j-1 = j seats to my left), the known cards per kind."""
        if self._known is None:
            m = self.num_players - 1
            block = self.obs[O.OPPONENTS:O.OPPONENTS + m * O.OPP_FIELDS].reshape(m, O.OPP_FIELDS)
            known = block[:, O.OPP_KNOWN:O.OPP_OFFER]
            self._known_any = bool(known.any())
            if self._known_any:
                self._known = known.astype(np.int64).tolist()
            else:
                self._known = [[0] * _NK for _ in range(m)]
        return self._known

    @property
    def known_any(self) -> bool:
        """Whether any card is known to be in an opponent's hand (any entry of ``known``)."""
        if self._known is None:
            self.known
        return self._known_any

    @property
    def offers(self) -> list[int]:
        """Per opponent, the card kind of its open offer, or -1."""
        if self._offers is None:
            m = self.num_players - 1
            block = self.obs[O.OPPONENTS:O.OPPONENTS + m * O.OPP_FIELDS].reshape(m, O.OPP_FIELDS)
            offers = block[:, O.OPP_OFFER:O.OPP_OFFER + _NK]
            if self.rules.giving and offers.any():
                self._offers = [int(row.argmax()) if row.any() else -1 for row in offers]
            else:
                self._offers = [-1] * m
        return self._offers

    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase] if self.phase >= 0 else "waiting"

    def describe(self, colors: tuple[str, ...] = C.COLOR_SETS["classic"]) -> str:
        """A multi-line readable summary (card names with the deck's ``colors``)."""
        names = C.card_names(colors)
        hand = " ".join(names[k] for k in range(_NK) for _ in range(self.hand[k]))
        pend = (f"{self.pending} ({PENDING_NAMES[self.pending_kind]})" if self.pending_kind != NO_PENDING
                else "none")
        lines = [f"phase {self.phase_name()}  top {names[self.top]}  colour "
                 f"{colors[self.color] if self.color >= 0 else '-'}  pending {pend}  "
                 f"direction {'clockwise' if self.direction > 0 else 'counter-clockwise'}",
                 f"my hand ({self.hand_size}): {hand}" + ("  UNO" if self.uno_called else "")]
        for o in self.opponents:
            extra = ""
            known = o.known
            if any(known):
                extra += "  known: " + " ".join(names[k] for k in range(_NK) for _ in range(known[k]))
            if o.offer >= 0:
                extra += f"  offers {names[o.offer]}"
            lines.append(f"  +{o.offset}: {o.hand_size} cards{'  UNO' if o.uno_called else ''}{extra}")
        lines.append(f"rules: {self.rules!r}  players {self.num_players}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"View(phase={self.phase_name()!r}, top={self.top}, color={self.color}, "
                f"hand_size={self.hand_size})")


def _index1(values: list, start: int, stop: int, default: int) -> int:
    """Position (from ``start``) of the first 1 in ``values[start:stop]``, else ``default``."""
    seg = values[start:stop]
    return seg.index(1) if 1 in seg else default


def decode(observation: np.ndarray, action_mask: np.ndarray | None = None) -> View:
    """Decode an observation vector (and its action mask) into a :class:`View`."""
    obs = observation
    v = View.__new__(View)
    v.obs = obs
    # hand, top, colour, phase, pending, direction, played, turn are integers in the vector
    ints = obs[:O.SELF].astype(np.int64).tolist()
    hand = ints[O.HAND:O.HAND + _NK]
    v.hand = hand
    v.hand_size = sum(hand)
    v.top = ints.index(1, O.TOP, O.TOP + _NK) - O.TOP
    v.color = _index1(ints, O.COLOR, O.COLOR + C.NUM_COLORS, -1)
    v.phase = _index1(ints, O.PHASE, O.PHASE + O.NUM_PHASES, -1)
    v.pending = ints[O.PENDING]
    v.pending_kind = _index1(ints, O.PENDING_KIND, O.DIRECTION, NO_PENDING)
    v.direction = -1 if ints[O.DIRECTION] else 1
    v.draw_fraction = float(obs[O.DRAW_SIZE])
    v.played = ints[O.PLAYED:O.PLAYED + _NK]
    v.turn_offset = _index1(ints, O.TURN, O.SELF, 0)
    v.uno_called = bool(obs[O.SELF])
    v.score = float(obs[O.SELF_SCORE])
    flags = obs[O.RULES:O.V0_SIZE].tolist()
    n = int(round(flags[-1] * O.MAX_PLAYERS))
    v.num_players = n
    key = tuple(flags[:-1])
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = _RULES_CACHE[key] = RuleFlags(key)
    v.rules = rules
    m = n - 1
    stop = O.OPPONENTS + m * O.OPP_FIELDS
    # hand size, score, UNO flag: the fields before the known cards
    fields = obs[O.OPPONENTS:stop].reshape(m, O.OPP_FIELDS)[:, O.OPP_HAND_SIZE:O.OPP_KNOWN].tolist()
    v.opponents = [OpponentView(j + 1, int(size), score, uno > 0, v) for j, (size, score, uno) in enumerate(fields)]
    v.legal = action_mask.nonzero()[0].tolist() if action_mask is not None else []
    v._known = None
    v._offers = None
    return v
