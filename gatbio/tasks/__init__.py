"""Experiments, one module per task: config → seeds → data → train → results.

- :mod:`gatbio.tasks.protein`: protein function prediction on PPI graphs
- :mod:`gatbio.tasks.foodweb`: food-web link inference (GATEWAy protocol, new-species protocol)
- :mod:`gatbio.tasks.robustness`: hub-perturbation robustness sweeps

The ``gatbio`` command and the scripts in ``experiments/`` both call these modules.
"""

