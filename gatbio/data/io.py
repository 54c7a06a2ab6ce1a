"""Readers for the network formats of the field, with validation at the boundary.

Every reader returns a :class:`torch_geometric.data.Data` (or plain tensors / arrays for label tables) that
follows the data contract of :mod:`gatbio.data`: ``edge_index`` (long, ``(2, E)``), ``num_nodes``,
``node_names`` (index-aligned ``list[str]``) and ``name``.

Tables are read by :mod:`gatbio.data.tables` (compression detected by content, exact physical line numbers,
header rows detected unless ``header=True``/``False`` forces it, one weight parser) and parsed with
:func:`pandas.read_csv` (C engine). Pajek is parsed by hand because :func:`networkx.read_pajek` drops partitions
and vectors and does not report line numbers.

Malformed input raises :class:`MalformedFileError` (a :class:`ValueError`) whose message starts with
``<file>:<line>:`` and says what was expected, e.g. ``edges.txt:7: expected 2 columns (source target), found 3``.

Policies shared by the edge readers
-----------------------------------
``duplicates``: what to do with an edge listed more than once (same ordered pair for directed graphs, same
unordered pair for undirected ones, where a row and its mirror image count as one interaction listed twice):
``"keep"`` every row, ``"merge"`` into one edge (weights reduced with ``reduce``, default max) or ``"error"``.

``self_loops``: ``"keep"``, ``"remove"`` or ``"error"``.

Undirected graphs are returned with both directions in ``edge_index`` (PyG convention), a self-loop once.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
import torch
from torch_geometric.data import Data

from gatbio.data.tables import (
    _SEP_WORDS,
    DECOMPRESSION_ERRORS,
    MalformedFileError,
    check_control_characters,
    check_file,
    check_quotes,
    compression_of,
    data_head,
    data_lines,
    decompression_error,
    first_few,
    is_header_word,
    is_number,
    looks_like_header,
    note,
    open_text,
    parse_weights,
    read_table,
    read_text,
    sniff_separator,
    split_fields,
    weight_problem,
)

DuplicatePolicy = Literal["keep", "merge", "error"]
SelfLoopPolicy = Literal["keep", "remove", "error"]

__all__ = [
    "MalformedFileError",
    "read_edge_list",
    "read_sif",
    "read_string_links",
    "read_string_actions",
    "read_protein_pairs",
    "STRING_MODES",
    "read_string_web_export",
    "read_biogrid_tab3",
    "read_label_table",
    "read_gaf",
    "read_pajek",
    "read_pajek_network",
    "refuse_repeated_labels",
    "PajekFile",
    "read_adjacency_matrix",
    "edges_to_data",
    "check_edge_index",
]


def _first_bad_row(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


# Names kept for readers written against the earlier helpers of this module.
_check_file = check_file


def _read_table(path, *, sep: str, header: bool | None, comment: str | None, expected: int | None = None,
                expected_desc: str = "", dtype=None, names=None) -> pd.DataFrame:
    """:func:`gatbio.data.tables.read_table`'s rows as text (a missing field is NaN); ``dtype``/``names`` unused."""
    return read_table(path, sep=sep, header=header, comment=comment, expected=expected,
                      expected_desc=expected_desc).df


# --------------------------------------------------------------------------------------------------------
# arguments from Python (a notebook): checked before anything is read or trained
# --------------------------------------------------------------------------------------------------------


def _kind(value) -> str:
    """What a value is, for a message: ``a pandas DataFrame``, ``a StringIO``, ``a Data``."""
    cls = type(value)
    return "a pandas DataFrame" if isinstance(value, pd.DataFrame) else f"a {cls.__name__}"


def check_path(path, reader: str) -> None:
    """Refuse what is not a path (a table in memory, a StringIO, an open file) in one :class:`TypeError` that
    says what to use instead: the readers name files in their messages and detect compression from the bytes on
    disk, so they take a path only (pathlib's own error did not say so)."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path is {_kind(path)}: {reader} reads a file, so give its path (a str or pathlib.Path); "
                        "for a table already in memory build the graph with gatbio.data.io.edges_to_data(src, dst, "
                        "node_names) (integer ids, e.g. from pandas.factorize)")


def node_ids(values, num_nodes: int | None, what: str) -> np.ndarray:
    """``values`` (any shape) as int64 node indices, or one error naming ``what``: each must be a whole number
    (a float one is read as it is; casting would have turned 1.5 into 1, another graph) in ``0..num_nodes - 1``
    (``None``: non-negative), since an index past the last node is an edge to no node."""
    a = values.detach().cpu().numpy() if torch.is_tensor(values) else np.asarray(values)
    if a.size and (a.dtype == bool or not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating))):
        raise TypeError(f"{what} holds {a.dtype} values: node ids are integers 0..N-1 (indices into the node list; "
                        "for names, code them first, e.g. pandas.factorize)")
    flat = a.reshape(-1)
    if np.issubdtype(a.dtype, np.floating):
        bad = np.flatnonzero(~np.isfinite(flat) | (flat != np.round(flat)))
        if len(bad):
            raise ValueError(f"{what} holds {flat[bad[0]].item()!r} (position {bad[0]}), not a whole number: node ids are "
                             "integers 0..N-1 (indices; they are not rounded)")
    a, flat = a.astype(np.int64), flat.astype(np.int64)
    hi = np.inf if num_nodes is None else num_nodes
    bad = np.flatnonzero((flat < 0) | (flat >= hi))
    if len(bad):
        span = "0 or more" if num_nodes is None else f"0..{num_nodes - 1}"
        raise ValueError(f"{what} holds node id {flat[bad[0]]} (position {bad[0]}), outside {span}"
                         + ("" if num_nodes is None else f" (the graph has {num_nodes} nodes)"))
    return a


def check_edge_index(edge_index, num_nodes: int | None = None, what: str = "edge_index") -> np.ndarray:
    """A user's ``edge_index`` as an int64 ``(2, E)`` array, or one error naming ``what``, what was given and the
    fix: a path or a table (read or build the graph first), an ``(E, 2)`` array (transpose it; it was reshaped
    into another graph before), ids that are not whole numbers in ``0..num_nodes - 1`` (:func:`node_ids`)."""
    if isinstance(edge_index, str | os.PathLike):
        raise TypeError(f"{what} is a path ({str(edge_index)!r}): read the web first and pass the Data: "
                        "gatbio.ecology.commands.read_foodweb_file(path) (any food-web file or folder, as "
                        "`gatbio trophic` reads it), gatbio.data.io.read_edge_list(path) or gatbio.data.load(name)")
    if isinstance(edge_index, pd.DataFrame | pd.Series):
        raise TypeError(f"{what} is {_kind(edge_index)}: give a Data or a (2, E) integer edge_index, e.g. "
                        "gatbio.data.io.edges_to_data(src, dst, node_names) from its id columns, or read the file "
                        "with gatbio.ecology.commands.read_foodweb_file(path)")
    shape = tuple(edge_index.shape) if hasattr(edge_index, "shape") else np.shape(edge_index)
    listed = isinstance(edge_index, list | tuple)  # Python's way to write links: a list of (source, target) pairs
    if listed and shape == (2, 2):
        raise ValueError(f"{what} is a list of two pairs, {list(map(tuple, edge_index))}: two (source, target) "
                         "links, or the two rows of a (2, E) edge_index? Give a tensor or an array: "
                         "torch.tensor(links).t() for a list of links")
    if len(shape) != 2 or shape[0] != 2:
        fix = "" if not (len(shape) == 2 and shape[1] == 2) else \
            " (it looks like a list of (source, target) links: pass torch.tensor(links).t())" if listed else \
            " (it looks like (E, 2): pass edge_index.t())"
        raise ValueError(f"{what} has shape {shape}: expected (2, E), row 0 the sources and row 1 the targets{fix}")
    return node_ids(edge_index, num_nodes, what)


def _check_policies(duplicates: str, self_loops: str, reduce: str) -> None:
    """The edge readers' policies (module docstring), checked before anything is read."""
    for key, value, allowed in (("duplicates", duplicates, ("keep", "merge", "error")),
                                ("self_loops", self_loops, ("keep", "remove", "error")),
                                ("reduce", reduce, ("max", "sum", "mean", "first"))):
        if value not in allowed:
            raise ValueError(f"{key}={value!r}: expected " + ", ".join(map(repr, allowed[:-1]))
                             + f" or {allowed[-1]!r}")


# --------------------------------------------------------------------------------------------------------
# edges → Data
# --------------------------------------------------------------------------------------------------------


def edges_to_data(
    src: np.ndarray,
    dst: np.ndarray,
    node_names: Sequence[str],
    *,
    weight: np.ndarray | None = None,
    directed: bool = True,
    duplicates: DuplicatePolicy = "keep",
    self_loops: SelfLoopPolicy = "keep",
    reduce: Literal["max", "sum", "mean", "first"] = "max",
    name: str = "",
    path: str | Path = "<edges>",
    line_of_row=None,
    stats: dict | None = None,
) -> Data:
    """Build a :class:`Data` from integer endpoint arrays, applying the duplicate and self-loop policies.

    Edge order follows the input rows (the first occurrence of a merged edge keeps its place). For an
    undirected graph each interaction is stored once per direction: the canonical rows first, then their
    mirror images (a self-loop is stored once).

    Args:
        src, dst: ``(E,)`` integer node indices into ``node_names`` (whole numbers in ``0..N-1``, else an error).
        weight: optional ``(E,)`` edge weights (kept as ``edge_weight``, float).
        line_of_row: optional callable ``row -> file line`` for error messages.
        stats: optional dict, filled with ``duplicates`` (rows merged away) and ``self_loops_removed``.
    """
    _check_policies(duplicates, self_loops, reduce)
    n = len(node_names)
    src, dst = node_ids(src, n, "src"), node_ids(dst, n, "dst")
    if src.ndim != 1 or src.shape != dst.shape:
        raise ValueError(f"src has {src.size} ids but dst has {dst.size}: give two (E,) arrays, one id per edge each")
    where = (lambda r: line_of_row(r)) if line_of_row is not None else (lambda r: None)

    loop = src == dst
    if loop.any():
        if self_loops == "error":
            r = _first_bad_row(loop)
            raise MalformedFileError(
                path, where(r),
                f"self-loop {node_names[src[r]]!r} -> {node_names[src[r]]!r} "
                f"({int(loop.sum())} in total); pass self_loops='keep' or 'remove'")
        if self_loops == "remove":
            if stats is not None:
                stats["self_loops_removed"] = int(loop.sum())
            keep = ~loop
            rows = np.flatnonzero(keep)
            src, dst = src[keep], dst[keep]
            weight = weight[keep] if weight is not None else None
            where0 = where
            where = lambda r: where0(int(rows[r]))  # noqa: E731

    a, b = (src, dst) if directed else (np.minimum(src, dst), np.maximum(src, dst))
    key = a * max(n, 1) + b
    if duplicates != "keep" and len(key):
        uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        if len(uniq) < len(key):
            if duplicates == "error":
                pos = np.arange(len(key))
                r = int(pos[first[inverse] != pos][0])  # the first row whose pair was seen before
                what = "edge" if directed else "interaction (in either direction)"
                raise MalformedFileError(
                    path, where(r),
                    f"duplicate {what} {node_names[src[r]]!r} - {node_names[dst[r]]!r} "
                    f"({len(key) - len(uniq)} duplicate rows): remove the repeated line (from Python, "
                    "read_edge_list(..., duplicates='merge') or 'keep' reads it)")
            if stats is not None:
                stats["duplicates"] = len(key) - len(uniq)
            order = np.argsort(first, kind="stable")  # keep first-occurrence order
            if weight is not None:
                w = pd.Series(weight).groupby(inverse).agg(reduce if reduce != "first" else "first")
                weight = w.to_numpy()[order]
            a, b = a[first[order]], b[first[order]]
            if directed:
                src, dst = a, b
            else:
                src, dst = src[first[order]], dst[first[order]]
    if not directed:
        nl = src != dst
        ei = np.concatenate([np.stack([src, dst]), np.stack([dst[nl], src[nl]])], axis=1)
        if weight is not None:
            weight = np.concatenate([weight, weight[nl]])
    else:
        ei = np.stack([src, dst])
    data = Data(edge_index=torch.from_numpy(np.ascontiguousarray(ei)).long(), num_nodes=n)
    data.node_names = list(node_names)
    data.name = name
    if weight is not None:
        data.edge_weight = torch.as_tensor(np.asarray(weight, dtype=np.float32))
    return data


def _names_to_codes(a: np.ndarray, b: np.ndarray, node_names: Sequence[str] | None, path, what_nodes,
                    line_of: Callable[[int], int | None] | None = None, columns: tuple[str, str] | None = None):
    """Map two name columns to codes; with ``node_names`` given, unknown names are an error. With ``columns``
    (their names), an empty name is a :class:`MalformedFileError` at its line (``line_of(row)``): pandas would
    code it -1, an edge to no node."""
    if columns is not None:
        for col, values in zip(columns, (a, b), strict=True):
            empty = pd.isna(values) | (pd.Series(values, dtype=object).fillna("").astype(str).str.strip() == "").to_numpy()
            if empty.any():
                r = _first_bad_row(empty)
                raise MalformedFileError(path, line_of(r) if line_of else None,
                                         f"{col} is empty; each row names two interactors"
                                         + (f" ({int(empty.sum())} rows)" if empty.sum() > 1 else ""))
    if node_names is None:
        # interleave so codes follow first appearance in line order
        both = np.empty(2 * len(a), dtype=object)
        both[0::2], both[1::2] = a, b
        codes, uniques = pd.factorize(both)
        return codes[0::2], codes[1::2], [str(u) for u in uniques]
    index = pd.Index([str(x) for x in node_names])
    if not index.is_unique:
        dup = index[index.duplicated()][0]
        raise ValueError(f"{what_nodes}: node name {dup!r} appears more than once")
    ca, cb = index.get_indexer(a.astype(str)), index.get_indexer(b.astype(str))
    return ca, cb, list(index)


def semicolon_table(lines: Sequence[str]) -> bool:
    """Every line holds the same number (1 or more) of ``;``, none a tab, and every comma is a decimal mark
    (between two digits): fields separated by semicolons, as spreadsheets write CSV where the comma is the decimal
    mark (``grass;rabbit;0,5``). A comma between names (``grass,rabbit,Smith 2001; Jones 2003``) keeps the
    comma the separator."""
    return bool(lines) and not any("\t" in x for x in lines) and len({x.count(";") for x in lines}) == 1 \
        and lines[0].count(";") >= 1 and all(x.count(",") == len(re.findall(r"\d,\d", x)) for x in lines)


