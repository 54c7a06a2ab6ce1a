"""How gatbio reads a text table, once for every reader: opening, line numbers, header rows, weights.

Opening
    :func:`open_text` reads plain, gzip, bzip2 and xz files alike, **by content** (the first bytes), never by
    the file name: ``edges.txt`` that is really gzipped and ``edges.txt.gz`` that is really plain both work.
    A folder, a missing file, an unreadable file, an empty file or a file that is not text each give one line
    naming the file (:func:`check_file`, :func:`read_text`). A control character in a data line (a NUL byte in a
    name) is refused at its line (:func:`check_control_characters`).

Line numbers
    Every message names the **physical** line of the file (1-based, counting comments, blank lines and the
    header), as an editor shows it: :func:`read_table` keeps the line number of each row it hands to pandas.

Header rows (``header=None``: detected)
    The first non-comment, non-blank row is a header when both hold:

    1. it *looks like* a header: a column that holds numbers on every following row (of the first 100) holds
       a non-number on this row (``source target weight`` above ``a b 0.5``; ``resource consumer`` above
       numeric ids), or every field is made of known header words (:data:`HEADER_WORDS`: ``protein_a``,
       ``Interactor B``, ``GeneA``, ``resource``, ``GO_ID`` …; case, ``_ - .`` separators, single letters and
       numbers ignored: ``protein_1``, ``protein1``; ``orf19.101`` is an id, not a header); and
    2. none of its name fields is a name elsewhere: not a node on any other row of the same columns, nor one of
       the known names (the graph's proteins for a label table, the web's species for a trait table). A species
       called ``consumer`` that eats something on line 7 keeps line 1 as data.

    What was decided is said in one line on stderr (the ``gatbio.data`` logger, level WARNING) whenever a row
    was skipped as a header or looked like one but was kept. ``header=True`` / ``False`` (``--header`` /
    ``--no-header``) force it.

Weights
    :func:`parse_weights` is the one weight parser: a weight must be a number (not ``abc``), finite (not
    ``nan``/``inf``) and non-negative (a strength, a flow or a confidence); the first bad value is reported
    with ``file:line`` and the number of bad values.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import itertools
import logging
import lzma
import re
import zlib
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from gatbio._paths import check_input_file

__all__ = ["MalformedFileError", "check_file", "compression_of", "open_text", "read_text", "read_table", "Table",
           "read_node_table",
           "looks_like_header", "is_header_word", "HEADER_WORDS", "parse_weights", "split_fields", "data_head",
           "sniff_separator", "note", "quotes", "check_quotes", "check_control_characters", "DECOMPRESSION_ERRORS",
           "decompression_error"]

log = logging.getLogger("gatbio.data")


def note(message: str) -> None:
    """Say something the user should know about how a file was read (one line on stderr by default)."""
    log.warning("note: %s", message)


@contextmanager
def notes_said_before():
    """No :func:`note` inside: for a file read a second time, whose notes were said at the first reading."""
    previous = log.disabled
    log.disabled = True
    try:
        yield
    finally:
        log.disabled = previous


def first_few(items: Sequence, k: int, sep: str = ", ") -> str:
    """The first ``k`` of ``items`` for a message, and how many more: ``a, b, c and 4 more`` (with ``sep="; "``:
    ``a; b; c; and 4 more``)."""
    shown = sep.join(map(str, items[:k]))
    return shown + (f"{sep.rstrip(', ')} and {len(items) - k} more" if len(items) > k else "")


class MalformedFileError(ValueError):
    """A file does not have the expected format; the message names ``file:line`` and what was expected."""

    def __init__(self, path: str | Path, line: int | None, message: str):
        self.path, self.line, self.message = str(path), line, message
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {message}")

    def __reduce__(self):  # raised in a worker process (jobs > 1), it must unpickle in the parent as itself
        return type(self), (self.path, self.line, self.message)


# --------------------------------------------------------------------------------------------------------
# opening
# --------------------------------------------------------------------------------------------------------

def check_file(path: str | Path) -> Path:
    """``path`` as a :class:`Path` when it is a readable, non-empty file; else one clear error."""
    path = check_input_file(path)
    if path.stat().st_size == 0:
        raise MalformedFileError(path, None, "the file is empty")
    return path


def compression_of(path: str | Path) -> str | None:
    """``"gzip"``, ``"bz2"``, ``"xz"`` or ``None`` (plain), from the first bytes of the file."""
    with open(path, "rb") as fh:
        head = fh.read(10)
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if re.match(rb"BZh[1-9]1AY&SY", head):
        return "bz2"
    if head[:6] == b"\xfd7zXZ\x00":
        return "xz"
    return None


def _archive_kind(path: str | Path) -> str | None:
    """What a binary file gatbio does not decompress is, from its first bytes (for the error message)."""
    with open(path, "rb") as fh:
        head = fh.read(8)
    if head[:4] == b"PK\x03\x04":
        return "a zip archive (an Excel .xlsx workbook is one too: save the sheet as CSV or TSV instead)"
    if head[:4] == b"\x28\xb5\x2f\xfd":
        return "Zstandard-compressed (unzstd FILE)"
    if head[:6] == b"7z\xbc\xaf\x27\x1c":
        return "a 7-Zip archive"
    if head[:4] == b"Rar!":
        return "a RAR archive"
    return None


#: How each compression :func:`compression_of` names is opened.
_OPENERS = {"gzip": gzip.open, "bz2": bz2.open, "xz": lzma.open}


def open_text(path: str | Path, encoding: str = "utf-8"):
    """A text file object for ``path``, decompressed when its content is gzip, bzip2 or xz (UTF-8: a byte-order
    mark, as spreadsheets write, is dropped)."""
    encoding = "utf-8-sig" if encoding.lower() in ("utf-8", "utf8") else encoding
    opener = _OPENERS.get(compression_of(path))
    if opener is None:
        if (archive := _archive_kind(path)) is not None:  # said as what it is, not as undecodable bytes
            raise MalformedFileError(path, None, f"{archive}, not text: gatbio reads plain text, or text compressed "
                                                 "with gzip, bzip2 or xz; unpack it first")
        return open(path, encoding=encoding)
    return opener(path, "rt", encoding=encoding)


def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    """The whole (decompressed) text of a file, with decoding and decompression errors as one clear line.

    UTF-16 or UTF-32 text (a byte-order mark first: Excel's and Notepad's "Unicode" text) read as UTF-8 or as a
    one-byte encoding (Latin-1) is refused with a line that says to save it as UTF-8, rather than decoded into
    noise or reported as a binary file."""
    try:
        with open_text(path, encoding) as fh:
            text = fh.read()
    except UnicodeDecodeError as err:
        if (wide := _wide_unicode(path)) is not None:
            raise _wide_unicode_error(path, wide) from None
        line = err.object[:err.start].count(b"\n") + 1 if compression_of(path) is None else None
        if (shown := _one_byte_text(err.object, err.start)) is not None:
            raise MalformedFileError(
                path, line, f"not {encoding} text: it looks like Windows-1252 / Latin-1 text (this line reads "
                            f"{shown!r} that way); save it as UTF-8 (Excel: CSV UTF-8; LibreOffice: Character set "
                            "Unicode (UTF-8)) or convert it (iconv -f WINDOWS-1252 -t UTF-8 FILE > NEW)") from None
        raise MalformedFileError(path, line, f"not {encoding} text (byte {err.object[err.start:err.start + 1]!r}); "
                                             "is it a spreadsheet or a binary file? save it as text (TSV/CSV)") from None
    except DECOMPRESSION_ERRORS as err:
        raise decompression_error(path, err) from None
    if text[:2] in ("\xff\xfe", "\xfe\xff", "\x00\x00") and (wide := _wide_unicode(path)) is not None \
            and not encoding.lower().startswith(("utf-16", "utf16", "utf-32", "utf32")):  # a BOM read as Latin-1
        raise _wide_unicode_error(path, wide)
    return text


def _one_byte_text(data: bytes, at: int) -> str | None:
    """The line around byte ``at`` decoded as Windows-1252 when ``data`` looks like text in that one-byte encoding
    (every byte defined there, no control character but tabs, form feeds and line ends), else ``None``: a file
    saved by Excel or an older tool in the "ANSI" code page (a superset of Latin-1's letters), not a binary file.
    Not decoded that way silently: the guess can be wrong (Mac Roman, Latin-2), and names must match the other
    files' byte for byte."""
    text = data.decode("cp1252", errors="replace")  # one character per byte, so ``at`` indexes both
    if "\ufffd" in text or re.search("[\x00-\x08\x0b\x0e-\x1f\x7f]", text):
        return None
    start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
    shown = text[start:end if end >= 0 else len(text)].rstrip("\r")
    return shown if len(shown) <= 80 else shown[:77] + "..."


#: Byte-order marks of the Unicode encodings that are not UTF-8 (UTF-32 first: its little-endian mark starts
#: with UTF-16's).
_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"),
              (b"\xfe\xff", "UTF-16"))


