"""``python -m uno_env.tools.web``: the same as ``uno-serve``."""

import sys

from uno_env.tools.web.server import main

sys.exit(main())
