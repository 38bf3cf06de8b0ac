"""A policy over the event history, its premise measured: do the round's public events say
more about the opponents' hands than the observation, with its HISTORY summary, does?

    python experiments/history_beliefs.py --players 2 --games 16000 --epochs 10 --seed 20261214

Issue 51's first lever is a policy that reads the public events of the round one by one (a
recurrent network or attention), on the premise that "the hands are read card by card from
what was played and drawn, which an MLP over a fixed summary has not learned". A policy can
only play on what its input tells it about the hidden hands, so this study asks the premise
directly, before any policy is trained: heuristic bots play every seat of ``--games`` games
(classic rules, the engine recording its public events), and at every turn with a choice two
networks answer, from the acting seat's side only, the two questions of
``belief_quality.py``:

* **colours**: does each opponent hold a card of each colour (wilds aside)? Brier score;
* **cards**: how many cards of each kind does each opponent hold? squared error per card
  kind and opponent, the network answering a correction to the card counter's answer
  (``belief_quality.py``'s "MLP over the counter").

The two networks differ only in their input:

* **summary**: the shipped policies' input (``obs_features`` of observation layout 1: the
  hand, the table, the cards played since the reshuffle, each opponent's HISTORY block -
  colours and faces it drew on, cards received since its last play, its last action and the
  colour it left), through two tanh layers of 256, then a linear head;
* **summary + events**: the same, and a GRU (128 units) over the round's public events up to
  the decision (``uno_env.game.events``: every play with its card and the colour after it,
  every draw and penalty with its count, UNO calls, challenges, skips, reversals, reshuffles,
  from the deal on), each event embedded as the sum of four learned vectors (kind, seat
  relative to the observer, card, value), its last state joined to the trunk's before the head.

Both are fitted on the same rows in the same order (batches of 64 rounds as one observer saw
them; Adam, lr 1e-3, ``--epochs`` passes, the trunk's initial weights the same; the head,
wider with the GRU, is not),
and scored on the held-out games (every fifth game). The gap between the two is what a policy
over the events could read that today's policies cannot; the gap between the summary and 0 is
what is hidden from both (``experiments/headroom.py`` measures what knowing the hands is worth
in play).

Measured (issue 51; held-out, in parentheses the fitting rows):

===========================  ========================  ========================
                             2 players, 16,000 games   4 players, 6,000 games
===========================  ========================  ========================
colours: base rate           0.2379                    0.2314
colours: summary             0.1345 (0.1313)           0.1489 (0.1467)
colours: summary + events    0.1219 (0.1113)           0.1306 (0.1220)
cards: card counter          0.0860                    0.0854
cards: summary               0.0812 (0.0809)           0.0838 (0.0830)
cards: summary + events      0.0801 (0.0792)           0.0836 (0.0825)
===========================  ========================  ========================

(``--epochs 10 --seed 20261214``; 23 and 21 minutes on one core each.) The events read
colours better (9% and 12% less Brier) and cards hardly at all (1.4% and 0.2% less error).
``--test-seed 20261216 --test-games 2000`` with ``--games 8000`` scores the networks that
``belief_search.py``'s ``summary`` and ``events`` arms deal from on fresh games: colours
0.1382 and 0.1233. What the sharper colours are worth to the 2-player ``search`` bot: -0.1
points (-2.9 to +2.6), paired over 800 games (docs/research-2p.md, "What the event history
says about the hands").

Deterministic: the deals and bots come from ``(--seed, game)``, the networks from ``--seed``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

from belief_quality import HELD_OUT_EVERY, HIDDEN, brier, hand_targets  # noqa: E402
from uno_env.agents.checkpoint import obs_features_layout  # noqa: E402
from uno_env.agents.heuristic import HeuristicAgent  # noqa: E402
from uno_env.agents.view import decode  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game import cards as C  # noqa: E402
from uno_env.game import events as E  # noqa: E402
from uno_env.game.engine import TURN, Engine  # noqa: E402
from uno_env.game.observation import MAX_PLAYERS, ObservationEncoder  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402

GRU_UNITS = 128
EMBEDDING = 64
ROUNDS_PER_BATCH = 64
MAX_GAMES = 40_000  # about 1M rows of 2-player turns, 1.5 GB of observation features

# An event as four small integers (the token): kind; seat relative to the observer (0 = the
# observer, NO_SEAT for none); card kind (NO_CARD for none); value code (VALUE_* ranges).
NO_SEAT = MAX_PLAYERS
NO_CARD = C.NUM_KINDS
VALUE_NONE = 0
VALUE_COLOUR = 1  # + colour: the colour after a play, or a chosen colour
VALUE_COUNT = VALUE_COLOUR + C.NUM_COLORS  # + min(count, MAX_COUNT): cards drawn
MAX_COUNT = 19
VALUE_DIRECTION = VALUE_COUNT + MAX_COUNT + 1  # + (1 if clockwise)
VALUE_CHALLENGE = VALUE_DIRECTION + 2  # + (1 if the Wild Draw Four was illegal)
NUM_VALUES = VALUE_CHALLENGE + 2
COLOUR_KINDS = (E.PLAYED, E.JUMPED_IN, E.COLOR_CHOSEN)
COUNT_KINDS = (E.DREW, E.PENALTY, E.CAUGHT)


def token(event: E.Event, observer: int, players: int) -> tuple[int, int, int, int]:
    """The four integers of ``event`` as ``observer`` (a seat) embeds it."""
    seat = (event.seat - observer) % players if event.seat >= 0 else NO_SEAT
    card = event.card if event.card >= 0 else NO_CARD
    if event.kind in COLOUR_KINDS and event.value >= 0:
        value = VALUE_COLOUR + event.value
    elif event.kind in COUNT_KINDS:
        value = VALUE_COUNT + min(max(event.value, 0), MAX_COUNT)
    elif event.kind == E.REVERSED:
        value = VALUE_DIRECTION + (event.value > 0)
    elif event.kind == E.CHALLENGED:
        value = VALUE_CHALLENGE + (event.value == 1)
    else:
        value = VALUE_NONE
    return event.kind, seat, card, value


def collect(players: int, games: int, seed: int) -> dict:
    """Rows of every turn with a choice: ``x`` (obs_features), ``truth`` (per opponent j = 1..
    seats to the left, per colour: holds one), ``counts`` and ``counter`` (per opponent and card
    kind: the cards it holds / the card counter's expected count), ``game``; ``seq`` (the row's
    round as its seat saw it: an index into ``sequences``) and ``length`` (how many of that
    sequence's events came before the decision). ``sequences``: int16 arrays (events x 4
    tokens) of each (game, round, observer) with a row, from the deal to the round's end."""
    rules = make_rules("classic")
    engine = Engine(rules, players, record_events=True)
    encoder = ObservationEncoder(engine)
    keep, scale = obs_features_layout(players)
    x, truth, counts, counter, game_of, seq, length = [], [], [], [], [], [], []
    sequences: list[np.ndarray] = []
    for g in range(games):
        rng = np.random.default_rng([seed, g])
        s = engine.new_state(rng)
        bots = [HeuristicAgent(rules, players, seed=int(b)) for b in rng.integers(2**31, size=players)]
        round_start, scanned = 0, 0  # the last deal's event, and the events read so far
        pending: list[tuple[int, int, int]] = []  # (row, round start, observer): sequences at the game's end
        while not s.game_over and not engine.truncated(s):
            p = s.actor
            bot = bots[p]
            v = decode(encoder.encode(s, p), A.legal_mask(engine.legal_actions(s)))
            if s.phase == TURN and len(v.legal) > 1:
                n = len(s.events)
                for i in range(scanned, n):
                    if s.events[i].kind == E.DEALT:
                        round_start = i
                scanned = n
                seats = [(p + j) % players for j in range(1, players)]
                x.append(v.obs[keep] * scale)
                for column, value in zip((truth, counts, counter), hand_targets(s, seats)):
                    column.append(value)
                game_of.append(g)
                length.append(n - round_start)
                seq.append(-1)
                pending.append((len(x) - 1, round_start, p))
            bot.beliefs.observe(v)  # HeuristicAgent.act on the decoded view
            a = bot.decide(v)
            bot.beliefs.remember(v, a)
            engine.step(s, a)
        starts = [i for i, e in enumerate(s.events) if e.kind == E.DEALT]
        end_of = dict(zip(starts, starts[1:] + [len(s.events)]))
        keys: dict[tuple[int, int], int] = {}  # (round start, observer) -> its sequence
        for row, start, observer in pending:
            key = (start, observer)
            if key not in keys:
                keys[key] = len(sequences)
                sequences.append(np.asarray([token(e, observer, players) for e in s.events[start:end_of[start]]],
                                            np.int16))
            seq[row] = keys[key]
    return {"x": np.asarray(x, np.float32), "truth": np.asarray(truth, np.float32),
            "counts": np.asarray(counts, np.float32), "counter": np.asarray(counter, np.float32),
            "game": np.asarray(game_of), "seq": np.asarray(seq, np.int64), "length": np.asarray(length, np.int64),
            "sequences": sequences}