def _wide_unicode(path: str | Path) -> str | None:
    """``"UTF-16"`` or ``"UTF-32"`` when the (decompressed) file starts with that encoding's byte-order mark."""
    opener = _OPENERS.get(compression_of(path), open)
    try:
        with opener(path, "rb") as fh:
            head = fh.read(4)
    except DECOMPRESSION_ERRORS:
        return None
    return next((name for bom, name in _WIDE_BOMS if head.startswith(bom)), None)


def _wide_unicode_error(path: str | Path, name: str) -> MalformedFileError:
    what = " (Excel's and Notepad's \"Unicode\" text)" if name == "UTF-16" else ""
    return MalformedFileError(path, None, f"is {name} text{what}, not UTF-8: save it as UTF-8 (Excel: CSV UTF-8; "
                                          f"Notepad: Save as, Encoding UTF-8) or convert it (iconv -f {name} -t UTF-8 "
                                          "FILE > NEW)")


#: What a damaged or cut-short compressed file raises while it is read (``zlib.error`` is not an ``OSError``).
DECOMPRESSION_ERRORS = (EOFError, gzip.BadGzipFile, lzma.LZMAError, zlib.error, OSError)


def decompression_error(path: str | Path, err: BaseException) -> Exception:
    """The one line for a file that cannot be decompressed (``err`` from :data:`DECOMPRESSION_ERRORS`); a missing,
    unreadable or folder path keeps its own error."""
    if isinstance(err, (FileNotFoundError, PermissionError, IsADirectoryError)):
        return err
    return MalformedFileError(path, None, f"cannot decompress ({err}); is the file truncated or damaged? fetch it "
                                          "again")


# --------------------------------------------------------------------------------------------------------
# header rows
# --------------------------------------------------------------------------------------------------------

#: Words header rows of network and annotation tables are made of (``protein_a`` = ``protein`` + ``a``).
HEADER_WORDS = frozenset("""
node nodes vertex vertices source target src dst from to head tail id ids name names label labels
protein proteins gene genes interactor interactors partner symbol official uniprot uniprotkb entrez ensembl
string stringid accession entry locus orf item db object preferred
species taxon taxa organism resource resources consumer consumers prey predator predators host parasite
lifestage lifestages
weight weights score scores combined confidence flow flows strength value values biomass fraction diet
interaction interactions type edge edges link links evidence experimental system mode modes action actions
function functions go ontology term terms annotation annotations class classes category categories group trait traits
mass body size
biological molecular cellular process processes component components
""".split())


def is_header_word(field: str) -> bool:
    """True when ``field`` is made of :data:`HEADER_WORDS`: case, separators (anything but letters and digits) and
    single letters are ignored, and so are digits that end a word (``protein1``, ``GeneA``, ``preferred_name_B``,
    ``Interactor B``, GloBI's ``sourceTaxonName``); a word with digits inside or made of digits is an id, not a header (``orf19.101``)."""
    if re.search(r"\.\d", field):  # orf19.101, 9606.1234: an id with a version or a species prefix
        return False
    # a last capital letter (GeneA, ProteinB, UniProtKB) or camelCase throughout (GloBI's sourceTaxonName)
    for split in (r"([a-z])([A-Z])(?![A-Za-z])", r"([a-z])([A-Z])"):
        words = [w for w in re.split(r"[^a-z0-9]+", re.sub(split, r"\1 \2", field).lower()) if w]
        if not words or any(not re.fullmatch(r"[a-z]+\d*|\d+", w) for w in words):  # protein_1, Gene 2: numbered
            return False
        tokens = [t for t in (w.rstrip("0123456789") for w in words) if len(t) > 1]
        if tokens and all(t in HEADER_WORDS for t in tokens):
            return True
    return False


def is_number(s: str) -> bool:
    """``s`` parses as a float (``"1e-3"``, ``"nan"``, ``"inf"`` included)."""
    try:
        float(s)
    except ValueError:
        return False
    return True


def looks_like_header(first: Sequence[str], following: Iterable[Sequence[str]]) -> bool:
    """Rule 1 of the module docstring: a typed column breaks on ``first``, or every field is a header word."""
    first = [f for f in first]
    if not first or all(is_number(f) for f in first if f):
        return False
    following = [row for row in following if row]
    for c, f in enumerate(first):
        col = [row[c] for row in following if len(row) > c and row[c] != ""]
        if col and not is_number(f) and all(is_number(v) for v in col):
            return True
    return all(is_header_word(f) for f in first if f)


