"""PyG's own tests of GATConv and GATv2Conv, run against gatbio's layers.

PyG's ``test/nn/conv/test_gat_conv.py`` and ``test_gatv2_conv.py`` (pyg-team/pytorch_geometric, MIT licence;
take them from the tag of the installed torch_geometric) are not part of this repository: point
``GATBIO_PYG_TESTS`` at a folder holding them, e.g.::

    git clone --depth 1 --branch 2.8.0.post1 https://github.com/pyg-team/pytorch_geometric /tmp/pyg
    GATBIO_PYG_TESTS=/tmp/pyg/test/nn/conv .venv/bin/python -m pytest tests/nn/test_pyg_upstream.py

The one change made to each file is its import of the layer (``from torch_geometric.nn import GATConv`` becomes
``from gatbio.nn import GATConv``, likewise ``GATv2Conv``); the files then run in a pytest subprocess. Their
``FULL_TEST=1`` parts compile the layer with TorchScript, which PyG 2.8's own layers fail under torch 2.13
("Could not cast value of type Optional[Tensor] to bool") and gatbio's refuse with one clear error
(tests/nn/test_adjacency.py), so ``FULL_TEST`` is unset in the subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FILES = {"test_gat_conv.py": "GATConv", "test_gatv2_conv.py": "GATv2Conv"}


@pytest.mark.slow
def test_pyg_gat_tests_pass_against_gatbio(tmp_path):
    source = Path(os.environ.get("GATBIO_PYG_TESTS", "/nonexistent"))
    if not all((source / name).is_file() for name in FILES):
        pytest.skip("PyG's test_gat_conv.py / test_gatv2_conv.py not found: set GATBIO_PYG_TESTS (module docstring)")
    for name, layer in FILES.items():
        text = (source / name).read_text()
        line = f"from torch_geometric.nn import {layer}\n"
        assert text.count(line) == 1, f"{source / name}: expected the line {line!r} once; has PyG's file changed?"
        (tmp_path / name).write_text(text.replace(line, f"from gatbio.nn import {layer}\n"))
    env = {k: v for k, v in os.environ.items() if k != "FULL_TEST"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore::UserWarning",
                          *FILES], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-2000:]
    assert run.returncode == 0, f"PyG's tests failed against gatbio ({summary}):\n{run.stdout[-6000:]}"
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