def edge_list_separator(lines: Sequence[str]) -> str:
    """The field separator of an edge list (or adjacency matrix) from its first data lines (:func:`data_head`):
    ``;`` for a spreadsheet's semicolon CSV (:func:`semicolon_table`), a tab where a line holds one, a comma where
    a line holds one, else any whitespace (``r"\\s+"``). Commas that are all decimal commas (``1,5``) in a file
    where other lines hold none (``grass deer 1,5`` among whitespace lines) do not make the comma the separator:
    the weight parser then names the decimal comma at its line."""
    if semicolon_table(list(lines)):
        return ";"
    sep = sniff_separator(lines)
    if sep == "," and any("," not in x and len(x.split()) >= 2 for x in lines) \
            and all(x.count(",") == len(re.findall(r"\d,\d", x)) for x in lines):
        return r"\s+"
    return sep or r"\s+"


def split_line(text: str, sep: str) -> list[str]:
    """One line's fields as the edge-list reader reads them: :func:`gatbio.data.tables.split_fields`, except that
    whitespace-separated fields may be quoted (``"Daphnia pulex" fish``: two fields)."""
    if sep in (r"\s+", " +") and '"' in text:
        return [q if q or not w else w for q, w in re.findall(r'"([^"]*)"|(\S+)', text)] if text.count('"') % 2 == 0 \
            else text.split()
    return split_fields(text, sep)


def read_edge_list(
    path: str | Path,
    *,
    sep: str | None = None,
    header: bool | None = None,
    comment: str | None = "#",
    source: int | str = 0,
    target: int | str = 1,
    weight: int | str | None = None,
    directed: bool = True,
    numeric_ids: bool = False,
    index_base: int = 0,
    num_nodes: int | None = None,
    node_names: Sequence[str] | None = None,
    duplicates: DuplicatePolicy = "keep",
    self_loops: SelfLoopPolicy = "keep",
    reduce: Literal["max", "sum", "mean", "first"] = "max",
    name: str | None = None,
    report: bool = False,
    extra_columns: Literal["note", "error", "ignore"] = "note",
    comment_note: bool = False,
) -> Data:
    """Read an edge list (CSV / TSV / whitespace, optional header, comments, weights; any compression).

    Args:
        path: the file.
        sep: column separator: ``","`` for CSV, ``"\\t"`` for TSV, ``r"\\s+"`` for any whitespace; ``None``
            (default): detected from the first lines as the command-line readers do
            (:func:`edge_list_separator`: a tab on every line, else a comma on any line makes it the separator,
            so that names may hold spaces; else whitespace, where a field may be quoted: ``"Daphnia pulex"``).
        header: ``True``: the first non-comment line names the columns; ``False``: it is data; ``None``
            (default): detected (:mod:`gatbio.data.tables`; what was decided is said on stderr).
        comment: lines starting with this are skipped.
        comment_note: also say how many were skipped, and the first one's line, in one note: for a format that
            documents no comments (a CSV food web), where such a line may be a species named ``#...``.
        source, target, weight: column positions (or names, with a header). ``weight="auto"``: the third
            column when the file has one and it holds numbers (a third column of text is ignored, with a note).
            Weights go through :func:`gatbio.data.tables.parse_weights` (finite numbers ``>= 0``).
        directed: ``False`` stores both directions of each interaction.
        numeric_ids: ids are integers ``index_base .. index_base + N - 1`` and the node index is
            ``id - index_base`` (node order = id order); otherwise ids are names, indexed in order of
            first appearance (or by position in ``node_names`` when given; unknown names are an error).
        num_nodes: with ``numeric_ids``, the number of nodes (default: largest id + 1 - index_base).
        node_names: names of all nodes (isolated ones included).
        duplicates, self_loops, reduce: see the module docstring.
        name: stored as ``data.name`` (default: the file stem).
        report: say on stderr how many duplicate rows were merged and self-loops removed.
        extra_columns: what to do with columns that are neither ``source``, ``target`` nor ``weight`` (a notes
            column, a year): ``"note"`` (default: read without them, and say so on stderr), ``"error"``, or
            ``"ignore"`` (silently: for a caller that said it).

    Returns:
        :class:`Data` with ``edge_index``, ``num_nodes``, ``node_names``, ``name`` and ``edge_weight``
        when ``weight`` is given. Edges keep the file's line order.
    """
    check_path(path, "read_edge_list")
    _check_policies(duplicates, self_loops, reduce)
    if extra_columns not in ("note", "error", "ignore"):
        raise ValueError(f"extra_columns={extra_columns!r}: expected 'note', 'error' or 'ignore'")
    if sep is None:
        head = data_head(path, comment)
        sep = edge_list_separator(head)
        if sep == "\t" and not all("\t" in x for x in head):  # tabs on some lines only: any whitespace, as before
            sep = r"\s+"
    auto_weight = weight == "auto"
    cols = [source, target] + ([weight] if weight is not None and not auto_weight else [])
    ncols_needed = (max(c for c in cols if isinstance(c, int)) + 1) if all(isinstance(c, int) for c in cols) else None
    desc = " (source target" + (" weight" if weight is not None and not auto_weight else "") + ")"
    known = None
    if node_names is not None:
        known_set = set(map(str, node_names))
        known = known_set.__contains__
    table = read_table(path, sep=sep, header=header, comment=comment, expected=ncols_needed, expected_desc=desc,
                       name_columns=[c for c in (source, target) if isinstance(c, int)] if not numeric_ids else (),
                       known_names=known, numeric_columns=[source, target] if numeric_ids else (),
                       comment_note=comment_note)
    path = table.path
    s, t = table.column(source), table.column(target)
    missing = (s.isna() | t.isna()).to_numpy()
    if missing.any():
        r = _first_bad_row(missing)
        which = "source" if pd.isna(s.iloc[r]) else "target"
        col = source if which == "source" else target
        if _field_is_empty(table, sep, r, col):  # ',fox': the field is there, with nothing in it
            raise MalformedFileError(path, table.line(r), f"{which} (column "
                                                          f"{_position(table, col) + 1}) is empty: each row names "
                                                          "a source and a target")
        raise MalformedFileError(path, table.line(r), f"expected {len(cols)} columns{desc}, found fewer")
    line_of_row = table.line
    if numeric_ids:
        a = table.integers(source, "source id") - index_base
        b = table.integers(target, "target id") - index_base
        bad = (a < 0) | (b < 0)
        if bad.any():
            r = _first_bad_row(bad)
            raise MalformedFileError(path, line_of_row(r),
                                     f"node id below index_base={index_base} "
                                     f"(ids must be {index_base}..N-1+{index_base})")
        n = int(num_nodes) if num_nodes is not None else int(max(a.max(), b.max())) + 1
        if node_names is not None:
            n = len(node_names)
        over = (a >= n) | (b >= n)
        if over.any():
            r = _first_bad_row(over)
            raise MalformedFileError(path, line_of_row(r),
                                     f"node id {max(a[r], b[r]) + index_base} is out of range for "
                                     f"{n} nodes (ids {index_base}..{n - 1 + index_base})")
        names = list(node_names) if node_names is not None else [str(i + index_base) for i in range(n)]
    else:
        a, b, names = _names_to_codes(s.to_numpy(), t.to_numpy(), node_names, path, path)
        bad = (a < 0) | (b < 0)
        if bad.any():
            unknown = sorted(set(s.to_numpy()[a < 0]) | set(t.to_numpy()[b < 0]))
            r = _first_bad_row(bad)
            raise MalformedFileError(path, line_of_row(r),
                                     f"{len(unknown)} node(s) not in node_names, e.g. {unknown[:5]}")
    noted: set[int] = set()
    if auto_weight:
        weight = _auto_weight_column(table, source, target)
        if weight is None and table.df.shape[1] >= 3 and all(isinstance(c, int) for c in (source, target)):
            noted.add(next(c for c in range(table.df.shape[1]) if c not in (source, target)))  # said: no numbers
    if weight is not None:
        values = table.column(weight)
        empty = values.isna().to_numpy()
        if empty.any() and _field_is_empty(table, sep, _first_bad_row(empty), weight):  # 'grass,rabbit,'
            r = _first_bad_row(empty)
            raise MalformedFileError(path, table.line(r), f"weight (column {_position(table, weight) + 1}) is "
                                                          "empty: write the link's weight (0: no flow), or leave "
                                                          "out the separator after the names")
    w = table.weights(weight) if weight is not None else None
    if extra_columns != "ignore":
        _extra_columns(table, [c for c in (source, target, weight) if c is not None], noted, extra_columns)
    stats: dict[str, int] = {}
    data = edges_to_data(a, b, names, weight=w, directed=directed, duplicates=duplicates,
                         self_loops=self_loops, reduce=reduce, name=name or path.stem, path=path,
                         line_of_row=line_of_row, stats=stats)
    if report:
        report_changes(path, stats, directed, reduce if w is not None else None)
    return data


def read_sif(
    path: str | Path,
    *,
    directed: bool = False,
    duplicates: DuplicatePolicy = "keep",
    self_loops: SelfLoopPolicy = "keep",
    name: str | None = None,
    report: bool = False,
) -> Data:
    """Read a Cytoscape SIF file: ``source type target [target ...]`` per line, one edge per target (the
    interaction type is not kept); a line holding a name alone is a node without interactions, and so is a
    protein whose only line is a self-loop (``a pp a``) when ``self_loops="remove"`` (it stays, named). Fields are
    tab-separated when the line has a tab (names may then hold spaces), else whitespace-separated; blank and
    ``#`` lines are skipped. Written here because :func:`read_table` needs one column count for the whole file,
    and SIF lines list any number of targets. ``directed``, ``duplicates``, ``self_loops``, ``name`` and
    ``report``: as in :func:`read_edge_list`."""
    path = check_file(path)
    text, numbers = data_lines(read_text(path), "#")
    check_control_characters(path, text, numbers)
    src, dst, rows, alone = [], [], [], []
    for line_no, line in zip(numbers.tolist(), text.split("\n") if text else [], strict=True):
        fields = [f.strip() for f in line.split("\t")] if "\t" in line else line.split()
        if not fields[0]:
            raise MalformedFileError(path, line_no, "the source field is empty; each line starts with a name")
        targets = [f for f in fields[2:] if f]
        if len(fields) == 1:
            alone.append(fields[0])
        elif not targets:
            raise MalformedFileError(path, line_no, f"expected 'source type target [target ...]', found "
                                                    f"{len(fields)} fields")
        src += [fields[0]] * len(targets)
        dst += targets
        rows += [line_no] * len(targets)
    a, b, names = _names_to_codes(np.array(src, dtype=object), np.array(dst, dtype=object), None, path, path)
    known = set(names)
    names += [n for n in dict.fromkeys(alone) if n not in known]
    stats: dict[str, int] = {}
    data = edges_to_data(a, b, names, directed=directed, duplicates=duplicates, self_loops=self_loops,
                         name=name or path.stem, path=path, line_of_row=rows.__getitem__, stats=stats)
    if report:
        report_changes(path, stats, directed, None)
    return data


def _position(table, col: int | str) -> int:
    """The 0-based position of column ``col`` (a position, or a header name) of ``table``."""
    return col if isinstance(col, int) else int(table.df.columns.get_loc(col))


def _field_is_empty(table, sep: str, row: int, col: int | str) -> bool:
    """Whether the missing value of ``row`` in ``col`` is an empty field (``grass,rabbit,``, ``,fox``) rather than
    a line with too few fields (read again from the file: only on the way to an error)."""
    if sep in (r"\s+", " +"):  # whitespace has no empty fields
        return False
    line = table.line(row)
    if line is None:
        return False
    raw = read_text(table.path).split("\n")[line - 1].rstrip("\r")
    return len(split_line(raw, sep)) > _position(table, col)


def _extra_columns(table, used: Sequence[int | str], noted: set[int], action: str) -> None:
    """Columns other than ``used`` (and those already ``noted``) that hold something: a note naming them, or
    (``action="error"``) an error at the first line that has one."""
    taken = {_position(table, c) for c in used} | noted
    extra = [c for c in range(table.df.shape[1]) if c not in taken and table.df.iloc[:, c].notna().any()]
    if not extra:
        return
    head = table.header or []
    shown = ", ".join(f"{c + 1} ({head[c]!r})" if c < len(head) and head[c] else str(c + 1) for c in extra[:5]) \
        + (", ..." if len(extra) > 5 else "")
    what = f"column{'s' if len(extra) > 1 else ''} {shown}"
    if action == "error":
        r = _first_bad_row(table.df.iloc[:, extra].notna().any(axis=1).to_numpy())
        raise MalformedFileError(table.path, table.line(r), f"{what}: more columns than source, target and weight "
                                                            "(pass extra_columns='note' to read without them)")
    note(f"{table.path}: {what} not read (read: the source, the target{' and the weight' if len(used) > 2 else ''}"
         f"{'' if len(used) > 2 else '; weight=COLUMN reads one as weights'})")


def _auto_weight_column(table, source, target) -> int | None:
    """``weight="auto"``: the third column, when it holds at least one number (then every value must be a
    valid weight); a third column of text only is ignored, with a note."""
    if table.df.shape[1] < 3 or not all(isinstance(c, int) for c in (source, target)):
        return None
    col = next(c for c in range(table.df.shape[1]) if c not in (source, target))
    values = table.column(col)
    if pd.to_numeric(values, errors="coerce").notna().any() or values.str.lower().isin(["nan", "inf", "-inf"]).any():
        return col
    note(f"{table.path}: column {col + 1} holds no numbers ({values.iloc[0]!r} on line {table.line(0)}): not read "
         "as weights, ignored")
    return None


def report_changes(path, stats: dict[str, int], directed: bool, reduce: str | None) -> None:
    """One line per policy that changed the rows (duplicates merged, self-loops removed)."""
    k = stats.get("duplicates", 0)
    if k:
        what = ("link" if directed else "interaction") + ("s" if k > 1 else "")
        mirror = "" if directed else " (a row and its mirror image are one interaction)"
        # "counted once" alone read as if the weights were too, when they are summed (or averaged...)
        how = {"sum": "; their weights summed", "mean": "; their weights averaged", "max": "; the largest weight kept",
               "first": "; the first row's weight kept"}.get(reduce, f"; weights: {reduce}" if reduce else "")
        note(f"{path}: {k} duplicate {what} merged, each counted once{mirror}{how}")
    if stats.get("self_loops_removed"):
        note(f"{path}: {stats['self_loops_removed']} self-loop(s) removed")


