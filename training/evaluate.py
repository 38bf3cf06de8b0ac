"""Evaluate agents against each other: a thin entry point for ``uno-evaluate``.

    python training/evaluate.py --agents heuristic random random random --rules classic \\
        --games 10000 --seed 0 --workers 2 --out runs/eval
    python training/evaluate.py --pool heuristic greedy random --games 2000 --out runs/pool
    python training/evaluate.py --agents checkpoint:checkpoints/classic-2p heuristic --set uno_call=explicit

Exactly the ``uno-evaluate`` console script (same flags; ``--help`` lists them). The command
line lives in the package, :mod:`uno_env.tools.evaluate_cli`; the library in
:mod:`uno_env.tools.evaluate` (games), :mod:`uno_env.tools.stats` (intervals, ratings) and
:mod:`uno_env.tools.report` (tables and files). This file only puts the checkout first on
``sys.path``, so that it runs from a checkout without an install and evaluates that
checkout's code.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from uno_env.tools.evaluate_cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
