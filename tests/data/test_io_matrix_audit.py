"""Audit of the adjacency-matrix, Pajek and node-list readers on small real-looking files a user would write:
each test is a defect that was found (the web read wrong or refused with a message that did not say why)."""

from __future__ import annotations

import pytest
from conftest import write

from gatbio.data.io import (
    MalformedFileError,
    read_adjacency_matrix,
    read_node_list,
    read_pajek,
    read_pajek_network,
)


def eats(d):
    """``(predator, prey)`` pairs of a prey -> predator web."""
    return sorted((d.node_names[b], d.node_names[a]) for a, b in d.edge_index.t().tolist())


# ---------------------------------------------------------------- adjacency matrices

FRAMED = "0 1 2 3\n1 0 1 0\n2 0 0 1\n3 0 0 0\n"  # numpy.savetxt of a matrix framed by its species ids


def test_a_matrix_framed_by_ids_with_a_number_in_the_corner_is_not_read_as_links(tmp_path):
    """The ids were read as entries: a web of 4 species where species '0' ate 1, 2 and 3 and was eaten by them."""
    p = write(tmp_path, "framed.txt", FRAMED)
    with pytest.raises(MalformedFileError, match=r"framed\.txt:1: '0 1 2 3' looks like species ids \(1, 2, 3\) above "
                                                 r"rows that start with the same ids, with a number \('0'\) in the "
                                                 r"corner cell.*--header \(header=True\).*--no-header"):
        read_adjacency_matrix(p, convention="row_to_col")
    named = read_adjacency_matrix(p, convention="row_to_col", header=True)  # the user says: names
    assert named.node_names == ["1", "2", "3"] and eats(named) == [("2", "1"), ("3", "2")]
    entries = read_adjacency_matrix(p, convention="row_to_col", header=False)  # the user says: entries
    assert entries.num_nodes == 4


def test_a_symmetric_matrix_without_names_is_still_read_as_entries(tmp_path):
    """The ids check does not take a symmetric 0/1 matrix (first row = first column) for ids."""
    d = read_adjacency_matrix(write(tmp_path, "s.txt", "0 1 0 1\n1 0 1 0\n0 1 0 1\n1 0 1 0\n"),
                              convention="row_to_col")
    assert d.num_nodes == 4 and d.num_edges == 8


@pytest.mark.parametrize("text", [
    ",grass,rabbit,fox,\ngrass,0,1,0,\nrabbit,0,0,1,\nfox,0,0,0,\n",  # every line, the header's too
    "grass,rabbit,fox,\ngrass,0,1,0,\nrabbit,0,0,1,\nfox,0,0,0,\n",  # no corner cell
    ",grass,rabbit,fox\ngrass,0,1,0,\nrabbit,0,0,1,\nfox,0,0,0,\n",  # the rows only
    "grass,rabbit,fox,\n0,1,0,\n0,0,1,\n0,0,0,\n",  # column names only
    "grass,rabbit,fox,\n0,1,0\n0,0,1\n0,0,0\n",  # the header only: its names were dropped, species named 0, 1, 2
    ",1,2,3,\n1,0,1,0,\n2,0,0,1,\n3,0,0,0,\n",  # numbers as names
])
def test_a_separator_ending_every_row_is_not_a_column(tmp_path, caplog, text):
    """'expected a square matrix, found 3 rows x 4 columns' (no line, no fix) for a file whose lines end with the
    separator, as some exports write; or (header only) the species lost their names."""
    d = read_adjacency_matrix(write(tmp_path, "web.csv", text, newline="\r\n"), convention="row_to_col", sep=",")
    names = ["1", "2", "3"] if "1," in text.split("\n")[0] else ["grass", "rabbit", "fox"]
    assert d.node_names == names
    assert eats(d) == sorted([(names[1], names[0]), (names[2], names[1])])  # the rabbit eats the grass
    if text.split("\n")[1].endswith(","):
        assert "web.csv: every row ends with a comma" in caplog.text


def test_a_semicolon_matrix_ending_every_row_with_a_semicolon(tmp_path):
    d = read_adjacency_matrix(write(tmp_path, "web.csv", ";grass;rabbit;\ngrass;0;1;\nrabbit;0;0;\n"),
                              convention="col_to_row", sep=";")
    assert d.node_names == ["grass", "rabbit"] and eats(d) == [("grass", "rabbit")]  # rows are predators


