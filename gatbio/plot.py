"""Pictures of predictions: a food web drawn by trophic level with its most likely missing links, and a
protein's most attended neighbourhood.

What ``gatbio foodweb predict --plot FILE`` and ``gatbio protein predict --plot FILE`` draw, and what the
notebooks call. Figures are built with matplotlib's object-oriented API on the Agg canvas (no ``pyplot`` state,
no display needed), so they can be drawn on a server, in a test, or onto an ``ax`` of a notebook figure.
``save_figure`` writes PNG, PDF or SVG, chosen by the file suffix, atomically.

Food web (:func:`foodweb_figure`): species are nodes at height = MacKay trophic level of the observed web (the
level used by the models), spread horizontally by a seeded force-directed layout (species that share links sit
close); observed links are grey (darker and wider with the consumer's attention when ``attention`` is given);
the predicted links are arrows resource → consumer coloured by their score, with a colour bar. Species are
labelled when the web is small, else only those of the predicted links.

Protein (:func:`protein_figure`): the protein in the centre, its most attended neighbours around it (the
GAT's last-layer attention, heads averaged, as in the ``--explain`` table): edge width and colour follow the
attention, annotated neighbours show their known functions, interactions between the neighbours are grey; the
title gives the protein's predicted functions and their scores.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["IMAGE_FORMATS", "image_format", "save_figure", "draw_foodweb", "foodweb_figure",
           "draw_protein_neighbourhood", "protein_figure", "best_predicted_protein", "protein_prediction_figure"]

#: File formats :func:`save_figure` writes, by suffix (PDF and SVG are vector images, for a paper's figures).
IMAGE_FORMATS = ("png", "pdf", "svg")
#: Size (inches) and resolution of the figures: a PNG is ``FOODWEB_SIZE * DPI`` pixels; a PDF or SVG ``* 72`` points.
FOODWEB_SIZE = (10.0, 7.0)
PROTEIN_SIZE = (8.0, 7.0)
DPI = 150
#: Webs with at most this many species get every species labelled.
LABEL_ALL_MAX = 40


def image_format(path: str | Path) -> str:
    """``"png"``, ``"pdf"`` or ``"svg"`` from the suffix of ``path`` (any case); a clear error for anything else
    (call it before any long computation, so a typo does not cost a training run)."""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in IMAGE_FORMATS:
        told = f"the suffix {Path(path).suffix!r} is not an image format gatbio writes" if suffix else "it has no suffix"
        raise ValueError(f"{path}: {told}; give a file ending in .png or .svg (or .pdf)")
    return suffix


def _new_figure(size: tuple[float, float], dpi: float = DPI, layout: str | None = "constrained") -> Figure:
    """A figure on its own Agg canvas, outside pyplot: drawing one for a file leaves a notebook's backend and
    figures alone (``matplotlib.use("Agg")`` switched them)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, dpi=dpi, layout=layout)
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig: Figure, path: str | Path, dpi: float | None = None) -> Path:
    """Write ``fig`` to ``path`` as PNG, PDF or SVG (by the suffix), atomically; returns the path. The image has
    the figure's size: ``figsize * dpi`` pixels (PNG; ``dpi`` default: the figure's) or ``figsize * 72`` points
    (PDF, SVG)."""
    from gatbio.results import atomic_write_bytes

    atomic_write_bytes(path, figure_bytes(fig, path, dpi))
    return Path(path)


def figure_bytes(fig: Figure, path: str | Path, dpi: float | None = None) -> bytes:
    """``fig`` encoded as the image ``path`` names by its suffix (PNG, PDF or SVG), for a caller that writes several
    outputs all-or-nothing (:func:`gatbio.results.atomic_write_many`)."""
    buf = io.BytesIO()
    fig.savefig(buf, format=image_format(path), dpi=fig.dpi if dpi is None else dpi)
    return buf.getvalue()


def _short(name: str, width: int = 26) -> str:
    name = name[:-3] if name.endswith("_NA") else name  # GATEWAy: "taxon_NA" has no life stage
    return name if len(name) <= width else name[: width - 1] + "…"


def _spread(edge_index: np.ndarray, levels: np.ndarray, seed: int = 0, band: float = 0.3) -> np.ndarray:
    """Horizontal positions (N,) in [-1, 1]: species in one band of trophic levels (``band`` wide) are spaced
    evenly, in the left-to-right order of a seeded force-directed layout of the undirected web (so species that
    share links sit close, and species of one level do not pile up)."""
    import networkx as nx

    n = len(levels)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(map(tuple, edge_index.T.tolist()))
    pos = nx.spring_layout(g, seed=seed)
    sx = np.array([pos[k][0] for k in range(n)])
    x = np.zeros(n)
    bins = np.floor((levels - levels.min()) / band).astype(int)
    for b in np.unique(bins):
        members = np.nonzero(bins == b)[0]
        members = members[np.argsort(sx[members], kind="stable")]
        x[members] = (np.arange(len(members)) + 0.5) / len(members) * 2 - 1
    return x


