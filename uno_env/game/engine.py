"""The UNO rules engine: pure game logic, no agents, spaces or rewards.

Implements ``RULES.md`` sections 2-8 for every preset (``classic``, ``tmnt``, ``house``)
through the options of :class:`uno_env.game.rules.Rules`. The API is small::

    engine = Engine(rules, num_players, record_events=False)
    state = engine.new_state(rng, deck=None, dealer=None)   # shuffle (or stack) and deal
    engine.legal_actions(state) -> list[int]                # for state.actor, in state.phase
    engine.step(state, action)                              # ValueError if illegal
    engine.returns(state) -> list[float]                    # per seat: +1 / -1/(n-1) at the end
    engine.truncated(state) -> bool                         # cut at rules.max_steps decisions
    state.game_over, state.winner, state.scores, state.events, ...

Every decision is a *phase* with its own legal actions (ids in :mod:`uno_env.game.actions`);
``state.actor`` is the seat that decides next. ``legal_actions`` and ``step`` dispatch by
phase to one pair of methods per phase, ``_legal_<phase>`` / ``_apply_<phase>``, which sit
side by side below in the order of this table (a UNO call, legal in several phases, is
applied by ``step`` itself). ``returns`` is the only place rewards are computed and
``truncated`` the only place the step cap is decided: the env adapters call them.

With ``record_events`` the engine appends the public events of every decision to
``state.events`` (:mod:`uno_env.game.events`: plays, draws as counts, penalties, challenges'
outcomes, round ends ...); readers keep an index into that list. Without it ``state.events``
is None and every append sits behind an ``if s.events is not None`` guard: a null sink (an
object whose ``add`` does nothing) made the engine 2-4% slower (``bench/bench_env.py --clock
cpu``, interleaved), as the call costs more than the test.

========== ==================================================================
phase      decision of ``state.actor``
========== ==================================================================
TURN       a turn: play a matching card, ``draw``, ``uno``, ``ask``; with a pending
           stacked penalty (stacking): stack the same kind or ``draw`` (take it all)
DRAWN      after drawing (or taking an offer of) a playable card: play it, or
           ``pass`` (keep it; after a taken offer: ``draw`` by the draw rule)
CHALLENGE  victim of a Wild Draw Four: ``challenge`` or ``draw`` (or stack one)
COLOR      colour choice for a wild turned up as first card
DISCARD    after a Team Attack: ``discard`` a villain (up to three) or ``pass``
CATCH      explicit UNO: a player did not call UNO; each other player ``catch``/``pass``
JUMP       jump-in: a player holding a card identical to the top plays it or ``pass``
OFFER      giving cards: each other player with 2+ cards ``offer``\\s a card or ``pass``
TAKE       giving cards: the asker ``take``\\s one offer or ``pass``
OVER       the episode is over (no decision)
========== ==================================================================

Decisions taken where RULES.md leaves room (all documented there or here):

* Windows (CATCH, JUMP, OFFER) ask players one at a time in seat order from the next
  player; the answers are stored and resolved only when everyone has answered, so no
  player's observation shows another's answer. After a card is played the CATCH window
  (if the player did not call UNO) comes first, then the JUMP window, then the card's
  effect reaches the next player.
* The effect of a card waits until its windows close: a jump-in onto a Draw Two / Draw
  Four / SEWERS adds to the pending count (with or without ``stacking``); a jump-in Skip
  still skips one player; each jump-in Reverse reverses again.
* A player facing a stacked penalty that it cannot stack (and cannot challenge) takes it
  automatically: there is no decision to make.
* A wild kind turned up as the first card (Wild, Team Attack, or with stacking a Wild
  Draw Four, SEWERS) first lets the first player choose the colour; then its effect
  applies to that player. Without stacking a first Wild Draw Four goes back into the DRAW
  pile, which is reshuffled, and a new card is turned.
* ``uno`` may be called with two cards in hand in any phase where the actor may play.
  ``state.uno_called[p]`` is cleared whenever ``p`` receives cards, and when ``p``'s turn
  ends with 2 or more cards in hand (a call not followed by a play lapses). A call made in a JUMP
  window is a hidden answer: it takes effect only if that player's jump-in is the one
  played (a public flag would show who was asked).
* Next round (``episode`` ``game``/``rounds``): the deal passes left; with
  ``winner_starts`` the dealer is the seat to the right of the previous winner, so the
  winner is the first player and a first-card effect treats it as such (a first Skip or
  Draw Two skips it; a first Reverse lets the dealer, to its right, start).
* Without stacking, a first Wild Draw Four is turned back only while the DRAW pile holds
  another card kind; otherwise it stays (first player chooses the colour, draws four).
* When both piles are empty a player who must draw draws nothing.
* With stacking, a challenge of the last Wild Draw Four of a stack judges the whole pending
  count (option ``stacked_challenge="whole"``, RULES.md 5) or only that card (``"last"``: a
  guilty player draws 4 and the challenger still takes the rest of the stack).

**Public history** (``state.history``, one row per seat, columns ``H_*``; reset at every
deal): what every player saw each seat do this round, for the observation's HISTORY block.
A turn's draw (``draw``, drawing until playable, a taken offer not played) sets the seat's
*drew-on* flags for the current colour and the top card's face; a card it plays (or a Team
Attack villain it discards) clears the flags of its colour and face; cards it receives any
other way (a penalty, a catch, SEWERS, a taken offer) clear all its flags. ``H_RECEIVED``
counts the cards it received since its last play; ``H_LAST`` is the kind of its last public
action (``LAST_*`` table); ``H_LEFT`` the colour its last play changed away from.
``state.wd4_color`` is the colour current before the challengeable Wild Draw Four. All of it
is public: only actions and counts every player sees update it (a window's hidden answers
never do), at the cost of a few array writes per play or draw. Keeping a drawn card (``pass``
in phase ``drawn``) is not a public action: the drawer's last action stays "drew" and no
event is recorded, so the others cannot tell a playable card kept from an unplayable one.
(With explicit UNO calls a player down to 2 cards may call UNO in that phase, a public call as
in any turn; calling and then keeping the card tells the table it was playable: the player's
own choice, as at a real table.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import events as E
from uno_env.game.events import Event
from uno_env.game.rules import Rules

# Phases.
TURN, DRAWN, CHALLENGE, COLOR, DISCARD, CATCH, JUMP, OFFER, TAKE, OVER = range(10)
PHASE_NAMES = ("turn", "drawn", "challenge", "color", "discard", "catch", "jump", "offer",
               "take", "over")
NUM_PHASES = len(PHASE_NAMES)

# Kinds of pending penalty (the card kind that stacks on it).
NO_PENDING = -1
PENDING_DRAW2 = 0
PENDING_DRAW4 = 1
PENDING_SEWERS = 2
NUM_PENDING_KINDS = 3

# Kinds of a seat's last public action (``State.history[seat, H_LAST]``; the observation's
# HISTORY block shows them one-hot). Window answers (catch, jump-in passes, offers), UNO
# calls, first-card colour choices and Team Attack discards do not change it.
LAST_NONE = 0  # no action of its own this round yet
LAST_PLAYED = 1  # played a coloured card from its hand (in its turn or jumping in)
LAST_WILD = 2  # played a wild card from its hand (Wild, Wild Draw Four, Team Attack, SEWERS)
LAST_PLAYED_DRAWN = 3  # played the card it had just drawn (or taken)
LAST_DREW = 4  # drew in its turn (by the draw rule) and did not play the card (yet)
LAST_RESERVED = 5  # never set: a drawn card kept is private (RULES.md section 9); the index
#                   stays reserved so that the observation's one-hot block does not move
LAST_PENALTY = 6  # its turn went to a penalty it took (Draw Two, Draw Four, SEWERS, a stack)
LAST_DECLINED = 7  # took a Wild Draw Four without challenging it
LAST_CHALLENGED = 8  # challenged a Wild Draw Four
LAST_NAMES = ("none", "played", "wild", "played_drawn", "drew", "retired", "penalty", "declined", "challenged")
NUM_LAST_KINDS = len(LAST_NAMES)

# Columns of ``State.history`` (one row per seat): the public history of that seat this round.
H_DREW_ON_COLOR = 0  # 4 flags: it drew in its turn while colour c was current and has not
#                      played a card of colour c since nor received cards any other way
H_DREW_ON_FACE = H_DREW_ON_COLOR + C.NUM_COLORS  # 13 flags: the same for the face of the top card (a coloured top)
H_RECEIVED = H_DREW_ON_FACE + C.NUM_FACES  # cards it received (drew, penalties, taken) since its last play
H_LAST = H_RECEIVED + 1  # its last public action, LAST_*
H_LEFT = H_LAST + 1  # the colour its last play left (the colour before it, when the play changed it), -1
NUM_HISTORY_COLUMNS = H_LEFT + 1

# --- precomputed bit tables over card kinds ---
_ALL_WILD_BITS = sum(1 << w for w in C.WILD_KINDS)
COLOR_BITS = tuple(sum(1 << C.kind_of(c, f) for f in range(C.NUM_FACES)) for c in range(C.NUM_COLORS))
FACE_BITS = tuple(sum(1 << C.kind_of(c, f) for c in range(C.NUM_COLORS)) for f in range(C.NUM_FACES)) + (0,)
# PLAYABLE_BITS[color][top_face]: kinds playable on that colour and face (wilds included).
PLAYABLE_BITS = tuple(tuple(COLOR_BITS[c] | FACE_BITS[f] | _ALL_WILD_BITS for f in range(C.NUM_FACES + 1))
                      for c in range(C.NUM_COLORS))
STACK_BITS = (FACE_BITS[C.FACE_DRAW2], 1 << C.WILD_DRAW4, 1 << C.SEWERS)
_PENDING_OF_KIND = {C.WILD_DRAW4: PENDING_DRAW4, C.SEWERS: PENDING_SEWERS}
_COLOR_IDS = tuple(A.color_action(c) for c in range(C.NUM_COLORS))
_PLAY_IDS = tuple((k,) if k < C.NUM_COLORED else tuple(A.play_action(k, c) for c in range(C.NUM_COLORS))
                  for k in range(C.NUM_KINDS))


def new_history(n: int) -> np.ndarray:
    """The public history of ``n`` seats at the start of a round (``State.history``)."""
    h = np.zeros((n, NUM_HISTORY_COLUMNS), np.int32)
    h[:, H_LEFT] = -1
    return h


def iter_bits(bits: int):
    """Yield the indices of the set bits of ``bits`` in increasing order."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


