"""Expert iteration's first step: the ``search`` bot with a learned policy as its prior and rollouts.

    python experiments/expert_search.py --checkpoint checkpoints/classic-2p --games 1000 \\
        --simulations 200 --seed 20261209 --workers 2

Expert iteration alternates a search that plays better than the policy (the *expert*) with
training the policy to play the expert's moves. The step that decides whether it can pay is
the first: is the expert stronger than the policy it searches with? This study builds that
expert from the ``search`` bot (:mod:`uno_env.agents.search`) with two parts changed:

* **prior**: the move it keeps unless another wins the paired test is the policy's greedy move
  (the ``search`` bot's is the heuristic's);
* **rollouts**: after each candidate, my seat plays the rest of the round with the policy on
  its observation of the rolled-out state (``ObservationEncoder`` on the determinised
  engine state, whose public history the determinisation decodes from my observation), the
  other seats with the heuristic's card ranking
  (:class:`~uno_env.agents.search.rollout.RolloutPolicy`, a model of the ``heuristic`` bot).

Everything else is the ``search`` bot's: deals from the opponent Tracker, candidates (a wild
in the colours held and the heuristic's colour), successive halving, common random numbers,
the paired test (``margin`` 0, ``z`` 2). It decides from its observations only. The ``search``
bot's ``rollouts`` and ``opponents`` options do not apply (its rollouts are the ones above).

The study plays the policy alone and the expert on the same games against ``--opponent``
(:func:`uno_env.tools.evaluate.evaluate_paired`: seats rotated, duplicate deals, the
difference game by game) and prints both win rates with their intervals, the paired
difference and the expert's wall time (its override counts are in ``expert_distill.py
collect``'s rows).

Cost: a whole 2-player classic round from the deal with my seat on the policy and the other
on the card ranking takes about 0.76 ms of CPU (19 of my seat's decisions at about 26 us:
encoding 3 us, the numpy MLP 22 us), where the ``search`` bot's all-ranking rollout of a
round takes about 0.18 ms; rollouts from the middle of a round are shorter, and at 200
simulations the expert spends about 80 ms of CPU a decision (79 ms over 20 games, decisions
without a choice included). Measured
results and the commands are in ``docs/research-2p.md``, "Expert iteration's first two steps".
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

from uno_env.agents.base import register_agent  # noqa: E402
from uno_env.agents.policy import MaskedPolicy, load_policy  # noqa: E402
from uno_env.agents.search import SEARCHED_PHASES, SearchAgent, SearchOptions  # noqa: E402
from uno_env.agents.view import decode  # noqa: E402
from uno_env.game import actions as A  # noqa: E402
from uno_env.game.engine import State  # noqa: E402
from uno_env.game.observation import ObservationEncoder  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402
from uno_env.tools.evaluate import evaluate_paired  # noqa: E402

EXPERT = "expert"  # the agent spec this study registers


class ExpertSearch(SearchAgent):
    """The ``search`` bot with ``net`` as its prior and as my seat's rollout player."""

    name = EXPERT

    def __init__(self, rules, num_players, seed=None, options: SearchOptions | None = None,
                 net: MaskedPolicy | None = None):
        super().__init__(rules, num_players, seed, options)
        if net is None:
            raise ValueError("ExpertSearch needs a policy (net)")
        if (self.options.rollouts, self.options.opponents) != ("policy", "heuristic"):
            raise ValueError("ExpertSearch's rollouts are its own: leave the search options rollouts and opponents "
                             "at their defaults")
        self.net = net
        self.encoder = ObservationEncoder(self.engine)
        self.prior = -1  # the policy's move in the last decision (the default the search started from)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        v = decode(observation, action_mask)
        self.observe(v)
        a = self.prior = int(self.net.act(observation, action_mask)[0])
        if v.phase in SEARCHED_PHASES and len(v.legal) > 1 and A.UNO not in v.legal:
            a = self._search(v, a)
        self.remember(v, a)
        return a

    def _rollout(self, s: State, coins: int = 0) -> float:
        engine, net, encode, ranking = self.engine, self.net, self.encoder.encode, self.policy
        legal_actions, step = engine.legal_actions, engine.step
        cap = s.steps + int(self.options.max_steps)
        while not s.game_over:
            if s.steps >= cap:
                return 0.0
            legal = legal_actions(s)
            if s.actor == 0 and len(legal) > 1:
                a = int(net.act(encode(s, 0), A.legal_mask(legal))[0])
            else:
                a = ranking(s, legal)
            step(s, a)
        return engine.returns(s)[0]


def register_expert(checkpoint: str, simulations: int) -> None:
    """Register the agent spec ``expert``: :class:`ExpertSearch` on ``checkpoint``'s policy."""

    def make(spec: str, rules, num_players: int, seed: int | None) -> ExpertSearch:
        net, _ = load_policy(checkpoint, rules, num_players)
        return ExpertSearch(rules, num_players, seed, SearchOptions(simulations=simulations), net)

    register_agent(EXPERT, make)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--checkpoint", default="checkpoints/classic-2p")
    p.add_argument("--rules", default="classic")
    p.add_argument("--num-players", "--players", dest="players", type=int, default=2)
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--simulations", type=int, default=200, help="rollouts per searched decision, over its moves")
    p.add_argument("--opponent", default="heuristic", help="the other seats' agent spec")
    p.add_argument("--seed", type=int, default=20261209)
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args(argv)
    if args.games < 2 or args.simulations < 1 or args.workers < 1 or not 2 <= args.players <= 10:
        p.error("--games must be >= 2, --simulations and --workers >= 1, --players in 2..10")
    rules = make_rules(args.rules)
    try:
        load_policy(args.checkpoint, rules, args.players)
    except (ValueError, OSError) as exc:
        p.error(f"--checkpoint {args.checkpoint!r}: {exc}")
    register_expert(args.checkpoint, args.simulations)
    began = time.time()
    result = evaluate_paired([f"checkpoint:{args.checkpoint}", EXPERT], args.opponent, rules, args.players,
                             args.games, args.seed, args.workers, mp_context="fork")
    policy, expert = result["specs"]
    d = expert["difference"]
    out = {"checkpoint": args.checkpoint, "rules": args.rules, "players": args.players, "games": args.games,
           "simulations": args.simulations, "opponent": args.opponent, "seed": args.seed,
           "policy": {"win_rate": policy["win_rate"], "ci95": policy["win_ci95"]},
           "expert": {"win_rate": expert["win_rate"], "ci95": expert["win_ci95"], "elapsed_s": expert["elapsed_s"]},
           "difference": d, "won": result["won"], "wall_s": time.time() - began}
    print(f"{args.checkpoint} vs {args.players - 1} {args.opponent} ({args.rules}, {args.games} games, seed "
          f"{args.seed}): policy {policy['win_rate']:.1%} [{policy['win_ci95'][0]:.1%}, {policy['win_ci95'][1]:.1%}]; "
          f"expert ({args.simulations} simulations) {expert['win_rate']:.1%} "
          f"[{expert['win_ci95'][0]:.1%}, {expert['win_ci95'][1]:.1%}]; difference {100 * d['mean']:+.1f} "
          f"({100 * d['ci95'][0]:+.1f} to {100 * d['ci95'][1]:+.1f}) points; expert {expert['elapsed_s']:.0f} s wall")
    return out


if __name__ == "__main__":
    main()
