"""The ``search`` bot: determinised Monte-Carlo search on top of the heuristic.

Spec strings: ``search`` (the defaults) or ``search:key=value,...`` with keys the fields of
:class:`SearchOptions`, e.g. ``search:simulations=400`` or
``search:simulations=200,deals=beliefs,opponents=random``: numbers, and named choices
(``budget``, ``wild_colors``, ``deals``, ``rollouts``, ``opponents``; the table of
:mod:`uno_env.agents.search.options`). An unknown key, a key without a value, a value that
is not a number (an integer where the field is one) or not one of its choices, out of its
range, or a key given twice is a ``ValueError`` naming it.

**How it decides.** It keeps a :class:`~uno_env.agents.heuristic.HeuristicAgent` that
sees every observation (its :class:`~uno_env.agents.beliefs.Beliefs` count cards and read
opponents) and proposes the heuristic's move, the *default*. In a searched phase with a
choice, it then compares the candidate moves on sampled deals:

1. **Determinise** (:meth:`SearchAgent.deal_template`, then :meth:`SearchAgent.sample_deal`
   per deal): deal the cards hidden from it (other
   hands, the DRAW pile) at random, consistently with its observation only: the unseen
   cards are deck - played since the last reshuffle - my hand - cards known to be in other
   hands; each opponent gets its known cards plus as many unseen ones as its hand size
   says; the rest, shuffled, is the DRAW pile. Sampling is biased by what it read about
   the opponents (option ``deals``): a colour (or face) an opponent is believed to lack is
   left out of its hand with that probability. With two players (under the tracker's
   rules) the :class:`Tracker` below supplies these; otherwise the heuristic's ``Beliefs``
   (colours only).
2. **Roll out** every candidate on the same deal with the same random numbers (common
   random numbers: the comparison is paired) on a private :class:`Engine` (one round),
   every seat played by :class:`RolloutPolicy` (the heuristic's card ranking on the state,
   ~4 us a decision), to the end of the round: ``+1`` win, ``-1`` loss (``0`` if cut at
   ``max_steps``; with more players, ``Engine.returns`` of my seat). With
   ``opponents=random`` the other seats play as the ``random`` bot (:class:`RandomRolloutPolicy`, the bot's
   own :func:`~uno_env.agents.bots.random_move` on the state), their coins seeded with the
   seed of the deal's generator, so every candidate meets the same opponents' luck.
3. **Keep the default unless another move wins the paired test**: the candidate with the
   best mean gain over the default (outcome difference on the same deals) replaces it
   only if that gain exceeds ``margin`` and ``z`` standard errors. With ``budget=halving``
   (the default) the ``simulations`` rollouts is spent in rounds of successive halving: after each
   round the worse half of the candidates (never the default) is dropped.

Candidates: every legal action, except that with ``wild_colors=held`` (the default) a wild is
tried only in the colours still in my hand and the heuristic's colour for it.

**Where it searches.** Turns, drawn cards, Wild Draw Four challenges and the colour of a
first wild (phases ``turn``, ``drawn``, ``challenge``, ``color``), in every ruleset and
player count. Elsewhere it plays the heuristic's move: a UNO call, Team Attack discards,
and the windows (catch, jump-in, offers, takes), whose state (who was asked, hidden
answers) its observation does not rebuild; also wherever the rebuilt state's legal moves
differ from its mask (a safety net: it then does not search). Multi-round episodes are
searched as one round (the round's winner scores +1).

**The opponent tracker** (:class:`Tracker`, two players, rules without stacking, jump-in,
SEVEN slap, giving or explicit UNO calls, where every change between two of my decisions
is the opponent's): from the cards played and its hand size since my last move,

* an opponent that drew (and played at most the card it drew) could not play: it holds no
  card of the colour then current, nor of the top card's face (wilds aside);
* one that played a Wild (or a Wild Draw Four while I held 2+ cards) without drawing had
  no playable coloured card either (a player keeps wilds for later);
* one that left colour ``c`` for another colour without drawing probably lacks ``c``
  (evidence 0.5, measured on heuristic games: it then held ``c`` 34% of the time, against
  68% at other times);
* a card of colour ``c`` or face ``f`` it plays clears that void; every card it receives
  weakens the voids by the chance that the card is of that colour or face, the cards it drew
  and kept by the chance given that they were not playable.

Measured on 150 heuristic games (2,404 decisions of the searching player), the Brier score
of "the opponent holds colour c" over the sampled hands is 0.218 with uniform sampling
(``deals=uniform``), 0.173 with the heuristic's Beliefs (``deals=beliefs``) and 0.159 with the
tracker (``deals=tracker``); where the tracker's evidence is 1.0 the opponent held the colour 1.3% of the
time (Beliefs: 9.9%, as they do not see that a card drawn and kept may be of that colour).

**Cost and strength.** One rollout to the end of a 2-player classic round takes about
0.18 ms of CPU (~22 decisions; the engine is 60% of it), so ``simulations`` sets the time
of a searched decision; a decision without a choice costs what the heuristic's does.
Measured with ``bench/bench_search.py`` (classic, 2 players, against ``heuristic``, seed
90210, on which nothing was tuned; CPU time on one core of a shared machine, 20 games;
strength: duplicate deals, seats rotated, Wilson 95% intervals):

=================  ==============  ================  ======  ======================
``simulations``    CPU ms per      CPU ms per        games   win rate
                   decision        searched (p95)
=================  ==============  ================  ======  ======================
50                 7.4             9.2 (13.4)        1,000   50.4% [47.3, 53.5]
200                31.1            37.7 (53.2)       800     54.6% [51.2, 58.0]
800 (default)      114.0           143.1 (199.1)     700     55.0% [51.3, 58.6]
=================  ==============  ================  ======  ======================

The default on a second untuned seed (90211, 500 games): 57.0% [52.6, 61.3]; both seeds
together 55.8% [53.0, 58.6] (1,200 games).

Against 3 ``random`` (classic, 4 players) the rollouts' model of the table matters: with the
default ``opponents=heuristic`` ``search:simulations=200`` won 35.8%
[31.2, 40.6] (400 games, seed 99) where the heuristic wins about 38.7%; with ``opponents=random``
it beats the heuristic in its seat on the same games by +1.5 points [+0.6, +2.5] (39.9%
against 38.4%, 3,600 games of ``uno-evaluate --paired``, seeds 2412 and 2413; 0.5.11's bench,
dealing those seeds otherwise, measured +0.8 [-0.1, +1.7]), and at 800 simulations by +2.2
points [+1.0, +3.5] (40.9% against 38.6%, 2,400 games, seeds 2414 and 2415).

It never reads hidden state: it decides from its observations (decoded by
:func:`~uno_env.agents.view.decode`) and its own seeded generators.

**Modules.**

=================  =====================================================================
``options``        :class:`SearchOptions`, the spec strings and their validation; the named
                   choices (``CHOICES``) and the old numeric spellings
``tracker``        :class:`Tracker`, the opponent's voids read from its draws and plays
``determinise``    :func:`template` and :func:`deal`: random deals of the hidden cards;
                   :func:`unseen_counts`: the cards they share out
``rollout``        :class:`RolloutPolicy`, the heuristic's card ranking on the engine state;
                   :class:`RandomRolloutPolicy`, the ``random`` bot's on it
``paired``         :func:`play_each` and :func:`paired_choice`: common random numbers, the test
``agent``          :class:`SearchAgent`: the decision, the candidates, successive halving
=================  =====================================================================
"""

from uno_env.agents.base import register_agent
from uno_env.agents.search.agent import SEARCHED_PHASES, SearchAgent, make_search_agent
from uno_env.agents.search.determinise import Template, deal, settle, template, unseen_counts
from uno_env.agents.search.options import OPTION_NAMES, SearchOptions
from uno_env.agents.search.paired import paired_choice, play_each
from uno_env.agents.search.rollout import RandomRolloutPolicy, RolloutPolicy
from uno_env.agents.search.tracker import SWITCH_EVIDENCE, Tracker

register_agent("search", make_search_agent)

__all__ = ["SearchAgent", "SearchOptions", "OPTION_NAMES", "SEARCHED_PHASES", "RolloutPolicy", "RandomRolloutPolicy",
           "Tracker", "SWITCH_EVIDENCE", "Template", "template", "deal", "settle", "unseen_counts", "play_each",
           "paired_choice"]
