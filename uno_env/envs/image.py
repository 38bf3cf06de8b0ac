"""The table as an RGB image (``render_mode="rgb_array"``): numpy only, no fonts needed.

``table_image(engine, state, seat)`` returns a ``(IMAGE_HEIGHT, IMAGE_WIDTH, 3)`` uint8 array
showing what ``seat`` may see, so recorders (Gymnasium's ``RecordVideo``, SB3's video
recorder) can film games:

* top row: every other seat (in play order from ``seat``'s left) as a box with its hand size
  (digits and a bar), a white frame around the seat that decides now, a yellow dot when it
  called UNO;
* middle: the top card (in its colour; wilds black), the current colour as a band, the play
  direction as an arrow (right: clockwise), the pending penalty and the DRAW pile size;
* bottom: ``seat``'s hand as small cards, face up, in card-kind order (at most two rows).

Faces are drawn with a 3x5 pixel font: digits, ``S`` skip, ``R`` reverse, ``+2`` draw two,
``W`` wild, ``+4`` wild draw four, ``T`` Team Attack, ``X`` FROM THE SEWERS.
"""

from __future__ import annotations

import numpy as np

from uno_env.game import cards as C

IMAGE_HEIGHT, IMAGE_WIDTH = 300, 480
_BG = (22, 92, 52)
_RGB = {"red": (215, 38, 38), "yellow": (240, 200, 30), "green": (40, 160, 70), "blue": (30, 90, 200),
        "orange": (240, 130, 20), "purple": (140, 60, 170)}
_WILD_RGB = (20, 20, 20)
_FONT = {  # 3x5 glyphs, rows top to bottom, "1" = ink
    "0": ("111", "101", "101", "101", "111"), "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"), "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"), "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"), "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"), "9": ("111", "101", "111", "001", "111"),
    "S": ("111", "100", "111", "001", "111"), "R": ("110", "101", "110", "101", "101"),
    "W": ("101", "101", "101", "111", "101"), "T": ("111", "010", "010", "010", "010"),
    "X": ("101", "101", "010", "101", "101"), "+": ("000", "010", "111", "010", "000"),
    "-": ("000", "000", "111", "000", "000"), " ": ("000",) * 5,
}
_FACE_TEXT = tuple(str(f) for f in range(10)) + ("+2", "R", "S")
_WILD_TEXT = {C.WILD: "W", C.WILD_DRAW4: "+4", C.TEAM_ATTACK: "T", C.SEWERS: "X"}


def _rect(img: np.ndarray, y: int, x: int, h: int, w: int, rgb) -> None:
    img[max(0, y):max(0, y + h), max(0, x):max(0, x + w)] = rgb


def _text(img: np.ndarray, y: int, x: int, text: str, scale: int, rgb) -> None:
    for ch in text:
        glyph = _FONT.get(ch, _FONT[" "])
        for r, row in enumerate(glyph):
            for c, bit in enumerate(row):
                if bit == "1":
                    _rect(img, y + r * scale, x + c * scale, scale, scale, rgb)
        x += 4 * scale


def _card(img: np.ndarray, y: int, x: int, h: int, w: int, kind: int, colors: tuple[str, ...],
          scale: int) -> None:
    rgb = _WILD_RGB if C.is_wild(kind) else _RGB.get(colors[C.color_of(kind)], (128, 128, 128))
    _rect(img, y - 1, x - 1, h + 2, w + 2, (250, 250, 250))
    _rect(img, y, x, h, w, rgb)
    text = _WILD_TEXT[kind] if C.is_wild(kind) else _FACE_TEXT[C.face_of(kind)]
    tw = len(text) * 4 * scale - scale
    _text(img, y + (h - 5 * scale) // 2, x + (w - tw) // 2, text, scale, (255, 255, 255))


def table_image(engine, s, seat: int) -> np.ndarray:
    """The table as ``seat`` sees it: ``(IMAGE_HEIGHT, IMAGE_WIDTH, 3)`` uint8."""
    colors = engine.rules.color_names
    n = s.n
    img = np.empty((IMAGE_HEIGHT, IMAGE_WIDTH, 3), np.uint8)
    img[:] = _BG
    # opponents, in play order from seat's left
    box_w = (IMAGE_WIDTH - 10) // max(1, n - 1)
    for j in range(1, n):
        q = (seat + j) % n
        x = 5 + (j - 1) * box_w
        frame = (255, 255, 255) if q == s.actor else (10, 60, 30)
        _rect(img, 5, x, 56, box_w - 6, frame)
        _rect(img, 7, x + 2, 52, box_w - 10, (12, 70, 38))
        _text(img, 12, x + 6, str(int(s.hand_size[q])), 3, (255, 255, 255))
        _rect(img, 42, x + 6, 8, min(box_w - 20, 3 * int(s.hand_size[q])), (230, 230, 230))
        if s.uno_called[q]:
            _rect(img, 12, x + box_w - 22, 8, 8, _RGB["yellow"])
    # middle: top card, colour band, direction, pending, draw pile
    _card(img, 80, 40, 90, 64, s.discard[-1], colors, 5)
    if s.color >= 0:
        _rect(img, 80, 120, 90, 16, _RGB.get(colors[s.color], (128, 128, 128)))
    ax, ay = 170, 125
    for i in range(12):  # an arrow: a shaft and a head pointing in the direction of play
        _rect(img, ay - 2, ax + (0 if s.direction > 0 else 12), 4, 28, (240, 240, 240))
        tip = ax + 29 + i if s.direction > 0 else ax + 11 - i
        _rect(img, ay - (12 - i), tip, 2 * (12 - i), 1, (240, 240, 240))
    if s.pending:
        _text(img, 95, 240, "+" + str(int(s.pending)), 6, (255, 80, 80))
    _rect(img, 80, 380, 90, 64, (60, 60, 60))
    _rect(img, 82, 382, 86, 60, (90, 30, 30))
    _text(img, 115, 388, str(len(s.draw_pile)), 3, (255, 255, 255))
    if s.actor == seat:
        _rect(img, 182, 5, 3, IMAGE_WIDTH - 10, (255, 255, 255))
    # own hand, two rows at most
    hand = engine.hand_cards(s, seat)
    per_row = (IMAGE_WIDTH - 10) // 30
    for i, k in enumerate(hand[:2 * per_row]):
        row, col = divmod(i, per_row)
        _card(img, 192 + row * 52, 8 + col * 30, 46, 26, k, colors, 2)
    if s.uno_called[seat]:
        _rect(img, 190, IMAGE_WIDTH - 14, 8, 8, _RGB["yellow"])
    return img
