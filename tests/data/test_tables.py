"""One reader behaviour for every table: header rows, compression by content, weights, line numbers, paths."""

from __future__ import annotations

import bz2
import gzip
import logging
import lzma

import numpy as np
import pytest
from conftest import write

from gatbio.data.foodweb import read_gateway_web, read_species_traits, read_trait_table
from gatbio.data.io import (
    MalformedFileError,
    pajek_to_data,
    read_adjacency_matrix,
    read_edge_list,
    read_gaf,
    read_label_table,
    read_node_list,
    read_pajek,
    read_string_links,
)
from gatbio.data.sequence import read_sequences
from gatbio.data.tables import (
    data_head,
    data_lines,
    first_few,
    is_header_word,
    looks_like_header,
    parse_weights,
    sniff_separator,
)
from gatbio.ecology.commands import read_foodweb_file
from tests.data.test_io import GAF


def edges(d):
    return [(d.node_names[a], d.node_names[b]) for a, b in d.edge_index.t().tolist()]


def notes(caplog) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.name == "gatbio.data")


# ---------------------------------------------------------------- header rows


@pytest.mark.parametrize("name,text,sep", [
    ("ppi.txt", "protein_a protein_b\nA B\nB C\n", r"\s+"),
    ("ppi.tsv", "Interactor A\tInteractor B\nA\tB\nB\tC\n", "\t"),
    ("ppi.csv", "# exported\ngene1,gene2\nA,B\nB,C\n", ","),
    ("web.txt", "resource consumer\nA B\nB C\n", r"\s+"),
    ("w.txt", "from to weight\nA B 0.5\nB C 2\n", r"\s+"),  # typed column: text above numbers
])
def test_a_header_row_never_becomes_nodes(tmp_path, caplog, name, text, sep):
    d = read_edge_list(write(tmp_path, name, text), sep=sep)
    assert d.node_names == ["A", "B", "C"] and edges(d) == [("A", "B"), ("B", "C")]
    assert "read as a header" in notes(caplog) and name in notes(caplog)


def test_numeric_ids_under_a_header_and_forced_choices(tmp_path, caplog):
    p = write(tmp_path, "web.txt", "resource consumer\n0 1\n1 2\n")
    d = read_edge_list(p, numeric_ids=True)
    assert d.num_nodes == 3 and d.edge_index.tolist() == [[0, 1], [1, 2]]
    with pytest.raises(MalformedFileError, match=r"web\.txt:1: source id must be an integer, found 'resource'"):
        read_edge_list(p, numeric_ids=True, header=False)
    q = write(tmp_path, "plain.txt", "A B\nB C\n")
    assert read_edge_list(q, header=True).node_names == ["B", "C"]  # forced: the first row is skipped
    caplog.clear()
    assert read_edge_list(q).node_names == ["A", "B", "C"] and notes(caplog) == ""  # data: nothing to say


def test_species_named_like_header_words_stay_species(tmp_path, caplog):
    # 'consumer' is a species that appears again on line 4: line 1 is data, and the note says why
    p = write(tmp_path, "web.csv", "resource,consumer\nA,B\nconsumer,A\n")
    d = read_edge_list(p, sep=",")
    assert d.node_names == ["resource", "consumer", "A", "B"] and d.num_edges == 3
    assert "looks like a header but 'consumer' is also a name elsewhere" in notes(caplog)
    assert read_edge_list(p, sep=",", header=True).num_edges == 2
    # gene symbols that look like words but not like headers (ID1, GO) are data
    assert not looks_like_header(["ID1", "TP53"], [["TP53", "MDM2"]])
    assert is_header_word("protein_a") and is_header_word("Official Symbol Interactor A") and is_header_word("GO_ID")
    assert not is_header_word("TP53") and not is_header_word("a") and not is_header_word("Homo sapiens")


def test_label_table_header_detected_forced_and_hinted(tmp_path, caplog):
    nodes = ["P1", "P2", "P3"]
    y, names = read_label_table(write(tmp_path, "l.txt", "protein function\nP1 kinase\nP2 transport\n"), nodes)
    assert names == ["kinase", "transport"] and y.sum() == 2 and "read as a header" in notes(caplog)
    y, _ = read_label_table(write(tmp_path, "h.txt", "id labels\nP1 k\n"), nodes, header=True)
    assert y.sum() == 1
    with pytest.raises(MalformedFileError, match=r"x\.txt:1: 1 line\(s\) name nodes that are not in the graph.*--header"):
        read_label_table(write(tmp_path, "x.txt", "node_name class_id\nP1 k\n"), nodes, header=False)
    # a protein called like a header word is a protein
    y, _ = read_label_table(write(tmp_path, "g.txt", "gene kinase\nP1 k\n"), nodes + ["gene"])
    assert y[3].sum() == 1


def test_label_table_with_tabs_or_commas_keeps_labels_with_spaces(tmp_path, caplog):
    nodes = ["P1", "P2", "P3"]
    for name, text in (("l.tsv", "protein\tfunction\nP1\tDNA repair\nP2\tcell cycle\tDNA repair\n"),
                       ("l.csv", "protein,function\nP1,DNA repair\nP2,cell cycle,DNA repair\n")):
        y, names = read_label_table(write(tmp_path, name, text), nodes)
        assert names == ["DNA repair", "cell cycle"] and y.tolist() == [[1, 0], [1, 1], [0, 0]]
    # whitespace files keep the node2vec format: every word a label
    y, names = read_label_table(write(tmp_path, "l.txt", "P1 a b\nP2 b\n"), nodes)
    assert names == ["a", "b"] and y.sum() == 3
    # labels joined by ';' or '|' in one field (a GO annotation layout): one label each, said on stderr
    y, names = read_label_table(write(tmp_path, "g.tsv", "P1\tGO:3;GO:22 ; GO:25\nP2\tGO:3|GO:7\n"), nodes)
    assert names == ["GO:22", "GO:25", "GO:3", "GO:7"] and y.tolist()[:2] == [[1, 1, 1, 0], [0, 0, 1, 1]]
    assert "2 field(s) hold several labels joined by ';' or '|'" in notes(caplog)