def header_note(path, line: int, text: str, used: bool, clash: str | None = None) -> None:
    """The note every reader gives on a first row read as a header (``used``), or kept as data because ``clash``,
    one of its fields, is a name elsewhere in the data."""
    shown = text if len(text) <= 60 else text[:57] + "..."
    if used:
        note(f"{path}: line {line} {shown!r} read as a header, not as data (detected; --no-header / header=False "
             "reads it as data)")
    else:
        note(f"{path}: line {line} {shown!r} looks like a header but {clash!r} is also a name elsewhere in the data: "
             "read as data (--header / header=True skips it)")


# --------------------------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------------------------

#: Separators whose tables quote (RFC 4180 CSV, its ``;`` variant, whitespace edge lists with ``"Daphnia pulex"``):
#: ``"a, b"`` is one field there, and a quote left open at the end of its line is refused at that line. Tab- and
#: ``|``-separated formats (TSV, BioGRID, GAF, STRING) do not quote: a ``"`` in them is text (BioGRID's
#: qualifications, a GAF's free text), never the start of a field that runs over line ends; only a field quoted
#: whole (``"grass"``, as R's ``write.table`` writes TSV) loses its two quotes.
QUOTING_SEPARATORS = (",", ";", r"\s+", " +")


def quotes(sep: str | None) -> bool:
    """Whether a table with this separator reads ``"..."`` as one quoted field (:data:`QUOTING_SEPARATORS`)."""
    return sep in QUOTING_SEPARATORS


def _unquote(field: str) -> str:
    """A field quoted whole (``"grass"``) without its two quotes; any other field as it is."""
    return field[1:-1] if len(field) >= 2 and field[0] == field[-1] == '"' else field


#: A whitespace-separated field: quoted whole (``""`` a quote inside), or a run of other characters.
_QUOTED_OR_WORD = re.compile(r'(?:"((?:[^"]|"")*)"(?=\s|$))|(\S+)')


def split_fields(text: str, sep: str) -> list[str]:
    """One line's fields, as :func:`read_table` splits them (whitespace, with a field quoted whole read as one, as
    pandas does; or ``sep``: CSV quoting where :func:`quotes`, a field quoted whole unquoted elsewhere)."""
    if sep in (r"\s+", " +", None):
        if '"' not in text:
            return text.split()
        # pandas reads a whitespace table with CSV quoting ('"Daphnia pulex" 0 1': two fields, not three), so its
        # header must split the same way, or a quoted name of the header differs from the same name in the rows
        return [m[1].replace('""', '"') if m[1] is not None else m[2] for m in _QUOTED_OR_WORD.finditer(text)]
    if not quotes(sep):
        return [_unquote(f.strip()) for f in text.split(sep)]
    return [f.strip() for f in next(csv.reader([text], delimiter=sep))]


#: Control characters: C0 but the tab and the line ends, DEL, and (``c1``) C1. No name or value of a text table
#: holds one; a NUL byte comes from a damaged or binary file, or from UTF-16 text read as UTF-8.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]")
_CONTROL_C0 = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_NAMES = {0x00: "NUL", 0x1a: "SUB, a DOS end-of-file mark", 0x1b: "ESC", 0x7f: "DEL"}
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0b, 0x0c, *range(0x0e, 0x20), 0x7f])


def check_control_characters(path: str | Path, text: str, numbers: np.ndarray | None = None, first_line: int = 1,
                             c1: bool = True) -> None:
    """Refuse ``text`` (lines of ``path``) holding a control character (:data:`_CONTROL`; ``c1=False``: not the
    C1 ones, which a file read as Latin-1 may hold for its Windows-1252 letters), at its line (``numbers[k]`` for
    line ``k`` of ``text``, else ``first_line + k``), naming the field (the text between separators) that holds
    it: pandas and ``str.split`` keep it in the name (``rab\\x00bit``, another species than ``rabbit``, shown
    as ``rab bit``) or split the name on it."""
    if text.isascii():  # the usual case: deleting the control bytes is 3x faster than a regular expression's scan
        raw = text.encode("ascii")
        if len(raw.translate(None, _CONTROL_BYTES)) == len(raw):
            return
    m = (_CONTROL if c1 else _CONTROL_C0).search(text)
    if m is None:
        return
    at = m.start()
    k = text.count("\n", 0, at)
    line = int(numbers[k]) if numbers is not None and k < len(numbers) else first_line + k
    stops = ("\n", "\t", ",", ";", " ", '"')
    start = max(text.rfind(x, 0, at) for x in stops) + 1
    end = min((i for i in (text.find(x, at) for x in stops) if i >= 0), default=len(text))
    field = text[start:end].rstrip("\r")
    shown = repr(field if len(field) <= 60 else field[:57] + "...")
    c = ord(m.group())
    what = f"U+{c:04X}" + (f", {_CONTROL_NAMES[c]}" if c in _CONTROL_NAMES else "")
    why = " (NUL bytes come from a damaged or binary file, or from UTF-16 text: save the file again as UTF-8 " \
          "text)" if c == 0 else ""
    raise MalformedFileError(path, line, f"{shown} holds a control character ({what}), which no name or value "
                                         f"has: delete it{why}")


def data_head(path: str | Path, comment: str | None = "#", lines: int = 100, numbered: bool = False) -> list:
    """The first ``lines`` data lines of a (possibly compressed) text file: blank lines and lines starting with
    ``comment`` are skipped; not UTF-8 text: :func:`read_text`'s error with ``file:line``; a control character
    (a NUL byte) in a line: :func:`check_control_characters`'s. With ``numbered``, ``(physical line number,
    line)`` pairs."""
    head: list = []
    with open_text(check_file(path)) as fh:
        try:
            for no, x in enumerate(fh, start=1):
                if x.strip() and not (comment and x.lstrip().startswith(comment)):
                    check_control_characters(path, x.rstrip("\r\n"), first_line=no)
                    head.append((no, x.rstrip("\r\n")) if numbered else x.rstrip("\r\n"))
                    if len(head) >= lines:
                        break
        except UnicodeDecodeError:
            read_text(path)  # the readers' one error: file:line of the first byte that is not UTF-8
            raise
        except DECOMPRESSION_ERRORS as err:
            raise decompression_error(path, err) from None
    return head


def sniff_separator(lines: Sequence[str]) -> str | None:
    """The field separator of a text table from some of its data lines (:func:`data_head`): a tab where any line
    has one, else a comma where any line has one, else ``None`` (whitespace, or one field per line: the caller
    decides).

    Every line is read, not only the first: a header without a tab or comma above tab- or comma-separated rows
    would mislead a one-line sniff (``csv.Sniffer`` also guesses from a sample, but it picks a space or a letter on
    files of gene ids, so it is not used)."""
    if any("\t" in x for x in lines):
        return "\t"
    if any("," in x for x in lines):
        return ","
    return None


