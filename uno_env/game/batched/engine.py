"""The batched engine: B games of one ruleset held as arrays, advanced in one call.

    engine = BatchedEngine("house", num_players=2, batch_size=4096, layout=1)
    engine.reset(seeds=range(4096))           # or rngs=[Generator...], decks=..., dealers=...
    masks = engine.legal_masks()              # (B, 195) int8, zero rows for finished games
    engine.step(actions)                      # (B,) action ids; ValueError (nothing changed) if one is illegal
    engine.observe(seats)                     # (B, obs_size) float32: the observation of seat seats[b]
                                              # (layout 1: 1537 entries; layout 0: the first 1254)
    engine.global_state(seats)                # (B, 807) float32: every hand, for centralised critics
    engine.game_over, engine.winner, engine.returns(), engine.truncated()

Game ``b`` of the batch is, decision for decision, the scalar
:class:`uno_env.game.engine.Engine` (the reference): the same rules code, ported line by
line into compiled kernels (:mod:`uno_env.game.batched.kernels`, numba), over arrays
instead of Python objects, with the same phases and one ``legal_<phase>`` / ``apply_<phase>``
pair per phase. ``game_state(b)`` and :func:`state_dict` put both in one form (every field
of the scalar ``State`` but its generator, legal-action cache and events), and the tests
compare them after every step of thousands of random games of every preset.

**Randomness.** Every game owns a PCG64 stream (:mod:`uno_env.game.batched.pcg64`, six
uint64 words) that reproduces numpy's ``Generator(PCG64)`` bit for bit, used exactly where
the scalar engine uses ``state.rng``: the dealer (``integers(n)``), the shuffle of the deck,
every reshuffle of DRAW (``shuffle``), the jump-in pick among several jumpers and the SEVEN
slap's victim (``integers``). So ``reset(rngs=[np.random.default_rng(s)])``
(or ``seeds=[s]``) and ``Engine.new_state(np.random.default_rng(s))`` deal the same cards
and reshuffle the same way for ever after, with no reshuffle order passed around; the
stream's state after every step equals the Generator's (``rng_state(b)``). ``reset``
without seeds continues each game's stream, as a scalar env reuses its RNG across episodes.

**Options.** Every option of :class:`~uno_env.game.rules.Rules`, none refused: colours and
deck counts (the 560-card house deck, FROM THE SEWERS cards), ``hand_size``, ``draw_rule``,
``winner_starts``, ``wd4_bluff``, ``challenge``, ``stacked_challenge``,
``two_player_reverse_skips``, ``villain_faces`` (tmnt), ``sewers_points``, ``stacking``,
``jump_in`` (``jump_in_random_pick``), ``seven_slap`` (``seven_slap_random``), ``giving``,
``uno_call`` (auto/explicit), ``uno_penalty``, ``episode``/``num_rounds``/``target_score``/
``scoring``, ``max_steps``. So the decisions are every phase of the scalar engine: turn,
drawn card, Wild Draw Four challenge, colour of a first wild, Team Attack discards, and the
windows catch (explicit UNO), jump-in, offer and take (giving). Events are not recorded.

**Layout.** Per game: hands as counts per card kind (int8, ``(n, 56)``; ``Rules`` allows at
most ``MAX_COUNT`` = 100 copies of a kind), a bitset of held kinds per seat, hand sizes, UNO
flags, scores, DRAW and DISCARD as kind arrays with lengths (top = last), cards played since
the last reshuffle, what each seat knows of each hand, the public history (``State.history``,
int16 ``(n, 21)``), a window's queue of seats with the answers stored per position (the
action, and a hidden UNO call of a jump-in window), the open offers per seat, the scalar
fields as one int32 row, the PCG64 words. Every state array is in ``st``; its bytes a game
(``bench/bench_batched.py`` prints them): 902 for classic with 2 players (902
classic-stacking-jumpin, 910 tmnt, 1,846 house: its 560-card piles; 1,816 classic and 2,760
house with 4 players, 7,246 and 8,190 with 10), all of it allocated at construction.

**Observations: layouts 0 and 1.** ``observe`` gives the first ``obs_size`` entries of
:class:`~uno_env.game.observation.ObservationEncoder`'s vector: all 1537 of the current
layout 1 (with the public history, HISTORY and WD4_COLOR) for ``layout=1``, the 1254 of
layout 0 for ``layout=0`` (the default, for layout-0 policies). ``global_state`` gives
:class:`~uno_env.game.global_state.GlobalStateEncoder`'s vector (hidden information: every hand
and the DRAW pile's counts; training only), seen from a seat or with absolute seats.

**Phases as masks.** Every kernel takes a boolean ``active`` mask over the batch and
handles each game in its own phase; ``step`` by default steps every game that is not over.

**Inputs** are checked by the public methods, once per call and before any kernel runs (the
kernels index without bounds checks): action ids, seats, dealers and deck kinds must have an
integer dtype (``1.5`` is never read as 1), seeds are integers >= 0 (or numpy
``SeedSequence`` entropy lists), ``prng`` and ``out`` arrays have the batch's shape and
dtype, ``b`` is a game of the batch. A refused call is a ``ValueError`` naming the input
and changes nothing (``reset`` reads every seed, deck and dealer before it writes one).
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.batched import bots as BK
from uno_env.game.batched import kernels as K
from uno_env.game.batched._jit import announces_compiling
from uno_env.game.batched import pcg64 as R
from uno_env.game.engine import NO_PENDING, NUM_HISTORY_COLUMNS, PHASE_NAMES, Engine, State
from uno_env.game.global_state import GLOBAL_STATE_SIZE, GlobalStateEncoder
from uno_env.game.inputs import integer_array
from uno_env.game.observation import LAYOUT_SIZES, V0_SIZE, ObservationEncoder
from uno_env.game.rules import Rules, make_rules, show_value

OBS_SIZE = V0_SIZE  # the default observation: layout 0 (the prefix of the scalar encoder's)
OBS_LAYOUT_VERSION = 0  # the default layout (``BatchedEngine(..., layout=1)``: the current one)

# the batch state, in the order the kernels unpack it (kernels.py's docstring)
STATE_ARRAYS = ("g", "hands", "held", "hand_size", "uno_called", "scores", "round_points",
                "draw_pile", "discard", "played", "known", "rng", "history", "queue", "answers",
                "jump_uno", "offers")
_INT8, _FLOAT32, _UINT64 = np.dtype(np.int8), np.dtype(np.float32), np.dtype(np.uint64)  # of out and prng
_EPISODES = {"round": K.EPISODE_ROUND, "game": K.EPISODE_GAME, "rounds": K.EPISODE_ROUNDS}


def _seed_words(seed: Any, i: int) -> np.ndarray:
    """PCG64 words of ``default_rng(seed)`` for ``seeds[i]``; ``ValueError`` unless ``seed`` is an
    integer >= 0 or a sequence of them (numpy's ``SeedSequence`` entropy; no floats or bools)."""
    if not isinstance(seed, (bool, np.bool_)):
        try:
            return R.words_from_seed(seed)
        except (TypeError, ValueError):
            pass
    raise ValueError(f"seeds[{i}] must be an integer >= 0 (or a sequence of them), got "
                     f"{show_value(seed)} ({type(seed).__name__})")


class BatchedEngine:
    """``batch_size`` games of one ruleset and player count (see the module docstring)."""

    def __init__(self, rules: Any = "classic", num_players: int = 2, batch_size: int = 1, layout: int = 0):
        self.rules = rules if isinstance(rules, Rules) else make_rules(rules)
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if isinstance(layout, bool) or not isinstance(layout, (int, np.integer)) or layout not in LAYOUT_SIZES:
            raise ValueError(f"layout must be an observation layout version {sorted(LAYOUT_SIZES)}, got "
                             f"{show_value(layout)}")
        self.layout = int(layout)
        self.obs_size = LAYOUT_SIZES[self.layout]
        self.scalar = Engine(self.rules, num_players)  # validates the player count and the deck
        self.n = n = self.scalar.n
        self.batch_size = B = int(batch_size)
        r = self.rules
        self.deck = np.array(self.scalar.deck, np.int8)
        self.deck_size = D = len(self.deck)
        self.points = np.array(self.scalar.points, np.int64)
        cfg = np.zeros(K.NUM_CFG, np.int64)
        cfg[K.CFG_N] = n
        cfg[K.CFG_HAND] = r.hand_size
        cfg[K.CFG_EXPLICIT] = r.uno_call == "explicit"
        cfg[K.CFG_PENALTY] = r.uno_penalty
        cfg[K.CFG_BLUFF] = r.wd4_bluff
        cfg[K.CFG_CHALLENGE] = r.challenge
        cfg[K.CFG_TPRS] = r.two_player_reverse_skips
        cfg[K.CFG_EPISODE] = _EPISODES[r.episode]
        cfg[K.CFG_NROUNDS] = r.num_rounds
        cfg[K.CFG_TARGET] = r.target_score
        cfg[K.CFG_ALT_SCORING] = r.scoring == "alternative"
        cfg[K.CFG_VILLAIN] = self.scalar.villain_bits
        cfg[K.CFG_UNTIL] = r.draw_rule == "until_playable"
        cfg[K.CFG_WSTARTS] = r.winner_starts
        cfg[K.CFG_DECK] = D
        cfg[K.CFG_STACKING] = r.stacking
        cfg[K.CFG_WHOLE] = r.stacked_challenge == "whole"
        cfg[K.CFG_JUMP] = r.jump_in
        cfg[K.CFG_JUMP_RANDOM] = r.jump_in_random_pick
        cfg[K.CFG_SLAP] = r.seven_slap
        cfg[K.CFG_SLAP_RANDOM] = r.seven_slap_random
        cfg[K.CFG_GIVING] = r.giving
        self.cfg = cfg
        self.ru = (cfg, self.deck, self.points)  # the kernels' rule constants
        # the encoder's constant part (opponent presence, rule flags) is the observation template
        self.template = ObservationEncoder(self.scalar)._template[:self.obs_size].copy()
        self.state_template = GlobalStateEncoder(self.scalar)._template.copy()  # its rule flags
        self.g = np.zeros((B, K.NUM_FIELDS), np.int32)
        self.g[:, K.F_PHASE] = K.OVER  # nothing to decide before the first reset
        self.g[:, K.F_OVER] = 1
        self.g[:, K.F_ACTOR] = -1
        self.g[:, K.F_WINNER] = -1
        self.hands = np.zeros((B, n, C.NUM_KINDS), np.int8)
        self.held = np.zeros((B, n), np.int64)
        self.hand_size = np.zeros((B, n), np.int16)
        self.uno_called = np.zeros((B, n), np.int8)
        self.scores = np.zeros((B, n), np.int32)
        self.round_points = np.zeros((B, n), np.int32)
        self.draw_pile = np.zeros((B, D), np.int8)
        self.discard = np.zeros((B, D), np.int8)
        self.played = np.zeros((B, C.NUM_KINDS), np.int8)
        self.known = np.zeros((B, n, n, C.NUM_KINDS), np.int8)
        self.rng = np.zeros((B, R.RNG_WORDS), np.uint64)
        self.rng[:] = R.words_from_seed(0)  # replaced by reset's seeds; distinct per game below
        self.rng[:, R.I_LO] |= np.uint64(1)
        self.history = np.zeros((B, n, NUM_HISTORY_COLUMNS), np.int16)
        self.history[:, :, K.H_LEFT] = -1
        self.queue = np.zeros((B, n), np.int8)  # a window's seats, F_QPOS answering now
        self.answers = np.full((B, n), -1, np.int16)  # per queue position: the action (-1: pass)
        self.jump_uno = np.zeros((B, n), np.int8)  # per queue position: UNO called in a JUMP window
        self.offers = np.full((B, n), -1, np.int16)  # per seat: the kind offered (-1: none)
        self.st = tuple(getattr(self, name) for name in STATE_ARRAYS)
        self._all = np.ones(B, bool)
        self._mask_shape, self._obs_shape, self._prng_shape = (B, A.NUM_ACTIONS), (B, self.obs_size), (B, R.RNG_WORDS)
        self._scratch = np.zeros((3, K.MAX_LEGAL), np.int64)  # kernels allocate nothing
        self._fscratch = np.zeros(BK.FS_SIZE, np.float64)  # the heuristic's counting, per decision
        # the heuristic's rule constants: deck counts per kind, points per kind, villain kind bits
        self.bot_consts = (np.array(self.rules.deck_counts(), np.int64), self.points,
                           np.int64(self.scalar.villain_bits))

    # ------------------------------------------------------------------ set-up
    def _select(self, games: Any) -> np.ndarray:
        """A boolean mask over the batch from None (all), a boolean mask or game indices."""
        B = self.batch_size
        if games is None:
            return self._all.copy()
        arr = np.asarray(games)
        if arr.dtype == bool:
            if arr.shape != (B,):
                raise ValueError(f"a game mask must have shape ({B},), got {arr.shape}")
            return arr.copy()
        if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer) or (arr.size and (
                arr.min() < 0 or arr.max() >= B)):
            raise ValueError(f"games must be a boolean mask or indices in 0..{B - 1}, got {games!r}")
        out = np.zeros(B, bool)
        out[arr] = True
        return out

    @announces_compiling
    def reset(self, games: Any = None, *, seeds: Iterable | None = None,
              rngs: Iterable[np.random.Generator] | None = None, decks: Iterable | None = None,
              dealers: Any = None) -> np.ndarray:
        """New episodes for ``games`` (default: all): dealer drawn, deck shuffled and dealt, as
        ``Engine.new_state``. Per selected game, in batch order: ``seeds`` (``default_rng(seed)``)
        or ``rngs`` (a numpy ``Generator(PCG64)`` whose state is copied) start a stream; else
        the game's stream goes on. ``decks`` (kinds, top first; ``None`` entries shuffle) and
        ``dealers`` (an int for all, or one per game; ``None``/-1 draws) stack a deal.
        Returns the boolean mask of the games reset."""
        active = self._select(games)
        idx = np.flatnonzero(active)
        if seeds is not None and rngs is not None:
            raise ValueError("give seeds or rngs, not both")
        words = None  # every input is read before anything is written: a refused reset changes nothing
        if seeds is not None:
            words = [_seed_words(x, i) for i, x in enumerate(self._per_game(seeds, "seeds", len(idx)))]
        elif rngs is not None:
            words = [R.words_from_generator(x) for x in self._per_game(rngs, "rngs", len(idx))]
        orders = np.zeros((self.batch_size, self.deck_size), np.int8)
        has_order = np.zeros(self.batch_size, bool)
        if decks is not None:
            for b, deck in zip(idx, self._per_game(decks, "decks", len(idx))):
                if deck is not None:
                    kinds = integer_array(deck, f"decks (game {b}: card kinds)")
                    if kinds.ndim != 1:
                        raise ValueError(f"decks (game {b}) must be lists of card kinds, got shape {kinds.shape}")
                    self.scalar.check_deck(kinds.tolist())
                    orders[b] = kinds
                    has_order[b] = True
        dealer_arr = np.full(self.batch_size, -1, np.int64)
        if dealers is not None:
            d = [dealers] * len(idx) if np.isscalar(dealers) else self._per_game(dealers, "dealers", len(idx))
            if d:
                seats = integer_array([-1 if x is None else x for x in d], "dealers")
                if seats.shape != (len(idx),) or seats.min() < -1 or seats.max() >= self.n:
                    raise ValueError(f"dealer must be a seat in 0..{self.n - 1} (None or -1: drawn), one per "
                                     f"game reset, got {show_value(d)}")
                dealer_arr[idx] = seats
        if words:
            self.rng[idx] = words
        K.new_episodes(self.st, self.ru, active, orders, has_order, dealer_arr)
        return active

    @staticmethod
    def _per_game(values: Iterable, name: str, count: int) -> list:
        """``values`` as a list of one entry per game reset; ``ValueError`` otherwise."""
        try:
            values = list(values)
        except TypeError:
            raise ValueError(f"{name} must be a sequence, one entry per game reset, got {show_value(values)}") from None
        if len(values) != count:
            raise ValueError(f"{name} must hold one entry per game reset ({count}), got {len(values)}")
        return values

    @staticmethod
    def _array(arr: Any, shape: tuple, dtype: np.dtype, name: str) -> np.ndarray:
        """``arr`` if it is a numpy array of ``shape`` and ``dtype`` (what a kernel writes into or
        reads without bounds checks); ``ValueError`` naming ``name`` otherwise."""
        if type(arr) is not np.ndarray or arr.dtype != dtype or arr.shape != shape:
            got = f"{arr.dtype} {arr.shape}" if isinstance(arr, np.ndarray) else show_value(arr)
            raise ValueError(f"{name} must be a {dtype} array of shape {shape}, got {got}")
        return arr

    def _prng(self, prng: Any) -> np.ndarray:
        """Random-action streams: ``(B, 6)`` uint64 PCG64 words (:func:`rng_words`)."""
        return self._array(prng, self._prng_shape, _UINT64, "prng (PCG64 words, see rng_words)")

    def _seats(self, seats: Any, act: np.ndarray) -> np.ndarray:
        """``seats`` (one int, or one per game) as int64 ``(B,)``; those of ``act`` in ``0..n-1``."""
        arr = integer_array(seats, "seats")
        try:
            arr = np.ascontiguousarray(np.broadcast_to(arr, (self.batch_size,)), np.int64)
        except ValueError:
            raise ValueError(f"seats must be one seat or one per game ({self.batch_size},), got shape {arr.shape}") from None
        chosen = arr[act]
        if chosen.size and (chosen.min() < 0 or chosen.max() >= self.n):
            raise ValueError(f"seats must be in 0..{self.n - 1}")
        return arr

    def _game(self, b: Any) -> int:
        """A game index ``0..B-1`` (an integer, not a bool)."""
        if isinstance(b, (bool, np.bool_)) or not isinstance(b, (int, np.integer)) or not 0 <= b < self.batch_size:
            raise ValueError(f"game must be an integer in 0..{self.batch_size - 1}, got {show_value(b)}")
        return int(b)

    # ------------------------------------------------------------------ decisions
    @announces_compiling
    def legal_masks(self, active: Any = None, out: np.ndarray | None = None) -> np.ndarray:
        """Action masks (int8, ``(B, 195)``) of every game's actor; zero rows where a game is over
        or not in ``active``. Written into ``out`` if given (else a fresh array)."""
        act = ~self.game_over if active is None else self._select(active) & ~self.game_over
        out = np.empty(self._mask_shape, np.int8) if out is None else \
            self._array(out, self._mask_shape, _INT8, "legal_masks out")
        K.masks_batch(self.st, self.cfg, act, out, self._scratch)
        return out

    @announces_compiling
    def legal_actions(self, b: int) -> list[int]:
        """Legal action ids of game ``b`` (sorted), as ``Engine.legal_actions``."""
        out = np.empty(K.MAX_LEGAL, np.int64)
        c = K.legal_one(self.st, self.cfg, self._game(b), out)
        return out[:c].tolist()

    @announces_compiling
    def step(self, actions: Any, active: Any = None, checked: bool = False) -> None:
        """Apply ``actions[b]`` for the actor of every active game (default: every game not over).
        ``actions``: integer ids, one per game (:func:`uno_env.game.inputs.integer_array`: a bool,
        a float or a string is refused, never cast), each of an active game in ``0..194``.
        ``ValueError`` naming the first illegal action; then no game is changed. ``checked=True``
        skips that check, for a caller that has just checked every action against
        :meth:`legal_masks` of this very state (the vector env): an illegal action then corrupts
        its game."""
        acts = integer_array(actions, "actions")
        if acts.shape != (self.batch_size,):
            raise ValueError(f"actions must be integer ids of shape ({self.batch_size},), "
                             f"got {acts.dtype} {acts.shape}")
        act = ~self.game_over if active is None else self._select(active)
        out_of_range = act & ((acts < 0) | (acts >= A.NUM_ACTIONS))  # before the cast: 2**64-1 is no -1
        if out_of_range.any():
            b = int(np.flatnonzero(out_of_range)[0])
            raise ValueError(f"action {int(acts[b])} in game {b} is no action id "
                             f"(0..{A.NUM_ACTIONS - 1})")
        acts = acts.astype(np.int64, copy=False)
        over = act & self.game_over
        if over.any():
            raise ValueError(f"game {int(np.flatnonzero(over)[0])} is over; reset it before stepping")
        bad = -1 if checked else K.first_illegal(self.st, self.cfg, acts, act, self._scratch)
        if bad >= 0:
            a = int(acts[bad])
            raise ValueError(f"illegal action {a} ({self.scalar.describe(a)}) in game {bad}, phase "
                             f"{PHASE_NAMES[self.g[bad, K.F_PHASE]]!r}, seat {self.g[bad, K.F_ACTOR]}; "
                             f"legal: {self.legal_actions(bad)}")
        K.step_batch(self.st, self.ru, acts, act)

    @announces_compiling
    def observe(self, seats: Any, active: Any = None, out: np.ndarray | None = None) -> np.ndarray:
        """Observations ``(B, obs_size)`` float32: game ``b`` as seat ``seats[b]`` (an int: every
        game) sees it, equal to the first ``obs_size`` entries of ``ObservationEncoder.encode``
        (1254 for layout 0, all 1537 for layout 1). Rows outside ``active`` are left as they
        are (zero in a fresh array)."""
        act = self._all if active is None else self._select(active)
        seats = self._seats(seats, act)
        if out is None:  # the kernel writes every entry of an active row
            out = (np.empty if active is None else np.zeros)(self._obs_shape, np.float32)
        out = self._array(out, self._obs_shape, _FLOAT32, "observe out")
        K.observe_batch(self.st, self.cfg, self.template, seats, act, out)
        return out

    @announces_compiling
    def global_state(self, seats: Any = 0, active: Any = None, out: np.ndarray | None = None) -> np.ndarray:
        """Global states ``(B, GLOBAL_STATE_SIZE)`` float32 for centralised critics (training only:
        they hold every hand): game ``b`` seen from seat ``seats[b]``, equal to
        ``GlobalStateEncoder.encode(state, seat)``; ``seats=0`` gives the absolute seats of
        PettingZoo's ``state()``. Rows outside ``active`` are left as they are (zero in a fresh
        array)."""
        act = self._all if active is None else self._select(active)
        seats = self._seats(seats, act)
        shape = (self.batch_size, GLOBAL_STATE_SIZE)
        if out is None:
            out = (np.empty if active is None else np.zeros)(shape, np.float32)
        out = self._array(out, shape, _FLOAT32, "global_state out")
        K.global_state_batch(self.st, self.cfg, self.state_template, seats, act, out)
        return out

    @announces_compiling
    def uniform_actions(self, prng: np.ndarray, active: Any = None) -> np.ndarray:
        """A uniformly random legal action per game not over (-1 elsewhere), drawn from ``prng``
        (``(B, 6)`` PCG64 words, see :func:`rng_words`)."""
        act = ~self.game_over if active is None else self._select(active) & ~self.game_over
        out = np.full(self.batch_size, -1, np.int64)
        K.uniform_actions(self.st, self.cfg, act, self._prng(prng), out, self._scratch)
        return out

    @announces_compiling
    def random_bot_actions(self, prng: np.ndarray, active: Any = None) -> np.ndarray:
        """The ``random`` bot's action per game not over (-1 elsewhere), drawn from ``prng``."""
        act = ~self.game_over if active is None else self._select(active) & ~self.game_over
        out = np.full(self.batch_size, -1, np.int64)
        K.random_bot_actions(self.st, self.cfg, act, self._prng(prng), out, self._scratch)
        return out

    @announces_compiling
    def random_bots_until(self, seats: Any, prng: np.ndarray, active: Any = None) -> None:
        """The ``random`` bot plays every seat but ``seats[b]`` in each active game until that seat
        decides, the game ends or ``rules.max_steps`` is reached: one compiled call."""
        act = ~self.game_over if active is None else self._select(active) & ~self.game_over
        seats = self._seats(seats, act)
        K.random_bots_until(self.st, self.ru, act, seats, self.rules.max_steps, self._prng(prng),
                            self._scratch)

    def _bot_memory(self, memory: Any, cls: type, name: str, greedy: bool = False) -> Any:
        """``memory`` if it is a ``cls`` for this batch (with its streams allocated if ``greedy``)."""
        if not isinstance(memory, cls) or memory.shape != (self.batch_size, self.n) or (
                greedy and not memory.allocated):
            raise ValueError(f"{name} must be a {cls.__name__}({self.batch_size}, {self.n}), got {show_value(memory)}")
        return memory

    def _weights(self, weights: Any) -> np.ndarray:
        w = np.asarray(weights)
        if w.dtype != np.float64 or w.shape != (BK.NUM_WEIGHTS,) or not np.isfinite(w).all():
            raise ValueError(f"heuristic weights must be {BK.NUM_WEIGHTS} finite float64 numbers in the order of "
                             f"bots.WEIGHT_NAMES (HeuristicWeights.as_array()), got {show_value(weights)}")
        return np.ascontiguousarray(w)

    def greedy_actions(self, streams: "BK.GreedyStreams", active: Any = None) -> np.ndarray:
        """The ``greedy`` bot's action (``GreedyAgent.act`` on the actor's observation) per game not
        over (-1 elsewhere); its tie-breaks drawn from the actor's stream in ``streams``."""
        act = ~self.game_over if active is None else self._select(active) & ~self.game_over
        streams = self._bot_memory(streams, BK.GreedyStreams, "streams", greedy=True)
        out = np.full(self.batch_size, -1, np.int64)
        BK.greedy_actions(self.st, self.cfg, self.points, act, streams.mt, streams.pos, out, self._scratch)
        return out

    def heuristic_actions(self, beliefs: "BK.HeuristicBeliefs", weights: Any, active: Any = None) -> np.ndarray:
        """The ``heuristic`` bot's action (``HeuristicAgent.act``) per game not over (-1 elsewhere):
        ``weights`` as ``HeuristicWeights.as_array()``; the actor's beliefs in ``beliefs`` are
        updated as the scalar bot's are at its decisions."""
        act = ~self.game_over if active is None else self._select(active) & ~self.game_over
        beliefs = self._bot_memory(beliefs, BK.HeuristicBeliefs, "beliefs")
        out = np.full(self.batch_size, -1, np.int64)
        BK.heuristic_actions(self.st, self.cfg, self.bot_consts, act, self._weights(weights), beliefs.arrays, out,
                             self._scratch, self._fscratch)
        return out

    def bots_until(self, seats: Any, slot_kinds: Any, slot_weights: np.ndarray, prng: np.ndarray,
                   streams: "BK.GreedyStreams", beliefs: "BK.HeuristicBeliefs", active: Any = None) -> int:
        """Compiled bots play every seat ``j`` places to the left of ``seats[b]`` (``slot_kinds[j]``:
        ``bots.BOT_RANDOM``, ``BOT_GREEDY``, ``BOT_HEURISTIC`` with ``slot_weights[j]``, or
        ``BOT_NONE``) in each active game until ``seats[b]`` or a ``BOT_NONE`` seat decides, the
        game ends or ``rules.max_steps`` is reached: one compiled call. Returns how many games
        stopped at a ``BOT_NONE`` seat."""
        act = ~self.game_over if active is None else self._select(active) & ~self.game_over
        seats = self._seats(seats, act)
        kinds = integer_array(slot_kinds, "slot_kinds").astype(np.int64)
        if kinds.shape != (self.n,) or kinds.min() < BK.BOT_NONE or kinds.max() > BK.BOT_HEURISTIC:
            raise ValueError(f"slot_kinds must hold {self.n} bot kinds in {BK.BOT_NONE}..{BK.BOT_HEURISTIC}, "
                             f"got {show_value(slot_kinds)}")
        sw = np.asarray(slot_weights)
        if sw.dtype != np.float64 or sw.shape != (self.n, BK.NUM_WEIGHTS) or not np.isfinite(sw).all():
            raise ValueError(f"slot_weights must be float64 ({self.n}, {BK.NUM_WEIGHTS}), got {show_value(slot_weights)}")
        streams = self._bot_memory(streams, BK.GreedyStreams, "streams", greedy=bool((kinds == BK.BOT_GREEDY).any()))
        beliefs = self._bot_memory(beliefs, BK.HeuristicBeliefs, "beliefs")
        return int(BK.bots_until(self.st, self.ru, act, seats, self.rules.max_steps, kinds, np.ascontiguousarray(sw),
                                 self.bot_consts, self._prng(prng), streams.mt, streams.pos, beliefs.arrays,
                                 self._scratch, self._fscratch))

    # ------------------------------------------------------------------ results
    @property
    def game_over(self) -> np.ndarray:
        return self.g[:, K.F_OVER] != 0

    @property
    def winner(self) -> np.ndarray:
        return self.g[:, K.F_WINNER]

    @property
    def actor(self) -> np.ndarray:
        return self.g[:, K.F_ACTOR]

    @property
    def phase(self) -> np.ndarray:
        return self.g[:, K.F_PHASE]

    @property
    def steps(self) -> np.ndarray:
        return self.g[:, K.F_STEPS]

    @property
    def turns(self) -> np.ndarray:
        return self.g[:, K.F_TURNS]

    def returns(self) -> np.ndarray:
        """``(B, n)`` rewards as ``Engine.returns``: +1 for the winner and -1/(n-1) for every other
        seat once a game is over; 0 while it runs (or is truncated)."""
        out = np.zeros((self.batch_size, self.n))
        over = self.game_over
        out[over] = -1.0 / (self.n - 1)
        rows = np.flatnonzero(over)
        out[rows, self.winner[rows]] = 1.0
        return out

    def truncated(self) -> np.ndarray:
        """``Engine.truncated``: not over and ``steps >= rules.max_steps``."""
        return ~self.game_over & (self.steps >= self.rules.max_steps)

    def rng_state(self, b: int) -> dict:
        """numpy's PCG64 state dict of game ``b``'s stream."""
        return R.generator_state(self.rng[b])

    def game_state(self, b: int) -> dict[str, Any]:
        """Game ``b`` in the form of :func:`state_dict` (compare with a scalar state)."""
        b = self._game(b)
        g = self.g[b]
        qpos, qlen = int(g[K.F_QPOS]), int(g[K.F_QLEN])
        queue = self.queue[b, :qlen].astype(np.int64).tolist()
        answers = []  # (seat, action) in the order they were given, as the scalar State keeps them
        for i, q in enumerate(queue):
            if self.jump_uno[b, i]:
                answers.append((q, A.UNO))
            if i < qpos and self.answers[b, i] >= 0:
                answers.append((q, int(self.answers[b, i])))
        return {
            "hands": self.hands[b].astype(np.int64).tolist(),
            "held": [int(x) for x in self.held[b]],
            "hand_size": self.hand_size[b].astype(np.int64).tolist(),
            "draw_pile": self.draw_pile[b, :g[K.F_DRAWLEN]].astype(np.int64).tolist(),
            "discard": self.discard[b, :g[K.F_DISCLEN]].astype(np.int64).tolist(),
            "played": self.played[b].astype(np.int64).tolist(),
            "known": self.known[b].astype(np.int64).tolist(),
            "known_any": bool(g[K.F_KNOWNANY]),
            "history": self.history[b].astype(np.int64).tolist(),
            "color": int(g[K.F_COLOR]), "direction": int(g[K.F_DIR]), "dealer": int(g[K.F_DEALER]),
            "turn": int(g[K.F_TURN]), "actor": int(g[K.F_ACTOR]), "phase": int(g[K.F_PHASE]),
            "pending": int(g[K.F_PENDING]), "pending_kind": int(g[K.F_PKIND]),
            "skip": bool(g[K.F_SKIP]), "last_player": int(g[K.F_LAST]),
            "wd4_player": int(g[K.F_WD4P]), "wd4_guilty": bool(g[K.F_WD4G]),
            "wd4_color": int(g[K.F_WD4COLOR]), "drawn": int(g[K.F_DRAWN]),
            "drawn_from_offer": bool(g[K.F_FROMOFFER]), "asked": bool(g[K.F_ASKED]),
            "discards_left": int(g[K.F_DLEFT]), "queue": queue[qpos:], "answers": answers,
            "offers": self.offers[b].astype(np.int64).tolist(), "offender": int(g[K.F_OFFENDER]),
            "uno_called": [bool(x) for x in self.uno_called[b]],
            "scores": self.scores[b].astype(np.int64).tolist(),
            "round": int(g[K.F_ROUND]), "round_points": self.round_points[b].astype(np.int64).tolist(),
            "round_winner": int(g[K.F_RWINNER]), "steps": int(g[K.F_STEPS]), "turns": int(g[K.F_TURNS]),
            "game_over": bool(g[K.F_OVER]), "winner": int(g[K.F_WINNER]),
        }