def joined(first: dict, second: dict) -> dict:
    """The rows of two collections as one (``second``'s sequence indices moved past ``first``'s,
    its games after ``first``'s)."""
    out = {k: np.concatenate([first[k], second[k]]) for k in first if k != "sequences"}
    out["seq"][len(first["seq"]):] += len(first["sequences"])
    out["game"][len(first["game"]):] += int(first["game"].max()) + 1
    out["sequences"] = first["sequences"] + second["sequences"]
    return out


def fit(rows: dict, fitting: np.ndarray, target: np.ndarray, loss: str, events: bool, epochs: int, seed: int):
    """The network of the module docstring fitted to ``target`` on the rows ``fitting`` (a
    boolean mask); ``loss`` "bce" (logits, binary targets) or "mse"; ``events`` adds the GRU.
    Returns a function from a row mask to predictions (probabilities for "bce")."""
    import torch

    net = train(rows, fitting, target, loss, events, epochs, seed)

    def predict(mask: np.ndarray) -> np.ndarray:
        by, chosen = with_rows(rows["seq"], mask)
        answer = np.zeros((len(rows["x"]), target.shape[1]), np.float32)
        with torch.no_grad():
            for k in range(0, len(chosen), 256):
                batch_rows, batch = inputs(rows, by, chosen[k:k + 256])
                out = net(*batch)
                answer[batch_rows] = (torch.sigmoid(out) if loss == "bce" else out).numpy()
        return answer[mask]
    return predict


