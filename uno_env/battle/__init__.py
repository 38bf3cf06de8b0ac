"""The six TMNT battle-card games of the first source sheet, as PettingZoo environments
(docs/TMNT-BATTLE.md is the specification).

==========  ===============================  ========================================
game        AEC id (``pettingzoo.make``)     parallel id (simultaneous moves)
==========  ===============================  ========================================
battle      ``uno_env/tmnt-battle-v0``
dragon      ``uno_env/tmnt-dragon-v0``       ``uno_env/tmnt-dragon-v0``
attack      ``uno_env/tmnt-attack-v0``       ``uno_env/tmnt-attack-v0``
names       ``uno_env/tmnt-names-v0``
bonus       ``uno_env/tmnt-bonus-v0``
elusive     ``uno_env/tmnt-elusive-v0``      ``uno_env/tmnt-elusive-v0``
==========  ===============================  ========================================

    import uno_env, pettingzoo
    env = pettingzoo.make("aec", "uno_env/tmnt-battle-v0", num_players=2)
    par = pettingzoo.make("parallel", "uno_env/tmnt-dragon-v0", num_players=4, race="seat")
    from uno_env.battle.envs import env, parallel_env     # or directly: env("names", ...)

Layers (as in ``uno_env``; ``tests/test_layers.py`` enforces them): ``battle.game`` (pure
rules: cards, rules, engines, encoders, events) -> ``battle.agents`` (bots, the arena) ->
``battle.envs`` (the PettingZoo adapters) -> ``battle.tools`` (evaluation, the terminal
game ``uno-battle``, game logs, golden playthroughs). Nothing in the UNO product imports
this package but the registration below and the shared tools (``uno-evaluate --game``).
Importing this module imports no game code: the registration names entry points as strings.
"""

from __future__ import annotations

GAMES = ("battle", "dragon", "attack", "names", "bonus", "elusive")
PARALLEL_GAMES = ("dragon", "attack", "elusive")  # games with simultaneous windows


def env_id(game: str) -> str:
    return f"uno_env/tmnt-{game}-v0"


def register_envs() -> None:
    """Register every game with ``pettingzoo.register`` (AEC, and parallel where moves are
    simultaneous); entry points are strings, so nothing is imported until ``make``."""
    import pettingzoo

    for game in GAMES:
        if env_id(game) not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id(game), entry_point="uno_env.battle.envs.aec_env:env",
                                kwargs={"game": game})
        if game in PARALLEL_GAMES and env_id(game) not in pettingzoo.parallel_registry:
            pettingzoo.register("parallel", env_id(game), entry_point="uno_env.battle.envs.parallel_env:parallel_env",
                                kwargs={"game": game})
