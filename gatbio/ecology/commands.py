"""``gatbio trophic FILE``: trophic level and degree of every species of a food web.

FILE is a food-web file or folder, or a named web (``gateway/11``, ``cheddar/TL84``, ``pajek/baydry``).
Formats (``--format``, default ``auto`` from the name):

- ``edgelist``: ``prey predator [weight]`` lines (GATEWAy ``*_edge_list.txt``), separated by whitespace, or by
  tabs (or commas) when a line holds one, so that names may hold spaces; ``#`` comments;
- ``csv``: comma separated (or tab / semicolon when there is no comma) with a header; columns
  ``--source``/``--target`` (default ``resource``/``consumer``, or ``prey``/``predator``, when present, else the
  first two) and optional ``--weight``;
- ``pajek``: ``.net``/``.paj``; a SCOR flow web (with an ``ECO types`` partition) keeps its feeding arcs only;
- ``cheddar``: a folder with ``nodes.csv`` and ``trophic.links.csv``;
- ``gateway``: a folder with ``<id>_edge_list.txt`` (and optionally ``<id>_node_attr_list.txt``);
- ``adjacency``: a square 0/1 or weighted matrix (whitespace, tab or comma separated); needs ``--convention
  row_to_col|col_to_row``.

Edges are read as prey → predator; pass ``--direction predator-prey`` for files that list the predator first
(not for tables whose header names the columns ``resource``/``consumer`` or ``prey``/``predator``: their names say it).

Usage::

    gatbio trophic web.txt
    gatbio trophic links.csv --format csv --method levine --csv levels.csv
    gatbio trophic pajek/baydry --sort
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gatbio._options import add_header_option

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
    add_header_option(p, "FILE (edgelist, csv, adjacency)")
    p.set_defaults(func=run)
    return p


def _guess_format(path: Path) -> str:
    if path.is_dir():
        if any(path.glob("*_edge_list.txt")):
            return "gateway"
        if (path / "trophic.links.csv").is_file():
            return "cheddar"
        raise FileNotFoundError(f"{path}: a folder, but neither a GATEWAy web folder (<id>_edge_list.txt) nor a "
                                "cheddar community (nodes.csv, trophic.links.csv); give a file, or --format")
    suffixes = [s.lower() for s in path.suffixes if s.lower() not in (".gz", ".bz2", ".xz")]  # read by content
    suffix = suffixes[-1] if suffixes else ""
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
    weight: str | None = "auto",
    convention: str | None = None,
    header: bool | None = None,
):
    """A food web from a file, folder or named web, as prey → predator :class:`Data` (see the module docstring
    for the formats).

    Tables (``edgelist``, ``csv``, ``adjacency``): a header row is detected unless ``header`` forces it (see
    :mod:`gatbio.data.tables`); weights are the ``weight`` column, or with ``"auto"`` a third column of numbers
    (``None``: no weights), checked by the one weight parser (finite, ``>= 0``); a link listed twice is merged
    into one (weights summed, as the trophic-level equations add parallel links), with a note on stderr.
    """
    from gatbio.data import io
    from gatbio.data.foodweb import read_cheddar, read_gateway_web, read_pajek_foodweb
    from gatbio.data.tables import data_head

    path = Path(file)
    if not path.exists():
        import difflib

        from gatbio.data import DATASETS, load

        base = str(file).split("/", 1)[0]
        if base in DATASETS and "/" in str(file):
            refuse_table_options(file, "a named web", direction=direction, source=source, target=target,
                                 weight=weight, convention=convention)
            return load(str(file))  # named webs are already prey -> predator
        collections = [n for n, i in DATASETS.items() if i.kind == "foodweb"]
        member = str(file).partition("/")[2]
        close = [f"{b}/{member}" for b in difflib.get_close_matches(base, collections, n=2, cutoff=0.75)] \
            if member else difflib.get_close_matches(str(file), collections, n=2, cutoff=0.75)
        hint = f"; did you mean {' or '.join(close)}?" if close else " (named webs: gateway/11, cheddar/TL84, ...)"
        raise FileNotFoundError(f"{path}: no such file or folder, nor a named web{hint}")
    fmt = _guess_format(path) if format == "auto" else format
    if fmt in ("cheddar", "gateway"):
        refuse_table_options(file, "a cheddar community folder" if fmt == "cheddar" else "a GATEWAy web folder",
                             direction=direction, source=source, target=target, weight=weight,
                             convention=convention)
    if fmt == "cheddar":
        data = read_cheddar(path)
    elif fmt == "gateway":
        from gatbio.data.foodweb import gateway_folder_names

        data = read_gateway_web(path, node_names=gateway_folder_names(path))  # species names when in a collection
    elif fmt == "pajek":
        _refuse_options(file, "a Pajek file (its *Arcs are the links)", source=source, target=target,
                        convention=convention)
        pj = io.read_pajek(path)
        net = pj.network(None)
        if len(pj.networks) > 1:
            io.note(f"{path}: {len(pj.networks)} networks in this project ({', '.join(list(pj.networks)[:4])}); "
                    f"the first, {next(iter(pj.networks))!r}, is read")
        if not len(net["edges"]) and not len(net["arcs"]):
            raise io.MalformedFileError(path, None, "no *Arcs section: a food web needs its links (prey -> "
                                                    "predator) as *Arcs lines after the *Vertices")
        if len(net["edges"]) and not len(net["arcs"]):
            raise io.MalformedFileError(path, int(net["edge_lines"][0]), "a network of undirected *Edges only: a "
                                        "food web needs *Arcs (prey -> predator) to have trophic levels")
        if len(net["edges"]):
            io.note(f"{path}: {len(net['edges'])} undirected *Edges read as links both ways (prey and predator of "
                    "each other) beside the *Arcs")
        if any(k.lower().startswith("eco") for k in pj.partitions):
            data = read_pajek_foodweb(path)
        else:
            stats: dict[str, int] = {}
            data = io.pajek_to_data(pj, directed=True, duplicates="merge", stats=stats)
            io.report_changes(path, stats, True, "sum")
            data.name = path.stem
    elif fmt in ("csv", "edgelist"):
        _refuse_options(file, "an edge list (one link per row)", convention=convention)
        head = data_head(path, "#", numbered=True)  # [(line number, line)] of the first data lines
        sep = _table_separator(fmt, [x for _, x in head])
        split = str.split if sep == r"\s+" else (lambda x: x.split(sep))
        # columns by position (named columns of a header row mapped to theirs), so that header detection can
        # check the first row's names against the rest of the file
        fields = [f.strip() for f in split(head[0][1])] if head and header is not False else []

        def position(name: str | None, default: str | None, fallback: int | None) -> int | None:
            if name is not None and name not in fields:
                raise io.MalformedFileError(path, head[0][0] if head else 1,
                                            f"no column {name!r} in the first row (columns: {fields})")
            name = name or (default if default in fields else None)
            return fields.index(name) if name is not None else fallback

        lower = [f.lower() for f in fields]
        named = next(((s, t) for s, t in (("prey", "predator"), ("resource", "consumer")) if {s, t} <= set(lower)),
                     None)
        if source is None and target is None and named:
            if direction == "predator-prey":  # the names say the direction; flipping would reverse it
                raise io.MalformedFileError(path, head[0][0], f"the header names the prey and predator columns "
                                                              f"({', '.join(fields[:4])}), so the direction is "
                                                              "known: leave out --direction predator-prey")
            # named (any case): any order
            source, target = fields[lower.index(named[0])], fields[lower.index(named[1])]
        src, dst = position(source, "resource", 0), position(target, "consumer", 1)
        if sep == r"\s+":
            _check_whitespace_names(path, head, header)
        if weight not in (None, "auto"):
            weight = position(weight, None, None)
        elif weight == "auto" and header is not False:
            weight = position(None, next((c for c in ("weight", "flow", "biomass.flow", "diet.fraction")
                                          if c in fields), None), "auto")
        data = io.read_edge_list(path, sep=sep, header=header, source=src, target=dst, weight=weight,
                                 duplicates="merge", reduce="sum", report=True)
    elif fmt == "adjacency":
        _refuse_options(file, "an adjacency matrix (rows and columns are species; --weight keeps its values)",
                        source=source, target=target)
        if convention is None:
            raise ValueError("--format adjacency needs --convention row_to_col (A[i, j] means i -> j) "
                             "or col_to_row (A[i, j] means j -> i)")
        sep = _table_separator("edgelist", data_head(path, "#"))
        data = io.read_adjacency_matrix(path, convention=convention, sep=sep, weighted=weight is not None,
                                        header=header)
    else:
        raise ValueError(f"format={fmt!r}: expected auto, edgelist, csv, pajek, cheddar, gateway or adjacency")
    return _orient(data, direction)


def refuse_table_options(file, what: str, *, direction: str = "prey-predator", source: str | None = None,
                         target: str | None = None, weight: str | None = None, convention: str | None = None) -> None:
    """The options that say how to read a table (``--direction``, ``--source``, ``--target``, ``--weight``,
    ``--convention``), refused for ``file`` when it is ``what`` (a named web, a GATEWAy or cheddar folder): those
    are read as prey -> predator with known columns, and the options would be silently ignored or, for the
    direction, reverse the web."""
    given = [f"--{k} {v}" for k, v, default in (("direction", direction, "prey-predator"), ("source", source, None),
                                                ("target", target, None), ("weight", weight, "auto"),
                                                ("convention", convention, None))
             if v is not None and v != default]
    if given:
        raise ValueError(f"{', '.join(given)}: {file} is {what}, already read as prey -> predator; --direction, "
                         "--source, --target, --weight and --convention apply to table files only (edge list, CSV, "
                         "adjacency matrix): leave them out")


def _refuse_options(file, what: str, **given) -> None:
    """Options of another table format (``--source``/``--target`` name edge-list columns, ``--convention`` reads an
    adjacency matrix) refused for ``file``, which is ``what``: they would be silently ignored."""
    shown = [f"--{k} {v}" for k, v in given.items() if v is not None]
    if shown:
        they = len(shown) > 1
        raise ValueError(f"{', '.join(shown)}: {file} is read as {what}, where {'they do' if they else 'it does'} "
                         f"not apply: leave {'them' if they else 'it'} out, or give --format for another reading")


def _table_separator(fmt: str, lines: list[str]) -> str:
    """``csv``: a comma, else a tab or a semicolon where the lines hold one; ``edgelist`` / ``adjacency``: a tab
    or a comma where a line holds one (then names may hold spaces), else any whitespace."""
    from gatbio.data.tables import sniff_separator

    if _semicolon_table(lines):  # a European spreadsheet's CSV: ';' between fields, ',' the decimal mark
        return ";"
    if fmt == "csv":
        return next((c for c in (",", "\t", ";") if any(c in x for x in lines)), ",")
    return sniff_separator(lines) or r"\s+"


def _semicolon_table(lines: list[str]) -> bool:
    """Every line holds the same number (1 or more) of ``;``, none a tab, and every comma is a decimal mark
    (between two digits): fields separated by semicolons, as spreadsheets write CSV where the comma is the decimal
    mark (``grass;rabbit;0,5``). A comma between names (``grass,rabbit,Smith 2001; Jones 2003``) keeps the
    comma the separator."""
    import re

    return bool(lines) and not any("\t" in x for x in lines) and len({x.count(";") for x in lines}) == 1 \
        and lines[0].count(";") >= 1 and all(x.count(",") == len(re.findall(r"\d,\d", x)) for x in lines)


def _check_whitespace_names(path: Path, head: list[tuple[int, str]], header: bool | None) -> None:
    """A whitespace-separated edge list cannot hold names with spaces ("Daphnia pulex"): such a file would be
    read as links between the words. Refused at the first line that shows it: a row longer than a header row,
    or (no header) a third column of text where weights belong."""
    from gatbio.data.io import MalformedFileError
    from gatbio.data.tables import is_number, looks_like_header

    if not head:
        return
    rows = [x.split() for _, x in head]
    has_header = header if header is not None else looks_like_header(rows[0], rows[1:])
    fix = "species names with spaces need tabs or commas between the columns (or names without spaces, such as " \
          "Daphnia_pulex)"
    if has_header:
        # one unnamed column of numbers after the named ones ('prey predator' above 'grass rabbit 2') is weights
        unnamed_weights = all(len(r) == len(rows[0]) + 1 and is_number(r[-1]) for r in rows[1:])
        for (no, _), row in zip(head[1:], rows[1:], strict=True):
            if len(row) > len(rows[0]) and not unnamed_weights:
                raise MalformedFileError(path, no, f"{len(row)} fields where the header (line {head[0][0]}) names "
                                                   f"{len(rows[0])}: {fix}")
        return

    for (no, _), row in zip(head, rows, strict=True):
        if len(row) > 3:
            raise MalformedFileError(path, no, f"{len(row)} fields, more than 'prey predator [weight]': {fix}")
    if len(rows[0]) == 3 and not is_number(rows[0][2]):  # a column of words where weights belong (a later bad
        # weight under numbers is the weight parser's to name)
        raise MalformedFileError(path, head[0][0], f"field 3 ({rows[0][2]!r}) is not a weight: {fix}")


def _orient(data, direction: str):
    if direction not in ("prey-predator", "predator-prey"):
        raise ValueError(f"direction={direction!r}: expected 'prey-predator' or 'predator-prey'")
    if direction == "predator-prey":
        data.edge_index = data.edge_index.flip(0)
    return data


def read_foodweb(args: argparse.Namespace):
    """The food web named by parsed command-line arguments (``file`` and optionally ``format``, ``direction``,
    ``source``, ``target``, ``weight``, ``unweighted``, ``convention``, ``header``)."""
    weight = None if getattr(args, "unweighted", False) else (getattr(args, "weight", None) or "auto")
    return read_foodweb_file(args.file, getattr(args, "format", "auto"),
                             direction=getattr(args, "direction", "prey-predator"),
                             source=getattr(args, "source", None), target=getattr(args, "target", None),
                             weight=weight, convention=getattr(args, "convention", None),
                             header=getattr(args, "header", None))


def trophic_table(data, method: str = "mackay", weighted: bool = True):
    """A DataFrame: species, trophic_level, prey (in-degree), predators (out-degree); with ``weighted``, links of
    weight 0 do not count (as in :func:`gatbio.ecology.trophic_levels`)."""
    import pandas as pd
    import torch
    from torch_geometric.utils import degree

    from gatbio.ecology import trophic_levels

    h = trophic_levels(data, method, weighted=weighted)
    n = data.num_nodes
    ei, w = data.edge_index, getattr(data, "edge_weight", None)
    if weighted and w is not None:
        ei = ei[:, w.view(-1) > 0]  # a zero-weight link carries no flow: not a link for the levels, nor here
    return pd.DataFrame({
        "species": data.node_names,
        "trophic_level": h.numpy().round(4),
        "prey": degree(ei[1], n, dtype=torch.long).numpy(),
        "predators": degree(ei[0], n, dtype=torch.long).numpy(),
    })


def run(args: argparse.Namespace) -> int:
    from gatbio._paths import check_outputs
    from gatbio.ecology import trophic_incoherence
    from gatbio.results import write_csv

    check_outputs({"--csv": args.csv}, {"FILE": args.file})
    data = read_foodweb(args)
    df = trophic_table(data, args.method, weighted=not args.unweighted)
    if args.sort:
        df = df.sort_values("trophic_level", ascending=False, kind="stable")
    try:
        f0 = f"{trophic_incoherence(data, 'mackay', weighted=not args.unweighted):.4f}"
    except ValueError:  # no link between two species with weight > 0: every species is basal, F0 has no value
        f0 = "undefined (no feeding link between two species)"
    print(f"# {getattr(data, 'name', args.file)}: {data.num_nodes} species, {data.num_edges} links, "
          f"method={args.method}, incoherence F0={f0}")
    print(df.to_string(index=False))
    if args.csv:
        write_csv(args.csv, df)
        print(f"# wrote {args.csv}")
    return 0
