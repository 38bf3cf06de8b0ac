"""Datasets in Minari's format (:mod:`uno_env.tools.dataset`, :mod:`uno_env.tools.dataset_read`):
Minari loads what ``uno-dataset create`` writes, every episode replays exactly through the env
from its seed and actions, the same command gives the same dataset, and a stranger's dataset
is refused before it could run code or read past its bounds."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

minari = pytest.importorskip("minari")
h5py = pytest.importorskip("h5py")

from helpers import cli_error, replay_matches, small_dataset  # noqa: E402
from uno_env.game.rules import make_rules  # noqa: E402
from uno_env.tools import dataset as tool  # noqa: E402
from uno_env.tools.dataset_read import (MAIN_FILE, MAX_METADATA_BYTES, METADATA_FILE, DatasetError,  # noqa: E402
                                        check_dataset, read_dataset)

ID = "uno/classic-2p/heuristic-v0"


@pytest.fixture
def made(tmp_path, monkeypatch):
    return small_dataset(tmp_path / "datasets", monkeypatch, episodes=6, seed=3)


@pytest.mark.parametrize("engine", ["batched", "scalar"])
def test_minari_loads_the_dataset_and_every_episode_replays_exactly_from_its_seed(tmp_path, monkeypatch, engine):
    small_dataset(tmp_path, monkeypatch, episodes=6, seed=3, engine=engine)
    dataset = minari.load_dataset(ID)
    assert dataset.storage.metadata["uno_env"]["engine"] == engine
    assert dataset.total_episodes == 6 and dataset.total_steps == replay_matches(dataset) > 6


@pytest.mark.parametrize("engine", ["batched", "scalar"])
def test_a_line_up_of_different_agents_replays_with_each_seat_as_recorded(tmp_path, monkeypatch, engine):
    small_dataset(tmp_path, monkeypatch, "uno/classic-3p/greedy-v0", agents=("greedy", "random", "heuristic"),
                  num_players=3, episodes=3, seat=1, engine=engine)
    dataset = minari.load_dataset("uno/classic-3p/greedy-v0")
    assert dataset.storage.metadata["uno_env"]["engine"] == engine
    assert dataset.storage.metadata["uno_env"]["agents"] == ["greedy", "random", "heuristic"]
    assert all((ep.infos["seat"] == 1).all() for ep in dataset.iterate_episodes())
    assert replay_matches(dataset) == dataset.total_steps


def test_the_same_command_gives_the_same_dataset_and_another_seed_another(tmp_path, monkeypatch):
    a = read_dataset(small_dataset(tmp_path / "a", monkeypatch, episodes=4, seed=5))
    b = read_dataset(small_dataset(tmp_path / "b", monkeypatch, episodes=4, seed=5))
    c = read_dataset(small_dataset(tmp_path / "c", monkeypatch, episodes=4, seed=6))
    for x, y in zip(a.episodes(), b.episodes()):
        assert x.seed == y.seed and np.array_equal(x.observations, y.observations)
        assert np.array_equal(x.actions, y.actions) and np.array_equal(x.masks, y.masks)
    assert [e.seed for e in a.episodes()] != [e.seed for e in c.episodes()]


def test_metadata_holds_the_rules_players_agents_seeds_version_and_a_card(made):
    import uno_env

    metadata = minari.load_dataset(ID).storage.metadata
    about = metadata["uno_env"]
    assert about["rules"] == make_rules("classic").to_dict() and about["num_players"] == 2
    assert about["agents"] == ["heuristic", "heuristic"] and about["seed"] == 3
    assert about["version"] == uno_env.__version__ and about["seat"] == "random"
    assert "6 episodes" in metadata["description"] and "`heuristic`" in metadata["description"]
    assert metadata["total_episodes"] == 6 and metadata["algorithm_name"] == "heuristic"


def test_decisions_plays_whole_episodes_until_the_learner_took_that_many(tmp_path, monkeypatch):
    data = read_dataset(small_dataset(tmp_path, monkeypatch, episodes=None, decisions=50))
    assert sum(data.steps) >= 50 > sum(data.steps[:-1])


def test_the_command_line_creates_checks_and_refuses_an_existing_id(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    assert tool.main(["create", "--agents", "random", "--episodes", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "uno/classic-2p/random-v0: 2 episodes" in out
    assert tool.main(["check", "uno/classic-2p/random-v0"]) == 0
    assert "checked" in capsys.readouterr().out
    assert tool.main(["create", "--agents", "random", "--episodes", "2"]) == 1
    assert "already exists" in capsys.readouterr().err
    metadata = minari.load_dataset("uno/classic-2p/random-v0").storage.metadata
    assert metadata["uno_env"]["command"] == "uno-dataset create --agents random --episodes 2 --seed 1"


def test_the_command_line_names_a_bad_agent_or_line_up_before_playing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    assert "nonsense" in cli_error(tool.main, capsys, ["create", "--agents", "nonsense"])
    assert "or 2 (the learner's, then the seats to its left), got 3" in cli_error(tool.main, capsys, ["create", "--agents", "random", "random", "random"])
    assert not os.listdir(tmp_path) or not os.path.exists(tmp_path / "uno")


@pytest.mark.parametrize("engine", ["batched", "scalar"])
def test_a_failed_create_leaves_no_dataset_behind(tmp_path, monkeypatch, engine):
    def broken(*args, **kwargs):
        yield from ()
        raise RuntimeError("interrupted")

    monkeypatch.setattr(tool, "play_episodes" if engine == "scalar" else "play_episodes_batched", broken)
    with pytest.raises(RuntimeError):
        small_dataset(tmp_path, monkeypatch, engine=engine)
    assert not os.path.exists(tmp_path / ID)


# ---------------------------------------------------------------------- a stranger's dataset
def edit_metadata(path: str, **changes) -> None:
    file = os.path.join(path, METADATA_FILE)
    with open(file) as f:
        metadata = json.load(f)
    for key, value in changes.items():
        if value is None:
            metadata.pop(key, None)
        else:
            metadata[key] = value
    with open(file, "w") as f:
        json.dump(metadata, f)


def test_a_dataset_without_its_spaces_is_refused_since_minari_would_build_its_env_spec(made):
    """Minari's loader makes the env of ``env_spec`` (imports and calls its entry point) when a
    space is missing: the reader refuses that dataset before Minari could read it."""
    edit_metadata(made, observation_space=None)
    with pytest.raises(DatasetError, match="observation_space"):
        check_dataset(made)


def test_an_env_spec_naming_other_code_is_refused(made):
    with open(os.path.join(made, METADATA_FILE)) as f:
        spec = json.loads(json.load(f)["env_spec"])
    spec["entry_point"] = "subprocess:run"
    edit_metadata(made, env_spec=json.dumps(spec))
    with pytest.raises(DatasetError, match="run other code"):
        check_dataset(made)


def test_another_storage_format_is_refused(made):
    edit_metadata(made, data_format="arrow")
    with pytest.raises(DatasetError, match="data_format 'arrow'"):
        read_dataset(made)


def test_oversized_metadata_is_refused_before_it_is_parsed(made):
    edit_metadata(made, padding="x" * MAX_METADATA_BYTES)
    with pytest.raises(DatasetError, match="bytes"):
        read_dataset(made)


def test_a_dataset_larger_than_max_steps_is_refused_before_any_episode_is_read(made):
    total = sum(read_dataset(made).steps)
    assert sum(read_dataset(made, max_steps=total).steps) == total
    with pytest.raises(DatasetError, match=f"more than {total - 1} decisions"):
        read_dataset(made, max_steps=total - 1)


def test_an_external_link_to_another_file_is_refused(made, tmp_path):
    other = tmp_path / "other.hdf5"
    with h5py.File(other, "w") as f:
        f.create_group("x")
    with h5py.File(os.path.join(made, MAIN_FILE), "a") as f:
        del f["episode_5"]
        f["episode_5"] = h5py.ExternalLink(str(other), "/x")
    with pytest.raises(DatasetError, match="ExternalLink"):
        read_dataset(made)


def test_a_dataset_stored_in_an_external_file_is_refused(made, tmp_path):
    with h5py.File(os.path.join(made, MAIN_FILE), "a") as f:
        group = f["episode_0"]
        shape = group["rewards"].shape
        del group["rewards"]
        np.zeros(shape, np.float64).tofile(tmp_path / "raw.bin")
        group.create_dataset("rewards", shape=shape, dtype=np.float64, external=[(str(tmp_path / "raw.bin"), 0, 8 * shape[0])])
    with pytest.raises(DatasetError, match="other files"):
        read_dataset(made)


def test_a_column_of_the_wrong_shape_or_dtype_is_refused(made):
    with h5py.File(os.path.join(made, MAIN_FILE), "a") as f:
        del f["episode_2/actions"]
        f["episode_2"].create_dataset("actions", data=np.zeros(3, np.float32))
    with pytest.raises(DatasetError, match="episode_2/actions of float32"):
        read_dataset(made)


def test_an_action_its_mask_forbids_is_refused_when_read(made):
    with h5py.File(os.path.join(made, MAIN_FILE), "a") as f:
        mask = f["episode_1/infos/action_mask"]
        action = int(f["episode_1/actions"][0])
        row = mask[0]
        row[action] = 0
        mask[0] = row
    data = read_dataset(made)  # the structure is fine
    with pytest.raises(DatasetError, match="episode 1 with an action its mask does not allow"):
        check_dataset(made)
    assert data.steps


def edit_column(path: str, column: str, edit) -> None:
    with h5py.File(os.path.join(path, MAIN_FILE), "a") as f:
        d = f[f"episode_1/{column}"]
        values = d[()]
        edit(values)
        d[...] = values


@pytest.mark.parametrize("column,edit,words", [
    ("rewards", lambda r: r.__setitem__(-1, 5.0), "a reward the env never gives"),
    ("rewards", lambda r: r.__setitem__(0, 1.0), "a reward the env never gives"),
    ("infos/seat", lambda s: s.__setitem__(0, 2), "a seat outside 0..1"),
    ("observations", lambda o: o.__setitem__((0, 3), -1.0), "negative observation entries"),
])
def test_a_value_the_env_never_gives_is_refused_when_read(made, column, edit, words):
    """A stranger's rewards feed a critic's fit (imitate_dataset): only the env's values pass."""
    edit_column(made, column, edit)
    with pytest.raises(DatasetError, match=f"episode 1 with {words}"):
        check_dataset(made)


