"""Audit of figure files: PNG, PDF and SVG by suffix, atomic writes, clear refusals, headless drawing."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pandas as pd
import pytest

from gatbio import plot


def small_figure():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2, 1.5))
    fig.add_subplot().plot([0, 1], [1, 0])
    return fig


def test_a_pdf_is_written_when_asked_for():
    """'fig.pdf', the usual figure format of a paper, was refused: 'cannot tell the image format from the suffix'."""
    assert plot.image_format("curves.PDF") == "pdf"


@pytest.mark.parametrize("suffix,magic", [(".png", b"\x89PNG\r\n\x1a\n"), (".pdf", b"%PDF-"), (".svg", b"<?xml")])
def test_each_format_is_written_atomically_with_its_own_bytes(tmp_path, suffix, magic):
    path = plot.save_figure(small_figure(), tmp_path / "sub" / f"fig{suffix}")  # the folder is made
    assert path.read_bytes().startswith(magic)
    assert not list(path.parent.glob(".*.tmp"))  # no temporary file left beside it


@pytest.mark.parametrize("name,told", [("fig.jpg", "the suffix '.jpg' is not an image format gatbio writes"),
                                       ("fig", "it has no suffix")])
def test_unknown_suffixes_are_refused_clearly_and_nothing_is_written(tmp_path, name, told):
    with pytest.raises(ValueError, match=re.escape(f"{told}; give a file ending in .png or .svg (or .pdf)")):
        plot.save_figure(small_figure(), tmp_path / name)
    assert list(tmp_path.iterdir()) == []


def test_robustness_curves_draw_headless_into_each_format(tmp_path):
    """No display and a GUI backend asked for in the environment: the figures still draw (Agg)."""
    code = (
        "import sys, pandas as pd\n"
        "from gatbio.tasks import robustness_summary as rs\n"
        "rows = [dict(task='p', dataset='d', model=m, perturbation='degree', fraction=f, relative_mean=1 - f,\n"
        "             relative_std=0.1, n=2) for m in ('gat_log', 'pyg_gat') for f in (0, 0.05, 0.1)]\n"
        "for s in ('png', 'pdf', 'svg'):\n"
        "    rs.plot_curves(pd.DataFrame(rows), 'd', 'relative', sys.argv[1] + '/c.' + s)\n"
        "import matplotlib; print(matplotlib.get_backend())\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["MPLBACKEND"] = "TkAgg"
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().lower() == "agg"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.pdf", "c.png", "c.svg"]


def test_a_robustness_figure_with_an_unknown_suffix_leaves_no_open_figure(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gatbio.tasks import robustness_summary as rs

    rows = [dict(task="p", dataset="d", model="gat_log", perturbation="degree", fraction=f, relative_mean=1 - f,
                 relative_std=0.1, n=2) for f in (0, 0.1)]
    before = plt.get_fignums()
    with pytest.raises(ValueError, match="give a file ending in"):
        rs.plot_curves(pd.DataFrame(rows), "d", "relative", tmp_path / "c.gif")
    assert plt.get_fignums() == before and list(tmp_path.iterdir()) == []