def data_lines(text: str, comment: str | None) -> tuple[str, np.ndarray]:
    """The non-blank, non-comment lines of ``text`` (``"\\n"``-joined) and their 1-based physical line numbers.
    A line of separators only (``,,,`` or ``;;``: an empty row a spreadsheet saved) is blank too.

    Blank and comment lines are found by one regular-expression search for a line break followed by one of them
    (a literal-prefix search in C); a Python loop over every line would cost more than pandas' parse itself on a
    million-line file."""
    body = text[:-1] if text.endswith("\n") else text
    if not body.strip(" \t\n\r\f\v,;"):
        return "", np.zeros(0, dtype=np.int64)
    ends = r"\n|\Z" + ("|" + re.escape(comment) if comment else "")
    drop, line, pos, scan = [], 0, 0, "\n" + body
    for m in re.finditer(r"\n[ \t\f\v\r,;]*(?=" + ends + ")", scan):
        line += scan.count("\n", pos, m.start())
        pos = m.start()
        drop.append(line)  # the line that starts after this line break (0-based)
    n = body.count("\n") + 1
    if not drop:
        return body, np.arange(1, n + 1, dtype=np.int64)
    keep = np.ones(n, dtype=bool)
    keep[drop] = False
    return "\n".join(itertools.compress(body.split("\n"), keep.tolist())), np.flatnonzero(keep) + 1


@dataclass
class Table:
    """A parsed table: every field a ``str`` (``""`` where a row has fewer fields), and each row's file line.

    Attributes:
        df: the rows; columns are the header's names, or ``0 .. k-1`` without a header.
        lines: ``(rows,)`` 1-based physical line of each row.
        header: the header row's fields, or ``None``; ``header_line``: its line.
    """

    path: Path
    df: pd.DataFrame
    lines: np.ndarray
    header: list[str] | None = None
    header_line: int | None = None
    sep: str | None = None

    def line(self, row: int) -> int | None:
        return int(self.lines[row]) if 0 <= row < len(self.lines) else None

    def raw_fields(self, row: int) -> list[str] | None:
        """The fields of ``row``'s physical line as written (split as :func:`read_table` splits them), or ``None``
        when the line cannot be found again. Reads the file anew: for error messages only."""
        line, sep = self.line(row), self.sep
        if line is None or sep is None:
            return None
        lines = read_text(self.path).split("\n")
        return split_fields(lines[line - 1].rstrip("\r"), sep) if line <= len(lines) else None

    def _no_value(self, row: int, col: int | str, what: str, kind: str, problem: Callable[[str], str]) -> str:
        """Why column ``col`` of ``row`` holds no value, from its physical line: the field is there and empty (a
        tab left with nothing after it, an empty spreadsheet cell), or the line has too few columns; a field that
        is not empty as written (``nan`` read by a number parser) is said by ``problem(field)``."""
        pos = col if isinstance(col, int) else list(self.df.columns).index(col)
        fields = self.raw_fields(row)
        if fields is not None and pos < len(fields):
            found = fields[pos].strip()
            return problem(found) if found else f"the {what} field is empty: write {kind} there, or delete the line"
        return f"{what} is missing (too few columns on this line)"

    def column(self, col: int | str):
        """The column named ``col`` (a header name), or at position ``col``."""
        if isinstance(col, str):
            if self.header is None:
                raise MalformedFileError(self.path, None, f"no column {col!r}: the file has no header row (give "
                                                          "columns by position, or add a header)")
            if col not in self.df.columns:
                raise MalformedFileError(self.path, self.header_line,
                                         f"no column {col!r} in the header (columns: {list(self.df.columns)})")
            return self.df[col]
        if col >= self.df.shape[1]:
            raise MalformedFileError(self.path, self.line(0), f"no column {col + 1}: the rows have {self.df.shape[1]}")
        return self.df.iloc[:, col]

    def integers(self, col: int | str, what: str) -> np.ndarray:
        """Column ``col`` as int64; the first non-integer names its line."""
        s = self.column(col)
        if pd.api.types.is_integer_dtype(s.dtype):
            return s.to_numpy(np.int64)
        num = pd.to_numeric(s, errors="coerce").to_numpy(np.float64)
        bad = ~np.isfinite(num) | (num != np.round(num))
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            v = s.iloc[r]
            msg = self._no_value(
                r, col, what, "an integer", lambda x: f"{what} must be an integer, found {x!r}") if pd.isna(v) or not str(v).strip() else \
                f"{what} must be an integer, found {v!r}"
            raise MalformedFileError(self.path, self.line(r), msg)
        return num.astype(np.int64)

    def weights(self, col: int | str, what: str = "weight") -> np.ndarray:
        try:
            return parse_weights(self.column(col), self.path, self.line, what=what)
        except MalformedFileError as err:
            missing = weight_problem(None, what)
            if not err.message.startswith(missing) or err.line is None:
                raise
            r = int(np.flatnonzero(self.lines == err.line)[0])  # an empty field, or a short line: which one
            raise MalformedFileError(self.path, err.line, self._no_value(r, col, what, "a number",
                                                                        lambda x: weight_problem(x, what))
                                     + err.message[len(missing):]) from None


_SEP_WORDS = {"\t": "a tab", ",": "a comma", r"\s+": "spaces or tabs", " +": "spaces", ";": "a semicolon",
              "|": "a '|'", " ": "a space"}