# --------------------------------------------------------------------------------------------------------
# STRING, BioGRID
# --------------------------------------------------------------------------------------------------------


def read_string_links(
    path: str | Path,
    *,
    min_score: int = 0,
    score_column: str = "combined_score",
    self_loops: SelfLoopPolicy = "remove",
    name: str | None = None,
) -> Data:
    """Read a STRING ``protein.links`` file (``protein1 protein2 combined_score``, space separated).

    STRING lists every interaction in both directions; the result is undirected with one entry per direction
    (duplicates merged, score = max), interactions ordered by node pair, nodes sorted by protein id.
    Self-loops are removed by default. ``edge_weight`` is ``combined_score / 1000``. Rows with a score below
    ``min_score`` (STRING's 0–1000 scale; 400 = "medium", 700 = "high confidence") are dropped.
    Also reads the ``protein.links.detailed`` / ``full`` variants (only the three columns are used).
    """
    path = check_file(path)
    head = read_text_head(path).split(" ")
    if len(head) < 3 or head[0] != "protein1" or head[1] != "protein2" or score_column not in head:
        first = head[0].split("\t")
        words = " ".join(head).split()
        hint = ("; this is a STRING actions file (the modes of each interaction): gatbio protein interactions reads "
                "it" if first[:2] == ["item_id_a", "item_id_b"] else
                "; this is a STRING web export (string_interactions.tsv): --format string-web reads it"
                if first[:2] == ["#node1", "node2"] else
                "; its columns are separated by tabs, STRING's by spaces: read it as a tab-separated edge list "
                "(--format tsv), or put spaces between the columns" if first[:2] == ["protein1", "protein2"] else
                "; the file has no header line: add 'protein1 protein2 combined_score' as its first line, or read it "
                "as a plain edge list (--format edgelist: 'a b [score]' lines)"
                if len(words) == 3 and is_number(words[2]) else "")
        raise MalformedFileError(path, 1, f"expected the header 'protein1 protein2 ... {score_column}' "
                                          f"(space separated), found {' '.join(head)[:120]!r}{hint}")
    # Fast path: C engine, only the needed columns, dtype hints (stays within ~2x of a bare read_csv).
    try:
        # The C parser builds the categorical codes straight from its token buffer (no Python string
        # objects), in one pass (low_memory=False): as fast as a bare read_csv, 2-3x faster than
        # parsing to strings and factorizing them afterwards.
        df = pd.read_csv(path, sep=" ", usecols=["protein1", "protein2", score_column], engine="c",
                         dtype={"protein1": "category", "protein2": "category", score_column: np.int32},
                         low_memory=False, compression=compression_of(path),
                         keep_default_na=False, na_values=[""])  # a protein named NA is a name, not a gap
    except DECOMPRESSION_ERRORS as err:  # a cut-short download: pandas would show gzip's traceback
        raise decompression_error(path, err) from None
    except (ValueError, TypeError) as err:
        _string_links_problem(path, head, score_column)  # slow path, only on bad input: the offending line
        raise MalformedFileError(path, None, f"could not parse: {err}") from err
    score = df[score_column].to_numpy()
    if df[["protein1", "protein2"]].isna().any(axis=None) or (len(score) and (score.min() < 0 or score.max() > 1000)):
        _string_links_problem(path, head, score_column)
    c1, c2 = df["protein1"].cat, df["protein2"].cat
    uniques = c1.categories.union(c2.categories)  # sorted protein ids
    a = uniques.get_indexer(c1.categories).astype(np.int64)[c1.codes.to_numpy()]  # (E,) node index
    b = uniques.get_indexer(c2.categories).astype(np.int64)[c2.codes.to_numpy()]
    if min_score:
        keep = score >= min_score
        a, b, score = a[keep], b[keep], score[keep]
        used = np.unique(np.concatenate([a, b]))  # drop proteins left without an interaction
        remap = np.full(len(uniques), -1)
        remap[used] = np.arange(len(used))
        a, b, uniques = remap[a], remap[b], uniques[used]
    if self_loops != "keep":
        loop = a == b
        if loop.any() and self_loops == "error":
            r = _first_bad_row(loop)
            raise MalformedFileError(path, None, f"self-loop {uniques[a[r]]!r} ({int(loop.sum())} in total); "
                                                 "pass self_loops='keep' or 'remove'")
        a, b, score = a[~loop], b[~loop], score[~loop]
    # Merge the two listings of each interaction (and any duplicates): pack (canonical pair, score) into one
    # int64, sort the values (faster than an argsort), keep the last -- highest score -- entry of each pair.
    # Hand-written because the generic first-occurrence merge of edges_to_data is 2-3x slower at this size.
    n = len(uniques)
    if len(score) == 0:
        raise MalformedFileError(path, None, f"no interactions left with {score_column} >= {min_score}")
    lo = np.minimum(a, b)
    packed = np.sort((lo * n + (a + b - lo)) << 10 | score)  # (E,) int64: pair key, then score (< 1024)
    key = packed >> 10
    last = np.flatnonzero(np.r_[key[1:] != key[:-1], True])
    w = (packed[last] & 1023).astype(np.float32) / 1000.0
    src, dst = key[last] // n, key[last] % n
    nl = src != dst
    ei = np.concatenate([np.stack([src, dst]), np.stack([dst[nl], src[nl]])], axis=1)
    data = Data(edge_index=torch.from_numpy(ei), num_nodes=n)
    data.node_names = uniques.tolist()
    data.name = name or path.name
    data.edge_weight = torch.from_numpy(np.concatenate([w, w[nl]]))
    return data


def _string_links_problem(path: Path, head: list[str], score_column: str) -> None:
    """Raise at the first bad line of a STRING links file (the slow, exact reading)."""
    table = read_table(path, sep=" ", header=True, comment=None, expected=len(head),
                       expected_desc=" (space separated: " + " ".join(head) + ")")
    empty = (table.column("protein1").isna() | table.column("protein2").isna()).to_numpy()
    if empty.any():
        raise MalformedFileError(path, table.line(_first_bad_row(empty)),
                                 "expected 3 space-separated columns (protein1 protein2 score)")
    score = table.integers(score_column, score_column)
    bad = (score < 0) | (score > 1000)
    if bad.any():
        r = _first_bad_row(bad)
        raise MalformedFileError(path, table.line(r), f"{score_column} must be in 0..1000 (STRING scale), found {score[r]}")


def read_text_head(path: Path) -> str:
    """The first line of a (possibly compressed) text file, without its line end (a file that is not UTF-8 text:
    :func:`read_text`'s message with ``file:line``)."""
    try:
        with open_text(path) as fh:
            return fh.readline().rstrip("\r\n")
    except UnicodeDecodeError:
        read_text(path)  # the readers' one line: file:line of the first byte that is not UTF-8
        raise
    except DECOMPRESSION_ERRORS as err:
        raise decompression_error(path, err) from None


#: The seven interaction modes of STRING ``protein.actions`` files, in a fixed order.
STRING_MODES = ("activation", "binding", "catalysis", "expression", "inhibition", "ptmod", "reaction")

#: Bit flags of ``pair_direction`` (:func:`read_string_actions`): how the rows of one pair and mode were directed.
DIRECTION_UNDIRECTED, DIRECTION_FORWARD, DIRECTION_BACKWARD = 1, 2, 4


def read_string_actions(path: str | Path, *, min_score: int = 0, name: str | None = None) -> Data:
    """Read a STRING ``protein.actions`` file (tab separated, as in SHS27k).

    Columns ``item_id_a item_id_b mode action is_directional a_is_acting score``. Proteins are numbered in order of
    first appearance (``item_id_a`` before ``item_id_b`` on each row), interacting pairs in order of first
    appearance of the unordered pair: the numbering of GNN-PPI (Lv et al. 2021), so that pair indices of its split
    files mean the same pairs here.

    The pair table (what interaction-type prediction uses):

    - ``pairs``: long ``(P, 2)``, the two proteins of each unordered pair (lower protein index first);
    - ``pair_modes``: float ``(P, 7)``, multi-hot of the modes of the pair's rows, OR-ed over rows, **undirected**
      (order :data:`STRING_MODES`, names in ``mode_names``): the SHS27k multi-label interaction-type target;
    - ``pair_score``: float ``(P,)``, the pair's maximum ``score / 1000``;
    - ``pair_direction``: uint8 ``(P, 7)``, per pair and mode the directions its rows gave, as bit flags:
      :data:`DIRECTION_UNDIRECTED` (1: a row with ``is_directional = f``), :data:`DIRECTION_FORWARD` (2: an action
      ``pairs[p, 0] → pairs[p, 1]``) and :data:`DIRECTION_BACKWARD` (4: ``pairs[p, 1] → pairs[p, 0]``); 0 where
      the mode is absent. A directional row (``is_directional = t``) acts from ``item_id_a`` to ``item_id_b``
      when ``a_is_acting = t``, and from b to a when ``a_is_acting = f`` (STRING lists a directed action twice,
      once from each side); ``a_is_acting`` of an undirected row carries no direction and is ignored.
      6 = both directions. The label stays undirected: direction is kept as information only.

    The graph: ``edge_index`` holds each pair once per direction (the ``P`` pairs in order, then their mirror
    images), with ``edge_mode`` (``(2P, 7)``, ``pair_modes`` repeated) and ``edge_weight`` (``pair_score``
    repeated). Rows below ``min_score`` are dropped before anything is numbered.

    Raises:
        MalformedFileError: a wrong header, a row with too few columns, an unknown mode, a flag other than ``t`` /
            ``f``, or a score that is not an integer in 0-1000 (``file:line``); a line that is no row at all (a
            ``#`` comment, which STRING files do not have, the header repeated, spaces or commas for tabs) is
            named as such.
    """
    from typing import NoReturn

    path = check_file(path)
    expected = ["item_id_a", "item_id_b", "mode", "action", "is_directional", "a_is_acting", "score"]
    first = read_text_head(path).removeprefix("\ufeff").split()
    if first[:2] == ["protein1", "protein2"]:
        raise MalformedFileError(path, 1, "is a STRING protein.links file (header 'protein1 protein2 ...'), which "
                                          "has no interaction modes: give a protein.actions file (header "
                                          f"{' '.join(expected)!r})")
    if len(first) >= 3 and first[2] in STRING_MODES:
        raise MalformedFileError(path, 1, f"the header line is missing (line 1 is a row: mode {first[2]!r}): add "
                                          f"the line {' '.join(expected)!r}, tab-separated, at the top")
    header_line = 1  # (the header's line once read: blank lines may come first)

    def line_problem(fields: list[str]) -> str | None:
        """What makes a line (its tab-separated ``fields``) no row of a STRING actions file at all (a comment, the
        header again, a line not separated by tabs), when it is that: said instead of the column check it fails."""
        fields = [f.strip() for f in fields] + [""] * (7 - len(fields))
        if fields[0].startswith("#"):
            return ("this line starts with '#' (a comment?): STRING protein.actions files have no comment lines; "
                    "delete it")
        if " ".join(fields).lstrip("\ufeff").split() == expected:
            return (f"a repeated header line (two files joined?; the header is line {header_line}): "
                    "delete it")
        if any(re.search(r"\s", f) for f in fields):
            return ("this line is not tab-separated (spaces?): STRING protein.actions files separate their 7 "
                    "columns by tabs; replace the spaces between the fields by tabs")
        if any(c in fields[0] for c in ",;") and not all(fields[1:]):
            other = "commas" if "," in fields[0] else "semicolons"
            return (f"this line is not tab-separated ({other}?): STRING protein.actions files separate their 7 "
                    f"columns by tabs; replace the {other} by tabs")
        return None

    head = read_text_head(path).removeprefix("\ufeff")
    if "\t" not in head and re.split(r"[\s,;]+", head.strip()) == expected:  # a CSV, or spaces for tabs
        other = "commas" if "," in head else "semicolons" if ";" in head else "spaces"
        raise MalformedFileError(path, 1, f"the header line is not tab-separated ({other}?): STRING protein.actions "
                                          f"files separate their 7 columns by tabs; replace the {other} by tabs (in "
                                          "the whole file)")
    try:
        table = read_table(path, sep="\t", header=True, comment=None, expected=7,
                           expected_desc=" (" + " ".join(expected) + ")")
    except MalformedFileError as err:  # a row of another length: a comment, or a line not separated by tabs?
        if err.line is None or err.line < 2:
            raise
        why = line_problem(read_text(path).split("\n")[err.line - 1].split("\t"))
        if why is None:
            raise
        raise MalformedFileError(path, err.line, why) from None
    df, header_line = table.df, table.header_line
    if [str(c) for c in df.columns[:7]] != expected:
        if " ".join(table.header or []).split() == expected:  # the header's names, separated by spaces
            raise MalformedFileError(path, table.header_line, "the header line is not tab-separated (spaces?): "
                                     "STRING protein.actions files separate their 7 columns by tabs; replace the "
                                     "spaces between the fields by tabs")
        raise MalformedFileError(path, table.header_line,  # the header's fields as written (df numbers empty ones)
                                 f"expected the header {' '.join(expected)!r} (tab-separated), found "
                                 f"{' '.join(table.header or [])!r}")

    def refuse(r: int, message: str) -> NoReturn:
        """Raise ``message`` at row ``r``, or the problem of the first row up to ``r`` that is no row at all (a
        comment, a repeated header, spaces for tabs): the column checks would misname it (``item_id_b is
        empty`` for a line read whole as item_id_a, ``score must be an integer, found 'score'``)."""
        upto = df.iloc[:r + 1]
        ids = upto["item_id_a"].fillna("").astype(str)
        # only rows that may be no row at all: a line read whole (or nearly) as item_id_a leaves item_id_b or the
        # score empty; not any row with an empty field (STRING's action column is empty on most rows: a loop over
        # them took seconds on a real file)
        odd = (upto["score"].isna() | upto["item_id_b"].isna() | ids.str.startswith("#")
               | ids.str.contains(r"\s|item_id_a")).to_numpy()
        for k in np.flatnonzero(odd).tolist() + [r]:
            why = line_problem(["" if pd.isna(v) else str(v) for v in df.iloc[int(k), :7]])
            if why is not None:
                raise MalformedFileError(path, table.line(int(k)), why)
        raise MalformedFileError(path, table.line(r), message)

    commented = df["item_id_a"].str.startswith("#", na=False).to_numpy()  # a row commented out: read as '#P1'
    if commented.any():
        refuse(_first_bad_row(commented), "this line starts with '#'")
    for col in ("item_id_a", "item_id_b"):
        bad = df[col].isna().to_numpy() | (df[col].fillna("") == "").to_numpy()
        if bad.any():
            refuse(_first_bad_row(bad), f"{col} is empty; each row names two proteins")
    try:
        score = table.integers("score", "score")
    except MalformedFileError as err:
        if err.line is None:
            raise
        refuse(int(np.flatnonzero(table.lines == err.line)[0]), err.message)
    out_of_scale = (score < 0) | (score > 1000)
    if out_of_scale.any():
        r = _first_bad_row(out_of_scale)
        refuse(r, f"score {int(score[r])} is outside STRING's 0-1000 scale"
               + (f" ({int(out_of_scale.sum())} rows)" if out_of_scale.sum() > 1 else ""))
    bad_mode = ~df["mode"].isin(STRING_MODES).to_numpy()
    if bad_mode.any():
        r = _first_bad_row(bad_mode)
        found = df["mode"].iloc[r]
        what = "the mode field is empty" if pd.isna(found) or not str(found).strip() else f"unknown mode {found!r}"
        refuse(r, f"{what}; expected one of {', '.join(STRING_MODES)}")
    for col in ("is_directional", "a_is_acting"):
        bad = ~df[col].isin(("t", "f")).to_numpy()
        if bad.any():
            r = _first_bad_row(bad)
            refuse(r, f"{col} must be 't' or 'f', found {df[col].iloc[r]!r}")
    keep = score >= min_score
    df, score = df[keep], score[keep]
    if not len(df):
        raise MalformedFileError(path, None, f"no row has a score >= min_score={min_score}")
    a, b, names = _names_to_codes(df["item_id_a"].to_numpy(), df["item_id_b"].to_numpy(), None, path, path)
    selves = int((a == b).sum())
    if selves:
        note(f"{path}: {selves} row(s) of a protein with itself (e.g. {names[a[a == b][0]]}, line "
             f"{table.line(int(df.index[np.flatnonzero(a == b)[0]]))}): kept as pairs, their modes learnt like any other pair's")
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    key = lo * len(names) + hi
    uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    pair = rank[inverse]  # pair index in first-appearance order, per row
    mode = pd.Categorical(df["mode"], categories=STRING_MODES).codes
    modes = np.zeros((len(uniq), len(STRING_MODES)), dtype=np.float32)
    modes[pair, mode] = 1.0
    w = np.zeros(len(uniq), dtype=np.float32)
    np.maximum.at(w, pair, score.astype(np.float32) / 1000.0)
    src, dst = lo[first[order]], hi[first[order]]
    # direction flags: the acting protein of a directional row is a (a_is_acting = t) or b
    directional = (df["is_directional"] == "t").to_numpy()
    actor = np.where((df["a_is_acting"] == "t").to_numpy(), a, b)
    flag = np.where(~directional, DIRECTION_UNDIRECTED,
                    np.where(actor == src[pair], DIRECTION_FORWARD, DIRECTION_BACKWARD)).astype(np.uint8)
    direction = np.zeros((len(uniq), len(STRING_MODES)), dtype=np.uint8)
    np.bitwise_or.at(direction, (pair, mode), flag)
    data = edges_to_data(src, dst, names, weight=w, directed=False, name=name or path.name, path=path)
    nl = src != dst
    data.edge_mode = torch.from_numpy(np.concatenate([modes, modes[nl]]))
    data.mode_names = list(STRING_MODES)
    data.pairs = torch.from_numpy(np.stack([src, dst], axis=1)).long()  # (P, 2)
    data.pair_modes = torch.from_numpy(modes)  # (P, 7)
    data.pair_score = torch.from_numpy(w)  # (P,)
    data.pair_direction = torch.from_numpy(direction)  # (P, 7)
    return data


