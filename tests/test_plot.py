"""Pictures: valid PNG / SVG files of the expected size, the right protein, clear errors."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
import torch
from torch_geometric.data import Data

from gatbio import plot
from gatbio.ecology import trophic_levels


def png_size(path) -> tuple[int, int]:
    """(width, height) from the IHDR chunk, after checking the PNG signature."""
    raw = path.read_bytes()
    assert raw[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert raw[12:16] == b"IHDR"
    return struct.unpack(">II", raw[16:24])


def svg_size(path) -> tuple[float, float]:
    """(width, height) in points of an SVG file (which must parse as XML)."""
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return float(root.get("width").removesuffix("pt")), float(root.get("height").removesuffix("pt"))


def check_image(path, size_inches) -> None:
    w, h = size_inches
    if path.suffix == ".png":
        assert png_size(path) == (round(w * plot.DPI), round(h * plot.DPI))
    else:
        assert svg_size(path) == (w * 72, h * 72)
    assert not list(path.parent.glob(".*.tmp"))  # written atomically: no temporary file left


@pytest.fixture
def web():
    """A 6-species web: two basal species, two grazers, a predator, a top predator."""
    src = [0, 1, 0, 1, 2, 3, 4, 2]
    dst = [2, 2, 3, 3, 4, 4, 5, 5]
    return Data(edge_index=torch.tensor([src, dst]), num_nodes=6, name="tiny",
                node_names=["alga_NA", "detritus", "snail_adult", "mayfly_larvae", "stonefly", "trout_adults"])


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_foodweb_figure_files(tmp_path, web, suffix):
    links = pd.DataFrame({"resource": ["mayfly_larvae", "snail_adult"], "consumer": ["trout_adults", "stonefly"],
                          "score": [1.5, -0.5]})
    path = plot.save_figure(plot.foodweb_figure(web, links), tmp_path / f"web{suffix}")
    check_image(path, plot.FOODWEB_SIZE)
    if suffix == ".svg":
        text = path.read_text()
        assert "trout_adults" in text and "alga" in text and "alga_NA" not in text  # labels, "_NA" dropped
        assert "tiny: 6 species, 8 links" in text


def test_foodweb_layout_puts_species_at_their_trophic_level(web):
    from matplotlib.collections import PathCollection

    fig = plot.foodweb_figure(web)
    ax = fig.axes[0]
    xy = next(c for c in ax.collections if isinstance(c, PathCollection)).get_offsets()
    levels = trophic_levels(web.edge_index, "mackay", num_nodes=6).numpy()
    np.testing.assert_allclose(xy[:, 1], levels, atol=1e-6)
    np.testing.assert_allclose(levels[:2], 1.0)  # basal species at 1
    assert levels.argmax() == 5  # the trout on top
    assert xy[0, 0] != xy[1, 0]  # two basal species are spread apart, not stacked
    assert len(fig.axes) == 1  # no links: no colour bar


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_protein_figure_files(tmp_path, suffix):
    nb = pd.DataFrame({"neighbour": ["A", "B", "C"], "attention": [0.5, 0.3, 0.2],
                       "neighbour_known_labels": ["kinase;binding", np.nan, "transport"]})
    fig = plot.protein_figure("P1", nb, [("kinase", 0.93), ("binding", 0.41)], edges=[("A", "B"), ("A", "P1")])
    path = plot.save_figure(fig, tmp_path / f"p{suffix}")
    check_image(path, plot.PROTEIN_SIZE)
    assert "P1: predicted kinase (0.93), binding (0.41)" in fig.axes[0].get_title()
    assert "P1: predicted kinase, binding\n" in plot.protein_figure("P1", nb, ["kinase", "binding"]).axes[0].get_title()


def test_protein_prediction_figure_picks_the_best_linked_protein():
    data = Data(edge_index=torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]), num_nodes=4,
                node_names=["P0", "P1", "P2", "LONE"])
    pred = pd.DataFrame({"protein": ["P1", "LONE"], "isolated": [False, True],
                         "top_functions": ["kinase;transport", "transport;kinase"], "scores": ["0.7000;0.1000", "0.9900;0.1"]})
    explain = pd.DataFrame({"protein": ["P1", "P1"], "neighbour": ["P0", "P2"], "attention": [0.6, 0.4],
                            "top_prediction": ["kinase"] * 2, "neighbour_known_labels": ["kinase", ""]})
    assert plot.best_predicted_protein(pred) == "P1"  # LONE scores higher but has nothing to draw
    fig = plot.protein_prediction_figure(data, pred, explain)
    assert fig.axes[0].get_title().startswith("P1: predicted kinase (0.70), transport (0.10)")
    with pytest.raises(ValueError, match="'LONE' has no interactions"):
        plot.protein_prediction_figure(data, pred, explain, "LONE")
    with pytest.raises(ValueError, match="'P0' has no prediction"):
        plot.protein_prediction_figure(data, pred, explain, "P0")
    with pytest.raises(ValueError, match="every predicted protein is isolated"):
        plot.best_predicted_protein(pred[pred["isolated"]])


@pytest.mark.parametrize("name", ["web.jpg", "web", "web.PNG.txt"])
def test_other_suffixes_are_a_clear_error(tmp_path, name):
    with pytest.raises(ValueError, match=r"give a file ending in \.png or \.svg"):
        plot.image_format(tmp_path / name)
    assert plot.image_format("A.SVG") == "svg"


def test_save_figure_renders_at_a_given_dpi_and_leaves_the_figure_as_it_was(tmp_path):
    """``dpi`` sets the PNG's pixels (figsize × dpi) without changing the figure (robustness and protein figures
    are written at 120)."""
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(4, 2), dpi=100)
    assert png_size(plot.save_figure(fig, tmp_path / "a.png", dpi=50)) == (200, 100)
    assert fig.dpi == 100 and png_size(plot.save_figure(fig, tmp_path / "b.png")) == (400, 200)
    plt.close(fig)