def test_label_table_matching_no_node_says_ids_or_column_order(tmp_path):
    with pytest.raises(MalformedFileError, match=r"no line names a node of the graph \(e\.g\. '9606\.P1'\): do the "
                                                 r"ids match"):
        read_label_table(write(tmp_path, "x.txt", "P1 kinase\nP2 kinase\n"), ["9606.P1", "9606.P2"])


def test_label_table_header_hint_only_where_a_header_may_be(tmp_path, caplog):
    """After a detected header, an unknown node on the next line is not hinted as a header."""
    with pytest.raises(MalformedFileError) as err:
        read_label_table(write(tmp_path, "x.txt", "protein function\nQ9 kinase\n"), ["P1"])
    assert "x.txt:2:" in str(err.value) and "--header" not in str(err.value)


def test_node_list_and_trait_tables_detect_headers(tmp_path):
    assert read_node_list(write(tmp_path, "n.txt", "protein\nP1\nP2\nP1\n")) == ["P1", "P2"]
    assert read_node_list(write(tmp_path, "m.txt", "protein\nP1\n"), known=["protein"]) == ["protein", "P1"]
    species = ["fox", "rabbit", "grass"]
    x, names, _ = read_species_traits(write(tmp_path, "t.tsv", "taxon\tmass\tmobile\nfox\t5\t1\ngrass\t\t0\n"), species)
    assert names == ["mass", "mobile"] and x.shape == (3, 2)
    assert x[0].tolist() == [5, 1] and np.isnan(x[1]).all() and np.isnan(x[2, 0]) and x[2, 1] == 0
    x, names, _ = read_species_traits(write(tmp_path, "u.txt", "fox 5\nrabbit 1\n"), species)  # no header
    assert names == ["trait_1"] and x[:2, 0].tolist() == [5, 1]
    x, names, _ = read_species_traits(write(tmp_path, "s.csv", "species\nfox\n"), species)  # species only
    assert x.shape == (3, 0) and names == []
    with pytest.raises(MalformedFileError, match=r"v\.csv:3: trait 'mass' must be a number, found 'big'"):
        read_species_traits(write(tmp_path, "v.csv", "species,mass\nfox,1\nrabbit,big\n"), species)
    with pytest.raises(MalformedFileError, match=r"v\.csv:2: trait 'mass' must be finite, found 'inf'"):
        read_species_traits(write(tmp_path, "v.csv", "species,mass\nfox,inf\nrabbit,1\n"), species)
    with pytest.raises(MalformedFileError, match=r"r\.csv:2: 3 fields where the header \(line 1\) names 2"):
        read_species_traits(write(tmp_path, "r.csv", "species,mass\nfox,1,5\nrabbit,1,2\n"), species)
    with pytest.raises(MalformedFileError, match=r"r\.csv:3: expected 2 columns, found 3"):
        read_species_traits(write(tmp_path, "r.csv", "species,mass\nfox,1\nrabbit,1,5\n"), species)
    # a header above text only (no typed column shows it): its first field names the id column
    with pytest.raises(MalformedFileError, match=r"h\.csv:2: trait 'habitat' must be a number, found 'pelagic'"):
        read_species_traits(write(tmp_path, "h.csv", "species,habitat\nfox,pelagic\n"), species)
    x, names, _ = read_species_traits(write(tmp_path, "k.csv", "fox,1\nrabbit,2\n"), species)  # no header
    assert names == ["trait_1"] and x[:2, 0].tolist() == [1, 2]


def test_adjacency_with_detected_header_and_names_column(tmp_path):
    p = write(tmp_path, "m.csv", ",plant,snail\nplant,0,1\nsnail,0,0\n")
    d = read_adjacency_matrix(p, convention="row_to_col", sep=",")
    assert d.node_names == ["plant", "snail"] and edges(d) == [("plant", "snail")]
    q = write(tmp_path, "n.txt", "plant snail\nplant 0 1\nsnail 0 0\n")  # header without the corner cell
    assert edges(read_adjacency_matrix(q, convention="row_to_col")) == [("plant", "snail")]
    with pytest.raises(MalformedFileError, match=r"o\.txt:2: row and column names differ: row 1 \(this line\)"):
        read_adjacency_matrix(write(tmp_path, "o.txt", "a b\nb 0 1\na 0 0\n"), convention="row_to_col")
    # two species of one name were read as two nodes both called 'grass', without a word
    with pytest.raises(MalformedFileError, match=r"d\.csv:3: species 'grass' is named twice \(rows 1 and 2\)"):
        read_adjacency_matrix(write(tmp_path, "d.csv", ",grass,grass,fox\ngrass,0,1,0\ngrass,0,0,1\nfox,0,0,0\n"),
                              convention="row_to_col", sep=",")
    with pytest.raises(MalformedFileError, match=r"e\.txt:1: species 'a' is named twice \(columns 1 and 2\)"):
        read_adjacency_matrix(write(tmp_path, "e.txt", "a a\n0 1\n0 0\n"), convention="row_to_col", header=True)


# ---------------------------------------------------------------- compression by content


