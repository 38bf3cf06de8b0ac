"""uno_env: UNO for reinforcement learning.

The official Mattel rules, the UNO TMNT edition and a house-rules variant, as a pure rules
engine (:mod:`uno_env.game.engine`) with a PettingZoo AEC environment (:mod:`uno_env.envs.aec_env`)
and a Gymnasium single-agent view (``gymnasium.make("uno_env/Uno-v0")``) over it.

    import uno_env
    env = uno_env.env(rules="classic", num_players=4)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        ...

Importing the package registers ``"uno_env/uno-v0"`` with ``pettingzoo.make("aec", ...)``
and ``"uno_env/Uno-v0"`` with ``gymnasium.make`` and, batched over the official rules (needs
numba), ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``; and the six
TMNT battle-card games of :mod:`uno_env.battle` as ``"uno_env/tmnt-<game>-v0"`` (AEC, and
parallel for the games with simultaneous moves; docs/TMNT-BATTLE.md).
"""

from uno_env import _aliases
from uno_env.battle import register_envs as _register_battle
from uno_env.envs.aec_env import env, raw_env
from uno_env.game.rules import PRESETS, Rules, make_rules

__version__ = "0.5.13"
__all__ = ["env", "raw_env", "Rules", "make_rules", "PRESETS", "__version__"]


def _register() -> None:
    import gymnasium
    import pettingzoo

    if "uno_env/uno-v0" not in pettingzoo.aec_registry:
        pettingzoo.register("aec", "uno_env/uno-v0", entry_point="uno_env.envs.aec_env:env")
    if "uno_env/Uno-v0" not in gymnasium.registry:
        # The env enforces reset-before-step itself and passes Gymnasium's check_env in the
        # tests, so gymnasium.make returns it unwrapped: env.action_masks() and sb3-contrib's
        # ActionMasker(env, "action_masks") then work on the made env (Gymnasium 1.x wrappers
        # no longer forward attribute access).
        gymnasium.register("uno_env/Uno-v0", entry_point="uno_env.envs.gym_env:UnoGymEnv",
                           order_enforce=False, disable_env_checker=True,
                           vector_entry_point="uno_env.envs.vector_env:UnoVectorEnv")


_register()
_register_battle()
_aliases.install()
