"""Tools of the battle-card games: :mod:`.evaluate` (``uno-evaluate --game``), :mod:`.play`
(``uno-battle``, the terminal game), :mod:`.gamelog` (JSON Lines logs, replays),
:mod:`.playthrough` (golden playthroughs)."""
