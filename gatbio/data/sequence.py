r"""Protein sequences: a reader (FASTA or ``id<TAB>sequence``) and fixed-length sequence features.

Every feature maps a sequence :math:`s = s_1 \dots s_L` over the 20 standard amino acids to a fixed-length vector,
computed for many sequences at once with NumPy (all sequences concatenated, per-sequence sums by ``bincount``):
SHS27k's 1,690 sequences (mean length 571) take well under a second per feature.

``vec5_mean`` / ``vec5_max`` / ``vec5_std`` (13 each)
    The amino-acid embedding of PIPR (Chen et al. 2019) that GNN-PPI (Lv et al. 2021) reuses, ``vec5_CTC.txt``:
    each residue :math:`s_t` is replaced by its 13-dimensional row :math:`v(s_t)` (5 learnt co-occurrence
    dimensions, then an 8-column one-hot group code; see ``datasets/shs27k.md``), and the rows are pooled over the
    sequence: :math:`\frac1L \sum_t v(s_t)`, :math:`\max_t v(s_t)` (per dimension) and the standard deviation
    :math:`\sqrt{\frac1L \sum_t v(s_t)^2 - (\frac1L\sum_t v(s_t))^2}`. PIPR and GNN-PPI feed the whole
    :math:`(L, 13)` matrix to a convolutional / recurrent encoder (truncated or zero-padded to 2,000 residues);
    pooling keeps its composition part in a form any model takes. ``max_len`` truncates as they do.
``aac`` (20)
    Amino-acid composition: :math:`f_a = n_a / L` for each standard amino acid :math:`a` (order
    :data:`AMINO_ACIDS`).
``dpc`` (400)
    Dipeptide composition: :math:`f_{ab} = n_{ab} / (L - 1)`, over the :math:`L - 1` overlapping residue pairs
    (Bhasin & Raghava 2004); feature ``20 i + j`` is the dipeptide ``AMINO_ACIDS[i] AMINO_ACIDS[j]``.
``ct`` (343)
    Conjoint triad (Shen et al. 2007): the amino acids are put in 7 classes by dipole and side-chain volume,
    :data:`CT_CLASSES` = {A,G,V}, {I,L,F,P}, {Y,M,T,S}, {H,N,Q,W}, {R,K}, {D,E}, {C}; each of the :math:`L-2`
    overlapping triads of classes :math:`(c_1, c_2, c_3)` counts towards feature :math:`49 c_1 + 7 c_2 + c_3`.
    ``ct_normalize="frequency"`` (default) divides the counts by :math:`L-2`; ``"shen"`` applies Shen et al.'s
    :math:`d_i = (f_i - \min f) / \max f`.
``log_length`` (1)
    :math:`\log L` (after ``max_len``), the natural log of the sequence length.

Besides these fixed-length features, :func:`sequence_knn_graph` links each protein to the proteins with the most
similar sequences (cosine similarity of TF-IDF character k-mer counts): a graph built from the sequences alone,
without any interaction or label, so it can be used on every protein without leakage.

For a learnt encoder (:class:`gatbio.nn.sequence_encoder.ResidueCNN`), :func:`residue_matrix` keeps the residues
in order instead: one embedding row per residue, zero padded, with a mask channel.

Residues outside the 20 standard amino acids (``X``, ``U``, ``B``, ...) are skipped by ``aac`` / ``dpc`` / ``ct``
(a dipeptide or triad containing one is not counted; the denominators count the residues and windows that
remain) and take their own row of the embedding in ``vec5_*`` (the file has a row for every letter A–Z).

References:
    Chen, M. et al. Multifaceted protein–protein interaction prediction based on Siamese residual RCNN.
    Bioinformatics 35(14):i305–i314 (2019) (PIPR; ``vec5_CTC.txt``).
    Lv, G., Hu, Z., Bi, Y. & Zhang, S. Learning unknown from correlations: graph neural network for
    inter-novel-protein interaction prediction. IJCAI (2021) (GNN-PPI).
    Shen, J. et al. Predicting protein–protein interactions based only on sequences information.
    PNAS 104(11):4337–4341 (2007) (conjoint triad).
    Bhasin, M. & Raghava, G. P. S. Classification of nuclear receptors based on amino acid composition and
    dipeptide composition. J. Biol. Chem. 279(22):23262–23266 (2004).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from gatbio.data.tables import (
    MalformedFileError,
    _unquote,
    check_control_characters,
    check_file,
    check_quotes,
    read_text,
    sniff_separator,
    split_fields,
)

__all__ = ["AMINO_ACIDS", "CT_CLASSES", "FEATURES", "read_sequences", "read_aa_embedding", "amino_acid_composition",
           "dipeptide_composition", "conjoint_triad", "pooled_embedding", "sequence_features", "feature_size",
           "kmer_similarity", "alignment_similarity", "sequence_knn_graph", "residue_matrix",
           "read_protein_features", "ProteinId", "uniprot_id", "header_id", "match_ids",
           "id_aliases"]

#: The 20 standard amino acids, in the order of the composition features.
AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"
#: The 7 conjoint-triad classes of Shen et al. (2007), in feature order.
CT_CLASSES = ("AGV", "ILFP", "YMTS", "HNQW", "RK", "DE", "C")
#: Feature kinds of :func:`sequence_features`.
FEATURES = ("vec5_mean", "vec5_max", "vec5_std", "aac", "dpc", "ct", "log_length")

_LETTER = re.compile(r"^[A-Za-z]+\*?$")  # a protein sequence, optionally ending with a stop '*'
_LINE = re.compile(r"^[A-Za-z]*\*?$")  # a FASTA line of one: wrapping may leave the final '*' on a line of its own
_NUCLEOTIDES = re.compile(r"^[ACGTUN]+$")
_SEQUENCE_HEADERS = {"sequence", "seq", "sequences", "aa_sequence", "protein_sequence", "aaseq"}
#: First-row ids that are column names (a header row whose sequence column is called otherwise, 'gene<TAB>protein'):
#: read as a protein, the header became a protein named 'gene' with the sequence 'PROTEIN'. Matched exactly (any case),
#: not by :func:`gatbio.data.tables.is_header_word`: a match here is an error with no second look (the tables' header
#: rule 2 keeps a row whose name is a name elsewhere), and that test takes ids such as ``protein1``, ``GeneA``,
#: ``source`` or ``node7`` for headers, while it misses ``entry`` and ``identifier``.
_HEADER_IDS = {"id", "ids", "gene", "genes", "gene_id", "gene_name", "protein", "proteins", "protein_id", "name",
               "names", "entry", "accession", "uniprot", "uniprot_id", "identifier", "symbol", "string_id",
               "preferred_name", "protein_name", "locus", "orf"}
#: A UniProtKB FASTA header's first word: ``db|accession|entry name``, db ``sp`` (Swiss-Prot) or ``tr`` (TrEMBL), the
#: accession in UniProt's format (an isoform's ``-2`` kept: it is another sequence).
_UNIPROT = re.compile(r"^(?:sp|tr)\|((?:[OPQ][0-9][A-Z0-9]{3}[0-9]|[A-NR-Z][0-9](?:[A-Z][A-Z0-9]{2}[0-9]){1,2})"
                      r"(?:-\d+)?)\|(\S*)$")
#: A UniRef FASTA header's first word, ``UniRef90_P69905``: the cluster's representative, its accession (a UniProt
#: accession, or a UniParc ``UPI...`` id) after ``UniRef<NN>_``.
_UNIREF = re.compile(r"^UniRef\d+_(\S+)$")
#: An NCBI RefSeq FASTA header's first word, ``ref|NP_000549.1|`` or ``gi|4504347|ref|NP_000549.1|``: the
#: accession.version (``NP_000549.1``), anything after it kept as another name.
_NCBI_REF = re.compile(r"^(?:gi\|\d+\|)?ref\|([A-Z]{2}_[A-Za-z0-9]+(?:\.\d+)?)(?:\|(\S*))?$")
_ISOFORM = re.compile(r"-\d+(?:\||$)")  # 'P69905-2', 'sp|P69905-2|HBA_HUMAN'


class ProteinId(str):
    """A protein id read from a UniProt FASTA header: the accession (``"P69905"``), which it equals as a string,
    with the header's other names in ``aliases`` (the entry name ``"HBA_HUMAN"`` and the whole
    ``"sp|P69905|HBA_HUMAN"``), which :func:`match_ids` matches too. UniRef and NCBI RefSeq headers give one as
    well (:func:`header_id`), with the whole first word as their other name. As a dictionary key it carries them through
    ``{**a, **b}``, ``dict(...)``, a filtered dict and a pickle (a worker process): :func:`read_sequences` returns a
    plain ``{id: sequence}`` that its callers merge (with new proteins), filter and pass on to :func:`match_ids` /
    :func:`id_aliases`, which find entry names from the keys alone; plain ``str`` ids with a separate
    ``{alias: id}`` map would have to travel beside the dict through each of those steps."""

    aliases: tuple[str, ...]

    def __new__(cls, value: str, aliases: Sequence[str] = ()) -> ProteinId:
        obj = super().__new__(cls, value)
        obj.aliases = tuple(a for a in aliases if a and a != value)
        return obj

    def __reduce__(self):  # pickled (worker processes, deepcopy) with its aliases
        return (ProteinId, (str(self), self.aliases))


def uniprot_id(header_word: str) -> ProteinId | None:
    """The accession of a UniProt FASTA header's first word (``sp|P69905|HBA_HUMAN`` -> ``P69905``, aliases
    ``HBA_HUMAN`` and the whole word), or ``None`` for another header."""
    m = _UNIPROT.match(header_word)
    return ProteinId(m.group(1), (m.group(2), header_word)) if m else None


def header_id(header_word: str) -> str:
    """The protein id of a FASTA header's first word: a UniProtKB accession (:func:`uniprot_id`), a UniRef
    cluster's representative (``UniRef90_P69905`` -> ``P69905``), an NCBI RefSeq accession.version
    (``ref|NP_000549.1|`` and ``gi|4504347|ref|NP_000549.1|`` -> ``NP_000549.1``), each a :class:`ProteinId`
    carrying the whole word; any other word as it is."""
    if (uid := uniprot_id(header_word)) is not None:
        return uid
    if (m := _UNIREF.match(header_word)) is not None:
        return ProteinId(m.group(1), (header_word,))
    if (m := _NCBI_REF.match(header_word)) is not None:
        return ProteinId(m.group(1), (m.group(2) or "", header_word))
    return header_word


def _header_kind(key: ProteinId) -> str:
    """Which header a FASTA record's :class:`ProteinId` was read from: ``"UniRef"``, ``"NCBI RefSeq"`` or
    ``"UniProt"`` (its last alias is the whole first word)."""
    word = key.aliases[-1] if key.aliases else ""
    return "UniRef" if _UNIREF.match(word) else "NCBI RefSeq" if _NCBI_REF.match(word) else "UniProt"


def id_aliases(sequences: Mapping[str, str]) -> dict[str, str]:
    """``{other name: key}`` of the records of ``sequences``: a UniProt record's (:class:`ProteinId`) entry name
    and whole header word, and the ``|`` fields of an id kept whole (``sp|P69905|HBA_HUMAN`` read elsewhere). A name
    that several records share (the entry name of a protein and of its isoforms, ``P69905`` and ``P69905-2``) names
    the record without an isoform suffix, else none; a name that is a key itself is left out."""
    other: dict[str, list[str]] = {}
    for key in sequences:
        names_of = getattr(key, "aliases", None)
        if names_of is None:
            names_of = key.split("|")[1:] if "|" in key else ()
        for alias in names_of:
            if alias not in sequences:
                other.setdefault(alias, []).append(key)
    out = {}
    for alias, keys in other.items():
        keys = keys if len(keys) == 1 else [k for k in keys if not _ISOFORM.search(k)]
        if len(keys) == 1:
            out[alias] = keys[0]
    return out


def match_ids(sequences: Mapping[str, str], names: Sequence[str]) -> dict[str, str]:
    """``{name: key of sequences}`` for each of ``names`` that has a sequence record: its own id first, else another
    name of the record (:func:`id_aliases`: a UniProt entry name ``HBA_HUMAN``, the whole header word). Names
    without a record are left out."""
    other = id_aliases(sequences)
    return {n: n if n in sequences else other[n] for n in map(str, names) if n in sequences or n in other}


def _table_fields(path: Path, no: int, line: str) -> list[str]:
    """The fields of a sequence table's (stripped) line ``no``, split as every table is
    (:func:`~gatbio.data.tables.sniff_separator`, :func:`~gatbio.data.tables.split_fields`: a tab, else a comma with
    CSV quoting, else whitespace), with two differences kept: the separator is chosen **per line**, not per file (a
    header ``id sequence`` above tab-separated rows, or a mix, has always been read), and a field quoted whole is
    unquoted after any separator (``P1, "MKV"``: csv keeps a quote after a space). A comma line whose quotes do not
    close on it is refused (:func:`~gatbio.data.tables.check_quotes`)."""
    sep = sniff_separator([line])
    check_quotes(path, no, line, sep)
    return [_unquote(f).strip() for f in split_fields(line, sep)]


def _names_sequences(field: str) -> bool:
    """Whether a first-row field is a header naming the sequence column: ``sequence``, ``seq``, ... or any word with
    ``seq`` in it that cannot be a sequence itself (``aa_seq``, ``Sequence (AA)``)."""
    low = field.lower()
    return low in _SEQUENCE_HEADERS or ("seq" in low and not _LETTER.match(field))


def _bad_character(seq: str) -> str:
    """Why ``seq`` (which fails ``_LETTER``) is not a protein sequence, for an error message."""
    core = seq.rstrip("*")
    if not core:
        return "an empty sequence (only a stop '*')"
    stop = core.find("*")
    if stop >= 0:
        return f"a stop '*' inside the sequence (at residue {stop + 1}; only a final '*' is allowed)"
    bad = next((c for c in core if not ("A" <= c <= "Z" or "a" <= c <= "z")), None)
    if bad is not None:
        return f"invalid character {bad!r} at residue {core.index(bad) + 1} (expected one-letter amino-acid codes A-Z)"
    return f"{len(seq) - len(core)} stops '*' at the end (one final '*' is allowed)"

_AA_CODE = np.full(256, -1, dtype=np.int64)
_AA_CODE[np.frombuffer(AMINO_ACIDS.encode(), dtype=np.uint8)] = np.arange(20)
_CT_CODE = np.full(256, -1, dtype=np.int64)
for _k, _group in enumerate(CT_CLASSES):
    _CT_CODE[np.frombuffer(_group.encode(), dtype=np.uint8)] = _k


# ----------------------------------------------------------------------------------------------- reading
_FASTA_ID = re.compile(rb"^(\s*>\s*\S*)(.*)$", re.S)  # a '>' line: the id, then its description
_FASTA_WORD = re.compile(r"[ \t]*[^ \t]*")  # after a header's '>': its first word, up to a space or a tab


def _sequence_text(path: Path) -> str:
    """:func:`read_text`, except that a FASTA header's description (after the id; never used) may hold bytes that are
    not UTF-8: they are read as U+FFFD, said in a note. Such a byte in an id or a sequence line (or in a table) is
    refused with read_text's error, at that line."""
    try:
        return read_text(path)
    except MalformedFileError as err:
        if "not utf-8 text" not in err.message:
            raise
        refused = err
    data = read_text(path, "latin-1").encode("latin-1")  # the same decompressed bytes, line ends made '\n'
    lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
    first = next((ln for ln in lines if ln.strip() and not ln.lstrip().startswith((b"#", b";"))), b"")
    if not first.lstrip().startswith(b">"):  # a table: ids and sequences only
        raise refused
    out, lenient = [], []
    for no, raw in enumerate(lines, start=1):
        m = _FASTA_ID.match(raw) if raw.lstrip().startswith(b">") else None
        kept, desc = (m.group(1), m.group(2)) if m else (raw, b"")
        try:
            text = kept.decode("utf-8")
        except UnicodeDecodeError as bad:
            if refused.line == no:
                raise refused from None
            what = "header's protein id" if m else "sequence line"
            raise MalformedFileError(path, no, f"not utf-8 text in this {what} (byte {kept[bad.start:bad.start + 1]!r}); "
                                               "save the file as UTF-8 (iconv -f WINDOWS-1252 -t UTF-8 FILE > NEW): only "
                                               "a header's description may hold other bytes") from None
        try:
            text += desc.decode("utf-8")
        except UnicodeDecodeError:
            text += desc.decode("utf-8", errors="replace")
            lenient.append(no)
        out.append(text)
    from gatbio.data.tables import first_few, note

    if lenient:
        note(f"{path}: the description of {len(lenient)} FASTA header(s) (line {first_few(lenient, 3)}) is not UTF-8 "
             "text: read with '\ufffd' for those bytes (descriptions are not used; ids and sequences are UTF-8)")
    return "\n".join(out)


