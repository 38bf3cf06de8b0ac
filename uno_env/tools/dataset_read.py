"""UNO datasets in Minari's format: the layout, and the one reader of a dataset from anyone.

    data = read_dataset("uno/classic-2p/heuristic-v0", max_steps=1_000_000)
    data.about["agents"], data.rules, data.num_players
    for ep in data.episodes(): ep.observations, ep.masks, ep.actions, ep.rewards, ...

A dataset is one seat's view of the Gymnasium env ``uno_env/Uno-v1`` (:mod:`uno_env.envs.gym_env`),
stored as a local `Minari <https://minari.farama.org>`_ dataset (``minari.load_dataset(id)``
reads it): a folder ``<MINARI_DATASETS_PATH>/<id>/data/`` (``~/.minari/datasets`` by default)
with ``metadata.json`` and ``main_data.hdf5``. :mod:`uno_env.tools.dataset` writes it
(``uno-dataset create``).

**Episodes** (HDF5 groups ``episode_<i>``, ``i`` = 0, 1, ...; attributes ``id``, ``seed``: the
env's reset seed, ``total_steps``: T, the learner's decisions), Minari's layout:

========================  =======  ============  ===============================================
dataset                   dtype    shape         what
========================  =======  ============  ===============================================
``observations``          float32  (T+1, 1537)   the observation after ``reset`` and every step
``actions``               int64    (T,)          the learner seat's actions (``0..194``)
``rewards``               float64  (T,)          the env's rewards (0 until the last step)
``terminations``          bool     (T,)          True at the last step of a finished game
``truncations``           bool     (T,)          True at the last step of a cut game
``infos/action_mask``     int8     (T+1, 195)    the step infos' ``action_mask`` (zeros at the end)
``infos/seat``            int64    (T+1,)        the learner's seat
========================  =======  ============  ===============================================

Compressed (gzip level 1 with byte shuffling, HDF5's own filters: any HDF5 reader reads them).
The other keys of the env's infos at the end of an episode (``winner``, ``steps``...) are not
stored: Minari keeps only keys present at every step.

**Metadata** (``metadata.json``): Minari's keys (``dataset_id``, ``total_episodes``,
``total_steps``, the spaces, ``env_spec``: ``gymnasium.make`` of ``uno_env/Uno-v1`` with the
rules, players, opponents and seat, so that ``dataset.recover_environment()`` rebuilds it;
``description``: the dataset card) and ``uno_env`` (:data:`FORMAT`): ``rules`` (every option),
``num_players``, ``seat`` (the learner's seat or ``"random"``), ``agents`` (every seat's agent
spec, the learner's first, then the seats to its left), ``max_learner_steps``, ``seed`` (the
episodes' reset seeds are drawn from ``numpy.random.default_rng(seed)``; the learner agent's
from ``default_rng([seed, 1])``), ``layout`` (the observation layout), ``version`` (uno_env's),
``engine`` (``"batched"`` or ``"scalar"``: the one that played it; the same episodes either way but
for a ``#sample`` learner) and
``command``.

**Safety.** A dataset from someone else runs no code here and is read with bounds:

* Minari's own loader unpickles nothing (JSON metadata, spaces rebuilt by a fixed table), but
  when ``metadata.json`` lacks a space it builds the env from the stored ``env_spec``
  (``gymnasium.make``: imports and calls its ``entry_point``, any ``module:function``), and
  ``recover_environment()`` always does. :func:`check_dataset` (``uno-dataset check``) refuses a
  dataset unless both spaces are UNO's and the env spec (if any) names ``uno_env/Uno-v1``'s entry
  point without wrappers; run it before ``minari.load_dataset`` on a dataset you were sent.
* The metadata's agent specs play inside the recovered env (and an evaluation of its line-up):
  a spec that imports code (``module:...``) is refused, and the env spec's arguments must be
  exactly those the ``uno_env`` key implies.
* This reader reads ``metadata.json`` through :mod:`uno_env._files` (at most
  :data:`MAX_METADATA_BYTES`), then walks the HDF5 file's structure, reading no data: every
  episode group and dataset must be a plain (hard) link, no external link, external storage or
  virtual dataset (each could read other files), only the filters above, exactly the dtypes and
  shapes of the table, ``T`` at most :data:`MAX_EPISODE_STEPS`, the totals as the metadata says
  and at most the caller's ``max_steps`` (before any array is read: memory is bounded by it).
  Then, reading, every action must be legal under its mask, every value finite, every
  observation entry >= 0, every reward the env's (0, then +1, -1/(n-1) or 0 at the last step:
  a critic fitted on a stranger's returns cannot be blown up) and every seat in ``0..n-1``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from uno_env import _files
from uno_env.game.actions import NUM_ACTIONS
from uno_env.game.observation import LAYOUT_VERSION, OBS_SIZE
from uno_env.agents.base import parse_spec
from uno_env.game.rules import Rules, make_rules, show_value

FORMAT = "uno_env.dataset/1"
ENV_ID = "uno_env/Uno-v1"
ENV_ENTRY_POINT = "uno_env.envs.gym_env:UnoGymEnv"
DATA_FORMAT = "hdf5"  # Minari's storage: the only one read here
METADATA_FILE = "metadata.json"
MAIN_FILE = "main_data.hdf5"
MAX_METADATA_BYTES = 1 << 20  # ~3 KB written
MAX_EPISODE_STEPS = 100_000  # a learner's decisions in one episode (the env caps them at 1,000 by default)
DEFAULT_MAX_STEPS = 10_000_000  # decisions read at most unless the caller says (~62 GB of observations)
MAX_EPISODES = 10_000_000
COMPRESSION = {"compression": "gzip", "compression_opts": 1, "shuffle": True}
ALLOWED_FILTERS = {1, 2, 3, 32000}  # HDF5 filter ids: deflate, shuffle, fletcher32, lzf
# dataset (path in the episode group): (dtype, row shape, rows: "T" or "T+1")
DATASETS = {
    "observations": (np.dtype(np.float32), (OBS_SIZE,), 1),
    "actions": (np.dtype(np.int64), (), 0),
    "rewards": (np.dtype(np.float64), (), 0),
    "terminations": (np.dtype(np.bool_), (), 0),
    "truncations": (np.dtype(np.bool_), (), 0),
    "infos/action_mask": (np.dtype(np.int8), (NUM_ACTIONS,), 1),
    "infos/seat": (np.dtype(np.int64), (), 1),
}
EPISODE_ATTRS = ("id", "seed", "total_steps")


class DatasetError(ValueError):
    """A dataset that cannot be used: the message names the dataset and the problem."""


def observation_space_json() -> dict[str, Any]:
    """The Gymnasium env's observation space as Minari serialises it (a dict)."""
    return {"type": "Box", "dtype": "float32", "shape": [OBS_SIZE], "low": [0.0] * OBS_SIZE,
            "high": [float("inf")] * OBS_SIZE}


