"""Sequence and protein-feature readers on the shared table helpers: control characters in ids, fields split as
every table's, a hole in a features row found by another name named from one reading."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from conftest import write

from gatbio.data import tables
from gatbio.data.io import MalformedFileError
from gatbio.data.sequence import read_protein_features, read_sequences


# ------------------------------------------------------------------------------------------- control characters
@pytest.mark.parametrize("text, line, field", [
    (">P1\x00x some protein\nMKV\n", 1, r"'P1\\x00x'"),  # kept in the id: 'P1\x00x', another protein than 'P1x'
    (">P0\nMKV\n>P1\x1cP2 desc\nMKL\n", 3, r"'P1\\x1cP2'"),  # a split point for str.split: read as 'P1'
    (">\x00P1\nMKV\n", 1, r"'\\x00P1'"),
])
def test_a_control_character_in_a_fasta_id_is_refused_at_its_line(tmp_path, text, line, field):
    """A FASTA id kept a NUL byte (another protein than the network's), or was cut at a \\x1c-\\x1f (whitespace to
    str.split), silently; every other reader refuses a control character in a name."""
    with pytest.raises(MalformedFileError, match=rf"s\.fa:{line}: {field} holds a control character \(U\+00"
                                                 r"[0-9A-F]{2}.*\), which no name or value has: delete it"):
        read_sequences(write(tmp_path, "s.fa", text))


@pytest.mark.parametrize("text, line, field", [
    ("P1\tMKV\nP2\x00\tMKL\n", 2, r"'P2\\x00'"),
    ("id,sequence\nP1,MKV\nP\x1b2,MKL\n", 3, r"'P\\x1b2'"),
    ("P1 MKV\nP2\x1fMKL\n", 2, r"'P2\\x1fMKL'"),  # whitespace-separated: str.split made it P2 / MKL
])
def test_a_control_character_in_a_table_id_is_refused_at_its_line(tmp_path, text, line, field):
    with pytest.raises(MalformedFileError, match=rf"t\.txt:{line}: {field} holds a control character"):
        read_sequences(write(tmp_path, "t.txt", text))


def test_a_nul_in_a_sequence_line_says_where_nul_bytes_come_from(tmp_path):
    """It was refused as "invalid character '\\x00' at residue 3"; now with the control-character message, which
    says a NUL comes from a damaged or binary file or from UTF-16 text."""
    with pytest.raises(MalformedFileError, match=r"s\.fa:3: 'MK\\x00V' holds a control character \(U\+0000, NUL\)"
                                                 r".*save the file again as UTF-8"):
        read_sequences(write(tmp_path, "s.fa", ">P1\nMKV\nMK\x00V\n"))


def test_a_control_character_in_a_header_description_is_not_read_so_not_refused(tmp_path):
    """The description is never used (as a non-UTF-8 byte there is read leniently): the file reads as before."""
    assert read_sequences(write(tmp_path, "s.fa", ">P1 bell\x07 and \x00 NUL\nMKV\n>P2\tdesc\x1b\nMKL\n")) == \
        {"P1": "MKV", "P2": "MKL"}


# ------------------------------------------------------------------------------------------- table fields
def test_the_separator_is_still_chosen_per_line(tmp_path):
    """tables.split_fields now splits the fields; the separator stays a per-line choice (a space-separated header
    above tab rows, or a mix, has always been read)."""
    seqs = read_sequences(write(tmp_path, "m.txt", "id sequence\nP1\tMKV\nP2,MKLL\nP3  MKVL\nmy protein\tMA\n"))
    assert seqs == {"P1": "MKV", "P2": "MKLL", "P3": "MKVL", "my protein": "MA"}


def test_quoted_fields_are_read_as_csv_and_tsv_tables_read_them(tmp_path):
    """A quoted id holding a comma was split into three fields ('expected 2 columns'); an id quoted whole in a TSV
    (R's write.table) kept its quotes and its sequence '"MKV"' was refused; a quote after ', ' is still removed."""
    p = write(tmp_path, "q.csv", 'id,sequence\n"P1, isoform 2",MKV\nP2, "MKLL"\n" P3 " , mkv*\n')
    assert read_sequences(p) == {"P1, isoform 2": "MKV", "P2": "MKLL", "P3": "MKV"}
    assert read_sequences(write(tmp_path, "q.tsv", '"P1"\t"MKV"\nP2\tMKL\n')) == {"P1": "MKV", "P2": "MKL"}


def test_a_quote_left_open_in_a_csv_line_is_refused_at_its_line(tmp_path):
    """'"P2,MKL' was read as P2 -> MKL by stripping quotes off both ends of every field: a quote that does not
    close is an error in every CSV reader."""
    with pytest.raises(MalformedFileError, match=r"o\.csv:3: a double quote opens a field that does not close on "
                                                 r"this line"):
        read_sequences(write(tmp_path, "o.csv", 'id,sequence\nP1,MKV\n"P2,MKL\n'))


@pytest.mark.parametrize("first", ["protein1", "GeneA", "source", "node7", "Item"])
def test_a_first_protein_named_like_a_header_word_is_still_a_protein(tmp_path, first):
    """The 'gene<TAB>protein' check matches column names exactly: tables.is_header_word would refuse these ids."""
    assert read_sequences(write(tmp_path, "s.tsv", f"{first}\tMKV\nP2\tMKL\n")) == {first: "MKV", "P2": "MKL"}


@pytest.mark.parametrize("first", ["gene", "Entry", "IDENTIFIER", "protein_id"])
def test_a_header_row_without_a_sequence_column_name_is_still_refused(tmp_path, first):
    with pytest.raises(MalformedFileError, match=rf"s\.tsv:1: '{first}\\tprotein' looks like a header row"):
        read_sequences(write(tmp_path, "s.tsv", f"{first}\tprotein\nP1\tMKV\n"))


# ------------------------------------------------------------------------------------------- features files
def test_a_hole_in_a_row_found_by_another_name_is_named_from_one_reading(tmp_path, monkeypatch, caplog):
    """The file was read a second time to name the hole's line, which said the header note twice; it is read once,
    and the first such row in file order is named."""
    p = write(tmp_path, "e.tsv", "id\tf1\tf2\nsp|P69905|HBA_HUMAN\t1\t\nsp|P68871|HBB_HUMAN\tNA\t4\nP1\t5\t6\n")
    reads = []
    real = tables.read_table
    monkeypatch.setattr(tables, "read_table", lambda *a, **k: reads.append(a) or real(*a, **k))
    with caplog.at_level(logging.WARNING, logger="gatbio.data"), \
            pytest.raises(MalformedFileError, match=r"e\.tsv:2: protein 'sp\|P69905\|HBA_HUMAN' has no feature 'f2' "
                                                    r"\(an empty, NA or nan field, or a short row; 2 missing in all\), "
                                                    r"and it is the row of the network's 'HBA_HUMAN'"):
        read_protein_features(p, ["P1", "HBB_HUMAN", "HBA_HUMAN"])
    assert len(reads) == 1
    assert caplog.text.count("read as a header") == 1


def test_rows_found_by_another_name_without_holes_read_as_before(tmp_path):
    p = write(tmp_path, "e.tsv", "sp|P69905|HBA_HUMAN\t1\t2\nP9\t\t\nP1\t5\t6\n")
    x, cols = read_protein_features(p, ["P1", "HBA_HUMAN"], aliases={"HBA_HUMAN": "nothing"})
    assert x.tolist() == [[5, 6], [1, 2]] and cols == ["feature_1", "feature_2"]
    x, _ = read_protein_features(p, ["ALIAS"], aliases={"ALIAS": "P1"})
    assert x.tolist() == [[5, 6]]
    with pytest.raises(MalformedFileError, match=r"e\.tsv:2: protein 'P9' has no feature 'feature_1'"):
        read_protein_features(p, ["ALIAS"], aliases={"ALIAS": "P9"})


def test_read_node_table_gives_each_rows_line_on_request(tmp_path):
    p = write(tmp_path, "t.tsv", "# x\nid\tv\nb\t2\n\nc\t3\na\t1\n")
    values, cols, added, lines = tables.read_node_table(p, ["a", "z", "b"], unknown="add", row_lines=True)
    assert added == ["c"] and lines.tolist() == [6, 0, 3, 5] and values[:, 0].tolist()[2:] == [2, 3]
    values, cols, ignored, lines = tables.read_node_table(p, ["a", "b"], unknown="ignore", row_lines=True)
    assert ignored == 1 and lines.tolist() == [6, 3]
    assert len(tables.read_node_table(p, ["a", "b"], unknown="ignore")) == 3  # as before without it
    assert np.isnan(tables.read_node_table(p, ["a", "z"], unknown="ignore")[0][1, 0])