def read_protein_pairs(path: str | Path, node_names: Sequence[str], *, header: bool | None = None,
                       sep: str | None = None, comment: str | None = "#",
                       outside: Mapping[str, str] | None = None, network: int | None = None,
                       elsewhere: str = "") -> tuple[torch.Tensor, list[tuple[str, str]]]:
    """A user's protein pairs: two protein ids per line (whitespace, tab or comma separated; further columns, the
    same number on every line, are not read, which a note says).

    ``outside``: proteins known to the caller but not usable as given, each with the reason and its fix (e.g.
    "differs from the network's 'P0' only by case: write 'P0'"): such a protein is named with that reason, not
    with names like it. ``network``: the size of the interaction network when ``node_names`` also holds other proteins
    (sequence-only ones, listed after it), and ``elsewhere`` where those come from (e.g. " nor in --sequences"):
    both for the message naming an unknown protein.

    ``header=None`` detects a header row (:mod:`gatbio.data.tables`: header words such as ``protein_a protein_b``
    that name no protein). Every protein must be one of ``node_names``.

    Returns:
        ``(pairs, names)``: long ``(P, 2)`` indices into ``node_names`` in file order, and the pairs as written.

    Raises:
        MalformedFileError: a line with fewer than two fields, or a protein not in ``node_names`` (``file:line``,
            with the closest known names and the number of unknown proteins).
    """
    import difflib

    path = check_file(path)
    if sep is None:
        # A tab-separated table (the same number of tabs on every line of its head: a STRING actions excerpt, a
        # spreadsheet's TSV) keeps its columns, empty fields included; where tabs and spaces are mixed, as
        # hand-made files have them, both separate (protein ids hold no whitespace).
        head = data_head(path, comment)
        sep = ";" if semicolon_table(head) else sniff_separator(head) or r"\s+"  # ';': a spreadsheet's CSV
        if sep == "\t" and len({line.count("\t") for line in head}) > 1:
            sep = r"\s+"
    index = {str(n): i for i, n in enumerate(node_names)}
    table = read_table(path, sep=sep, header=header, comment=comment, name_columns=(0, 1),
                       known_names=index.__contains__, expected=2, expected_desc=" (protein_a protein_b)")
    df = table.df
    if table.header is not None and len(table.header) >= 3 and str(table.header[0]).strip() == "" \
            and all(str(h).strip() for h in table.header[1:3]):
        # R's write.csv writes row names as an unnamed first column ('"","protein_a","protein_b"'): the pairs follow
        note(f"{path}: the header's first column is unnamed (row names, as R's write.csv writes them): proteins "
             f"read from columns {table.header[1]!r} and {table.header[2]!r}")
        df = df.iloc[:, 1:]
    a, b = df.iloc[:, 0].fillna("").astype(str).to_numpy(), df.iloc[:, 1].fillna("").astype(str).to_numpy()
    ia = np.array([index.get(x, -1) for x in a], dtype=np.int64)
    ib = np.array([index.get(x, -1) for x in b], dtype=np.int64)
    bad = (ia < 0) | (ib < 0)
    if bad.any():
        r = _first_bad_row(bad)
        who = a[r] if ia[r] < 0 else b[r]
        if who == "":
            raise MalformedFileError(path, table.line(r), "expected two protein ids on this line" +
                                     (" (its first two tab-separated fields; one is empty)" if sep == "\t" else ""))
        if any(ch in who for ch in " \t,;|"):
            raise MalformedFileError(path, table.line(r), f"{who!r} was read as one protein id: this line is not "
                                                          f"separated like the file's other lines (by "
                                                          f"{_SEP_WORDS.get(sep, repr(sep))}); use one separator "
                                                          "in the whole file")
        if outside and who in outside:  # a protein known, but not usable as written: the reason and its fix
            raise MalformedFileError(path, table.line(r), f"protein {who!r} {outside[who]}")
        header_hint = ""
        if r == 0 and header is None and table.header is None and ia[0] < 0 and ib[0] < 0 and not (
                outside and b[0] in outside):
            # line 1 naming no protein, in words that look like column names: a header of its own words ('a b',
            # 'bait prey') the detection cannot know; not two unknown ids (another STRING version's)
            pair = (a[0], b[0])
            named = all(is_header_word(x) or re.fullmatch(r"[A-Za-z][A-Za-z_]*", x) for x in pair) \
                and any(is_header_word(x) or len(x) == 1 for x in pair)
            if named and len(a) > 1 and not bad[1:].any():
                raise MalformedFileError(path, table.line(0), f"neither {a[0]!r} nor {b[0]!r} is a protein of the "
                                         f"interaction network{elsewhere}, and every later line names two known "
                                         "proteins: is this line a header (column names)? pass --header "
                                         "(header=True) to skip it")
            if named:
                header_hint = f"; line {table.line(0)} looks like column names: if it is a header, pass --header " \
                              "(header=True) to skip it"
        close = difflib.get_close_matches(who, list(index), n=3, cutoff=0.6)
        close = close or [n for n in index if who in n.split("|")][:3]  # UniProt's 'sp|P12345|ABC_HUMAN'
        unknown = sorted({x for x, i in zip(np.concatenate([a, b]), np.concatenate([ia, ib]), strict=True) if i < 0})
        raise MalformedFileError(
            path, table.line(r),
            f"protein {who!r} is not in the interaction network ({len(index) if network is None else network} "
            f"proteins){elsewhere}"
            + (f"; did you mean {', '.join(close)}?" if close else "")
            + (f" ({len(unknown)} unknown proteins in the file)" if len(unknown) > 1 else "") + header_hint)
    if df.shape[1] > 2 and df.iloc[:, 2:].notna().to_numpy().any():
        named = [str(c) for c in df.columns[2:]] if table.header is not None else []  # (after any row names)
        note(f"{path}: {df.shape[1] - 2} column(s) after the two protein ids not read"
             + (f" ({', '.join(named[:4])}{', ...' if len(named) > 4 else ''})" if named else ""))
    key = np.minimum(ia, ib) * max(len(index), 1) + np.maximum(ia, ib)  # a pair in either order
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    if (counts > 1).any():  # each is predicted once per line, in file order: said, not merged
        r = int(np.sort(first[counts > 1])[0])
        note(f"{path}: {int((counts - 1).sum())} line(s) repeat a pair of an earlier line (in either order), e.g. "
             f"{a[r]} {b[r]} (line {table.line(r)}): each line is predicted, so the output repeats them")
    pairs = torch.from_numpy(np.stack([ia, ib], axis=1))
    return pairs, list(zip(a.tolist(), b.tolist(), strict=True))


def read_string_web_export(path: str | Path, *, min_score: float = 0.0, name: str | None = None) -> Data:
    """Read a STRING web-interface export (``string_interactions.tsv``; header line starting with ``#``).

    Nodes are the ``node1``/``node2`` gene symbols; ``edge_weight`` is ``combined_score`` (0–1);
    the STRING ids are kept in ``string_ids``. Undirected.
    """
    path = check_file(path)
    table = read_table(path, sep="\t", header=True, comment=None)
    df = table.df
    df.columns = [str(c).lstrip("#") for c in df.columns]
    for c in ("node1", "node2", "combined_score"):
        if c not in df.columns:
            raise MalformedFileError(path, table.header_line, f"no column {c!r} in the header; is this a STRING web export?")
    score = parse_weights(df["combined_score"], path, table.line, what="combined_score")
    keep = score >= min_score
    df, score = df[keep], score[keep]
    a, b, names = _names_to_codes(df["node1"].to_numpy(), df["node2"].to_numpy(), None, path, path,
                                  line_of=lambda r: table.line(int(df.index[r])), columns=("node1", "node2"))
    data = edges_to_data(a, b, names, weight=score, directed=False, duplicates="merge",
                         name=name or path.name, path=path)
    if "node1_external_id" in df.columns:
        ext = dict(zip(df["node1"], df["node1_external_id"], strict=False)) | dict(zip(df["node2"], df["node2_external_id"], strict=False))
        data.string_ids = [ext[n] for n in names]
    return data


def read_biogrid_tab3(
    path: str | Path,
    *,
    id_column: Literal["symbol", "entrez", "biogrid"] = "symbol",
    organism: int | None = None,
    physical_only: bool = False,
    self_loops: SelfLoopPolicy = "remove",
    name: str | None = None,
) -> Data:
    """Read a BioGRID TAB 3.0 file (tab separated, header starting with ``#BioGRID Interaction ID``).

    Args:
        id_column: which identifier names the nodes: ``"symbol"`` (Official Symbol Interactor A/B),
            ``"entrez"`` (Entrez Gene Interactor A/B) or ``"biogrid"`` (BioGRID ID Interactor A/B).
        organism: keep only rows where both interactors have this NCBI taxonomy id (e.g. 9606).
        physical_only: keep only ``Experimental System Type == physical``.

    Returns an undirected graph (duplicate interactions from several experiments merged; ``edge_weight`` =
    number of supporting rows) with the experimental systems of each pair left out.
    """
    path = check_file(path)
    table = read_table(path, sep="\t", header=True, comment=None)
    df = table.df
    df.columns = [str(c).lstrip("#") for c in df.columns]
    col = {"symbol": "Official Symbol Interactor {}", "entrez": "Entrez Gene Interactor {}",
           "biogrid": "BioGRID ID Interactor {}"}[id_column]
    need = [col.format("A"), col.format("B")]
    if organism is not None:
        need += ["Organism ID Interactor A", "Organism ID Interactor B"]
    if physical_only:
        need += ["Experimental System Type"]
    for c in need:
        if c not in df.columns:
            raise MalformedFileError(path, table.header_line, f"no column {c!r}: expected a BioGRID TAB 3.0 header")
    empty = df[need].isna().to_numpy()  # BioGRID writes '-' for a missing value: an empty field is a broken row
    if empty.any():
        r, k = (int(i) for i in np.argwhere(empty)[0])
        fields = int(np.flatnonzero(df.iloc[r].notna().to_numpy()).max(initial=-1)) + 1
        why = f", and the row has {fields} of the header's {df.shape[1]} fields: a row cut short?" \
            if fields < df.shape[1] else ""
        raise MalformedFileError(path, table.line(r), f"{need[k]} is empty{why} (BioGRID writes '-' for a missing "
                                                      "value)")
    if organism is not None:
        mine = (df["Organism ID Interactor A"] == str(organism)) & (df["Organism ID Interactor B"] == str(organism))
        if not mine.all():
            note(f"{path}: {int((~mine).sum())} rows with an interactor of another organism than {organism} left "
                 f"out (organism {organism}), of {len(df)}")
        df = df[mine]
    if physical_only:
        physical = df["Experimental System Type"].str.lower() == "physical"
        if not physical.all():
            note(f"{path}: {int((~physical).sum())} non-physical (e.g. genetic) interaction rows left out "
                 "(physical only)")
        df = df[physical]
    if organism is None and {"Organism ID Interactor A", "Organism ID Interactor B"} <= set(df.columns):
        cross = df["Organism ID Interactor A"] != df["Organism ID Interactor B"]
        if cross.any():
            note(f"{path}: {int(cross.sum())} rows join proteins of two organisms (e.g. host and virus); kept "
                 "(organism=TAXID, or --organism TAXID in gatbio protein predict, keeps one organism's)")
    missing = ((df[need[0]] == "-") | (df[need[1]] == "-")).to_numpy()
    if missing.any():  # BioGRID writes '-' where an interactor has no such id: not one protein called '-'
        if missing.all():
            raise MalformedFileError(path, table.line(int(df.index[0])), f"no row has both {need[0]!r} and "
                                     f"{need[1]!r} ('-' means none): choose another id column")
        note(f"{path}: {int(missing.sum())} rows left out: an interactor has no {id_column} id ('-')"
             + ("; id_column='symbol' keeps them" if id_column != "symbol" else ""))
        df = df[~missing]
    if len(df) == 0:
        raise MalformedFileError(path, None, "no interactions left after the organism / system filters")
    if id_column == "symbol" and {"Organism ID Interactor A", "Organism ID Interactor B"} <= set(df.columns):
        _refuse_symbols_of_two_organisms(path, table, df, need)
    a, b, names = _names_to_codes(df[need[0]].to_numpy(), df[need[1]].to_numpy(), None, path, path,
                                  line_of=lambda r: table.line(int(df.index[r])), columns=(need[0], need[1]))
    stats: dict[str, int] = {}
    data = edges_to_data(a, b, names, weight=np.ones(len(a)), directed=False, duplicates="merge",
                         reduce="sum", self_loops=self_loops, name=name or path.name, path=path, stats=stats)
    if stats.get("duplicates"):  # BioGRID lists an interaction once per experiment: merging is the reading
        note(f"{path}: {stats['duplicates']} rows repeat an interaction (another experiment, or A and B swapped): "
             "merged, edge_weight counts each interaction's rows")
    if stats.get("self_loops_removed"):
        note(f"{path}: {stats['self_loops_removed']} self-interaction row(s) (a protein with itself) left out")
    return data


