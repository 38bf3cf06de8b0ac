"""The Stable-Baselines3 side of training: the policies, the actor in and out of the checkpoint
format, behaviour cloning, save and resume, and the converter of a ``model.zip``.

=============  ===============================================================================
:mod:`.policy`   ``ObsFeatures`` (the input layer), ``AsymmetricPolicy`` (``critic: state``)
:mod:`.actor`    ``actor_tensors``, ``set_actor``, ``masked_policy``, ``sb3_logits``
:mod:`.imitate`  ``imitate``: behaviour cloning of a model (the warm start)
:mod:`.save`     ``save_checkpoint``, ``load_model`` (``--resume``; **trusted input**)
:mod:`.convert`  ``uno-convert-checkpoint``: a ``model.zip`` one trusts -> the safe format
:mod:`.vec_env`  ``UnoSB3VecEnv``: SB3's ``VecEnv`` over the batched engine (same-step autoreset)
=============  ===============================================================================

torch and sb3-contrib are imported inside the functions that need them (and by the first use
of a policy class), so importing any of these modules but :mod:`.vec_env` (a subclass of SB3's
``VecEnv``) costs nothing; what plays a checkpoint
needs none of them (:mod:`uno_env.agents.policy`).
"""