def read_sequences(path: str | Path) -> dict[str, str]:
    """Protein sequences from a FASTA file or an ``id<TAB>sequence`` table (detected: FASTA starts with ``>``);
    any compression (``.gz``, ...), Windows line ends.

    FASTA: the id is the first word after ``>``, except for UniProtKB headers (``>sp|P69905|HBA_HUMAN ...``,
    ``>tr|A0A024R161|A0A024R161_HUMAN ...``), whose id is the **accession** (``P69905``; an isoform's
    ``P69905-2`` kept whole), said in a note: networks name proteins by accession, not by the whole
    ``sp|...|...`` word. The id is a :class:`ProteinId` that also carries the entry name (``HBA_HUMAN``) and the
    whole word, so that a network naming its proteins so finds them too (:func:`match_ids`,
    :func:`gatbio.data.ppi.attach_sequences`). UniRef headers (``>UniRef90_P69905 ...``) give the accession after
    ``UniRef<NN>_`` and NCBI RefSeq ones (``>ref|NP_000549.1| ...``, ``>gi|4504347|ref|NP_000549.1| ...``) the
    accession.version, each with the whole word as its other name, said in a note the same way (:func:`header_id`).
    Sequence lines are joined; blank lines and ``;`` comment lines are skipped. A header's description (the words
    after the id) is never used: bytes in it that are not UTF-8 (a Latin-1 organism name) are read as ``\ufffd``,
    said in a note; such a byte in an id or a sequence is an error.

    Table: one protein per line, the id, a tab (or a comma: a spreadsheet's CSV, quoted fields read as CSV; or other
    whitespace; chosen per line), the sequence (``#`` comments and blank lines skipped). A first row with a field ``sequence``, ``seq`` (or another word with
    ``seq`` in it that is no sequence, ``aa_seq``) is a header, said in a note; it may name the sequence column among
    more (UniProt's TSV download ``Entry<TAB>Entry Name<TAB>Sequence``: ids from the first column, an ``Entry Name``
    column matched as FASTA entry names are, the other columns not read). Without such a header, more than two
    columns are an error.

    Sequences are upper-cased; a final ``*`` (stop) is dropped.

    Returns:
        ``{id: sequence}`` in file order.

    Raises:
        MalformedFileError: an empty sequence, a character that is not an ASCII letter, a stop ``*`` inside a
            sequence, a duplicate id (naming the first line, and whether the sequences differ), a table line without a
            sequence, a control character (a NUL byte) in a FASTA id or a table line, a CSV quote that does not close
            on its line or a sequence of 50 or more residues that are all nucleotide letters (``file:line``); a file
            of nucleotide sequences only.
    """
    path = check_file(path)
    text = _sequence_text(path)
    lines = text.split("\n")
    # the first line that is not blank nor a comment: '#' (tables), ';' (old FASTA comments, before a header too)
    first = next((ln for ln in lines if ln.strip() and not ln.lstrip().startswith(("#", ";"))), "")
    out: dict[str, str] = {}
    where: dict[str, int] = {}

    def add(name: str, seq: str, line: int) -> None:
        if not seq:
            raise MalformedFileError(path, line, f"protein {name!r} has an empty sequence")
        if not _LETTER.match(seq):
            raise MalformedFileError(path, line, f"protein {name!r}: {_bad_character(seq)}")
        seq = seq.upper().rstrip("*")
        if name in out:
            how = ("the same sequence: remove the repeat" if seq == out[name] else
                   f"another sequence ({len(seq)} residues, {len(out[name])} there): give each its own id, or keep one")
            raise MalformedFileError(path, line, f"duplicate protein id {name!r} (first on line {where[name]}), "
                                                 f"with {how}")
        out[name], where[name] = seq, line
        if len(out[name]) >= 50 and _NUCLEOTIDES.match(out[name]):  # no protein is; one DNA record among proteins
            raise MalformedFileError(path, line, f"protein {name!r}: its {len(out[name])} residues are only A, C, G, "
                                                 "T/U and N: a nucleotide sequence; give its protein (amino-acid) "
                                                 "sequence")

    if first.lstrip().startswith(">"):
        name, start, parts = None, 0, []
        for no, raw in enumerate(lines, start=1):
            line = raw.strip()
            if line.startswith(">"):
                if name is not None:
                    add(name, "".join(parts), start)
                # the id (up to a space or tab): a control character is refused, not kept in it ('P1\x00') nor a
                # split point ('P1\x1cx': str.split takes \x1c-\x1f for whitespace); the description is not read
                check_control_characters(path, _FASTA_WORD.match(line, 1).group(), first_line=no)
                header = line[1:].split()
                if not header:
                    raise MalformedFileError(path, no, "FASTA header '>' without a protein id")
                name, start, parts = header_id(header[0]), no, []
            elif line and not line.startswith(";"):
                if name is None:
                    raise MalformedFileError(path, no, "sequence line before the first '>' header")
                if not _LINE.match(line):  # the joined sequence is checked again (a '*' inside, '*' only)
                    check_control_characters(path, line, first_line=no)  # a NUL byte: said as one, with its cause
                    raise MalformedFileError(path, no, f"protein {name!r}: {_bad_character(line)}")
                parts.append(line)
        if name is not None:
            add(name, "".join(parts), start)
    else:
        seq_col, ncol, alias_col = 1, 2, None  # a header row may name the sequence column among several
        header_seen = False
        for no, raw in enumerate(lines, start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            check_control_characters(path, line, first_line=no)  # in an id, as in every table's names
            fields = _table_fields(path, no, line)
            if not out and not header_seen:
                col = next((k for k, f in enumerate(fields) if k and _names_sequences(f)), None)
                if col is not None:  # a header row such as 'id<TAB>sequence' or 'Entry<TAB>Entry Name<TAB>Sequence'
                    header_seen, seq_col, ncol = True, col, len(fields)
                    alias_col = next((k for k, f in enumerate(fields) if k and k != col
                                      and _names_entry_names(f)), None)
                    rest = [f for k, f in enumerate(fields) if k not in (0, col, alias_col)]
                    from gatbio.data.tables import note

                    note(f"{path}: line {no} {line[:60]!r} read as a header, not as a protein (its field "
                         f"{fields[col]!r} names the sequences)"
                         + (f"; ids from {fields[0]!r}" if ncol > 2 else "")
                         + (f", UniProt entry names from {fields[alias_col]!r} matched too" if alias_col else "")
                         + (f"; column(s) {', '.join(map(repr, rest))} not read" if rest else ""))
                    continue
            if len(fields) <= seq_col or not fields[seq_col]:
                raise MalformedFileError(path, no, f"protein {fields[0]!r} has an empty sequence (expected "
                                                   "'id<TAB>sequence', or a FASTA file starting with '>')")
            if len(fields) > ncol:
                raise MalformedFileError(path, no, f"expected {ncol} columns "
                                                   + ("as the header row names" if header_seen else
                                                      "(id sequence), or a header row naming the sequence column "
                                                      "among more (e.g. 'id<TAB>name<TAB>sequence')")
                                                   + f", found {len(fields)}")
            name = fields[0]
            if not out and not header_seen and name.casefold() in _HEADER_IDS:  # 'gene<TAB>protein': not a protein
                raise MalformedFileError(path, no, f"{line[:60]!r} looks like a header row ({name!r} names a column, "
                                                   "not a protein), but no field of it names the sequence column: "
                                                   "call that column 'sequence' (or delete the line)")
            if alias_col is not None and len(fields) > alias_col and fields[alias_col]:
                name = ProteinId(name, (fields[alias_col],))
            add(name, fields[seq_col], no)
    if not out:
        raise MalformedFileError(path, None, "no sequences found (expected FASTA or 'id<TAB>sequence' lines)")
    if all(_NUCLEOTIDES.match(seq) for seq in out.values()) and sum(map(len, out.values())) >= 50:
        raise MalformedFileError(path, None, "every sequence holds only A, C, G, T/U and N: these look like "
                                             "nucleotide sequences; give protein (amino-acid) sequences")
    from gatbio.data.tables import note

    parsed = [k for k in out if isinstance(k, ProteinId)] if first.lstrip().startswith(">") else []
    uniprot = [k for k in parsed if _header_kind(k) == "UniProt"]
    if uniprot:  # (a table's Entry Name column is said with its header)
        k = uniprot[0]
        entry = f"; their entry names ({k.aliases[0]!r}) match a network's protein names too" \
            if len(k.aliases) > 1 else ""
        note(f"{path}: UniProt FASTA headers ({k.aliases[-1]!r}): {len(uniprot)} protein(s) named by their "
             f"accession ({str(k)!r}){entry}")
    for kind, named in (("UniRef", "cluster representative's accession"), ("NCBI RefSeq", "accession.version")):
        these = [k for k in parsed if _header_kind(k) == kind]
        if these:
            k = these[0]
            note(f"{path}: {kind} FASTA headers ({k.aliases[-1]!r}): {len(these)} protein(s) named by their {named} "
                 f"({str(k)!r}); the whole word matches a network's protein names too")
    return out


def read_protein_features(path: str | Path, names: Sequence[str],
                          aliases: Mapping[str, str] | None = None) -> tuple[np.ndarray, list[str]]:
    """Per-protein feature vectors of one's own, e.g. protein language-model embeddings (ESM, ProtT5) computed
    elsewhere: one row per protein, its id (as in the network) then numbers; CSV, TSV or whitespace separated, any
    compression, an optional header row (:func:`gatbio.data.tables.read_node_table`).

    A row is found by its id first, else, as :func:`match_ids` finds sequences, by another name of it: its entry
    name, when a header row names an ``entry_name`` column (or ``Entry Name``, as UniProt's TSV; that column is
    not a feature), so that a file keyed by accession (``P69905``, as ``gatbio protein embed`` names a UniProt
    FASTA's proteins) serves a network naming them ``HBA_HUMAN``; the ``|`` fields of an id kept whole
    (``sp|P69905|HBA_HUMAN``); or ``aliases``, ``{other name: id in the file}`` (e.g.
    ``id_aliases(read_sequences(fasta))``) for a file without such a column. Matches by another name are said in a
    note.

    Returns ``(x (N, F), column names)`` aligned with ``names``. Rows of proteins outside the network are skipped
    (a proteome-wide file serves a smaller network); every protein of the network needs a row and every value must
    be a number (an embedding has no "missing"): otherwise :class:`MalformedFileError` names the file, the line or
    the protein.
    """
    from gatbio.data.tables import note, read_node_table

    names = [str(n) for n in names]
    path = check_file(path)
    entry_col = _entry_name_column(path)
    line_of: dict[str, int] = {}  # the file line of each row (where its holes were not checked yet)
    if entry_col is None:
        x, cols, added, lines = read_node_table(path, names, what="protein", unknown="add", value_word="feature",
                                                missing="error", row_lines=True)  # a hole of the network's rows
        line_of = {k: int(ln) for k, ln in zip(names + added, lines, strict=True) if ln}  # is named with its line
        rows = {k: x[i] for i, k in enumerate(names + added) if k in line_of}
        keys: list[str] = list(rows)
    else:
        rows, cols, keys = _read_entry_name_table(path, entry_col)
    if not cols:
        raise MalformedFileError(path, None, "no feature columns: expected 'id<TAB>number<TAB>number ...' per protein")
    other = id_aliases(dict.fromkeys(keys, ""))  # entry names, '|' fields
    found = {n: n if n in rows else other.get(n, (aliases or {}).get(n)) for n in names}
    found = {n: k for n, k in found.items() if k in rows}
    absent = [n for n in names if n not in found]
    if absent:
        raise MalformedFileError(path, None, f"{len(absent)} of the network's {len(names)} proteins have no row, "
                                             f"e.g. {absent[:3]} (ids must match the interaction file's"
                                             + (", or its entry_name column's)" if entry_col is not None else
                                                "; a file keyed by accession matches entry names with an "
                                                "'entry_name' column)"))
    by_alias = [n for n, k in found.items() if n != k]
    holes = sorted({found[n] for n in by_alias if np.isnan(rows[found[n]]).any()},
                   key=lambda k: line_of.get(k, 0))
    if holes:  # rows found by another name were read as outside the network: their holes are checked here
        k = holes[0]
        n = next(n for n in by_alias if found[n] == k)
        col = cols[int(np.flatnonzero(np.isnan(rows[k]))[0])]
        missing = sum(int(np.isnan(rows[h]).sum()) for h in holes)
        raise MalformedFileError(path, line_of.get(k), f"protein {k!r} has no feature {col!r} (an empty, NA or nan "
                                                       f"field, or a short row; {missing} missing in all), and it is "
                                                       f"the row of the network's {n!r}")
    if by_alias:
        n = by_alias[0]
        note(f"{path}: {len(by_alias)} of the network's proteins found by another name of their row (e.g. {n!r} -> "
             f"{found[n]!r})")
    skipped = len(set(keys) - set(found.values()))
    if skipped:
        note(f"{path}: {skipped} row(s) of proteins outside the network skipped (ids must match the interaction "
             "file's to be read)")
    return np.stack([rows[found[n]] for n in names]).astype(np.float32).reshape(len(names), len(cols)), cols


#: Header names of a column of UniProt entry names (lower case, ``_`` as a space): UniProt's TSV ``Entry Name``.
_ENTRY_NAME_HEADERS = {"entry name", "entry names"}


def _names_entry_names(field: str) -> bool:
    """Whether a header field names a column of UniProt entry names (sequence tables and features files alike)."""
    return field.strip().lower().replace("_", " ") in _ENTRY_NAME_HEADERS


def _entry_name_column(path: Path) -> int | None:
    """The position of a features file's ``entry_name`` column (after the first), named in its header row."""
    from gatbio.data.tables import _node_table_separator, data_head, split_fields

    head = data_head(path, lines=1)
    if not head:
        return None
    fields = split_fields(head[0], _node_table_separator(path))
    return next((k for k, f in enumerate(fields) if k and _names_entry_names(f)),
                None)


def _read_entry_name_table(path: Path, entry_col: int) -> tuple[dict[str, np.ndarray], list[str], list[str]]:
    """``({id: values}, feature column names, ids)`` of a features file whose header names an ``entry_name`` column:
    the ids are :class:`ProteinId` s carrying their entry name. A value that is not a finite number is an error
    naming its line (a hole too: this file is a tool's output, every row complete)."""
    import pandas as pd

    from gatbio.data.tables import _node_table_separator, decimal_comma_hint, read_table

    table = read_table(path, sep=_node_table_separator(path), header=True, name_columns=(0,))
    df = table.df
    cols = [c for k, c in enumerate(df.columns) if k not in (0, entry_col)]
    values = np.empty((len(df), len(cols)))
    for k, c in enumerate(cols):
        v = pd.to_numeric(df[c], errors="coerce").to_numpy(float)
        bad = ~np.isfinite(v)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise MalformedFileError(path, table.line(r), f"feature {str(c)!r} of protein {df.iloc[r, 0]!r} must be "
                                                          f"a finite number, found {df[c].iloc[r]!r}"
                                                          f"{decimal_comma_hint(str(df[c].iloc[r]).strip())}")
        values[:, k] = v
    rows: dict[str, np.ndarray] = {}
    for r, (pid, entry) in enumerate(zip(df.iloc[:, 0].astype(str), df.iloc[:, entry_col].fillna("").astype(str),
                                         strict=True)):
        if pid in rows:
            raise MalformedFileError(path, table.line(r), f"protein {pid!r} has more than one row")
        rows[ProteinId(pid, (entry.strip(),))] = values[r]
    return rows, [str(c) for c in cols], list(rows)


def read_aa_embedding(path: str | Path) -> dict[str, np.ndarray]:
    """An amino-acid embedding file such as ``vec5_CTC.txt``: ``LETTER<TAB>d space-separated numbers`` per line.

    Returns ``{letter: (d,) float array}``; every row must have the same ``d``.
    """
    path = check_file(path)
    table: dict[str, np.ndarray] = {}
    for no, raw in enumerate(read_text(path).split("\n"), start=1):
        if not raw.strip():
            continue
        parts = raw.split("\t") if "\t" in raw else raw.split(None, 1)
        if len(parts) != 2 or len(parts[0].strip()) != 1 or not parts[0].strip().isalpha():
            raise MalformedFileError(path, no, "expected 'LETTER<TAB>numbers' (one amino-acid letter, then its vector)")
        try:
            vec = np.array([float(x) for x in parts[1].split()])
        except ValueError:
            raise MalformedFileError(path, no, f"the vector of {parts[0]!r} holds a non-number") from None
        if table and len(vec) != len(next(iter(table.values()))):
            raise MalformedFileError(path, no, f"{len(vec)} numbers, the rows before have "
                                               f"{len(next(iter(table.values())))}")
        table[parts[0].strip().upper()] = vec
    if not table:
        raise MalformedFileError(path, None, "no embedding rows")
    return table


# ----------------------------------------------------------------------------------------------- features
def _check_seqs(seqs, where: str) -> None:
    """Refuse what iterates as something other than sequences: a ``{id: sequence}`` mapping (:func:`read_sequences`'
    output, whose iteration gives the **ids**: their letters were featurised as residues, silently) or one string
    (its letters taken as one-letter sequences)."""
    if isinstance(seqs, Mapping):
        raise TypeError(f"{where}: seqs is a mapping (read_sequences' {{id: sequence}}?), whose items are its ids, "
                        "not sequences: give list(seqs.values()) (rows in the order of list(seqs))")
    if isinstance(seqs, str | bytes):
        raise TypeError(f"{where}: seqs is one string; give a list of sequences (for one sequence: [seq])")


def _concat(seqs: Sequence[str], max_len: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All sequences as one uint8 array, the sequence of each residue and each sequence's start."""
    _check_seqs(seqs, "sequence features")
    seqs = [s[:max_len] if max_len else s for s in seqs]
    lengths = np.array([len(s) for s in seqs], dtype=np.int64)
    buf = np.frombuffer("".join(seqs).upper().encode("ascii", errors="replace"), dtype=np.uint8)
    seg = np.repeat(np.arange(len(seqs)), lengths)  # (R,)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if len(seqs) else np.zeros(0, dtype=np.int64)
    return buf, seg, starts


def _windows(codes: np.ndarray, seg: np.ndarray, k: int, base: int) -> tuple[np.ndarray, np.ndarray]:
    """Index and sequence of every window of ``k`` consecutive residues with valid codes, inside one sequence."""
    if len(codes) < k:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    n = len(codes) - k + 1
    idx = np.zeros(n, dtype=np.int64)
    ok = seg[:n] == seg[k - 1:]  # the window does not cross into the next sequence
    for j in range(k):
        c = codes[j:j + n]
        ok &= c >= 0
        idx = idx * base + c
    return idx[ok], seg[:n][ok]


def _counts(idx: np.ndarray, seg: np.ndarray, n_seq: int, size: int) -> np.ndarray:
    return np.bincount(seg * size + idx, minlength=n_seq * size).reshape(n_seq, size).astype(np.float64)


def _normalise_rows(counts: np.ndarray) -> np.ndarray:
    total = counts.sum(1, keepdims=True)
    return np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)


def amino_acid_composition(seqs: Sequence[str], max_len: int | None = None) -> np.ndarray:
    """``(N, 20)``: the fraction of each standard amino acid (module docstring)."""
    buf, seg, _ = _concat(seqs, max_len)
    idx, s = _windows(_AA_CODE[buf], seg, 1, 20)
    return _normalise_rows(_counts(idx, s, len(seqs), 20))


def dipeptide_composition(seqs: Sequence[str], max_len: int | None = None) -> np.ndarray:
    """``(N, 400)``: the fraction of each of the 400 dipeptides among overlapping residue pairs."""
    buf, seg, _ = _concat(seqs, max_len)
    idx, s = _windows(_AA_CODE[buf], seg, 2, 20)
    return _normalise_rows(_counts(idx, s, len(seqs), 400))


def conjoint_triad(seqs: Sequence[str], normalize: str = "frequency", max_len: int | None = None) -> np.ndarray:
    """``(N, 343)``: conjoint-triad counts of Shen et al. (2007), as frequencies or Shen's (f - min) / max."""
    if normalize not in ("frequency", "shen", "count"):
        raise ValueError(f"normalize={normalize!r}: choose frequency, shen or count")
    buf, seg, _ = _concat(seqs, max_len)
    idx, s = _windows(_CT_CODE[buf], seg, 3, 7)
    counts = _counts(idx, s, len(seqs), 343)
    if normalize == "count":
        return counts
    if normalize == "frequency":
        return _normalise_rows(counts)
    hi = counts.max(1, keepdims=True)
    return np.divide(counts - counts.min(1, keepdims=True), hi, out=np.zeros_like(counts), where=hi > 0)


def _embedding_matrix(embedding: Mapping[str, np.ndarray]) -> np.ndarray:
    d = len(next(iter(embedding.values())))
    table = np.full((256, d), np.nan)
    for letter, vec in embedding.items():
        table[ord(letter.upper())] = vec
        table[ord(letter.lower())] = vec
    return table


def _resolve_embedding(embedding: Mapping[str, np.ndarray] | str | Path | None) -> Mapping[str, np.ndarray]:
    """A ``{letter: vector}`` embedding from a mapping, a file, or ``None`` (``vec5_CTC.txt`` of ``shs27k``)."""
    if embedding is None:
        from gatbio.data.sources import require_files

        embedding = require_files("shs27k", ["vec5_CTC.txt"]) / "vec5_CTC.txt"
    return embedding if isinstance(embedding, Mapping) else read_aa_embedding(embedding)


def _embedded_rows(seqs: Sequence[str], embedding: Mapping[str, np.ndarray],
                   max_len: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows (R, d), seg, starts)``: every residue's embedding row, its sequence and each sequence's start.

    Raises:
        ValueError: a residue letter without an embedding row (named, with its sequence index).
    """
    table = _embedding_matrix(embedding)
    buf, seg, starts = _concat(seqs, max_len)
    rows = table[buf]  # (R, d)
    missing = np.isnan(rows[:, 0])
    if missing.any():
        r = int(np.flatnonzero(missing)[0])
        raise ValueError(f"sequence {int(seg[r])} holds {chr(buf[r])!r}, which has no row in the amino-acid "
                         f"embedding (letters: {''.join(sorted(embedding))})")
    return rows, seg, starts


def pooled_embedding(seqs: Sequence[str], embedding: Mapping[str, np.ndarray], pool: str = "mean",
                     max_len: int | None = None) -> np.ndarray:
    """``(N, d)``: the per-residue embedding rows pooled over each sequence (``mean``, ``max`` or ``std``).

    Raises:
        ValueError: a sequence holds a letter without an embedding row (named, with its sequence index).
    """
    if pool not in ("mean", "max", "std"):
        raise ValueError(f"pool={pool!r}: choose mean, max or std")
    rows, seg, starts = _embedded_rows(seqs, embedding, max_len)
    n, d = len(seqs), rows.shape[1]
    lengths = np.bincount(seg, minlength=n).astype(np.float64)[:, None]  # (N, 1)
    if pool == "max":
        out = np.full((n, d), 0.0)
        nonempty = lengths[:, 0] > 0
        if len(rows):
            out[nonempty] = np.maximum.reduceat(rows, starts[nonempty], axis=0)
        return out
    sums = np.stack([np.bincount(seg, weights=rows[:, j], minlength=n) for j in range(d)], axis=1)  # (N, d)
    mean = np.divide(sums, lengths, out=np.zeros_like(sums), where=lengths > 0)
    if pool == "mean":
        return mean
    sq = np.stack([np.bincount(seg, weights=rows[:, j] ** 2, minlength=n) for j in range(d)], axis=1)
    var = np.divide(sq, lengths, out=np.zeros_like(sq), where=lengths > 0) - mean**2
    return np.sqrt(np.clip(var, 0.0, None))


def feature_size(kind: str, embedding_dim: int = 13) -> int:
    """The number of columns of one feature kind."""
    sizes = {"aac": 20, "dpc": 400, "ct": 343, "log_length": 1}
    if kind in sizes:
        return sizes[kind]
    if kind in ("vec5_mean", "vec5_max", "vec5_std"):
        return embedding_dim
    raise ValueError(f"unknown sequence feature {kind!r}; choose from {', '.join(FEATURES)}")


def sequence_features(seqs: Sequence[str], kinds: Sequence[str] = ("vec5_mean", "aac", "ct"),
                      embedding: Mapping[str, np.ndarray] | str | Path | None = None, max_len: int | None = None,
                      ct_normalize: str = "frequency") -> tuple[np.ndarray, list[str]]:
    """The features ``kinds`` of every sequence, concatenated in the given order.

    Args:
        seqs: ``N`` amino-acid sequences.
        kinds: names from :data:`FEATURES`.
        embedding: the amino-acid embedding for ``vec5_*`` (a ``{letter: vector}`` mapping or a file for
            :func:`read_aa_embedding`); default: ``vec5_CTC.txt`` of the ``shs27k`` dataset (data root).
        max_len: truncate each sequence to its first ``max_len`` residues (GNN-PPI: 2000); ``None``: whole.

    Returns:
        ``(x, names)``: float32 ``(N, F)`` and one name per column (``aac:A``, ``dpc:AC``, ``ct:012``,
        ``vec5_mean:3``).
    """
    _check_seqs(seqs, "sequence_features")
    bad = [k for k in kinds if k not in FEATURES]
    if bad or not kinds:
        raise ValueError(f"sequence features {list(kinds)}: choose one or more of {', '.join(FEATURES)}")
    if any(k.startswith("vec5") for k in kinds):
        embedding = _resolve_embedding(embedding)
    blocks, names = [], []
    for kind in kinds:
        if kind == "aac":
            blocks.append(amino_acid_composition(seqs, max_len))
            names += [f"aac:{a}" for a in AMINO_ACIDS]
        elif kind == "dpc":
            blocks.append(dipeptide_composition(seqs, max_len))
            names += [f"dpc:{a}{b}" for a in AMINO_ACIDS for b in AMINO_ACIDS]
        elif kind == "ct":
            blocks.append(conjoint_triad(seqs, ct_normalize, max_len))
            names += [f"ct:{i}{j}{k}" for i in range(7) for j in range(7) for k in range(7)]
        elif kind == "log_length":
            lengths = np.array([len(s[:max_len] if max_len else s) for s in seqs], dtype=np.float64)
            blocks.append(np.log(np.maximum(lengths, 1.0))[:, None])
            names.append("log_length")
        else:
            pool = kind.split("_", 1)[1]
            block = pooled_embedding(seqs, embedding, pool, max_len)
            blocks.append(block)
            names += [f"{kind}:{j}" for j in range(block.shape[1])]
    return np.concatenate(blocks, axis=1).astype(np.float32), names


def residue_matrix(seqs: Sequence[str], embedding: Mapping[str, np.ndarray] | str | Path | None = None,
                   max_len: int = 2000, standardize: bool = True) -> np.ndarray:
    r"""The per-residue input of a learnt sequence encoder: ``(N, L, d + 1)`` float32, ``L = min(max_len,
    longest sequence)``.

    Row ``t`` of sequence ``i`` holds the amino-acid embedding :math:`v(s_t)` of its residue (``vec5_CTC.txt``:
    ``d = 13``) in the first ``d`` channels and 1 in the last (the *mask* channel); positions past the sequence's
    end are zero in every channel (zero padding, as PIPR and GNN-PPI pad to 2,000 residues). With ``standardize``
    the ``d`` embedding channels are shifted and scaled to mean 0, variance 1 over all residues (label-free).
    Memory: ``4 N L (d + 1)`` bytes (SHS27k, L = 2000: 189 MB).

    Raises:
        ValueError: ``max_len`` < 1, or a residue without an embedding row (as :func:`pooled_embedding`).
    """
    if max_len < 1:
        raise ValueError(f"max_len={max_len}: give the number of residues to keep (GNN-PPI: 2000)")
    rows, seg, starts = _embedded_rows(seqs, _resolve_embedding(embedding), max_len)
    if standardize and len(rows) > 1:
        sd = rows.std(0)
        rows = (rows - rows.mean(0)) / np.where(sd > 0, sd, 1.0)
    n, d = len(seqs), rows.shape[1]
    pos = np.arange(len(rows)) - starts[seg]  # position of each residue in its sequence
    width = int(pos.max()) + 1 if len(pos) else 1
    out = np.zeros((n, width, d + 1), dtype=np.float32)
    out[seg, pos, :d] = rows
    out[seg, pos, d] = 1.0
    return out


# ----------------------------------------------------------------------------------------------- similarity graph
def kmer_similarity(seqs: Sequence[str], k: int = 3) -> np.ndarray:
    r"""``(N, N)`` cosine similarity of the sequences' TF-IDF character ``k``-mer counts (zero diagonal).

    Each sequence is a bag of its overlapping ``k``-mers (letters as written, case kept), weighted by sublinear term
    frequency :math:`1 + \log n` times inverse document frequency (scikit-learn's ``TfidfVectorizer(analyzer="char",
    ngram_range=(k, k), sublinear_tf=True)``) and L2-normalised; the similarity of two sequences is the dot product
    of their vectors. Label-free: it uses the sequences only.
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    if k < 1:
        raise ValueError(f"k={k}: k-mers need k >= 1")
    _check_seqs(seqs, "kmer_similarity")
    if len(seqs) < 2:
        raise ValueError(f"a similarity graph needs at least 2 sequences, got {len(seqs)}")
    vec = TfidfVectorizer(analyzer="char", ngram_range=(k, k), lowercase=False, sublinear_tf=True)
    m = vec.fit_transform(list(seqs))  # (N, V) sparse, rows L2-normalised
    sim = (m @ m.T).toarray().astype(np.float32)  # (N, N)
    np.fill_diagonal(sim, 0.0)
    return sim


