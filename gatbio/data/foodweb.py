"""Food-web datasets: GATEWAy webs, cheddar webs and the Pajek carbon-flow webs.

Direction convention (one for every food web): an edge ``u → v`` means **v eats u** (prey → predator,
resource → consumer, the direction energy flows), as in networkx's ``trophic.py`` and in GATEWAy files.
Readers convert other conventions at the boundary.

Every web is a :class:`~torch_geometric.data.Data` with ``edge_index``, ``num_nodes``, ``node_names``, ``name``,
``web_id`` and traits ``x`` float ``(N, F)`` named by ``trait_names`` (no NaN: a missing value is imputed and
flagged in a ``*_missing`` column).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from torch_geometric.data import Data

from gatbio.data.io import (
    MalformedFileError,
    PajekFile,
    SelfLoopPolicy,
    edges_to_data,
    read_edge_list,
    read_pajek,
    refuse_repeated_labels,
)
from gatbio.data.sources import CHEDDAR_WEBS, GATEWAY_WEBS, PAJEK_WEBS, require_files, unknown_name
from gatbio.data.tables import (
    check_control_characters,
    check_file,
    check_unique_header,
    first_few,
    note,
    read_node_table,
    read_table,
    read_text,
)

__all__ = ["load_gateway", "load_cheddar", "load_pajek_foodweb", "read_gateway_web", "read_cheddar",
           "read_pajek_foodweb",
           "read_trait_table", "read_species_traits", "gateway_web_folder", "gateway_folder_names",
           "GATEWAY_TRAIT_ORDER"]

#: Trait columns of GATEWAy node tables: metabolic / movement one-hot groups, then body mass.
GATEWAY_TRAIT_ORDER = ("met_", "mov_", "log_mass", "mass_missing")


def _is_missing_trait(v: str) -> bool:
    """``NA`` (any case, as R and GATEWAy write a value not measured) or an empty field (with a separator that
    allows one): a missing trait."""
    return v == "" or v.upper() == "NA"


def read_trait_table(path: str | Path, num_nodes: int, *, sep: str = r"\s+", id_column: str = "id") -> pd.DataFrame:
    """Read a node-trait table (header row, one row per node, first column ``id`` = 0..N-1 in order).

    A missing trait (``NA`` or an empty field) is imputed with its column's median (0 when the column has no
    value) and flagged in a 0/1 column ``<trait>_missing`` (``mass_missing`` for ``log_mass``, GATEWAy's flag;
    an existing flag column is set to 1 there), with a note counting them: as a ``--traits`` table's missing
    values are (:func:`gatbio.tasks.foodweb.prepare_traits`), so that the traits hold no NaN.

    Raises :class:`MalformedFileError` (with ``file:line``) on a column name repeated in the header, a wrong
    column count, a non-numeric value, a ``nan`` / ``inf`` trait, a missing id, or ids that are not ``0..N-1`` in
    order.
    """
    path = check_file(path)
    text = read_text(path)
    check_control_characters(path, text)  # a NUL byte: at its line, not as a trait that is no number
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or not lines[0].strip():
        raise MalformedFileError(path, None, "the file is empty")
    header = lines[0].split() if sep == r"\s+" else lines[0].split(sep)
    if header[0] != id_column:
        raise MalformedFileError(path, 1, f"expected the first column to be {id_column!r}, found {header[0]!r}")
    check_unique_header(path, 1, header)
    rows = [(no, ln) for no, ln in enumerate(lines[1:], start=2) if ln.strip()]
    fields = []
    for no, ln in rows:
        parts = ln.split() if sep == r"\s+" else ln.split(sep)
        if len(parts) != len(header):
            raise MalformedFileError(path, no, f"expected {len(header)} columns ({' '.join(header)}), found {len(parts)} "
                                               "(inconsistent trait columns)")
        for col, v in zip(header, parts, strict=False):
            if _is_missing_trait(v):
                if col == id_column:
                    raise MalformedFileError(path, no, f"{id_column} is {v or 'empty'}: each row starts with its "
                                                       f"node id (0..N-1 in order)")
                continue  # a missing trait: imputed and flagged below
            try:
                f = float(v)
            except ValueError:
                raise MalformedFileError(path, no, f"trait {col!r} must be a number, found {v!r} (one-hot encode a "
                                                   "categorical trait, e.g. met_plant 0/1; write NA for a value not "
                                                   "measured: it is imputed and flagged)") from None
            # A literal nan / inf stays an error (unlike NA): in a trait file it is most often a computation gone
            # wrong (log10 of a mass of 0 or below), which an imputation would hide.
            if not np.isfinite(f):
                raise MalformedFileError(path, no, f"trait {col!r} is {v} (NaN/inf traits are not allowed: "
                                                   "check how the value was computed, or write NA for a value not "
                                                   "measured: it is imputed and flagged)")
        fields.append([np.nan if _is_missing_trait(v) else v for v in parts])
    df = pd.DataFrame(fields, columns=header).astype(float)
    ids = df[id_column].to_numpy()
    wrong = next((k for k in range(min(len(ids), num_nodes)) if ids[k] != k), None)
    if wrong is not None:  # the line, and what it holds
        raise MalformedFileError(path, rows[wrong][0], f"expected one row per node with ids 0..{num_nodes - 1} in "
                                                       f"order: this row (row {wrong + 1}) has id {ids[wrong]:g}, not "
                                                       f"{wrong}")
    if len(df) != num_nodes:
        raise MalformedFileError(path, None, f"expected one row per node with ids 0..{num_nodes - 1} in order, "
                                             f"found {len(df)} rows")
    return _impute_missing_traits(path, df, id_column)


def impute_missing(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values with every non-finite one set to the median of the finite ones (0 when there are none), where
    they were)``: the one imputation of missing traits (a web's node table, a ``--traits`` table)."""
    v = np.array(values, dtype=float)
    bad = ~np.isfinite(v)
    v[bad] = np.median(v[~bad]) if (~bad).any() else 0.0
    return v, bad


