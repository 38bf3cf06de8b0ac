"""Fit the value model of the ``search`` bot's truncated rollouts (classic rules, 2 players).

    python bench/fit_search_value.py --games 20000 --seed 31337

Plays ``--games`` heuristic-vs-heuristic games, records every regular turn (the hands of
the player to move and of its opponent, the colour and top card) and whether the player to
move went on to win, then fits a logistic regression (Newton's method, a small L2 penalty)
on :func:`uno_env.agents.search.value_features`. It prints the held-out log loss of the
model and of a sizes-only model, and the weights as the Python tuple that
``uno_env/agents/search.py`` holds in ``VALUE_WEIGHTS``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def collect(games: int, seed: int):
    from uno_env.agents import make_agent
    from uno_env.agents.search import value_features
    from uno_env.game.actions import legal_mask
    from uno_env.game.engine import TURN, Engine
    from uno_env.game.observation import ObservationEncoder
    from uno_env.game.rules import make_rules

    rules = make_rules("classic")
    engine = Engine(rules, 2)
    encoder = ObservationEncoder(engine)
    agents = [make_agent("heuristic", rules, 2, seed=seed * 2 + i) for i in range(2)]
    X, y = [], []
    for g in range(games):
        s = engine.new_state(np.random.default_rng([seed, g]))
        for a in agents:
            a.reset(seed * 1_000_003 + g)
        rows = []
        while not s.game_over:
            p = s.actor
            if s.phase == TURN:
                rows.append((p, value_features(s.hands[p].tolist(), s.hands[1 - p].tolist(), s.color,
                                               s.discard[-1])))
            engine.step(s, agents[p].act(encoder.encode(s, p), legal_mask(engine.legal_actions(s))))
        for p, f in rows:
            X.append(f)
            y.append(1.0 if p == s.winner else 0.0)
    return np.array(X, np.float64), np.array(y, np.float64)


def fit(X: np.ndarray, y: np.ndarray, iterations: int = 30, l2: float = 1e-3) -> np.ndarray:
    X = np.column_stack([np.ones(len(X)), X])
    w = np.zeros(X.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-X @ w))
        grad = X.T @ (p - y) + l2 * w
        hess = (X * (p * (1 - p))[:, None]).T @ X + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w


def log_loss(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = 1.0 / (1.0 + np.exp(-np.column_stack([np.ones(len(X)), X]) @ w))
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=31337)
    args = ap.parse_args()
    t = time.time()
    X, y = collect(args.games, args.seed)
    idx = np.random.default_rng(0).permutation(len(y))
    cut = int(0.8 * len(y))
    tr, te = idx[:cut], idx[cut:]
    w = fit(X[tr], y[tr])
    sizes = [0, 1, 10, 11]  # log and 1/x of both hand sizes
    ws = fit(X[tr][:, sizes], y[tr])
    base = float(y.mean())
    print(f"{len(y)} turns from {args.games} games in {time.time() - t:.0f} s; held-out log loss: "
          f"constant {-(base * np.log(base) + (1 - base) * np.log(1 - base)):.4f}, "
          f"sizes only {log_loss(X[te][:, sizes], y[te], ws):.4f}, all features {log_loss(X[te], y[te], w):.4f}")
    w = fit(X, y)
    print("VALUE_WEIGHTS = (" + ", ".join(f"{x:.4f}" for x in w) + ")")


if __name__ == "__main__":
    main()