@pytest.mark.parametrize("compress,name", [
    (gzip.compress, "edges.txt"),        # gzip named like plain text
    (bz2.compress, "edges.txt"),
    (lzma.compress, "edges.dat"),
    (lambda b: b, "edges.txt.gz"),       # plain text named like gzip
])
def test_compression_is_read_by_content_not_name(tmp_path, compress, name):
    p = tmp_path / name
    p.write_bytes(compress(b"# web\nA B 1.5\nB C 2\n"))
    d = read_edge_list(p, weight=2)
    assert edges(d) == [("A", "B"), ("B", "C")] and d.edge_weight.tolist() == [1.5, 2.0]


def test_every_reader_opens_gzip_by_content(tmp_path):
    def gz(name, text):
        p = tmp_path / name
        p.write_bytes(gzip.compress(text.encode()))
        return p

    y, _ = read_label_table(gz("labels.txt", "A x\nB y\n"), ["A", "B"])
    assert y.sum() == 2
    assert read_string_links(gz("links.txt", "protein1 protein2 combined_score\na b 900\nb a 900\n")).num_edges == 2
    pj = read_pajek(gz("w.net", "*Vertices 2\n1 \"a\"\n2 \"b\"\n*Arcs\n1 2 3.0\n"))
    assert pajek_to_data(pj).edge_weight.tolist() == [3.0]
    gaf = "!gaf-version: 2.2\n" + "\t".join(["UniProtKB", "P1", "A", "", "GO:0005515", "r", "IDA", "", "F", "", "",
                                               "protein", "taxon:9606", "20200101", "UniProt", "", ""]) + "\n"
    y, terms, _ = read_gaf(gz("a.gaf", gaf), ["A"])
    assert terms == ["GO:0005515"] and y.sum() == 1
    web = tmp_path / "Web_1"
    web.mkdir()
    (web / "1_edge_list.txt").write_bytes(gzip.compress(b"0 1\n1 2\n"))
    (web / "1_node_attr_list.txt").write_bytes(gzip.compress(b"id mass\n0 1\n1 2\n2 3\n"))
    d = read_gateway_web(web)
    assert d.num_nodes == 3 and d.x.shape == (3, 2)
    assert read_trait_table(web / "1_node_attr_list.txt", 3)["mass"].tolist() == [1, 2, 3]


@pytest.mark.parametrize("rows,msg", [
    ("2 1\n1 2\n0 3\n", r"t\.txt:2: expected one row per node with ids 0\.\.2 in order: this row \(row 1\) has id 2"),
    ("0 1\n1 2\n1 3\n", r"t\.txt:4: .*this row \(row 3\) has id 1, not 2"),
    ("0 1\n1 2\n", r"t\.txt: expected one row per node with ids 0\.\.2 in order, found 2 rows"),
])
def test_a_gateway_node_table_out_of_order_names_its_line(tmp_path, rows, msg):
    with pytest.raises(MalformedFileError, match=msg):
        read_trait_table(write(tmp_path, "t.txt", "id mass\n" + rows), 3)


# ---------------------------------------------------------------- weights


@pytest.mark.parametrize("value,msg", [
    ("abc", "weight must be a number, found 'abc'"),
    ("nan", "weight must be a finite number, found 'nan'"),
    ("inf", "weight must be a finite number, found 'inf'"),
    ("-1", r"weight must be >= 0 \(a strength, a flow or a confidence\), found '-1'"),
])
def test_one_weight_parser_for_every_reader(tmp_path, value, msg):
    text = f"# comment\n\nA B 1\nB C {value}\nC A {value}\n"
    with pytest.raises(MalformedFileError, match=rf"e\.txt:4: {msg} \(2 bad weights in total\)"):
        read_edge_list(write(tmp_path, "e.txt", text), weight=2)
    with pytest.raises(MalformedFileError, match=rf"e\.txt:4: {msg}"):
        read_edge_list(write(tmp_path, "e.txt", text), weight="auto")
    with pytest.raises(MalformedFileError, match=rf"w\.net:6: {msg}"):
        read_pajek(write(tmp_path, "w.net", f"*Vertices 2\n1 a\n2 b\n*Arcs\n1 2 1\n2 1 {value}\n"))
    with pytest.raises(MalformedFileError, match=rf"m\.txt:2: column 2: {msg.replace('weight', 'entry')}"):
        read_adjacency_matrix(write(tmp_path, "m.txt", f"0 1\n0 {value}\n"), convention="row_to_col")
    with pytest.raises(MalformedFileError, match=rf"<x>:7: {msg}"):
        parse_weights(["1", value], "<x>", lambda r: 6 + r)


def test_auto_weight_column_and_a_text_column_is_ignored_with_a_note(tmp_path, caplog):
    d = read_edge_list(write(tmp_path, "e.txt", "A B 0.5\nB C 2\n"), weight="auto")
    assert d.edge_weight.tolist() == [0.5, 2.0]
    d = read_edge_list(write(tmp_path, "t.txt", "A B predation\nB C predation\n"), weight="auto")
    assert getattr(d, "edge_weight", None) is None and "column 3 holds no numbers" in notes(caplog)


# ---------------------------------------------------------------- line numbers, paths, duplicates


