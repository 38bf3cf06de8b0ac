"""The learning layer: what trains an agent, above the tools and below the integrations.

=====================  ===========================================================================
:mod:`.configs`        the typed, validated training configs both training scripts share
:mod:`.run_dirs`       a run's folders (a mark in each; ``--force`` empties only marked ones)
                       and the overrides a resumed run takes from its card
:mod:`.stop_signals`   SIGINT/SIGTERM in a training run: stop at a safe point, save, exit
:mod:`.imitation`      a teacher's decisions as demonstrations, and ``fit_policy``: the
                       behaviour-cloning fit of both training paths
:mod:`.demo_store`     demonstrations kept on disk (safetensors), reused for the same collection
:mod:`.lean_ppo`       ``learner: batched``'s plain-torch PPO (imports torch: a training module)
:mod:`.batched_league` the league inside one batch of the batched engine's games
:mod:`.sb3`            the Stable-Baselines3 side: the policy's input layer, the asymmetric
                       actor-critic, behaviour cloning, save, resume, ``uno-convert-checkpoint``
=====================  ===========================================================================

Playing a trained agent needs none of this: ``checkpoint:<dir>`` reads the safe format with
numpy (:mod:`uno_env.agents.checkpoint`, :mod:`uno_env.agents.policy`). torch,
Stable-Baselines3 and sb3-contrib are imported inside the functions that need them (but in
:mod:`.lean_ppo`, which is the torch learner).
"""