def action_space_json() -> dict[str, Any]:
    return {"type": "Discrete", "dtype": "int64", "start": 0, "n": NUM_ACTIONS}


def datasets_root() -> str:
    """Where Minari keeps local datasets: ``$MINARI_DATASETS_PATH`` or ``~/.minari/datasets``."""
    return os.environ.get("MINARI_DATASETS_PATH") or os.path.join(os.path.expanduser("~"), ".minari", "datasets")


DATASET_ID = re.compile(r"(?:[-_\w][-_\w/]*[-_\w]+/)?[-_\w]+?-v\d+")  # minari's (namespace/)name-vN


def data_dir(source: str | os.PathLike) -> str:
    """The ``data`` folder of a dataset named by a Minari id (under :func:`datasets_root`), or
    by a path: the dataset's folder or its ``data`` folder."""
    text = os.fspath(source)
    candidates = [text]
    if isinstance(source, str) and DATASET_ID.fullmatch(source) and ".." not in source.split("/"):
        candidates.insert(0, os.path.join(datasets_root(), source))
    for folder in candidates:
        for d in (os.path.join(folder, "data"), folder):
            if os.path.isfile(os.path.join(d, METADATA_FILE)):
                return d
    raise DatasetError(f"dataset {text!r} not found (neither a Minari id under {datasets_root()!r} "
                       f"nor a folder holding {METADATA_FILE})")


@dataclass
class Episode:
    """One episode, as stored (module doc)."""

    seed: int
    observations: np.ndarray  # (T+1, OBS_SIZE) float32
    actions: np.ndarray  # (T,) int64
    rewards: np.ndarray  # (T,) float64
    terminations: np.ndarray  # (T,) bool
    truncations: np.ndarray  # (T,) bool
    masks: np.ndarray  # (T+1, NUM_ACTIONS) int8
    seats: np.ndarray  # (T+1,) int64

    def __len__(self) -> int:
        return len(self.actions)


