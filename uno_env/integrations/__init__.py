"""Adapters to other libraries' training stacks (each module needs its library installed).

``uno_env.integrations.rllib``: Ray RLlib 2.60 (``pip install -e ".[rllib]"``, a virtual
environment of its own: ray pins gymnasium 1.2.2). Nothing else in ``uno_env`` imports this
package, so ``import uno_env`` never needs ray.
"""