def _impute_missing_traits(path: Path, df: pd.DataFrame, id_column: str) -> pd.DataFrame:
    """``df`` with its NaN traits imputed and flagged (see :func:`read_trait_table`), and a note counting them.

    Imputed here rather than left as NaN: every reader of a web's ``x`` may rely on it holding no NaN (the module
    docstring says so), while :func:`gatbio.tasks.foodweb.prepare_traits`, which imputes the NaN of a
    ``--traits`` table, does the same thing to these values: the column's median (0 when it has none) and a 0/1
    flag, so the models see what they would see from a ``--traits`` table with the same NA cells (the flag here
    is then standardised as any trait column, an affine change that carries the same information)."""
    miss = {c: df[c].isna().to_numpy() for c in df.columns if c != id_column and df[c].isna().any()}
    if not miss:
        return df
    for c in miss:
        df[c] = impute_missing(df[c].to_numpy(float))[0]
    flags = []
    for c, m in miss.items():
        flag = "mass_missing" if c == "log_mass" else f"{c}_missing"
        df[flag] = np.maximum(df[flag].to_numpy(), m) if flag in df.columns else m.astype(float)
        flags.append(flag)
    count = int(sum(m.sum() for m in miss.values()))
    rows = int(np.any(np.stack(list(miss.values())), axis=0).sum())
    note(f"{path}: {count} missing trait value{'s' if count > 1 else ''} (NA) in {rows} of {len(df)} rows, in "
         f"{first_few(list(miss), 5)}: imputed with the column's median (0 when it has none) and flagged in "
         f"{first_few(list(dict.fromkeys(flags)), 5)}, as for a --traits table")
    return df


def read_species_traits(path: str | Path, species: list[str], *, header: bool | None = None,
                        add_unknown: bool = False, categorical: bool = False
                        ) -> tuple[np.ndarray, list[str], list[str]]:
    """A user's species-trait table aligned to a web's ``species``: ``(traits (N + K, F), trait names, the K
    species added)``.

    One row per species: the species name (the ``species`` column when the header has one, else the first
    column), then traits: numbers, or (``categorical``) categories. CSV, TSV or whitespace separated (from the
    first line), any compression. A
    header row is detected (its first field is not a species of the web, and it names the columns: header words,
    or text above numbers) unless ``header`` forces it; without one the traits are named ``trait_1`` ... .
    Species without a row get NaN traits (imputed and flagged later by
    :func:`gatbio.tasks.foodweb.prepare_traits`); duplicate rows and non-numeric values are errors naming the file
    and line. A species of the table that is not in the web is an error (``K = 0``), or with ``add_unknown`` a
    species of the web without links yet (a species whose diet is the question), its row after the web's in file
    order; but a name that differs from a web species' only in case, spaces, underscores or Unicode form
    (``Heron`` for ``heron``) is a misspelling, not a new species: an error naming its line and the web's spelling.
    A table with no trait column gives ``F = 0``.

    With ``categorical`` (as ``foodweb predict --traits`` reads a table), a text column (``metabolic``:
    ``plant``, ``invertebrate``, ...) is one-hot encoded, as GATEWAy's ``met_*`` columns are: one 0/1 trait
    ``<column>=<category>`` per category (as written, whitespace stripped; sorted, so the row order does not
    matter) in place of the column, said in a note that also names categories differing only in case (``Plant``,
    ``plant``: a typo?). An empty or ``NA`` cell is missing (NaN in each of the column's traits, imputed later as
    any missing trait). Refused, naming the file: a column mostly of numbers with a text cell (a typo, at its
    line), a text column with a number in it (at its line), more than 20 categories, a different text on each of
    6 or more rows (names or free text), and, with ``add_unknown``, a first row without numbers naming no species
    (an undetected header: ``header`` decides). Without ``categorical``, text is refused, as in any table of
    numbers.

    A line starting with ``#`` is skipped as a comment, as in every table, but a trait table (a CSV from a
    spreadsheet or R) documents no comments: such a line is more likely a species named ``#...`` or a row
    commented out, so one note per file says how many were skipped and the first one's line (a quoted
    ``"#name"`` is read as a name).
    """
    hint = ("(a typo? a column is read as categories when most of its values do not start like a number: "
            "'2D' or '1st' do, so write such categories starting with a letter; leave missing values empty)") \
        if categorical else "(one-hot encode categorical traits; leave missing values empty)"
    values, names, extra, lines = read_node_table(path, species, what="species", where="web", header=header,
                                                  unknown="add" if add_unknown else "error", value_word="trait",
                                                  value_hint=hint, comment_note=True, row_lines=True,
                                                  categorical=categorical)
    if add_unknown and extra:
        _refuse_lookalike_new_species(Path(path), species, extra, lines[len(species):], lines[:len(species)])
    return values, names, extra if add_unknown else []