def test_a_failed_create_leaves_a_folder_it_did_not_make(tmp_path, monkeypatch):
    """Another process that made the same id between the check and the create keeps its dataset."""
    import minari.utils

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    folder = tmp_path / "uno" / "classic-2p" / "random-v0"

    def made_elsewhere(*args, **kwargs):
        os.makedirs(folder / "data")
        (folder / "data" / "theirs").write_text("another process's dataset")
        raise ValueError("already exists")

    monkeypatch.setattr(minari.utils, "create_dataset_from_buffers", made_elsewhere)
    with pytest.raises(ValueError, match="already exists"):
        tool.create_dataset("uno/classic-2p/random-v0", make_rules("classic"), 2, ["random"], episodes=1)
    assert (folder / "data" / "theirs").read_text() == "another process's dataset"


def test_more_decisions_than_a_reader_takes_in_are_refused_before_playing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    assert "--decisions must be in 1..9,999,000" in cli_error(  # the last episode's overshoot kept in bounds
        tool.main, capsys, ["create", "--decisions", "9999001"])
    assert "--episodes must be in 1..500,000" in cli_error(tool.main, capsys, ["create", "--episodes", "500001"])
    assert not os.path.exists(tmp_path / "uno")


def edit_about(path: str, **changes) -> None:
    with open(os.path.join(path, METADATA_FILE)) as f:
        about = json.load(f)["uno_env"]
    edit_metadata(path, uno_env={**about, **changes})