def test_a_matrix_without_names_says_how_its_species_are_named(tmp_path, caplog):
    """Species named by position from 0 (as gatbio.tasks names unnamed nodes), said in a note that maps them to
    the file's rows: before, nothing said whether '0' or '1' was the first row."""
    d = read_adjacency_matrix(write(tmp_path, "m.txt", "# a chain\n0 1 0\n0 0 1\n0 0 0\n"), convention="row_to_col")
    assert d.node_names == ["0", "1", "2"] and eats(d) == [("1", "0"), ("2", "1")]  # '1' (row 2) eats '0' (row 1)
    assert ("m.txt: no species names (no header row or first column of names): species are named by their "
            "position from 0, '0' for the first row and column (line 2) to '2' for row and column 3 (line 4)") \
        in caplog.text
    caplog.clear()
    read_adjacency_matrix(write(tmp_path, "n.csv", ",a,b\na,0,1\nb,0,0\n"), convention="row_to_col", sep=",")
    assert "no species names" not in caplog.text


def test_numeric_row_names_in_another_order_are_refused_as_such(tmp_path):
    """Row names 2, 1, 3 below column names 1, 2, 3: the header was read as a row of entries and the message was
    'line 1: column 1: the entry is empty (write 0 for no link)', about the corner cell."""
    p = write(tmp_path, "m.csv", ",1,2,3\n2,0,0,1\n1,0,1,0\n3,0,0,0\n")
    with pytest.raises(MalformedFileError, match=r"m\.csv:2: row and column names differ: row 1 \(this line\) is "
                                                 r"'2', column 1 \(line 1\) is '1'.*the same species in another "
                                                 r"order: sort the rows as the columns"):
        read_adjacency_matrix(p, convention="row_to_col", sep=",")


@pytest.mark.parametrize("convention", ["row_to_col", "col_to_row"])
def test_named_rows_in_another_order_are_never_permuted_or_transposed(tmp_path, convention):
    p = write(tmp_path, "m.csv", ",grass,rabbit,fox\nrabbit,0,0,1\ngrass,0,1,0\nfox,0,0,0\n")
    with pytest.raises(MalformedFileError, match=r"m\.csv:2: row and column names differ: row 1 \(this line\) is "
                                                 r"'rabbit', column 1 \(line 1\) is 'grass'"):
        read_adjacency_matrix(p, convention=convention, sep=",")


def test_both_conventions_say_who_eats_whom_with_weights(tmp_path):
    p = write(tmp_path, "m.csv", ",grass,rabbit,fox\ngrass,0,2,0\nrabbit,0,0,3\nfox,0,0,0\n")
    prey_rows = read_adjacency_matrix(p, convention="row_to_col", sep=",", weighted=True)  # A[i, j]: j eats i
    assert eats(prey_rows) == [("fox", "rabbit"), ("rabbit", "grass")]
    assert dict(zip(eats(prey_rows), sorted(prey_rows.edge_weight.tolist(), reverse=True), strict=True)) == \
        {("fox", "rabbit"): 3.0, ("rabbit", "grass"): 2.0}
    predator_rows = read_adjacency_matrix(p, convention="col_to_row", sep=",", weighted=True)  # A[i, j]: i eats j
    assert eats(predator_rows) == [("grass", "rabbit"), ("rabbit", "fox")]
    w = {(predator_rows.node_names[b], predator_rows.node_names[a]): x
         for (a, b), x in zip(predator_rows.edge_index.t().tolist(), predator_rows.edge_weight.tolist(), strict=True)}
    assert w == {("grass", "rabbit"): 2.0, ("rabbit", "fox"): 3.0}


@pytest.mark.parametrize("name,text,kw,msg", [
    ("m.csv", ",a,b,c\na,0,1,0\nb,0,0,1\nc,0,0,0\n", {},
     r"m\.csv: expected a square matrix, found 4 rows x 1 columns: line 1 holds a comma; is that the separator\? "
     r"\(pass sep=','\)"),
    ("m.csv", ",a,b,c\na,0,1,0\nb,0,0,1\n", {"sep": ","},
     r"m\.csv: expected a square matrix, found 2 rows x 3 columns; with a column and no row: c \(each species"),
    ("m.txt", "1 2 3\n0 1 0\n0 0 1\n0 0 0\n", {},
     r"m\.txt: expected a square matrix, found 4 rows x 3 columns: is line 1 a row of column names\? pass --header"),
    ("m.txt", "1 0 1 0\n2 0 0 1\n3 0 0 0\n", {},
     r"m\.txt: expected a square matrix, found 3 rows x 4 columns: is column 1 a column of row names \(line 1 starts "
     r"with '1'\)\? pass index_col=True"),
    ("m.csv", ",#a,b\n#a,0,1\nb,0,0\n", {"sep": ","},
     r"m\.csv: expected a square matrix, found 1 rows x 2 columns; 2 line\(s\) starting with '#' were skipped as "
     r"comments \(the first: line 1"),
])
def test_a_matrix_that_is_not_square_says_what_it_may_be(tmp_path, name, text, kw, msg):
    """The message gave the shape only: the wrong separator (the API's default is whitespace), a species without
    its column, a header row or a names column read as entries, rows skipped as comments were not named."""
    with pytest.raises(MalformedFileError, match=msg):
        read_adjacency_matrix(write(tmp_path, name, text), convention="row_to_col", **kw)