@dataclass
class UnoDataset:
    """A checked dataset (:func:`read_dataset`): its metadata, and its episodes read on demand."""

    path: str
    metadata: dict[str, Any]
    about: dict[str, Any]  # metadata["uno_env"]
    rules: Rules
    num_players: int
    steps: list[int]  # T of each episode, in order

    @property
    def dataset_id(self) -> str:
        return self.metadata["dataset_id"]

    def episodes(self, max_steps: int | None = None) -> Iterator[Episode]:
        """The episodes in order (all, or the first ones until ``max_steps`` decisions are
        reached: whole episodes, the last one not cut), each checked as it is read."""
        import h5py

        total = 0
        try:
            with h5py.File(os.path.join(self.path, MAIN_FILE), "r") as f:
                for i, t in enumerate(self.steps):
                    if max_steps is not None and total >= max_steps:
                        return
                    try:
                        episode = _read_episode(f[f"episode_{i}"], i, t, self._bad, self.num_players)
                    except OSError as e:  # a chunk that does not decompress, a truncated file
                        raise self._bad(f"has episode {i} that HDF5 cannot read: {e}") from None
                    yield episode
                    total += t
        except OSError as e:
            raise self._bad(f"has a {MAIN_FILE} that HDF5 cannot read: {e}") from None

    def _bad(self, problem: str) -> DatasetError:
        return DatasetError(f"dataset {self.path!r} {problem}")


def _bad_for(path: str):
    return lambda problem: DatasetError(f"dataset {path!r} {problem}")


