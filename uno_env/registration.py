"""The envs' ids in Gymnasium's and PettingZoo's registries, registered by ``import uno_env``.

==========================  ===============================================================
``uno_env/Uno-v1``          ``gymnasium.make``: the single-agent view
                            (:class:`uno_env.envs.gym_env.UnoGymEnv`); ``gymnasium.make_vec(...,
                            vectorization_mode="vector_entry_point")`` builds the batched
                            :class:`uno_env.envs.vector_env.UnoVectorEnv` (needs numba; the
                            same observation, layout 1; ``layout=0``: its first 1254 entries)
``uno_env/uno-v1``          ``pettingzoo.make("aec", ...)`` (PettingZoo versions with a
                            registry): the AEC env of :func:`uno_env.envs.aec_env.env`
``uno_env/Uno-v0``,         retired: making one raises an error that says what changed
``uno_env/uno-v0``          (:data:`V0_CHANGES`); Gymnasium's ``DeprecatedEnv`` for the first
``uno_env/tmnt-<game>-v0``  ``pettingzoo.make``: the battle-card games
                            (:func:`uno_env.battle.register_envs`)
==========================  ===============================================================

**Versions.** An id's version changes when what an agent trained on it meets changes: the
observation, the rewards or the rules' defaults (Gymnasium's and PettingZoo's convention).
v0 named the observation of 1254 entries (layout 0) of uno_env 0.1-0.2; v1 is the current
behaviour (layout 1, 1537 entries, since uno_env 0.3). The envs of v0 cannot be rebuilt, so
their ids stay registered only to refuse, naming what changed (Gymnasium alone would say
"deprecated" without why); a retired id's entry point is :func:`refuse_v0`.

Entry points are strings, so registering imports none of the envs: an env module is imported
when the first env is made. Gymnasium 1.x has no plugin discovery (its ``gymnasium.envs``
entry-point group was removed in 1.0), so the ids exist once ``uno_env`` has been imported
(or through Gymnasium's ``"uno_env:uno_env/Uno-v1"`` form, which imports it). A library that
is not installed is skipped: the game layer (:mod:`uno_env.game`), the agents and the tools
that need no env work without Gymnasium or PettingZoo.
"""

from __future__ import annotations

from typing import Any, NoReturn

from uno_env.battle import register_envs as register_battle_envs

GYMNASIUM_ID = "uno_env/Uno-v1"
PETTINGZOO_ID = "uno_env/uno-v1"
GYMNASIUM_V0, PETTINGZOO_V0 = "uno_env/Uno-v0", "uno_env/uno-v0"
V0_CHANGES = ("v0 named the observation of uno_env 0.1-0.2, 1254 entries (layout 0); since uno_env 0.3 "
              "it has 1537 (layout 1: those 1254, unchanged, then each opponent's public history and "
              "the colour before a challengeable Wild Draw Four), and since 0.5.13 an opponent that "
              "keeps a playable drawn card shows 'drew' there. Checkpoints trained on layout 0 still "
              "play (checkpoint:<dir>).")


def refuse_v0(*_: Any, **__: Any) -> NoReturn:
    """The entry point of the retired v0 ids: an error naming what changed and the id to use."""
    try:
        from gymnasium.error import DeprecatedEnv as Retired
    except ImportError:  # PettingZoo alone
        Retired = ValueError
    raise Retired(f"{GYMNASIUM_V0} and {PETTINGZOO_V0} are retired: {V0_CHANGES} Use {GYMNASIUM_ID} "
                  f"(gymnasium.make) or {PETTINGZOO_ID} (pettingzoo.make), or uno_env.env(...).")


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
        gymnasium.register(GYMNASIUM_V0, entry_point="uno_env.registration:refuse_v0",
                           vector_entry_point="uno_env.registration:refuse_v0")
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
        pettingzoo.register("aec", PETTINGZOO_V0, entry_point="uno_env.registration:refuse_v0")
        pettingzoo.register("aec", PETTINGZOO_ID, entry_point="uno_env.envs.aec_env:env")
    register_battle_envs()
