"""Hypothesis fuzzing of training configs (``training/train.py``'s, through the loader both
scripts share): YAML files of random text, of random keys and values, and of YAML meant to
hurt the reader (integers too long for ``int()``, alias bombs, deep nesting, code tags). The
config either loads and passes the machine's checks, or is a ``ValueError`` naming the file
(or ``--set``); never another exception."""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "training"))
import train  # noqa: E402

from fuzzing import ANY_VALUE, FAST, JSON, SLOW, hostile_yaml  # noqa: E402

KEYS = sorted(f.name for f in dataclasses.fields(train.Config))
SENSIBLE = st.one_of(
    st.integers(-2, 300), st.sampled_from([0, 1, 2, 16, 256, 8192, 8193, 10 ** 6, 10 ** 12, 10 ** 30]),
    st.floats(-1, 2), st.booleans(), st.none(),
    st.sampled_from(["classic", "tmnt", "house", "random", "heuristic", "dummy", "subproc", "obs", "state",
                     "tanh", "relu", "nope.yaml"]),
    st.lists(st.sampled_from([0, 1, 32, 256, 8192, 9000, -1]), max_size=18),
    st.lists(st.fixed_dictionaries({"until": st.one_of(st.floats(0, 2), st.integers(-1, 10 ** 6), st.none()),
                                    "opponents": st.dictionaries(st.sampled_from(["random", "heuristic",
                                                                                  "snapshots", "x"]),
                                                                 st.floats(-1, 2), max_size=2)}), max_size=2),
)
MAPPINGS = st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=6)),
                           st.one_of(SENSIBLE, SENSIBLE, JSON), max_size=6)
CONTENT = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    MAPPINGS.map(lambda d: yaml.safe_dump(d, allow_unicode=True).encode()),
    st.tuples(MAPPINGS.map(lambda d: yaml.safe_dump(d) if d else ""), hostile_yaml(KEYS)).map(
        lambda parts: (parts[0] + parts[1]).encode()),
)


def fuzz_config(data) -> None:
    content = data.draw(CONTENT, label="yaml")
    overrides = data.draw(st.dictionaries(st.sampled_from(KEYS), st.one_of(SENSIBLE, ANY_VALUE), max_size=2),
                          label="--set")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "fuzz.yaml")
        with open(path, "wb") as fh:
            fh.write(content)
        try:
            cfg = train.load_config(path, overrides)
            train.check_machine(cfg, path)
        except ValueError as e:
            assert "fuzz.yaml" in str(e) or str(e).startswith("--set"), e
            return
    assert isinstance(cfg, train.Config)


@FAST
@given(st.data())
def test_fuzz_training_config_files_load_or_are_value_errors_naming_the_file(data):
    fuzz_config(data)


@pytest.mark.slow
@SLOW
@given(st.data())
def test_fuzz_training_config_files_load_or_are_value_errors_naming_the_file_long(data):
    fuzz_config(data)
