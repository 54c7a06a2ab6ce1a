"""``gatbio robustness``: config overrides on both sides of the options, and figures written atomically."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from gatbio.cli import build_parser
from gatbio.tasks import robustness_summary as rs

QUICK = "experiments/configs/robustness_quick.yaml"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv, overrides", [
    (["--config", QUICK, "protein.enabled=false", "--out", "/tmp/x", "models=[gcn]"],
     ["protein.enabled=false", "models=[gcn]"]),
    (["a=1", "--config", QUICK, "b=2", "--summary-only", "--device", "cpu", "c=3"], ["a=1", "b=2", "c=3"]),
    (["--config", QUICK], []),
])
def test_overrides_are_accepted_on_both_sides_of_the_options(argv, overrides):
    args = build_parser().parse_args(["robustness", *argv])
    assert args.config == QUICK and args.overrides == overrides
    if "--out" in argv:
        assert args.out == "/tmp/x"


def test_unknown_options_and_conflicts_are_still_refused(capsys):
    p = build_parser()
    with pytest.raises(SystemExit):
        p.parse_args(["robustness", "--config", QUICK, "a=1", "--bogus"])
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        p.parse_args(["robustness", "--config", QUICK, "--restart", "a=1", "--resume-anyway"])
    assert "not allowed with argument --restart" in capsys.readouterr().err


def _curves() -> pd.DataFrame:
    rows = [{"dataset": "d", "perturbation": pert, "model": model, "fraction": f,
             "relative_mean": 1 - f * k, "relative_std": 0.05}
            for pert in ("degree", "random") for k, model in enumerate(("pyg_gat", "gcn"), 1)
            for f in (0.0, 0.1, 0.2)]
    return pd.DataFrame(rows)


def _extinctions() -> pd.DataFrame:
    rows = [{"order": order, "web": web, "seed": 0, "removed": r, "lost": min(1.0, 1.5 * r)}
            for order in ("degree", "random") for web in ("w1", "w2") for r in (0.0, 0.5, 1.0)]
    return pd.DataFrame(rows)


def test_figures_are_written_as_png(tmp_path):
    curves = tmp_path / "figures" / "curves_d.png"
    ext = tmp_path / "figures" / "extinctions.png"
    rs.plot_curves(_curves(), "d", "relative", curves)
    rs.plot_extinctions(_extinctions(), ext)
    for path in (curves, ext):
        assert path.read_bytes().startswith(PNG)
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == ["curves_d.png", "extinctions.png"]


def test_a_failed_write_leaves_no_partial_figure(tmp_path, monkeypatch):
    path = tmp_path / "curves_d.png"

    def fail(*_args, **_kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)  # the last step of the atomic write
    with pytest.raises(OSError, match="disk full"):
        rs.plot_curves(_curves(), "d", "relative", path)
    assert list(Path(tmp_path).iterdir()) == []