def _parse(path: Path, text: str, numbers: np.ndarray, sep: str, expected_desc: str,
           numeric_columns: Sequence[int], expected: int | None = None) -> pd.DataFrame:
    """pandas' C parser on the data lines, comment and blank lines already dropped (:func:`data_lines`; a ``#``
    inside a line is text); text columns; a missing field is NaN, never a name such as ``NA``; a row of the wrong
    length names its physical line."""
    if quotes(sep) and '"' in text:  # only a file with quotes pays for the line-by-line look
        bad = _unclosed_quote_line(text, numbers, sep)
        if bad is not None:  # read on, the field would swallow the separators and lines after it
            raise MalformedFileError(path, bad, _QUOTE_HINT.format(sep=_SEP_WORDS.get(sep, repr(sep))))
    ncol = len(split_fields(text.split("\n", 1)[0], sep))
    dtype = {c: str for c in range(ncol) if c not in numeric_columns}
    try:
        df = pd.read_csv(io.StringIO(text), sep=r"\s+" if sep in (r"\s+", " +") else sep, header=None, dtype=dtype,
                         keep_default_na=False, na_values=[""], engine="c", skip_blank_lines=False,
                         quoting=csv.QUOTE_MINIMAL if quotes(sep) else csv.QUOTE_NONE)
    except pd.errors.ParserError as err:
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(err))
        if m:
            k = int(m.group(2)) - 1
            line = int(numbers[k]) if k < len(numbers) else None
            first, have, saw = (int(numbers[0]) if len(numbers) else None), int(m.group(1)), int(m.group(3))
            if expected is not None and have < expected:  # the first row is the short one (e.g. another separator)
                raise MalformedFileError(path, first, f"expected {expected} columns{expected_desc}, found {have} "
                                                      f"(line {line} has {saw}; every row needs the same "
                                                      f"separator: {_SEP_WORDS.get(sep, repr(sep))})") from None
            raise MalformedFileError(path, line, f"expected {have} columns{expected_desc}, found {saw} (the first "
                                                 f"data row, line {first}, sets the number)") from None
        if "EOF inside string" in str(err):  # a quote opened and never closed: pandas names no useful line
            raise MalformedFileError(path, _unclosed_quote_line(text, numbers, sep),
                                     _QUOTE_HINT.format(sep=_SEP_WORDS.get(sep, repr(sep)))) from None
        raise MalformedFileError(path, None, f"could not parse the table: {err}") from None
    if quotes(sep) and len(df) != len(numbers):  # a quoted field ran over line ends: rows were merged
        raise MalformedFileError(path, _unclosed_quote_line(text, numbers, sep),
                                 _QUOTE_HINT.format(sep=_SEP_WORDS.get(sep, repr(sep))))
    texts = [c for c in df.columns if df[c].dtype == object or pd.api.types.is_string_dtype(df[c].dtype)]
    if sep not in (r"\s+", " +"):
        for c in texts:
            df[c] = df[c].str.strip()
            if not quotes(sep):  # "grass" (a field quoted whole, R's TSV): grass
                df[c] = df[c].str.replace(r'^"(.*)"$', r"\1", regex=True)
    if not text.isascii():  # a no-break or zero-width space ending a name ('rabbit\xa0', pasted from a web page)
        for c in texts:  # made it another species than 'rabbit' where whitespace separates (pandas splits on ASCII)
            df[c] = df[c].str.replace(_EDGE_SPACE, "", regex=True)
    return df


#: Unicode spaces and invisible marks at the start or end of a field (a name, read without them)
_EDGE_SPACE = re.compile(r"^[\s\u200b\u200c\u200d\u2060\ufeff]+|[\s\u200b\u200c\u200d\u2060\ufeff]+$")


_QUOTE_HINT = ("a double quote opens a field that does not close on this line (fields separated by {sep} may be "
               "quoted, \"like, this\"): close it on the same line, or remove it")


def check_quotes(path: str | Path, line: int | None, text: str, sep: str | None) -> None:
    """Refuse one line whose quotes do not close on it, where ``sep`` quotes (:func:`quotes`): read on, such a
    field would swallow the separators (and, in a table, the lines) after it."""
    if quotes(sep) and text.count('"') % 2:
        raise MalformedFileError(path, line, _QUOTE_HINT.format(sep=_SEP_WORDS.get(sep, repr(sep))))


def _unclosed_quote_line(text: str, numbers: np.ndarray, sep: str) -> int | None:
    """The physical line of the first data line whose quotes do not close on it (``numbers[k]`` for line k)."""
    delimiter = sep if len(sep) == 1 else " "  # whitespace: the quotes' parity says it
    for k, line in enumerate(text.split("\n")):
        try:
            rows = list(csv.reader([line], delimiter=delimiter, strict=True))
        except csv.Error:
            return int(numbers[k]) if k < len(numbers) else None
        if rows and line.count('"') % 2:
            return int(numbers[k]) if k < len(numbers) else None
    return None


def read_table(
    path: str | Path,
    *,
    sep: str = r"\s+",
    header: bool | None = None,
    comment: str | None = "#",
    name_columns: Sequence[int | str] = (),
    known_names: Callable[[str], bool] | None = None,
    expected: int | None = None,
    expected_desc: str = "",
    numeric_columns: Sequence[int | str] = (),
    comment_note: bool = False,
    unique_header: bool = True,
) -> Table:
    """Read a delimited text table (any compression) with exact line numbers and header detection.

    Args:
        sep: ``r"\\s+"`` (any whitespace), ``","``, ``"\\t"``, ...
        header: ``True`` / ``False`` force; ``None`` detects (module docstring).
        comment: a line that starts with it (after blanks) is skipped; inside a line it is text (a name such as
            ``Daphnia#1`` stays whole).
        name_columns: positions of the columns that hold names (nodes, species), for rule 2 of the detection.
        known_names: ``name -> bool``, names known from elsewhere (rule 2).
        expected: the number of columns needed (fewer is an error naming the line and ``expected_desc``).
        numeric_columns: columns (positions, or header names) parsed by pandas' C number parser; every other
            column is text (names stay as written: ``007``, ``NA``, ``nan``). A missing field is NaN.
        comment_note: say in one note how many comment lines were skipped, and the first one's line: for a format
            whose documentation promises no comments (a CSV table), where such a line may be a name that starts
            with ``comment`` or a row commented out, not a note the user meant to leave.
        unique_header: a header naming a column twice is an error (pandas would give ``df[name]`` as a table);
            ``False`` for a caller whose header holds data (an adjacency matrix's species, checked there).
    """
    path = check_file(path)
    raw = read_text(path)
    text, numbers = data_lines(raw, comment)
    check_control_characters(path, text, numbers)  # a NUL byte in a name: refused at its line, not read as a name
    if comment_note and comment:
        _note_comment_lines(path, raw, comment)
    if not len(numbers):
        raise MalformedFileError(path, None, "the file has no data rows")
    head: list[str] | None = None
    top = text.split("\n", 101)[:101]
    first_line = top[0]
    first = split_fields(first_line, sep)
    if header or (header is None and looks_like_header(first, (split_fields(x, sep) for x in top[1:]))):
        head = first

    def parse(with_header: bool) -> tuple[pd.DataFrame, np.ndarray]:
        body, body_no = (text.split("\n", 1)[1] if len(numbers) > 1 else "", numbers[1:]) if with_header \
            else (text, numbers)
        if not len(body_no):
            raise MalformedFileError(path, int(numbers[0]), "the file has no data rows (only a header)")
        cols = [c if isinstance(c, int) else head.index(c) for c in numeric_columns
                if isinstance(c, int) or (with_header and c in head)]
        return _parse(path, body, body_no, sep, expected_desc, cols, expected), body_no

    df, body_no = parse(head is not None)
    if head is not None and header is None:  # detected: rule 2, names elsewhere keep the row as data
        clash = None
        cols = [c for c in name_columns if isinstance(c, int) and c < len(head) and c < df.shape[1]]
        for c in cols:  # a name of the first row that is a name (in any name column) elsewhere
            if known_names is not None and known_names(head[c]) or \
                    any(bool((df.iloc[:, k] == head[c]).any()) for k in cols):
                clash = head[c]
                break
        header_note(path, int(numbers[0]), first_line.strip(), used=clash is None, clash=clash)
        if clash is not None:
            head = None
            df, body_no = parse(False)
    if head is not None:
        if unique_header:
            check_unique_header(path, int(numbers[0]), head)
        names = [h if h else str(i) for i, h in enumerate(head[:df.shape[1]])]
        df.columns = names + list(range(len(names), df.shape[1]))
    if expected is not None and df.shape[1] < expected:
        row = text.split("\n", 2)[1 if head is not None and len(numbers) > 1 else 0]
        other = next((c for c in (",", "\t", ";", "|", " ") if c in row.strip() and c != sep
                      and not (c == " " and sep in (r"\s+", " +"))), None)
        hint = f" (the line holds {_SEP_WORDS.get(other, repr(other))}: is that the separator? check the format " \
               "or its sep)" if other else ""
        raise MalformedFileError(path, int(body_no[0]), f"expected {expected} columns{expected_desc}, found "
                                                        f"{df.shape[1]}{hint}")
    if head is not None:
        named = len(head) - next((k for k, h in enumerate(reversed(head)) if h), len(head))  # trailing blanks
        if named > df.shape[1]:  # a column the header names would be dropped without a word
            raise MalformedFileError(path, int(numbers[0]), f"the header names {named} columns "
                                     f"({', '.join(map(repr, head[:named]))}), the rows have {df.shape[1]} (line "
                                     f"{int(body_no[0])}): give each row a field per header name, or check the "
                                     f"separator ({_SEP_WORDS.get(sep, repr(sep))})")
    return Table(path, df, np.asarray(body_no, dtype=np.int64), head, int(numbers[0]) if head is not None else None,
                 sep)