def test_line_numbers_are_physical_lines(tmp_path):
    text = "# header comment\nsource target\n\nA B\n# note\n\nB C D\n"
    with pytest.raises(MalformedFileError, match=r"e\.txt:7: expected 2 columns \(source target\), found 3"):
        read_edge_list(write(tmp_path, "e.txt", text))
    with pytest.raises(MalformedFileError, match=r"n\.txt:5: target id must be an integer, found 'x'"):
        read_edge_list(write(tmp_path, "n.txt", "from to\n# c\n0 1\n\n1 x\n"), numeric_ids=True)
    with pytest.raises(MalformedFileError, match=r"l\.txt:4: duplicate edge 'A' - 'B'"):
        read_edge_list(write(tmp_path, "l.txt", "A B\n\n# c\nA B\n"), duplicates="error")
    with pytest.raises(MalformedFileError, match=r"s\.txt:4: protein1 must be|s\.txt:4: expected 3 space-separated"):
        read_string_links(write(tmp_path, "s.txt", "protein1 protein2 combined_score\na b 1\n\nc\n"))


def test_a_comment_character_inside_a_name_is_text(tmp_path):
    """Only a line that starts with '#' is a comment: Daphnia#1 and Daphnia#2 stay two species."""
    d = read_edge_list(write(tmp_path, "w.csv", "resource,consumer\n# a note\nalgae,Daphnia#1\nalgae,Daphnia#2\n"
                                                "Daphnia#1,fish\n"), sep=",")
    assert d.node_names == ["algae", "Daphnia#1", "Daphnia#2", "fish"] and d.num_edges == 3


def test_comment_note_counts_the_lines_skipped_as_comments_once(tmp_path, caplog):
    """``comment_note`` (a format that documents no comments: a CSV food web, a trait table) says, in one note, as
    many lines as the reader skipped, the first one's line among them: a '#' after blanks or a spreadsheet's empty
    fields is a comment line too, a '#' inside a line is not; without the option the lines go unsaid, as before."""
    text = "resource,consumer\nalgae,Daphnia#1\n  # a note\n,,#moth,fish\nDaphnia#1,fish\n#algae,fish\n"
    path = write(tmp_path, "w.csv", text)
    kept = data_lines(text, "#")[1]
    skipped = [k for k in range(1, 7) if k not in kept]
    assert skipped == [3, 4, 6]
    d = read_edge_list(path, sep=",", comment_note=True)
    assert d.num_edges == 2
    said = [r.getMessage() for r in caplog.records if "starting with '#'" in r.getMessage()]
    assert said == [f"note: {path}: 3 lines starting with '#' skipped as comments (the first: line 3); a name that "
                    "starts with '#' is read when quoted (\"#name\")"]
    caplog.clear()
    read_edge_list(path, sep=",")
    assert "starting with '#'" not in caplog.text
    read_edge_list(write(tmp_path, "x.csv", "a,b\nb,c#1\n"), sep=",", comment_note=True)
    assert "starting with '#'" not in caplog.text


@pytest.mark.parametrize("reader", [
    lambda p: read_edge_list(p), lambda p: read_label_table(p, ["a"]), lambda p: read_pajek(p),
    lambda p: read_adjacency_matrix(p, convention="row_to_col"), lambda p: read_species_traits(p, ["a"]),
])
def test_a_folder_or_missing_or_empty_file_says_so(tmp_path, reader):
    with pytest.raises(IsADirectoryError, match=r"is a folder, not a file"):
        reader(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"nope\.txt: no such file"):
        reader(tmp_path / "nope.txt")
    with pytest.raises(MalformedFileError, match=r"empty\.txt: the file is empty"):
        reader(write(tmp_path, "empty.txt", ""))


def test_a_spreadsheet_byte_order_mark_is_not_part_of_a_name(tmp_path):
    p = tmp_path / "e.csv"
    p.write_bytes("\ufeffprotein_a,protein_b\nA,B\n".encode())
    assert read_edge_list(p, sep=",").node_names == ["A", "B"]
    p.write_bytes("\ufeffA,B\n".encode())
    assert read_edge_list(p, sep=",").node_names == ["A", "B"]


def test_binary_file_is_one_clear_line(tmp_path):
    p = tmp_path / "sheet.txt"
    p.write_bytes(b"A B\n\xff\xfe\x00C D\n")
    with pytest.raises(MalformedFileError, match=r"sheet\.txt:2: not utf-8 text"):
        read_edge_list(p)


@pytest.mark.parametrize("reader", [
    lambda p: read_foodweb_file(p), lambda p: read_foodweb_file(p, header=False), lambda p: read_string_links(p),
    lambda p: read_species_traits(p, ["a"]), lambda p: read_label_table(p, ["a"]),
    lambda p: data_head(p),
])
@pytest.mark.parametrize("bad_line", [1, 3])
def test_binary_file_is_one_clear_line_in_every_reader(tmp_path, reader, bad_line):
    """The first-line peeks (header checks, STRING's header) decode like the whole-file reads: file:line."""
    lines = [b"protein1 protein2 combined_score", b"a b 700", b"c d 700"]
    lines[bad_line - 1] = b"\x7fELF\x02\x01\xd0\xff binary"
    p = tmp_path / "x.bin"
    p.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(MalformedFileError, match=rf"x\.bin:{bad_line}: not utf-8 text"):
        reader(p)