def draw_foodweb(ax: Axes, edge_index, levels, node_names: Sequence[str], links: pd.DataFrame | None = None,
                 attention=None, *, label: bool | None = None, cmap: str = "viridis", seed: int = 0):
    """Draw a food web by trophic level on ``ax``.

    Args:
        edge_index: observed links (2, E), prey → predator (node indices).
        levels: (N,) trophic levels (the y of each species).
        node_names: N species names.
        links: predicted links, columns ``resource``, ``consumer`` (names or indices) and ``score``; drawn as
            arrows coloured by score.
        attention: optional (E,) weight per observed link in [0, 1] (e.g. the consumer's attention over its prey).
        label: label every species (default: when the web has at most :data:`LABEL_ALL_MAX` species; otherwise
            only the species of the predicted links are labelled).

    Returns:
        the ``ScalarMappable`` of the link scores (for a colour bar), or ``None`` without ``links``.
    """
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.collections import LineCollection
    from matplotlib.colors import Normalize
    from matplotlib.patches import FancyArrowPatch

    ei = np.asarray(edge_index).reshape(2, -1)
    y = np.asarray(levels, dtype=float)
    n = len(y)
    names = [str(s) for s in node_names]
    if n == 0:
        raise ValueError("the food web has no species: there is nothing to draw")
    if len(names) != n or (ei.size and int(ei.max()) >= n):
        raise ValueError(f"levels has {n} entries for {len(names)} node_names and species ids up to "
                         f"{int(ei.max()) if ei.size else -1} in edge_index: give one level per species")
    if ei.size and int(ei.min()) < 0:  # numpy reads -1 as the last species: a link drawn to the wrong one
        raise ValueError(f"edge_index holds species id {int(ei.min())}: ids run from 0 to {n - 1}")
    if attention is not None and np.size(attention) != ei.shape[1]:
        raise ValueError(f"attention has {np.size(attention)} weights for {ei.shape[1]} observed links: give one per "
                         "link, in the order of edge_index")
    x = _spread(ei, y, seed)
    xy = np.stack([x, y], axis=1)  # (N, 2)
    segments = np.stack([xy[ei[0]], xy[ei[1]]], axis=1)  # (E, 2, 2)
    if attention is None:
        alpha = max(0.08, min(0.35, 150 / max(len(segments), 1)))  # fainter on dense webs, where lines pile up
        ax.add_collection(LineCollection(segments, colors="0.55", alpha=alpha, linewidths=0.6, zorder=1))
    else:
        a = np.clip(np.asarray(attention, dtype=float), 0, 1)
        colors = [(0.3, 0.3, 0.3, 0.15 + 0.75 * w) for w in a]
        ax.add_collection(LineCollection(segments, colors=colors, linewidths=0.5 + 2.5 * a, zorder=1))
    ax.scatter(x, y, s=36 if n <= 150 else 14, c="white", edgecolors="0.2", linewidths=0.8, zorder=3)

    mappable = None
    shown: set[int] = set()
    if links is not None and len(links):
        index = {s: k for k, s in enumerate(names)}

        def node(v, column: str) -> int:
            k = int(v) if isinstance(v, (int, np.integer)) else index.get(str(v), -1)
            if not 0 <= k < n:
                raise ValueError(f"links: {column} {v!r} is not a species of this web (names of node_names, or "
                                 f"indices 0..{n - 1})")
            return k

        src = [node(v, "resource") for v in links["resource"]]
        dst = [node(v, "consumer") for v in links["consumer"]]
        score = links["score"].to_numpy(dtype=float)
        if not np.isfinite(score).all():
            bad = int(np.flatnonzero(~np.isfinite(score))[0])
            raise ValueError(f"links: {int((~np.isfinite(score)).sum())} score(s) are not finite (the first in row "
                             f"{bad}: {score[bad]}); a colour needs a number: drop those links or fill their scores")
        norm = Normalize(score.min(), score.max() if score.max() > score.min() else score.min() + 1e-9)
        cm = colormaps[cmap]
        for u, v, s in sorted(zip(src, dst, score, strict=True), key=lambda t: t[2]):  # best drawn last, on top
            ax.add_patch(FancyArrowPatch(xy[u], xy[v], arrowstyle="-|>", mutation_scale=10, color=cm(norm(s)),
                                         lw=1.8, shrinkA=4, shrinkB=4, connectionstyle="arc3,rad=0.12", zorder=2))
        shown = set(src) | set(dst)
        mappable = ScalarMappable(norm=norm, cmap=cm)
    if label is None:
        label = n <= LABEL_ALL_MAX
    # labels alternate above / below along each level band, so that neighbours' labels do not overlap
    below = np.zeros(n, dtype=bool)
    order = np.lexsort((x, np.floor((y - y.min()) / 0.3)))
    below[order[1::2]] = True
    for k in range(n) if label else sorted(shown):
        ax.annotate(_short(names[k]), xy[k], xytext=(0, -11 if below[k] else 5), textcoords="offset points",
                    ha="center", fontsize=7 if n <= LABEL_ALL_MAX else 6, zorder=4)
    pad = 0.25
    ax.set_xlim(-1 - 0.1, 1 + 0.1)
    ax.set_ylim(y.min() - pad, y.max() + pad + 0.15)
    ax.set_xticks([])
    ax.set_ylabel("trophic level (MacKay)")
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    return mappable