@dataclass(eq=False)
class State:
    """The whole state of an episode. Seats are 0..n-1; seat i+1 is left of seat i."""

    n: int  # number of players
    rng: np.random.Generator  # the env's one RNG (shuffles, random picks)
    hands: np.ndarray  # (n, NUM_KINDS) int16: count of each card kind in each hand
    held: list  # per seat: bitset over kinds, bit k set iff hands[seat, k] > 0
    hand_size: list  # per seat: number of cards
    draw_pile: list  # card kinds; the top (next card drawn) is the LAST element
    discard: list  # card kinds; the top card is the LAST element
    played: np.ndarray  # (NUM_KINDS,) int16: cards of each kind played since the last reshuffle
    known: np.ndarray  # (n, n, NUM_KINDS) int16: [observer, seat, kind] cards the observer knows seat holds
    history: np.ndarray  # (n, NUM_HISTORY_COLUMNS) int32: each seat's public history this round (H_* columns)
    known_any: bool = False  # any entry of `known` non-zero (skips work in the hot path)
    color: int = -1  # current colour index (-1: not chosen yet)
    direction: int = 1  # +1 clockwise (increasing seats), -1 counter-clockwise
    dealer: int = 0
    turn: int = 0  # seat whose regular turn it is (or who played last)
    actor: int = 0  # seat that decides now
    phase: int = TURN
    pending: int = 0  # pending penalty: cards to draw (SEWERS: number of SEWERS stacked)
    pending_kind: int = NO_PENDING
    skip: bool = False  # the card being resolved skips the next player
    last_player: int = -1  # seat that played the card being resolved
    wd4_player: int = -1  # seat that played the challengeable Wild Draw Four (-1: none)
    wd4_guilty: bool = False  # that player held a card of the colour current before it
    wd4_color: int = -1  # the colour current before that Wild Draw Four (public; what a challenge judges)
    drawn: int = -1  # DRAWN phase: the card kind that may be played
    drawn_from_offer: bool = False  # DRAWN phase: the card came from an offer (alternative: draw)
    asked: bool = False  # the turn player has asked for cards this turn
    discards_left: int = 0  # DISCARD phase: villains that may still be discarded
    queue: list = field(default_factory=list)  # window: seats still to answer (next first)
    answers: list = field(default_factory=list)  # window: (seat, action) of players who acted
    offers: list = field(default_factory=list)  # per seat: kind offered in the open offer window, -1 none
    uno_called: list = field(default_factory=list)  # per seat: UNO called for the current hand
    offender: int = -1  # CATCH window: the seat that did not call UNO
    scores: list = field(default_factory=list)  # per seat: game score (alternative scoring: tally)
    round: int = 0  # rounds finished in this episode
    round_points: list = field(default_factory=list)  # per seat: points of the last finished round
    round_winner: int = -1  # winner of the last finished round
    steps: int = 0  # decisions taken in this episode
    turns: int = 0  # regular turns begun in this episode
    game_over: bool = False
    winner: int = -1  # winner of the episode (-1 while running)
    legal_cache: list | None = None  # legal actions of the current decision, or None
    events: list | None = None  # public events (uno_env.game.events), when the engine records them

    def clone(self, rng: np.random.Generator | None = None) -> "State":
        """A copy the engine can play on without touching this state: every array and list
        copied (their items are immutable), the legal-action cache dropped, and ``rng`` as
        its generator (default: this state's generator object, shared). Every field is either
        copied here or holds an immutable value; ``tests/game/test_state.py`` checks both for
        every field, so a new mutable field must be copied here."""
        t = State.__new__(State)
        t.__dict__.update(self.__dict__)
        t.hands = self.hands.copy()
        t.held = list(self.held)
        t.hand_size = list(self.hand_size)
        t.draw_pile = list(self.draw_pile)
        t.discard = list(self.discard)
        t.played = self.played.copy()
        t.known = self.known.copy()
        t.history = self.history.copy()
        t.queue = list(self.queue)
        t.answers = list(self.answers)
        t.offers = list(self.offers)
        t.uno_called = list(self.uno_called)
        t.scores = list(self.scores)
        t.round_points = list(self.round_points)
        t.legal_cache = None
        if self.events is not None:
            t.events = list(self.events)
        if rng is not None:
            t.rng = rng
        return t


