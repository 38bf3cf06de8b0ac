"""The pure game layer of the battle-card games: cards, rules, one engine and one observation
encoder per game, public events. It imports no gymnasium, pettingzoo or agents.

==========  =======================  ==================================================
game        module                   the game
==========  =======================  ==================================================
battle      :mod:`.battle`           1. Battle: name a skill, the higher card takes both
dragon      :mod:`.dragon`           2. Catch the dragon!: cover a Purple Dragon first
attack      :mod:`.attack`           3. Unexpected attack: beat the invisible player's card
names       :mod:`.names`            4. Name the character: say whose card it is
bonus       :mod:`.bonus`            5. Bonus battle: answer a bonus with the same characteristic
elusive     :mod:`.elusive`          6. Elusive bonus: shout "Bonus!" before a bonus card
==========  =======================  ==================================================

    from uno_env.battle.game import make_engine
    engine = make_engine("dragon", num_players=3)          # default rules and card set
    encoder = make_encoder(engine)
    state = engine.new_state(np.random.default_rng(0))
"""

from __future__ import annotations

import importlib
from typing import Any

from uno_env.battle.game.cards import CardSet, load_cards
from uno_env.battle.game.rules import GAMES, make_rules

# game -> (module, engine class, encoder class)
_CLASSES = {
    "battle": ("battle", "BattleEngine", "BattleEncoder"),
    "dragon": ("dragon", "DragonEngine", "DragonEncoder"),
    "attack": ("attack", "AttackEngine", "AttackEncoder"),
    "names": ("names", "NamesEngine", "NamesEncoder"),
    "bonus": ("bonus", "BonusEngine", "BonusEncoder"),
    "elusive": ("elusive", "ElusiveEngine", "ElusiveEncoder"),
}
assert tuple(_CLASSES) == GAMES

TITLES = {"battle": "Battle", "dragon": "Catch the dragon!", "attack": "Unexpected attack",
          "names": "Name the character", "bonus": "Bonus battle", "elusive": "Elusive bonus"}


def game_module(game: str):
    """The module of ``game`` (``ValueError`` for an unknown game)."""
    make_rules(game)  # names the games if unknown
    return importlib.import_module(f"uno_env.battle.game.{_CLASSES[game][0]}")


def make_engine(game: str, rules: Any = None, cards: Any = None, num_players: int = 2,
                record_events: bool = False, **overrides: Any):
    """The engine of ``game`` for ``rules`` (preset, path, mapping, rules object; None: the
    default), ``cards`` (a card set name, path, mapping or :class:`CardSet`; None: the
    default stand-in) and ``num_players``."""
    module = game_module(game)
    r = make_rules(game, rules, **overrides)
    return getattr(module, _CLASSES[game][1])(r, load_cards(cards), num_players, record_events)


def make_encoder(engine):
    """The observation encoder of ``engine``'s game."""
    return getattr(game_module(engine.game), _CLASSES[engine.game][2])(engine)


__all__ = ["GAMES", "TITLES", "CardSet", "load_cards", "make_rules", "make_engine", "make_encoder",
           "game_module"]