@pytest.mark.parametrize("encoding,name", [("utf-16", "UTF-16"), ("utf-16-be", "UTF-16"), ("utf-32", "UTF-32")])
@pytest.mark.parametrize("compress", [lambda b: b, gzip.compress])
@pytest.mark.parametrize("reader", [
    lambda p: read_edge_list(p), lambda p: read_label_table(p, ["a", "b"]), lambda p: read_string_links(p),
    lambda p: data_head(p), lambda p: read_pajek(p), lambda p: read_foodweb_file(p),
    lambda p: read_sequences(p),
])
def test_utf16_text_says_save_it_as_utf8_in_every_reader(tmp_path, encoding, name, compress, reader):
    """Excel's and Notepad's "Unicode" text (UTF-16 with a byte-order mark, either byte order) and UTF-32: one line
    that says what the file is and how to save it, not "is it a spreadsheet or a binary file?" (nor Latin-1 noise
    for Pajek, whose files may be Latin-1)."""
    bom = {"utf-16-be": "\ufeff"}.get(encoding, "")  # utf-16 / utf-32 write their byte-order mark themselves
    p = tmp_path / "unicode.txt"
    p.write_bytes(compress((bom + "a b 700\nb a 700\n").encode(encoding)))
    with pytest.raises(MalformedFileError) as caught:
        reader(p)
    assert str(caught.value).startswith(f"{p}: is {name} text")
    assert "not UTF-8: save it as UTF-8" in str(caught.value) and "binary" not in str(caught.value)


@pytest.mark.parametrize("compress", [lambda b: b, gzip.compress])
@pytest.mark.parametrize("reader", [
    lambda p: read_edge_list(p, sep=","), lambda p: read_foodweb_file(p), lambda p: read_label_table(p, ["Pez"]),
    lambda p: read_species_traits(p, ["Pez"]), lambda p: data_head(p),
])
def test_windows_1252_text_is_named_with_the_line_as_it_would_read(tmp_path, reader, compress):
    """A CSV saved in Excel's "ANSI" code page (Windows-1252 / Latin-1: 'León' as 4C E9 F3 6E... ) is text, not a
    binary file: the line names the encoding, shows the line decoded that way and how to save it as UTF-8."""
    p = tmp_path / "web.csv"
    p.write_bytes(compress("predator,prey\nPez,Alga\nLeón,Pez\n".encode("cp1252")))
    with pytest.raises(MalformedFileError) as caught:
        reader(p)
    msg = str(caught.value)
    line = ":3: " if compress(b"") == b"" else ": "  # a compressed file's line is not known
    assert msg.startswith(f"{p}{line}not utf-8 text: it looks like Windows-1252 / Latin-1 text"), msg
    assert "'León,Pez'" in msg and "iconv -f WINDOWS-1252 -t UTF-8" in msg and "binary" not in msg


def test_bytes_like_a_byte_order_mark_elsewhere_are_not_utf16(tmp_path):
    p = tmp_path / "e.txt"
    p.write_text("ÿþ ÿþb\n", encoding="utf-8")  # UTF-8 letters that read as FF FE in Latin-1
    assert read_edge_list(p).node_names == ["ÿþ", "ÿþb"]
    p.write_bytes(b"a b\n\xff\xfe c\n")  # FF FE on line 2: not a byte-order mark
    with pytest.raises(MalformedFileError, match=r"e\.txt:2: not utf-8 text"):
        read_edge_list(p)


@pytest.mark.parametrize("name,text", [
    ("one.csv", "species\nCryptomonas sp. 1\nNostoc sp.\n"),  # one column, names with spaces
    ("one.txt", "species\nCryptomonas sp. 1\nNostoc sp.\n"),
    ("two.csv", "# body mass in g\nspecies,mass\nNostoc sp.,\nCryptomonas sp. 1,3.5\n"),  # a comment line first
    ("two.txt", "# traits\nNostoc sp.\t\nCryptomonas sp. 1\t3.5\n"),
])
def test_trait_table_separator_comes_from_every_line_not_the_first(tmp_path, name, text):
    species = ["Nostoc sp.", "Cryptomonas sp. 1"]
    x, names, _ = read_species_traits(write(tmp_path, name, text), species)
    assert x.shape[0] == 2 and x.shape[1] == (0 if name.startswith("one") else 1)
    if x.shape[1]:
        assert np.isnan(x[0, 0]) and x[1, 0] == 3.5


def test_duplicates_merged_are_counted_once_and_reported(tmp_path, caplog):
    p = write(tmp_path, "e.txt", "A B 1\nB C 1\nA B 2\n")
    d = read_edge_list(p, weight=2, duplicates="merge", reduce="sum", report=True)
    assert d.num_edges == 2 and d.edge_weight.tolist() == [3.0, 1.0]
    assert "1 duplicate link merged, each counted once; their weights summed" in notes(caplog)


def test_notes_reach_stderr_without_logging_setup(tmp_path):
    import subprocess
    import sys

    p = write(tmp_path, "e.txt", "source target\nA B\n")
    r = subprocess.run([sys.executable, "-c", f"from gatbio.data.tables import read_table; read_table({str(p)!r})"],
                       capture_output=True, text=True, check=True)
    assert "line 1 'source target' read as a header" in r.stderr and r.stdout == ""
    assert logging.getLogger("gatbio.data").level == logging.NOTSET  # nothing configured globally by gatbio


@pytest.mark.parametrize("nodes,links,msg", [
    ("name\na\nb\n", "resource,consumer\na,b\n", r"nodes\.csv:1: no column 'node' in the header"),
    ("node\na\nb\n", "from,to\na,b\n", r"trophic\.links\.csv:1: no column 'resource' in the header"),
    ("node\na\nb\na\n", "resource,consumer\na,b\n", r"nodes\.csv:4: duplicate node name 'a'"),
    ("node\na\nb\n", "resource,consumer\na,b\nb,c\n", r"trophic\.links\.csv:3: link names a node that is not in"),
    ("node,M\na,1\nb,heavy\n", "resource,consumer\na,b\n", r"nodes\.csv:3: M must be a number, found 'heavy'"),
    ("node\na\nb\nc\n", "resource,consumer,diet.fraction\na,b,0.5\nb,c,-1\n",
     r"trophic\.links\.csv:3: diet\.fraction must be >= 0"),
    ("node\na\nb\nc\n", "resource,consumer,biomass.flow\na,b,nan\nb,c,1\n",
     r"trophic\.links\.csv:2: biomass\.flow must be a finite number"),
])
def test_a_users_cheddar_folder_is_read_by_the_table_reader(tmp_path, nodes, links, msg):
    """A cheddar folder of one's own: missing columns, unknown names, non-numbers and bad weights are one line
    with file:line (not a KeyError traceback, not a value silently taken as missing)."""
    (tmp_path / "nodes.csv").write_text(nodes)
    (tmp_path / "trophic.links.csv").write_text(links)
    with pytest.raises(MalformedFileError, match=msg):
        read_foodweb_file(tmp_path)


