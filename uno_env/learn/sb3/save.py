"""Save an SB3 MaskablePPO model as a checkpoint, and load one back to resume it.

=======================  ======================================================================
:func:`save_checkpoint`  ``model.zip`` (for resuming) and the safe weights + ``card.json``
:func:`load_model`       the SB3 model of a checkpoint, for ``--resume`` (**trusted input**)
=======================  ======================================================================

**Trust.** ``model.zip`` holds pickles (``data`` entries, ``*.pth`` files): loading it with
``MaskablePPO.load`` runs whatever code it contains. :func:`load_model` (and the converter,
:mod:`uno_env.learn.sb3.convert`) load it, so use them only on files you made or trust;
everything that plays a checkpoint (``checkpoint:<dir>``) reads only the safe files
(:mod:`uno_env.agents.checkpoint`).

**Old models.** A model saved by 0.3-0.5 pickled its classes under ``uno_env.agents.sb3``
(:data:`uno_env.learn.sb3.policy.PICKLED_AS`): while it is read, those names are those of
:mod:`uno_env.learn.sb3.policy`, for that one load only. Models saved by 0.1-0.2 named
``uno_env.checkpoint.ObsFeatures`` or ``uno_env.agents.checkpoint.ObsFeatures`` and read
observation layout 0 (1254 entries): they cannot be resumed or converted (their safe
checkpoints still play: ``checkpoint:<dir>``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, Iterator

from uno_env import _atomic
from uno_env.agents import checkpoint as ckpt
from uno_env.game import actions as A
from uno_env.game import observation as O
from uno_env.game.rules import Rules
from uno_env.learn.sb3 import policy as sb3_policy
from uno_env.learn.sb3.actor import actor_tensors
from uno_env.learn.sb3.policy import OBSERVATION_SHAPES, RemovedOptionError


def save_checkpoint(model: Any, directory: str, card: dict[str, Any], resumable: bool = True) -> dict:
    """Write the checkpoint of ``model`` into ``directory``: ``model.zip`` first (when
    ``resumable``), then the actor's weights and ``card.json`` (its ``policy`` filled in from
    the model), each file atomically. Returns the card as written."""
    description, tensors = actor_tensors(model, card["num_players"])
    os.makedirs(directory, exist_ok=True)
    if resumable:
        with _atomic.atomic_write(os.path.join(directory, ckpt.MODEL_FILE), "wb") as fh:
            model.save(fh)
    return ckpt.save_policy(directory, dict(card, format=ckpt.CARD_FORMAT, policy=description), tensors)


def load_model(path: str, rules: Rules | None = None, num_players: int | None = None,
               env: Any = None, device: str = "cpu") -> tuple[Any, dict]:
    """``(model, card)``: the SB3 model of the checkpoint directory ``path``, for resuming
    training. TRUSTED INPUT ONLY: ``model.zip`` is unpickled (this runs code it holds). The card
    (format 1 or 2) is validated and checked against ``rules``/``num_players`` first."""
    directory = ckpt.checkpoint_dir(path)
    card = ckpt.load_card(directory, require_policy=False)
    ckpt.check_card(card, rules, num_players, where=f"checkpoint {directory!r}")
    return load_zip(os.path.join(directory, ckpt.MODEL_FILE), env, device), card


def load_zip(model_path: str, env: Any = None, device: str = "cpu") -> Any:
    """The MaskablePPO model of the file ``model_path`` (TRUSTED INPUT: it is unpickled), checked
    to observe and act as this uno_env does; :class:`~uno_env.agents.checkpoint.CheckpointError`
    naming the file otherwise."""
    if not os.path.isfile(model_path):
        raise ckpt.CheckpointNotFoundError(f"checkpoint model {model_path!r} not found")
    from sb3_contrib import MaskablePPO

    try:
        with _pickled_as_policy():
            model = MaskablePPO.load(model_path, env=env, device=device)
    except RemovedOptionError as e:  # trained with an option since removed
        raise ckpt.CheckpointError(f"checkpoint model {model_path!r}: {e}; its safe checkpoint still plays "
                                   f"(checkpoint:<dir>)") from None
    except Exception as e:  # zipfile.BadZipFile, KeyError, pickle errors, torch errors ...
        raise ckpt.CheckpointError(f"checkpoint model {model_path!r} is corrupt or not a MaskablePPO "
                                   f"model: {type(e).__name__}: {e}") from None
    shape, n = model.observation_space.shape, getattr(model.action_space, "n", None)
    if shape not in OBSERVATION_SHAPES or n != A.NUM_ACTIONS:
        old = " (observation layout 0: it cannot be resumed; its safe checkpoint still plays)" \
            if shape == (O.V0_SIZE,) else ""
        raise ckpt.CheckpointError(f"checkpoint model {model_path!r} has observation shape {shape} "
                                   f"and {n} actions; this uno_env has ({O.OBS_SIZE},) and {A.NUM_ACTIONS}{old}")
    return model


@contextlib.contextmanager
def _pickled_as_policy() -> Iterator[None]:
    """While a model is read: the module names of :data:`~uno_env.learn.sb3.policy.PICKLED_AS`
    that no module holds are :mod:`uno_env.learn.sb3.policy`, so an older model's pickles find
    its classes; afterwards they are gone again."""
    added = [name for name in sb3_policy.PICKLED_AS if name not in sys.modules]
    for name in added:
        sys.modules[name] = sb3_policy
    try:
        yield
    finally:
        for name in added:
            sys.modules.pop(name, None)
