"""What an agent thinks, for the agent panel of a watched game: a trained policy's
probabilities over its own legal actions.

:func:`agent_thoughts` reads nothing but what the agent itself is given to act: its seat's
observation and action mask (what that player may know at the table), through the policy's
own network (:class:`uno_env.agents.policy.MaskedPolicy`). It is called only in a watched
game (no human seat), and a view shows only the thoughts of seats it may see
(:meth:`uno_env.tools.web.games.Game.view`: every seat for a spectator of every hand, the
watched seat alone for one seat's view); a played game's view never carries any, since the
others' probabilities would tell the human about their hidden hands.

``thoughts`` in a view::

    {seat, spec, short, decision, kind: "policy", chosen (action name),
     actions [{name, p}] (the most likely first, at most MAX_SHOWN; p sums to 1 over every
     legal action), legal (how many), value: null}

``value`` is null: a checkpoint holds the actor's weights only (no value head). An agent
without a policy (the scripted bots, ``search``) has no thoughts.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

MAX_SHOWN = 8  # actions listed in the panel, the most likely first


def agent_thoughts(agent: Any, observation: np.ndarray, action_mask: np.ndarray,
                   action_names: Sequence[str]) -> dict[str, Any] | None:
    """The policy's probabilities over the legal actions of ``action_mask`` given
    ``observation`` (its own seat's), or None for an agent without a policy network."""
    policy = getattr(agent, "policy", None)
    if policy is None or not hasattr(policy, "logits"):
        return None
    logits = np.asarray(policy.logits(observation), np.float64).reshape(-1)
    legal = np.flatnonzero(np.asarray(action_mask, bool))
    if not len(legal):
        return None
    z = logits[legal] - logits[legal].max()
    p = np.exp(z) / np.exp(z).sum()
    order = np.argsort(-p, kind="stable")[:MAX_SHOWN]
    return {"kind": "policy", "legal": int(len(legal)), "value": None,
            "actions": [{"name": action_names[int(legal[i])], "p": round(float(p[i]), 4)} for i in order]}
