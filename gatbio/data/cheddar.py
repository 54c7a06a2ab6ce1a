"""The cheddar food webs as CSV files, converted from the R package's ``.RData`` files.

The registry's cheddar files (``datasets/cheddar.md``; provenance in ``foodwebs_cheddar/SOURCE.md``) are CSV
exports of the nine ``data/*.RData`` files of the R package *cheddar* (``quicklizard99/cheddar`` at a pinned
commit). Only the RData files have a public URL, so :func:`gatbio.data.download` fetches the RData, checks its
sha256, converts it here and checks each CSV against its registered sha256 before writing it: what is written is
byte for byte the shipped CSV.

Cheddar's layout
----------------
An RData file holds one object named as the file. A ``Community`` is an R list of three parts, each written to
its own CSV file in the layout cheddar's ``LoadCommunity()``/``SaveCommunity()`` use:

- ``nodes`` (a data.frame, one row per node: ``node``, then ``category``, ``M``, ``N``, taxonomy, ...) ->
  ``nodes.csv``;
- ``trophic.links`` (a data.frame: ``resource``, ``consumer``, extra columns in some webs) ->
  ``trophic.links.csv``;
- ``properties`` (a named list of length-one vectors: ``title``, ``M.units``, ``lat``, ...) -> ``properties.csv``
  (a header row and one data row).

``Millstream`` and ``pHWebs`` are ``CommunityCollection`` objects (named lists of communities): each community
gets a subfolder, named as the collection names it with every non-alphanumeric character replaced by ``_``
(``Allt a'Mharcaidh`` -> ``pHWebs/Allt_a_Mharcaidh``; ``properties.csv`` keeps the exact title). The other seven
files hold one community, written to a folder named as the file (``Benguela/``).

Conversion rules (found by reproducing the 57 shipped CSV files byte for byte)
------------------------------------------------------------------------------
- Values are not altered, rows keep the package's order and columns the data frame's order; no row names.
- ``nodes.csv`` and ``trophic.links.csv``: lines end in ``\\n``; a real number is written as Python's ``repr``
  (the shortest text that reads back as the same double: ``1e-07``, ``0.01``, ``100.0``, ``2000000.0``); an
  integer as its digits; text as is.
- ``properties.csv``: lines end in ``\\r\\n``; a real number is written with 15 significant digits
  (``%.15g``: ``53.6666666666667``, ``7``, ``-3.7``, ``46.21667``); an integer as its digits.
- R ``NA`` (of any type) is an empty field; so is an empty string. No shipped file has a logical (``TRUE``/
  ``FALSE``) value: one is refused rather than written by a guessed rule. Factors are written as their labels.
- Fields are quoted only when they must be (a comma, a double quote, a line break: ``csv.QUOTE_MINIMAL``,
  quotes doubled); none of the shipped files has such a field.

The text is written here from the parsed values (Python's ``csv`` module and float formatting), not by pandas,
so the bytes do not depend on the pandas or numpy version. The RData file is read with the PyPI package
``rdata`` (``pip install 'gatbio[cheddar]'``), an optional dependency: :func:`require_rdata` raises one line
naming that command when it is missing.
"""

from __future__ import annotations

import csv
import io
import math
import re
import warnings
from collections.abc import Mapping
from typing import Any

from gatbio.data.sources import DatasetNotFoundError

__all__ = ["INSTALL_HINT", "RDataMissingError", "require_rdata", "convert_rdata", "community_folder",
           "CSV_FILES"]

#: The three files of one community, in cheddar's layout.
CSV_FILES = ("nodes.csv", "properties.csv", "trophic.links.csv")

INSTALL_HINT = "pip install 'gatbio[cheddar]'"


class RDataMissingError(DatasetNotFoundError):
    """The optional package ``rdata``, which converts cheddar's RData files, is not installed: the CSV files
    cannot be made (a :class:`~gatbio.data.sources.DatasetNotFoundError`, so a ``gatbio`` command says it in one
    line)."""


def require_rdata(what: str = "converting cheddar's RData files to CSV"):
    """The ``rdata`` module, else :class:`RDataMissingError`: one line, ``<what> needs the Python package rdata
    ...: pip install 'gatbio[cheddar]'``."""
    try:
        import rdata
    except ImportError as err:
        raise RDataMissingError(f"{what} needs the Python package rdata, which is not installed: "
                                f"{INSTALL_HINT}") from err
    return rdata


def community_folder(name: str) -> str:
    """The folder of a collection's community: its name with every non-alphanumeric character replaced by
    ``_`` (``Allt a'Mharcaidh`` -> ``Allt_a_Mharcaidh``)."""
    return re.sub(r"[^0-9A-Za-z]", "_", name)


def _identity(obj: Any, attrs: Mapping[str, Any]) -> Any:
    return obj


def _columns(obj: Any, attrs: Mapping[str, Any]) -> dict[str, list]:
    """A data.frame as ``{column: list of Python values}`` (``None`` for NA), in the frame's order."""
    return {str(k): _values(v) for k, v in obj.items()}


