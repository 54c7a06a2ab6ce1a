"""Neural network layers and models.

- :class:`GATConv`: the attention layer (drop-in superset of PyG's ``GATConv``); :class:`GATv2Conv`, the
  same layer with PyG's ``GATv2Conv`` name and signature.
- models (node classifier, link predictor, pair classifier) in :mod:`gatbio.nn.models`, also importable from
  here (loaded on first use).
"""

from gatbio.nn.conv import GATConv, GATv2Conv, cache_graphs

_MODELS = ["GATNodeClassifier", "FoodWebGAT", "TrophicBias", "PairEncoder", "PairClassifier", "GATPairModel"]
__all__ = ["GATConv", "GATv2Conv", "cache_graphs", *_MODELS]


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def __getattr__(name: str):
    # Models are imported lazily so that ``import gatbio.nn`` stays light.
    import importlib

    if name.startswith("__"):
        raise AttributeError(name)
    models = importlib.import_module("gatbio.nn.models")
    try:
        return getattr(models, name)
    except AttributeError:
        raise AttributeError(f"module 'gatbio.nn' has no attribute {name!r}") from None