def test_an_agent_spec_that_imports_code_is_refused(made):
    """The recovered env builds the opponents of the metadata: a ``module:`` spec would import
    the module it names."""
    edit_about(made, agents=["heuristic", "module:os:System"])
    with pytest.raises(DatasetError, match="imports code"):
        read_dataset(made)


def test_env_spec_arguments_other_than_the_metadata_implies_are_refused(made):
    with open(os.path.join(made, METADATA_FILE)) as f:
        spec = json.loads(json.load(f)["env_spec"])
    spec["kwargs"]["opponents"] = ["random"]  # the metadata says heuristic
    edit_metadata(made, env_spec=json.dumps(spec))
    with pytest.raises(DatasetError, match="arguments are not those"):
        read_dataset(made)


def test_more_entries_than_the_metadata_says_are_refused_before_they_are_listed(made):
    with h5py.File(os.path.join(made, MAIN_FILE), "a") as f:
        f.create_group("extra")
    with pytest.raises(DatasetError, match="holds 7 entries; its metadata says 6 episodes"):
        read_dataset(made)


def test_a_seat_outside_the_table_or_a_cap_below_one_is_named_before_playing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    assert "--seat must be 'random' or a seat in 0..1, got '2'" in cli_error(tool.main, capsys, ["create", "--seat", "2"])
    assert "--max-learner-steps must be in 1..100000, got 0" in cli_error(
        tool.main, capsys, ["create", "--max-learner-steps", "0"])
    assert not os.path.exists(tmp_path / "uno")


def test_a_corrupted_chunk_is_named_not_a_traceback(made):
    with h5py.File(os.path.join(made, MAIN_FILE), "r") as f:
        offset = f["episode_3/observations"].id.get_chunk_info(0).byte_offset
    with open(os.path.join(made, MAIN_FILE), "r+b") as f:  # the compressed chunk's first bytes
        f.seek(offset)
        f.write(b"\xff" * 64)
    with pytest.raises(DatasetError, match="episode 3 that HDF5 cannot read"):
        check_dataset(made)


def test_an_id_that_is_no_minari_id_is_named_before_playing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    assert "--id must be a Minari id" in cli_error(tool.main, capsys, ["create", "--id", "../escape-v0"])
    assert "--id must be a Minari id" in cli_error(tool.main, capsys, ["create", "--id", "uno/no-version"])
