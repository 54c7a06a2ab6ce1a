"""Ecology: trophic levels (Levine 1980; MacKay, Johnson & Sansom 2020) and trophic incoherence.

Direction convention: edge ``u → v`` means *v eats u* (prey → predator), as everywhere in gatbio.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for type checkers and editors; at run time the names are imported on first use
    from gatbio.ecology.trophic import TrophicLevel, basal_nodes, trophic_incoherence, trophic_levels

__all__ = ["trophic_levels", "trophic_incoherence", "TrophicLevel", "basal_nodes"]


def __dir__() -> list[str]:
    # the lazily imported names too (tab completion, dir()), as gatbio.nn does
    return sorted(set(globals()) | set(__all__))


def __getattr__(name: str):
    # Imported on first use (PEP 562), so that `gatbio --help` (which imports gatbio.ecology.commands) does not
    # import torch.
    if name in __all__:
        from gatbio.ecology import trophic

        return getattr(trophic, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