def test_a_users_cheddar_folder_gzipped_and_with_missing_masses(tmp_path):
    (tmp_path / "nodes.csv").write_bytes(gzip.compress(b"node,category,M\nalga,producer,\nsnail,invertebrate,0.01\n"))
    (tmp_path / "trophic.links.csv").write_text("resource,consumer,diet.fraction\nalga,snail,1\n")
    d = read_foodweb_file(tmp_path)
    assert d.node_names == ["alga", "snail"] and d.edge_weight.tolist() == [1.0]
    assert d.trait_names == ["cat_invertebrate", "cat_producer", "log10_M", "M_missing"]
    assert d.x[:, 3].tolist() == [1.0, 0.0] and d.x[1, 2].item() == pytest.approx(-2.0)


@pytest.mark.parametrize("text,sep", [
    ("protein_a protein_b\nA\tB\n", "\t"),  # a header without the tab above tab-separated rows
    ("# a comment, with a comma\nA B\nC D\n", None),  # comment lines are not read
    ("A, B\nC, D\n", ","),  # comma and space: the comma separates
    ("A B\nC D\n", None),
    ("A,B\tx\n", "\t"),  # a tab wins over a comma
])
def test_sniff_separator(tmp_path, text, sep):
    assert sniff_separator(data_head(write(tmp_path, "t.txt", text))) == sep


def test_too_few_columns_hints_at_the_separator_the_line_holds(tmp_path):
    with pytest.raises(MalformedFileError, match=r"s\.csv:2: expected 2 columns \(source target\), found 1 \(the "
                                                 r"line holds a semicolon: is that the separator\?"):
        read_edge_list(write(tmp_path, "s.csv", "src,dst\na;b\nb;c\n"), sep=",")
    with pytest.raises(MalformedFileError, match=r"found 1$"):  # nothing to suggest: no hint
        read_edge_list(write(tmp_path, "s.txt", "a\nb\n"))
    with pytest.raises(MalformedFileError, match=r"found 1 \(the line holds a space: is that the separator\?"):
        read_edge_list(write(tmp_path, "s.tsv", "a b\nb c\n"), sep="\t")  # --format tsv on a spaced file


# ---------------------------------------------------------------- quotes


def test_a_quote_in_a_tab_or_whitespace_table_is_text_not_a_field_over_lines(tmp_path):
    """TSV, BioGRID, GAF and whitespace edge lists do not quote: a '"' there used to swallow lines (pandas' CSV
    quoting), so the interactions between the two quotes vanished."""
    p = write(tmp_path, "e.tsv", 'G1\tG2\t"yeast two-hybrid\nG3\tG4\tpull-down"\nG5\tG6\tcoIP\n')
    data = read_edge_list(p, sep="\t", directed=False)
    assert data.node_names == ["G1", "G2", "G3", "G4", "G5", "G6"]
    # R's write.table(sep="\t") quotes every name: a field quoted whole loses its quotes
    data = read_edge_list(write(tmp_path, "r.tsv", '"grass"\t"rabbit"\t1\n"rabbit"\t"fox"\t2\n'), sep="\t")
    assert data.node_names == ["grass", "rabbit", "fox"]
    # whitespace edge lists quote names with spaces; a quote that runs over the line end is refused at its line
    data = read_edge_list(write(tmp_path, "q.txt", 'algae "Daphnia pulex"\n"Daphnia pulex" fish\n'))
    assert data.node_names == ["algae", "Daphnia pulex", "fish"]
    with pytest.raises(MalformedFileError, match=r"w\.txt:1: a double quote opens a field that does not close"):
        read_edge_list(write(tmp_path, "w.txt", '"A B\nC D"\nE F\n'))
    gaf = GAF.replace("\tp53\t", '\t"p53 partial\t', 1).replace("\tmdm2\t", '\tmdm2 only"\t', 1)
    y, terms, nodes = read_gaf(write(tmp_path, "q.gaf", gaf), ["TP53", "MDM2", "CDKN1A"])
    assert y.sum(1).tolist() == [2, 1, 1]  # CDKN1A's row, after both quotes, is read


def test_a_csv_quote_that_does_not_close_on_its_line_is_refused_at_that_line(tmp_path):
    p = write(tmp_path, "e.csv", 'a,b,1\nc,"d,2\ne,f",3\ng,h,4\n')
    with pytest.raises(MalformedFileError, match=r'e\.csv:2: a double quote opens a field that does not close on '
                                                 r'this line \(fields separated by a comma may be quoted'):
        read_edge_list(p, sep=",", weight=2)
    with pytest.raises(MalformedFileError, match=r"e\.csv:4: a double quote opens a field"):
        read_edge_list(write(tmp_path, "e.csv", 'a,b,1\nc,d,2\ne,f,3\ng,"h,4\n'), sep=",", weight=2)
    data = read_edge_list(write(tmp_path, "ok.csv", 'a,"b, c",1\nd,e,2\n'), sep=",", weight=2)
    assert data.node_names == ["a", "b, c", "d", "e"]  # quoted, as CSV allows: one name with a comma


