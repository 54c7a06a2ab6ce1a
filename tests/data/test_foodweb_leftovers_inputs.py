"""Food-web inputs: a note said once per file (a Pajek flow web's vertices without a line), control characters in
names refused at their line, a GATEWAy node table's missing row named with both files, and the cheddar page's
trait columns per web."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gatbio.cli import main
from gatbio.data import load
from gatbio.data.foodweb import read_cheddar, read_gateway_web, read_species_traits
from gatbio.data.io import MalformedFileError, read_edge_list, read_pajek, read_sif
from gatbio.data.sources import CHEDDAR_WEBS
from gatbio.ecology.commands import read_foodweb_file

FLOW_WEB = """*partition ECO types
*vertices 5
1
1
1
2
5
*network w
*vertices 5
1 "grass"
2 "rabbit"
3 "fox"
*arcs
1 2 1.0
2 3 2.0
1 4 0.3
3 5 1.0
*vector bio-masses
*vertices 5
1
2
3
4
5
"""


# ---------------------------------------------------------------- a note once per file


def test_a_flow_webs_vertex_note_is_said_once(tmp_path, caplog, capsys):
    """The Pajek reader said 'vertices of *vertices have no line' twice for a flow web (the file was parsed once
    to see its sections, then again by the flow-web reader)."""
    web = tmp_path / "flow.paj"
    web.write_text(FLOW_WEB)
    caplog.set_level("WARNING", logger="gatbio.data")
    d = read_foodweb_file(web)
    assert d.node_names == ["grass", "rabbit", "fox", "4"]
    assert caplog.text.count("2 of the 5 vertices of *vertices have no line") == 1
    caplog.clear()
    assert main(["trophic", str(web)]) == 0
    assert (capsys.readouterr().err + caplog.text).count("vertices of *vertices have no line") == 1


# ---------------------------------------------------------------- control characters in names


def _collection(tmp_path: Path, names: list[str], edges: str = "0 1\n1 2\n") -> Path:
    """A GATEWAy collection (web_index.csv, node_ids.csv, webs/Pond_7/7_edge_list.txt); returns the web folder."""
    root = tmp_path / "coll"
    web = root / "webs" / "Pond_7"
    web.mkdir(parents=True)
    (web / "7_edge_list.txt").write_text(edges)
    (root / "web_index.csv").write_text(f"web_id,web_name,data_dir,n_nodes,n_links\n7,pond,Pond_7,{len(names)},2\n")
    (root / "node_ids.csv").write_bytes(("," + "web_name,node_name,node_id\n" + "".join(
        f"{k + 1},pond,{x},{k}\n" for k, x in enumerate(names))).encode())
    return web


@pytest.mark.parametrize("name,text,read,line", [
    ("web.txt", "grass rabbit\nrab\x00bit fox\n", read_foodweb_file, 2),
    ("web.csv", "prey,predator\ngrass,rabbit\nrab\x00bit,fox\n", read_foodweb_file, 3),
    ("web.tsv", "# links\ngrass\trab\x00bit\n", lambda p: read_edge_list(p), 2),
    ("web.net", '*Vertices 2\n1 "rab\x00bit"\n2 "fox"\n*Arcs\n1 2\n', read_foodweb_file, 2),
    ("web.sif", "grass eats rab\x00bit\n", lambda p: read_sif(p), 1),
    ("traits.csv", "species,mass\ngrass,1\nrab\x00bit,2\n", lambda p: read_species_traits(p, ["grass", "rabbit"]),
     3),
])
def test_a_nul_byte_in_a_species_name_is_refused_at_its_line(tmp_path, name, text, read, line):
    """A NUL byte in a name was read into it ('rab\\x00bit', shown 'rab bit': another species than 'rabbit')."""
    path = tmp_path / name
    path.write_bytes(text.encode())
    with pytest.raises(MalformedFileError, match=rf"{re.escape(name)}:{line}: 'rab\\x00bit' holds a control "
                                                 r"character \(U\+0000, NUL\), which no name or value has: delete "
                                                 r"it \(NUL bytes come from a damaged or binary file"):
        read(path)


@pytest.mark.parametrize("char,code", [("\x1f", "U+001F"), ("\x1b", "U+001B, ESC"), ("\x7f", "U+007F, DEL"),
                                       ("\x85", "U+0085"), ("\x0c", "U+000C")])
def test_other_control_characters_are_refused_too(tmp_path, char, code):
    path = tmp_path / "web.csv"
    path.write_text(f"prey,predator\ngrass,rabbit\nrabbit,fox{char}\n")
    with pytest.raises(MalformedFileError, match=rf"web\.csv:3: 'fox\\x[0-9a-f]{{2}}' holds a control character "
                                                 rf"\({re.escape(code)}\)"):
        read_foodweb_file(path)


def test_control_characters_in_cheddar_and_gateway_names_are_refused(tmp_path):
    web = tmp_path / "web"
    web.mkdir()
    (web / "nodes.csv").write_text("node\ngrass\nrab\x00bit\n")
    (web / "trophic.links.csv").write_text("resource,consumer\ngrass,rab\x00bit\n")
    with pytest.raises(MalformedFileError, match=r"nodes\.csv:3: 'rab\\x00bit' holds a control character"):
        read_cheddar(web)
    pond = _collection(tmp_path, ["grass", "rab\x00bit", "fox"])
    with pytest.raises(MalformedFileError, match=r"node_ids\.csv:3: 'rab\\x00bit' holds a control character"):
        read_foodweb_file(pond)
    (pond / "7_node_attr_list.txt").write_text("id log_mass\n0 1\n1 2\x00\n2 3\n")
    with pytest.raises(MalformedFileError, match=r"7_node_attr_list\.txt:3: '2\\x00' holds a control character"):
        read_gateway_web(pond)


def test_tabs_line_ends_and_a_latin1_pajek_files_letters_are_not_control_characters(tmp_path):
    crlf = tmp_path / "web.tsv"
    crlf.write_bytes(b"grass\trabbit\r\nrabbit\tfox\r\n")
    assert read_edge_list(crlf).node_names == ["grass", "rabbit", "fox"]
    latin = tmp_path / "web.net"  # Windows-1252 text, read as Latin-1: its en dash is U+0096 there
    latin.write_bytes(b'*Vertices 2\n1 "grass \x96 sedge"\n2 "caf\xe9"\n*Arcs\n1 2\n')
    assert read_pajek(latin).network()["node_names"] == ["grass \x96 sedge", "caf\xe9"]


def test_a_nul_byte_on_the_command_line_is_one_line_with_status_1(tmp_path, capsys):
    path = tmp_path / "web.txt"
    path.write_bytes(b"grass rabbit\nrab\x00bit fox\n")
    assert main(["trophic", str(path)]) == 1
    err = capsys.readouterr().err
    assert "web.txt:2: 'rab\\x00bit' holds a control character (U+0000, NUL)" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------- a GATEWAy node table's missing row


def _gateway(tmp_path: Path, edges: str, attrs: str) -> Path:
    web = tmp_path / "Pond_7"
    web.mkdir()
    (web / "7_edge_list.txt").write_text(edges)
    (web / "7_node_attr_list.txt").write_text(attrs)
    return web


def test_a_row_left_out_of_the_node_table_is_named_there_with_the_edge_lists_line(tmp_path):
    """Ids 0, 1, 3: the row of id 2 is missing. It was reported at the edge list's line of id 3, as if the table's
    3 rows were ids 0..2."""
    web = _gateway(tmp_path, "0 1\n1 2\n2 3\n", "id log_mass\n0 1\n1 2\n3 3\n")
    with pytest.raises(MalformedFileError) as err:
        read_gateway_web(web)
    msg = str(err.value)
    assert msg.startswith(f"{web / '7_node_attr_list.txt'}:4: the node table has no row for node id 2: this row has "
                          "id 3")
    assert f"and {web / '7_edge_list.txt'} uses node id 2 (line 2): add the row for node id 2 before this line" in msg
    assert "ids 0..2" not in msg


def test_an_id_beyond_the_node_table_names_both_files_and_the_ids_to_add(tmp_path):
    web = _gateway(tmp_path, "0 1\n1 5\n", "id log_mass\n0 1\n1 2\n2 3\n")
    with pytest.raises(MalformedFileError) as err:
        read_gateway_web(web)
    table = web / "7_node_attr_list.txt"
    assert str(err.value) == (f"{web / '7_edge_list.txt'}:2: node id 5 is not a species of the web: it has no row in "
                              f"the node table {table} (its rows are the web's species: 3 rows, ids 0..2); add rows "
                              f"for node ids 3..5 to {table} (one row per species, ids 0..N-1 in order), or correct "
                              "the id")


# ---------------------------------------------------------------- the cheddar page's trait columns


PAGE = Path(__file__).resolve().parents[2] / "datasets" / "cheddar.md"


def _page_traits() -> dict[str, tuple[bool, bool, bool, str]]:
    """The page's table of trait columns per web: web -> (category, M, N, traits)."""
    rows = {}
    text = PAGE.read_text()
    after = text.split("### Trait columns per web", 1)[1].splitlines()[1:]
    table = after[next(k for k, x in enumerate(after) if x.startswith("|")):]
    for line in table[:next((k for k, x in enumerate(table) if not x.startswith("|")), len(table))]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[0].startswith("`"):
            continue
        for web in re.findall(r"`([^`]+)`", cells[0]):
            rows[web] = (cells[1] == "yes", cells[2] == "yes", cells[3] == "yes", cells[4])
    return rows


def test_the_cheddar_page_says_chesapeake_bay_has_no_trait_columns():
    text = PAGE.read_text()
    assert "**ChesapeakeBay has no trait columns**" in text
    assert _page_traits()["ChesapeakeBay"] == (False, False, False, "none")


def test_the_cheddar_pages_trait_table_matches_the_data(data_root):
    rows = _page_traits()
    for web in CHEDDAR_WEBS:
        key = web if web in rows else f"{web.split('/')[0]}/*"
        category, mass, abundance, shown = rows[key]
        d = load(f"cheddar/{web}", root=data_root)
        names = d.trait_names
        assert (any(t.startswith("cat_") for t in names), "log10_M" in names, "log10_N" in names) == \
            (category, mass, abundance), web
        cats = sum(t.startswith("cat_") for t in names)
        assert (shown == "none") == (d.x.shape[1] == 0), web
        if cats:
            assert shown.startswith(f"{cats} `cat_*`"), web