def _species_key(name: str) -> str:
    """A species name as a look-alike check compares it: Unicode NFC, case-folded, ``_`` as a space, runs of
    whitespace as one space, no leading or trailing space (``Salmo_trutta`` and ``salmo  trutta`` are alike)."""
    import unicodedata

    return " ".join(unicodedata.normalize("NFC", str(name)).casefold().replace("_", " ").split())


def _refuse_lookalike_new_species(path: Path, species: list[str], added: list[str], lines, web_lines) -> None:
    """Refuse a trait-table species that is not a species of the web but differs from one only in case, spaces,
    underscores or Unicode form (``Heron`` for the web's ``heron``): added as a new species without links, it
    would leave the web's species without its traits (imputed) and predict the links of a species that is not
    there, where a misspelling is far likelier than a new species."""
    web: dict[str, list[str]] = {}
    row_of = {s: int(line) for s, line in zip(species, web_lines, strict=True)}  # 0: no row in the table
    for s in species:
        web.setdefault(_species_key(s), []).append(s)
    for name, line in zip(added, lines, strict=True):
        match = web.get(_species_key(name))
        if match and row_of.get(match[0]):  # both spellings have a row: one species written twice
            raise MalformedFileError(path, int(line) or None,
                                     f"species {name!r} is not in the web, and the web's {match[0]!r}, which "
                                     f"differs from it only in case, spaces, underscores or Unicode form, has its own "
                                     f"row (line {row_of[match[0]]}): one species written twice? Keep one row "
                                     f"(named {match[0]!r}, as the web does) and delete the other")
        if match:
            raise MalformedFileError(path, int(line) or None,
                                     f"species {name!r} is not in the web, but the web's {match[0]!r} differs "
                                     "from it only in case, spaces, underscores or Unicode form: write it as the "
                                     f"web does ({match[0]!r}) so that these traits are that species' (only a name "
                                     "like no species of the web is added as a new species without links)")


