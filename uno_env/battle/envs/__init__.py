"""PettingZoo adapters of the battle-card games: :mod:`.aec_env` (every game),
:mod:`.parallel_env` (the games with simultaneous moves), :mod:`.table` (what both share)."""

from uno_env.battle.envs.aec_env import env, raw_env
from uno_env.battle.envs.parallel_env import BattleParallelEnv, parallel_env

__all__ = ["env", "raw_env", "parallel_env", "BattleParallelEnv"]