def foodweb_figure(data, links: pd.DataFrame | None = None, *, title: str | None = None, attention=None,
                   levels=None, score_label: str = "score (pooled log-odds)") -> Figure:
    """A figure of a food web (a PyG ``Data`` with ``edge_index`` prey → predator and ``node_names``) by trophic
    level, with ``links`` (``resource, consumer, score``: e.g. the output of
    :func:`gatbio.tasks.foodweb.predict_missing_links`) as coloured arrows and a colour bar. ``levels``
    default to the MacKay trophic levels of the web without self-loops (those of the models); ``attention``, one
    weight per observed link in the order of ``np.nonzero`` of the binary adjacency, is what
    :func:`gatbio.tasks.foodweb.explain_web` returns."""
    from gatbio.tasks.foodweb import adjacency_of, observed_levels

    n = data.num_nodes
    A = adjacency_of(data.edge_index, n)  # binary, self-loops removed (as the models see the web)
    if levels is None:
        levels = observed_levels(A)
    names = list(getattr(data, "node_names", None) or [str(k) for k in range(n)])
    ei = np.stack(A.nonzero())  # (2, E), the order of explain_web's attention
    fig = _new_figure(FOODWEB_SIZE)
    ax = fig.add_subplot()
    mappable = draw_foodweb(ax, ei, levels, names, links, attention)
    if mappable is not None:
        fig.colorbar(mappable, ax=ax, shrink=0.8, label=score_label)
    name = getattr(data, "name", None) or "food web"
    if title is None:
        loops = int((data.edge_index[0] == data.edge_index[1]).sum())
        title = f"{name}: {n} species, {A.nnz} links (grey" + (f"; {loops} self-loop(s) not drawn" if loops else "") + ")"
        if links is not None:
            title += f"; top {len(links)} predicted links (coloured, resource → consumer)"
    ax.set_title(title, fontsize=10)
    return fig


def _circle(k: int) -> np.ndarray:
    """(k, 2) points on the unit circle, clockwise from the top."""
    t = math.pi / 2 - 2 * math.pi * np.arange(k) / max(k, 1)
    return np.stack([np.cos(t), np.sin(t)], axis=1)