def train(rows: dict, fitting: np.ndarray, target: np.ndarray, loss: str, events: bool, epochs: int, seed: int):
    """The torch network of :func:`fit` (logits out)."""
    import torch

    net = build_net(rows["x"].shape[1], target.shape[1], events, seed)
    criterion = (torch.nn.functional.binary_cross_entropy_with_logits if loss == "bce"
                 else torch.nn.functional.mse_loss)
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    by, order = with_rows(rows["seq"], fitting)
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        rng.shuffle(order)
        for k in range(0, len(order), ROUNDS_PER_BATCH):
            batch_rows, batch = inputs(rows, by, order[k:k + ROUNDS_PER_BATCH])
            error = criterion(net(*batch), torch.as_tensor(target[batch_rows]))
            opt.zero_grad()
            error.backward()
            opt.step()
    return net


class EventBelief:
    """A fitted colours network (:func:`train`), as the search reads it (``belief_search.py``'s
    ``events`` arm, and with ``events=False`` its ``summary`` arm: the same trainer without the
    GRU): called on a seat's observation, the engine's public events so far and the seat, the
    chance that each opponent (row, 0 = the player to its left) holds each colour. Pickles as
    its weights (for worker processes)."""

    def __init__(self, state: dict, obs_size: int, players: int, events: bool = True):
        import torch

        self.state, self.obs_size, self.players, self.events = state, obs_size, players, events
        self.net = build_net(obs_size, (players - 1) * C.NUM_COLORS, events, 0)
        self.net.load_state_dict(state)
        self.net.eval()
        torch.set_num_threads(1)  # one process per core
        self.keep, self.scale = obs_features_layout(players)
        self.torch = torch

    @classmethod
    def fit(cls, rows: dict, players: int, epochs: int, seed: int, events: bool = True) -> "EventBelief":
        """Fitted on every row of ``rows`` (:func:`collect` of ``players``-seat games)."""
        import torch

        torch.set_num_threads(1)  # as the study's fits
        net = train(rows, np.ones(len(rows["x"]), bool), rows["truth"], "bce", events, epochs, seed)
        state = {k: v.detach().clone() for k, v in net.state_dict().items()}
        return cls(state, rows["x"].shape[1], players, events)

    def __reduce__(self):
        return EventBelief, (self.state, self.obs_size, self.players, self.events)

    def __call__(self, observation: np.ndarray, events: list | None, seat: int) -> np.ndarray:
        torch = self.torch
        if events is None:
            raise ValueError("no public events to read: the engine must record them (Engine(..., record_events=True))")
        start = next((i for i in range(len(events) - 1, -1, -1) if events[i].kind == E.DEALT), None)
        if start is None:
            raise ValueError("no deal among the events: pass the engine's whole event record (state.events)")
        tokens = np.asarray([token(e, seat, self.players) for e in events[start:]], np.int64).reshape(1, -1, 4)
        x = (observation[self.keep] * self.scale).astype(np.float32)[None]
        with torch.no_grad():
            logits = self.net(torch.as_tensor(x), torch.as_tensor(tokens), torch.zeros(1, dtype=torch.long),
                              torch.as_tensor([tokens.shape[1]]))
        return torch.sigmoid(logits).numpy().reshape(self.players - 1, C.NUM_COLORS)


