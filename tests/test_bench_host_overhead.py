"""experiments/bench_host_overhead.py: the host-side cost of a Triton-path step, kernels not launched, timed for
this checkout and another one side by side (here: this checkout twice), with its JSON keys and clear errors."""

from __future__ import annotations

import json

import pytest
from conftest import REPO, experiment_script

pytest.importorskip("triton")


def test_times_a_row_for_both_checkouts_and_writes_the_ratio(tmp_path, capsys):
    bench = experiment_script("bench_host_overhead")
    out = tmp_path / "host.json"
    assert bench.main(["--rows", "gat_all", "--rounds", "1", "--steps", "2", "--against", str(REPO),
                       "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["gat_all.host_ms"] > 0 and d["gat_all.against_host_ms"] > 0
    assert d["gat_all.host_ratio_vs_against"] == pytest.approx(d["gat_all.host_ms"] / d["gat_all.against_host_ms"],
                                                               rel=2e-3)
    assert "gat_all    this" in capsys.readouterr().out


def test_refuses_an_unknown_row_and_a_folder_without_gatbio(tmp_path, capsys):
    bench = experiment_script("bench_host_overhead")
    with pytest.raises(SystemExit):
        bench.main(["--rows", "gat,gcn"])
    assert "--rows: unknown ['gcn']" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main(["--against", str(tmp_path)])
    assert f"--against {tmp_path}: not a gatbio checkout" in capsys.readouterr().err
