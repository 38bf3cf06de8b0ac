"""Demonstrations on disk: a collection kept, so that a slow teacher is paid for once.

A cache of one training setup's collection, not a format to share: datasets to share, load with
Minari or imitate from (``imitate_dataset``) are :mod:`uno_env.tools.dataset`'s (``uno-dataset``).

    demos, loaded = demonstrations(rules, 2, 150_000, seed=5, teacher="search:simulations=200",
                                   workers=2, cache="runs/demos/search-150k.safetensors")

:func:`demonstrations` loads the file ``cache`` names when it holds the collection asked for,
else collects (:func:`uno_env.learn.imitation.collect_demonstrations`) and writes it there.
``imitate_cache`` in the training configs. Collecting 150k decisions of
``search:simulations=200`` took 43 minutes on two cores (measured); reading them back, seconds.

**Format**: one safetensors file (arrays only: never a pickle), written atomically.

| tensor | dtype | shape |
|---|---|---|
| ``observations`` | F32 | (N, ``OBS_SIZE``) |
| ``masks`` | BOOL | (N, ``NUM_ACTIONS``) |
| ``actions`` | I64 | (N,) |
| ``returns`` | F32 | (N,) |
| ``states`` (only with ``critic_state``) | F32 | (N, ``GLOBAL_STATE_SIZE``) |

The header's metadata: ``format`` (:data:`FORMAT`), ``games`` and ``about``: the collection's
parameters as JSON (rules as a dict, ``num_players``, ``decisions``, ``seed``, ``teacher``,
``critic_state``, ``workers`` and the observation ``layout``; at most ``MAX_ABOUT_CHARS``,
nesting too deep for the JSON parser or an integer too long to read named as such). A cached file is used only when
every parameter matches, so a run reads exactly the rows it would have collected; a mismatch
is an error that names the differing parameters (nothing is overwritten). On loading, the
names, dtypes and shapes are checked from the header before any array is read, then every
action must be legal under its mask and every value finite.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Mapping

import numpy as np

from uno_env import _atomic, _files
from uno_env.game.actions import NUM_ACTIONS
from uno_env.game.global_state import GLOBAL_STATE_SIZE
from uno_env.game.observation import LAYOUT_VERSION, OBS_SIZE
from uno_env.game.rules import Rules, show_value
from uno_env.learn.imitation import (Demonstrations, check_dataset_for, collect_demonstrations,
                                     dataset_demonstrations)

FORMAT = "uno_env.demonstrations/1"
# tensor: (safetensors dtype, numpy dtype, width; None for a column)
TENSORS = {"observations": ("F32", np.float32, OBS_SIZE), "masks": ("BOOL", np.bool_, NUM_ACTIONS),
           "actions": ("I64", np.int64, None), "returns": ("F32", np.float32, None),
           "states": ("F32", np.float32, GLOBAL_STATE_SIZE)}
OPTIONAL = ("states",)
MAX_ABOUT_CHARS = 64 * 1024  # the collection's parameters: ~1 KB


class DemonstrationsError(ValueError):
    """A demonstrations file that cannot be used: the message names the file and the problem."""


def about_collection(rules: Rules, num_players: int, decisions: int, seed: int, teacher: str,
                     critic_state: bool, workers: int) -> dict[str, Any]:
    """The parameters that decide a collection's rows (the file's ``about``)."""
    return {"rules": rules.to_dict(), "num_players": num_players, "decisions": decisions, "seed": seed,
            "teacher": teacher, "critic_state": critic_state, "workers": workers, "layout": LAYOUT_VERSION}


def demonstrations(rules: Rules, num_players: int, decisions: int, seed: int, teacher: str = "heuristic",
                   critic_state: bool = False, workers: int = 1,
                   cache: str | os.PathLike | None = None, progress: bool = False,
                   dataset: str | None = None) -> tuple[Demonstrations, bool]:
    """``(demos, loaded)``: with ``dataset`` (``imitate_dataset``), its first ``decisions``
    read from that Minari dataset (:func:`uno_env.learn.imitation.dataset_demonstrations`);
    else the collection read from ``cache`` if it is there (and matches), else collected (with
    a progress bar if ``progress``) and, with ``cache``, written there (module doc)."""
    if dataset is not None:
        if cache is not None or critic_state:
            raise ValueError("imitate_dataset reads the demonstrations: no imitate_cache, and no critic: state "
                             "(a dataset holds no global states)")
        data = check_dataset_for(dataset, rules, num_players, teacher, decisions)
        return dataset_demonstrations(data, decisions, progress), True
    about = about_collection(rules, num_players, decisions, seed, teacher, critic_state, workers)
    about = json.loads(json.dumps(about, sort_keys=True))  # as the file holds it (lists, not tuples)
    if cache is not None and os.path.exists(cache):
        demos, stored = load_demonstrations(cache)
        differ = [f"{key} {stored.get(key)!r} (asked: {about[key]!r})" for key in about if stored.get(key) != about[key]]
        if differ:
            raise DemonstrationsError(f"demonstrations file {os.fspath(cache)!r} holds another collection: "
                                      + "; ".join(differ) + ". Point imitate_cache elsewhere or delete it")
        return demos, True
    demos = collect_demonstrations(rules, num_players, decisions, seed, teacher=teacher,
                                   critic_state=critic_state, workers=workers, progress=progress)
    if cache is not None:
        save_demonstrations(demos, cache, about)
    return demos, False


def save_demonstrations(demos: Demonstrations, path: str | os.PathLike, about: Mapping[str, Any]) -> None:
    """Write ``demos`` to ``path`` (the format above), atomically; parent folders are made."""
    from safetensors.numpy import save_file

    arrays = {name: np.ascontiguousarray(getattr(demos, name), dtype) for name, (_, dtype, _) in TENSORS.items()
              if getattr(demos, name) is not None}
    metadata = {"format": FORMAT, "games": str(demos.games), "about": json.dumps(dict(about), sort_keys=True)}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with _atomic.atomic_write(path, "wb") as fh:  # safetensors writes the temporary file by name
        save_file(arrays, fh.name, metadata=metadata)


def _about(text: str, bad: Callable[[str], DemonstrationsError]) -> dict[str, Any]:
    """The ``about`` metadata (JSON, at most ``MAX_ABOUT_CHARS``) of a demonstrations file."""
    if len(text) > MAX_ABOUT_CHARS:
        raise bad(f"has metadata 'about' of {len(text)} characters (at most {MAX_ABOUT_CHARS})")
    try:
        about = json.loads(text, parse_int=_files.parse_int)
    except ValueError:
        raise bad("has unreadable metadata 'about' (not JSON)") from None
    except RecursionError:
        raise bad("has metadata 'about' nested too deeply") from None
    problem = _files.too_long_integer_problem(about)
    if problem is not None:
        raise bad("has metadata 'about'" + problem)
    if not isinstance(about, dict):
        raise bad(f"has metadata 'about' that is not a JSON object: {show_value(about)}")
    return about


def load_demonstrations(path: str | os.PathLike) -> tuple[Demonstrations, dict[str, Any]]:
    """``(demos, about)`` of a demonstrations file, validated (module doc)."""
    from safetensors import SafetensorError, safe_open

    where = f"demonstrations file {os.fspath(path)!r}"

    def bad(problem: str) -> DemonstrationsError:
        return DemonstrationsError(f"{where} {problem}")

    try:  # a regular file (not a FIFO, a device, a directory)
        _files.check_regular(path, "demonstrations file")
    except FileNotFoundError:
        raise bad("not found") from None
    except _files.FileBoundsError as e:
        raise DemonstrationsError(str(e)) from None
    try:
        with safe_open(os.fspath(path), framework="numpy") as f:
            meta = f.metadata() or {}
            if meta.get("format") != FORMAT:
                raise bad(f"has format {show_value(meta.get('format'))}; this version reads {FORMAT!r}")
            about = _about(meta.get("about", ""), bad)
            games = meta.get("games", "")
            if not (games.isascii() and games.isdigit() and len(games) <= 18 and int(games) >= 1):
                raise bad(f"has unreadable metadata 'games': {show_value(games)}")
            games = int(games)
            names = set(f.keys())
            required = set(TENSORS) - set(OPTIONAL)
            if not required <= names <= set(TENSORS):
                raise bad(f"holds tensors {sorted(names)}; it needs {sorted(required)} "
                          f"(and may hold {list(OPTIONAL)})")
            rows = None
            for name in sorted(names):
                st_dtype, _, width = TENSORS[name]
                tensor = f.get_slice(name)
                shape = tuple(tensor.get_shape())
                rows = shape[0] if rows is None and shape else rows
                want = (rows,) if width is None else (rows, width)
                if tensor.get_dtype() != st_dtype or shape != want or not rows:
                    raise bad(f"tensor {name} is {tensor.get_dtype()} {list(shape)}; it must be "
                              f"{st_dtype} {list(want)} with the same rows (>= 1) as the others")
            arrays = {name: f.get_tensor(name) for name in names}
    except (SafetensorError, OSError) as e:
        raise bad(f"is not a valid safetensors file: {type(e).__name__}: {e}") from None
    actions = arrays["actions"]
    if ((actions < 0) | (actions >= NUM_ACTIONS)).any():
        raise bad(f"holds actions outside 0..{NUM_ACTIONS - 1}")
    if not arrays["masks"][np.arange(len(actions)), actions].all():
        raise bad("holds an action its mask does not allow")
    for name in ("observations", "returns", "states"):
        if name in arrays and not np.isfinite(arrays[name]).all():
            raise bad(f"tensor {name} holds NaN or infinite values")
    demos = Demonstrations(observations=arrays["observations"], masks=arrays["masks"], actions=actions,
                           returns=arrays["returns"], states=arrays.get("states"), games=games)
    return demos, about
