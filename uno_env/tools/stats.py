"""Statistics of the evaluation tool: intervals, summaries, ranks and ratings.

Pure functions over numbers (numpy only), used by :mod:`uno_env.tools.evaluate`:

=======================  ================================================================
function                 what
=======================  ================================================================
``wilson_interval``      Wilson score interval of a binomial proportion (95% by default);
                         ``(0, 1)`` for no trials. Preferred over the normal interval: it
                         stays inside [0, 1] and keeps its coverage near 0% and 100%.
``summarize``            count, mean, std, min, max and the ``PERCENTILES`` of a sample
                         (numpy's default linear interpolation)
``mean_interval``        normal interval of a sample's mean (95% by default): for paired
                         differences, e.g. game by game between two players on the same deals
``ranks``                rank of each key, 1 = best (smallest key); ties share the mean rank
``bradley_terry``        log-strengths from a pairwise win matrix (Hunter's MM algorithm,
                         with ``prior`` virtual wins and losses between every pair that met)
``elo_from_bt``          log-strengths on the Elo scale: 400 * log10(strength), mean 1500
=======================  ================================================================
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal
PERCENTILES = (5, 25, 50, 75, 90, 95, 99)
ELO_MEAN = 1500.0


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (default 95%); (0, 1) for no trials."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    center = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1.0 - p) / trials + z2 / (4 * trials * trials)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def summarize(values: Sequence[float]) -> dict[str, float]:
    """Mean, standard deviation, min, max and percentiles of ``values``."""
    if len(values) == 0:
        return {"count": 0}
    a = np.asarray(values, dtype=np.float64)
    out = {"count": int(a.size), "mean": float(a.mean()), "std": float(a.std()),
           "min": float(a.min()), "max": float(a.max())}
    for q, v in zip(PERCENTILES, np.percentile(a, PERCENTILES)):
        out[f"p{q}"] = float(v)
    return out


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """The mean of ``values`` and its normal interval, ``mean -+ z`` standard errors (sample
    standard deviation); the interval is infinite for fewer than two values. A ``ValueError``
    for none."""
    a = np.asarray(values, dtype=np.float64)
    if a.size == 0:
        raise ValueError("mean_interval of no values")
    mean = float(a.mean())
    half = z * float(a.std(ddof=1)) / math.sqrt(a.size) if a.size > 1 else math.inf
    return mean, mean - half, mean + half


def ranks(keys: Sequence[Any]) -> list[float]:
    """Rank (1 = best) of each key, smaller keys better; ties share the mean rank."""
    order = sorted(range(len(keys)), key=lambda i: keys[i])
    out = [0.0] * len(keys)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and keys[order[j + 1]] == keys[order[i]]:
            j += 1
        r = (i + j) / 2 + 1
        for t in range(i, j + 1):
            out[order[t]] = r
        i = j + 1
    return out


def bradley_terry(wins: np.ndarray, prior: float = 0.5, iters: int = 2000,
                  tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry strengths from ``wins[i, j]`` (times i beat j), by Hunter's MM algorithm.

    ``prior`` adds that many virtual wins and losses between every pair that met, so an
    undefeated agent still gets a finite strength. Returns log-strengths with mean 0.
    """
    w = np.asarray(wins, dtype=np.float64).copy()
    k = w.shape[0]
    met = (w + w.T) > 0
    w += prior * met
    games = w + w.T
    total_wins = w.sum(axis=1)
    p = np.ones(k)
    for _ in range(iters):
        denom = (games / (p[:, None] + p[None, :] + 1e-300)).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.maximum(denom, 1e-300), p)
        new = np.maximum(new, 1e-12)
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    logp = np.log(p)
    return logp - logp.mean()


def elo_from_bt(log_strength: np.ndarray, mean: float = ELO_MEAN) -> np.ndarray:
    """Log-strengths on the Elo scale (400 * log10 of the strength), centred on ``mean``."""
    return mean + 400.0 / math.log(10.0) * (np.asarray(log_strength) - np.mean(log_strength))
