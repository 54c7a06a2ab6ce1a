"""``gatbio trophic FILE``: trophic level and degree of every species of a food web.

FILE is a food-web file or folder, or a named web (``gateway/11``, ``cheddar/TL84``, ``pajek/baydry``).
Formats (``--format``, default ``auto`` from the name):

- ``edgelist``: whitespace ``prey predator [weight]`` lines (GATEWAy ``*_edge_list.txt``); ``#`` comments;
- ``csv``: comma separated with a header; columns ``--source``/``--target`` (default ``resource``/``consumer``
  when present, else the first two) and optional ``--weight``;
- ``pajek``: ``.net``/``.paj``; a SCOR flow web (with an ``ECO types`` partition) keeps its feeding arcs only;
- ``cheddar``: a folder with ``nodes.csv`` and ``trophic.links.csv``;
- ``gateway``: a folder with ``<id>_edge_list.txt`` (and optionally ``<id>_node_attr_list.txt``);
- ``adjacency``: a square 0/1 or weighted matrix; needs ``--convention row_to_col|col_to_row``.

Edges are read as prey → predator; pass ``--direction predator-prey`` for files that list the predator first.

Usage::

    gatbio trophic web.txt
    gatbio trophic links.csv --format csv --method levine --csv levels.csv
    gatbio trophic pajek/baydry --sort
"""

from __future__ import annotations

import argparse
from pathlib import Path

