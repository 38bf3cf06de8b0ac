"""Trained-agent checkpoints that hold only data: a JSON card and the policy's weights in safetensors.

A checkpoint is a directory::

    <dir>/card.json                          what the policy is, what it was trained for, how it plays
    <dir>/policy-<sha256[:12]>.safetensors   the actor's weights (tensors only), the file the card names
    <dir>/model.zip                          optional: the SB3 model, for ``train.py --resume`` only

**Loading a checkpoint never runs code.** ``checkpoint:<dir>`` (``uno-evaluate``, ``uno-play``,
the Gymnasium env's opponents, :func:`load_checkpoint`) reads ``card.json`` and the weights
file it names, nothing else, in this order:

1. ``card.json`` (at most ``MAX_CARD_BYTES``; an integer too long to read is named with its
   key) as JSON, then the whole card is validated:
   format, rules (a JSON object of rule options that builds a valid ruleset), player count,
   observation and action layouts, and the network description (input, layer sizes,
   activation, dtype, weights file name and SHA-256). The card is compared with the env
   it is asked to play in (rules, player count).
2. Only then the weights file: its size must fit the described network (checked before a
   byte is read), its SHA-256 must be the card's (hashed in chunks of ``_files.HASH_CHUNK``:
   a file of the largest size a card allows costs one chunk of memory, not its size), its
   safetensors header must hold exactly the tensor names, dtypes and shapes the card
   implies; then the tensors are read (finite float32 only).

**Only regular files** (:mod:`uno_env._files`): the card and the weights file must be regular
files of the checkpoint directory. A symbolic link is refused, wherever it points (inside the
directory or out of it), and the error says only that it is a link, nothing of its target:
a checkpoint from a stranger cannot make the loader read, or report the size of, a file
elsewhere on the machine, and checking where a link points would race with the link being
changed. A FIFO or a device is refused without being opened. (The directory itself may be a
link: ``checkpoint:latest`` naming a run is the user's own choice.) ``save_policy`` writes
regular files only.

Every problem is a :class:`CheckpointError` (a ``ValueError``; a missing file is a
:class:`CheckpointNotFoundError`, also a ``FileNotFoundError``) naming the file and what is wrong.
The SB3 ``model.zip`` is a pickle: whoever loads it runs the code it holds. It is kept only to
resume one's own training run (trusted input); ``uno-convert-checkpoint DIR``
(:mod:`uno_env.learn.sb3.convert`) turns a zip one trusts into this format.

**Why safetensors** (rather than numpy ``.npz`` with ``allow_pickle=False``): it is the format
the field uses for weights from strangers (no code path to unpickling, a strict layout with no
overlapping or out-of-bounds tensors, an external audit), its header (names, dtypes, shapes) is
read and checked before any tensor, and torch users load the same file with
``safetensors.torch.load_file``. An ``.npz`` is a zip (compression bombs, member-name quirks)
read through numpy's pickle-capable loader. ``safetensors`` is a small dependency (one
binary wheel, no dependencies of its own).

**The card** (format 2):

==================  ============================================================
key                 content
==================  ============================================================
format              2 (format 1, an SB3 ``model.zip`` and its card, is refused with a hint to
                    convert it: loading it would unpickle)
rules               every rule option (``Rules.to_dict()``); an option absent from an
                    older card takes its default (the behaviour before it existed)
num_players         2..10
observation_layout  ``{"version", "size"}`` of :mod:`uno_env.game.observation`: new cards
                    record version 1; a version-0 card (size 1254) is read too, and its
                    policy reads the version-0 prefix of the observation
action_layout       ``{"version", "size"}`` of :mod:`uno_env.game.actions`
policy              the network: see below
started_from        optional (0.5.13): the checkpoint a run's actor started as
                    (``init_checkpoint``: its directory, weights' SHA-256 and steps, and
                    its rules' name when they were not the run's (``init_other_rules``);
                    :func:`check_network` checks that its network is the run's)
algorithm, total_steps, wall_time_s, saved, evaluation, config, run, uno_env_version:
                    information only (never interpreted when loading), as ``started_from``
==================  ============================================================

``policy``: ``input`` (``"raw"``: the observation of the card's layout, 1537 entries, or
the first 1254 for a version-0 card; ``"obs_features"``: the observation without the empty
opponent slots (and empty HISTORY slots) of a ``num_players`` table, the pending count x0.25,
opponents' hand sizes and received cards x0.1, :func:`obs_features_layout`), ``sizes`` (layer
widths from the input size to the 195 action logits, e.g. ``[361, 256, 256, 195]``), ``activation``
(``tanh`` or ``relu``, after every layer but the last), ``dtype`` (``float32``), ``weights``
(the file name) and ``sha256`` (of that file). The file holds ``actor.<i>.weight``
(``[sizes[i+1], sizes[i]]``, as ``torch.nn.Linear``) and ``actor.<i>.bias`` (``[sizes[i+1]]``)
for each layer ``i``: the shape of an SB3 ``MlpExtractor.policy_net`` + ``action_net``. The
value network and optimizer state are not part of it (they stay in ``model.zip``).

**Writing** (:func:`save_policy`): the weights file is named by its content's hash and written
first, the card (the commit point) last, each atomically; weights files that neither the new
card nor the one it replaced names are then removed (the one before stays, so a reader that
read the old card still finds its weights). A run killed at any moment leaves a checkpoint
whose card matches its weights. One writer at a time: a save takes the directory's writer's
lock (``uno_env._atomic.writer_lock``; a training run holds it for the whole run), so a second
writer is refused with a message naming the first. A reader that finds the weights its card
named gone or changed (a save in between) reads the card again (:func:`load_checkpoint`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from typing import Any, Mapping

import numpy as np

from uno_env import _atomic, _files
from uno_env.game import actions as A
from uno_env.game import observation as O
from uno_env.game.rules import Rules, make_rules

CARD_FORMAT = 2
LEGACY_CARD_FORMAT = 1  # model.zip checkpoints (resume and conversion only)
CARD_FILE = "card.json"
MODEL_FILE = "model.zip"  # SB3 model (a pickle): --resume only
WEIGHTS_PREFIX = "policy-"
WEIGHTS_SUFFIX = ".safetensors"
WEIGHTS_HASH_CHARS = 12
OBS_LAYOUT = {"version": O.LAYOUT_VERSION, "size": O.OBS_SIZE}  # what new cards record
# every observation layout a card may have: {"version", "size"} (policies of older layouts read
# the prefix of the observation that is their layout)
OBS_LAYOUTS = tuple({"version": v, "size": size} for v, size in sorted(O.LAYOUT_SIZES.items()))
ACTION_LAYOUT = {"version": A.LAYOUT_VERSION, "size": A.NUM_ACTIONS}
IGNORED_RULE_KEYS = ("name", "max_steps")  # do not change the game
INPUTS = ("raw", "obs_features")
ACTIVATIONS = ("tanh", "relu")
DTYPE = "float32"
SAFETENSORS_DTYPE = "F32"
POLICY_KEYS = ("input", "sizes", "activation", "dtype", "weights", "sha256")
MAX_CARD_BYTES = 1 << 20
MAX_HIDDEN_LAYERS = 16
MAX_WIDTH = 8192
MAX_HEADER_BYTES = 1 << 16  # safetensors header of the weights file (names, shapes, offsets)
PENDING_SCALE = 0.25  # obs_features: the pending penalty count
HAND_SIZE_SCALE = 0.1  # obs_features: opponents' hand sizes and cards received since their last play
_WEIGHTS_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.safetensors")
_OWN_WEIGHTS_NAME = re.compile(re.escape(WEIGHTS_PREFIX) + r"[0-9a-f]{%d}" % WEIGHTS_HASH_CHARS
                               + re.escape(WEIGHTS_SUFFIX))
READ_ATTEMPTS = 3  # card + weights, read again while a concurrent save replaces them
_SHA256 = re.compile(r"[0-9a-f]{64}")
CONVERT_HINT = "convert a model.zip you trust with: uno-convert-checkpoint DIR"


class CheckpointError(ValueError):
    """A checkpoint that cannot be loaded: the message names the file and the problem."""


class CheckpointNotFoundError(CheckpointError, FileNotFoundError):
    """A checkpoint file or directory that does not exist."""


# ---------------------------------------------------------------------- the network
def obs_features_layout(num_players: int, version: int = O.LAYOUT_VERSION) -> tuple[np.ndarray, np.ndarray]:
    """``(keep, scale)`` of the ``obs_features`` input of observation layout ``version``:
    ``observation[keep] * scale`` (indices into the current observation, whose first entries
    are the older layouts).

    Keeps everything up to the last real opponent's slot and the rule flags (2 players: 326 of
    the 1254 entries of version 0); version 1 also keeps the HISTORY slots of the real opponents
    and WD4_COLOR (2 players: 361 entries). Scales the pending count, opponents' hand sizes and
    the cards they received since their last play to about [0, 1]."""
    if version not in O.LAYOUT_SIZES:
        raise ValueError(f"unknown observation layout version {version!r} (known: {sorted(O.LAYOUT_SIZES)})")
    m = num_players - 1
    parts = [np.arange(O.OPPONENTS + m * O.OPP_FIELDS), np.arange(O.RULES, O.V0_SIZE)]
    if version >= 1:
        parts += [np.arange(O.HISTORY, O.HISTORY + m * O.HIST_FIELDS), np.arange(O.WD4_COLOR, O.OBS_SIZE)]
    keep = np.concatenate(parts).astype(np.int64)
    scale = np.ones(O.OBS_SIZE, np.float32)
    scale[O.PENDING] = PENDING_SCALE
    scale[O.OPPONENTS + O.OPP_HAND_SIZE:O.RULES:O.OPP_FIELDS] = HAND_SIZE_SCALE
    scale[O.HISTORY + O.HIST_RECEIVED:O.WD4_COLOR:O.HIST_FIELDS] = HAND_SIZE_SCALE
    return keep, scale[keep]


def input_size(input_kind: str, num_players: int, version: int = O.LAYOUT_VERSION) -> int:
    """Width of a policy's input: the layout's observation (``raw``) or its ``obs_features``."""
    if input_kind == "raw":
        return O.LAYOUT_SIZES[version]
    return len(obs_features_layout(num_players, version)[0])


def layout_version(card: Mapping[str, Any]) -> int:
    """The observation layout version of a validated card."""
    return card["observation_layout"]["version"]


def policy_spec(hidden: list[int], activation: str, input_kind: str, num_players: int) -> dict[str, Any]:
    """The card's ``policy`` description of an MLP actor (without ``weights``/``sha256``,
    which :func:`save_policy` fills in), for the current observation layout."""
    sizes = [input_size(input_kind, num_players)] + [int(h) for h in hidden] + [A.NUM_ACTIONS]
    return {"input": input_kind, "sizes": sizes, "activation": activation, "dtype": DTYPE}


def tensor_shapes(policy: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """Name -> shape of every tensor of the weights file the ``policy`` description implies."""
    sizes = policy["sizes"]
    shapes: dict[str, tuple[int, ...]] = {}
    for i in range(len(sizes) - 1):
        shapes[f"actor.{i}.weight"] = (sizes[i + 1], sizes[i])
        shapes[f"actor.{i}.bias"] = (sizes[i + 1],)
    return shapes


# ---------------------------------------------------------------------- saving
def make_card(*, rules: Rules, num_players: int, total_steps: int, wall_time_s: float,
              policy: Mapping[str, Any] | None = None, evaluation: dict | None = None,
              config: dict | None = None, extra: dict | None = None) -> dict[str, Any]:
    """A format-2 card; ``policy`` (:func:`policy_spec`) may be left for the saver to fill in
    (:func:`uno_env.learn.sb3.save.save_checkpoint` describes the model's actor)."""
    import uno_env

    card = {
        "format": CARD_FORMAT,
        "uno_env_version": uno_env.__version__,
        "algorithm": "MaskablePPO",
        "rules": rules.to_dict(),
        "num_players": int(num_players),
        "observation_layout": dict(OBS_LAYOUT),
        "action_layout": dict(ACTION_LAYOUT),
        "policy": dict(policy or {}),
        "total_steps": int(total_steps),
        "wall_time_s": round(float(wall_time_s), 1),
        "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "evaluation": evaluation or {},
        "config": config or {},
    }
    card.update(extra or {})
    return card


def save_policy(directory: str, card: Mapping[str, Any], tensors: Mapping[str, np.ndarray]) -> dict:
    """Write the weights (``policy-<hash>.safetensors``) and then ``card.json`` into
    ``directory``, each atomically; returns the card as written (``weights``/``sha256`` set).
    Weights files of earlier saves that the card no longer names are removed."""
    from safetensors.numpy import save as st_save

    policy = {k: v for k, v in (card.get("policy") or {}).items() if k not in ("weights", "sha256")}
    # the card as it will be, less the weights' name and hash
    validate_card(dict(card, policy=dict(policy, weights="x" + WEIGHTS_SUFFIX, sha256="0" * 64)),
                  f"being saved to {directory!r}")
    shapes = tensor_shapes(policy)
    if set(tensors) != set(shapes):
        raise ValueError(f"tensors {sorted(tensors)} do not match the card's network {sorted(shapes)}")
    arrays = {}
    for name, shape in shapes.items():
        array = np.ascontiguousarray(tensors[name], dtype=np.float32)
        if array.shape != shape:
            raise ValueError(f"tensor {name} has shape {array.shape}; the card's network needs {shape}")
        arrays[name] = array
    data = st_save(arrays)
    sha = hashlib.sha256(data).hexdigest()
    name = f"{WEIGHTS_PREFIX}{sha[:WEIGHTS_HASH_CHARS]}{WEIGHTS_SUFFIX}"
    card = dict(card, policy=dict(policy, weights=name, sha256=sha))
    validate_card(card, f"being saved to {directory!r}")
    os.makedirs(directory, exist_ok=True)
    with _atomic.writer_lock(directory):
        previous = _named_weights(directory)
        _atomic.write_bytes(os.path.join(directory, name), data)
        _atomic.write_text(os.path.join(directory, CARD_FILE), json.dumps(card, indent=2) + "\n")
        for old in os.listdir(directory):
            if old not in (name, previous) and _OWN_WEIGHTS_NAME.fullmatch(old):
                os.remove(os.path.join(directory, old))
    return card


def _named_weights(directory: str) -> str | None:
    """The weights file the card in ``directory`` names now (None: no card, or not a readable one)."""
    try:
        return load_card(directory)["policy"]["weights"]
    except (ValueError, OSError, KeyError):
        return None


# ---------------------------------------------------------------------- loading
def checkpoint_dir(path: str | os.PathLike) -> str:
    """The checkpoint directory ``path`` names (``CheckpointError`` if it is not one)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        return path
    if path.endswith(".zip"):
        raise CheckpointError(f"{path!r} is an SB3 model file: checkpoint:<dir> loads a checkpoint "
                              f"directory (card.json + safetensors weights), never a pickle; {CONVERT_HINT}")
    if not os.path.exists(path):
        raise CheckpointNotFoundError(f"checkpoint directory {path!r} not found")
    raise CheckpointError(f"checkpoint {path!r} is not a directory (a checkpoint is a directory "
                          f"holding {CARD_FILE} and the weights file it names)")


def load_card(path: str | os.PathLike, require_policy: bool = True) -> dict[str, Any]:
    """The validated card of the checkpoint directory ``path``. With ``require_policy=False``
    a format-1 card (an SB3 ``model.zip`` checkpoint, for resuming) passes too."""
    directory = checkpoint_dir(path)
    card_path = os.path.join(directory, CARD_FILE)
    if not os.path.lexists(card_path):
        raise CheckpointNotFoundError(f"checkpoint card {card_path!r} not found (a checkpoint is a "
                                      f"directory holding {CARD_FILE} and the weights file it names)")
    try:  # a regular file (no link, FIFO...) of at most MAX_CARD_BYTES, JSON, integers named
        card = _files.read_json(card_path, MAX_CARD_BYTES, "checkpoint card", follow_symlinks=False)
    except _files.FileBoundsError as e:
        raise CheckpointError(str(e)) from None
    except OSError as e:
        raise CheckpointError(f"checkpoint card {card_path!r} cannot be read: {e.strerror or e}") from None
    validate_card(card, repr(card_path), require_policy)
    return card


def validate_card(card: Any, where: str = "", require_policy: bool = True) -> None:
    """``CheckpointError`` unless ``card`` is a well-formed card this uno_env can load."""
    def fail(problem: str) -> None:
        raise CheckpointError(f"checkpoint card {where}: {problem}" if where
                              else f"checkpoint card: {problem}")

    if not isinstance(card, dict):
        fail(f"must be a JSON object, got {type(card).__name__}")
    fmt = card.get("format")
    if fmt == LEGACY_CARD_FORMAT and require_policy:
        fail(f"format {fmt} describes an SB3 model.zip (a pickle, which checkpoint: never loads); "
             f"{CONVERT_HINT}")
    if not _is_int(fmt) or fmt not in (LEGACY_CARD_FORMAT, CARD_FORMAT):
        fail(f"unsupported format {fmt!r} (this uno_env reads format {CARD_FORMAT})")
    required = ["rules", "num_players", "observation_layout", "action_layout"]
    required += ["policy"] if fmt == CARD_FORMAT else []
    missing = [k for k in required if k not in card]
    if missing:
        fail(f"missing {missing}")
    if not isinstance(card["rules"], dict):
        fail(f"rules must be a JSON object of rule options, got {type(card['rules']).__name__} "
             f"{_short(card['rules'])}")
    try:
        make_rules(card["rules"])
    except (ValueError, TypeError) as e:
        fail(f"rules: {e}")
    n = card["num_players"]
    if not _is_int(n) or not 2 <= n <= O.MAX_PLAYERS:
        fail(f"num_players must be an integer in 2..{O.MAX_PLAYERS}, got {_short(n)}")
    layout = card["observation_layout"]
    if layout not in OBS_LAYOUTS or not _is_int(layout["version"]) or not _is_int(layout["size"]):
        fail(f"observation layout {_short(card['observation_layout'])} (this uno_env has {OBS_LAYOUT} "
             f"and reads {list(OBS_LAYOUTS)})")
    if card["action_layout"] != ACTION_LAYOUT:
        fail(f"action layout {_short(card['action_layout'])} (this uno_env has {ACTION_LAYOUT})")
    if fmt == CARD_FORMAT:
        problem = _policy_problem(card["policy"], n, layout_version(card))
        if problem:
            fail(f"policy: {problem}")


def _policy_problem(policy: Any, num_players: int, version: int) -> str | None:
    if not isinstance(policy, dict):
        return f"must be a JSON object, got {type(policy).__name__} {_short(policy)}"
    if sorted(policy) != sorted(POLICY_KEYS):
        return f"keys must be {list(POLICY_KEYS)}, got {_short(sorted(policy))}"
    if policy["input"] not in INPUTS:
        return f"input must be one of {list(INPUTS)}, got {_short(policy['input'])}"
    if policy["activation"] not in ACTIVATIONS:
        return f"activation must be one of {list(ACTIVATIONS)}, got {_short(policy['activation'])}"
    if policy["dtype"] != DTYPE:
        return f"dtype must be {DTYPE!r}, got {_short(policy['dtype'])}"
    sizes = policy["sizes"]
    if (not isinstance(sizes, list) or not 2 <= len(sizes) <= MAX_HIDDEN_LAYERS + 2
            or not all(_is_int(s) for s in sizes)):
        return (f"sizes must be a list of 2..{MAX_HIDDEN_LAYERS + 2} integers (input, hidden "
                f"layers, actions), got {_short(sizes)}")
    n_in = input_size(policy["input"], num_players, version)
    if sizes[0] != n_in:
        return (f"sizes[0] is {sizes[0]}; input {policy['input']!r} with {num_players} players "
                f"(observation layout {version}) has {n_in}")
    if sizes[-1] != A.NUM_ACTIONS:
        return f"sizes[-1] is {sizes[-1]}; there are {A.NUM_ACTIONS} actions"
    if not all(1 <= s <= MAX_WIDTH for s in sizes[1:-1]):
        return f"hidden layer sizes must be in 1..{MAX_WIDTH}, got {sizes[1:-1]}"
    if not isinstance(policy["weights"], str) or not _WEIGHTS_NAME.fullmatch(policy["weights"]):
        return (f"weights must be a plain file name ending in {WEIGHTS_SUFFIX} (no directory), "
                f"got {_short(policy['weights'])}")
    if not isinstance(policy["sha256"], str) or not _SHA256.fullmatch(policy["sha256"]):
        return f"sha256 must be 64 lowercase hex digits, got {_short(policy['sha256'])}"
    return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def card_rules(card: Mapping[str, Any]) -> Rules:
    """The ruleset of a validated card (options absent from an older card take their default)."""
    return make_rules(card["rules"])


def check_card(card: Mapping[str, Any], rules: Rules | None, num_players: int | None,
               where: str = "checkpoint") -> None:
    """``CheckpointError`` naming every difference between a validated card and the requested env."""
    problems = []
    if num_players is not None and card["num_players"] != num_players:
        problems.append(f"num_players {card['num_players']} (the env has {num_players})")
    if rules is not None:
        ours, theirs = rules.to_dict(), card_rules(card).to_dict()
        diff = [f"{k}={theirs[k]!r} (env: {ours[k]!r})" for k in sorted(ours)
                if k not in IGNORED_RULE_KEYS and theirs[k] != ours[k]]
        if diff:
            problems.append("rules " + ", ".join(diff))
    if problems:
        raise CheckpointError(f"{where} does not match the requested env: " + "; ".join(problems))


def load_weights(path: str | os.PathLike, card: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The tensors of the weights file a validated card names, checked against the card."""
    from safetensors import SafetensorError, safe_open

    directory = checkpoint_dir(path)
    policy = card["policy"]
    weights_path = os.path.join(directory, policy["weights"])
    if not os.path.lexists(weights_path):
        raise CheckpointNotFoundError(f"checkpoint weights {weights_path!r} (named by its "
                                      f"{CARD_FILE}) not found")
    shapes = tensor_shapes(policy)
    data_bytes = 4 * sum(int(np.prod(s)) for s in shapes.values())

    def bad(problem: str) -> CheckpointError:
        return CheckpointError(f"checkpoint weights {weights_path!r} {problem}")

    what = "checkpoint weights"
    try:  # the size the card allows first (a regular file, no link), then the hash, in chunks
        size = _files.check_regular(weights_path, what, follow_symlinks=False).st_size
        if not data_bytes < size <= data_bytes + 8 + MAX_HEADER_BYTES:
            raise bad(f"has {size} bytes; the card's network {policy['sizes']} needs {data_bytes} "
                      f"bytes of float32 and a header")
        with _files.open_regular(weights_path, what, size, follow_symlinks=False) as fh:
            sha = _files.sha256_of(fh)
    except _files.FileBoundsError as e:
        raise CheckpointError(str(e)) from None
    except OSError as e:
        raise bad(f"cannot be read: {e.strerror or e}") from None
    if sha != policy["sha256"]:
        raise bad(f"do not match the card: sha256 {sha}, the card says {policy['sha256']}")
    try:
        with safe_open(weights_path, framework="numpy") as f:
            names = set(f.keys())
            if names != set(shapes):
                raise bad(f"hold tensors {sorted(names)}; the card's network has {sorted(shapes)}")
            for name, shape in shapes.items():
                tensor = f.get_slice(name)
                got = (tensor.get_dtype(), tuple(tensor.get_shape()))
                if got != (SAFETENSORS_DTYPE, shape):
                    raise bad(f"tensor {name} is {got[0]} {list(got[1])}; the card's network needs "
                              f"{SAFETENSORS_DTYPE} {list(shape)}")
            tensors = {name: np.array(f.get_tensor(name), np.float32) for name in shapes}
    except (SafetensorError, OSError, ValueError) as e:
        if isinstance(e, CheckpointError):
            raise
        raise bad(f"is not a valid safetensors file: {type(e).__name__}: {e}") from None
    for name, tensor in tensors.items():
        if not np.isfinite(tensor).all():
            raise bad(f"tensor {name} holds NaN or infinite values")
    return tensors


def check_network(card: Mapping[str, Any], policy: Mapping[str, Any], where: str = "checkpoint") -> None:
    """``CheckpointError`` naming every difference between a validated card's network and
    ``policy`` (a :func:`policy_spec`: the network a training run builds, in the current
    observation layout): input, layer sizes, activation, layout version. A run can start from
    the card's weights only where there is none."""
    problems = [f"{key} {card['policy'][key]!r} (the run's: {policy[key]!r})"
                for key in ("input", "sizes", "activation") if card["policy"][key] != policy[key]]
    if layout_version(card) != O.LAYOUT_VERSION:
        problems.append(f"observation layout {layout_version(card)} (the run's: {O.LAYOUT_VERSION})")
    if problems:
        raise CheckpointError(f"{where} holds another network than the run's: " + "; ".join(problems))


def load_checkpoint(path: str | os.PathLike, rules: Rules | None = None,
                    num_players: int | None = None) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(card, tensors)`` of a checkpoint directory, checked against ``rules`` and
    ``num_players`` (when given) before the weights are read."""
    for attempt in range(READ_ATTEMPTS):
        card = load_card(path)
        check_card(card, rules, num_players, where=f"checkpoint {os.fspath(path)!r}")
        try:
            return card, load_weights(path, card)
        except CheckpointError:
            # a save between reading the card and its weights replaces both: read the card again
            if attempt + 1 == READ_ATTEMPTS or load_card(path) == card:
                raise
    raise AssertionError("unreachable")
