"""Experiments, one module per task: config → seeds → data → train → results.

- :mod:`gatbio.tasks.protein`: protein function prediction on PPI graphs
- :mod:`gatbio.tasks.foodweb`: food-web link inference (GATEWAy protocol, new-species protocol)
- :mod:`gatbio.tasks.robustness`: hub-perturbation robustness sweeps

The ``gatbio`` command and the scripts in ``experiments/`` both call these modules.
"""


def refuse_repeats(cfg, keys) -> None:
    """A ``ValueError`` naming the first of ``keys`` (list settings of ``cfg``) that lists a value twice: a seed or
    model given twice would be run twice (or by two workers at once) and counted twice in the mean ± std."""
    import functools

    for key in keys:  # dotted for a nested setting: "foodweb.webs"
        values = list(functools.reduce(getattr, key.split("."), cfg))
        twice = [v for k, v in enumerate(values) if v in values[:k]]
        if twice:
            raise ValueError(f"config {key}={values}: {twice[0]!r} is listed twice; give each value once")