def state_dict(s: State) -> dict[str, Any]:
    """A scalar :class:`State` in the form of ``BatchedEngine.game_state``: every field of the
    state but its generator (compared with ``rng_state``), the legal-action cache and the events
    (the batched engine records none)."""
    return {
        "hands": s.hands.astype(np.int64).tolist(), "held": [int(x) for x in s.held],
        "hand_size": [int(x) for x in s.hand_size],
        "draw_pile": [int(k) for k in s.draw_pile], "discard": [int(k) for k in s.discard],
        "played": s.played.astype(np.int64).tolist(), "known": s.known.astype(np.int64).tolist(),
        "known_any": bool(s.known_any), "history": s.history.astype(np.int64).tolist(),
        "color": s.color, "direction": s.direction, "dealer": s.dealer, "turn": s.turn,
        "actor": s.actor, "phase": s.phase, "pending": s.pending,
        "pending_kind": s.pending_kind if s.pending_kind != NO_PENDING else NO_PENDING,
        "skip": bool(s.skip), "last_player": s.last_player, "wd4_player": s.wd4_player,
        "wd4_guilty": bool(s.wd4_guilty), "wd4_color": s.wd4_color, "drawn": s.drawn,
        "drawn_from_offer": bool(s.drawn_from_offer), "asked": bool(s.asked),
        "discards_left": s.discards_left, "queue": [int(q) for q in s.queue],
        "answers": [(int(q), int(a)) for q, a in s.answers], "offers": [int(k) for k in s.offers],
        "offender": s.offender, "uno_called": [bool(x) for x in s.uno_called], "scores": list(s.scores),
        "round": s.round, "round_points": list(s.round_points), "round_winner": s.round_winner,
        "steps": s.steps, "turns": s.turns, "game_over": bool(s.game_over), "winner": s.winner,
    }


def rng_words(seeds: Iterable) -> np.ndarray:
    """``(len(seeds), 6)`` PCG64 words, row ``i`` the stream of ``default_rng(seeds[i])`` (for the
    random-action kernels' ``prng``)."""
    return np.stack([R.words_from_seed(s) for s in seeds]) if seeds else np.zeros((0, R.RNG_WORDS), np.uint64)