def test_label_tables_and_node_lists_read_csv_fields_as_csv(tmp_path):
    nodes = ["P1", "P2"]
    y, labels = read_label_table(write(tmp_path, "l.csv", 'protein,labels\nP1,"DNA repair, double-strand"\n'
                                                          'P2,"A B"\n'), nodes)
    assert labels == ["A B", "DNA repair, double-strand"] and y.tolist() == [[0, 1], [1, 0]]
    with pytest.raises(MalformedFileError, match=r"m\.csv:2: a double quote opens a field"):
        read_label_table(write(tmp_path, "m.csv", 'P1,x\nP2,"y\n'), nodes)
    with pytest.raises(MalformedFileError, match=r"b\.csv:2: expected 'node label \[label \.\.\.\]', found 'P2,' "
                                                 r"\(a node without labels: leave it out of the table\)"):
        read_label_table(write(tmp_path, "b.csv", "P1,x\nP2,\n"), nodes)
    # a node list's first field, whatever the separator; its header detected from the first field
    assert read_node_list(write(tmp_path, "n.csv", 'protein,description\nG0,kinase\nG1,"a, b"\n')) == ["G0", "G1"]
    assert read_node_list(write(tmp_path, "n.tsv", "protein\tlength\nG1\t300\nNEW 1\t20\n")) == ["G1", "NEW 1"]
    assert read_node_list(write(tmp_path, "n.txt", "G0 kinase\nG1\n")) == ["G0", "G1"]
    # commas in some names only are not columns
    assert read_node_list(write(tmp_path, "m.txt", "P1 kinase, putative\nP2 transporter\n")) == ["P1", "P2"]
    assert read_node_list(write(tmp_path, "c.txt", "1,3-bisphosphoglycerate\nglucose\n")) == [
        "1,3-bisphosphoglycerate", "glucose"]
    with pytest.raises(MalformedFileError, match=r"e\.csv:2: the line's first field \(the node name\) is empty"):
        read_node_list(write(tmp_path, "e.csv", "G0,x\n,y\n"))


def test_header_words_with_a_last_capital_or_digit_and_ids_with_inner_digits():
    for field in ("GeneA", "ProteinB", "preferred_name_A", "Interactor B", "protein1", "UniProtKB", "stringId_A",
                  "protein_1", "gene_1", "Gene 2", "Interactor_1", "biomass.flow", "sourceTaxonName",
                  "interactionTypeName", "targetTaxonId"):
        assert is_header_word(field), field
    for field in ("orf19.101", "YAL001C", "Daphnia", "A", "x1y", "9606.ENSP00000000233", "ncbiTaxonId"):
        assert not is_header_word(field), field