def _note_comment_lines(path: Path, raw: str, comment: str) -> None:
    """One note for the lines of ``raw`` that :func:`data_lines` skips as comments (the same lines: ``comment``
    after blanks or separators), with their count and the first one's physical line; nothing when there are none."""
    found = re.finditer(r"^[ \t\f\v\r,;]*" + re.escape(comment), raw, flags=re.M)
    first = next(found, None)
    if first is None:
        return
    n, line = 1 + sum(1 for _ in found), raw.count("\n", 0, first.start()) + 1
    s = "s" if n > 1 else ""
    note(f"{path}: {n} line{s} starting with {comment!r} skipped as comment{s} (the first: line {line}); a name "
         f"that starts with {comment!r} is read when quoted (\"{comment}name\")")


# --------------------------------------------------------------------------------------------------------
# weights
# --------------------------------------------------------------------------------------------------------

def parse_weights(values, path: str | Path, line_of: Callable[[int], int | None], *, what: str = "weight"
                  ) -> np.ndarray:
    """The one weight parser: ``values`` (strings or numbers) as float64, each a finite number ``>= 0``.

    Raises :class:`MalformedFileError` at the line of the first bad value (``line_of(row)``): missing, not a
    number, ``nan``/``inf`` or negative, with the count of bad values when there are several.
    """
    s = pd.Series(values)
    num = (s if pd.api.types.is_numeric_dtype(s.dtype) else pd.to_numeric(s, errors="coerce")).to_numpy(np.float64)
    bad = ~np.isfinite(num) | (num < 0)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise MalformedFileError(path, line_of(r), weight_problem(s.iloc[r], what) +
                                 (f" ({int(bad.sum())} bad {what}s in total)" if bad.sum() > 1 else ""))
    return num


def check_unique_header(path, line: int, head: Sequence[str]) -> None:
    """Refuse a header that names a column twice (empty names, a spreadsheet's trailing columns, may repeat):
    pandas would give ``df[name]`` as a table, not a column, and a traceback (or a table printed in a message)
    would follow far from the file."""
    named = [h.strip() for h in head if h.strip()]
    twice = next((h for h in named if named.count(h) > 1), None)
    if twice is not None:
        where = [i + 1 for i, h in enumerate(head) if h.strip() == twice]
        raise MalformedFileError(path, line, f"column {twice!r} appears twice in the header (columns "
                                             f"{' and '.join(map(str, where[:2]))}): rename one")


def decimal_comma_hint(text: str) -> str:
    """``": a decimal comma? write '1.5'"`` for a field such as ``1,5``, else ``""``."""
    return f": a decimal comma? write {text.replace(',', '.')!r}" if re.fullmatch(r"[+-]?\d*,\d+", text) else ""


def weight_problem(raw, what: str = "weight") -> str:
    """What is wrong with one bad weight value (the message of :func:`parse_weights`)."""
    if raw is None or (isinstance(raw, float) and np.isnan(raw)) or str(raw).strip() == "":
        return f"{what} is missing (too few columns on this line)"
    text = str(raw).strip()
    if not is_number(text):
        return f"{what} must be a number, found {text!r}{decimal_comma_hint(text)}"
    if not np.isfinite(float(text)):
        return f"{what} must be a finite number, found {text!r}"
    return f"{what} must be >= 0 (a strength, a flow or a confidence), found {text!r}"


