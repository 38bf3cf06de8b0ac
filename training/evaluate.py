"""Evaluate agents against each other: a thin command line over :mod:`uno_env.tools.evaluate`.

    python training/evaluate.py --agents heuristic random random random --rules classic \
        --games 10000 --seed 0 --workers 2 --out runs/eval
    python training/evaluate.py --pool heuristic greedy random --games 2000 --out runs/pool

Same as the ``uno-evaluate`` console script; ``--help`` lists every option.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from uno_env.tools.evaluate import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
