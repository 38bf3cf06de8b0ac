"""``render_mode="rgb_array"``: an image of the table (uno_env.envs.image) for video recorders."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import uno_env
from uno_env.envs.image import IMAGE_HEIGHT, IMAGE_WIDTH, table_image
from uno_env.game.observation import OBS_SIZE

from helpers import P, _perturbed, act, make_env


def test_rgb_array_render_is_an_image_of_the_table_in_both_envs():
    e = uno_env.raw_env(rules="tmnt", num_players=4, render_mode="rgb_array")
    e.reset(seed=3)
    img = e.render()
    assert img.shape == (IMAGE_HEIGHT, IMAGE_WIDTH, 3) and img.dtype == np.uint8
    g = gymnasium.make("uno_env/Uno-v1", opponents=["random"], render_mode="rgb_array")
    g.reset(seed=0)
    frame = g.render()
    assert frame.shape == (IMAGE_HEIGHT, IMAGE_WIDTH, 3) and frame.dtype == np.uint8


def test_image_shows_no_hidden_card():
    """Changing only cards hidden from the viewer (other hands, DRAW order) leaves the image alone."""
    e = uno_env.raw_env(rules="classic", num_players=3)
    rng = np.random.default_rng(0)
    for seed in range(20):
        e.reset(seed=seed)
        s = e.game_state
        for viewer in range(3):
            t, changed = _perturbed(s, viewer, rng)
            if changed:
                assert (table_image(e.engine, t, viewer) == table_image(e.engine, s, viewer)).all()


def test_image_changes_with_the_viewers_hand_and_the_top_card():
    e = make_env(2, {0: ["red-4", "green-5"]}, "red-3", hand_size=2)
    before = table_image(e.engine, e.game_state, 0)
    act(e, "play red-4", P(0))
    after = table_image(e.engine, e.game_state, 0)
    assert (before != after).any()


def test_sb3_make_vec_env_with_the_registered_id_renders_frames():
    """SB3's make_vec_env passes render_mode="rgb_array" itself (a papercut of issue 13)."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env("uno_env/Uno-v1", n_envs=2, env_kwargs={"opponents": ["random"]})
    assert venv.reset().shape == (2, OBS_SIZE)
    frames = venv.get_images()
    assert len(frames) == 2 and frames[0].shape == (IMAGE_HEIGHT, IMAGE_WIDTH, 3)
