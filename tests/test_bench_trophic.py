"""experiments/bench_trophic.py: both paths side by side, the same levels."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def test_bench_trophic_prints_both_paths_and_their_agreement(capsys):
    path = Path(__file__).resolve().parents[1] / "experiments" / "bench_trophic.py"
    spec = importlib.util.spec_from_file_location("bench_trophic", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--species", "2500", "--links", "10000", "--cases", "levine", "levine-direct"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in out[:2]] == ["levine", "levine-direct"]
    diff = float(out[2].rsplit(" ", 1)[1])
    assert out[2].startswith("levine: iterative / direct = ") and diff < 1e-9
