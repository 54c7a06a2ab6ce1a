"""``gatbio trophic``: a table without a header row says, once, which column it read as the prey (resource) and
which as the predator (consumer), and how to read them otherwise."""

from __future__ import annotations

import pytest

from gatbio.cli import main
from gatbio.ecology.commands import read_foodweb_file

NOTE = "no header row: column {prey} read as the prey (resource) and column {predator} as the predator (consumer)"


@pytest.fixture
def notes(caplog):
    caplog.set_level("WARNING", logger="gatbio.data")
    return caplog


@pytest.mark.parametrize("name,text", [("web.txt", "grass rabbit\nrabbit fox\n"),
                                       ("web.csv", "grass,rabbit,2\nrabbit,fox,1\n"),
                                       ("web.tsv", "grass\trabbit\nrabbit\tfox\n")])
def test_a_headerless_table_says_which_column_is_the_prey_and_which_the_predator(tmp_path, notes, name, text):
    path = tmp_path / name
    path.write_text(text)
    d = read_foodweb_file(path)
    assert [(d.node_names[a], d.node_names[b]) for a, b in d.edge_index.t().tolist()] == [("grass", "rabbit"),
                                                                                          ("rabbit", "fox")]
    said = NOTE.format(prey=1, predator=2)
    assert notes.text.count(said) == 1
    assert "e.g. line 1: 'rabbit' eats 'grass' (--direction predator-prey reads them the other way; " \
           "--source/--target choose other columns, or add a header line naming them, such as 'prey predator')" \
           in notes.text


def test_the_note_follows_direction_and_the_columns_chosen(tmp_path, notes):
    path = tmp_path / "web.txt"
    path.write_text("# predator first\nfox rabbit\nrabbit grass\n")
    read_foodweb_file(path, direction="predator-prey")
    assert NOTE.format(prey=2, predator=1) + " of each link, e.g. line 2: 'fox' eats 'rabbit' (the default " \
                                             "--direction prey-predator reads them the other way" in notes.text
    notes.clear()
    wide = tmp_path / "wide.csv"
    wide.write_text("x1,grass,rabbit\nx2,rabbit,fox\n")
    read_foodweb_file(wide, source="2", target="3")  # both chosen: nothing to say about them
    assert "no header row" not in notes.text
    read_foodweb_file(wide, target="2", weight=None)  # the prey by position (column 1), the predator chosen
    assert ("wide.csv: no header row: column 1 taken for the prey (resource) of each link, by position, beside "
            "column 2, the predator (consumer) by --target, e.g. line 1: 'grass' eats 'x1' (--direction "
            "predator-prey reads them the other way; --source/--target choose other columns, or add a header line "
            "naming them, such as 'prey predator')") in notes.text
    assert NOTE.format(prey=1, predator=2) not in notes.text  # not "read as the prey" as if nothing was chosen
    notes.clear()
    read_foodweb_file(wide, source="2", weight=None)  # the prey chosen, the predator by position (column 1)
    assert "no header row: column 1 taken for the predator (consumer) of each link, by position, beside column 2, " \
           "the prey (resource) by --source, e.g. line 1: 'x1' eats 'grass'" in notes.text


def test_a_table_with_a_header_or_another_format_says_nothing_of_the_kind(tmp_path, notes):
    header = tmp_path / "web.csv"
    header.write_text("resource,consumer\ngrass,rabbit\n")
    read_foodweb_file(header)
    plain = tmp_path / "plain.txt"
    plain.write_text("grass rabbit\nrabbit fox\n")
    read_foodweb_file(plain, header=True)  # forced: line 1 names the columns
    gateway = tmp_path / "Pond_7"
    gateway.mkdir()
    (gateway / "7_edge_list.txt").write_text("0 1\n1 2\n")  # GATEWAy's layout says the order
    read_foodweb_file(gateway)
    assert "no header row" not in notes.text


def test_the_command_line_says_it_once(tmp_path, capsys, notes):
    path = tmp_path / "web.txt"
    path.write_text("grass rabbit\nrabbit fox\n")
    assert main(["trophic", str(path)]) == 0
    assert (capsys.readouterr().err + notes.text).count("no header row: column 1 read as the prey") == 1


def test_a_row_of_separators_only_names_no_unread_column(tmp_path, notes):
    """',,' is a blank line (the reader skips it); its three empty fields said 'column 3 not read'."""
    path = tmp_path / "web.csv"
    path.write_text("prey,predator\nalgae,fish\n,,\nfish,bird\n")
    d = read_foodweb_file(path)
    assert d.num_edges == 2
    assert "not read" not in notes.text