def read_node_table(path: str | Path, names: Sequence[str], *, what: str = "node", where: str = "network",
                    header: bool | None = None, unknown: str = "error", value_word: str = "value",
                    value_hint: str = "", missing: str = "nan", comment_note: bool = False, row_lines: bool = False,
                    categorical: bool = False
                    ) -> tuple[np.ndarray, list[str], int | list[str]] | tuple[np.ndarray, list[str], int | list[str],
                                                                                np.ndarray]:
    """A table of numbers per named node (species traits, protein embeddings), aligned to ``names``.

    One row per node: its name (the ``what`` column when the header has one, else the first column), then numbers.
    CSV, TSV or whitespace separated (from the first lines), any compression; a header row is detected (its first
    field is not one of ``names``, and it names the columns) unless ``header`` forces it; without one the columns
    are named ``{value_word}_1`` ... . Returns ``(values (N, F), column names, rows ignored)``: a node without a row
    gets NaN; a row naming no node of ``names`` (the ``where``'s) is an error (``unknown="error"``), skipped and counted
    (``"ignore"``: a proteome-wide file for a smaller network), or a new node (``"add"``: a species without links
    yet; the values then have a row per name and per added node, after them in file order, and the third item is
    the list of added names). Duplicate rows, rows longer than the header and values that are not
    finite numbers are errors naming the file and line (``value_hint`` is appended to the last); a column of only
    ``TRUE`` / ``FALSE`` (any case: R's logicals) is read as 1 / 0. Empty fields and
    ``NA`` / ``nan`` are NaN (``missing="nan"``), or an error naming the line (``missing="error"``: an embedding has
    no missing values). A header this function detects is said in a note, as :func:`read_table`'s. Lines starting
    with ``#`` are skipped as comments; ``comment_note`` says how many in a note (:func:`read_table`).
    With ``row_lines``, a fourth item: the file line of each returned row (0 for a name without a row), for a
    caller's own check of a row (a protein found by another name, :func:`gatbio.data.sequence.read_protein_features`).

    With ``categorical`` (species traits; never embeddings), a column of text is one-hot encoded
    (:func:`_one_hot_column`): one 0/1 column ``<column>=<category>`` per category, in place of the column, said in
    one note; a column that mixes numbers and text is still refused at its first bad cell.
    """
    if unknown not in ("error", "ignore", "add"):
        raise ValueError(f"unknown={unknown!r}: 'error', 'ignore' or 'add'")
    if missing not in ("nan", "error"):
        raise ValueError(f"missing={missing!r}: 'nan' or 'error'")
    path = check_file(path)
    sep = _node_table_separator(path)
    known = set(names)
    if header is None:  # 'species,habitat': a first field that names the id column, not a node, is a header
        head = data_head(path, lines=1, numbered=True)
        first = split_fields(head[0][1], sep)[0] if head else ""
        if first not in known and (first.lower() == what or is_header_word(first)):
            header = True
            header_note(path, head[0][0], head[0][1], used=True)
    table = read_table(path, sep=sep, header=header, name_columns=(0,), known_names=known.__contains__,
                       comment_note=comment_note)
    df = table.df
    id_col = what if table.header is not None and what in df.columns else df.columns[0]
    ids = df[id_col].astype(str)
    dup = ids.duplicated().to_numpy()
    if dup.any():
        r = int(np.flatnonzero(dup)[0])
        raise MalformedFileError(path, table.line(r), f"{what} {ids.iloc[r]!r} has more than one row")
    stranger = ~ids.isin(known).to_numpy()
    if stranger.any() and unknown == "error":
        r = int(np.flatnonzero(stranger)[0])
        raise MalformedFileError(path, table.line(r), f"{int(stranger.sum())} {what} names are not in the {where}, "
                                 f"e.g. {sorted(ids[stranger])[:5]} (names must match the {where}'s exactly)")
    if table.header is not None and df.shape[1] > len(table.header):  # a row longer than the header
        extra = df.iloc[:, len(table.header):].notna().any(axis=1).to_numpy()
        if extra.any():
            r = int(np.flatnonzero(extra)[0])
            raise MalformedFileError(path, table.line(r), f"{int(df.iloc[r].notna().sum())} fields where the header "
                                                          f"(line {table.header_line}) names {len(table.header)}")
    cols = [c for c in df.columns if c != id_col]
    col_names = [str(c) if table.header is not None else f"{value_word}_{k + 1}" for k, c in enumerate(cols)]
    header_hint = None  # a new node on the first row, above text columns only: an undetected header?
    if categorical and header is None and table.header is None and unknown == "add" and bool(stranger[0]) \
            and not any(is_number(str(f).strip()) for f in df.iloc[0][cols] if pd.notna(f)):
        first_row = read_text(path).split("\n")[table.line(0) - 1].strip()
        header_hint = (f"the first row ({first_row!r}) names no {what} of the {where} and holds no number: a header "
                       "row? Read it as one with --header (header=True), or as data with --no-header (header=False)")
    blocks: list[np.ndarray] = []  # (rows, 1) per numeric column, (rows, categories) per text column
    out_names: list[str] = []
    encoded: list[tuple[str, list[str]]] = []
    for k, c in enumerate(cols):
        given = df[c].dropna().astype(str).str.strip().str.lower()
        given = given[~given.isin(["na", "nan", ""])]
        if len(given) and given.isin(["true", "false"]).all():  # R's and spreadsheets' logical columns: 1 / 0
            df[c] = df[c].astype(str).str.strip().str.lower().map({"true": "1", "false": "0"}).where(df[c].notna())
        if categorical:
            onehot = _one_hot_column(table, df[c], col_names[k], value_word, ~stranger | (unknown == "add"),
                                     header_hint=header_hint)
            if onehot is not None:
                block, cats = onehot
                blocks.append(block)
                out_names += [f"{col_names[k]}={cat}" for cat in cats]
                encoded.append((col_names[k], cats))
                continue
        v = pd.to_numeric(df[c], errors="coerce").to_numpy(float)
        bad = np.isnan(v) & df[c].notna().to_numpy() & ~df[c].str.lower().isin(["nan", "na"]).to_numpy()
        bad |= np.isinf(v)  # an infinite trait or embedding value is no measurement
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            kind = "finite" if np.isinf(v[r]) else "a number"
            comma = decimal_comma_hint(str(df[c].iloc[r]).strip())
            raise MalformedFileError(path, table.line(r), f"{value_word} {col_names[k]!r} must be {kind}, "
                                                          f"found {df[c].iloc[r]!r}{comma}"
                                                          + (f" {value_hint}" if value_hint else ""))
        blocks.append(v[:, None])
        out_names.append(col_names[k])
    if encoded:
        _note_one_hot(path, value_word, encoded)
    values = np.concatenate(blocks, axis=1) if blocks else np.empty((len(df), 0))
    col_names = out_names
    holes = np.isnan(values) & ~stranger[:, None]
    if missing == "error" and holes.any():
        r, k = (int(i) for i in np.argwhere(holes)[0])
        given = int(df.iloc[r].notna().sum())
        raise MalformedFileError(path, table.line(r), f"{what} {ids.iloc[r]!r} has no {value_word} {col_names[k]!r} "
                                                      f"(an empty, NA or nan field, or a short row: {given} of "
                                                      f"{len(cols) + 1} fields; {int(holes.sum())} missing in all)")
    if unknown == "add":  # the rows naming no node are new nodes, after ``names`` in file order
        added = ids[stranger].tolist()
        keep, order, third = np.ones(len(ids), dtype=bool), list(names) + added, added
    else:
        keep, order, third = ~stranger, list(names), int(stranger.sum())
    aligned = pd.DataFrame(values[keep], index=ids.to_numpy()[keep],
                           columns=range(values.shape[1])).reindex(order)
    if not row_lines:
        return aligned.to_numpy(dtype=float), col_names, third
    lines = pd.Series(table.lines[keep], index=ids.to_numpy()[keep]).reindex(order).fillna(0).to_numpy(np.int64)
    return aligned.to_numpy(dtype=float), col_names, third, lines


