"""The committed notebooks carry their outputs: a person opening them on a code host sees the tables and figures.

They are executed on the full results by ``python experiments/execute_notebooks.py`` (the quick-config execution
tests live next to each task: ``tests/tasks/test_*notebook*``, ``test_foodweb.py``, ``test_robustness_sweep.py``).
"""

from __future__ import annotations

import json
import re

import pytest
from conftest import REPO

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
#: Absolute paths of a machine (they confuse a reader and leak the author's layout).
MACHINE_PATH = re.compile(r"(?<![\w.])/(?:work|home|tmp|Users|root|private|var/folders)/")


def code_cells(path):
    return [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]


def output_text(output) -> str:
    parts = [output.get("text", "")]
    parts += [v for k, v in output.get("data", {}).items() if k.startswith("text/")]
    return "".join("".join(p) if isinstance(p, list) else p for p in parts)


def skip_if_never_executed(path) -> None:
    """Until the full results exist, the notebooks are committed as written (no cell run): that is reported as a
    skip naming the command, not a pass. A notebook that was run at all must pass every check below."""
    cells = code_cells(path)
    if all(c["execution_count"] is None and not c["outputs"] for c in cells):
        pytest.skip(f"{path.name} is not executed yet: after the full runs, python experiments/execute_notebooks.py")


def test_there_are_four_notebooks():
    assert [p.stem for p in NOTEBOOKS] == ["food_web_inference", "hub_robustness", "protein_function",
                                           "protein_interactions"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebook_carries_its_outputs(path):
    skip_if_never_executed(path)
    cells = code_cells(path)
    assert [c["execution_count"] for c in cells] == list(range(1, len(cells) + 1)), \
        f"{path.name}: not executed top to bottom in one run (python experiments/execute_notebooks.py)"
    empty = [k for k, c in enumerate(cells) if not c["outputs"]]
    assert not empty, f"{path.name}: code cells {empty} have no output"
    outputs = [o for c in cells for o in c["outputs"]]
    errors = [o.get("ename", "") for o in outputs if o["output_type"] == "error"]
    assert not errors, f"{path.name}: error outputs {errors}"
    assert not [o for o in outputs if o.get("name") == "stderr" and "Traceback" in output_text(o)]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert images, f"{path.name}: no figure"
    leaks = sorted({m.group(0) for o in outputs for m in MACHINE_PATH.finditer(output_text(o))})
    assert not leaks, f"{path.name}: outputs show machine paths {leaks}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebook_shows_the_full_results(path):
    """Executed on the full results, not on the quick fallback the notebooks run when results are missing."""
    skip_if_never_executed(path)
    text = "".join(output_text(o) for c in code_cells(path) for o in c["outputs"])
    assert "quick" not in text, f"{path.name}: executed on quick results"
    assert "results/" in text and "_full" in text  # the results folder it read, relative to the repository
