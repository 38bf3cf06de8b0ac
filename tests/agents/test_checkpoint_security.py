"""Loading a checkpoint from a stranger never runs code.

A pickle payload that would create a marker file is put in every file a loader could touch:
model.zip (its SB3 ``data`` entries and ``*.pth`` files), card.json fields, the weights file,
the weights file's metadata and extra files (``*.pkl``, ``*.pt``, ``*.bin``, ``*.npz``). Loading
such a checkpoint through every documented path (``make_agent("checkpoint:...")``, the
``uno-evaluate`` command line, the Gymnasium env's opponents, the terminal game's and the web
server's opponents)
creates no marker and fails with a clear error; a sound checkpoint among the same malicious
files loads and plays without reading them. The payloads are shown to be live: unpickled,
each one creates the marker.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import pickle
import subprocess
import sys
import zipfile

import gymnasium
import numpy as np
import pytest
from safetensors.numpy import save as st_save

from uno_env.agents import checkpoint as ckpt
from uno_env.agents import make_agent
from uno_env.game.rules import make_rules
from uno_env.tools import evaluate_cli as evaluate_tool
from uno_env.tools import play as play_tool

from helpers import random_checkpoint

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLASSIC = make_rules("classic")
EXTRA_FILES = ("policy.pkl", "model.pt", "pytorch_model.bin", "policy.pth")


class Payload:
    """Unpickled, runs ``open(marker, "w")``: the classic remote-code-execution pickle."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').close()",))


def payload(marker) -> bytes:
    return pickle.dumps(Payload(str(marker)), protocol=2)


def serialized(marker) -> dict:
    """A value as SB3 stores a pickled object in model.zip's ``data`` JSON."""
    return {":type:": "<class 'abc.ABCMeta'>", ":serialized:": base64.b64encode(payload(marker)).decode()}


def malicious_zip(marker) -> bytes:
    """A model.zip that ``MaskablePPO.load`` unpickles (running the payload) as it reads it."""
    data = {"policy_class": serialized(marker), "policy_kwargs": serialized(marker),
            "observation_space": serialized(marker), "action_space": serialized(marker)}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("data", json.dumps(data))
        z.writestr("policy.pth", payload(marker))
        z.writestr("pytorch_variables.pth", payload(marker))
        z.writestr("_stable_baselines3_version", "2.9.2")
    return buf.getvalue()


def write_extras(d, marker) -> None:
    """model.zip and the usual pickle-bearing weight files, all malicious."""
    with open(os.path.join(d, ckpt.MODEL_FILE), "wb") as fh:
        fh.write(malicious_zip(marker))
    for name in EXTRA_FILES:
        with open(os.path.join(d, name), "wb") as fh:
            fh.write(payload(marker))
    np.savez(os.path.join(d, "weights.npz"), w=np.array([Payload(str(marker))], dtype=object))


def poison_card_fields(card: dict, marker) -> dict:
    """Payloads in the card's information fields (never interpreted by a loader)."""
    return dict(card, config={"policy_kwargs": serialized(marker), "raw": payload(marker).decode("latin-1")},
                evaluation={"random": serialized(marker)}, algorithm=serialized(marker))


def write_card(d, card) -> None:
    with open(os.path.join(d, ckpt.CARD_FILE), "w") as fh:
        json.dump(card, fh)


def set_weights(d, card: dict, data: bytes) -> dict:
    """Replace the weights file by ``data``; the card gets its hash (the SHA-256 check passes)."""
    with open(os.path.join(d, card["policy"]["weights"]), "wb") as fh:
        fh.write(data)
    return dict(card, policy=dict(card["policy"], sha256=hashlib.sha256(data).hexdigest()))


# ---------------------------------------------------------------------- the malicious checkpoints
def legacy(d, marker) -> None:
    """A uno_env 0.2 checkpoint: format-1 card, malicious model.zip."""
    card = random_checkpoint(d)
    os.remove(os.path.join(d, card["policy"]["weights"]))
    write_extras(d, marker)
    card = poison_card_fields(card, marker)
    write_card(d, dict(card, format=ckpt.LEGACY_CARD_FORMAT, policy={"net_arch": [16]}))


def pickled_weights(d, marker) -> None:
    """A valid card whose weights file is a pickle (padded to the network's size, hash matching)."""
    card = random_checkpoint(d)
    size = os.path.getsize(os.path.join(d, card["policy"]["weights"]))
    data = payload(marker)
    write_extras(d, marker)
    write_card(d, poison_card_fields(set_weights(d, card, data + b"\x00" * (size - len(data))), marker))


def serialized_policy(d, marker) -> None:
    """The card's network description and rules are SB3-style pickled objects."""
    card = random_checkpoint(d)
    write_extras(d, marker)
    write_card(d, dict(card, policy=serialized(marker)))


def serialized_rules(d, marker) -> None:
    card = random_checkpoint(d)
    write_extras(d, marker)
    write_card(d, dict(card, rules=serialized(marker)))


def weights_named_zip(d, marker) -> None:
    """The card names model.zip (or a .pkl) as its weights file."""
    card = random_checkpoint(d)
    write_extras(d, marker)
    write_card(d, dict(card, policy=dict(card["policy"], weights=ckpt.MODEL_FILE)))


MALICIOUS = {
    legacy: "format 1 describes an SB3 model.zip",
    pickled_weights: "not a valid safetensors file",
    serialized_policy: "policy: keys must be",
    serialized_rules: r"rules: unknown rule key\(s\) \[':serialized:', ':type:'\]",
    weights_named_zip: "weights must be a plain file name ending in .safetensors",
}