def alignment_similarity(seqs: Sequence[str], matrix: str = "blosum62", gap_open: int = 11, gap_extend: int = 1,
                         progress: bool = False) -> np.ndarray:
    r"""``(N, N)`` normalised Smith–Waterman local alignment scores of the sequences (zero diagonal).

    .. math::
        s_{ij} = \frac{S(i, j)}{\sqrt{S(i, i)\, S(j, j)}} \in [0, 1]

    with :math:`S` the best local alignment score under the substitution ``matrix`` (BLOSUM62) and affine gaps
    (``gap_open`` for a gap's first residue, ``gap_extend`` for each further one; 11 / 1 as BLAST's protein
    default), so a sequence scores 1 with itself and ~0 with an unrelated one. Alignment finds the homologues that
    share only a domain or a diverged segment, which k-mer counts (:func:`kmer_similarity`) miss. Label-free.

    Uses `parasail <https://github.com/jeffdaily/parasail>`_ (SIMD striped Smith–Waterman, one query profile per
    sequence, overflow-checked): ``pip install parasail`` (``gatbio[align]``). SHS27k's 1,690 sequences (mean length
    571, 1.4 M pairs) take under a minute on one core. Letters outside the matrix' alphabet score as its ``*``.

    References:
        Smith, T. F. & Waterman, M. S. Identification of common molecular subsequences. J. Mol. Biol. 147:195–197
        (1981). Daily, J. Parasail: SIMD C library for global, semi-global, and local pairwise sequence alignments.
        BMC Bioinformatics 17:81 (2016).
    """
    try:
        import parasail
    except ImportError as e:
        raise ImportError("alignment similarity needs parasail: pip install parasail (or gatbio[align]); "
                          "or use the k-mer similarity (impute_similarity: kmer)") from e
    sub = getattr(parasail, matrix, None)
    if sub is None or not hasattr(sub, "matrix"):
        raise ValueError(f"matrix={matrix!r} is not a parasail substitution matrix (e.g. blosum62, blosum50, pam250)")
    if gap_open < gap_extend or gap_extend < 1:
        raise ValueError(f"gap_open={gap_open}, gap_extend={gap_extend}: need gap_open >= gap_extend >= 1")
    from tqdm.auto import tqdm

    _check_seqs(seqs, "alignment_similarity")
    n = len(seqs)
    score = np.zeros((n, n), dtype=np.float64)
    for i in tqdm(range(n), desc="alignments", disable=not progress):
        if not seqs[i]:
            continue  # an empty sequence aligns with nothing (parasail needs at least one residue)
        prof = parasail.profile_create_sat(seqs[i], sub)
        for j in range(i, n):
            if seqs[j]:
                score[i, j] = parasail.sw_striped_profile_sat(prof, seqs[j], gap_open, gap_extend).score
    score = np.maximum(score, score.T)
    self_score = np.sqrt(np.clip(np.diag(score), 1.0, None))
    sim = (score / self_score[:, None] / self_score[None, :]).astype(np.float32)
    np.fill_diagonal(sim, 0.0)
    return sim


