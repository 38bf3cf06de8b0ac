"""The tests of the studies in ``experiments/``: outside the default run (``testpaths`` is
``tests``), run with ``python -m pytest -q -p no:cacheprovider experiments/tests``.

They share the scenario helpers of the product's tests (``tests/helpers.py``), so that folder
goes on ``sys.path``.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tests"))