@functools.lru_cache(maxsize=4)
def _gateway_tables(root: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    folder = Path(root)
    check_control_characters(folder / "node_ids.csv", read_text(folder / "node_ids.csv"))  # in a species name
    index = pd.read_csv(folder / "web_index.csv")
    # names as written: pandas read a taxon "NA", "null" or "None" as missing, and an empty name became "nan"
    node_ids = pd.read_csv(folder / "node_ids.csv", index_col=0, keep_default_na=False)
    node_ids.columns = ["web_name", "node_name", "node_id"]
    empty = np.flatnonzero(node_ids["node_name"].astype(str).str.strip() == "")
    if len(empty):
        raise MalformedFileError(folder / "node_ids.csv", int(empty[0]) + 2,  # + the header line, 1-based
                                 f"species {node_ids['node_id'].iloc[empty[0]]} of web "
                                 f"{node_ids['web_name'].iloc[empty[0]]!r} has no name ({len(empty)} such row(s)): "
                                 "give each species a name (taxon_lifestage)")
    return index, node_ids


def check_gateway_name(name: str, key: str) -> bool:
    """``True`` when ``name`` is a ``gateway/<id>`` web name; its id must be one of the collection's webs, else a
    one-line ``ValueError`` naming the config ``key``. ``False`` for any other name (the caller checks it)."""
    from gatbio.data.sources import UnknownDatasetError

    if not re.fullmatch(r"gateway/\d+", name):
        return False
    try:
        gateway_web_folder(name.split("/", 1)[1])
    except UnknownDatasetError as err:
        raise ValueError(f"config {key}: {err}") from None
    return True


def gateway_web_folder(web: str | int) -> str:
    """The folder name (e.g. ``"AEW03_11"``) of a GATEWAy web given its id (``11``) or folder name."""
    s = str(web)
    if s in GATEWAY_WEBS:
        return s
    hits = [w for w in GATEWAY_WEBS if w.rsplit("_", 1)[1] == s]
    if not hits:
        ids = sorted(int(w.rsplit("_", 1)[1]) for w in GATEWAY_WEBS)
        raise unknown_name("GATEWAy web", s, [str(i) for i in ids] + list(GATEWAY_WEBS), prefix="gateway/",
                           listing=f"{len(ids)} webs with ids {ids[0]}..{ids[-1]}: gatbio datasets --members gateway")
    return hits[0]


def gateway_folder_names(folder: str | Path) -> list[str] | None:
    """The species names (``taxon_lifestage``) of a web folder inside a GATEWAy collection
    (``<collection>/webs/<folder>`` next to ``<collection>/web_index.csv`` and ``node_ids.csv``, the layout of
    ``gateway_dev``), in node-id order; ``None`` when the folder is not part of such a collection (a user's own
    folder: its nodes keep their ids as names)."""
    folder = Path(folder)
    collection = folder.resolve().parent.parent
    if not ((collection / "web_index.csv").is_file() and (collection / "node_ids.csv").is_file()):
        return None
    index, node_ids = _gateway_tables(str(Path(collection).resolve()))  # cached by absolute path
    row = index[index["data_dir"].astype(str) == folder.resolve().name] if "data_dir" in index else index[:0]
    if len(row) != 1:
        return None
    return _web_species(node_ids, row["web_name"].iloc[0], int(row["n_nodes"].iloc[0]))


def _web_species(node_ids: pd.DataFrame, web_name: str, n: int) -> list[str] | None:
    """The species names of web ``web_name`` in a collection's ``node_ids.csv`` table (:func:`_gateway_tables`),
    in node-id order; ``None`` unless the web's ids there are ``0..n - 1`` (``n``: its ``n_nodes`` in
    ``web_index.csv``), each once. The one check of a web's node-id order (:func:`load_gateway` refuses such a
    web, :func:`gateway_folder_names` gives its folder no names)."""
    names = node_ids[node_ids["web_name"] == web_name].sort_values("node_id")
    if not np.array_equal(names["node_id"].to_numpy(), np.arange(n)):
        return None
    return names["node_name"].astype(str).tolist()


def load_gateway(web: str | int, root: Path | None = None) -> Data:
    """One GATEWAy web (by id, e.g. ``11``, or folder name, e.g. ``"AEW03_11"``).

    ``edge_index`` holds the links **in exact file line order** (the benchmark folds depend on it), prey →
    predator. ``x``: the web's trait columns (``met_*``, ``mov_*`` one-hot, ``log_mass``, ``mass_missing``; a
    web without ``mass_missing`` gets a zero column so that every web has it). ``node_names`` are
    ``taxon_lifestage`` names from ``node_ids.csv``. Also ``web_id``, ``web_name``, ``ecosystem_type`` and
    ``published``: the Van Kleunen et al. per-web ROC-AUC / PR-AUC.
    """
    folder_name = gateway_web_folder(web)
    wid = int(folder_name.rsplit("_", 1)[1])
    edge_file, attr_file = f"webs/{folder_name}/{wid}_edge_list.txt", f"webs/{folder_name}/{wid}_node_attr_list.txt"
    folder = require_files("gateway", [edge_file, attr_file, "web_index.csv", "node_ids.csv"], root=root)
    index, node_ids = _gateway_tables(str(Path(folder).resolve()))  # cached by absolute path
    row = index[index["web_id"] == wid]
    if len(row) != 1:
        raise MalformedFileError(folder / "web_index.csv", None, f"expected one row for web_id {wid}, found {len(row)}")
    row = row.iloc[0]
    n = int(row["n_nodes"])
    names = _web_species(node_ids, row["web_name"], n)
    if names is None:
        raise MalformedFileError(folder / "node_ids.csv", None, f"expected node ids 0..{n - 1} for web {row['web_name']!r}")
    data = read_gateway_web(folder / "webs" / folder_name, node_names=names)
    data.name = f"gateway/{wid}"
    if data.num_edges != int(row["n_links"]):
        raise MalformedFileError(folder / edge_file, None, f"expected {row['n_links']} links, found {data.num_edges}")
    data.web_id, data.web_name, data.ecosystem_type = wid, str(row["web_name"]), str(row["ecosystem_type"])
    data.published = {k: float(row[k]) for k in index.columns if k.endswith("_auc")}
    return data


def read_gateway_web(folder: str | Path, *, node_names: list[str] | None = None,
                     self_loops: SelfLoopPolicy = "keep", add_mass_missing: bool = True) -> Data:
    """Read a web folder in the GATEWAy layout: ``<id>_edge_list.txt`` (``resource consumer`` ids ``0..S-1``,
    prey → predator, **file line order kept**) and optionally ``<id>_node_attr_list.txt`` (header, ``id`` first,
    one row per node; traits → ``x``, ``trait_names``; a zero ``mass_missing`` column is added when absent,
    unless ``add_mass_missing=False``).

    Node names are the ids as strings unless ``node_names`` is given. Duplicate links are an error.
    """
    folder = Path(folder)
    if folder.is_file():
        raise NotADirectoryError(f"{folder}: is a file; a GATEWAy web is a folder holding <id>_edge_list.txt (and "
                                 "optionally <id>_node_attr_list.txt): give the folder, or read the file as an "
                                 "edge list (--format edgelist)")
    edges = sorted(folder.glob("*_edge_list.txt"))
    if len(edges) != 1:
        raise FileNotFoundError(f"{folder}: expected exactly one *_edge_list.txt (GATEWAy layout), found {len(edges)}")
    attrs = sorted(folder.glob("*_node_attr_list.txt"))
    n = len(node_names) if node_names is not None else None
    if attrs and n is None:
        n = sum(1 for ln in read_text(attrs[0]).split("\n") if ln.strip()) - 1  # rows after the header
    try:
        data = read_edge_list(edges[0], numeric_ids=True, num_nodes=n, node_names=node_names, directed=True,
                              duplicates="error", self_loops=self_loops, name=folder.name)
    except MalformedFileError as err:  # an id outside 0..N-1: say where N comes from, and the fix
        raise _gateway_id_error(err, edges[0], attrs[0] if attrs else None, n, node_names is not None) from None
    if n is None:  # no node table: the web's species are the ids 0..max; an id in no link is a guess
        unlinked = sorted(set(range(data.num_nodes)) - set(data.edge_index.unique().tolist()))
        if unlinked:
            note(f"{edges[0]}: id{'s' if len(unlinked) > 1 else ''} {first_few(unlinked, 8)} of 0..{data.num_nodes - 1} "
                 f"{'are' if len(unlinked) > 1 else 'is'} in no link and the folder has no *_node_attr_list.txt: "
                 "read as species without links (a node table, one row per species, says which species the web "
                 "has)")
    if attrs:
        traits = read_trait_table(attrs[0], data.num_nodes)
        cols = [c for c in traits.columns if c != "id"]
        if add_mass_missing and "mass_missing" not in cols:
            traits["mass_missing"] = 0.0
            cols.append("mass_missing")
        data.x = torch.tensor(traits[cols].to_numpy(), dtype=torch.float)
        data.trait_names = cols
    data.web_id = folder.name
    return data


def _gateway_id_error(err: MalformedFileError, edge_file: Path, attr_file: Path | None, n: int | None,
                      named: bool) -> MalformedFileError:
    """``err`` (from the generic edge-list reader) said for a GATEWAy folder, when it is about an id outside
    ``0..N-1``: which id the line uses, where the node count ``N`` comes from (the node table's rows, or the
    web's species list) and how to fix it; any other error as it is."""
    out = re.match(r"node id (-?\d+) is out of range", err.message)
    below = err.message.startswith("node id below index_base")
    if not (out or below) or err.line is None:
        return err
    if out:
        k = int(out.group(1))
    else:  # the generic message does not say the id: read it from the line
        fields = re.split(r"[\s,;]+", read_text(edge_file).split("\n")[err.line - 1])
        k = next((int(f) for f in fields if re.fullmatch(r"-\d+", f)), -1)
    if k < 0:
        size = f" (N = {n} here: ids 0..{n - 1})" if n else ""
        return MalformedFileError(edge_file, err.line, f"node id {k} is negative: ids are 0..N-1 for a web of N "
                                                       f"species{size}; correct the id")
    if named:
        src, fix = f"the web's species list (node_ids.csv of the collection) has {n} species, ids 0..{n - 1}", \
            "correct the id, or add the species to node_ids.csv and to n_nodes in web_index.csv"
    elif attr_file is not None:
        gap = _node_table_gap(attr_file)
        if gap is not None:  # a row left out inside the table: the table's line, not the edge list's
            line, m, got = gap
            used = _first_line_using(edge_file, m)
            uses = f"{edge_file} uses node id {m} (line {used})" if used is not None else \
                f"{edge_file} uses node id {k} (line {err.line}), beyond the rows"
            return MalformedFileError(attr_file, line, f"the node table has no row for node id {m}: this row has id "
                                                       f"{got:g}, but the rows give the web's species ids 0..N-1 in "
                                                       f"order, one row each, and {uses}: add the row for node id "
                                                       f"{m} before this line (or renumber the rows 0..N-1, and "
                                                       "the edge list's ids with them)")
        has = f"{n} row{'s' if n != 1 else ''}, ids 0..{n - 1}" if n else "a header and no rows"
        rows = f"a row for node id {k}" if k == (n or 0) else f"rows for node ids {n or 0}..{k}"
        src, fix = f"it has no row in the node table {attr_file} (its rows are the web's species: {has})", \
            f"add {rows} to {attr_file} (one row per species, ids 0..N-1 in order), or correct the id"
    else:
        return err
    return MalformedFileError(edge_file, err.line, f"node id {k} is not a species of the web: {src}; {fix}")


def _node_table_gap(attr_file: Path) -> tuple[int, int, float] | None:
    """``(line, missing id, id found there)`` of the first row of a GATEWAy node table whose id is larger than its
    position (the rows before it leave out id ``missing``), or ``None`` (ids in order, or not all numbers: left to
    :func:`read_trait_table`)."""
    lines = read_text(attr_file).split("\n")
    rows = [(no, ln.split()[0]) for no, ln in enumerate(lines[1:], start=2) if ln.strip()]
    for m, (no, field) in enumerate(rows):
        try:
            got = float(field)
        except ValueError:
            return None
        if got != m:
            return (no, m, got) if got > m else None
    return None


def _first_line_using(edge_file: Path, node: int) -> int | None:
    """The first line of a GATEWAy edge list whose resource or consumer is ``node``, or ``None``."""
    for no, ln in enumerate(read_text(edge_file).split("\n"), start=1):
        if str(node) in re.split(r"[\s,;]+", ln.strip())[:2]:
            return no
    return None


def _log10_with_flag(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    v = pd.to_numeric(values, errors="coerce").to_numpy(float)
    missing = ~np.isfinite(v) | (v <= 0)
    logv = np.full(len(v), np.nan)
    logv[~missing] = np.log10(v[~missing])
    fill = np.nanmean(logv) if (~missing).any() else 0.0
    logv[missing] = fill  # mean imputation, flagged
    return logv, missing.astype(float)


def load_cheddar(web: str, root: Path | None = None, *, self_loops: SelfLoopPolicy = "keep") -> Data:
    """A cheddar community (e.g. ``"TL84"``, ``"Millstream/c4"``, ``"pHWebs/Broadstone"``).

    Edges are the ``trophic.links.csv`` rows in file order, ``resource → consumer`` (prey → predator); a pair
    listed more than once (as a cheddar export may, once per life stage) is one link at its first row, its
    weights summed, with a note.
    Cannibal links are self-loops (kept by default). Isolated taxa are kept. ``x``: one-hot ``category``
    (``cat_*``), ``log10_M`` and ``log10_N`` (missing values mean-imputed and flagged in ``M_missing`` /
    ``N_missing``), when the web has those columns. ``edge_weight``: ``diet.fraction`` (Benguela) or
    ``biomass.flow`` (Chesapeake Bay) when present.
    """
    if web not in CHEDDAR_WEBS:
        raise unknown_name("cheddar web", web, list(CHEDDAR_WEBS), prefix="cheddar/",
                           listing="gatbio datasets --members cheddar")
    folder = require_files("cheddar", [f"{web}/nodes.csv", f"{web}/trophic.links.csv", f"{web}/properties.csv"],
                           root=root) / web
    data = read_cheddar(folder, self_loops=self_loops)
    data.name, data.web_id = f"cheddar/{web}", web
    return data


def _cheddar_weights(path: Path, link_table) -> np.ndarray | None:
    """The link weights of a cheddar ``trophic.links.csv``: its ``biomass.flow`` column, else its
    ``diet.fraction`` column (a note says which when it has both), checked by the one weight parser. A weight
    column that is empty on every row is no weight (read unweighted, with a note); one empty cell in a column
    that has values is an error naming its line and column: reading the web unweighted there would silently drop
    every other link's weight (and with them the flow-weighted trophic levels)."""
    links = link_table.df
    present = [wc for wc in ("diet.fraction", "biomass.flow") if wc in links.columns]
    filled = [wc for wc in present if links[wc].notna().any()]
    for wc in present:
        if wc not in filled and len(links):
            note(f"{path}: column {wc!r} is empty on every row: not used as link weights")
    if not filled:
        return None
    wc = filled[-1]  # biomass.flow (an amount) before diet.fraction (a share of each consumer's diet)
    if len(filled) > 1:
        note(f"{path}: both {filled[0]!r} and {wc!r} columns: {wc!r} is used as the link weight, "
             f"{filled[0]!r} is not read")
    empty = links[wc].isna().to_numpy()
    if empty.any():
        r = int(np.flatnonzero(empty)[0])
        col = int(links.columns.get_loc(wc)) + 1
        raise MalformedFileError(path, link_table.line(r),
                                 f"{wc} (column {col}) is empty, but other links have a {wc}: write this link's "
                                 f"{wc} (0: no flow), or remove the {wc} column to read the web unweighted "
                                 f"({int(empty.sum())} empty in all)")
    return link_table.weights(wc, wc)


def read_cheddar(folder: str | Path, *, self_loops: SelfLoopPolicy = "keep") -> Data:
    """Read a community saved in cheddar's CSV layout (``nodes.csv``, ``trophic.links.csv``, optional
    ``properties.csv``); see :func:`load_cheddar` for what comes out.

    The files are read by the one table reader (:func:`gatbio.data.tables.read_table`: any compression, header
    row required, messages with ``file:line``): ``nodes.csv`` needs a ``node`` column, ``trophic.links.csv`` a
    ``resource`` and a ``consumer`` column; ``M`` / ``N`` must be numbers where given (empty: missing), and a
    ``biomass.flow`` (else ``diet.fraction``) column is the link weight, checked by the one weight parser: an
    empty cell in it is an error, a column empty on every row is no weight (:func:`_cheddar_weights`). A link
    listed twice is merged into one (its weights summed), with a note counting them and naming the first one's
    lines, as the command-line edge-list readers do."""
    folder = Path(folder)
    for f in ("nodes.csv", "trophic.links.csv"):
        if not (folder / f).is_file():
            raise FileNotFoundError(f"{folder / f}: no such file (a cheddar community folder has nodes.csv and "
                                    "trophic.links.csv)")
    node_table = read_table(folder / "nodes.csv", sep=",", header=True, comment=None)
    link_table = read_table(folder / "trophic.links.csv", sep=",", header=True, comment=None)
    nodes = node_table.df
    names = node_table.column("node").astype(str).tolist()
    index = pd.Index(names)
    if not index.is_unique:
        r = int(np.flatnonzero(index.duplicated())[0])
        raise MalformedFileError(folder / "nodes.csv", node_table.line(r), f"duplicate node name {names[r]!r}")
    res, con = link_table.column("resource"), link_table.column("consumer")
    a, b = index.get_indexer(res.astype(str)), index.get_indexer(con.astype(str))
    bad = (a < 0) | (b < 0) | res.isna().to_numpy() | con.isna().to_numpy()
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise MalformedFileError(folder / "trophic.links.csv", link_table.line(r),
                                 f"link names a node that is not in nodes.csv: {[res.iloc[r], con.iloc[r]]}")
    w = _cheddar_weights(folder / "trophic.links.csv", link_table)
    data = edges_to_data(a, b, names, weight=w, directed=True, duplicates="merge", reduce="sum",
                         self_loops=self_loops, name=folder.name, path=folder / "trophic.links.csv",
                         line_of_row=link_table.line)
    key = pd.Series(a * len(names) + b)
    dup = key.duplicated().to_numpy() & ((a != b) | (self_loops != "remove"))  # a removed self-loop merges nothing
    if dup.any():
        r = int(np.flatnonzero(dup)[0])
        r0 = int(np.flatnonzero(key.to_numpy() == key.iloc[r])[0])
        k, summed = int(dup.sum()), "; their weights summed" if w is not None else ""
        note(f"{folder / 'trophic.links.csv'}: {k} link{'s' if k > 1 else ''} listed more than once, e.g. "
             f"{names[a[r]]!r} -> {names[b[r]]!r} (lines {link_table.line(r0)} and {link_table.line(r)}): merged, each "
             f"counted once{summed}")
    feats, fnames = [], []
    if "category" in nodes.columns:
        cats = sorted(nodes["category"].dropna().unique())
        for c in cats:
            feats.append((nodes["category"] == c).to_numpy(float))
            fnames.append(f"cat_{c}")
    for col in ("M", "N"):
        if col in nodes.columns:
            v = pd.to_numeric(nodes[col], errors="coerce")
            bad = (v.isna() & nodes[col].notna()).to_numpy()
            if bad.any():
                r = int(np.flatnonzero(bad)[0])
                raise MalformedFileError(folder / "nodes.csv", node_table.line(r), f"{col} must be a number, found "
                                         f"{nodes[col].iloc[r]!r} (leave missing values empty)")
            logv, miss = _log10_with_flag(v)
            feats += [logv, miss]
            fnames += [f"log10_{col}", f"{col}_missing"]
    data.x = torch.tensor(np.stack(feats, 1) if feats else np.zeros((len(names), 0)), dtype=torch.float)
    data.trait_names = fnames
    props = read_table(folder / "properties.csv", sep=",", header=True, comment=None).df \
        if (folder / "properties.csv").is_file() else pd.DataFrame()
    data.web_id = folder.name
    data.web_name = str(props["title"].iloc[0]) if "title" in props.columns else folder.name
    if "category" in nodes.columns:
        data.category = nodes["category"].fillna("").astype(str).tolist()
    return data


#: Pajek ECO compartment types (``*partition ECO types``).
PAJEK_TYPES = {1: "living", 2: "non-living", 3: "input", 4: "output", 5: "respiration"}


def load_pajek_foodweb(web: str, root: Path | None = None, *, self_loops: SelfLoopPolicy = "keep") -> Data:
    """A Ulanowicz / ATLSS carbon-flow web (e.g. ``"baydry"`` = Florida Bay, dry season).

    Only **feeding arcs** are kept, as the dataset's SOURCE.md defines them: arcs ``i → j`` with ``j`` living
    (type 1) and ``i`` living or non-living (type 1 or 2; type 2 → 1 is detritivory). Arcs into detritus
    (egestion, mortality), imports, exports and respiration are dropped, and so are the Input, Output and
    Respiration vertices. Nodes: the living and non-living compartments, in file order. ``edge_weight``: the
    carbon flow. ``x``: ``log10_biomass`` (non-positive biomass imputed with the mean and flagged; 0 and flagged
    everywhere without a ``*vector bio-masses``), ``biomass_missing``, ``living``. ``compartment_type``: the ECO
    type names.
    """
    if web not in PAJEK_WEBS:
        raise unknown_name("Pajek food web", web, list(PAJEK_WEBS), prefix="pajek/",
                           listing="gatbio datasets --members pajek")
    folder = require_files("pajek", [f"{web}.paj"], root=root)
    data = read_pajek_foodweb(folder / f"{web}.paj", self_loops=self_loops)
    data.name, data.web_id = f"pajek/{web}", web
    return data


def read_pajek_foodweb(path: str | Path, *, self_loops: SelfLoopPolicy = "keep", parsed: PajekFile | None = None
                       ) -> Data:
    """Read a SCOR-derived Pajek flow web (``*partition ECO types``, ``*network``, ``*vector bio-masses``), keeping
    feeding arcs only; see :func:`load_pajek_foodweb`. ``parsed``: the file as :func:`~gatbio.data.io.read_pajek`
    already read it (a caller that looked at its sections first), so that it is not read, nor its notes said,
    twice.

    Refused (:class:`MalformedFileError`): a file without the ECO types partition (it says which vertices are
    species), an ECO type outside 1-5 (at its line, by :func:`~gatbio.data.io.read_pajek`), a partition or a
    biomass vector without one value per vertex, a vertex label that another vertex has. Without a biomass vector
    the web is read all the same (the feeding links do not need it), with a note: every compartment's biomass is
    missing (``log10_biomass`` 0, ``biomass_missing`` 1).
    """
    path = Path(path)
    pj = parsed if parsed is not None else read_pajek(path)
    net = pj.network()
    n = len(net["node_names"])
    refuse_repeated_labels(pj.path, net)  # as pajek_to_data: a name must pick one compartment
    eco = next((k for k in pj.partitions if k.lower().startswith("eco")), None)
    if eco is None:
        raise MalformedFileError(path, None, "no '*partition ECO types' (each vertex's compartment type: 1 living, 2 "
                                             "non-living, 3 input, 4 output, 5 respiration), which tells the feeding "
                                             "arcs from imports, exports and respiration: add it before *network "
                                             "('*partition ECO types', '*vertices N', then one type per line), or read "
                                             "the file as a plain network (read_pajek_network)")
    types = pj.partitions[eco]
    if len(types) != n:
        raise MalformedFileError(path, None, f"*partition {eco!r} has {len(types)} values for the {n} vertices of the "
                                             "network: give one ECO type per vertex, in vertex order")
    bio = next((k for k in pj.vectors if k.lower().startswith("bio")), None)
    if bio is None:
        note(f"{path}: no '*vector bio-masses': the web is read without biomass (log10_biomass 0 and "
             "biomass_missing 1 for every compartment); its feeding links do not need it")
        biomass = np.full(n, np.nan)
    else:
        biomass = pj.vectors[bio]
        if len(biomass) != n:
            raise MalformedFileError(path, None, f"*vector {bio!r} has {len(biomass)} values for the {n} vertices of "
                                                 "the network: give one biomass per vertex, in vertex order (0 or "
                                                 "below: missing)")
    keep = np.flatnonzero(np.isin(types, (1, 2)))
    new = -np.ones(n, dtype=np.int64)
    new[keep] = np.arange(len(keep))
    arcs, w, lines = net["arcs"], net["arc_weight"], net["arc_lines"]
    feeding = np.isin(types[arcs[:, 0]], (1, 2)) & (types[arcs[:, 1]] == 1)
    arcs, w, lines = arcs[feeding], w[feeding], lines[feeding]
    names = [net["node_names"][i] for i in keep]
    data = edges_to_data(new[arcs[:, 0]], new[arcs[:, 1]], names, weight=w, directed=True, duplicates="error",
                         self_loops=self_loops, name=path.stem, path=path, line_of_row=lambda r: int(lines[r]))
    logb, miss = _log10_with_flag(pd.Series(biomass[keep]))
    data.x = torch.tensor(np.stack([logb, miss, (types[keep] == 1).astype(float)], 1), dtype=torch.float)
    data.trait_names = ["log10_biomass", "biomass_missing", "living"]
    data.compartment_type = [PAJEK_TYPES[int(t)] for t in types[keep]]
    data.web_id = path.stem
    data.web_name = next(iter(pj.networks))
    return data

