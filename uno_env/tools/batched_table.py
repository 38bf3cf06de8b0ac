"""A line-up's games on the batched engine, by the protocol of :mod:`uno_env.tools.table`.

    from uno_env.tools.batched_table import play_batched
    played = play_batched(["pretrained:classic-2p", "random"], rules, 2, games=100_000, seed=0)
    # list[TableGame], as Table.play gives them: lineup_stats.aggregate, pool, ladder, paired

:mod:`uno_env.tools.matches` plays a line-up here instead of in the scalar arena when every
entry plays batched (:mod:`uno_env.agents.batched`: compiled bots, numpy policies) and no game
log is asked for; the results are the same statistics of the same kind of games.

**The same protocol.** Seats rotate by one every game (game ``g``: entry ``(s + g) % n`` at seat
``s``), the dealer is the last seat, and with ``duplicate`` the ``n`` rotations of a block share
one deal: game ``g``'s cards come from ``np.random.default_rng([seed, g // n])``
(``[seed, g]`` without duplicate), the very generator :class:`~uno_env.tools.table.Table`
deals with, so both engines deal the same cards, dealer and reshuffles to game ``g``. A compiled
bot draws its choices from a stream that is a function of ``(seed, g, entry)`` (``greedy``: from
the stream a ``GreedyAgent`` reset with ``agent_seed(seed, g, entry)`` draws, as in the arena;
``heuristic``'s beliefs start afresh every game). Game ``g`` is therefore a function of ``(seed, g)`` only, whatever the
batch, the workers or the order games finish in; two deterministic policies play exactly the
scalar arena's game (up to float rounding in a batched matrix product). Two things differ from
the arena: the compiled ``random`` bot's choices are drawn with the compiled kernel from its own
PCG64 stream per game and entry (:func:`bot_streams`: the same choice distribution as the scalar
bot, not the same draws), and a ``#sample`` policy draws
from one generator per entry, seeded with ``agent_seed(seed, -1, entry)``, across the batch (its
games then depend on ``(seed, g)`` and ``batch``).

**One BLAS thread.** The policies' matrix products run with numpy's BLAS held to
:data:`BLAS_THREADS` (1) threads while the games play, through ``threadpoolctl`` (in the
``batched`` extra; without it, BLAS keeps its own count: set ``OPENBLAS_NUM_THREADS=1`` before
Python starts for the same effect): at batch 2048 the products are small enough that more
threads only spin, costing 3.3x the CPU time (docs/evaluation.md).

**How.** ``batch`` games run at once; each finished game's slot starts the next game. Per round
of decisions, each line-up entry answers in one call for all games where it decides (a
compiled kernel, or the policy on all those observations). An illegal answer of a policy is a
``ValueError`` naming the game; nothing is written.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Sequence

import numpy as np

from uno_env.agents.arena import GameRecord
from uno_env.agents.batched import batched_actor
from uno_env.game import actions as A
from uno_env.game.observation import LAYOUT_VERSION
from uno_env.game.rules import Rules
from uno_env.tools.stats import ranks
from uno_env.tools.table import TableGame, agent_seed, rank_keys

DEFAULT_BATCH = 2048  # games at once: the least CPU of 512, 2048 and 8192 (docs/evaluation.md)


BLAS_THREADS = 1  # numpy's BLAS threads while a batched evaluation plays (module doc)
BOT_STREAM = 0xB07  # tells a compiled bot's streams from every other use of the seed


def bot_streams(seed: int, entry: int, stop: int) -> np.ndarray:
    """``(stop, 6)`` PCG64 words: row ``g`` the stream of line-up entry ``entry``'s compiled bot in
    game ``g``: state and increment (odd) from ``SeedSequence([seed, entry, BOT_STREAM])``'s
    words ``4g .. 4g+3`` (one vectorised call for every game, where seeding a generator per game
    cost a third of a 2-player evaluation's time outside the policy)."""
    words = np.random.SeedSequence([seed, entry, BOT_STREAM]).generate_state(4 * stop, np.uint64).reshape(stop, 4)
    out = np.zeros((stop, 6), np.uint64)
    out[:, :4] = words
    out[:, 3] |= np.uint64(1)  # PCG64's increment is odd
    return out


def _deal_words(seed: int, deals: np.ndarray, uses: int, cache: dict) -> np.ndarray:
    """PCG64 words of ``default_rng([seed, deal])`` per deal (the table's deck generator),
    computed once per deal: ``uses`` games share one (``n`` with duplicate deals, else 1)."""
    from uno_env.game.batched.pcg64 import words_from_seed

    out = np.zeros((len(deals), 6), np.uint64)
    for i, d in enumerate(deals.tolist()):
        entry = cache.get(d)
        if entry is None:
            entry = cache[d] = [words_from_seed([seed, d]), 0]
        out[i] = entry[0]
        entry[1] += 1
        if entry[1] == uses:
            del cache[d]
    return out


def blas_threads(limit: int = BLAS_THREADS):
    """A context in which numpy's BLAS uses at most ``limit`` threads (``threadpoolctl``; a context
    that changes nothing where it is not installed)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=limit, user_api="blas")


def play_batched(lineup: Sequence[Any], rules: Rules, num_players: int, games: int, seed: int = 0,
                 duplicate: bool = True, batch: int = DEFAULT_BATCH, start: int = 0,
                 progress: Callable[[int], None] | None = None) -> list[TableGame]:
    """Games ``start .. start + games - 1`` of the line-up (one entry per seat), in game order."""
    with blas_threads():
        return _play(lineup, rules, num_players, games, seed, duplicate, batch, start, progress)


def _play(lineup: Sequence[Any], rules: Rules, num_players: int, games: int, seed: int, duplicate: bool,
          batch: int, start: int, progress: Callable[[int], None] | None) -> list[TableGame]:
    from uno_env.game.batched import BatchedEngine
    from uno_env.game.batched import kernels as K

    n = int(num_players)
    if len(lineup) != n:
        raise ValueError(f"a line-up needs one agent per seat ({n}), got {len(lineup)}")
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise ValueError(f"batch must be a positive integer, got {batch!r}")
    actors = [batched_actor(spec, rules, n, agent_seed(seed, -1, e)) for e, spec in enumerate(lineup)]
    if games < 1:
        return []
    B = int(min(batch, games))
    eng = BatchedEngine(rules, n, B, layout=LAYOUT_VERSION)
    for a in actors:
        if a.kind == "policy" and a.width > eng.obs_size:  # pragma: no cover - no later layout exists
            raise ValueError(f"{a.label} reads {a.width} observation entries; the engine gives {eng.obs_size}")
    bots = [e for e, a in enumerate(actors) if a.kind == "bot"]
    players = {e: actors[e].player(eng) for e in bots}
    streams = {e: bot_streams(seed, e, start + games) for e in bots}
    deal_cache: dict = {}
    game_of = np.zeros(B, np.int64)
    entry_at = np.zeros((B, n), np.int64)  # line-up entry at each seat
    seats = np.arange(n)
    multi_round = rules.episode != "round"
    alternative = rules.scoring == "alternative"
    out: list[TableGame | None] = [None] * games

    def start_games(slots: np.ndarray, first: int) -> None:
        g = np.arange(first, first + len(slots))
        game_of[slots] = g
        entry_at[slots] = (seats[None, :] + g[:, None]) % n
        deals = g // n if duplicate else g
        for e in bots:
            player = players[e]
            seeds = [agent_seed(seed, int(x), e) for x in g] if player.needs_seeds else None
            player.start(slots, (e - g) % n, streams[e][g], seeds)  # entry e sits at seat (e - g) mod n
        eng.rng[slots] = _deal_words(seed, deals, n if duplicate else 1, deal_cache)
        eng.reset(slots, dealers=n - 1)  # deals from the stream just set, as Table.play's generator

    start_games(np.arange(B), start)
    started = B
    running = np.ones(B, bool)
    actions = np.zeros(B, np.int64)
    obs = np.zeros((B, eng.obs_size), np.float32)
    masks = np.zeros((B, A.NUM_ACTIONS), np.int8)
    rows_b = np.arange(B)
    max_steps = rules.max_steps
    finished = 0
    while running.any():
        live = running & ~eng.game_over & (eng.steps < max_steps)
        deciding = entry_at[rows_b, np.where(live, eng.actor, 0)]
        for e, actor in enumerate(actors):
            sel = live & (deciding == e)
            if not sel.any():
                continue
            if actor.kind == "bot":
                actions[sel] = players[e].actions(sel)[sel]
                continue
            rows = np.flatnonzero(sel)
            o = eng.observe(eng.actor, sel, out=obs)[rows]
            m = eng.legal_masks(sel, out=masks)[rows]
            got = np.asarray(actor.act(o, m)).reshape(-1)
            if got.shape != (len(rows),) or not np.issubdtype(got.dtype, np.integer):
                raise ValueError(f"{actor.label} answered {got.dtype} of shape {got.shape} for {len(rows)} "
                                 f"decisions; it must give one action id per decision")
            bad = (got < 0) | (got >= A.NUM_ACTIONS)
            bad[~bad] = m[np.flatnonzero(~bad), got[~bad]] == 0
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise ValueError(f"game {int(game_of[rows[i]])}: {actor.label} at seat {int(eng.actor[rows[i]])} "
                                 f"chose an illegal action {int(got[i])}")
            actions[rows] = got
        eng.step(actions, active=live, checked=True)
        done = running & (eng.game_over | (eng.steps >= max_steps))
        if not done.any():
            continue
        idx = np.flatnonzero(done)
        over = eng.game_over[idx]
        winners = np.where(over, eng.winner[idx], -1)
        returns = eng.returns()
        points = eng.hands[idx].astype(np.int64) @ eng.points
        g = eng.g[idx]
        rounds, turns, steps = g[:, K.F_ROUND], g[:, K.F_TURNS], g[:, K.F_STEPS]
        for i, b in enumerate(idx):
            w = int(winners[i])
            record = GameRecord(winner=w, truncated=w < 0, turns=int(turns[i]), steps=int(steps[i]),
                                rounds=int(rounds[i]), dealer=n - 1,
                                scores=tuple(int(x) for x in eng.scores[b]),
                                hand_points=tuple(int(x) for x in points[i]),
                                cards_left=tuple(int(x) for x in eng.hand_size[b]),
                                rewards=tuple(float(x) for x in returns[b]))
            seat_entry = tuple(int(x) for x in entry_at[b])
            out[int(game_of[b]) - start] = TableGame(int(game_of[b]), seat_entry, record,
                                                     tuple(ranks(rank_keys(record, multi_round, alternative))))
        finished += len(idx)
        if progress is not None:
            progress(len(idx))
        nxt = idx[:max(0, games - started)]
        running[idx[len(nxt):]] = False
        if len(nxt):
            start_games(nxt, start + started)
            started += len(nxt)
    return out  # type: ignore[return-value]
