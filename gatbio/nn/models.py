"""Models built on :class:`gatbio.nn.GATConv` (re-exported here).

- node classification (protein function): :mod:`gatbio.nn.node_models`
- directed link prediction (food webs): :mod:`gatbio.nn.link_models`
- interaction types of protein pairs: :mod:`gatbio.nn.pair_models` (its classes; the recipes' registry and
  options stay there)
"""

from gatbio.nn.link_models import *  # noqa: F401,F403
from gatbio.nn.node_models import *  # noqa: F401,F403
from gatbio.nn.pair_models import GATPairModel, PairClassifier, PairEncoder  # noqa: F401
