"""uno_env: UNO for reinforcement learning.

The official Mattel rules, the UNO TMNT edition and a house-rules variant, as a pure rules
engine (:mod:`uno_env.game.engine`) with a PettingZoo AEC environment (:mod:`uno_env.envs.aec_env`)
and a Gymnasium single-agent view (``gymnasium.make("uno_env/Uno-v1")``) over it.

    import uno_env
    env = uno_env.env(rules="classic", num_players=4)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        ...

Importing the package registers ``"uno_env/uno-v1"`` with ``pettingzoo.make("aec", ...)``
and ``"uno_env/Uno-v1"`` with ``gymnasium.make`` and, batched over the official rules (needs
numba), ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``; and the six
TMNT battle-card games of :mod:`uno_env.battle` as ``"uno_env/tmnt-<game>-v0"`` (AEC, and
parallel for the games with simultaneous moves; docs/TMNT-BATTLE.md); all of it in
:mod:`uno_env.registration`. It imports no env: ``uno_env.env`` and ``uno_env.raw_env`` load
:mod:`uno_env.envs.aec_env` on first use, so the game layer (``import uno_env.game.engine``)
works without Gymnasium or PettingZoo installed.
"""

from uno_env import registration
from uno_env.game.rules import PRESETS, Rules, make_rules

__version__ = "0.5.14"
__all__ = ["env", "raw_env", "Rules", "make_rules", "PRESETS", "__version__"]
_ENVS = ("env", "raw_env")  # loaded on first use, from uno_env.envs.aec_env (PettingZoo, Gymnasium)


def __getattr__(name: str):
    if name in _ENVS:
        from uno_env.envs import aec_env

        value = globals()[name] = getattr(aec_env, name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ENVS))


registration.register()
