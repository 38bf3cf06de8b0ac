"""Scripted bots of the battle-card games: ``random`` (every game) and one simple ``strong``
bot per game. Every bot decides from its observation and mask (decoded with the encoder's
layout) and the card set's printed points; none reads hidden state.

==========  ===========================================================================
game        ``strong``
==========  ===========================================================================
battle      names the skill in which its top card beats the most cards of the deck (the
            others' top cards with ``view: open``: the skill it wins by most)
dragon      covers exactly the Purple Dragons
attack      card counting: the chance each of its cards wins the round against the
            cards not yet seen; plays the weakest card among the best chances, and its
            weakest card when none can win
names       card counting: says the known top card's name, or the name most of the
            unseen cards have (``wrong_discards``: the least likely name)
bonus       leads the characteristic the responder most likely lacks (a hypergeometric
            count of the cards it cannot know), never bluffs; answers when it can and
            challenges only a lead it knows is a bluff
elusive     card counting: shouts when the card is known to be a bonus card, or when more
            than half of the unseen cards are bonus cards
==========  ===========================================================================
"""

from __future__ import annotations

import math

import numpy as np

from uno_env.battle.agents.base import BattleAgent, register_battle_agent
from uno_env.battle.game.cards import NUM_SKILLS


class RandomAgent(BattleAgent):
    """A uniformly random legal action (no draw when there is one)."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = self.legal(action_mask)
        return legal[0] if len(legal) == 1 else legal[int(self.rng.integers(len(legal)))]


def _card(block: np.ndarray) -> int:
    """The card of a one-hot block, -1 if none."""
    i = int(block.argmax())
    return i if block[i] else -1


class BattleStrong(BattleAgent):
    name = "strong"

    def __init__(self, engine, seed=None):
        super().__init__(engine, seed)
        skills = np.array([engine.cards.types[c].skills for c in engine.deck], np.float64)  # (cards, 4)
        self._deck_skills = skills

    def act(self, observation, action_mask):
        legal = self.legal(action_mask)
        me = _card(self.get(observation, "my_top"))
        mine = np.array(self.engine.cards.types[me].skills, np.float64)
        t = self.engine.cards.size
        tops = self.get(observation, "open_tops").reshape(-1, t)
        opened = [int(r.argmax()) for r in tops if r.any()]
        if opened:  # view open: the skill it wins by most (a loss by least)
            others = np.array([self.engine.cards.types[c].skills for c in opened], np.float64)
            score = mine - others.max(axis=0)
        else:  # the share of the deck's other cards it beats (a tie counts half)
            d = self._deck_skills
            score = (d < mine).sum(axis=0) + 0.5 * ((d == mine).sum(axis=0) - 1)
        return max(legal, key=lambda k: (score[k], mine[k]))


class DragonStrong(BattleAgent):
    name = "strong"

    def act(self, observation, action_mask):
        return int(self.get(observation, "top_dragon")[0] > 0)


class AttackStrong(BattleAgent):
    name = "strong"

    def __init__(self, engine, seed=None):
        super().__init__(engine, seed)
        self._counts = np.bincount(engine.deck, minlength=engine.cards.size).astype(np.float64)
        self._totals = np.array([sum(t.skills) for t in engine.cards.types], np.float64)

    def act(self, observation, action_mask):
        e = self.engine
        hand = self.get(observation, "hand")
        target = _card(self.get(observation, "target"))
        pool = np.maximum(self._counts - self.get(observation, "seen") - hand, 0)  # the unseen cards
        scores = np.array([e.score(c, target) for c in range(e.cards.size)], np.float64)
        chances = {}
        for c in self.legal(action_mask):
            s = scores[c]
            if s > 0 and pool.sum() > 0:
                below = (scores < s) | ((scores == s) & (self._totals < self._totals[c]))
                chances[c] = ((pool * below).sum() / pool.sum()) ** (e.n - 1)
            else:
                chances[c] = 0.0
        best = max(chances.values())  # the best chance, with the weakest card that has it
        return min((c for c in chances if chances[c] == best), key=lambda c: (self._totals[c], c))


class NamesStrong(BattleAgent):
    name = "strong"

    def __init__(self, engine, seed=None):
        super().__init__(engine, seed)
        counts = np.zeros(engine.num_actions)
        for c in engine.deck:
            counts[engine.name_of[c]] += 1
        self._counts = counts

    def act(self, observation, action_mask):
        g = self.engine.num_actions
        legal = self.legal(action_mask)
        known = self.get(observation, "known").reshape(-1, g).sum(axis=0)
        unseen = np.maximum(self._counts - self.get(observation, "middle") - known, 0)
        top = _card(self.get(observation, "top_name")[:g]) if self.get(observation, "top_known")[0] else -1
        if self.engine.rules.guess == "right_discards":
            if top in legal:
                return top
            return max(legal, key=lambda i: (unseen[i], -i)) if top < 0 else legal[0]
        wrong = [i for i in legal if i != top]  # wrong_discards: a name that is surely wrong, else unlikely
        return min(wrong or legal, key=lambda i: (unseen[i], i)) if top < 0 else (wrong or legal)[0]


class BonusStrong(BattleAgent):
    name = "strong"

    def act(self, observation, action_mask):
        e = self.engine
        legal = self.legal(action_mask)
        n, d = e.n, self.deck_size
        known = np.rint(self.get(observation, "known").reshape(n, NUM_SKILLS) * 1.0)
        sizes = np.rint(self.get(observation, "sizes") * d)
        mine = self.get(observation, "hand_chars")
        deck = np.rint(self.get(observation, "deck_chars") * d)
        pool = np.maximum(deck - mine - known[1:].sum(axis=0), 0)  # cards whose place it does not know
        if self.get(observation, "phase")[0]:  # lead
            honest = [a for a in legal if a // NUM_SKILLS < len(e.bonus_ids)
                      and e.char_of[a // NUM_SKILLS] == a % NUM_SKILLS]
            unknown = max(0.0, sizes[1] - known[1].sum())

            def lacks(c: int) -> float:
                if known[1, c] > 0:
                    return 0.0
                total, hit = pool.sum(), pool[c]
                return math.prod(max(0.0, total - hit - i) / max(1.0, total - i) for i in range(int(unknown)))
            def holds(c: int) -> float:  # the responder's expected cards of c
                return known[1, c] + (unknown * pool[c] / pool.sum() if pool.sum() else 0.0)
            return max(honest or legal, key=lambda a: (round(lacks(a % NUM_SKILLS), 6), -holds(a % NUM_SKILLS), -a))
        named = _card(self.get(observation, "named"))
        leader = _card(self.get(observation, "leader"))
        if e.CHALLENGE in legal and known[leader, named] == 0 and pool[named] == 0:
            return e.CHALLENGE  # the leader cannot hold that characteristic: a sure bluff
        answers = [a for a in legal if a not in (e.TAKE, e.CHALLENGE)]
        return answers[0] if answers else e.TAKE


class ElusiveStrong(BattleAgent):
    name = "strong"

    def act(self, observation, action_mask):
        own = self.get(observation, "phase")[0] > 0
        slot = 0 if own else _card(self.get(observation, "layer"))
        if self.get(observation, "top_known")[slot]:
            return int(self.get(observation, "top_bonus")[slot] > 0)
        unseen = self.get(observation, "unseen_all")[0]
        return int(unseen > 0 and self.get(observation, "unseen_bonus")[0] / unseen > 0.5)


STRONG = {"battle": BattleStrong, "dragon": DragonStrong, "attack": AttackStrong, "names": NamesStrong,
          "bonus": BonusStrong, "elusive": ElusiveStrong}

register_battle_agent("random", lambda spec, engine, seed: RandomAgent(engine, seed))
register_battle_agent("strong", lambda spec, engine, seed: STRONG[engine.game](engine, seed))