#: A cell that starts like a number (a sign, a comparison, a decimal point, a digit; or inf / infinity):
#: a number, perhaps written wrong (``-3,5``, ``12 g``, ``<0.1``), never a category of a text column.
_NUMBER_START = re.compile(r"[<>~+-]?\s*(?:\.?\d|inf(?:inity)?$)", re.IGNORECASE)
#: Cells that mark a missing value in spreadsheets and R exports: refused in a text column (not made categories)
#: with the fix, to leave the cell empty.
MISSING_MARKS = frozenset(["?", "-", "--", "n/a", "#n/a", "null", "n.d.", "missing"])
#: The most categories a text column of a node table may have to be one-hot encoded (``categorical``): more are
#: names, free text or a too fine grouping, each category a column that a handful of nodes fill.
MAX_CATEGORIES = 20
#: A text column whose every value differs (one category per node) from this many values on is refused: names or
#: free text (a common name, a note), each "category" a column that one node fills.
DISTINCT_REFUSED_FROM = 6


def _one_hot_column(table: Table, s: pd.Series, name: str, value_word: str, counted: np.ndarray,
                    header_hint: str | None = None) -> tuple[np.ndarray, list[str]] | None:
    """Column ``s`` of a node table one-hot encoded, ``((rows, K) 0/1 values, the K categories)``, or ``None`` when
    it is a column of numbers (or logicals) for the caller to parse (and to refuse at its first text cell). A
    cell that starts with a number (``-3,5`` with a decimal comma, ``12 g`` with a unit, ``<0.1``, ``inf``) is
    a number written wrong, never a category.

    A category is a cell as written, whitespace stripped; empty, ``NA`` and ``nan`` cells are missing (NaN in every
    one-hot column). Categories come sorted (case-insensitively, then as written), so the columns do not depend on
    the row order. Only the rows of ``counted`` (the rows kept) make categories. Refused, naming the file: a column
    mostly of text with a number in it (at that cell), more than :data:`MAX_CATEGORIES` categories, or one
    category per value from :data:`DISTINCT_REFUSED_FROM` values on. ``header_hint``: the message when the first
    row, whose first field names no node, has a text of its own (used nowhere else) in this column: a header row
    that was not detected, since no column of numbers shows it."""
    text = s.astype(str).str.strip()
    low = text.str.lower()
    present = (s.notna() & ~low.isin(["", "na", "nan"])).to_numpy()
    numeric = present & (low.isin(["true", "false"]).to_numpy() | text.str.match(_NUMBER_START).to_numpy(bool))
    words = present & ~numeric
    if not words.any() or numeric.sum() >= words.sum():  # numbers, or numbers with a typo: the caller's to refuse
        return None
    path = table.path
    marks = words & low.isin(MISSING_MARKS).to_numpy()
    if marks.any():  # '?', 'N/A' in a column of numbers (or alone): not categories of a text trait
        r = int(np.flatnonzero(marks)[0])
        raise MalformedFileError(path, table.line(r), f"{value_word} {name!r}: {text.iloc[r]!r} looks like a mark for "
                                                      "a missing value: leave the cell empty (an empty cell is a "
                                                      "missing value)")
    shown = first_few(sorted(set(text[words]), key=lambda x: (x.casefold(), x)), 3)
    if numeric.any():
        r = int(np.flatnonzero(numeric)[0])
        raise MalformedFileError(path, table.line(r), f"{value_word} {name!r} is a column of text categories ({shown}) "
                                                      f"but holds a number here, found {text.iloc[r]!r}: write every "
                                                      "value of a column as a category (text) or every value as a "
                                                      "number; leave missing values empty")
    if header_hint is not None and words[0] and int((text[words] == text.iloc[0]).sum()) == 1:
        raise MalformedFileError(path, table.line(0), header_hint)
    use = words & counted
    cats = sorted(set(text[use]), key=lambda x: (x.casefold(), x))
    if len(cats) > MAX_CATEGORIES:
        raise MalformedFileError(path, table.header_line,
                                 f"{value_word} {name!r} is text with {len(cats)} different values "
                                 f"({first_few(cats, 3)}): too many categories to one-hot encode (at most "
                                 f"{MAX_CATEGORIES}); names or free text? Group them into fewer categories, or delete "
                                 "the column")
    if len(cats) == int(use.sum()) >= DISTINCT_REFUSED_FROM:
        raise MalformedFileError(path, table.header_line,
                                 f"{value_word} {name!r} is text with a different value on each of its "
                                 f"{len(cats)} rows ({first_few(cats, 3)}): names or free text, not categories "
                                 "(one-hot encoded, each would mark one row); delete the column, or give categories "
                                 "that rows share")
    block = np.stack([(text == cat).to_numpy(float) for cat in cats], axis=1) if cats else np.empty((len(s), 0))
    block[~words] = np.nan
    return block, cats


def _note_one_hot(path: Path, value_word: str, encoded: list[tuple[str, list[str]]]) -> None:
    """One note naming the text columns one-hot encoded and their categories, and categories that differ only in
    case (``Plant`` and ``plant``: a typo, read as two categories)."""
    said = "; ".join(f"{name} ({', '.join(cats)})" for name, cats in encoded)
    twins = []
    for name, cats in encoded:
        by_case: dict[str, list[str]] = {}
        for cat in cats:
            by_case.setdefault(cat.casefold(), []).append(cat)
        twins += [f"{' and '.join(map(repr, alike))} in {name}" for alike in by_case.values() if len(alike) > 1]
    case = (f"; {first_few(twins, 3, '; ')}: categories that differ only in case, read as different categories (a "
            "typo? write them alike)") if twins else ""
    s = "s" if len(encoded) > 1 else ""
    note(f"{path}: text {value_word} column{s} one-hot encoded, one 0/1 column <column>=<category> per category "
         f"(categories as written; an empty or NA cell is missing, not a category): {said}{case}")


def _node_table_separator(path: Path) -> str:
    """The field separator of a node table (:func:`sniff_separator` on its first 100 data lines); ``;`` for a
    spreadsheet's semicolon CSV (``species;log_mass`` above ``grass;-3,5``: :func:`gatbio.data.io.semicolon_table`,
    as edge lists read it); with neither a tab nor a comma, a ``.csv`` name or a single field on the first line
    means one column per line (names may hold spaces), else whitespace."""
    from gatbio.data.io import semicolon_table  # (io imports this module)

    head = data_head(path)
    if semicolon_table(head):
        return ";"
    sep = sniff_separator(head)
    if sep is not None:
        return sep
    suffixes = [x.lower() for x in path.suffixes if x.lower() not in (".gz", ".bz2", ".xz")]
    if (suffixes and suffixes[-1] == ".csv") or (head and len(head[0].split()) == 1):
        return "\t"  # one column: no tab in any line, so every line is one field
    return r"\s+"