def draw_protein_neighbourhood(ax: Axes, protein: str, neighbours: pd.DataFrame, edges=None, *,
                               cmap: str = "magma_r"):
    """Draw ``protein`` in the centre and ``neighbours`` (columns ``neighbour``, ``attention`` and optionally
    ``neighbour_known_labels``, ``;``-separated) on a circle, most attended first (clockwise from the top).
    ``edges``: optional pairs of protein names; those between two neighbours are drawn grey.
    Returns the ``ScalarMappable`` of the attention (for a colour bar)."""
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    if len(neighbours) == 0:
        raise ValueError(f"protein {protein!r}: neighbours is empty, there is no neighbourhood to draw")
    nb = neighbours.sort_values("attention", ascending=False, kind="stable").reset_index(drop=True)
    ring = _circle(len(nb))  # (k, 2)
    pos = {protein: np.zeros(2)}
    pos.update({str(p): xy for p, xy in zip(nb["neighbour"], ring, strict=True)})
    for a, b in edges or ():
        if a in pos and b in pos and protein not in (a, b):
            ax.plot(*np.stack([pos[a], pos[b]]).T, color="0.75", lw=0.8, zorder=1)
    att = nb["attention"].to_numpy(dtype=float)
    # colours span the attention of the shown neighbours (a hub's weights are all small): the bar gives the values
    lo, hi = float(att.min()), float(att.max())
    norm = Normalize(lo if hi > lo else 0.0, hi if hi > 0 else 1.0)
    cm = colormaps[cmap]
    for p, a in zip(nb["neighbour"], att, strict=True):
        ax.plot(*np.stack([pos[str(p)], pos[protein]]).T, color=cm(norm(a)), lw=1 + 6 * a / (hi or 1.0), zorder=2,
                solid_capstyle="round")
    known = nb.get("neighbour_known_labels")
    known = ["" if not isinstance(s, str) else s for s in (known if known is not None else [""] * len(nb))]
    for (p, labels), xy in zip(zip(nb["neighbour"], known, strict=True), ring, strict=True):
        ax.scatter(*xy, s=220, c="#9ecae1" if labels else "white", edgecolors="0.2", zorder=3)
        text = str(p) + (f"\n{_short(labels.replace(';', ', '), 28)}" if labels else "")
        side = "right" if xy[0] < -0.3 else "left" if xy[0] > 0.3 else "center"  # labels point away from the centre
        ax.annotate(text, xy, xytext=xy * (1.1 if side != "center" else 1.22), textcoords="data", ha=side,
                    va="center", fontsize=7, zorder=4)
    ax.scatter(0, 0, s=500, c="#fdae6b", edgecolors="0.2", zorder=3)
    ax.annotate(protein, (0, 0), ha="center", va="center", fontsize=8, fontweight="bold", zorder=4)
    ax.set_xlim(-1.9, 1.9)
    ax.set_ylim(-1.45, 1.45)
    ax.set_aspect("equal")
    ax.axis("off")
    return ScalarMappable(norm=norm, cmap=cm)


def protein_figure(protein: str, neighbours: pd.DataFrame, predicted: Sequence[tuple[str, float] | str], edges=None
                   ) -> Figure:
    """A figure of :func:`draw_protein_neighbourhood` with the predicted functions (``(label, score)`` pairs or
    labels, best first) in the title and a colour bar of the attention."""
    fig = _new_figure(PROTEIN_SIZE)
    ax = fig.add_subplot()
    mappable = draw_protein_neighbourhood(ax, protein, neighbours, edges)
    fig.colorbar(mappable, ax=ax, shrink=0.7, label="attention (last layer, heads averaged)")
    funcs = ", ".join(p if isinstance(p, str) else f"{p[0]} ({p[1]:.2f})" for p in predicted)
    ax.set_title(f"{protein}: predicted {funcs}\nits {len(neighbours)} most attended neighbours "
                 "(blue: annotated, with their known functions)", fontsize=9)
    return fig


def best_predicted_protein(predictions: pd.DataFrame) -> str:
    """The protein whose top predicted function has the highest score, among those with interactions (the
    ``predictions`` table of :func:`gatbio.tasks.protein.predict_unannotated`)."""
    if predictions.empty:
        raise ValueError("predictions is empty: no protein was predicted, there is no neighbourhood to draw")
    linked = predictions[~predictions["isolated"].astype(bool)]
    if linked.empty:
        raise ValueError("every predicted protein is isolated: there is no neighbourhood to draw")
    top = linked["scores"].astype(str).str.split(";").str[0].astype(float)
    return str(linked["protein"].iloc[int(np.argmax(top.to_numpy()))])


def protein_prediction_figure(data, predictions: pd.DataFrame, explain: pd.DataFrame, protein: str | None = None
                              ) -> Figure:
    """:func:`protein_figure` for one protein of :func:`gatbio.tasks.protein.predict_unannotated`'s output
    (default: :func:`best_predicted_protein`): its rows of ``explain`` as the neighbours, its predicted functions
    and scores in the title, and the interactions of ``data`` (``edge_index``, ``node_names``) between them."""
    protein = best_predicted_protein(predictions) if protein is None else str(protein)
    row = predictions[predictions["protein"].astype(str) == protein]
    if row.empty:
        raise ValueError(f"protein {protein!r} has no prediction (it is annotated, or not in the network)")
    neighbours = explain[explain["protein"].astype(str) == protein]
    if neighbours.empty:
        raise ValueError(f"protein {protein!r} has no interactions: there is no neighbourhood to draw")
    labels = str(row["top_functions"].iloc[0]).split(";")
    scores = [float(v) for v in str(row["scores"].iloc[0]).split(";")]
    shown = {protein, *map(str, neighbours["neighbour"])}
    names = [str(s) for s in data.node_names]
    ei = np.asarray(data.edge_index).reshape(2, -1)
    keep = np.isin(ei, [k for k, s in enumerate(names) if s in shown]).all(axis=0)
    edges = [(names[a], names[b]) for a, b in ei[:, keep].T]
    return protein_figure(protein, neighbours, list(zip(labels, scores, strict=True)), edges)
