"""Rendering of the table: the public information plus one player's hand.

``ansi`` returns text, ``human`` prints it, ``rgb_array`` returns an image
(:mod:`uno_env.envs.image`). ``RENDER_MODES`` lists them for both envs' ``metadata``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from uno_env.envs.image import table_image
from uno_env.game.engine import PHASE_NAMES

RENDER_MODES = ["human", "ansi", "rgb_array"]

_ANSI = {"red": "31", "yellow": "33", "green": "32", "blue": "34", "orange": "38;5;208",
         "purple": "35"}


def paint(card: str, color: bool) -> str:
    """``card`` wrapped in its ANSI colour when ``color`` is true."""
    if not color:
        return card
    code = _ANSI.get(card.split("-")[0])
    return f"\x1b[{code}m{card}\x1b[0m" if code else f"\x1b[1m{card}\x1b[0m"


def render_table(env: Any, seat: int, color: bool = False) -> str:
    """The public table and ``seat``'s hand of a ``raw_env`` as text."""
    s, names, agents = env.game_state, env.card_names, env.possible_agents
    lines = [
        f"round {s.round + 1}  step {s.steps}  phase {PHASE_NAMES[s.phase]}  "
        f"direction {'clockwise' if s.direction > 0 else 'counter-clockwise'}",
        f"top {paint(names[s.discard[-1]], color)}  colour "
        f"{env.colors[s.color] if s.color >= 0 else '-'}  pending {s.pending}  draw pile {len(s.draw_pile)}",
    ]
    for i, a in enumerate(agents):
        marks = (" <- turn" if i == s.turn else "") + (" UNO" if s.uno_called[i] else "")
        lines.append(f"  {a}: {s.hand_size[i]:3d} cards  score {s.scores[i]}{marks}")
    hand = env.engine.hand_cards(s, seat)
    lines.append(f"{agents[seat]} hand: " + " ".join(paint(names[k], color) for k in hand))
    return "\n".join(lines)


def render_for_mode(env: Any, seat: int) -> "str | np.ndarray | None":
    """``render()`` of the envs: the table text for ``ansi``, printed for ``human``, an image
    for ``rgb_array``."""
    if env.render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
        return None
    if env.game_state is None:
        return None
    if env.render_mode == "rgb_array":
        return table_image(env.engine, env.game_state, seat)
    text = render_table(env, seat)
    if env.render_mode == "ansi":
        return text
    print(text)
    return None