@pytest.fixture(params=list(MALICIOUS), ids=[f.__name__ for f in MALICIOUS])
def malicious(request, tmp_path):
    d, marker = str(tmp_path / "ckpt"), tmp_path / "PWNED"
    request.param(d, marker)
    return d, marker, MALICIOUS[request.param]


def test_make_agent_runs_nothing(malicious):
    d, marker, message = malicious
    with pytest.raises(ValueError, match=message):
        make_agent(f"checkpoint:{d}", CLASSIC, 2)
    assert not marker.exists()


def test_uno_evaluate_runs_nothing(malicious, capsys):
    d, marker, message = malicious
    assert evaluate_tool.main(["--agents", f"checkpoint:{d}", "random", "--games", "2", "--workers", "1",
                               "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-evaluate: error: checkpoint") and err.count("\n") == 1
    assert not marker.exists()


def test_gymnasium_opponents_run_nothing(malicious):
    d, marker, message = malicious
    with pytest.raises(ValueError, match=message):
        gymnasium.make("uno_env/Uno-v1", opponents=[f"checkpoint:{d}"])
    assert not marker.exists()


def test_terminal_game_opponents_run_nothing(malicious, capsys):
    d, marker, message = malicious
    with pytest.raises(SystemExit) as exit_info:
        play_tool.main(["--opponents", f"checkpoint:{d}", "--seed", "1", "--no-color"])
    assert exit_info.value.code == 2 and "checkpoint" in capsys.readouterr().err
    assert not marker.exists()


def test_web_server_opponents_run_nothing(malicious):
    from uno_env.tools.web.server import ApiError, Specs

    d, marker, message = malicious
    specs = Specs([os.path.dirname(d)])
    with pytest.raises(ApiError, match=message) as info:
        specs.make(specs.check(f"checkpoint:{d}", "opponent"), CLASSIC, 2, 0, "opponent")
    assert info.value.status == 400
    assert not marker.exists()


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=600)


def test_command_lines_run_nothing(tmp_path):
    """The real programs, in their own processes (the default 2 evaluation workers included)."""
    d, marker = str(tmp_path / "ckpt"), tmp_path / "PWNED"
    pickled_weights(d, marker)
    out = run_cli("uno_env.tools.evaluate_cli", "--agents", f"checkpoint:{d}", "random", "--games", "4",
                  "--no-progress")
    assert out.returncode == 2 and "not a valid safetensors file" in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    out = run_cli("uno_env.tools.play", "--opponents", f"checkpoint:{d}", "--seed", "1", "--no-color")
    assert out.returncode == 2 and "not a valid safetensors file" in out.stderr and "Traceback" not in out.stderr
    assert not marker.exists()


# ---------------------------------------------------------------------- a sound checkpoint among them
def test_sound_checkpoint_never_reads_the_malicious_files(tmp_path):
    d, marker = str(tmp_path / "ckpt"), tmp_path / "PWNED"
    card = random_checkpoint(d)
    tensors = ckpt.load_checkpoint(d)[1]
    metadata = {"pickle": base64.b64encode(payload(marker)).decode(), "raw": payload(marker).decode("latin-1")}
    card = set_weights(d, card, st_save(tensors, metadata=metadata))
    write_card(d, poison_card_fields(card, marker))
    write_extras(d, marker)
    agent = make_agent(f"checkpoint:{d}", CLASSIC, 2)
    env = gymnasium.make("uno_env/Uno-v1", opponents=[f"checkpoint:{d}"])
    obs, info = env.reset(seed=0)
    for _ in range(50):
        obs, _, term, trunc, info = env.step(agent.act(obs, info["action_mask"]))
        if term or trunc:
            obs, info = env.reset()
    assert evaluate_tool.main(["--agents", f"checkpoint:{d}", "random", "--games", "4", "--workers", "1",
                               "--no-progress", "--quiet"]) == 0
    assert not marker.exists()


# ---------------------------------------------------------------------- the payloads are live
def test_payloads_are_live(tmp_path):
    """Each payload runs when unpickled, so the tests above would see a loader that unpickles."""
    d, marker = str(tmp_path / "ckpt"), tmp_path / "PWNED"
    pickled_weights(d, marker)
    card = json.load(open(os.path.join(d, ckpt.CARD_FILE)))
    sources = [open(os.path.join(d, card["policy"]["weights"]), "rb").read(),
               base64.b64decode(card["config"]["policy_kwargs"][":serialized:"]),
               card["config"]["raw"].encode("latin-1")]
    sources += [open(os.path.join(d, name), "rb").read() for name in EXTRA_FILES]
    with zipfile.ZipFile(os.path.join(d, ckpt.MODEL_FILE)) as z:
        sources += [z.read("policy.pth"), base64.b64decode(json.loads(z.read("data"))["policy_class"][":serialized:"])]
    for data in sources:
        pickle.loads(data)
        assert marker.exists()
        marker.unlink()
    np.load(os.path.join(d, "weights.npz"), allow_pickle=True)["w"]
    assert marker.exists()


def test_sb3_load_of_the_malicious_zip_runs_the_payload(tmp_path):
    """What ``checkpoint:`` did before format 2: ``MaskablePPO.load`` runs the zip's payload."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    marker = tmp_path / "PWNED"
    path = tmp_path / "model.zip"
    path.write_bytes(malicious_zip(marker))
    with pytest.raises(Exception):
        sb3_contrib.MaskablePPO.load(str(path))
    assert marker.exists()