def _refuse_symbols_of_two_organisms(path: Path, table, df: pd.DataFrame, need: list[str]) -> None:
    """Refuse a BioGRID file in which one Official Symbol names proteins of two organisms (yeast CDC20 and human
    CDC20 in a multi-organism download): keyed by symbol they would silently become one node, and a row joining
    the two would be dropped as a self-interaction. Entrez and BioGRID ids are unique across organisms."""
    org = ("Organism ID Interactor A", "Organism ID Interactor B")
    pairs = pd.concat([df[[need[0], org[0]]].set_axis(["s", "o"], axis=1),
                       df[[need[1], org[1]]].set_axis(["s", "o"], axis=1)]).drop_duplicates()
    shared = pairs["s"][pairs["s"].duplicated()].unique()
    if len(shared) == 0:
        return
    sym = shared[0]
    where = df.index[(df[need[0]] == sym) | (df[need[1]] == sym)]
    orgs = sorted(pairs.loc[pairs["s"] == sym, "o"].unique())
    raise MalformedFileError(
        path, table.line(int(where[0])),
        f"{len(shared)} Official Symbol(s) name proteins of two or more organisms (e.g. {sym!r} of organisms "
        f"{', '.join(map(str, orgs))}): keyed by symbol they would be one node. Keep one organism (organism=TAXID, "
        "or --organism TAXID in gatbio protein predict), or name nodes by a unique id (id_column='entrez' or "
        "'biogrid'; --biogrid-ids entrez in gatbio protein predict, with the labels named so too)")


# --------------------------------------------------------------------------------------------------------
# labels
# --------------------------------------------------------------------------------------------------------


# A field that is a list of ontology ids (GO:0006915, HP:0001250) or numbers joined by commas or spaces; a single
# name such as '1,3-bisphosphoglycerate' or 'DNA repair' is not one.
_ID_LIST = re.compile(r"(?:[A-Za-z][A-Za-z_]*:[\w.-]+|\d+)(?:(?:\s*,\s*|\s+)(?:[A-Za-z][A-Za-z_]*:[\w.-]+|\d+))+")
# header words that name the label column of a table of named columns
_LABEL_WORDS = frozenset("label labels function functions go term terms annotation annotations class classes "
                         "category categories pathway pathways ontology".split())  # UniProt: Gene Ontology IDs


def _cut_hint(sep: str | None, column: int) -> str:
    """A command keeping the first column and ``column`` (1-based) of a table separated by ``sep``."""
    if sep == "\t":
        return f"cut -f1,{column}"
    if sep == ",":
        return f"cut -d, -f1,{column}"
    if sep in (";", "|"):
        return f"cut -d'{sep}' -f1,{column}"
    return f"awk '{{print $1, ${column}}}'"  # whitespace: runs of blanks are one separator, which cut cannot read


def _label_column(path: Path, line: int, head: list[str], rows: list[list[str]], *,
                  lenient: bool = False, sep: str | None = "\t") -> int | None:
    """The column of the labels in a label table whose header names three or more columns and whose lines all
    have that many fields (``protein go_id go_name evidence``): the one column whose name says labels (GO, term,
    function, ...), the id column among several (``go_id`` over ``go_name``); said on stderr. None for the
    node2vec layout (``node label label ...``: no such header, or lines of other lengths). ``lenient``: None, not
    an error, when no one column says labels (``rows`` were padded to the header's width: lines whose trailing
    empty fields an editor stripped, or lines of labels)."""
    if len(head) < 3 or not rows or any(len(r) != len(head) for r in rows):
        return None

    def words(name: str) -> set[str]:
        return {w.rstrip("0123456789") for w in re.split(r"[^a-z0-9]+", name.lower()) if w}

    cands = [j for j in range(1, len(head)) if words(head[j]) & _LABEL_WORDS]
    if len(cands) > 1:
        cands = [j for j in cands if words(head[j]) & {"id", "ids", "accession"}] or cands
    if len(cands) != 1 and lenient:
        return None
    if len(cands) != 1:
        raise MalformedFileError(path, line, f"the header names {len(head)} columns ({', '.join(head)}), and which "
                                 "of them holds the labels is not clear (every column after the node was read as "
                                 "labels before): keep the node column and the label column (e.g. "
                                 f"{_cut_hint(sep, 2)}), or name the label column 'label'")
    left = [h for j, h in enumerate(head[1:], 1) if j != cands[0]]
    note(f"{path}: a table of {len(head)} named columns: labels read from column {head[cands[0]]!r}; "
         f"{first_few(left, 4)} not read")
    return cands[0]


def read_label_table(
    path: str | Path,
    node_names: Sequence[str],
    *,
    sep: str | None = None,
    comment: str | None = "#",
    header: bool | None = None,
    label_names: Sequence[str] | None = None,
    sort_labels: bool = True,
    require_all: bool = False,
    unknown_nodes: Literal["error", "note"] = "error",
) -> tuple[torch.Tensor, list[str]]:
    """Read a node → labels table (one line per node: ``node label1 label2 ...``, the node2vec format).

    A node may also appear on several lines (one ``node label`` pair per line): the labels are unioned. A field
    of labels joined by ``;`` or ``|`` (``GO:1;GO:2``) is several labels (said on stderr).

    Args:
        node_names: the graph's nodes; a line naming another node is an error (a few are shown), unless
            ``unknown_nodes="note"``.
        sep: separator (default: a tab, or a comma, when a line holds one: then each field is one label and
            labels may hold spaces; otherwise any whitespace).
        header: ``True``: the first non-comment line is a header (``protein function``); ``False``: it is
            data; ``None`` (default): detected: a first line that is not a node of the graph and is made of
            header words (:mod:`gatbio.data.tables`) is a header, and a note on stderr says so.
        label_names: fixed label vocabulary (unknown labels are an error); default: every label seen,
            sorted (numerically when all labels are integers).
        require_all: every node must have at least one label.
        unknown_nodes: ``"error"`` (default), or ``"note"``: lines naming nodes outside the graph (a genome-wide
            annotation against a subnetwork) are left out with a note on stderr giving their number and a few
            of them. Still an error when no line names a node of the graph (the ids differ), when the first
            line is among them (it may be a header that was not detected: ``header=True``), or when a name is a
            node's with a version suffix or STRING's taxon prefix added or left out, otherwise exactly (``P1.2``
            or ``9606.P1`` for the node ``P1``, ``P1`` for ``9606.P1``: most likely that protein, whose labels
            would be lost; two versions, ``F21D5.1`` and ``F21D5.9``, are two genes). A name that differs from a
            node only by case is left out like the others (Drosophila's ``dl`` and ``Dl`` are two genes), and
            the note says how many do.

    Returns:
        ``(y, label_names)``: ``y`` float ``(N, L)`` multi-hot.
    """
    check_path(path, "read_label_table")
    if isinstance(node_names, Data | str):
        raise TypeError(f"node_names is {'a Data' if isinstance(node_names, Data) else 'a str'}: pass data.node_names "
                        "(the graph's node names, a list of str)")
    path = check_file(path)
    index = {str(n): i for i, n in enumerate(node_names)}
    rows: list[tuple[int, str, int]] = []  # (node index, label, line)
    unknown: list[tuple[int, str]] = []
    text, line_numbers = data_lines(read_text(path), comment)
    lines, numbers = (text.split("\n") if len(line_numbers) else []), line_numbers.tolist()
    if sep is None:  # a tab or comma anywhere: a table whose labels may hold spaces ("DNA repair")
        sep = sniff_separator(lines[:1000])
        if sep == "," and all(re.search(r"\s", x.split(",", 1)[0].strip()) for x in lines[:1000] if "," in x):
            sep = None  # 'P1 GO:1,GO:2': whitespace columns, commas joining the labels of a field

    def fields(s: str, no: int) -> list[str]:
        check_quotes(path, no, s, sep)
        return [p for p in split_line(s, sep or r"\s+") if p]  # whitespace: '"heat shock 70" kinase' is 2 fields

    def cells(s: str, no: int, width: int) -> list[str]:
        """The fields of a line of a table of ``width`` named columns, empty ones kept (a UniProt entry without GO
        ids ends 'BRCA1_HUMAN<TAB><TAB>'): each in its column; empty ones beyond the header's width dropped."""
        check_quotes(path, no, s, sep)
        out = [p.strip() for p in split_line(s, sep)]
        while len(out) > width and not out[-1]:
            out.pop()
        return out

    first_data = numbers[0] if numbers else None  # the first line that may be data (None: it is the header)
    label_col = None  # a table of named columns: the one holding the labels
    width = 0  # and its number of columns, when its lines are read with their empty fields
    if lines:
        first = fields(lines[0], numbers[0])
        following = [fields(s, no) for no, s in zip(numbers[1:1001], lines[1:1001], strict=True)]
        # a header by the rule of every reader (gatbio.data.tables: a column of numbers with text at the top, or
        # header words throughout), whose first field is not a node
        if header is None and first and first[0] not in index and looks_like_header(first, following):
            header = True
            note(f"{path}: line {numbers[0]} {lines[0].strip()[:60]!r} read as a header, not as data (detected; "
                 "--no-header / header=False reads it as data)")
        if header:
            head = [p.strip() for p in split_line(lines[0], sep)] if sep in ("\t", ",") else []
            while head and not head[-1]:
                head.pop()
            if len(head) >= 3 and all(head):  # tab or comma columns, all named: empty fields are fields
                rows_ = [cells(s, no, len(head)) for no, s in zip(numbers[1:1001], lines[1:1001], strict=True)]
                label_col = _label_column(path, numbers[0], head, rows_, sep=sep)
                if label_col is None and rows_ and all(len(r) <= len(head) for r in rows_):
                    # trailing empty fields left out (an editor that strips trailing blanks)
                    label_col = _label_column(path, numbers[0], head, [r + [""] * (len(head) - len(r))
                                                                       for r in rows_], lenient=True, sep=sep)
                width = len(head) if label_col is not None else 0
            if label_col is None:
                label_col = _label_column(path, numbers[0], first, following, sep=sep)
            lines, numbers, first_data = lines[1:], numbers[1:], None
    unlabelled: list[tuple[int, str]] = []  # (line, protein) of lines whose label field is empty
    joined = 0  # fields holding several labels joined by ';' or '|'
    # a field of ontology ids (GO:0006915) or numbers only, alone or joined by ';', '|', ',' or spaces
    id_cell = re.compile(r"(?:[A-Za-z][A-Za-z_]*:[\w.-]+|\d+)(?:\s*[;|,\s]\s*(?:[A-Za-z][A-Za-z_]*:[\w.-]+|\d+))*")
    widths: set[int] = set()  # field counts of the lines, and per column: all / any field an ontology id list
    all_ids: dict[int, bool] = {}
    any_ids: dict[int, bool] = {}
    for no, s in zip(numbers, lines, strict=True):
        parts = fields(s, no) if not width else (cells(s, no, width) + [""] * width)[:width]
        if width and not parts[0]:
            raise MalformedFileError(path, no, f"the first field (the node) is empty: {s.strip()[:60]!r}")
        if width and not parts[label_col]:  # a protein without annotation (UniProt: an entry without GO ids)
            (unknown if parts[0] not in index else unlabelled).append((no, parts[0]))
            continue
        if label_col is None:
            widths.add(len(parts))
            for j, cell in enumerate(parts[1:], 1):
                is_id = id_cell.fullmatch(cell.strip()) is not None
                all_ids[j], any_ids[j] = all_ids.get(j, True) and is_id, any_ids.get(j, False) or is_id
        if len(parts) == 1 and header and sep in ("\t", ",") and sep in s:  # 'P1<TAB>' under a header: no labels
            (unknown if parts[0] not in index else unlabelled).append((no, parts[0]))
            continue
        if len(parts) < 2:
            hint = " (a node without labels: leave it out of the table)" if len(parts) == 1 else ""
            if sep in ("\t", ",") and sep not in s and len(s.split()) >= 2:  # 'P1 GO:1' among tab-separated lines
                other = next(n for n, x in zip(numbers, lines, strict=True) if sep in x)
                hint = (f" (this line has no {'tab' if sep == chr(9) else 'comma'}, which separates the columns of "
                        f"the file's other lines, e.g. line {other}: use one separator in the whole file)")
            raise MalformedFileError(path, no, f"expected 'node label [label ...]', found {s.strip()!r}{hint}")
        node = parts[0]
        if node not in index:
            unknown.append((no, node))
            continue
        for cell in (parts[1:] if label_col is None else parts[label_col:label_col + 1]):
            # 'GO:1;GO:2' in one field (a common layout): one label each
            joiners = r"[;|,]" if sep is None else r"[;|]"  # whitespace columns: a comma joins labels too
            # ... except in a quoted field of whitespace columns (the only way one holds a space): one label,
            # '"DNA repair, double-strand"'
            whole = sep in (";", "|") or (sep is None and re.search(r"\s", cell) is not None)
            labs = [cell.strip()] if whole else [x.strip() for x in re.split(joiners, cell) if x.strip()]
            if len(labs) == 1 and _ID_LIST.fullmatch(labs[0]):  # 'GO:1,GO:2' or 'GO:1 GO:2' in one tab/CSV field
                labs = re.split(r"\s*,\s*|\s+", labs[0])
            joined += len(labs) > 1
            rows.extend((index[node], lab, no) for lab in labs)
    if len(widths) == 1 and min(widths) >= 3 and rows:
        # the same number of fields on every line, one column all ontology ids and another none: a table of
        # columns without a header (protein, GO id, evidence code or term name), not 'node label label ...'
        # lines; read so, its evidence codes (IDA, IEA) or term names became functions to predict
        ids = [j for j in all_ids if all_ids[j]]
        other = [j for j in any_ids if not any_ids[j]]
        if ids and other:
            example = fields(lines[0], numbers[0])
            named = ("<TAB>" if sep == "\t" else sep or " ").join(["protein", "GO", "evidence"])
            raise MalformedFileError(path, numbers[0], f"every line has {min(widths)} fields, column {ids[0] + 1} "
                                     f"ontology ids ({example[ids[0]]!r}) and column {other[0] + 1} something "
                                     f"else ({example[other[0]]!r}, e.g. an evidence code or a term name): a table "
                                     "of columns without a header, whose every field after the first would be read "
                                     "as a label; keep the protein and label columns (e.g. "
                                     f"{_cut_hint(sep, ids[0] + 1)}), or add a header line naming the columns "
                                     f"(e.g. {named!r}) so that the label column is read")
    if unknown:
        # names that are a node's with a version suffix or STRING's taxon prefix added or taken off ('P1.2' or
        # '9606.P1' for the node 'P1'; 'P1' for the node '9606.P1'), one way only and otherwise exact: two
        # versions of one stem are two genes (C. elegans' F21D5.1 and F21D5.9), never matched; (line, name, node)
        def bare(name: str) -> str | None:  # the name without its taxon prefix and version suffix, if it has one
            out = re.sub(r"\.\d+$", "", re.sub(r"^\d+\.", "", name))
            return out if out != name and re.search(r"[A-Za-z]", out) else None  # not numbers ('1.2' for '2')

        bare_nodes: dict[str, str] = {}
        for n in map(str, node_names):
            if (b := bare(n)) is not None:
                bare_nodes.setdefault(b, n)
        look_alike = [(no, n, b if b in index else bare_nodes[n]) for no, n in unknown
                      if (b := bare(n)) in index or n in bare_nodes]
        if look_alike and rows:  # most likely the graph's protein written another way: its labels would be lost
            no, n, known = look_alike[0]
            more = f" ({len(look_alike)} such lines)" if len(look_alike) > 1 else ""
            raise MalformedFileError(path, no, f"{n!r} is not a node of the graph but differs from its node "
                                     f"{known!r} only by a version suffix or a taxon prefix{more}: most likely that "
                                     f"protein, whose labels on these lines would be lost"
                                     + ("" if any(i == index[known] for i, _, _ in rows) else
                                        f" ({known!r} counted as unlabelled)")
                                     + "; write the graph's ids, or leave out the lines of other proteins (e.g. "
                                     "another organism's)")
        # names that differ from a node only by case: said, not refused (Drosophila's dl, dorsal, and Dl, Delta,
        # are two genes; a genome-wide table holds both)
        upper: dict[str, str] = {}
        for n in map(str, node_names):
            upper.setdefault(n.upper(), n)
        by_case = [(no, n, upper[n.upper()]) for no, n in unknown if n.upper() in upper]
        few = ", ".join(f"{n!r} (line {no})" for no, n in unknown[:5])
        hint = " (if that line is a header, pass --header / header=True)" if unknown[0][0] == first_data else ""
        if not rows and len(unknown) > 1:  # not one line matches: the ids or the column order differ
            hint += (f"; no line names a node of the graph (e.g. {str(node_names[0])!r}): do the ids match the "
                     "interaction file's (same prefix, version, case), and is the node the first field of each line?")
            for alike, how in ((look_alike, "a version suffix or a taxon prefix"), (by_case, "case")):
                if alike:
                    hint += (f" ({len(alike)} of them differ from a node only by {how}, e.g. {alike[0][1]!r} "
                             f"against {alike[0][2]!r})")
        case_note = (f"; {len(by_case)} of them differ from a node only by case (e.g. {by_case[0][1]!r} against "
                     f"{by_case[0][2]!r}): another gene (as Drosophila's dl and Dl), or that protein written "
                     "another way, whose labels are then lost (write the graph's ids)") if by_case else ""
        if unknown_nodes != "note" or not rows or unknown[0][0] == first_data:
            raise MalformedFileError(path, unknown[0][0],
                                     f"{len(unknown)} line(s) name nodes that are not in the graph, e.g. {few}{hint}"
                                     + (case_note if rows else ""))
        n_lines = len(unknown) + len({no for _, _, no in rows})
        note(f"{path}: {len(unknown):,} of {n_lines:,} label lines name nodes that are not in the graph (e.g. {few}): "
             "left out" + case_note)
    if unlabelled:
        note(f"{path}: {len(unlabelled):,} line(s) with an empty label field (e.g. {unlabelled[0][1]!r}, line "
             f"{unlabelled[0][0]}): proteins without annotation, read as unannotated")
    if not rows:
        raise MalformedFileError(path, None, "the file has no label rows"
                                 + (" (every label field is empty)" if unlabelled else ""))
    if joined:
        note(f"{path}: {joined} field(s) hold several labels joined by ';' or '|'"
             + (" (or ',': the columns are separated by whitespace)" if sep is None else
                " (or by ',' or spaces between ontology ids such as GO:0006915)") + ", read as one label each")
    if label_names is None:
        labs = {lab for _, lab, _ in rows}
        if sort_labels:
            labs = sorted(labs, key=lambda t: (0, int(t), t) if t.lstrip("-").isdigit() else (1, 0, t))
        label_names = list(labs)
    lab_index = {str(lab): j for j, lab in enumerate(label_names)}
    y = torch.zeros(len(node_names), len(label_names))
    for i, lab, no in rows:
        if lab not in lab_index:
            raise MalformedFileError(path, no, f"unknown label {lab!r} (known labels: {list(label_names)[:10]}...)")
        y[i, lab_index[lab]] = 1.0
    if require_all and (y.sum(1) == 0).any():
        missing = [node_names[i] for i in torch.nonzero(y.sum(1) == 0).flatten().tolist()]
        raise MalformedFileError(path, None, f"{len(missing)} node(s) have no label, e.g. {missing[:5]}")
    return y, [str(x) for x in label_names]