def test_a_damaged_or_cut_short_compressed_file_is_one_line_naming_it(tmp_path):
    """A download cut short, or a damaged gzip (``zlib.error``, not an OSError), in every reader and the STRING
    fast path: one MalformedFileError naming the file, not gzip's traceback."""
    rows = "".join(f"P{i} P{i + 1} 0.5\n" for i in range(5000)).encode()
    whole = gzip.compress(rows)
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(whole[:len(whole) // 2])
    damaged = tmp_path / "damaged.txt.gz"
    damaged.write_bytes(whole[:20] + bytes(b ^ 0x5A for b in whole[20:200]) + whole[200:])
    for path in (cut, damaged):
        with pytest.raises(MalformedFileError, match=rf"{path.name}: cannot decompress \(.*\); is the file truncated "
                                                     "or damaged\\? fetch it again"):
            read_edge_list(path)
    links = gzip.compress(b"protein1 protein2 combined_score\n" + "".join(
        f"9606.P{i} 9606.P{i + 1} 700\n" for i in range(5000)).encode())
    (tmp_path / "links.txt.gz").write_bytes(links[:len(links) // 2])
    with pytest.raises(MalformedFileError, match=r"links\.txt\.gz: cannot decompress"):
        read_string_links(tmp_path / "links.txt.gz")


def test_a_whitespace_label_table_with_comma_joined_labels(tmp_path, caplog):
    """'P1 GO:1,GO:2': whitespace columns (the comma is not the separator there: no first field is read as
    'P1 GO:1'), the comma joining two labels, said on stderr."""
    y, labels = read_label_table(write(tmp_path, "l.txt", "P1 GO:1,GO:2\nP2 GO:3\n"), ["P1", "P2"])
    assert labels == ["GO:1", "GO:2", "GO:3"] and y.tolist() == [[1, 1, 0], [0, 0, 1]]
    assert "joined by ';' or '|' (or ',': the columns are separated by whitespace)" in caplog.text
    y, labels = read_label_table(write(tmp_path, "l.csv", "P1,GO:1\nP2,GO:3\n"), ["P1", "P2"])
    assert labels == ["GO:1", "GO:3"]


def test_a_file_error_raised_in_a_worker_process_reaches_the_parent_as_itself():
    """jobs > 1: a MalformedFileError raised in a worker is pickled back; it used to fail to unpickle (a
    BrokenProcessPool traceback instead of the one line)."""
    import pickle

    from gatbio.parallel import parallel_map

    err = pickle.loads(pickle.dumps(MalformedFileError("web/1_edge_list.txt", 3, "expected 2 columns")))
    assert isinstance(err, MalformedFileError) and (err.path, err.line) == ("web/1_edge_list.txt", 3)
    assert str(err) == "web/1_edge_list.txt:3: expected 2 columns"
    with pytest.raises(MalformedFileError, match=r"^bad\.txt:2: no such thing$"):
        parallel_map(_raise_file_error, [(1,), (2,)], jobs=2, progress=False)


def _raise_file_error(k):
    if k == 2:
        raise MalformedFileError("bad.txt", 2, "no such thing")
    return k


def test_first_few_names_the_rest_by_count():
    assert first_few(["a", "b", "c"], 3) == "a, b, c"
    assert first_few([1, 2, 3, 4, 5], 2) == "1, 2 and 3 more"
    assert first_few(["x: 1", "y: 2", "z: 3"], 1, sep="; ") == "x: 1; and 2 more"
    assert first_few([], 4) == ""


@pytest.mark.parametrize("reader", [
    lambda p: read_edge_list(p), lambda p: read_label_table(p, ["a", "b"]), lambda p: data_head(p),
    lambda p: read_foodweb_file(p), lambda p: read_sequences(p),
])
def test_archives_are_named_not_read_as_undecodable_text(tmp_path, reader):
    """A zip (or an .xlsx workbook, which is one) or a Zstandard file was 'not utf-8 text (byte ...); is it a
    spreadsheet or a binary file?'; a zip that stores its text uncompressed even decoded as text."""
    import zipfile

    p = tmp_path / "edges.zip"
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr("edges.txt", "a b\nb a\n")
    with pytest.raises(MalformedFileError, match=r"edges\.zip: a zip archive \(an Excel \.xlsx workbook is one too"):
        reader(p)
    p = tmp_path / "edges.txt.zst"
    p.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(range(200, 256)))
    with pytest.raises(MalformedFileError, match=r"Zstandard-compressed \(unzstd FILE\), not text.*unpack it first"):
        reader(p)


@pytest.mark.parametrize("sep", [" ", "\t", ","])
def test_a_no_break_or_zero_width_space_ending_a_name_is_not_another_species(tmp_path, sep):
    """'rabbit\\xa0' (a name pasted from a web page) was another species than 'rabbit' in whitespace-separated
    files, whose parser splits on ASCII whitespace only: the chain fell apart, silently."""
    p = tmp_path / "w.txt"
    p.write_text(f"grass{sep}rabbit\u00a0\n\u200bgrass{sep}fox\nrabbit{sep}fox\u200b\n", encoding="utf-8")
    d = read_edge_list(p)
    assert d.node_names == ["grass", "rabbit", "fox"] and d.num_edges == 3


def test_rows_of_empty_fields_a_spreadsheet_saved_are_blank_lines(tmp_path):
    """Excel saves the empty rows under a table as ',,,': read as a link with an empty source, they stopped the
    file ('source (column 1) is empty'); they hold nothing, as blank lines do."""
    text, lines = data_lines("a,b,,\r\n,,,\r\nc,d,,\r\n;;\n  ,  \n", "#")
    assert text.split("\n") == ["a,b,,\r", "c,d,,\r"] and lines.tolist() == [1, 3]
    assert data_lines(",,,\n,,\n", "#")[0] == ""
    p = tmp_path / "web.csv"
    p.write_text("prey,predator\r\ngrass,rabbit\r\n,\r\nrabbit,fox\r\n,\r\n")
    assert read_edge_list(p).num_edges == 2


def test_a_header_naming_a_column_twice_is_refused_where_it_is(tmp_path):
    """pandas keeps both columns under one name, and df[name] is then a table: a TypeError or AttributeError (or a
    Series printed in a message) far from the file. Empty names (a spreadsheet's trailing columns) may repeat."""
    from gatbio.data.tables import read_table

    p = tmp_path / "t.csv"
    p.write_text("node,M,M\ngrass,0.1,1\nrabbit,2,1\n")
    with pytest.raises(MalformedFileError, match=r"t\.csv:1: column 'M' appears twice in the header \(columns 2 and "
                                                 r"3\): rename one"):
        read_table(p, sep=",", header=True)
    p.write_text("# exported\nnode,M,,\ngrass,0.1,,\nrabbit,2,,\n")
    assert read_table(p, sep=",", header=True).df.shape == (2, 4)


def test_a_trait_column_of_r_logicals_reads_as_one_and_zero(tmp_path):
    """R writes logical columns as TRUE / FALSE (NA where missing): refused before as 'must be a number'."""
    p = tmp_path / "t.csv"
    p.write_text("species,mass,parasite\na,1,FALSE\nb,2,TRUE\nc,3,NA\nd,4,true\n")
    values, names, _ = read_species_traits(p, ["a", "b", "c", "d"])
    assert names == ["mass", "parasite"]
    np.testing.assert_array_equal(values[:, 1], [0, 1, np.nan, 1])
    p.write_text("species,mass,parasite\na,1,FALSE\nb,2,maybe\n")  # not a logical column: still an error
    with pytest.raises(MalformedFileError, match=r"t\.csv:2: trait 'parasite' must be a number, found 'FALSE'"):
        read_species_traits(p, ["a", "b"])


def test_an_edge_list_named_like_a_pajek_file_is_told_the_format(tmp_path):
    from gatbio.data.io import read_pajek

    p = tmp_path / "w.net"
    p.write_text("grass rabbit\nrabbit fox\n")
    with pytest.raises(MalformedFileError, match=r"w\.net:1: data line outside any section: 'grass rabbit' \(a Pajek "
                                                 r"file starts with \*Vertices or \*Network; an edge list named \.net "
                                                 r"or \.paj reads with --format edgelist\)"):
        read_pajek(p)
