"""The envs' ids in Gymnasium's and PettingZoo's registries, registered by ``import uno_env``.

==========================  ===============================================================
``uno_env/Uno-v0``          ``gymnasium.make``: the single-agent view
                            (:class:`uno_env.envs.gym_env.UnoGymEnv`); ``gymnasium.make_vec(...,
                            vectorization_mode="vector_entry_point")`` builds the batched
                            :class:`uno_env.envs.vector_env.UnoVectorEnv` (needs numba)
``uno_env/uno-v0``          ``pettingzoo.make("aec", ...)`` (PettingZoo versions with a
                            registry): the AEC env of :func:`uno_env.envs.aec_env.env`
``uno_env/tmnt-<game>-v0``  ``pettingzoo.make``: the battle-card games
                            (:func:`uno_env.battle.register_envs`)
==========================  ===============================================================

Entry points are strings, so registering imports none of the envs: an env module is imported
when the first env is made. Gymnasium 1.x has no plugin discovery (its ``gymnasium.envs``
entry-point group was removed in 1.0), so the ids exist once ``uno_env`` has been imported
(or through Gymnasium's ``"uno_env:uno_env/Uno-v0"`` form, which imports it). A library that
is not installed is skipped: the game layer (:mod:`uno_env.game`), the agents and the tools
that need no env work without Gymnasium or PettingZoo.
"""

from __future__ import annotations

from uno_env.battle import register_envs as register_battle_envs

GYMNASIUM_ID = "uno_env/Uno-v0"
PETTINGZOO_ID = "uno_env/uno-v0"


def register() -> None:
    """Register the ids with every installed library that has a registry (once; idempotent)."""
    try:
        import gymnasium
    except ImportError:
        gymnasium = None
    if gymnasium is not None and GYMNASIUM_ID not in gymnasium.registry:
        # The env enforces reset-before-step itself and passes Gymnasium's check_env in the
        # tests, so gymnasium.make returns it unwrapped: env.action_masks() and sb3-contrib's
        # ActionMasker(env, "action_masks") then work on the made env (Gymnasium 1.x wrappers
        # no longer forward attribute access).
        gymnasium.register(GYMNASIUM_ID, entry_point="uno_env.envs.gym_env:UnoGymEnv",
                           order_enforce=False, disable_env_checker=True,
                           vector_entry_point="uno_env.envs.vector_env:UnoVectorEnv")
    try:
        import pettingzoo
    except ImportError:
        return
    if not hasattr(pettingzoo, "register"):  # a PettingZoo without a registry
        return
    if PETTINGZOO_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", PETTINGZOO_ID, entry_point="uno_env.envs.aec_env:env")
    register_battle_envs()