def rows_by_sequence(seq: np.ndarray, mask: np.ndarray) -> list[np.ndarray]:
    """For each sequence, its rows among ``mask``."""
    rows = np.flatnonzero(mask)
    order = rows[np.argsort(seq[rows], kind="stable")]
    bounds = np.searchsorted(seq[order], np.arange(int(seq.max()) + 2))
    return [order[bounds[q]:bounds[q + 1]] for q in range(int(seq.max()) + 1)]


def with_rows(seq: np.ndarray, mask: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """:func:`rows_by_sequence`, and the sequences that have rows among ``mask``."""
    by = rows_by_sequence(seq, mask)
    return by, np.flatnonzero([len(r) > 0 for r in by])


def inputs(rows: dict, by: list[np.ndarray], seqs: np.ndarray):
    """The rows of the sequences ``seqs`` (``by``: each sequence's rows) and the network's inputs
    for them: observation features, padded tokens (sequences x longest x 4), each row's sequence
    (its place in ``seqs``) and how many of its events it saw."""
    import torch

    batch_rows = np.concatenate([by[q] for q in seqs])
    longest = max(1, max(len(rows["sequences"][q]) for q in seqs))
    tokens = np.zeros((len(seqs), longest, 4), np.int64)  # padding after a sequence's end: never read (causal GRU)
    for i, q in enumerate(seqs):
        tokens[i, :len(rows["sequences"][q])] = rows["sequences"][q]
    position = np.full(len(rows["sequences"]), -1, np.int64)
    position[seqs] = np.arange(len(seqs))
    place = position[rows["seq"][batch_rows]]
    return batch_rows, (torch.as_tensor(rows["x"][batch_rows]), torch.as_tensor(tokens), torch.as_tensor(place),
                        torch.as_tensor(rows["length"][batch_rows]))


def build_net(obs_size: int, out_size: int, events: bool, seed: int):
    """The summary trunk (two tanh layers) and head; with ``events``, the GRU over the tokens.
    The trunk's initial weights depend on ``seed`` alone (the same in both arms)."""
    import torch
    from torch import nn

    class EventNet(nn.Module):
        def __init__(self):
            super().__init__()
            with torch.random.fork_rng():  # seeded here, torch's global generator left as it was
                torch.manual_seed(seed)
                self.trunk = nn.Sequential(nn.Linear(obs_size, HIDDEN), nn.Tanh(), nn.Linear(HIDDEN, HIDDEN), nn.Tanh())
                torch.manual_seed(seed + 1)
                self.head = nn.Linear(HIDDEN + (GRU_UNITS if events else 0), out_size)
                if events:
                    self.embed = nn.ModuleList([
                        nn.Embedding(E.NUM_EVENT_KINDS, EMBEDDING), nn.Embedding(NO_SEAT + 1, EMBEDDING),
                        nn.Embedding(NO_CARD + 1, EMBEDDING), nn.Embedding(NUM_VALUES, EMBEDDING)])
                    self.gru = nn.GRU(EMBEDDING, GRU_UNITS, batch_first=True)

        def forward(self, x, tokens, place, seen):
            h = self.trunk(x)
            if events:
                e = sum(self.embed[f](tokens[..., f]) for f in range(4))
                states, _ = self.gru(e)  # states[:, t] after the events 0..t
                states = torch.cat([torch.zeros_like(states[:, :1]), states], dim=1)  # [:, n] after n events
                h = torch.cat([h, states[place, seen]], dim=-1)
            return self.head(h)

    return EventNet()


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-players", "--players", dest="players", type=int, default=2)
    p.add_argument("--games", type=int, default=16000)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--seed", type=int, default=20261214)
    p.add_argument("--test-seed", type=int, default=None,
                   help="fit on every game of --seed and score on --test-games games of this seed instead "
                        "(the networks of belief_search.py's summary and events arms, scored on fresh games)")
    p.add_argument("--test-games", type=int, default=2000)
    args = p.parse_args(argv)
    if not HELD_OUT_EVERY <= args.games <= MAX_GAMES or not 1 <= args.epochs <= 1000 or not 2 <= args.players <= 10 \
            or args.seed < 0 or (args.test_seed is not None and (args.test_seed < 0 or args.test_seed == args.seed
                                                                 or not 1 <= args.test_games <= MAX_GAMES)):
        p.error(f"--games must be in {HELD_OUT_EVERY}..{MAX_GAMES}, --epochs in 1..1000, --players in 2..10, "
                f"--seed >= 0; --test-seed >= 0 and not --seed, --test-games in 1..{MAX_GAMES}")
    import torch

    torch.set_num_threads(1)
    began = time.time()
    rows = collect(args.players, args.games, args.seed)
    if args.test_seed is None:
        held = rows["game"] % HELD_OUT_EVERY == HELD_OUT_EVERY - 1
    else:
        fitting = len(rows["x"])
        rows = joined(rows, collect(args.players, args.test_games, args.test_seed))
        held = np.arange(len(rows["x"])) >= fitting
    collected = time.time() - began
    truth, counts, counter = rows["truth"], rows["counts"], rows["counter"]
    out = {"players": args.players, "games": args.games, "seed": args.seed, "epochs": args.epochs,
           "test_seed": args.test_seed, "test_games": args.test_games if args.test_seed is not None else None,
           "rows": len(truth), "held_out_rows": int(held.sum()), "rounds_seen": len(rows["sequences"]),
           "mean_events": float(np.mean(rows["length"])), "base_rate": float(truth[~held].mean()),
           "brier": {"base rate": brier(np.full_like(truth[held], truth[~held].mean()), truth[held])},
           "count_mse": {"card counter": brier(counter[held], counts[held])}, "fit_brier": {}, "fit_count_mse": {},
           "collect_s": collected}
    for name, events in (("summary", False), ("summary + events", True)):
        colours = fit(rows, ~held, truth, "bce", events, args.epochs, args.seed)
        out["brier"][name] = brier(colours(held), truth[held])
        out["fit_brier"][name] = brier(colours(~held), truth[~held])
        correction = fit(rows, ~held, counts - counter, "mse", events, args.epochs, args.seed)
        out["count_mse"][name] = brier(counter[held] + correction(held), counts[held])
        out["fit_count_mse"][name] = brier(counter[~held] + correction(~held), counts[~held])
    out["wall_s"] = time.time() - began
    scored = "held out" if args.test_seed is None else f"scored (of {args.test_games} games, seed {args.test_seed})"
    print(f"{args.players} players, {args.games} games (seed {args.seed}): {out['rows']} rows, "
          f"{out['held_out_rows']} {scored}, {out['mean_events']:.1f} events of the round before a decision "
          f"on average; base rate {out['base_rate']:.3f}")
    print("| predictor | colours: held-out Brier (fitting) | cards: held-out squared error (fitting) |\n|---|---:|---:|")
    print(f"| base rate / card counter | {out['brier']['base rate']:.4f} | {out['count_mse']['card counter']:.4f} |")
    for name in ("summary", "summary + events"):
        print(f"| {name} | {out['brier'][name]:.4f} ({out['fit_brier'][name]:.4f}) | "
              f"{out['count_mse'][name]:.4f} ({out['fit_count_mse'][name]:.4f}) |")
    print(f"{out['wall_s']:.0f} s ({collected:.0f} s collecting)")
    return out


if __name__ == "__main__":
    main()
