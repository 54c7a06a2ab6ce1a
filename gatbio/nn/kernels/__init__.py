"""Fused Triton kernels of the attention layer (``GATConv(..., impl="triton")``)."""

from __future__ import annotations

import importlib.util
import os

from gatbio.nn.kernels.plan import CSRPlan

__all__ = ["CSRPlan", "available", "interpreting"]


def available() -> bool:
    """Whether the ``triton`` package can be imported (it ships with CUDA builds of PyTorch)."""
    return importlib.util.find_spec("triton") is not None


def interpreting() -> bool:
    """Whether Triton's interpreter is on (``TRITON_INTERPRET=1``): kernels then run on CPU tensors."""
    return os.environ.get("TRITON_INTERPRET", "0") == "1"
