"""``gatbio trophic FILE``: trophic level and degree of every species of a food web.

FILE is a food-web file or folder, or a named web (``gateway/11``, ``cheddar/TL84``, ``pajek/baydry``).
Formats (``--format``, default ``auto`` from the name):

- ``edgelist``: ``prey predator [weight]`` lines (GATEWAy ``*_edge_list.txt``), separated by whitespace (a name
  with spaces quoted: ``"Daphnia pulex"``), or by tabs (or commas) when a line holds one, so that names may hold
  spaces; ``#`` comments (at the start of a line only);
- ``csv``: comma separated (or tab / semicolon when there is no comma), usually with a header;
- ``pajek``: ``.net``/``.paj``; a SCOR flow web (with an ``ECO types`` partition) keeps its feeding arcs only;
- ``cheddar``: a folder with ``nodes.csv`` and ``trophic.links.csv``;
- ``gateway``: a folder with ``<id>_edge_list.txt`` (and optionally ``<id>_node_attr_list.txt``);
- ``adjacency``: a square 0/1 or weighted matrix (whitespace, tab or comma separated; column and row names
  optional, R's ``write.csv`` corner cell included); needs ``--convention row_to_col|col_to_row``.

Columns of an edge list or CSV: a header whose names say the roles is read by them, in any order and case
(``prey``/``resource``/``res``/``eaten``/``food`` for the prey, ``predator``/``pred``/``consumer``/``con``/
``eater`` for the predator, alone or in a longer name: ``predator_name``, ``Prey species``, GATEWAy's
``con.taxonomy``/``res.taxonomy``), with a note naming them; ``--source``/``--target`` (names, or numbers from 1)
choose others; else the first two columns are prey and predator (a table without a header row, or whose header does
not name the roles, such as ``from,to``, says so in a note, with its first link). Weights: a column named like
weights (``weight``, ``w``, ``flow``, ``biomass.flow``, ``strength``, ``freq``, ``n``, ...), ``--weight COLUMN``, or
without a header a third column of numbers (with a note; ``--unweighted`` ignores weights; two columns named like
weights: choose one with ``--weight``); any other column (``study_id``, ``year``, notes) is not read, and a note
names it, except a column of 0 and 1 (or yes/no, true/false, y/n) with some 0 or no, which says whether each listed
link exists (long-format presence/absence): refused, as its rows of 0 would become links (``--weight COLUMN`` reads
them as links of weight 0, which count as absent; ``--unweighted`` reads every row as a link). ``--source`` and
``--target`` name two different columns. Species names that differ only in case or Unicode form (``rabbit``,
``Rabbit``) are read as different species, with a note.

Edges are read as prey → predator; pass ``--direction predator-prey`` for files that list the predator first
(not for tables whose header names the prey and predator columns: their names say it, nor for a Pajek flow web,
whose arcs are flows from prey to predator; a plain Pajek file says in a note which way its arcs were read).

Levels (``--method``): ``mackay`` (MacKay, Johnson & Sansom 2020; default) is defined on any web, cycles included,
with the lowest species of each connected part at 1; it places every species by all of its links, so a species
without prey that is eaten only by high-level consumers sits above 1 (a note says how many). ``levine`` (Levine
1980, cheddar's prey-averaged level) puts every species without prey at 1 and every other one at 1 + the mean level
of its prey (weighted by the link weights), and needs every species to be reachable from one without prey.
Cannibal links and links of weight 0 (unless ``--unweighted``) are left out of both. The summary line gives
MacKay's incoherence F0 (0: a perfectly layered web, 1: a cycle) and, with ``levine``, Johnson et al.'s q.

Usage::

    gatbio trophic web.txt
    gatbio trophic links.csv --format csv --method levine --csv levels.csv
    gatbio trophic pajek/baydry --sort
    gatbio trophic web.txt --csv - | head    # the CSV on standard output, the summary line on stderr
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
                   help="mackay (any directed graph; default: the lowest species of each connected part at 1, "
                        "and a species without prey may sit higher, one level below its consumers on average) or "
                        "levine (every species without prey at 1, the others 1 + the mean level of their prey; "
                        "needs every species reachable from one without prey)")
    p.add_argument("--direction", default="prey-predator", choices=["prey-predator", "predator-prey"],
                   help="what a line 'u v' means in the file (default: v eats u)")
    p.add_argument("--source", default=None, help="edge list / csv: prey column (name, or number from 1; default: "
                                                   "the one the header names so, else the first)")
    p.add_argument("--target", default=None, help="edge list / csv: predator column (default: the one the header "
                                                   "names so, else the second)")
    p.add_argument("--weight", default=None, help="edge list / csv: weight column (default: one named like weights, "
                                                   "or without a header a third column of numbers)")
    p.add_argument("--convention", default=None, choices=["row_to_col", "col_to_row"],
                   help="adjacency: A[i, j] means i -> j (row_to_col) or j -> i (col_to_row)")
    p.add_argument("--unweighted", action="store_true", help="ignore edge weights")
    p.add_argument("--sort", action="store_true", help="sort by trophic level (highest first)")
    p.add_argument("--csv", metavar="OUT", default=None,
                   help="also write the table as CSV (tab-separated when OUT ends in .tsv; atomic write); '-': "
                        "the CSV on standard output instead of the aligned table, the summary line on stderr")
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
    header_shared: bool = False,
):
    """A food web from a file, folder or named web, as prey → predator :class:`Data` (see the module docstring
    for the formats).

    Tables (``edgelist``, ``csv``, ``adjacency``): a header row is detected unless ``header`` forces it (see
    :mod:`gatbio.data.tables`; a first row whose names say the prey and predator columns is a header); columns
    and weights as the module docstring says (``weight="auto"``: a column named like weights, or without a
    header a third column of numbers; ``None``: no weights), checked by the one weight parser (finite,
    ``>= 0``); a link listed twice is merged
    into one (weights summed, as the trophic-level equations add parallel links), with a note on stderr; so are
    species names that differ only in case or Unicode form (read as different species).

    Options that do not apply to what ``file`` is (``header`` for a Pajek file, a folder or a named web; the
    table options for a named web, a folder or a Pajek flow web; ``format`` for a named web) are refused with a
    ``ValueError`` rather than ignored; ``header_shared``: ``header`` also reads another table (``foodweb
    predict --traits``), so it is not refused where ``file`` has no header row.
    """
    from gatbio.data import io
    from gatbio.data.foodweb import read_cheddar, read_gateway_web, read_pajek_foodweb
    from gatbio.data.tables import data_head

    path = Path(file)
    if not path.exists():
        import difflib

        from gatbio.data import DATASETS, load
        from gatbio.data.sources import UnknownDatasetError, resolve_name

        try:  # load's one case rule: 'Cheddar/TL84', 'pajek/BAYDRY' name the registry's webs
            file = resolve_name(str(file))
        except UnknownDatasetError:  # not a dataset name: said below, with the closest named webs
            pass
        base = str(file).split("/", 1)[0]
        collections = [n for n, i in DATASETS.items() if i.kind == "foodweb"]
        if base in collections and "/" not in str(file):
            return load(base)  # raises: a collection, with how to name one of its webs (as for 'gateway/')
        if base in DATASETS and "/" in str(file):
            if format not in ("auto", base):  # a named web of a collection is read as the collection reads it
                raise ValueError(f"--format {format}: {file} is a named web, read as the {base} collection is "
                                 "read; --format applies to files and folders only: leave it out")
            refuse_table_options(file, "a named web", direction=direction, source=source, target=target,
                                 weight=weight, convention=convention, header=None if header_shared else header)
            return load(str(file))  # named webs are already prey -> predator
        member = str(file).partition("/")[2]
        close = [f"{b}/{member}" for b in difflib.get_close_matches(base, collections, n=2, cutoff=0.75)] \
            if member else difflib.get_close_matches(str(file), collections, n=2, cutoff=0.75)
        hint = f"; did you mean {' or '.join(close)}?" if close else " (named webs: gateway/11, cheddar/TL84, ...)"
        raise FileNotFoundError(f"{path}: no such file or folder, nor a named web{hint}")
    fmt = _guess_format(path) if format == "auto" else format
    if fmt in ("cheddar", "gateway"):
        refuse_table_options(file, "a cheddar community folder" if fmt == "cheddar" else "a GATEWAy web folder",
                             direction=direction, source=source, target=target, weight=weight,
                             convention=convention, header=None if header_shared else header)
    if fmt == "cheddar":
        data = read_cheddar(path)
    elif fmt == "gateway":
        from gatbio.data.foodweb import gateway_folder_names

        data = read_gateway_web(path, node_names=gateway_folder_names(path))  # species names when in a collection
    elif fmt == "pajek":
        _refuse_options(file, "a Pajek file (its *Arcs are the links, with their weights; --unweighted ignores "
                              "them)", source=source, target=target, weight=None if weight in (None, "auto") else weight,
                        convention=convention, header=None if header_shared else header)
        pj = io.read_pajek(path)
        flow_web = any(k.lower().startswith("eco") for k in pj.partitions)
        if flow_web:  # SCOR flow webs (Ulanowicz's) list every arc as a flow from prey to predator, like pajek/baydry
            refuse_table_options(file, "a Pajek flow web (an ECO types partition: its *Arcs are flows from prey to "
                                       "predator)", direction=direction)
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
        if flow_web:
            data = read_pajek_foodweb(path, parsed=pj)  # read once: its notes (vertices without a line) said once
        else:
            stats: dict[str, int] = {}
            data = io.pajek_to_data(pj, directed=True, duplicates="merge", stats=stats)
            # weights summed where the file gives them; links without weights counted once
            io.report_changes(path, stats, True, "sum" if getattr(data, "edge_weight", None) is not None else None)
            data.name = path.stem
            _note_arc_direction(path, net, data, direction)
    elif fmt in ("csv", "edgelist"):
        _refuse_options(file, "an edge list (one link per row)", convention=convention)
        data = _read_edge_table(path, fmt, direction=direction, source=source, target=target, weight=weight,
                                header=header)
    elif fmt == "adjacency":
        _refuse_options(file, "an adjacency matrix (rows and columns are species, its entries the link weights; "
                              "--unweighted reads them as 0/1)", source=source, target=target,
                        weight=None if weight in (None, "auto") else weight)
        head = data_head(path, "#", numbered=True)
        _refuse_pajek_text(path, head)
        if convention is None:
            raise ValueError(f"{path}: --format adjacency needs --convention row_to_col (A[i, j] > 0: j eats i) "
                             "or col_to_row (A[i, j] > 0: i eats j)")
        if direction == "predator-prey":  # applied after the convention, it reversed every link without a word
            other = "col_to_row" if convention == "row_to_col" else "row_to_col"
            raise ValueError(f"--direction predator-prey: {file} is an adjacency matrix, whose --convention "
                             f"{convention} already says who eats whom; a matrix whose rows are the predators is "
                             f"read with --convention {other}: leave --direction out")
        sep = _table_separator("edgelist", [x for _, x in head])
        data = io.read_adjacency_matrix(path, convention=convention, sep=sep, weighted=weight is not None,
                                        header=header)
    else:
        raise ValueError(f"format={fmt!r}: expected auto, edgelist, csv, pajek, cheddar, gateway or adjacency")
    _note_lookalike_names(path, fmt, data)
    return _orient(data, direction)


def _note_arc_direction(path: Path, net: dict, data, direction: str) -> None:
    """The note on a Pajek file that is not a flow web: nothing in it says whether an arc ``i j`` is prey ->
    predator or the reverse, so which way its arcs are read is said, on its first arc between two species, with the
    option that reads them the other way (as for a table without a header row)."""
    from gatbio.data.tables import note

    names = list(map(str, getattr(data, "node_names", None) or []))
    arc = next(((int(a), int(b), int(no)) for (a, b), no in zip(net["arcs"], net["arc_lines"], strict=True)
                if a != b and max(a, b) < len(names)), None)
    if arc is None:
        return
    a, b, no = arc
    prey, predator = (names[a], names[b]) if direction == "prey-predator" else (names[b], names[a])
    flip = "--direction predator-prey" if direction == "prey-predator" else "the default --direction prey-predator"
    note(f"{path}: *Arcs read as {'prey -> predator' if direction == 'prey-predator' else 'predator -> prey'}, e.g. "
         f"line {no}: {predator!r} eats {prey!r} ({flip} reads them the other way)")


def _note_lookalike_names(path: Path, fmt: str, data) -> None:
    """A note on species names that differ only in case or Unicode normalisation form (``rabbit`` and ``Rabbit``;
    ``Café`` written with ``é`` or with ``e`` and a combining accent): they are read as different species, which
    is right only if they are; one example is shown, with the line of each name in a single file."""
    import unicodedata

    from gatbio.data.tables import note

    groups: dict[str, list[str]] = {}
    for x in map(str, getattr(data, "node_names", None) or []):
        groups.setdefault(unicodedata.normalize("NFC", x).casefold(), []).append(x)
    alike = [g for g in groups.values() if len(g) > 1]
    if not alike:
        return
    a, b = alike[0][:2]
    lines = _first_lines(path, fmt, [a, b]) if path.is_file() else {}
    same_look = unicodedata.normalize("NFC", a) == unicodedata.normalize("NFC", b)  # repr would show one name
    example = " and ".join((ascii(x) if same_look else repr(x)) + (f" (line {lines[x]})" if x in lines else "")
                           for x in (a, b))
    n, kind = len(alike), "pair" if all(len(g) == 2 for g in alike) else "set"
    note(f"{path}: {n} {kind}{'s' if n > 1 else ''} of species names differ{'s' if n == 1 else ''} only in case or "
         f"Unicode form (e.g. {example}): read as different species; write each species one way if they are the "
         "same")


def _first_lines(path: Path, fmt: str, names: list[str]) -> dict[str, int]:
    """The line of ``path`` where each of ``names`` is first a whole field (a table's separator; a Pajek file's
    whitespace, with quoted names)."""
    from gatbio.data.io import split_line
    from gatbio.data.tables import data_head, read_text

    sep = r"\s+" if fmt == "pajek" else _table_separator(fmt, data_head(path, "#"))
    found: dict[str, int] = {}
    for no, line in enumerate(read_text(path).split("\n"), start=1):
        fields = split_line(line.rstrip("\r"), sep)
        found.update((x, no) for x in names if x not in found and x in fields)
        if len(found) == len(names):
            break
    return found


def refuse_table_options(file, what: str, *, direction: str = "prey-predator", source: str | None = None,
                         target: str | None = None, weight: str | None = None, convention: str | None = None,
                         header: bool | None = None) -> None:
    """The options that say how to read a table (``--direction``, ``--source``, ``--target``, ``--weight``,
    ``--convention``, ``--header``/``--no-header``), refused for ``file`` when it is ``what`` (a named web, a
    GATEWAy or cheddar folder, a Pajek flow web): those are read as prey -> predator with known columns, and the
    options would be silently ignored or, for the direction, reverse the web."""
    given = [f"--{k} {v}" for k, v, default in (("direction", direction, "prey-predator"), ("source", source, None),
                                                ("target", target, None), ("weight", weight, "auto"),
                                                ("convention", convention, None))
             if v is not None and v != default]
    if header is not None:
        given.append("--header" if header else "--no-header")
    if given:
        raise ValueError(f"{', '.join(given)}: {file} is {what}, already read as prey -> predator; --direction, "
                         "--source, --target, --weight, --convention and --header/--no-header apply to table files "
                         "only (edge list, CSV, adjacency matrix): leave them out")


def _refuse_options(file, what: str, **given) -> None:
    """Options of another table format (``--source``/``--target`` name edge-list columns, ``--convention`` reads an
    adjacency matrix) refused for ``file``, which is ``what``: they would be silently ignored."""
    shown = [(f"--{k}" if v else f"--no-{k}") if isinstance(v, bool) else f"--{k} {v}"
             for k, v in given.items() if v is not None]
    if shown:
        they = len(shown) > 1
        raise ValueError(f"{', '.join(shown)}: {file} is read as {what}, where {'they do' if they else 'it does'} "
                         f"not apply: leave {'them' if they else 'it'} out, or give --format for another reading")


def _table_separator(fmt: str, lines: list[str]) -> str:
    """``csv``: a comma, else a tab or a semicolon where the lines hold one; ``edgelist`` / ``adjacency``: a tab
    or a comma where a line holds one (then names may hold spaces; not a comma that is only ever a decimal comma
    among whitespace-separated lines), else any whitespace (:func:`gatbio.data.io.edge_list_separator`)."""
    from gatbio.data.io import edge_list_separator, semicolon_table

    if semicolon_table(lines):  # a European spreadsheet's CSV: ';' between fields, ',' the decimal mark
        return ";"
    if fmt == "csv":
        return next((c for c in (",", "\t", ";") if any(c in x for x in lines)), ",")
    return edge_list_separator(lines)


#: Words of a column name that give its role (whole words of the name, any case: ``predator_name``, ``Prey
#: species``, ``consumer.name``, GATEWAy's ``con.taxonomy``, ``consumerName``): the predator (the link's target) ...
TARGET_WORDS = frozenset("predator predators pred preds consumer consumers con eater eaters".split())
#: ... and the prey (its source).
SOURCE_WORDS = frozenset("prey preys resource resources res eaten food foods".split())
#: Words that make a column an attribute of a species, not its name (``con.lifestage``, ``res.mass.mean.g.``,
#: ``prey_count``), or no species at all (``food_web``).
_ATTRIBUTE_WORDS = frozenset("""lifestage life stage mass length size type status movement metabolic class level
    mean median sd g mg kg mm cm biomass abundance density body guild group category habitat web webs trophic
    count counts number n weight weights w strength flux flow flows value values frequency freq fraction
    proportion rate""".split())
#: Words that make a column the kind of an interaction ("eats", "parasiteOf"), never a species.
_INTERACTION_WORDS = frozenset("interaction interactions relation relationship relationships kind".split())
#: Words that may follow a role word in the name of a species column (``predator_name``, ``res.taxonomy``).
_NAME_WORDS = frozenset("name names species taxonomy taxon taxa id ids node label scientific common sp spp "
                        "organism binomial".split())
#: Column names read as link weights without --weight: made of these words, one at least from the first set
#: (``weight``, ``w``, ``flow``, ``biomass_flow``, ``diet.fraction``, ``interaction strength``, ``freq``, ``n``).
_WEIGHT_WORDS = frozenset("weight weights w wt strength flux fluxes flow flows value values count counts frequency "
                          "freq n fraction proportion prop rate rates intensity amount".split())
_WEIGHT_MODIFIERS = frozenset("link links interaction interactions edge edges biomass energy carbon diet mean total "
                              "feeding consumption relative rel observed".split())
#: Names of a first column of row numbers (R's ``write.csv`` header cell, pandas' index, GATEWAy's ``autoID``).
_ROW_ID_NAMES = frozenset(["", "x", "id", "autoid", "row", "rowid", "rownames", "row.names", "index", "unnamed: 0",
                           "...1", "#", "no", "nr", "obs"])


def _name_words(name: str) -> list[str]:
    """The words of a column name, lower case, without trailing digits: ``consumerName2`` -> consumer, name."""
    import re

    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    words = [w.rstrip("0123456789") or w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w]
    return words


def column_role(name: str) -> str | None:
    """``"source"`` (the prey) or ``"target"`` (the predator) when the column name says it (:data:`SOURCE_WORDS`,
    :data:`TARGET_WORDS`), else ``None``: a name with words of both roles or of neither, or an attribute of a
    species (``con.lifestage``)."""
    words = set(_name_words(name))
    src, dst = words & SOURCE_WORDS, words & TARGET_WORDS
    if bool(src) == bool(dst) or words & _ATTRIBUTE_WORDS:
        return None
    return "source" if src else "target"


def is_weight_name(name: str) -> bool:
    """A column name that says link weights (:data:`_WEIGHT_WORDS`)."""
    words = _name_words(name)
    return bool(words) and all(w in _WEIGHT_WORDS or w in _WEIGHT_MODIFIERS for w in words) \
        and any(w in _WEIGHT_WORDS for w in words)


def _header_roles(path, line: int, fields: list[str], chosen: tuple[str, ...] = ()
                  ) -> tuple[int | None, int | None]:
    """Positions of the prey and the predator column named by ``fields`` (``None`` where no name says it); among
    several columns of one role the one named like a species (``con.taxonomy`` before ``con.taxonomy.status``),
    else an error that says to choose, or (columns of one name) to rename one; not for a role in ``chosen``
    (``"source"``, ``"target"``: given by ``--source``/``--target``), whose first candidate is returned."""
    from gatbio.data.io import MalformedFileError

    found: dict[str, list[int]] = {"source": [], "target": []}
    for k, f in enumerate(fields):
        if (role := column_role(f)) is not None:
            found[role].append(k)
    picked = []
    for role, ks in found.items():
        if len(ks) > 1:
            words = SOURCE_WORDS if role == "source" else TARGET_WORDS
            ks = [k for k in ks if set(_name_words(fields[k])) - words <= _NAME_WORDS] or ks
        if len(ks) > 1 and role not in chosen:
            option, who = ("--source", "prey") if role == "source" else ("--target", "predator")
            raise MalformedFileError(path, line, _same_name(fields, ks) or
                                     f"several columns could be the {who}s ({', '.join(repr(fields[k]) for k in ks)})"
                                     f": pick one with {option} COLUMN")
        picked.append(ks[0] if ks else None)
    return picked[0], picked[1]


def _same_name(fields: list[str], ks: list[int]) -> str | None:
    """The message for columns ``ks`` of a header that all bear one name (``prey,prey,predator``), else ``None``:
    the fix is to rename one (the table reader refuses a header that names a column twice)."""
    if len({fields[k] for k in ks}) > 1:
        return None
    return f"columns {' and '.join(str(k + 1) for k in ks)} are all named {fields[ks[0]]!r}: rename one" \
        if len(ks) > 2 else f"columns {ks[0] + 1} and {ks[1] + 1} are both named {fields[ks[0]]!r}: rename one"


def _is_row_id_column(name: str, values: list[str], ncols: int) -> bool:
    """A first column of row numbers: increasing integers, named like row numbers (``""``, ``X``, ``autoID``) or
    (in a wide table) consecutive from 0 or 1."""
    import re

    if not values or not all(re.fullmatch(r"\d+", v) for v in values):
        return False
    ints = [int(v) for v in values]
    if any(b <= a for a, b in zip(ints, ints[1:], strict=False)):  # row numbers increase
        return False
    return name.strip().lower() in _ROW_ID_NAMES or \
        (ncols >= 4 and ints[0] in (0, 1) and ints == list(range(ints[0], ints[0] + len(ints))))


def _refuse_a_matrix(path, rows: list[list[str]]) -> None:
    """An adjacency matrix (a square block of numbers, with or without row and column names) read as an edge list
    gives nonsense links: refused with the option that reads it."""
    from gatbio.data.io import MalformedFileError, named_matrix
    from gatbio.data.tables import is_header_word, is_number

    if len(rows) < 2:
        return
    first, k = rows[0], len(rows[0])
    complete = len(rows) < 100  # the head holds the whole file

    def entries(block: list[list[str]]) -> bool:
        return all(is_number(c) or c == "" for r in block for c in r)

    what = None
    body = rows[1:]
    if named_matrix(rows) or (k >= 3 and first[0] == "" and all(len(r) == k for r in body) and entries(
            [r[1:] for r in body]) and {r[0] for r in body} <= set(first[1:])  # row names in another order
                              and (len(body) == k - 1 or not complete)):
        what, n = "with row and column names", len(body)
    elif k >= 4 and not is_number(first[0]) and all(len(r) == k and not is_number(r[0]) for r in rows) \
            and entries([r[1:] for r in rows]) and (len(rows) == k - 1 or not complete):
        what, n = "with row names", len(rows)  # 'grass,0,1,0' rows
    elif k >= 3 and all(len(r) == k for r in body) and entries(body) and (len(body) == k or not complete) \
            and not any(is_number(f) or is_header_word(f) or column_role(f) or is_weight_name(f) for f in first):
        what, n = "with column names", len(body)  # 'grass rabbit fox' above rows of numbers
    elif k >= 4 and all(len(r) == k for r in rows) and entries(rows) and (len(rows) == k or not complete):
        what, n = "", len(rows)
    elif k == 3 and len(rows) == 3 and all(len(r) == 3 for r in rows) and _small_matrix(rows):
        what, n = "", 3
    if what is not None:
        raise MalformedFileError(path, None, f"looks like an adjacency matrix ({n} rows of {n} entries"
                                             f"{', ' + what if what else ''}), not an edge list (one link per "
                                             "line): read it with --format adjacency --convention row_to_col "
                                             "(A[i, j] > 0: j eats i) or col_to_row (A[i, j] > 0: i eats j)")


def _refuse_pajek_text(path, head: list[tuple[int, str]]) -> None:
    """A Pajek file (first line ``*Vertices n``, or in a project ``*Network name``, ``*Partition ...``, after any
    ``%`` comments) read as a table (named ``.txt``, or ``--format edgelist``): refused with the option that reads
    it, not at its ``*Arcs`` line."""
    import re

    from gatbio.data.io import MalformedFileError

    no, line = next(((no, x.lstrip("\ufeff \t")) for no, x in head if not x.lstrip("\ufeff \t").startswith("%")),
                    (None, ""))
    if no is not None and re.match(r"\*(vertices|network|partition|vector|arcs|edges|arcslist|edgeslist)(\s|$)", line,
                                     re.IGNORECASE):
        pajek_name = Path(path).suffix.lower() in (".net", ".paj")
        fix = "leave out --format (or pass --format pajek)" if pajek_name else "name it .net or pass --format pajek"
        raise MalformedFileError(path, no, f"{line.split()[0]!r}: looks like a Pajek file, not a table: {fix}")


def _small_matrix(rows: list[list[str]]) -> bool:
    """Three rows of three numbers (the whole file) that are a 3 x 3 adjacency matrix, not ``prey predator weight``
    links between species numbered like ``1 2 0.5``: a zero diagonal (as a link list: species 0 the prey of the
    first link and the predator of the second, and a third link of weight 0) together with entries that are all
    0/1, a species number that is not a whole number (``0.5``), two links of weight 0, or a link listed twice; or
    links of weight 0 only between species 0 and 1."""
    import math

    from gatbio.data.tables import is_number

    try:
        a = [[float(c) for c in r] for r in rows if all(is_number(c) for c in r)]
    except ValueError:
        return False
    if len(a) != 3 or not all(math.isfinite(v) for r in a for v in r):
        return False
    binary = all(v in (0, 1) for r in a for v in r)
    if all(r[2] == 0 for r in a) and all(v in (0, 1) for r in a for v in r[:2]):
        return True
    return all(a[i][i] == 0 for i in range(3)) and (
        binary or any(v != int(v) for r in a for v in r[:2]) or sum(r[2] == 0 for r in a) >= 2
        or len({(r[0], r[1]) for r in a}) < 3)


def _names_elsewhere(path, after_line: int, sep: str, names: list[str], cols: list[int]) -> str | None:
    """The first of ``names`` (of a header row) that is a name in a column ``cols`` of a line after
    ``after_line``: such a row is data (rule 2 of :mod:`gatbio.data.tables`)."""
    from gatbio.data.io import split_line
    from gatbio.data.tables import data_lines, read_text

    parts = read_text(path).split("\n", after_line)
    rest = parts[after_line] if len(parts) > after_line else ""
    wanted = [x for x in names if x and x in rest]  # a quick look first: most headers appear nowhere else
    if not wanted:
        return None
    text, _ = data_lines(rest, "#")
    for line in text.split("\n") if text else []:
        fields = split_line(line.rstrip("\r"), sep)
        hit = next((fields[c] for c in cols if c < len(fields) and fields[c] in wanted), None)
        if hit is not None:
            return hit
    return None


def _read_edge_table(path: Path, fmt: str, *, direction: str, source: str | None, target: str | None,
                     weight: str | None, header: bool | None):
    """An edge list or CSV file as prey -> predator links (before ``--direction``): columns by the header's names
    (:func:`column_role`), by ``--source``/``--target``, else the first two; weights from a column named like
    weights (:func:`is_weight_name`), ``--weight``, or (no header) a third column of numbers, with a note; other
    columns are named in a note and not read (one that says whether each link exists is refused:
    :func:`_refuse_presence_columns`)."""
    from gatbio.data import io
    from gatbio.data.tables import data_head, first_few, header_note, is_number, looks_like_header, note

    head = data_head(path, "#", numbered=True)  # [(line number, line)] of the first data lines
    _refuse_pajek_text(path, head)
    sep = _table_separator(fmt, [x for _, x in head])
    rows = [io.split_line(x, sep) for _, x in head]
    if source is None and target is None:
        _refuse_a_matrix(path, rows)
    first = rows[0] if rows else []
    chosen = tuple(role for role, given in (("source", source), ("target", target)) if given is not None)
    roles = _header_roles(path, head[0][0], first, chosen) if rows and header is not False else (None, None)
    named_roles = roles != (None, None)
    given = [x for x in (source, target, weight) if x not in (None, "auto")]
    # a given name in the first row says it is a header; a column number does not (--source 1 beside a weight 1 in
    # a headerless first row took that row for a header and the weights for the prey)
    has_header = header if header is not None else bool(rows) and (
        named_roles or any(x in first for x in given if not x.isdigit()) or looks_like_header(first, rows[1:]))
    notes: list[str] = []
    unread: list[int] = []  # the columns not read, by the last plan
    positional: list[int] = []  # the prey / predator columns taken by position (not named, not chosen), by it

    def column(name: str, fields: list[str], ncols: int, what: str) -> int:
        if name in fields:
            ks = [k for k, f in enumerate(fields) if f == name]
            if len(ks) > 1:
                raise io.MalformedFileError(path, head[0][0], f"{what} {name}: {_same_name(fields, ks)}")
            return ks[0]
        if name.isdigit() and 1 <= int(name) <= max(ncols, len(fields)):  # a column number (1-based)
            return int(name) - 1
        shown = f"columns: {fields}" if fields else f"no header row: give a column number, 1 to {ncols}"
        raise io.MalformedFileError(path, head[0][0] if head else 1,
                                    f"{what} {name}: no such column in the first row ({shown})")

    def plan(use_header: bool) -> tuple[int, int, int | str | None]:
        """(source, target, weight) positions; fills ``notes``."""
        fields = first if use_header else []
        body = rows[1:] if use_header else rows
        # (a row of separators only, ',,', is a blank line, as the reader takes it: its width says no column)
        ncols = max((len(r) for r in body if any(f.strip() for f in r)), default=len(first))
        width = max(ncols, len(fields))
        s = column(source, fields, ncols, "--source") if source is not None else None
        t = column(target, fields, ncols, "--target") if target is not None else None
        if s is not None and s == t:
            raise ValueError(f"--source {source} and --target {target} name the same column ({s + 1}): a link "
                             "needs its prey and its predator in two columns: give two different columns")
        src_role, dst_role = roles if use_header else (None, None)
        skipped: list[int] = []  # a column of row numbers, said
        by_names = use_header and source is None and target is None and named_roles
        if s is None and src_role is not None and src_role != t:
            s = src_role
        if t is None and dst_role is not None and dst_role != s:
            t = dst_role
        if by_names and (s is None or t is None):  # one role named: the other column of a two-column table
            known = s if s is not None else t
            others = [k for k in range(len(fields)) if k != known and not is_weight_name(fields[k])]
            if len(others) != 1:
                who, other, option = ("prey", "predator", "--target") if s is not None else \
                    ("predator", "prey", "--source")
                raise io.MalformedFileError(path, head[0][0], f"the header names the {who} column "
                                                              f"({fields[known]!r}) but no {other} column: give it "
                                                              f"with {option} COLUMN")
            s, t = (known, others[0]) if s is not None else (others[0], known)
        if by_names:
            if direction == "predator-prey":  # the names say the direction; flipping would reverse it
                raise io.MalformedFileError(path, head[0][0], f"the header names the prey and predator columns "
                                                              f"({', '.join(fields[:4])}), so the direction is "
                                                              "known: leave out --direction predator-prey")
            notes.append(f"{path}: column {fields[s]!r} read as the prey (resource) and {fields[t]!r} as the "
                         "predator (consumer) of each link, by their names (--source/--target choose others)")
        if s is None and t is None and use_header and width >= 3 and \
                _is_row_id_column(fields[0], [r[0] for r in body if r], width):
            others = [k for k in range(1, width) if not (k < len(fields) and is_weight_name(fields[k]))]
            if len(others) != 2:
                raise io.MalformedFileError(path, head[0][0], f"column 1 ({fields[0]!r}) holds row numbers, not "
                                                          f"species, and no column is named for the prey or the "
                                                          f"predator (columns: {', '.join(fields[:8])}"
                                                          f"{', ...' if len(fields) > 8 else ''}): give them with "
                                                          "--source COLUMN (the prey) and --target COLUMN (the "
                                                          "predator)")
            s, t = others  # R's write.csv of an edge list: row numbers, then the two columns
            skipped.append(0)
            notes.append(f"{path}: column 1 ({fields[0]!r}) holds row numbers: columns {fields[s]!r} and "
                         f"{fields[t]!r} read as the prey and the predator (--source/--target choose others)")
        defaulted = [k for k in (s, t) if k is not None]
        if s is None:
            s = next(k for k in (0, 1) if k != t)
        if t is None:
            t = next(k for k in (1, 0) if k != s)
        positional[:] = [k for k in (s, t) if k not in defaulted]
        for k in (s, t):
            if use_header and k not in defaulted and k < len(fields) and \
                    set(_name_words(fields[k])) & _INTERACTION_WORDS:
                # GloBI's sourceTaxonName,interactionTypeName,targetTaxonName: the second column is the kind of
                # interaction ("eats"), not a species; read by position it made "eats" a species with every link
                globi = " (GloBI: 'A eats B' has the predator as the source, so --source targetTaxonName " \
                        "--target sourceTaxonName, with the rows of one interaction type)" \
                    if {"source", "target"} <= {w for f in fields for w in _name_words(f)} else ""
                raise io.MalformedFileError(path, head[0][0], f"column {k + 1} ({fields[k]!r}) names a kind of "
                                                              "interaction, not a species, and no column is named "
                                                              "for the prey or the predator: give them with "
                                                              "--source COLUMN (the prey) and --target COLUMN (the "
                                                              f"predator){globi}")
        w: int | str | None
        if weight is None:
            w = None
        elif weight != "auto":
            w = column(weight, fields, ncols, "--weight")
            if w in (s, t):
                raise ValueError(f"--weight {weight}: column {w + 1} is the {'prey' if w == s else 'predator'} "
                                 "column, not weights: give another column, or leave --weight out")
        elif use_header:
            ws = [k for k, f in enumerate(fields) if k not in (s, t) and is_weight_name(f)]
            if len(ws) > 1:
                raise io.MalformedFileError(path, head[0][0], _same_name(fields, ws) or "several columns could be "
                                            f"the link weights ({', '.join(repr(fields[k]) for k in ws)}): pick one "
                                            "with --weight COLUMN (or --unweighted)")
            w = ws[0] if ws else None
            if w is not None and fields[w].lower() not in ("weight", "weights"):
                notes.append(f"{path}: column {fields[w]!r} read as link weights (--unweighted to ignore)")
            if w is None and ncols == len(fields) + 1 and all(is_number(r[-1]) for r in body if len(r) == ncols):
                w = len(fields)  # one unnamed column of numbers after the named ones
                notes.append(f"{path}: column {w + 1} (not named by the header) read as link weights "
                             "(--unweighted to ignore)")
        else:
            w = "auto" if width >= 3 else None  # a third column of numbers (the reader notes one of text)
        ignored = [k for k in range(width) if k not in (s, t, w, *skipped) and not (w == "auto" and k == 2)]
        auto_text = w == "auto" and width >= 3 and not all(is_number(r[2]) for r in body if len(r) > 2)
        unread[:] = ignored + [2] * auto_text  # a third column of text is not read either (the reader says it)
        if ignored:
            shown = first_few([repr(fields[k]) if k < len(fields) and fields[k] else str(k + 1) for k in ignored], 6)
            why = " (not link weights by name; --weight COLUMN reads one as weights)" \
                if weight == "auto" and any(k < len(fields) and fields[k] for k in ignored) else ""
            notes.append(f"{path}: column{'s' if len(ignored) > 1 else ''} {shown} not read{why}")
            for k in ignored:
                if k < len(fields) and {"web", "webs", "foodweb"} & set(_name_words(fields[k])):
                    webs = {r[k] for r in body if len(r) > k}
                    if len(webs) > 1:
                        notes.append(f"{path}: column {fields[k]!r} names {len(webs)} or more webs; their links "
                                     "are read as one web (keep the rows of one web to read it alone)")
        return s, t, w

    src, dst, w = plan(bool(has_header))
    if header is None and has_header:  # detected: a name of the header that is a species elsewhere keeps it data
        clash = _names_elsewhere(path, head[0][0], sep, [first[c] for c in (src, dst) if c < len(first)], [src, dst])
        header_note(path, head[0][0], head[0][1].strip(), used=clash is None, clash=clash)
        if clash is not None:
            has_header, roles, named_roles = False, (None, None), False
            notes.clear()
            src, dst, w = plan(False)
    if positional and not has_header and rows:  # the columns' roles by position: said
        notes.append(_position_note(path, head[0][0], rows[0], src, dst, direction, by_position=positional))
    elif positional and has_header:  # a header whose names do not say the roles ('from,to'): said too, and so is
        # one column taken by position beside one chosen with --source/--target (without a header, the note above)
        example = (head[1][0], rows[1]) if len(rows) > 1 else None
        notes.append(_position_note(path, *(example or (head[0][0], [])), src, dst, direction, header=first,
                                    by_position=positional))
    if sep == r"\s+":
        _check_whitespace_names(path, head, bool(has_header))
    if weight is not None:  # (weights ignored: every row is a link, as the caller said)
        _refuse_presence_columns(path, sep, bool(has_header), first, rows, unread)
    for text in notes:
        note(text)
    data = io.read_edge_list(path, sep=sep, header=bool(has_header), source=src, target=dst, weight=w,
                             duplicates="merge", reduce="sum", report=True, extra_columns="ignore",
                             comment_note=fmt == "csv")  # a CSV documents no comments: '#' lines are said
    if w == "auto" and getattr(data, "edge_weight", None) is not None:
        note(f"{path}: column 3 read as link weights (--unweighted to ignore)")
    return data


def _position_note(path: Path, line: int, first: list[str], src: int, dst: int, direction: str,
                   header: list[str] | None = None, by_position: list[int] | None = None) -> str:
    """The note on a table whose columns are read by position (without a header row, or under a ``header`` whose
    names do not say the roles, such as ``from,to``): which column is the prey (resource) and which the predator
    (consumer), shown on the first data row (``first``, at ``line``), and how to read them otherwise.
    ``by_position`` (default: both) says which of the two were taken by position; when it is one, the other was
    chosen with ``--source``/``--target``, and the note says so (with or without a header row)."""
    prey, predator = (src, dst) if direction == "prey-predator" else (dst, src)
    example = f", e.g. line {line}: {first[predator]!r} eats {first[prey]!r}" \
        if max(prey, predator) < len(first) else ""
    flip = "(--direction predator-prey" if direction == "prey-predator" else "(the default --direction prey-predator"
    if by_position is not None and len(by_position) == 1:  # one column chosen with --source/--target
        k = by_position[0]
        other, option = (dst, "--target") if k == src else (src, "--source")
        role, other_role = ("prey (resource)", "predator (consumer)") if k == prey else \
            ("predator (consumer)", "prey (resource)")
        names = header or []
        named = [f" ({names[j]!r})" if j < len(names) and names[j] else "" for j in (k, other)]
        how = "name them in the header, such as 'prey' and 'predator'" if header is not None else \
            "add a header line naming them, such as 'prey predator'"
        return (f"{path}: {'no header row: ' if header is None else ''}column {k + 1}{named[0]} taken for the "
                f"{role} of each link, by position, beside column {other + 1}{named[1]}, the {other_role} by "
                f"{option}{example} {flip} reads them the other way; --source/--target choose other columns, or "
                f"{how})")
    if header is not None:
        named = [f" ({header[k]!r})" if k < len(header) and header[k] else "" for k in (prey, predator)]
        return (f"{path}: the header names neither column by its role (prey, resource; predator, consumer): column "
                f"{prey + 1}{named[0]} taken for the prey (resource) and column {predator + 1}{named[1]} for the "
                f"predator (consumer) of each link, by position{example} {flip} reads them the other way; "
                "--source/--target choose other columns, or name them in the header, such as 'prey' and 'predator')")
    return (f"{path}: no header row: column {prey + 1} read as the prey (resource) and column {predator + 1} as the "
            f"predator (consumer) of each link{example} {flip} reads them the other way; --source/--target choose "
            "other columns, or add a header line naming them, such as 'prey predator')")


def _yes_or_no(field) -> bool | None:
    """``True`` for a field that says yes (``1``, ``yes``, ``y``, ``true``, any case), ``False`` for one that says
    no (``0``, ``no``, ``n``, ``false``), else ``None``."""
    from gatbio.data.tables import is_number

    v = str(field).strip().lower()
    if v in ("1", "yes", "y", "true", "0", "no", "n", "false"):
        return v in ("1", "yes", "y", "true")
    if is_number(v) and float(v) in (0.0, 1.0):  # 1.0, 0.0
        return float(v) == 1.0
    return None


def _refuse_presence_columns(path: Path, sep: str, has_header: bool, first: list[str], rows: list[list[str]],
                             unread: list[int]) -> None:
    """A column not read (``unread``) that holds only 0 and 1 (or yes/no, true/false, y/n, any case), a 0 on some
    row: a long-format presence/absence table, whose rows of 0 are no link; read as links, they would make every
    listed pair a link. Refused, with ``--weight`` (a link of weight 0 is absent) or removing those rows as the
    fix. The first rows (``rows``, the header first when ``has_header``) pick the columns to look at; the whole
    file decides."""
    import shlex

    from gatbio.data.io import MalformedFileError
    from gatbio.data.tables import is_number, notes_said_before, read_table

    body = rows[1:] if has_header else rows
    looks = [k for k in unread if any(len(r) > k for r in body)
             and all(_yes_or_no(r[k]) is not None for r in body if len(r) > k)]
    if not looks:
        return
    with notes_said_before():  # read once more, whole (the notes are the edge-list reader's to say)
        df = read_table(path, sep=sep, header=has_header).df
    for k in looks:
        values = [v for v in df.iloc[:, k].tolist() if isinstance(v, str)] if k < df.shape[1] else []
        said = [_yes_or_no(v) for v in values]
        zeros = said.count(False)
        if not zeros or None in said:
            continue
        named = has_header and k < len(first) and first[k] and first.count(first[k]) == 1
        what = f"column {first[k]!r}" if named else f"column {k + 1}"
        option = f"--weight {shlex.quote(first[k]) if named else k + 1}"
        if all(is_number(v) for v in values):
            held, no = "0 and 1" if zeros < len(values) else "0", "0"
            fix = f"pass {option} (rows of 0 are then no link), or remove those rows"
        else:  # one spelling of each word, as first written: yes and no, TRUE and FALSE
            words: dict[str, str] = {}
            for v in values:
                words.setdefault(v.strip().lower(), v.strip())
            yes = [x for x in words.values() if _yes_or_no(x)]
            nos = [x for x in words.values() if not _yes_or_no(x)]
            held = " and ".join(x for x in (", ".join((yes + nos)[:-1]), nos[-1]) if x)
            no = " or ".join(nos)
            fix = f"write it as 1 and 0 and pass {option} (rows of 0 are then no link), or remove the rows of {no}"
        raise MalformedFileError(path, None, f"{what} holds only {held} ({zeros} row{'s' if zeros > 1 else ''} of "
                                             f"{no}): if it says whether the link exists, {fix}; if it says "
                                             "something else, remove the column")


def _check_whitespace_names(path: Path, head: list[tuple[int, str]], has_header: bool) -> None:
    """A whitespace-separated edge list cannot hold names with spaces ("Daphnia pulex") unless they are quoted:
    such a file would be read as links between the words. Refused at the first line that shows it: a row longer
    than a header row, or (no header) a third column of text where weights belong; an inline comment
    (``grass rabbit # seen in 2001``) and an extra column after the weight (``grass rabbit 0.5 field``) are named
    as such."""
    from gatbio.data.io import MalformedFileError, split_line
    from gatbio.data.tables import is_number

    if not head:
        return
    rows = [split_line(x, r"\s+") for _, x in head]
    fix = "species names with spaces need tabs or commas between the columns, or quotes (\"Daphnia pulex\"), or " \
          "names without spaces, such as Daphnia_pulex"
    for (no, _), row in zip(head, rows, strict=True):
        k = next((k for k, f in enumerate(row) if k >= 2 and f.startswith("#")), None)
        if k is not None and not (has_header and no == head[0][0]):
            raise MalformedFileError(path, no, f"an inline comment ({' '.join(row[k:])!r}): only a line that starts "
                                               "with # is a comment; move the note to a line of its own, or remove "
                                               "it")

    def extra(row: list[str], width: int) -> str | None:
        """A row of 'prey predator weight' and more fields (a number where the weight belongs)."""
        if len(row) > width >= 3 and is_number(row[width - 1]):
            more = row[width:]
            return f"{len(row)} fields: 'prey predator weight' and {len(more)} more ({' '.join(more)!r}): an extra " \
                   "column is not read from a whitespace-separated file: remove it, or separate the columns by " \
                   "tabs or commas under a header line that names them (then only the prey, predator and weight " \
                   "columns are read)"
        return None

    if has_header:
        # one unnamed column of numbers after the named ones ('prey predator' above 'grass rabbit 2') is weights
        unnamed_weights = all(len(r) == len(rows[0]) + 1 and is_number(r[-1]) for r in rows[1:])
        for (no, _), row in zip(head[1:], rows[1:], strict=True):
            if len(row) > len(rows[0]) and not unnamed_weights:
                raise MalformedFileError(path, no, extra(row, len(rows[0])) or
                                         f"{len(row)} fields where the header (line {head[0][0]}) names "
                                         f"{len(rows[0])}: {fix}")
        return

    for (no, _), row in zip(head, rows, strict=True):
        if len(row) > 3:
            raise MalformedFileError(path, no, extra(row, 3) or
                                     f"{len(row)} fields, more than 'prey predator [weight]': {fix}")
    if len(rows[0]) == 3 and not any(len(r) == 3 and is_number(r[2]) for r in rows):  # a column of words where
        # weights belong (a bad weight in a column of numbers is the weight parser's to name)
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
                             header=getattr(args, "header", None),
                             header_shared=getattr(args, "traits", None) is not None)  # foodweb predict --traits


def trophic_table(data, method: str = "mackay", weighted: bool = True, *, levels=None):
    """A DataFrame: species, trophic_level, prey (how many other species it eats), predators (how many other species
    eat it); with ``weighted``, links of weight 0 do not count (as in :func:`gatbio.ecology.trophic_levels`), and
    neither do cannibal links nor a link listed twice, which the levels do not count either. ``levels``: the web's
    levels as ``trophic_levels(data, method, weighted=weighted)`` returned them, not computed again."""
    import pandas as pd
    import torch
    from torch_geometric.utils import degree

    from gatbio.ecology import trophic_levels

    h = trophic_levels(data, method, weighted=weighted) if levels is None else levels
    n = data.num_nodes
    ei, w = data.edge_index, getattr(data, "edge_weight", None)
    if weighted and w is not None:
        ei = ei[:, w.view(-1) > 0]  # a zero-weight link carries no flow: not a link for the levels, nor here
    ei = torch.unique(ei[:, ei[0] != ei[1]], dim=1)  # other species, each once (self-loops: trophic_levels' default)
    return pd.DataFrame({
        "species": data.node_names,
        "trophic_level": h.numpy().round(4),
        "prey": degree(ei[1], n, dtype=torch.long).numpy(),
        "predators": degree(ei[0], n, dtype=torch.long).numpy(),
    })


def _note_raised_basal(file, df) -> None:
    """The note on MacKay levels where species without prey sit above level 1 (a producer eaten only by high-level
    consumers): right by MacKay et al.'s definition, which places every species by all of its links, but not the
    classic convention (every basal species at 1) that an ecologist may read the table by."""
    basal = df[(df["prey"] == 0) & (df["predators"] > 0)]
    raised = basal[basal["trophic_level"] > 1.0]
    if raised.empty:
        return
    from gatbio.data.tables import note

    top = raised.loc[raised["trophic_level"].idxmax()]
    note(f"{file}: {len(raised)} of {len(basal)} species without prey sit above level 1 (e.g. {top['species']!r} "
         f"at {top['trophic_level']:.4f}): MacKay levels place each species by all of its links, to its consumers "
         "too, with the lowest species of each connected part at 1; --method levine puts every species without prey "
         "at 1")


def run(args: argparse.Namespace) -> int:
    from gatbio._paths import check_outputs
    from gatbio.ecology import trophic_incoherence, trophic_levels
    from gatbio.results import write_csv

    to_stdout = args.csv == "-"  # the CSV on standard output, not a file named '-'
    check_outputs({"--csv": None if to_stdout else args.csv}, {"FILE": args.file}, tables=("--csv",))
    data = read_foodweb(args)
    w = getattr(data, "edge_weight", None)
    zero = int((w.view(-1) <= 0).sum()) if w is not None and not args.unweighted else 0
    if zero:
        from gatbio.data.tables import note

        note(f"{args.file}: {zero} of {w.numel()} links have weight 0 and are not counted: a link of weight 0 "
             "carries no flow and counts as absent (--unweighted counts every listed link)")
    loops = int((data.edge_index[0] == data.edge_index[1]).sum()) if data.num_edges else 0
    if loops:
        from gatbio.data.tables import note

        note(f"{args.file}: {loops} cannibal (self) link(s) counted among the links but left out of the levels and "
             "of the prey / predator counts (a species eating its own kind is no step up the food chain)")
    try:  # the levels once: the table shows them, and F0 (MacKay) or q (Levine) is computed from them
        levels = trophic_levels(data, args.method, weighted=not args.unweighted)
        df = trophic_table(data, args.method, weighted=not args.unweighted, levels=levels)
    except ValueError as err:  # the web has no levels by this method (no basal species, ...): name the file
        raise ValueError(f"{args.file}: {err}") from None
    if args.method == "mackay":
        _note_raised_basal(args.file, df)
    if args.sort:
        df = df.sort_values("trophic_level", ascending=False, kind="stable")
    try:
        f0 = trophic_incoherence(data, "mackay", weighted=not args.unweighted,
                                 levels=levels if args.method == "mackay" else None)
        f0 = f"{f0:.4f}"
    except ValueError:  # no link between two species with weight > 0: every species is basal, F0 has no value
        f0 = "undefined (no feeding link between two species)"
    extra = ""
    if args.method == "levine" and not f0.startswith("undefined"):  # F0 is MacKay's; Levine's levels give q
        try:
            q = trophic_incoherence(data, "johnson", weighted=not args.unweighted, levels=levels)
            extra = f", q={q:.4f} (Johnson)"
        except ValueError:
            extra = ""
    counted = f"{data.num_edges - zero} links" + (f" (and {zero} of weight 0, not counted)" if zero else "")
    summary = (f"# {getattr(data, 'name', args.file)}: {data.num_nodes} species, {counted}, "
               f"method={args.method}, incoherence F0={f0}{' (MacKay)' if args.method == 'levine' else ''}{extra}")
    if to_stdout:  # standard output holds the CSV alone, for a pipe; the summary goes beside the notes
        import sys

        from gatbio.results import table_text

        print(summary, file=sys.stderr)
        sys.stdout.write(table_text(df, "levels.csv"))
        return 0
    print(summary)
    print(df.to_string(index=False, float_format=lambda x: f"{x:.4f}"))  # one format for either method
    if args.csv:
        write_csv(args.csv, df)
        print(f"# wrote {args.csv}")
    return 0