def read_node_list(path: str | Path, *, header: bool | None = None, known: Sequence[str] = (),
                   comment: str | None = "#") -> list[str]:
    """A list of node names, one per line (first field of each line; duplicates dropped, order kept).

    The fields are separated by a semicolon when every line holds as many and no first field (after a header)
    holds whitespace (a spreadsheet's CSV where the comma is the decimal mark, :func:`semicolon_table`; not ``P1
    kinase; putative``), a tab when a line holds one, or a comma when every line has as many CSV fields
    (then a name may hold spaces; CSV quoting applies), else by whitespace: ``G0,kinase`` and ``G0 kinase`` both name ``G0``,
    and ``1,3-bisphosphoglycerate`` in a list without commas elsewhere is one name. ``header=None`` detects a
    header line (its first field a header word such as ``protein`` or ``gene_id``, and not a name in ``known``).
    """
    path = check_file(path)
    text, line_numbers = data_lines(read_text(path), comment)
    lines, numbers = (text.split("\n") if len(line_numbers) else []), line_numbers.tolist()
    # a spreadsheet's semicolon CSV ('TP53;kinase' on every line) is split at its semicolons: read whole, each
    # line was a name of its own ('TP53;kinase'), added to the network as a protein without interactions
    # ... but not 'P1 serine kinase; putative', whose first field is 'P1' (a name holds no whitespace; the first
    # line, a header, may: 'gene id;score')
    semicolons = semicolon_table(lines[:1000]) and not any(re.search(r"\s", x.split(";", 1)[0].strip())
                                                          for x in lines[1 if len(lines) > 1 else 0:1000])
    sep = ";" if semicolons else sniff_separator(lines[:1000])
    if sep == "," and len({len(split_fields(x, ",")) for x in lines[:1000]}) > 1:
        sep = None  # commas in some names only ('P1 kinase, putative', '1,3-bisphosphoglycerate'), not columns
    names = []
    for no, ln in zip(numbers, lines, strict=True):
        check_quotes(path, no, ln, sep)
        first = split_line(ln, sep or r"\s+")[0] if ln.strip() else ""
        if not first:
            raise MalformedFileError(path, no, f"the line's first field (the node name) is empty: {ln.strip()!r}")
        names.append(first)
    if names and header is None and names[0] not in set(map(str, known)) and is_header_word(names[0]):
        header = True
        note(f"{path}: line {numbers[0]} {lines[0].strip()[:60]!r} read as a header, not as a name (detected; "
             "--no-header / header=False reads it as a name)")
    return list(dict.fromkeys(names[1:] if header else names))


GAF_COLUMNS = ["DB", "DB_Object_ID", "DB_Object_Symbol", "Qualifier", "GO_ID", "DB_Reference", "Evidence_Code",
               "With_From", "Aspect", "DB_Object_Name", "DB_Object_Synonym", "DB_Object_Type", "Taxon", "Date",
               "Assigned_By", "Annotation_Extension", "Gene_Product_Form_ID"]


def read_gaf(
    path: str | Path,
    node_names: Sequence[str] | None = None,
    *,
    id_column: Literal["DB_Object_ID", "DB_Object_Symbol"] = "DB_Object_Symbol",
    aspect: Literal["P", "F", "C"] | None = None,
    min_count: int = 1,
    exclude_evidence: Sequence[str] = ("IEA", "ND"),
    drop_negated: bool = True,
) -> tuple[torch.Tensor, list[str], list[str]]:
    """Read GO annotations in GAF 2.2 (17 tab-separated columns, ``!`` comment lines).

    Args:
        node_names: the graph's proteins (rows of the result, in this order); annotations of other
            proteins are ignored (a GAF covers the whole proteome). Default: every annotated object.
        id_column: the column that matches ``node_names``.
        aspect: keep only ``P`` (process), ``F`` (function) or ``C`` (component).
        min_count: keep GO terms annotated to at least this many of the nodes.
        exclude_evidence: evidence codes to drop (default: electronic annotations, IEA, and ND, "no biological
            data available": a curator's statement that the function is unknown, made to a root term such as
            GO:0008150, not an annotation; kept, it made an uncharacterised protein a labelled one).
        drop_negated: drop rows whose qualifier contains ``NOT``.

    Returns:
        ``(y, term_names, node_names)``: ``y`` float ``(N, T)`` multi-hot over GO terms (sorted).
    """
    path = check_file(path)
    text = read_text(path)
    first = text.split("\n", 1)[0]
    if not first.startswith("!gaf-version"):
        raise MalformedFileError(path, 1, f"expected a '!gaf-version: 2.x' header line, found {first.strip()[:40]!r}")
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    body_idx = [i for i, ln in enumerate(lines) if ln and not ln.startswith("!")]
    for i in body_idx:
        n = lines[i].count("\t") + 1
        if n not in (15, 16, 17):
            raise MalformedFileError(path, i + 1, f"expected 17 tab-separated GAF 2.2 columns, found {n}")
    df = pd.read_csv(io.StringIO("\n".join(lines[i] for i in body_idx)), sep="\t", header=None, dtype=str,
                     names=GAF_COLUMNS, engine="c", keep_default_na=False, quoting=csv.QUOTE_NONE)
    bad = ~df["GO_ID"].str.match(r"^GO:\d{7}$").to_numpy()
    if bad.any():
        r = _first_bad_row(bad)
        raise MalformedFileError(path, body_idx[r] + 1, f"GO_ID must look like 'GO:0005515', found {df['GO_ID'].iloc[r]!r}")
    if drop_negated:
        df = df[~df["Qualifier"].str.contains("NOT")]
    if aspect is not None:
        df = df[df["Aspect"] == aspect]
    if exclude_evidence:
        df = df[~df["Evidence_Code"].isin(list(exclude_evidence))]
    if node_names is None:
        node_names = list(pd.unique(df[id_column]))
    index = {str(n): i for i, n in enumerate(node_names)}
    matched = df[df[id_column].isin(index.keys())]
    if len(df) and not len(matched):  # ids of another kind (UniProt accessions against gene symbols): say so
        other = "DB_Object_ID" if id_column == "DB_Object_Symbol" else "DB_Object_Symbol"
        hit = int(df[other].isin(index.keys()).sum())
        example = f"e.g. {str(node_names[0])!r} against {df[id_column].iloc[0]!r}" if len(node_names) else \
            "the graph has no proteins"
        raise MalformedFileError(path, None, f"no annotation's {id_column} is a protein of the graph ({example}): "
                                 + (f"{hit} rows match by {other}: pass id_column={other!r}" if hit else
                                    "the ids must match the graph's (same kind, case, version)"))
    df = matched
    pairs = df[[id_column, "GO_ID"]].drop_duplicates()
    counts = pairs["GO_ID"].value_counts()
    terms = sorted(counts.index[counts >= min_count])
    t_index = {t: j for j, t in enumerate(terms)}
    pairs = pairs[pairs["GO_ID"].isin(t_index.keys())]
    y = torch.zeros(len(node_names), len(terms))
    if len(pairs):
        rows = torch.tensor([index[p] for p in pairs[id_column]])
        cols = torch.tensor([t_index[t] for t in pairs["GO_ID"]])
        y[rows, cols] = 1.0
    return y, terms, [str(n) for n in node_names]


# --------------------------------------------------------------------------------------------------------
# Pajek
# --------------------------------------------------------------------------------------------------------


