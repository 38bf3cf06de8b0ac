"""The bots of the battle-card games: legal in every game, variant and player count, decide
from the observation alone, beat random play; the arena names an illegal answer."""

from __future__ import annotations

import numpy as np
import pytest

from uno_env.agents.arena import IllegalActionError
from uno_env.agents.base import Agent
from uno_env.battle.agents import battle_agent_specs, make_battle_agent
from uno_env.battle.agents.arena import play_game
from uno_env.battle.game import GAMES, make_encoder

from battle_helpers import engine_of

VARIANTS = [("battle", None), ("battle", "battle-open"), ("battle", "battle-sheet"), ("dragon", None), ("attack", None), ("names", None),
            ("names", "names-sheet"), ("bonus", None), ("bonus", "bonus-bluff"), ("elusive", None),
            ("elusive", "elusive-others")]


def test_the_specs_are_random_and_strong():
    assert battle_agent_specs() == ["random", "strong"]
    e = engine_of("battle")
    assert isinstance(make_battle_agent("strong", e, 0), Agent)
    with pytest.raises(ValueError, match=r"unknown battle agent spec 'heuristic'; known: \['random', 'strong'\]"):
        make_battle_agent("heuristic", e)


@pytest.mark.parametrize("game, rules", VARIANTS)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_bot_plays_only_legal_actions_to_the_end(game, rules, n):
    e = engine_of(game, n, rules, **({"max_rounds": 40} if game == "bonus" else {}))
    agents = [make_battle_agent(spec, e, q) for q, spec in enumerate(["strong", "random"] * 2)][:n]
    for g in range(3):
        record = play_game(e, agents, np.random.default_rng(g))  # the arena refuses an illegal answer
        assert abs(sum(record.rewards)) < 1e-9 and record.steps > 0


@pytest.mark.parametrize("game, rules", VARIANTS)
def test_the_strong_bot_decides_from_its_observation_alone(game, rules):
    """Two states with the same observation get the same answer (the strong bots draw no coin)."""
    e = engine_of(game, 3, rules)
    enc = make_encoder(e)
    bot = make_battle_agent("strong", e, 0)
    s = e.new_state(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for _ in range(30):
        if s.game_over:
            break
        legal = e.legal_actions(s)
        mask = np.zeros(e.num_actions, np.int8)
        mask[legal] = 1
        obs = enc.encode(s, s.actor)
        first = bot.act(obs, mask)
        bot.reset(123)
        assert bot.act(obs.copy(), mask.copy()) == first and first in legal
        e.step(s, legal[int(rng.integers(len(legal)))])


STRONG_WINS = {"battle": 0.9, "dragon": 0.9, "attack": 0.5, "names": 0.9, "bonus": 0.3, "elusive": 0.8}


@pytest.mark.parametrize("game", GAMES)
def test_the_strong_bot_beats_random_play(game):
    """Two players, 60 seeded games with seats rotated: the strong bot wins more than random
    play does, by the margin measured in docs/TMNT-BATTLE.md (the results table) less a lot."""
    e = engine_of(game, 2, **({"max_rounds": 100} if game == "bonus" else {}))
    strong, rand = make_battle_agent("strong", e, 0), make_battle_agent("random", e, 1)
    wins = {"strong": 0, "random": 0}
    for g in range(60):
        seats = [strong, rand] if g % 2 == 0 else [rand, strong]
        record = play_game(e, seats, np.random.default_rng([7, g // 2]), first=0)
        if record.winner >= 0:
            wins["strong" if seats[record.winner] is strong else "random"] += 1
    assert wins["strong"] > wins["random"] and wins["strong"] / 60 >= STRONG_WINS[game]


class Cheater(Agent):
    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask == 0)[0]) if (action_mask == 0).any() else "x"


def test_the_arena_names_an_illegal_answer():
    e = engine_of("battle", 2, choice="highest")
    with pytest.raises(IllegalActionError, match=r"agent .* at seat \d chose an illegal action: \d \(name \w+\) in "
                                                 r"phase 'choose' of battle; legal: "):
        play_game(e, [Cheater(e.rules, 2), Cheater(e.rules, 2)], np.random.default_rng(0))
    e = engine_of("dragon", 2)
    with pytest.raises(IllegalActionError, match="'x' \\(str, not an action id\\)"):
        play_game(e, [Cheater(e.rules, 2), Cheater(e.rules, 2)], np.random.default_rng(0))