#: ``--format`` choices (``gatbio foodweb predict`` reads the same).
FORMATS = ("auto", "edgelist", "csv", "pajek", "cheddar", "gateway", "adjacency")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("trophic", help="trophic levels of a food web (table or CSV)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help="food-web file/folder, or a named web such as gateway/11")
    p.add_argument("--format", default="auto", choices=FORMATS,
                   help="file format (see above); auto: from the name (folder: gateway or cheddar; .net/.paj: "
                        "pajek; .csv: csv; else edgelist)")
    p.add_argument("--method", default="mackay", choices=["mackay", "levine"],
                   help="mackay (any directed graph; default) or levine (needs basal species)")
    p.add_argument("--direction", default="prey-predator", choices=["prey-predator", "predator-prey"],
                   help="what a line 'u v' means in the file (default: v eats u)")
    p.add_argument("--source", default=None, help="csv: prey column")
    p.add_argument("--target", default=None, help="csv: predator column")
    p.add_argument("--weight", default=None, help="csv: weight column (edgelist: a third column is read as weight)")
    p.add_argument("--convention", default=None, choices=["row_to_col", "col_to_row"],
                   help="adjacency: A[i, j] means i -> j (row_to_col) or j -> i (col_to_row)")
    p.add_argument("--unweighted", action="store_true", help="ignore edge weights")
    p.add_argument("--sort", action="store_true", help="sort by trophic level (highest first)")
    p.add_argument("--csv", metavar="OUT", default=None, help="also write the table as CSV (atomic write)")
    p.set_defaults(func=run)
    return p


def _guess_format(path: Path) -> str:
    if path.is_dir():
        return "gateway" if any(path.glob("*_edge_list.txt")) else "cheddar"
    suffix = path.suffix.lower()
    if suffix in (".net", ".paj"):
        return "pajek"
    if suffix == ".csv":
        return "csv"
    return "edgelist"


def read_foodweb_file(
    file: str | Path,
    format: str = "auto",
    *,
    direction: str = "prey-predator",
    source: str | None = None,
    target: str | None = None,
    weight: str | None = None,
    convention: str | None = None,
):
    """A food web from a file, folder or named web, as prey → predator :class:`Data` (see the module docstring
    for the formats)."""
    from gatbio.data import io
    from gatbio.data.foodweb import read_cheddar, read_gateway_web, read_pajek_foodweb

    path = Path(file)
    if not path.exists():
        from gatbio.data import DATASETS, load

        if str(file).split("/", 1)[0] in DATASETS:
            return load(str(file))  # named webs are already prey -> predator
        raise FileNotFoundError(f"{path}: no such file or folder (nor a named web such as gateway/11)")
    fmt = _guess_format(path) if format == "auto" else format
    if fmt == "cheddar":
        data = read_cheddar(path)
    elif fmt == "gateway":
        from gatbio.data.foodweb import gateway_folder_names

        data = read_gateway_web(path, node_names=gateway_folder_names(path))  # species names when in a collection
    elif fmt == "pajek":
        pj = io.read_pajek(path)
        if any(k.lower().startswith("eco") for k in pj.partitions):
            data = read_pajek_foodweb(path)
        else:
            data = io.pajek_to_data(pj, directed=True)
            data.name = path.stem
    elif fmt == "csv":
        import pandas as pd

        cols = list(pd.read_csv(path, nrows=0).columns)
        if len(cols) < 2:
            raise ValueError(f"{path}: expected a header with at least 2 columns, found {cols}")
        src = source or ("resource" if "resource" in cols else cols[0])
        dst = target or ("consumer" if "consumer" in cols else cols[1])
        data = io.read_edge_list(path, sep=",", header=True, source=src, target=dst, weight=weight)
    elif fmt == "adjacency":
        if convention is None:
            raise ValueError("--format adjacency needs --convention row_to_col (A[i, j] means i -> j) "
                             "or col_to_row (A[i, j] means j -> i)")
        data = io.read_adjacency_matrix(path, convention=convention, weighted=True)
    elif fmt == "edgelist":
        with open(path, encoding="utf-8") as fh:
            first = next((ln for ln in fh if ln.strip() and not ln.startswith("#")), "")
        data = io.read_edge_list(path, weight=2 if len(first.split()) >= 3 else None)
    else:
        raise ValueError(f"format={fmt!r}: expected auto, edgelist, csv, pajek, cheddar, gateway or adjacency")
    return _orient(data, direction)


def _orient(data, direction: str):
    if direction not in ("prey-predator", "predator-prey"):
        raise ValueError(f"direction={direction!r}: expected 'prey-predator' or 'predator-prey'")
    if direction == "predator-prey":
        data.edge_index = data.edge_index.flip(0)
    return data


def read_foodweb(args: argparse.Namespace):
    """The food web named by parsed command-line arguments (``file`` and optionally ``format``, ``direction``,
    ``source``, ``target``, ``weight``, ``convention``)."""
    return read_foodweb_file(args.file, getattr(args, "format", "auto"),
                             direction=getattr(args, "direction", "prey-predator"),
                             source=getattr(args, "source", None), target=getattr(args, "target", None),
                             weight=getattr(args, "weight", None), convention=getattr(args, "convention", None))


def trophic_table(data, method: str = "mackay", weighted: bool = True):
    """A DataFrame: species, trophic_level, prey (in-degree), predators (out-degree)."""
    import pandas as pd
    import torch
    from torch_geometric.utils import degree

    from gatbio.ecology import trophic_levels

    h = trophic_levels(data, method, weighted=weighted)
    n = data.num_nodes
    return pd.DataFrame({
        "species": data.node_names,
        "trophic_level": h.numpy().round(4),
        "prey": degree(data.edge_index[1], n, dtype=torch.long).numpy(),
        "predators": degree(data.edge_index[0], n, dtype=torch.long).numpy(),
    })


def run(args: argparse.Namespace) -> int:
    from gatbio.ecology import trophic_incoherence
    from gatbio.results import write_csv

    data = read_foodweb(args)
    df = trophic_table(data, args.method, weighted=not args.unweighted)
    if args.sort:
        df = df.sort_values("trophic_level", ascending=False, kind="stable")
    f0 = trophic_incoherence(data, "mackay", weighted=not args.unweighted)
    print(f"# {getattr(data, 'name', args.file)}: {data.num_nodes} species, {data.num_edges} links, "
          f"method={args.method}, incoherence F0={f0:.4f}")
    print(df.to_string(index=False))
    if args.csv:
        write_csv(args.csv, df)
        print(f"# wrote {args.csv}")
    return 0
