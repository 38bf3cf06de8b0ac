"""Old module paths of the flat 0.1 layout, kept importable (``uno_env.engine`` ...).

The package was split into layers in 0.2 (``game``, ``agents``, ``envs``, ``tools``). An
import of an old path returns the module at its new path (the same object), so pickles
that name an old path (an SB3 ``model.zip`` saved with ``uno_env.checkpoint.ObsFeatures``)
still load, and ``python -m uno_env.play`` / ``python -m uno_env.replay`` still run.
``uno_env.web`` is a short name of the same kind for ``uno_env.tools.web.server``
(``python -m uno_env.web`` starts the web server).
New code should import the new paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

OLD_PATHS = {
    "uno_env.cards": "uno_env.game.cards",
    "uno_env.actions": "uno_env.game.actions",
    "uno_env.rules": "uno_env.game.rules",
    "uno_env.engine": "uno_env.game.engine",
    "uno_env.observation": "uno_env.game.observation",
    "uno_env.aec_env": "uno_env.envs.aec_env",
    "uno_env.gym_env": "uno_env.envs.gym_env",
    "uno_env.render": "uno_env.envs.render",
    "uno_env.checkpoint": "uno_env.agents.checkpoint",
    "uno_env.evaluate": "uno_env.tools.evaluate",
    "uno_env.gamelog": "uno_env.tools.gamelog",
    "uno_env.replay": "uno_env.tools.replay",
    "uno_env.play": "uno_env.tools.play",
    # not an old path: the short name of the web server, so that ``python -m uno_env.web`` runs
    "uno_env.web": "uno_env.tools.web.server",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module) -> None:  # the target module is already executed
        pass

    def get_code(self, fullname: str):  # ``python -m <old path>`` runs the target's code
        return importlib.util.find_spec(self.target).loader.get_code(self.target)


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        new = OLD_PATHS.get(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(new))


def install() -> None:
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.append(_AliasFinder())