class Engine:
    """The rules of one ruleset for a fixed number of players."""

    def __init__(self, rules: Rules, num_players: int, record_events: bool = False):
        if not isinstance(num_players, (int, np.integer)) or isinstance(num_players, bool) \
                or not 2 <= num_players <= 10:
            raise ValueError(f"num_players must be an integer in 2..10, got {num_players!r}")
        self.rules = rules
        self.n = int(num_players)
        self.deck_counts = rules.deck_counts()
        self.deck = [k for k in range(C.NUM_KINDS) for _ in range(self.deck_counts[k])]
        if len(self.deck) < self.n * rules.hand_size + 1:
            raise ValueError(f"a deck of {len(self.deck)} cards cannot deal {rules.hand_size} cards "
                             f"to {self.n} players")
        self.villain_bits = sum(1 << k for k in rules.villain_kinds())
        self.points = [C.card_points(k, rules.sewers_points) for k in range(C.NUM_KINDS)]
        self.explicit_uno = rules.uno_call == "explicit"
        self.record_events = bool(record_events)
        # per-phase method pairs, indexed by phase (the order of the phase table)
        self._legal_by_phase = (self._legal_turn, self._legal_drawn, self._legal_challenge,
                                self._legal_color, self._legal_discard, self._legal_catch,
                                self._legal_jump, self._legal_offer, self._legal_take, self._legal_over)
        self._apply_by_phase = (self._apply_turn, self._apply_drawn, self._apply_challenge,
                                self._apply_color, self._apply_discard, self._apply_catch,
                                self._apply_jump, self._apply_offer, self._apply_take, self._apply_over)

    # ------------------------------------------------------------------ set-up
    def new_state(self, rng: np.random.Generator, deck: list[int] | None = None,
                  dealer: int | None = None) -> State:
        """A new episode: shuffle (or take ``deck``, kinds top first) and deal round 1."""
        n = self.n
        if deck is not None:
            self.check_deck(deck)
        if dealer is None:
            dealer = self.draw_dealer(rng)
        elif isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be an integer seat in 0..{n - 1}, got {dealer!r}")
        s = State(n=n, rng=rng, hands=np.zeros((n, C.NUM_KINDS), np.int16), held=[0] * n,
                  hand_size=[0] * n, draw_pile=[], discard=[],
                  played=np.zeros(C.NUM_KINDS, np.int16),
                  known=np.zeros((n, n, C.NUM_KINDS), np.int16), history=new_history(n),
                  offers=[-1] * n, uno_called=[False] * n, scores=[0] * n, round_points=[0] * n,
                  events=[] if self.record_events else None)
        self._deal(s, list(deck) if deck is not None else None, dealer)
        return s

    def draw_dealer(self, rng: np.random.Generator) -> int:
        """A uniformly random dealer (RULES.md 2.1), as ``new_state`` draws it."""
        return int(rng.integers(self.n))

    def shuffled_deck(self, rng: np.random.Generator) -> list[int]:
        """The full deck in a random order (kinds, top first), as ``new_state`` shuffles it."""
        order = list(self.deck)
        rng.shuffle(order)
        return order

    def check_deck(self, deck: list[int]) -> None:
        """``ValueError`` unless ``deck`` (kinds) is exactly this ruleset's deck."""
        counts = [0] * C.NUM_KINDS
        for k in deck:
            if not 0 <= k < C.NUM_KINDS:
                raise ValueError(f"deck holds an unknown card kind {k}")
            counts[k] += 1
        if counts != self.deck_counts:
            names = C.card_names(self.rules.color_names)
            extra = [f"{names[k]} x{counts[k] - self.deck_counts[k]}" for k in range(C.NUM_KINDS)
                     if counts[k] > self.deck_counts[k]]
            missing = [f"{names[k]} x{self.deck_counts[k] - counts[k]}" for k in range(C.NUM_KINDS)
                       if counts[k] < self.deck_counts[k]]
            raise ValueError(f"deck is not the {self.rules.name!r} deck of {len(self.deck)} cards "
                             f"(got {len(deck)}): extra {extra[:8] or 'none'}, missing {missing[:8] or 'none'}")

    def _deal(self, s: State, order: list[int] | None, dealer: int) -> None:
        n, r = s.n, self.rules
        if order is None:
            order = self.shuffled_deck(s.rng)
        s.hands[:] = 0
        s.held = [0] * n
        s.hand_size = [0] * n
        s.known[:] = 0
        s.known_any = False
        s.played[:] = 0
        s.uno_called = [False] * n
        s.offers = [-1] * n
        s.direction, s.dealer = 1, dealer
        s.pending, s.pending_kind, s.skip = 0, NO_PENDING, False
        s.wd4_player, s.wd4_color, s.drawn, s.drawn_from_offer = -1, -1, -1, False
        pos = 0
        for _ in range(r.hand_size):
            for j in range(n):
                self._add(s, (dealer + 1 + j) % n, order[pos])
                pos += 1
        s.history[:] = 0  # a new round: no public history (after the deal, which _add counts)
        s.history[:, H_LEFT] = -1
        first = order[pos]
        s.draw_pile = order[:pos:-1]  # the rest, top (next card drawn) last
        s.discard = []
        first_player = (dealer + 1) % n
        # a first Wild Draw Four goes back into the deck, which is reshuffled, and a new card is
        # turned (unless only Wild Draw Fours are left: then it stays, as a first wild)
        while first == C.WILD_DRAW4 and not r.stacking and any(k != C.WILD_DRAW4 for k in s.draw_pile):
            s.draw_pile.append(first)
            s.rng.shuffle(s.draw_pile)
            first = s.draw_pile.pop()
        s.discard.append(first)
        s.played[first] += 1
        s.last_player = dealer
        s.turn = first_player
        s.legal_cache = None
        if s.events is not None:
            s.events.append(Event(E.DEALT, dealer, first, s.round + 1))
        if C.is_wild(first):
            s.color = -1
            s.phase, s.actor = COLOR, first_player
            return
        s.color = C.color_of(first)
        face = C.face_of(first)
        if face == C.FACE_SEVEN and r.seven_slap:
            self._slap(s, -1, first_player)
        if face == C.FACE_DRAW2:
            s.pending, s.pending_kind = 2, PENDING_DRAW2
            self._face_penalty(s, first_player)
        elif face == C.FACE_SKIP or (face == C.FACE_REVERSE and n == 2 and r.two_player_reverse_skips):
            if s.events is not None:
                s.events.append(Event(E.SKIPPED, first_player))
            self._start_turn(s, self._next(s, first_player))
        elif face == C.FACE_REVERSE:
            s.direction = -1
            if s.events is not None:
                s.events.append(Event(E.REVERSED, -1, -1, -1))
            self._start_turn(s, dealer)
        else:
            self._start_turn(s, first_player)

    # ------------------------------------------------------------------ card movement
    # (``item`` reads a Python int: half the time of numpy's scalar arithmetic in these hot paths)
    def _add(self, s: State, p: int, k: int) -> None:
        hands, history = s.hands, s.history
        hands[p, k] = hands.item(p, k) + 1
        s.held[p] |= 1 << k
        s.hand_size[p] += 1
        s.uno_called[p] = False
        history[p, H_RECEIVED] = history.item(p, H_RECEIVED) + 1

    def _remove(self, s: State, p: int, k: int) -> None:
        hands = s.hands
        count = hands.item(p, k) - 1
        hands[p, k] = count
        if count == 0:
            s.held[p] &= ~(1 << k)
        s.hand_size[p] -= 1
        if s.known_any:  # one fewer k known by whoever knew one (a loop: 3x numpy's speed here)
            col = s.known[:, p, k]
            for o, c in enumerate(col.tolist()):
                if c:
                    col[o] = c - 1

    def _reveal(self, s: State, p: int, k: int) -> None:
        """Card ``k`` in ``p``'s hand becomes known to every other player."""
        col = s.known[:, p, k]
        col += 1
        col[p] = 0
        s.known_any = True

    def _draw_one(self, s: State, p: int) -> int:
        """Move the top of DRAW to ``p``'s hand (reshuffling if needed); the kind, or -1."""
        if not s.draw_pile:
            if len(s.discard) <= 1:
                return -1
            top = s.discard.pop()
            s.draw_pile = s.discard
            s.rng.shuffle(s.draw_pile)
            s.discard = [top]
            s.played[:] = 0
            s.played[top] = 1
            if s.events is not None:
                s.events.append(Event(E.RESHUFFLED, -1, -1, len(s.draw_pile)))
        k = s.draw_pile.pop()
        self._add(s, p, k)
        return k

    def _draw(self, s: State, p: int, count: int) -> None:
        """``p`` draws ``count`` cards outside its turn's draw (a penalty): once a card arrives,
        its drew-on flags clear (the new cards may be of any colour and face)."""
        for i in range(count):
            if self._draw_one(s, p) < 0:
                break
            if i == 0:
                s.history[p, H_DREW_ON_COLOR:H_RECEIVED] = 0

    def _draw_penalty(self, s: State, p: int, count: int) -> None:
        """``p`` draws ``count`` cards as a penalty (a ``PENALTY`` event with the cards drawn)."""
        before = s.hand_size[p]
        self._draw(s, p, count)
        if s.events is not None:
            s.events.append(Event(E.PENALTY, p, -1, s.hand_size[p] - before))

    def _take_pending(self, s: State, victim: int) -> None:
        """``victim`` draws the pending penalty; the count resets."""
        if s.pending_kind == PENDING_SEWERS:
            before = s.hand_size[victim]
            self._sewers_draw(s, victim, s.pending)
            if s.events is not None:
                s.events.append(Event(E.PENALTY, victim, -1, s.hand_size[victim] - before))
        else:
            self._draw_penalty(s, victim, s.pending)
        s.history[victim, H_LAST] = LAST_PENALTY
        s.pending, s.pending_kind, s.wd4_player = 0, NO_PENDING, -1

    def _sewers_draw(self, s: State, p: int, k: int) -> None:
        """Draw until holding at least ``k`` cards of each colour; the drawn cards are shown."""
        per_color = [int(s.hands[p, c * C.NUM_FACES:(c + 1) * C.NUM_FACES].sum()) for c in range(C.NUM_COLORS)]
        while min(per_color) < k:
            card = self._draw_one(s, p)
            if card < 0:
                return
            s.history[p, H_DREW_ON_COLOR:H_RECEIVED] = 0
            self._reveal(s, p, card)
            if s.events is not None:
                s.events.append(Event(E.REVEALED, p, card))
            if card < C.NUM_COLORED:
                per_color[card // C.NUM_FACES] += 1

    def _playable(self, s: State, p: int, k: int) -> bool:
        if not (PLAYABLE_BITS[s.color][C.FACE_OF[s.discard[-1]]] >> k) & 1:
            return False
        return k != C.WILD_DRAW4 or self.rules.wd4_bluff or not s.held[p] & COLOR_BITS[s.color]

    # ------------------------------------------------------------------ turn flow
    def _next(self, s: State, p: int) -> int:
        return (p + s.direction) % s.n

    def _order_from_next(self, s: State, p: int) -> list[int]:
        """Every other seat, in play order starting with the next player after ``p``."""
        return [(p + s.direction * i) % s.n for i in range(1, s.n)]

    def _start_turn(self, s: State, p: int) -> None:
        prev = s.turn
        if s.uno_called[prev] and s.hand_size[prev] >= 2:  # a call not followed by a play lapses
            s.uno_called[prev] = False
        s.turn = s.actor = p
        s.phase = TURN
        s.asked = False
        s.drawn, s.drawn_from_offer = -1, False
        if self.rules.giving:
            s.offers = [-1] * s.n
        s.turns += 1

    def _face_penalty(self, s: State, victim: int) -> None:
        """The pending penalty reaches ``victim``: challenge, stack, or take it."""
        if s.pending_kind == PENDING_DRAW4 and self.rules.challenge and s.wd4_player >= 0:
            s.turn = s.actor = victim
            s.phase = CHALLENGE
            s.asked, s.drawn = False, -1
        elif self.rules.stacking and self._can_stack(s, victim):
            self._start_turn(s, victim)
        else:
            self._take_pending(s, victim)
            self._start_turn(s, self._next(s, victim))

    def _can_stack(self, s: State, p: int) -> bool:
        bits = s.held[p] & STACK_BITS[s.pending_kind]
        if bits == 1 << C.WILD_DRAW4 and not self.rules.wd4_bluff and s.held[p] & COLOR_BITS[s.color]:
            return False
        return bool(bits)

    def _play(self, s: State, p: int, k: int, color: int, jumped_in: bool = False) -> None:
        """``p`` plays card ``k`` (choosing ``color`` for a wild) from its hand."""
        r = self.rules
        prev_color = s.color
        h = s.history[p]
        h[H_LAST] = LAST_PLAYED_DRAWN if s.phase == DRAWN else LAST_PLAYED if k < C.NUM_COLORED else LAST_WILD
        h[H_RECEIVED] = 0
        self._remove(s, p, k)
        s.discard.append(k)
        s.played[k] = s.played.item(k) + 1
        s.last_player = s.turn = p
        if k < C.NUM_COLORED:
            s.color = k // C.NUM_FACES
            face = k % C.NUM_FACES
            h[H_DREW_ON_COLOR + s.color] = 0
            h[H_DREW_ON_FACE + face] = 0
            if face == C.FACE_DRAW2:
                s.pending += 2
                s.pending_kind = PENDING_DRAW2
            elif face == C.FACE_SKIP:
                s.skip = True
            elif face == C.FACE_REVERSE:
                if s.n == 2 and r.two_player_reverse_skips:
                    s.skip = True
                else:
                    s.direction = -s.direction
            if s.events is not None:
                s.events.append(Event(E.JUMPED_IN if jumped_in else E.PLAYED, p, k, s.color))
                if face == C.FACE_REVERSE and not s.skip:
                    s.events.append(Event(E.REVERSED, -1, -1, s.direction))
            if face == C.FACE_SEVEN and r.seven_slap:
                self._slap(s, p, p)
        else:
            s.color = color
            if s.events is not None:
                s.events.append(Event(E.JUMPED_IN if jumped_in else E.PLAYED, p, k, color))
            if k == C.WILD_DRAW4:
                s.pending += 4
                s.pending_kind = PENDING_DRAW4
                s.wd4_player = p
                s.wd4_color = prev_color
                s.wd4_guilty = bool(s.held[p] & COLOR_BITS[prev_color])
            elif k == C.SEWERS:
                s.pending += 1
                s.pending_kind = PENDING_SEWERS
        h[H_LEFT] = prev_color if prev_color != s.color else -1
        if s.hand_size[p] == 0:
            self._end_round(s, p)
        elif k == C.TEAM_ATTACK and s.held[p] & self.villain_bits:
            s.phase, s.actor, s.discards_left = DISCARD, p, 3
        else:
            self._after_play(s)

    def _slap(self, s: State, player: int, first: int) -> None:
        """SEVEN slap: the slowest player draws one card per 7 in a row on the pile."""
        sevens = 0
        for k in reversed(s.discard):
            if k >= C.NUM_COLORED or k % C.NUM_FACES != C.FACE_SEVEN:
                break
            sevens += 1
        others = [q for q in range(s.n) if q != player]
        if self.rules.seven_slap_random:
            victim = others[int(s.rng.integers(len(others)))]
        else:
            victim = self._next(s, first) if player >= 0 else first
        self._draw_penalty(s, victim, sevens)

    def _after_play(self, s: State) -> None:
        """A card has been played: open the catch window, then the jump-in window."""
        p = s.last_player
        if s.hand_size[p] == 1 and not s.uno_called[p]:
            if self.explicit_uno:
                s.offender = p
                self._open_window(s, CATCH, self._order_from_next(s, p))
                return
            s.uno_called[p] = True  # auto mode: the call is made for the player
            if s.events is not None:
                s.events.append(Event(E.UNO, p))
        self._open_jump(s)

    def _open_window(self, s: State, phase: int, queue: list[int]) -> None:
        s.phase, s.queue, s.answers = phase, queue, []
        s.actor = queue[0]

    def _open_jump(self, s: State) -> None:
        if self.rules.jump_in:
            top = s.discard[-1]
            queue = [q for q in self._order_from_next(s, s.last_player) if s.held[q] >> top & 1
                     and (top != C.WILD_DRAW4 or self._playable(s, q, top))]  # wd4_bluff off
            if queue:
                self._open_window(s, JUMP, queue)
                return
        self._resolve(s)

    def _resolve(self, s: State) -> None:
        """The played card's effect reaches the next player; the next turn begins."""
        nxt = self._next(s, s.last_player)
        if s.skip:
            s.skip = False
            if s.events is not None:
                s.events.append(Event(E.SKIPPED, nxt))
            self._start_turn(s, self._next(s, nxt))
        elif s.pending:
            self._face_penalty(s, nxt)
        else:
            self._start_turn(s, nxt)

    def _draw_for_turn(self, s: State, p: int) -> None:
        """``p`` draws by the draw rule; a playable card may then be played (DRAWN)."""
        until_playable = self.rules.draw_rule == "until_playable"
        h = s.history[p]
        h[H_LAST] = LAST_DREW
        if s.color >= 0:  # always set in a turn
            h[H_DREW_ON_COLOR + s.color] = 1
        face = C.FACE_OF[s.discard[-1]]
        if face != C.NO_FACE:
            h[H_DREW_ON_FACE + face] = 1
        drew = 0
        while True:
            k = self._draw_one(s, p)
            if k < 0:
                break
            drew += 1
            if self._playable(s, p, k):
                if s.events is not None:
                    s.events.append(Event(E.DREW, p, -1, drew))
                s.phase, s.actor, s.drawn, s.drawn_from_offer = DRAWN, p, k, False
                return
            if not until_playable:
                break
        if s.events is not None:
            s.events.append(Event(E.DREW, p, -1, drew))
        self._start_turn(s, self._next(s, p))

    def _end_round(self, s: State, winner: int) -> None:
        r = self.rules
        if s.pending:  # a last Draw Two / Draw Four / SEWERS still hits the next player
            self._take_pending(s, self._next(s, winner))
        left = [int(np.dot(s.hands[q], self.points)) for q in range(s.n)]
        s.round_points = [0] * s.n
        if r.scoring == "standard":
            s.round_points[winner] = sum(left)
            s.scores[winner] += sum(left)
        else:
            s.round_points = left
            s.scores = [a + b for a, b in zip(s.scores, left)]
        s.round += 1
        s.round_winner = winner
        if s.events is not None:
            s.events.append(Event(E.ROUND_OVER, winner, -1, sum(left) - left[winner]))
        if r.episode == "round" or (r.episode == "rounds" and s.round >= r.num_rounds):
            over, champion = True, winner
            if r.episode == "rounds":
                best = max(s.scores) if r.scoring == "standard" else min(s.scores)
                champion = s.scores.index(best)
        elif r.episode == "rounds":  # a fixed number of rounds: target_score does not end it
            over, champion = False, winner
        elif r.scoring == "standard":
            over, champion = s.scores[winner] >= r.target_score, winner
        else:
            over = max(s.scores) >= r.target_score
            champion = s.scores.index(min(s.scores))
        if over:
            s.game_over, s.winner = True, champion
            s.phase, s.actor = OVER, -1
            if s.events is not None:
                s.events.append(Event(E.GAME_OVER, champion))
            return
        dealer = (winner - 1) % s.n if r.winner_starts else (s.dealer + 1) % s.n
        self._deal(s, None, dealer)

    # ------------------------------------------------------------------ decisions
    def legal_actions(self, s: State) -> list[int]:
        """Legal action ids of ``s.actor`` in the current phase (never empty before OVER),
        ascending. Dispatches to the phase's ``_legal_<phase>``."""
        if s.legal_cache is None:  # each _legal_<phase> builds its list in ascending order
            s.legal_cache = self._legal_by_phase[s.phase](s, s.actor)
        return s.legal_cache

    def step(self, s: State, action: int) -> None:
        """Apply ``action`` for ``s.actor``. ``ValueError`` (state unchanged) if it is illegal.
        A UNO call is handled here for every phase; everything else by ``_apply_<phase>``."""
        if s.game_over:
            raise ValueError("the episode is over; reset before stepping")
        legal = s.legal_cache
        if legal is None:  # legal_actions, inlined (usually cached by the mask's call)
            legal = self.legal_actions(s)
        if action not in legal:
            raise ValueError(f"illegal action {action} ({self.describe(action)}) in phase "
                             f"{PHASE_NAMES[s.phase]!r} for seat {s.actor}; legal: {legal}")
        s.legal_cache = None
        s.steps += 1
        if action == A.UNO:
            self._call_uno(s, s.actor)
        else:
            self._apply_by_phase[s.phase](s, s.actor, action)

    def _may_call_uno(self, s: State, p: int) -> bool:
        return self.explicit_uno and s.hand_size[p] == 2 and not s.uno_called[p]

    def _call_uno(self, s: State, p: int) -> None:
        if s.phase == JUMP:  # kept with the hidden answers: a public flag would show who was asked
            s.answers.append((p, A.UNO))
            return
        s.uno_called[p] = True
        if s.events is not None:
            s.events.append(Event(E.UNO, p))

    # --- TURN: play a matching card, draw, ask, call UNO; or stack / take a pending penalty
    def _legal_turn(self, s: State, p: int) -> list[int]:
        out: list[int] = []
        if s.pending:
            if self._can_stack(s, p):
                for k in iter_bits(s.held[p] & STACK_BITS[s.pending_kind]):
                    out.extend(_PLAY_IDS[k])
        else:
            bits = s.held[p] & PLAYABLE_BITS[s.color][C.FACE_OF[s.discard[-1]]]
            if bits >> C.WILD_DRAW4 & 1 and not self.rules.wd4_bluff and s.held[p] & COLOR_BITS[s.color]:
                bits &= ~(1 << C.WILD_DRAW4)
            while bits:  # iter_bits, inlined: the hottest loop of the engine
                low = bits & -bits
                out.extend(_PLAY_IDS[low.bit_length() - 1])
                bits ^= low
        out.append(A.DRAW)
        if self.explicit_uno and s.hand_size[p] == 2 and not s.uno_called[p]:  # _may_call_uno, inlined
            out.append(A.UNO)
        if self.rules.giving and not s.pending and not s.asked and any(
                s.hand_size[q] >= 2 for q in range(s.n) if q != p):
            out.append(A.ASK)
        return out

    def _apply_turn(self, s: State, p: int, action: int) -> None:
        if action < A.DRAW:
            self._play(s, p, A.PLAYED_KIND[action], A.PLAYED_COLOR[action])
        elif action == A.DRAW:
            if s.pending:
                self._take_pending(s, p)
                self._start_turn(s, self._next(s, p))
            else:
                self._draw_for_turn(s, p)
        else:  # ASK
            s.asked = True
            if s.events is not None:
                s.events.append(Event(E.ASKED, p))
            self._open_window(s, OFFER, [q for q in self._order_from_next(s, p) if s.hand_size[q] >= 2])

    # --- DRAWN: play the card just drawn (or taken), or keep it
    def _legal_drawn(self, s: State, p: int) -> list[int]:
        out = list(_PLAY_IDS[s.drawn])
        out.append(A.DRAW if s.drawn_from_offer else A.PASS)
        if self.explicit_uno and s.hand_size[p] == 2 and not s.uno_called[p]:
            out.append(A.UNO)
        return out

    def _apply_drawn(self, s: State, p: int, action: int) -> None:
        if action < A.DRAW:
            self._play(s, p, A.PLAYED_KIND[action], A.PLAYED_COLOR[action])
        elif action == A.DRAW:  # a taken offer not played: draw by the draw rule
            self._draw_for_turn(s, p)
        else:  # PASS: keep the drawn card. Not a public action: the others see "drew" (its
            # LAST_DREW stays) as after an unplayable card, or they would learn it was playable
            self._start_turn(s, self._next(s, p))

    # --- CHALLENGE: the victim of a Wild Draw Four challenges, takes it, or stacks one
    def _legal_challenge(self, s: State, p: int) -> list[int]:
        out: list[int] = []
        stack = self.rules.stacking and self._can_stack(s, p)
        if stack:
            out.extend(_PLAY_IDS[C.WILD_DRAW4])
        out += [A.DRAW, A.CHALLENGE]
        if stack and self._may_call_uno(s, p):
            out.append(A.UNO)
        return out

    def _apply_challenge(self, s: State, p: int, action: int) -> None:
        if action < A.DRAW:
            self._play(s, p, A.PLAYED_KIND[action], A.PLAYED_COLOR[action])
        elif action == A.DRAW:
            self._take_pending(s, p)
            s.history[p, H_LAST] = LAST_DECLINED
            self._start_turn(s, self._next(s, p))
        else:
            self._challenge(s, p)

    # --- COLOR: the colour of a wild turned up as the first card
    def _legal_color(self, s: State, p: int) -> list[int]:
        return list(_COLOR_IDS)

    def _apply_color(self, s: State, p: int, action: int) -> None:
        s.color = A.chosen_color(action)
        if s.events is not None:
            s.events.append(Event(E.COLOR_CHOSEN, p, -1, s.color))
        top = s.discard[-1]
        if top in _PENDING_OF_KIND:  # stacking: a first Draw Four / SEWERS hits the first player
            s.pending = 4 if top == C.WILD_DRAW4 else 1
            s.pending_kind = _PENDING_OF_KIND[top]
            s.wd4_player = -1
            self._face_penalty(s, p)
        else:
            self._start_turn(s, p)

    # --- DISCARD: villains discarded after a Team Attack (up to three), or stop
    def _legal_discard(self, s: State, p: int) -> list[int]:
        out = [A.PASS, A.UNO] if self._may_call_uno(s, p) else [A.PASS]
        out += [A.discard_action(k) for k in iter_bits(s.held[p] & self.villain_bits)]
        return out

    def _apply_discard(self, s: State, p: int, action: int) -> None:
        if action == A.PASS:
            self._after_play(s)
            return
        k = A.discarded_kind(action)
        self._remove(s, p, k)
        s.history[p, H_DREW_ON_COLOR + C.COLOR_OF[k]] = 0  # a villain is a coloured card
        s.history[p, H_DREW_ON_FACE + C.FACE_OF[k]] = 0
        s.discard.insert(len(s.discard) - 1, k)
        s.played[k] += 1
        s.discards_left -= 1
        if s.events is not None:
            s.events.append(Event(E.DISCARDED, p, k))
        if s.hand_size[p] == 0:
            self._end_round(s, p)
        elif s.discards_left == 0 or not s.held[p] & self.villain_bits:
            self._after_play(s)

    # --- CATCH (window): a player did not call UNO; each other player catches or passes
    def _legal_catch(self, s: State, p: int) -> list[int]:
        return [A.PASS, A.CATCH]

    def _apply_catch(self, s: State, p: int, action: int) -> None:
        self._answer(s, p, action)

    # --- JUMP (window): a player holding a card identical to the top jumps in or passes
    def _legal_jump(self, s: State, p: int) -> list[int]:
        out = list(_PLAY_IDS[s.discard[-1]])
        out.append(A.PASS)
        if self._may_call_uno(s, p) and (p, A.UNO) not in s.answers:  # a call here stays private
            out.append(A.UNO)
        return out

    def _apply_jump(self, s: State, p: int, action: int) -> None:
        self._answer(s, p, action)

    # --- OFFER (window): giving cards: each other player with 2+ cards offers one or passes
    def _legal_offer(self, s: State, p: int) -> list[int]:
        out = [A.PASS]
        out += [A.offer_action(k) for k in iter_bits(s.held[p])]
        return out

    def _apply_offer(self, s: State, p: int, action: int) -> None:
        self._answer(s, p, action)

    # --- TAKE: giving cards: the asker takes one offer or passes (then draws)
    def _legal_take(self, s: State, p: int) -> list[int]:
        out = [A.PASS]
        out += [A.take_action(i) for i in range(1, s.n) if s.offers[(p + i) % s.n] >= 0]
        return out

    def _apply_take(self, s: State, p: int, action: int) -> None:
        if action == A.PASS:
            self._draw_for_turn(s, p)
            return
        giver = (p + A.take_offset(action)) % s.n
        k = s.offers[giver]
        self._remove(s, giver, k)
        self._add(s, p, k)
        s.history[p, H_DREW_ON_COLOR:H_RECEIVED] = 0
        self._reveal(s, p, k)
        s.offers = [-1] * s.n
        if s.events is not None:
            s.events.append(Event(E.TOOK, p, k, giver))
        if self._playable(s, p, k):
            s.phase, s.drawn, s.drawn_from_offer = DRAWN, k, True
        else:
            self._draw_for_turn(s, p)

    # --- OVER: no decision
    def _legal_over(self, s: State, p: int) -> list[int]:
        return []

    def _apply_over(self, s: State, p: int, action: int) -> None:  # pragma: no cover (step refuses)
        raise ValueError("the episode is over; reset before stepping")

    # --- windows: answers are stored and resolved when everyone has answered
    def _answer(self, s: State, p: int, action: int) -> None:
        if action != A.PASS:
            s.answers.append((p, action))
        self._next_in_window(s)

    def _next_in_window(self, s: State) -> None:
        s.queue.pop(0)
        if s.queue:
            s.actor = s.queue[0]
            return
        answers, phase = s.answers, s.phase
        s.answers = []
        if phase == CATCH:
            if answers:
                before = s.hand_size[s.offender]
                self._draw(s, s.offender, self.rules.uno_penalty)
                if s.events is not None:
                    s.events.append(Event(E.CAUGHT, s.offender, -1, s.hand_size[s.offender] - before))
            elif s.events is not None:
                s.events.append(Event(E.ESCAPED, s.offender))
            s.offender = -1
            self._open_jump(s)
        elif phase == JUMP:
            jumps = [(q, a) for q, a in answers if a != A.UNO]
            if not jumps:
                self._resolve(s)
                return
            pick = int(s.rng.integers(len(jumps))) if self.rules.jump_in_random_pick else 0
            jumper, action = jumps[pick]
            if (jumper, A.UNO) in answers:  # the jumper's UNO call counts; the others' lapse
                s.uno_called[jumper] = True
                if s.events is not None:
                    s.events.append(Event(E.UNO, jumper))
            self._play(s, jumper, A.PLAYED_KIND[action], A.PLAYED_COLOR[action], jumped_in=True)
        else:  # OFFER
            asker = s.turn
            for q, action in answers:
                k = A.offered_kind(action)
                s.offers[q] = k
                # an offer shows a card already in q's hand: at least one k is known (it may be
                # the same card as one shown before, so no count is added)
                col = s.known[:, q, k]
                np.maximum(col, 1, out=col)
                col[q] = 0
                s.known_any = True
                if s.events is not None:
                    s.events.append(Event(E.OFFERED, q, k))
            if answers:
                s.phase, s.actor = TAKE, asker
            else:
                self._draw_for_turn(s, asker)

    def _challenge(self, s: State, p: int) -> None:
        offender = s.wd4_player
        s.known[p, offender] = s.hands[offender]
        s.known_any = True
        if s.events is not None:
            s.events.append(Event(E.CHALLENGED, p, -1, int(s.wd4_guilty)))
        if s.wd4_guilty:
            whole = self.rules.stacked_challenge == "whole"
            judged = s.pending if whole else min(4, s.pending)  # "last": only the last Draw Four
            self._draw_penalty(s, offender, judged)
            s.pending -= judged
            s.wd4_player = -1
            if s.pending:  # "last": the challenger still takes the rest of the stack
                self._take_pending(s, p)
                s.history[p, H_LAST] = LAST_CHALLENGED
                self._start_turn(s, self._next(s, p))
            else:
                s.pending_kind = NO_PENDING
                s.history[p, H_LAST] = LAST_CHALLENGED
                self._start_turn(s, p)
        else:
            s.pending += 2
            self._take_pending(s, p)
            s.history[p, H_LAST] = LAST_CHALLENGED
            self._start_turn(s, self._next(s, p))

    # ------------------------------------------------------------------ outcomes
    def truncated(self, s: State) -> bool:
        """Whether the episode is cut at ``rules.max_steps`` decisions (the only place it is decided)."""
        return not s.game_over and s.steps >= self.rules.max_steps

    def returns(self, s: State) -> list[float]:
        """Reward of every seat for the episode (the only place rewards are computed): once the
        game is over, +1 for the winner and -1/(n-1) for every other seat; else all 0."""
        if not s.game_over:
            return [0.0] * s.n
        lose = -1.0 / (s.n - 1)
        return [1.0 if q == s.winner else lose for q in range(s.n)]

    # ------------------------------------------------------------------ helpers
    def describe(self, action: int) -> str:
        """Name of an action id (for error messages)."""
        names = A.action_names(self.rules.color_names)
        return names[action] if isinstance(action, (int, np.integer)) and 0 <= action < A.NUM_ACTIONS \
            else "not an action id"

    def hand_cards(self, s: State, p: int) -> list[int]:
        """``p``'s hand as a sorted list of kinds."""
        return [k for k in iter_bits(s.held[p]) for _ in range(int(s.hands[p, k]))]