def _factor(obj: Any, attrs: Mapping[str, Any]) -> list:
    """A factor as its labels (``None`` for NA)."""
    levels = [str(x) for x in attrs["levels"]]
    codes = _values(obj)
    return [None if c is None else levels[c - 1] for c in codes]


def _values(vec: Any) -> list:
    """A converted R vector as a list of Python values: ``float``, ``int``, ``bool``, ``str`` or ``None`` (NA)."""
    import numpy as np

    if isinstance(vec, list) and all(isinstance(x, (str, type(None), int, float, bool)) for x in vec):
        return list(vec)
    if isinstance(vec, np.ma.MaskedArray):  # INT/LGL with NA
        mask = np.ma.getmaskarray(vec)
        return [None if m else _scalar(x) for x, m in zip(vec.data.tolist(), mask.tolist(), strict=True)]
    if isinstance(vec, np.ndarray):
        return [_scalar(x) for x in vec.tolist()]
    raise TypeError(f"unexpected column of type {type(vec).__name__} in a cheddar table")


def _scalar(x: Any) -> Any:
    if x is None or isinstance(x, (str, bool, int)):
        return x
    if isinstance(x, float):
        return None if math.isnan(x) else x
    if isinstance(x, bytes):
        raise ValueError(f"undecodable text {x!r} in a cheddar table")
    raise TypeError(f"unexpected value {x!r} in a cheddar table")


_CLASS_MAP: dict[str, Any] = {"data.frame": _columns, "factor": _factor, "Community": _identity,
                              "CommunityCollection": _identity}


def _field(v: Any, real: str) -> str:
    """One CSV field: NA empty, a real number as ``real`` formats it, an integer as its digits, text as is. A
    logical value is refused: no shipped file has one, so how it was written is not known."""
    if v is None:
        return ""
    if isinstance(v, bool):
        raise ValueError("a logical (TRUE/FALSE) value: the shipped cheddar files have none, no rule for it")
    if isinstance(v, float):
        return real.format(v)
    return str(v)


def _table_field(v: Any) -> str:
    """A field of ``nodes.csv`` / ``trophic.links.csv``: a real number as Python's ``repr``."""
    return _field(v, "{!r}")


def _property_field(v: Any) -> str:
    """A field of ``properties.csv``: a real number with 15 significant digits."""
    return _field(v, "{:.15g}")


def _csv(rows: list[list[str]], newline: str) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator=newline, quoting=csv.QUOTE_MINIMAL)
    w.writerows(rows)
    return buf.getvalue().encode("utf-8")


def _community_files(com: Mapping[str, Any]) -> dict[str, bytes]:
    out = {}
    for part, fname in (("nodes", "nodes.csv"), ("trophic.links", "trophic.links.csv")):
        table = com[part]
        cols = list(table)
        n = len(table[cols[0]]) if cols else 0
        rows = [cols] + [[_table_field(table[c][i]) for c in cols] for i in range(n)]
        out[fname] = _csv(rows, "\n")
    props = {str(k): _values(v) for k, v in com["properties"].items()}
    for k, v in props.items():
        if len(v) != 1:
            raise ValueError(f"property {k!r} has {len(v)} values, not one")
    out["properties.csv"] = _csv([list(props), [_property_field(v[0]) for v in props.values()]], "\r\n")
    return out


def convert_rdata(data: bytes) -> dict[str, bytes]:
    """The CSV files of one cheddar RData file (its bytes): ``{path: bytes}`` with paths relative to the dataset
    folder (``Benguela/nodes.csv``, ``pHWebs/Allt_a_Mharcaidh/properties.csv``).

    Raises:
        RDataMissingError: ``rdata`` is not installed.
        ValueError: the bytes are not an RData file holding cheddar communities.
    """
    rdata = require_rdata()
    try:
        parsed = rdata.parser.parse_data(data)
        with warnings.catch_warnings():
            # Strings without an encoding flag (pHWebs) are ASCII; rdata warns for each one.
            warnings.filterwarnings("ignore", message="Unknown encoding")
            converted = rdata.conversion.convert(parsed, dict(rdata.conversion.DEFAULT_CLASS_MAP, **_CLASS_MAP))
    except Exception as err:  # a damaged file: rdata raises many kinds of errors
        raise ValueError(f"not a readable RData file ({type(err).__name__}: {err})") from err
    if not isinstance(converted, Mapping) or len(converted) != 1:
        raise ValueError("not a cheddar RData file (expected one object)")
    (name, obj), = converted.items()
    name = str(name)
    if not isinstance(obj, Mapping):
        raise ValueError(f"not a cheddar RData file ({name!r} is not a community)")
    if "nodes" in obj:
        communities = {name: obj}
    else:
        communities = {f"{name}/{community_folder(str(k))}": v for k, v in obj.items()}
    out: dict[str, bytes] = {}
    for folder, com in communities.items():
        try:
            files = _community_files(com)
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise ValueError(f"not a cheddar community: {folder} ({type(err).__name__}: {err})") from err
        out.update({f"{folder}/{f}": b for f, b in files.items()})
    return out
