"""Test layout mirrors the package: tests/game, tests/agents, tests/envs, tests/tools, tests/training.

``helpers`` (shared scenario helpers: stacked decks, hand checks, conservation) is imported
by the test modules of every folder, so this folder goes on ``sys.path``.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
