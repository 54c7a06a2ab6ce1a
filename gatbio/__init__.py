"""gatbio: graph attention networks for biological networks.

Subpackages
-----------
- :mod:`gatbio.nn`         attention layer (:class:`gatbio.nn.GATConv`) and models
- :mod:`gatbio.data`       readers, named datasets, data root, leakage-free splits
- :mod:`gatbio.ecology`    trophic levels and incoherence
- :mod:`gatbio.tasks`      experiments (protein function, food-web inference, hub robustness)
"""

__version__ = "0.1.0"
