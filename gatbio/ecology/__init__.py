"""Ecology: trophic levels (Levine 1980; MacKay, Johnson & Sansom 2020) and trophic incoherence.

Direction convention: edge ``u → v`` means *v eats u* (prey → predator), as everywhere in gatbio.
"""

from gatbio.ecology.trophic import TrophicLevel, basal_nodes, trophic_incoherence, trophic_levels

__all__ = ["trophic_levels", "trophic_incoherence", "TrophicLevel", "basal_nodes"]