@dataclass
class PajekFile:
    """The contents of a Pajek ``.net`` or ``.paj`` file (ids converted to 0-based).

    Attributes:
        networks: ``name -> {"node_names": [...], "arcs": (A, 2) int array, "arc_weight": (A,),
            "edges": (B, 2), "edge_weight": (B,), "arc_lines": (A,) file lines, "edge_lines": ...}``.
        partitions: ``name -> (N,) int array`` (``*partition``).
        vectors: ``name -> (N,) float array`` (``*vector``).
    """

    path: str
    networks: dict[str, dict] = field(default_factory=dict)
    partitions: dict[str, np.ndarray] = field(default_factory=dict)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)

    def network(self, name: str | None = None) -> dict:
        if not self.networks:
            raise MalformedFileError(self.path, None, "no *network / *vertices section")
        if name is None:
            return next(iter(self.networks.values()))
        return self.networks[name]


_PAJEK_VERTEX = re.compile(r'^\s*(\d+)\s+(?:"([^"]*)"(?=\s|$)|([^"\s]\S*))(.*)$')
#: What may follow a vertex's label in Pajek: coordinates (numbers), a shape and drawing parameters.
_PAJEK_AFTER_LABEL = frozenset("""ellipse box diamond triangle cross empty x_fact y_fact phi r q ic bc bw lc la lr
    lphi fos font""".split())


def read_pajek(path: str | Path) -> PajekFile:
    """Parse a Pajek ``.net`` / ``.paj`` file: networks (``*vertices``, ``*arcs``, ``*edges``, ``*arcslist``,
    ``*edgeslist``), partitions (``*partition``) and vectors (``*vector``).

    Handles CRLF line endings, ``%`` comments, 1-based ids, quoted labels with spaces and
    several sections in one project file. Ids are converted to 0-based. Each network also holds
    ``vertex_lines``: ``{1-based id: file line}`` of the vertices listed. A ``*partition`` whose name starts with
    ``ECO`` (the compartment types of Scor2net's flow webs) must hold 1-5, else an error at the value's line.
    """
    path = check_file(path)
    try:  # UTF-8 (a byte-order mark dropped); Pajek's own tools write Latin-1, read as such when not UTF-8
        text = read_text(path).removeprefix("\ufeff")
        latin1 = False
    except MalformedFileError:
        text, latin1 = read_text(path, encoding="latin-1"), True
    # a NUL byte in a label: refused at its line (Latin-1 gives C1 codes to Windows-1252's letters: not refused)
    check_control_characters(path, text, c1=not latin1)
    out = PajekFile(str(path))
    section, name, expected_n, values = None, None, None, []
    net: dict | None = None
    n_vert = 0

    def close():
        nonlocal values
        if section in ("partition", "vector") and name is not None:
            if expected_n is not None and len(values) != expected_n:
                raise MalformedFileError(path, None, f"*{section} {name!r}: expected {expected_n} values, found {len(values)}")
            arr = np.array(values, dtype=np.int64 if section == "partition" else np.float64)
            (out.partitions if section == "partition" else out.vectors)[name] = arr
        values = []

    for no, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        if line.startswith("*"):
            word, rest = (line[1:].split(None, 1) + ["", ""])[:2]  # '*Vertices 3' or '*Vertices<TAB>3'
            word, rest = word.lower(), rest.strip()
            if word in ("network", "partition", "vector"):
                close()
                section, name, expected_n = word, rest or f"{word}{len(out.networks)}", None
                if word == "network":
                    if name in out.networks:  # the second would replace the first without a word
                        raise MalformedFileError(path, no, f"a second network named {name!r} (the first starts on "
                                                           f"line {out.networks[name]['line']}): give each *Network "
                                                           "of a project its own name")
                    net = {"node_names": [], "arcs": [], "arc_weight": [], "edges": [], "edge_weight": [],
                           "arc_lines": [], "edge_lines": [], "line": no}
                    out.networks[name] = net
                continue
            if word == "vertices":
                try:
                    n_vert = int(rest.split()[0])
                except (ValueError, IndexError) as err:
                    raise MalformedFileError(path, no, f"expected '*vertices N', found {line!r}") from err
                if section in ("partition", "vector"):
                    expected_n = n_vert
                    continue
                if section != "network" and net is not None and "n" in net:
                    # a second *vertices in one network (two .net files pasted together): it replaced the first
                    # network's vertices and arcs without a word
                    raise MalformedFileError(path, no, f"a second *vertices section in network {name!r} (its "
                                                       f"*vertices is on line {net['vertices_line']}): each network "
                                                       "has one; a project of several networks starts each with "
                                                       "'*Network name'")
                if section != "network":  # a bare .net file without *network
                    close()
                    section, name = "network", path.stem
                    net = {"node_names": [], "arcs": [], "arc_weight": [], "edges": [], "edge_weight": [],
                           "arc_lines": [], "edge_lines": [], "line": no}
                    out.networks[name] = net
                net["n"] = n_vert
                net["vertices_line"] = no
                net["node_names"] = [str(i + 1) for i in range(n_vert)]
                net["vertex_lines"] = {}
                section = "vertices"
                continue
            if word in ("arcs", "edges", "arcslist", "edgeslist", "matrix"):
                if net is None or "n" not in net:
                    raise MalformedFileError(path, no, f"*{word} before *vertices")
                if word == "matrix":
                    raise MalformedFileError(path, no, "*matrix sections are not supported; use *arcs")
                section = word
                continue
            raise MalformedFileError(path, no, f"unknown section {line.split()[0]!r}")
        if section in ("partition", "vector"):
            try:
                values.append(int(line) if section == "partition" else float(line))
            except ValueError as err:
                kind = "an integer" if section == "partition" else "a number"
                raise MalformedFileError(path, no, f"*{section} {name!r}: expected {kind}, found {line!r}") from err
            if section == "partition" and name.lower().startswith("eco") and not 1 <= values[-1] <= 5:
                raise MalformedFileError(path, no, "ECO type must be 1-5 (1 living, 2 non-living, 3 input, 4 output, "
                                                   f"5 respiration), found {values[-1]} for vertex {len(values)}")
            continue
        if section == "vertices":
            m = _PAJEK_VERTEX.match(line)
            if not m and '"' in line:
                raise MalformedFileError(path, no, f"a vertex label's quotes do not close, or a quote stands inside a "
                                                   f"quoted label (Pajek has no escapes), in {line.strip()!r}: write "
                                                   "'id \"label\"' with one pair of quotes around the label")
            if not m:
                raise MalformedFileError(path, no, f"expected 'id \"label\"', found {line!r}")
            after = m.group(4).split()
            if m.group(3) is not None and after and after[0].lower() not in _PAJEK_AFTER_LABEL:
                try:
                    float(after[0])
                except ValueError:  # "1 tall grass": not a coordinate, so a label with a space
                    raise MalformedFileError(path, no, f"vertex label {m.group(3) + ' ' + after[0]!r}... has a space: "
                                                       "quote it, as in "
                                                       f"'{m.group(1)} \"{' '.join([m.group(3), *after])}\"' (only "
                                                       "coordinates, a shape and drawing parameters may follow an "
                                                       "unquoted label)") from None
            vid = int(m.group(1))
            if not 1 <= vid <= net["n"]:
                raise MalformedFileError(path, no, f"vertex id {vid} outside 1..{net['n']}")
            if vid in net["vertex_lines"]:
                raise MalformedFileError(path, no, f"vertex id {vid} listed twice (first on line "
                                                   f"{net['vertex_lines'][vid]})")
            net["vertex_lines"][vid] = no
            net["node_names"][vid - 1] = m.group(2) if m.group(2) is not None else m.group(3)
            continue
        if section in ("arcs", "edges", "arcslist", "edgeslist"):
            parts = line.split()
            try:
                ids = [int(p) for p in (parts[:2] if section in ("arcs", "edges") else parts)]
            except ValueError as err:
                raise MalformedFileError(path, no, f"expected integer vertex ids, found {line!r}") from err
            if section in ("arcs", "edges"):
                if len(parts) < 2:
                    raise MalformedFileError(path, no, f"expected 'i j [weight]', found {line!r}")
                w = parts[2] if len(parts) > 2 else "1"  # checked with every weight at the end (parse_weights)
                net["weighted"] = net.get("weighted", False) or len(parts) > 2
                pairs = [(ids[0], ids[1], w)]
            else:
                pairs = [(ids[0], j, "1") for j in ids[1:]]
            for i, j, w in pairs:
                for v in (i, j):
                    if not 1 <= v <= net["n"]:
                        raise MalformedFileError(path, no, f"vertex id {v} outside 1..{net['n']} (Pajek ids are 1-based)")
                key = "arcs" if section.startswith("arcs") else "edges"
                net[key].append((i - 1, j - 1))
                net["arc_weight" if key == "arcs" else "edge_weight"].append(w)
                net["arc_lines" if key == "arcs" else "edge_lines"].append(no)
            continue
        raise MalformedFileError(path, no, f"data line outside any section: {line!r}"
                                 + ("" if out.networks or section else
                                    " (a Pajek file starts with *Vertices or *Network; an edge list named .net or "
                                    ".paj reads with --format edgelist)"))
    close()
    for net in out.networks.values():
        labelled = net.setdefault("vertex_lines", {})
        if 0 < len(labelled) < net.get("n", 0):  # Pajek allows unlisted vertices: they are named by their ids
            note(f"{path}: {net['n'] - len(labelled)} of the {net['n']} vertices of *vertices have no line; "
                 "they are named by their ids")
        names = net.get("node_names", [])
        if len(set(names)) < len(names):
            seen: dict[str, int] = {}
            dup = next(x for i, x in enumerate(names) if seen.setdefault(x, i) != i)
            first, second = [i + 1 for i, x in enumerate(names) if x == dup][:2]
            note(f"{path}: {len(names) - len(set(names))} vertex label(s) repeat another, e.g. {dup!r} (vertices "
                 f"{first} and {second}, line {labelled.get(second)}); kept as labels (descriptions), but refused as a "
                 "network's node names (a name would not pick one vertex)")
        for k in ("arcs", "edges"):
            net[k] = np.array(net[k], dtype=np.int64).reshape(-1, 2)
        for k in ("arc_lines", "edge_lines"):
            net[k] = np.array(net[k], dtype=np.int64)
        for k, lk in (("arc_weight", "arc_lines"), ("edge_weight", "edge_lines")):
            net[k] = parse_weights(np.array(net[k], dtype=object), path, lambda r, L=net[lk]: int(L[r]))
    if not out.networks and not out.partitions and not out.vectors:
        raise MalformedFileError(path, None, "no Pajek sections found (*vertices, *partition, *vector)")
    return out


def refuse_repeated_labels(path, net: dict) -> None:
    """A Pajek network whose vertex labels repeat cannot name its nodes by them (a link or a prediction would not
    say which vertex it is about): refused at the second vertex's line, naming the first."""
    vertex_lines, first = net.get("vertex_lines", {}), {}
    for k, label in enumerate(net["node_names"], start=1):
        if label in first:
            j = first[label]
            where = f"line {vertex_lines[j]}" if j in vertex_lines else "no line: named by its id"
            raise MalformedFileError(path, vertex_lines.get(k), f"vertex label {label!r} is also vertex {j}'s "
                                                                f"({where}): give each vertex its own label")
        first[label] = k


def read_pajek_network(path: str | Path, network: str | None = None, *, directed: bool | None = None,
                       duplicates: DuplicatePolicy = "keep", self_loops: SelfLoopPolicy = "keep") -> Data:
    """One network of a Pajek file as :class:`Data`: :func:`read_pajek`, then :func:`pajek_to_data` (vertices
    without a line stay, as isolated nodes)."""
    return pajek_to_data(read_pajek(path), network, directed=directed, duplicates=duplicates, self_loops=self_loops)


def pajek_to_data(
    pj: PajekFile,
    network: str | None = None,
    *,
    directed: bool | None = None,
    duplicates: DuplicatePolicy = "keep",
    self_loops: SelfLoopPolicy = "keep",
    stats: dict | None = None,
) -> Data:
    """A Pajek network as :class:`Data`. ``directed=None`` → directed when it has ``*arcs``.

    For an undirected result ``*arcs`` and ``*edges`` are both read as interactions. For a directed result,
    ``*edges`` are stored in both directions (a self-loop once).

    Refused (:class:`MalformedFileError` at the vertex's line): a vertex label repeated (the node names would not
    say which vertex a link or a prediction is about), and, in a network with ``*arcs`` and no ``*partition`` named
    ``ECO ...``, a vertex named ``Input``, ``Output`` or ``Respiration`` (any case): SCOR's boundary compartments
    of a carbon-flow web, whose arcs are imports, exports and respiration, not feeding links; read as species
    they would change the web (``Respiration`` a top predator). Such a flow web needs its ECO types partition
    (read with :func:`gatbio.data.foodweb.read_pajek_foodweb`).
    """
    net = pj.network(network)
    refuse_repeated_labels(pj.path, net)
    vertex_lines = net.get("vertex_lines", {})
    for k, label in enumerate(net["node_names"], start=1):
        if label.strip().lower() in ("input", "output", "respiration") and len(net["arcs"]) and \
                not any(p.lower().startswith("eco") for p in pj.partitions):
            raise MalformedFileError(pj.path, vertex_lines.get(k), f"vertex {k} is {label!r}, a boundary compartment "
                                     "of a SCOR flow web (Input, Output, Respiration: its arcs are imports, exports "
                                     "and respiration, not feeding links), but the file has no '*partition ECO "
                                     "types' saying which vertices are species: add one before *network ('*partition "
                                     "ECO types', '*vertices N', then one type per vertex: 1 living, 2 non-living, 3 "
                                     "input, 4 output, 5 respiration), or rename the vertex if it is a species")
    has_arcs = len(net["arcs"]) > 0
    directed = has_arcs if directed is None else directed
    lines = np.concatenate([net["arc_lines"], net["edge_lines"]])
    if directed:
        e, ew = net["edges"], net["edge_weight"]
        loop = e[:, 0] == e[:, 1]  # an undirected self-loop is one link, not two (its mirror is itself)
        src = np.concatenate([net["arcs"][:, 0], e[:, 0], e[~loop, 1]])
        dst = np.concatenate([net["arcs"][:, 1], e[:, 1], e[~loop, 0]])
        w = np.concatenate([net["arc_weight"], ew, ew[~loop]])
        lines = np.concatenate([lines, net["edge_lines"][~loop]])
    else:
        both = np.concatenate([net["arcs"], net["edges"]])
        src, dst = both[:, 0], both[:, 1]
        w = np.concatenate([net["arc_weight"], net["edge_weight"]])
    name = network or next(iter(pj.networks))
    # Without a weight on any line the arcs are links, not flows: a repeated arc is the same link, counted once,
    # as in an edge list (summing Pajek's default weight 1 made it weigh 2 and moved the trophic levels), and the
    # web has no weights to read. With weights, repeated arcs' flows add up.
    weighted = net.get("weighted", False)
    data = edges_to_data(src, dst, net["node_names"], weight=w if weighted else None, directed=directed,
                         duplicates=duplicates, self_loops=self_loops, reduce="sum", name=name,
                         path=pj.path, line_of_row=lambda r: int(lines[r]), stats=stats)
    return data


