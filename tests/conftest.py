"""Shared test fixtures: devices, the data root, and a notebook runner."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parents[1]

# Without a GPU, the Triton kernels (tests/nn/test_triton.py) run in Triton's interpreter, which must be on
# before anything imports triton (torch_geometric does); CPU code paths never use Triton.
if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def _data_root() -> Path | None:
    env = os.environ.get("GATBIO_DATA")
    if env:
        return Path(env)
    p = REPO.parent / "shared" / "data"
    return p if p.is_dir() else None


@pytest.fixture(params=["cpu", "cuda"])
def device(request) -> torch.device:
    """Every available device: CPU always, CUDA where present (skipped otherwise)."""
    if request.param == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return torch.device(request.param)


@pytest.fixture(scope="session")
def data_root() -> Path:
    """The shared real-data folder; tests that need it are skipped where it is absent."""
    root = _data_root()
    if root is None or not root.is_dir():
        pytest.skip("real data root not found (set GATBIO_DATA)")
    return root


def run_notebook(path: str | Path, timeout: int = 600, env: dict[str, str] | None = None) -> None:
    """Execute a notebook top to bottom in a fresh kernel (raises on the first failing cell)."""
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    old = dict(os.environ)
    os.environ.update(env or {})
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(old)