def _integer(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def check_metadata(metadata: Any, bad) -> tuple[dict[str, Any], Rules, int]:
    """``(about, rules, num_players)`` of a dataset's ``metadata.json`` (module doc)."""
    if not isinstance(metadata, dict):
        raise bad(f"has {METADATA_FILE} that is not a JSON object")
    if metadata.get("data_format") != DATA_FORMAT:
        raise bad(f"has data_format {show_value(metadata.get('data_format'))}; this reader reads {DATA_FORMAT!r}")
    for key, want in (("observation_space", observation_space_json()), ("action_space", action_space_json())):
        text = metadata.get(key)
        try:
            space = json.loads(text, parse_int=_files.parse_int) if isinstance(text, str) and len(text) < MAX_METADATA_BYTES else None
        except (ValueError, RecursionError):
            space = None
        if space != want:  # also a missing space: Minari would build the env from env_spec
            raise bad(f"has {key} {show_value(text)[:120]}; a UNO dataset has {json.dumps(want)[:80]}...")
    if "eval_env_spec" in metadata:
        raise bad("has an eval_env_spec (a UNO dataset has none): recovering it would run other code")
    for key, high in (("total_episodes", MAX_EPISODES), ("total_steps", MAX_EPISODES * MAX_EPISODE_STEPS)):
        if not _integer(metadata.get(key), 0, high):
            raise bad(f"has {key} {show_value(metadata.get(key))} (an integer in 0..{high})")
    if not isinstance(metadata.get("dataset_id"), str):
        raise bad(f"has dataset_id {show_value(metadata.get('dataset_id'))} (a string)")
    about = metadata.get("uno_env")
    if not isinstance(about, dict) or about.get("format") != FORMAT:
        found = about.get("format") if isinstance(about, dict) else about
        raise bad(f"has uno_env format {show_value(found)}; this version reads {FORMAT!r}")
    if about.get("layout") != LAYOUT_VERSION:
        raise bad(f"holds observation layout {show_value(about.get('layout'))}; this version writes {LAYOUT_VERSION}")
    n = about.get("num_players")
    if not _integer(n, 2, 10):
        raise bad(f"has num_players {show_value(n)} (2..10)")
    agents = about.get("agents")
    if not (isinstance(agents, list) and len(agents) == n and all(isinstance(a, str) and len(a) <= 4096 for a in agents)):
        raise bad(f"has agents {show_value(agents)[:200]}: one agent spec per seat ({n})")
    try:
        rules = make_rules(about.get("rules"))
    except (ValueError, TypeError) as e:
        raise bad(f"has rules that do not load: {e}") from None
    if not isinstance(about.get("rules"), dict):
        raise bad("has rules that are not a mapping of rule options")
    for spec in agents:
        try:
            runs_code = parse_spec(spec).runs_code
        except ValueError as e:
            raise bad(f"has agent spec {spec[:200]!r} that does not read: {e}") from None
        if runs_code:  # building it imports the module it names: the recovered env would
            raise bad(f"has agent spec {spec[:200]!r}, which imports code: not from a dataset")
    seat, cap = about.get("seat"), about.get("max_learner_steps")
    if not (seat == "random" or _integer(seat, 0, n - 1)):
        raise bad(f"has seat {show_value(seat)} ('random' or 0..{n - 1})")
    if not (cap is None or _integer(cap, 1, MAX_EPISODE_STEPS)):
        raise bad(f"has max_learner_steps {show_value(cap)} (1..{MAX_EPISODE_STEPS} or null)")
    _check_env_spec(metadata.get("env_spec"), env_kwargs(rules, n, agents, seat, cap), bad)
    return about, rules, n


def env_kwargs(rules: Rules, num_players: int, agents: list[str], seat: Any,
               max_learner_steps: int | None) -> dict[str, Any]:
    """The keyword arguments of ``gymnasium.make("uno_env/Uno-v1", ...)`` for a dataset (its env spec's)."""
    return {"rules": rules.to_dict(), "num_players": num_players, "opponents": list(agents[1:]), "seat": seat,
            "max_learner_steps": max_learner_steps}


def _check_env_spec(text: Any, kwargs: dict[str, Any], bad) -> None:
    """Minari's ``env_spec`` (None, or JSON of a Gymnasium ``EnvSpec``) must be ``uno_env/Uno-v1``'s
    entry point, no wrappers, and exactly the arguments the metadata's ``uno_env`` key implies:
    ``recover_environment()`` makes that env."""
    if text is None:
        return
    try:
        spec = json.loads(text, parse_int=_files.parse_int) if isinstance(text, str) else None
    except (ValueError, RecursionError):
        spec = None
    if (not isinstance(spec, dict) or spec.get("id") != ENV_ID or spec.get("entry_point") != ENV_ENTRY_POINT
            or spec.get("additional_wrappers") not in (None, [])):
        raise bad(f"has an env_spec that is not {ENV_ID}'s ({ENV_ENTRY_POINT}, no wrappers): "
                  "recovering its environment would import and run other code")
    if spec.get("kwargs") != json.loads(json.dumps(kwargs)):
        raise bad("has an env_spec whose arguments are not those of its uno_env metadata (rules, players, "
                  "opponents, seat, max_learner_steps)")


def _plain_child(group: Any, name: str, kind: Any, bad) -> Any:
    """``group[name]`` if it is a hard link to a ``kind`` (a Group or a Dataset); no data read."""
    import h5py

    link = group.get(name, getlink=True)
    if not isinstance(link, h5py.HardLink):
        raise bad(f"has {group.name}/{name} as a {type(link).__name__ if link is not None else 'missing entry'} "
                  "(only plain entries are read: a link could read another file)")
    obj = group[name]
    if not isinstance(obj, kind):
        raise bad(f"has {obj.name} that is not a {kind.__name__}")
    return obj


def _check_structure(f: Any, metadata: dict[str, Any], max_steps: int, bad) -> list[int]:
    """The episodes' lengths, from the HDF5 file's structure alone (module doc)."""
    import h5py

    total_episodes = metadata["total_episodes"]
    if len(f) != total_episodes:  # counted, not listed; then each name looked up
        raise bad(f"holds {len(f)} entries; its metadata says {total_episodes} episodes")
    steps, total = [], 0
    for i in range(total_episodes):
        group = _plain_child(f, f"episode_{i}", h5py.Group, bad)
        attrs = {}
        for key in EPISODE_ATTRS:
            if key not in group.attrs:
                raise bad(f"has episode {i} without the attribute {key!r}")
            aid = group.attrs.get_id(key)
            if aid.dtype.kind not in "iu" or aid.shape != ():
                raise bad(f"has episode {i} attribute {key!r} of type {aid.dtype} {aid.shape} (an integer)")
            attrs[key] = int(group.attrs[key])
        t = attrs["total_steps"]
        if attrs["id"] != i or not 1 <= t <= MAX_EPISODE_STEPS or not 0 <= attrs["seed"] < 2 ** 63:
            raise bad(f"has episode {i} with id {attrs['id']}, seed {attrs['seed']}, total_steps {t} "
                      f"(its index, a seed >= 0, 1..{MAX_EPISODE_STEPS} steps)")
        if len(group) != 6:  # the five columns and infos, each looked up below
            raise bad(f"has episode {i} holding {len(group)} entries (observations, actions, rewards, "
                      "terminations, truncations, infos)")
        infos = _plain_child(group, "infos", h5py.Group, bad)
        if len(infos) != 2:
            raise bad(f"has episode {i} infos holding {len(infos)} entries (action_mask, seat)")
        for path, (dtype, row, extra) in DATASETS.items():
            parent, name = (infos, path[6:]) if path.startswith("infos/") else (group, path)
            d = _plain_child(parent, name, h5py.Dataset, bad)
            if d.is_virtual or d.external:
                raise bad(f"has {d.name} stored in other files (virtual or external): not read")
            plist = d.id.get_create_plist()
            filters = {plist.get_filter(k)[0] for k in range(plist.get_nfilters())}
            if not filters <= ALLOWED_FILTERS:
                raise bad(f"has {d.name} with HDF5 filters {sorted(filters)} (read: {sorted(ALLOWED_FILTERS)})")
            want = (t + extra, *row)
            if d.dtype != dtype or d.shape != want:
                raise bad(f"has {d.name} of {d.dtype} {d.shape}; it must be {dtype} {want}")
        steps.append(t)
        total += t
        if total > max_steps:
            raise bad(f"holds more than {max_steps} decisions (max_steps): not read")
    if total != metadata["total_steps"]:
        raise bad(f"holds {total} steps; its metadata says {metadata['total_steps']}")
    return steps


def read_dataset(source: str | os.PathLike, max_steps: int = DEFAULT_MAX_STEPS) -> UnoDataset:
    """A dataset (a Minari id or a path) with its metadata and structure checked (module doc),
    refused if it holds more than ``max_steps`` decisions. Reads no episode yet."""
    import h5py

    path = data_dir(source)
    bad = _bad_for(path)
    try:
        metadata = _files.read_json(os.path.join(path, METADATA_FILE), MAX_METADATA_BYTES, "dataset metadata")
    except _files.FileBoundsError as e:
        raise DatasetError(str(e)) from None
    about, rules, n = check_metadata(metadata, bad)
    main = os.path.join(path, MAIN_FILE)
    try:
        _files.check_regular(main, "dataset file")
    except (OSError, _files.FileBoundsError) as e:
        raise bad(f"has no readable {MAIN_FILE}: {e}") from None
    try:
        with h5py.File(main, "r") as f:
            steps = _check_structure(f, metadata, max_steps, bad)
    except OSError as e:
        raise bad(f"has a {MAIN_FILE} that HDF5 cannot read: {e}") from None
    return UnoDataset(path=path, metadata=metadata, about=about, rules=rules, num_players=n, steps=steps)


def check_dataset(source: str | os.PathLike, max_steps: int = DEFAULT_MAX_STEPS) -> UnoDataset:
    """:func:`read_dataset`, then every episode read and checked: safe to hand to
    ``minari.load_dataset`` afterwards (module doc)."""
    data = read_dataset(source, max_steps)
    for _ in data.episodes():
        pass
    return data


def _read_episode(group: Any, i: int, t: int, bad, num_players: int) -> Episode:
    end_rewards = (1.0, -1.0 / (num_players - 1), 0.0)  # won, lost, truncated (uno_env.envs.gym_env)
    arrays = {}
    for path in DATASETS:
        arrays[path] = group[path][()]
    ep = Episode(seed=int(group.attrs["seed"]), observations=arrays["observations"], actions=arrays["actions"],
                 rewards=arrays["rewards"], terminations=arrays["terminations"], truncations=arrays["truncations"],
                 masks=arrays["infos/action_mask"], seats=arrays["infos/seat"])
    a = ep.actions
    if ((a < 0) | (a >= NUM_ACTIONS)).any():
        raise bad(f"has episode {i} with actions outside 0..{NUM_ACTIONS - 1}")
    if not (ep.masks[np.arange(t), a] == 1).all() or ((ep.masks != 0) & (ep.masks != 1)).any():
        raise bad(f"has episode {i} with an action its mask does not allow (or a mask not 0/1)")
    if not (np.isfinite(ep.observations).all() and np.isfinite(ep.rewards).all()):
        raise bad(f"has episode {i} with NaN or infinite values")
    if (ep.observations < 0).any():
        raise bad(f"has episode {i} with negative observation entries (the observation space is >= 0)")
    if ep.rewards[:-1].any() or not np.isclose(ep.rewards[-1], end_rewards, atol=1e-6).any():
        raise bad(f"has episode {i} with a reward the env never gives (0 on every step, then one of "
                  f"{', '.join(f'{r:g}' for r in end_rewards)} at the end)")
    if ((ep.seats < 0) | (ep.seats >= num_players)).any():
        raise bad(f"has episode {i} with a seat outside 0..{num_players - 1}")
    ends = ep.terminations | ep.truncations
    if ends[:-1].any() or not ends[-1] or (ep.terminations[-1] and ep.truncations[-1]):
        raise bad(f"has episode {i} that does not end (terminated or truncated) exactly at its last step")
    return ep