# --------------------------------------------------------------------------------------------------------
# adjacency matrices
# --------------------------------------------------------------------------------------------------------


def named_matrix(rows: Sequence[Sequence[str]]) -> bool:
    """Whether split lines (the first of a file) are a matrix with names: a first row of column names, with or
    without a corner cell (empty as R's ``write.csv`` writes it, or a word such as ``species``), above rows that
    start with the same names in the same order (numbers too: ``"","1","2"`` above ``"1",0,1``)."""
    if len(rows) < 2 or not rows[0] or not rows[1]:
        return False
    first, below = rows[0], [r[0] for r in rows[1:] if r]
    truncated = len(rows) >= 100  # data_head's first lines only: a matrix may have more rows
    corner = len(first) >= 3 and len(first) == len(rows[1]) and (first[0] == "" or not is_number(first[0])) \
        and first[1:1 + len(below)] == below and (len(below) == len(first) - 1 or truncated)
    no_corner = len(first) >= 2 and len(first) == len(rows[1]) - 1 and first[:len(below)] == below \
        and (len(below) == len(first) or truncated)
    cells = [c for r in rows[1:] for c in r[1:]]
    return (corner or no_corner) and 2 * sum(is_number(c) or c == "" for c in cells) > len(cells)


def _matrix_rows(head: Sequence[str], sep: str) -> list[list[str]]:
    """The first data lines of an adjacency matrix split into fields, without the empty last field of a separator
    that ends every data row (``a,0,1,0,``; the header's too where it has one)."""
    rows = [split_line(x, sep) for x in head]
    if sep not in (r"\s+", " +") and len(rows) > 1 and all(len(r) > 1 and r[-1] == "" for r in rows[1:]):
        rows = [r[:-1] if len(r) > 1 and r[-1] == "" else r for r in rows]
    return rows


def _ids_in_corner(rows: Sequence[Sequence[str]]) -> bool:
    """Whether the first lines of a matrix are a first row of species ids above rows that start with the same ids,
    with a number in the corner cell (``0 1 2 3`` above ``1 0 1 0``, ``2 0 0 1``, ...: a matrix framed by its ids,
    as ``numpy.savetxt`` writes one): at least three ids, consecutive from 0 or 1. Read as entries, the ids would be
    links of an extra species (the first row and column)."""
    if len(rows) < 4 or not rows[0] or not is_number(rows[0][0]):
        return False
    first, below = list(rows[0][1:]), [r[0] for r in rows[1:] if r]
    if len(first) < 3 or any(len(r) != len(rows[0]) for r in rows[1:]) or first[:len(below)] != below \
            or not (len(below) == len(first) or len(rows) >= 100):
        return False
    try:
        ids = [float(x) for x in first]
    except ValueError:
        return False
    return ids[0] in (0, 1) and ids == [ids[0] + k for k in range(len(ids))]


def _adjacency_layout(head: Sequence[str], sep: str, header: bool | None, index_col: bool | None
                      ) -> tuple[bool | None, bool | None]:
    """``(header, index_col)`` of an adjacency matrix from its first data lines, where not forced:

    - a first row of column names above rows that start with the same names (a corner cell, empty as R's
      ``write.csv`` writes it or a word such as ``species``, or no corner cell): both, even where the names are
      numbers (``"","1","2","3"`` above ``"1",0,1,0``), and with ``header=True`` also below a number in the
      corner (:func:`_ids_in_corner`); below an empty corner the rows may name the same species in another
      order (refused by :func:`read_adjacency_matrix`, not read as entries);
    - a first row that is mostly numbers (besides a row name) is data, so that a typo or an empty cell in it
      (``0 1 x``, ``grass,,1,0``) is named at its line and column rather than taken for a header.
    Anything else is left to the detection of :func:`gatbio.data.tables.read_table`."""
    rows = _matrix_rows(head, sep)
    if not rows or not rows[0]:
        return header, index_col
    first = rows[0]
    below = [r[0] for r in rows[1:] if r]
    reordered = len(first) >= 3 and first[0] == "" and len(below) == len(first) - 1 == len(set(below)) \
        and all(len(r) == len(first) for r in rows[1:]) and set(first[1:]) == set(below)  # names refused below
    if named_matrix(rows) or reordered or (header is True and index_col is None and _ids_in_corner(rows)):
        return (True if header is None else header), (True if index_col is None else index_col)
    cells = first[1:] if not is_number(first[0]) else first  # a row name first, or none
    if header is None and cells and 2 * sum(is_number(c) for c in cells) > len(cells):
        header = False
    return header, index_col


def _not_square_hint(table, sep: str, rows: int, cols: int, col_names, names_rows) -> str:
    """What a matrix that is not square may be (said after its shape): another separator, a header row or a
    column of row names read as entries, or species with a row and no column (or the reverse)."""
    if cols == 1:
        first = read_text(table.path).split("\n")[table.line(0) - 1] if table.line(0) else ""
        other = next((c for c in ("\t", ",", ";", "|") if c in first and c != sep), None)
        if other:
            cli = ("gatbio trophic finds tabs and commas itself" if other in ("\t", ",") else
                   f"gatbio trophic, which has no separator option, reads tabs, commas or blanks (and semicolons "
                   f"when every line holds as many): replace each {other!r} by a tab")
            return (f": line {table.line(0)} holds {_SEP_WORDS.get(other, repr(other))}; is that the separator? "
                    f"(pass sep={other!r}); {cli}")
    if names_rows is not None and col_names is not None and set(names_rows) != set(col_names):
        rows_only = [x for x in names_rows if x not in set(col_names)]
        cols_only = [x for x in col_names if x not in set(names_rows)]
        return "".join([f"; with a row and no column: {first_few(rows_only, 3)}" if rows_only else "",
                        f"; with a column and no row: {first_few(cols_only, 3)}" if cols_only else "",
                        " (each species needs a row and a column, in one order)"])
    raw = read_text(table.path)
    comments = re.findall(r"^[ \t\f\v\r,;]*#.*$", raw, flags=re.M)
    if comments:
        line = raw.count("\n", 0, raw.index(comments[0])) + 1
        return (f"; {len(comments)} line(s) starting with '#' were skipped as comments (the first: line {line}, "
                f"{comments[0].strip()[:40]!r}); a species named '#...' is read when quoted (\"#name\")")
    if rows == cols + 1 and col_names is None:
        return (f": is line {table.line(0)} a row of column names? pass --header (header=True) to read it as "
                "names")
    if cols == rows + 1 and names_rows is None:
        return (f": is column 1 a column of row names (line {table.line(0)} starts with "
                f"{str(table.df.iat[0, 0])!r})? pass index_col=True (gatbio trophic has no such option), or give the "
                "matrix a header row of the same names to read both (either way)")
    return ""


def read_adjacency_matrix(
    path: str | Path,
    *,
    convention: Literal["row_to_col", "col_to_row"],
    sep: str = r"\s+",
    header: bool | None = None,
    index_col: bool | None = None,
    node_names: Sequence[str] | None = None,
    weighted: bool = False,
    name: str | None = None,
) -> Data:
    """Read a square adjacency matrix; ``convention`` is required because files disagree.

    Args:
        convention: ``"row_to_col"``: a nonzero entry ``A[i, j]`` is an edge ``i → j`` (for a food web
            with prey rows and predator columns this gives prey → predator); ``"col_to_row"``: the entry
            is an edge ``j → i`` (a predator-rows matrix, converted to prey → predator).
        header: the first row holds node names (columns); ``index_col``: the first column holds names.
            ``None`` (default): detected (a first row of text above rows of numbers; a first column of text);
            with both, the header may leave out the corner cell. Row and column names must list the same species
            in the same order (else an error at the first row that differs: a matrix is never permuted or
            transposed to make them agree). A row of ids above rows that start with them, with a number in the
            corner (``0 1 2 3`` above ``1 0 1 0``), is refused as ambiguous unless ``header`` says which it is.
        node_names: the species in row (and column) order; they replace any names in the file.
            Without names (neither given nor in the file) species are named by position **from 0**: ``"0"`` is
            the first row and the first column (as :mod:`gatbio.tasks` names unnamed nodes; a note says so).
        weighted: keep the nonzero values as ``edge_weight``. Entries are read as weights either way
            (:func:`gatbio.data.tables.parse_weights`: finite, ``>= 0``).

    A separator that ends every row (``grass,0,1,0,``) is read as an empty last field, not a column (a note says
    so). A matrix that is not square is refused with what it may be (another separator, a header row or a column
    of names read as entries, a species with a row and no column).
    """
    check_path(path, "read_adjacency_matrix")
    if convention not in ("row_to_col", "col_to_row"):
        raise ValueError(f"convention={convention!r}: expected 'row_to_col' (A[i, j] means i -> j) "
                         "or 'col_to_row' (A[i, j] means j -> i)")
    if header is None or index_col is None:
        head = data_head(path, "#", numbered=True)
        if header is None and index_col is None and _ids_in_corner(_matrix_rows([x for _, x in head], sep)):
            no, shown = head[0][0], head[0][1].strip()
            ids = _matrix_rows([shown], sep)[0]
            raise MalformedFileError(path, no, f"{shown[:57] + '...' if len(shown) > 60 else shown!r} looks like "
                                     f"species ids ({first_few(ids[1:], 3)}) above rows that start with the same ids, "
                                     f"with a number ({ids[0]!r}) in the corner cell: a row and a column of names, or "
                                     "entries of the matrix (links of one more species)? Write the corner cell empty "
                                     "(or a word such as 'species') or pass --header (header=True) to read them as "
                                     "names; --no-header (header=False) reads them as entries")
        forced = header
        header, index_col = _adjacency_layout([x for _, x in head], sep, header, index_col)
        if forced is None and header and index_col:
            shown = head[0][1].strip()
            note(f"{path}: line {head[0][0]} {shown[:57] + '...' if len(shown) > 60 else shown!r} read as the "
                 "column names, and column 1 as the row names (the same names; --no-header reads the line as data)")
    table = read_table(path, sep=sep, header=header, comment="#", unique_header=False)  # species: checked below
    path, df, col_names = table.path, table.df, table.header
    m = df.shape[1]
    if sep not in (r"\s+", " +") and m > 1 and bool(df.iloc[:, -1].isna().all()) \
            and (col_names is None or len(col_names) < m or col_names[m - 1] == ""):
        # a separator ending every row ('grass,0,1,0,'), as some exports write: an empty last field, not a column
        df = df.iloc[:, :-1]
        col_names = col_names[:-1] if col_names and col_names[-1] == "" else col_names
        note(f"{path}: every row ends with {_SEP_WORDS.get(sep, repr(sep))} (line {table.line(0)}: an empty last "
             "field): read without that empty column")
    if col_names is not None:
        col_names = list(col_names)
        while len(col_names) > df.shape[1] and col_names[-1] == "":  # the header's trailing separators
            col_names.pop()
    if index_col is None:
        index_col = df.shape[1] > 1 and bool(pd.to_numeric(df.iloc[:, 0], errors="coerce").isna().all())
    names_rows = None
    if index_col:
        names_rows = df.iloc[:, 0].astype(str).tolist()
        df = df.iloc[:, 1:]
        if col_names is not None and len(col_names) == df.shape[1] + 1:
            col_names = col_names[1:]  # the corner cell
    n = df.shape[0]
    if df.shape[1] != n:
        raise MalformedFileError(path, None, f"expected a square matrix, found {n} rows x {df.shape[1]} columns"
                                 + _not_square_hint(table, sep, n, df.shape[1], col_names, names_rows))
    vals = df.apply(pd.to_numeric, errors="coerce").to_numpy(np.float64)
    bad = ~np.isfinite(vals) | (vals < 0)
    if bad.any():
        r, c = (int(k) for k in np.argwhere(bad)[0])
        column = c + 1 + bool(index_col)
        if pd.isna(df.iat[r, c]) and _field_is_empty(table, sep, r, column - 1):  # 'grass,,1,0'
            raise MalformedFileError(path, table.line(r), f"column {column}: the entry is empty (write 0 for no "
                                                          "link)")
        raise MalformedFileError(path, table.line(r), f"column {column}: " + weight_problem(df.iat[r, c], "entry"))
    a = vals
    if names_rows is not None and col_names is not None and len(col_names) == n and list(col_names) != names_rows:
        k = next(k for k in range(n) if col_names[k] != names_rows[k])
        same = sorted(map(str, col_names)) == sorted(names_rows)
        raise MalformedFileError(path, table.line(k), f"row and column names differ: row {k + 1} (this line) is "
                                                      f"{names_rows[k]!r}, column {k + 1} (line "
                                                      f"{table.header_line}) is {col_names[k]!r}: the rows and "
                                                      "the columns list the species in one order"
                                 + (" (here the same species in another order: sort the rows as the columns)"
                                    if same else ""))
    if node_names is None:
        node_names = names_rows or (list(col_names) if col_names is not None and len(col_names) == n
                                    else [str(i) for i in range(n)])
        if not names_rows and not (col_names is not None and len(col_names) == n) and n:
            note(f"{path}: no species names (no header row or first column of names): species are named by their "
                 f"position from 0, '0' for the first row and column (line {table.line(0)})"
                 + (f" to '{n - 1}' for row and column {n} (line {table.line(n - 1)})" if n > 1 else ""))
        seen: dict[str, int] = {}
        for k, name_k in enumerate(map(str, node_names)):
            if name_k in seen:  # two species of one name: links to "grass" would be ambiguous
                what = "rows" if names_rows else "columns"
                raise MalformedFileError(path, table.line(k) if names_rows else table.header_line,
                                         f"species {name_k!r} is named twice ({what} {seen[name_k] + 1} and {k + 1}): "
                                         "give each row and column its own name")
            seen[name_k] = k
    if len(node_names) != n:
        raise ValueError(f"{path}: {len(node_names)} node names for a {n}x{n} matrix")
    i, j = np.nonzero(a)
    w = a[i, j]
    if convention == "col_to_row":
        i, j = j, i
        order = np.lexsort((j, i))
        i, j, w = i[order], j[order], w[order]
    return edges_to_data(i, j, node_names, weight=w if weighted else None, directed=True,
                         name=name or path.stem, path=path)