# ---------------------------------------------------------------- Pajek

WEB = '*Vertices 3\n1 "grass"\n2 "rabbit"\n3 "red fox"\n*Arcs\n1 2\n2 3\n'


def test_pajek_keywords_followed_by_a_tab(tmp_path):
    """'*Vertices<TAB>3' was 'unknown section '*Vertices''."""
    d = read_pajek_network(write(tmp_path, "web.net", WEB.replace("*Vertices ", "*Vertices\t").replace(" ", "\t")
                                 .replace('"red\tfox"', '"red fox"'), newline="\r\n"))
    assert d.node_names == ["grass", "rabbit", "red fox"] and eats(d) == [("rabbit", "grass"), ("red fox", "rabbit")]


def test_a_second_vertices_section_does_not_replace_the_web(tmp_path):
    """Two .net files pasted into one: the second *Vertices replaced the first network's vertices and arcs, without
    a word (3 species named '1', '2', '3' and no link)."""
    p = write(tmp_path, "two.net", WEB + '*Vertices 2\n1 "algae"\n2 "snail"\n*Arcs\n1 2\n')
    with pytest.raises(MalformedFileError, match=r"two\.net:8: a second \*vertices section in network 'two' \(its "
                                                 r"\*vertices is on line 1\).*'\*Network name'"):
        read_pajek(p)
    ok = read_pajek(write(tmp_path, "two.paj", "*Network a\n" + WEB + '*Network b\n*Vertices 2\n1 "algae"\n'
                                                                      '2 "snail"\n*Arcs\n1 2\n'))
    assert list(ok.networks) == ["a", "b"] and ok.networks["b"]["node_names"] == ["algae", "snail"]


def test_two_networks_of_one_name_are_refused(tmp_path):
    """The second network replaced the first in the project, without a word."""
    p = write(tmp_path, "p.paj", "*Network web\n" + WEB + '*Network web\n*Vertices 2\n1 "algae"\n2 "snail"\n*Arcs\n1 2\n')
    with pytest.raises(MalformedFileError, match=r"p\.paj:9: a second network named 'web' \(the first starts on line "
                                                 r"1\): give each \*Network of a project its own name"):
        read_pajek(p)


# ---------------------------------------------------------------- node lists


def test_a_semicolon_node_table_names_its_first_column(tmp_path):
    """'TP53;kinase' (a spreadsheet's CSV where the comma is the decimal mark) was read as the name 'TP53;kinase',
    which a command then added to the network as a protein without interactions."""
    p = write(tmp_path, "nodes.csv", "protein;function;score\nTP53;tumour suppressor;0,9\nMDM2;E3 ligase;0,5\n")
    assert read_node_list(p) == ["TP53", "MDM2"]
    assert read_node_list(write(tmp_path, "n.txt", "1,3-bisphosphoglycerate\nATP\n")) == \
        ["1,3-bisphosphoglycerate", "ATP"]  # a comma in a name, no separator


def test_a_whitespace_matrix_with_a_quoted_name_in_its_header(tmp_path):
    """pandas reads the rows of a whitespace table with CSV quoting; the header was split at every space, so
    '"Daphnia pulex"' of the header became 'pulex"' and the matrix was refused for names that differ."""
    path = tmp_path / "web.txt"
    path.write_text('"Daphnia pulex" algae fish\n"Daphnia pulex" 0 0 1\nalgae 1 0 0\nfish 0 0 0\n')
    d = read_adjacency_matrix(path, convention="row_to_col")
    names = d.node_names
    assert names == ["Daphnia pulex", "algae", "fish"]
    assert sorted((names[a], names[b]) for a, b in d.edge_index.t().tolist()) == [("Daphnia pulex", "fish"),
                                                                                  ("algae", "Daphnia pulex")]


def test_whitespace_fields_split_as_pandas_reads_them():
    from gatbio.data.tables import split_fields

    assert split_fields('"Daphnia pulex" algae fish', r"\s+") == ["Daphnia pulex", "algae", "fish"]
    assert split_fields('"x ""y""" z', r"\s+") == ['x "y"', "z"]
    assert split_fields('a"b c', r"\s+") == ['a"b', "c"]  # a quote inside a word is part of it
    assert split_fields("grass  rabbit\t2", r"\s+") == ["grass", "rabbit", "2"]
