"""experiments/shs27k_split_modes.py: the mode frequencies and the total-variation distance of a saved split."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import experiment_script


@pytest.fixture(scope="module")
def script():
    return experiment_script("shs27k_split_modes")


def test_split_modes_of_a_known_split(script, data_root, tmp_path, monkeypatch):
    from gatbio.data import load

    monkeypatch.setenv("GATBIO_DATA", str(data_root))
    y = load("shs27k", root=data_root).pair_modes.numpy().astype(float)
    binding = y[:, 1] > 0
    train = np.flatnonzero(binding)[:50].tolist()  # every training pair has binding
    test = np.flatnonzero(~binding)[:30].tolist()  # no test pair has it
    (tmp_path / "splits").mkdir()
    (tmp_path / "splits" / "bfs_s7.json").write_text(json.dumps({"kind": "bfs", "seed": 7, "train": train,
                                                                 "test": test}))
    row = script.split_modes(tmp_path).iloc[0]
    assert (row["split"], row["seed"]) == ("bfs", 7)
    assert row["binding train"] == 1.0 and row["binding test"] == 0.0
    tr, te = y[train], y[test]
    tv = 0.5 * np.abs(tr.sum(0) / tr.sum() - te.sum(0) / te.sum()).sum()
    assert row["TV distance"] == pytest.approx(tv, abs=5e-4) and row["TV distance"] > 0.2
    assert row["modes/pair test"] == pytest.approx(te.sum(1).mean(), abs=5e-4)


def test_no_split_files_is_a_clear_error(script, tmp_path):
    with pytest.raises(SystemExit, match="no split files"):
        script.split_modes(tmp_path)