def sequence_knn_graph(seqs: Sequence[str] | None = None, neighbors: int = 10, k: int = 3,
                       similarity: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The symmetric ``neighbors``-nearest-neighbour graph of the sequences by :func:`kmer_similarity`.

    Each protein links to its ``neighbors`` most similar other proteins; the union of these links is made
    undirected (a pair linked from either side is one edge) and returned in both directions.

    Leakage: the graph uses the sequences only (no interaction, no mode), so it may join training and test
    proteins; it is what lets a protein without any known interaction receive messages.

    Args:
        seqs: ``N`` sequences (or give ``similarity``).
        neighbors: nearest neighbours per protein (``< N``).
        k: k-mer length of :func:`kmer_similarity`.
        similarity: a precomputed ``(N, N)`` similarity (diagonal ignored).

    Returns:
        ``(edge_index, weight)``: int64 ``(2, 2E)`` (the ``E`` undirected edges ``a < b`` in ascending order, then
        their mirror images) and float32 ``(2E,)`` cosine similarities.
    """
    sim = kmer_similarity(seqs, k) if similarity is None else np.array(similarity, dtype=np.float32)
    n = sim.shape[0]
    if not 0 < neighbors < n:
        raise ValueError(f"neighbors={neighbors}: must be between 1 and N - 1 = {n - 1}")
    np.fill_diagonal(sim, -np.inf)  # never its own neighbour
    nb = np.argpartition(-sim, neighbors - 1, axis=1)[:, :neighbors]  # (N, neighbors)
    a = np.repeat(np.arange(n), neighbors)
    b = nb.reshape(-1)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    und = np.unique(lo * n + hi)
    lo, hi = und // n, und % n  # (E,) each, ascending
    edge_index = np.stack([np.concatenate([lo, hi]), np.concatenate([hi, lo])]).astype(np.int64)
    weight = sim[edge_index[0], edge_index[1]].astype(np.float32)
    return edge_index, weight
