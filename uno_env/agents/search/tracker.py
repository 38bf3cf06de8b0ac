"""The opponent tracker of the ``search`` bot: colours and faces a (single) opponent lacks,
read from its draws and plays between two of my decisions.

What it infers, and how well (Brier scores), is in :mod:`uno_env.agents.search` ("The
opponent tracker"); the sampling of hidden hands (:mod:`.determinise`) reads its evidence.
"""

from __future__ import annotations

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import observation as O
from uno_env.agents.view import View

NCOLORS, NFACES = C.NUM_COLORS, C.NUM_FACES
_COLOR_OF, _FACE_OF = C.COLOR_OF, C.FACE_OF
_PLAYED_SLICE = slice(O.PLAYED, O.PLAYED + C.NUM_KINDS)
_D2, _REV, _SKIP = C.FACE_DRAW2, C.FACE_REVERSE, C.FACE_SKIP
SWITCH_EVIDENCE = 0.5  # void evidence for a colour an opponent left (see the package docstring)


class Tracker:
    """Colours and faces opponents lack, read from their draws and plays (two players; the
    rules of the package docstring). Per decision, like :class:`Beliefs`::

        tracker.observe(view, shares)   # shares: colour shares of the unseen cards
        tracker.cvoid[0][c], tracker.fvoid[0][f]   # evidence that it holds no colour c / face f
        tracker.remember(view, action)

    Evidence 1.0 means certain (it could not play on that colour), lower values come from
    colour switches and from cards received since.
    """

    def __init__(self, rules):
        self.active = not (rules.stacking or rules.jump_in or rules.seven_slap or rules.giving
                           or rules.uno_call == "explicit")
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new episode)."""
        self.snap = None  # after my last action: played counts, colour, top, skipped, my size, their sizes
        self.cvoid: list[list[float]] | None = None  # per opponent, per colour
        self.fvoid: list[list[float]] | None = None  # per opponent, per face

    def remember(self, v: View, action: int) -> None:
        """The table right after my ``action``."""
        top, color, skipped = v.top, v.color, False
        played = v.obs[_PLAYED_SLICE].copy()
        if action < A.PLAY_END:
            top = A.PLAYED_KIND[action]
            played[top] += 1
            color = _COLOR_OF[top] if _COLOR_OF[top] >= 0 else A.played_color(action)
            f = _FACE_OF[top]
            skipped = f == _SKIP or f == _D2 or (f == _REV and v.num_players == 2) \
                or top == C.WILD_DRAW4 or top == C.SEWERS
        elif action in A.COLOR_IDS:
            color = A.chosen_color(action)
        self.snap = (played, color, top, skipped, v.hand_size - (action < A.PLAY_END),
                     [o.hand_size for o in v.opponents])

    def observe(self, v: View, shares: list[float]) -> None:
        """Update the voids from what the opponent did since my last decision."""
        m = v.num_players - 1
        if self.cvoid is None or len(self.cvoid) != m:
            self.cvoid = [[0.0] * NCOLORS for _ in range(m)]
            self.fvoid = [[0.0] * NFACES for _ in range(m)]
        snap, self.snap = self.snap, None
        if snap is None or not self.active or m != 1:
            return
        played_then, color_then, top_then, skipped, my_size, sizes_then = snap
        diff = v.obs[_PLAYED_SLICE] - played_then
        if (diff < 0).any():
            return  # a reshuffle (or a new round) since
        changed = diff.nonzero()[0].tolist()
        n_played = int(diff.sum())
        got = v.opponents[0].hand_size - sizes_then[0]
        cv, fv = self.cvoid[0], self.fvoid[0]
        face_then = _FACE_OF[top_then]
        from_draw = False
        if skipped:  # it had no turn; what it got (a penalty) may be of any colour and face
            extra = got + n_played
        else:
            drew = got + n_played
            # a Wild, or a Wild Draw Four while I was not about to go out, played without drawing
            wild = n_played == 1 and drew == 0 and (changed[0] == C.WILD
                                                    or changed[0] == C.WILD_DRAW4 and my_size > 1)
            lacked = color_then >= 0 and (drew >= 1 and n_played <= 1 or wild)
            extra = 0
            if lacked:
                from_draw = drew >= 1  # the card it played, if any, is the one it drew
                cv[color_then] = 1.0
                if face_then != C.NO_FACE:
                    fv[face_then] = 1.0
                kept = drew - n_played  # drawn and kept: not playable (or a wild it holds back)
                if kept > 0:
                    rest = max(1e-6, 1.0 - shares[color_then])
                    for c in range(NCOLORS):
                        if c != color_then and cv[c]:
                            cv[c] *= (1.0 - shares[c] / rest) ** kept
                    for f in range(NFACES):
                        if f != face_then and fv[f]:
                            fv[f] *= (1.0 - 1.0 / NFACES) ** kept
            else:
                extra = max(0, drew)
                if n_played == 1 and drew == 0 and color_then >= 0:
                    c = _COLOR_OF[changed[0]]
                    if c >= 0 and c != color_then:  # it left the colour
                        cv[color_then] = max(cv[color_then], SWITCH_EVIDENCE)
        if not from_draw:
            for k in changed:
                c = _COLOR_OF[k]
                if c >= 0:
                    cv[c] = 0.0
                    fv[_FACE_OF[k]] = 0.0
        if extra > 0:
            for c in range(NCOLORS):
                if cv[c]:
                    cv[c] *= (1.0 - shares[c]) ** extra
            for f in range(NFACES):
                if fv[f]:
                    fv[f] *= (1.0 - 1.0 / NFACES) ** extra
