"""``uno-convert-checkpoint``: an SB3 ``model.zip`` one trusts -> the safe format, checked to
play the same.

==========================  ===================================================================
:func:`convert_checkpoint`  the conversion, then :data:`VERIFY_GAMES` games in which the safe
                            policy must pick the SB3 policy's action at every decision
:func:`compare_policies`    that check
:func:`main`                the command line (``uno-convert-checkpoint DIR``)
==========================  ===================================================================

The ``model.zip`` is unpickled (:mod:`uno_env.learn.sb3.save`, "Trust"): convert only files
you trust.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Sequence

import numpy as np

from uno_env import _files
from uno_env.agents import checkpoint as ckpt
from uno_env.agents.base import make_agent
from uno_env.agents.policy import MaskedPolicy, PolicyAgent, load_policy
from uno_env.game import actions as A
from uno_env.game.engine import Engine
from uno_env.game.observation import ObservationEncoder
from uno_env.game.rules import Rules, make_rules
from uno_env.learn.sb3.actor import sb3_logits
from uno_env.learn.sb3.save import load_zip, save_checkpoint

VERIFY_GAMES = 20
"""games played by ``uno-convert-checkpoint`` to check the converted policy (0: no check)"""
VERIFY_OPPONENT = "heuristic"


def convert_checkpoint(path: str, out: str | None = None, rules: Any = None,
                       num_players: int | None = None, verify_games: int = VERIFY_GAMES,
                       seed: int = 0) -> tuple[dict, dict | None]:
    """Convert the SB3 ``model.zip`` of the checkpoint directory ``path`` (TRUSTED INPUT: it is
    unpickled) into the safe format, in ``out`` (default: in place; ``model.zip`` is left as it
    is). The card of ``path`` gives the rules and player count (``rules``/``num_players`` for a
    directory without a card). Then ``verify_games`` games are played and, on every decision
    of every seat, the safe policy loaded back from ``out`` must pick the SB3 policy's action.
    Returns ``(card, check)``; ``ValueError`` on any problem or disagreement."""
    directory = ckpt.checkpoint_dir(path)
    if os.path.isfile(os.path.join(directory, ckpt.CARD_FILE)):
        card = ckpt.load_card(directory, require_policy=False)
        if rules is not None or num_players is not None:
            ckpt.check_card(card, make_rules(rules) if rules is not None else None, num_players,
                            where=f"checkpoint {directory!r}")
    elif rules is None or num_players is None:
        raise ckpt.CheckpointNotFoundError(
            f"{os.path.join(directory, ckpt.CARD_FILE)!r} not found: pass the rules and player "
            f"count the model was trained for (--rules, --num-players)")
    else:
        card = None
    model = load_zip(os.path.join(directory, ckpt.MODEL_FILE))
    if card is None:
        card = ckpt.make_card(rules=make_rules(rules), num_players=num_players,
                              total_steps=model.num_timesteps, wall_time_s=0.0)
    card = dict(card, converted_from=ckpt.MODEL_FILE)
    written = save_checkpoint(model, out or directory, card, resumable=False)
    check = None
    if verify_games > 0:
        n = written["num_players"]
        policy, _ = load_policy(out or directory, ckpt.card_rules(written), n)
        check = compare_policies(model, policy, ckpt.card_rules(written), n, verify_games, seed)
        if check["different_actions"]:
            raise ValueError(f"the converted policy picks another action than the SB3 policy on "
                             f"{check['different_actions']} of {check['observations']} observations "
                             f"(max logit difference {check['max_logit_diff']:.3g})")
    return written, check


def compare_policies(model: Any, policy: MaskedPolicy, rules: Rules, num_players: int,
                     games: int, seed: int = 0) -> dict[str, Any]:
    """Play ``games`` games (the safe policy, greedy, against ``heuristic`` seats; seats
    rotated) and compare, on the observation and mask of every decision of every seat, the
    action of ``policy`` with ``model.predict(..., action_masks=mask, deterministic=True)``."""
    engine = Engine(rules, num_players)
    encoder = ObservationEncoder(engine)
    me = PolicyAgent(policy, rules, num_players)
    others = [make_agent(VERIFY_OPPONENT, rules, num_players, seed=seed + s) for s in range(num_players)]
    rng = np.random.default_rng(seed)
    observations, masks = [], []
    for g in range(games):
        state = engine.new_state(rng, dealer=num_players - 1)
        seats = [me if s == g % num_players else others[s] for s in range(num_players)]
        while not state.game_over and state.steps < rules.max_steps:
            p = state.actor
            obs, mask = encoder.encode(state, p), A.legal_mask(engine.legal_actions(state))
            observations.append(obs)
            masks.append(mask)
            engine.step(state, int(seats[p].act(obs, mask)))
    obs, mask = np.stack(observations), np.stack(masks).astype(bool)
    ours = policy.act(obs, mask)
    theirs, _ = model.predict(obs, action_masks=mask, deterministic=True)
    diff = np.abs(policy.logits(obs) - sb3_logits(model, obs))
    return {"games": games, "observations": len(obs),
            "different_actions": int((ours != np.asarray(theirs)).sum()),
            "max_logit_diff": float(diff.max())}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="uno-convert-checkpoint",
        description="Convert the SB3 model.zip of a checkpoint directory into the safe format "
                    "(card.json + safetensors weights) that checkpoint:<dir> loads. The model.zip is "
                    "UNPICKLED, which runs any code it holds: convert only files you trust (your own "
                    "runs, or from someone you trust).")
    p.add_argument("path", metavar="DIR", help="checkpoint directory holding model.zip (and card.json)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write the safe checkpoint here (default: into DIR, next to model.zip)")
    p.add_argument("--rules", default=None, help="rules of a directory without card.json")
    p.add_argument("--num-players", type=int, default=None, help="players of a directory without card.json")
    p.add_argument("--verify-games", type=int, default=VERIFY_GAMES, metavar="N",
                   help=f"games played to check that both policies pick the same actions "
                        f"(default {VERIFY_GAMES}; 0: no check)")
    p.add_argument("--seed", type=int, default=0, help="seed of the check games")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.out is not None:  # a file there: refused before the model is unpickled and checked
            _files.check_directory(args.out, "--out")
        card, check = convert_checkpoint(args.path, args.out, args.rules, args.num_players,
                                         args.verify_games, args.seed)
    except (ValueError, OSError) as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2
    out = args.out or args.path
    print(f"wrote {os.path.join(out, card['policy']['weights'])} and {os.path.join(out, ckpt.CARD_FILE)} "
          f"(input {card['policy']['input']}, layers {card['policy']['sizes']}, {card['policy']['activation']})")
    if check is not None:
        print(f"checked on {check['observations']} observations of {check['games']} games: the same "
              f"action as the SB3 policy on all, max logit difference {check['max_logit_diff']:.2g}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
