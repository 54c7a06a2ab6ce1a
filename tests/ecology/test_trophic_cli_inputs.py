"""``gatbio trophic FILE``: options that do not apply to what FILE is are refused, and files of another format are
named as such (a Pajek flow web, a small matrix without names, a Pajek file named .txt, a bare collection name)."""

from __future__ import annotations

import pandas as pd
import pytest

from gatbio.cli import main

#: A SCOR flow web in Pajek (as Ulanowicz's files are): an ECO types partition (1 living, 2 non-living, 3 input),
#: flows from prey to predator; the feeding arcs are grass -> rabbit and detritus -> rabbit.
FLOW_WEB = """% a tiny flow web
*partition ECO types / tiny
*vertices 4
1
1
2
3
*network tiny
*vertices 4
1 "grass"
2 "rabbit"
3 "detritus"
4 "import"
*arcs
1 2 5.0
3 2 0.5
4 1 2.0
*vector bio-masses / tiny
*vertices 4
10
2
5
0
"""

PLAIN_PAJEK = '*Vertices 3\n1 "grass"\n2 "rabbit"\n3 "fox"\n*Arcs\n1 2\n2 3\n'


def _levels(tmp_path, capsys, *argv) -> dict:
    out = tmp_path / "levels.csv"
    assert main(["trophic", *map(str, argv), "--csv", str(out)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    return pd.read_csv(out).set_index("species")["trophic_level"].to_dict()


def _error(capsys, *argv) -> str:
    assert main(["trophic", *map(str, argv)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


# 1. a Pajek flow web lists its arcs prey -> predator: --direction would turn it upside down

def test_a_pajek_flow_web_refuses_direction(tmp_path, capsys):
    web = tmp_path / "tiny.paj"
    web.write_text(FLOW_WEB)
    assert _levels(tmp_path, capsys, web) == {"grass": 1.0, "rabbit": 2.0, "detritus": 1.0}
    err = _error(capsys, web, "--direction", "predator-prey")
    assert "--direction predator-prey: " in err and "a Pajek flow web (an ECO types partition" in err
    assert "leave them out" in err
    # the same file under another name, read with --format pajek
    txt = tmp_path / "tiny.txt"
    txt.write_text(FLOW_WEB)
    assert "a Pajek flow web" in _error(capsys, txt, "--format", "pajek", "--direction", "predator-prey")


def test_a_plain_pajek_file_still_takes_direction(tmp_path, capsys):
    web = tmp_path / "chain.net"
    web.write_text('*Vertices 3\n1 "fox"\n2 "rabbit"\n3 "grass"\n*Arcs\n1 2\n2 3\n')  # predator first
    assert _levels(tmp_path, capsys, web, "--direction", "predator-prey") == {"fox": 3.0, "rabbit": 2.0,
                                                                               "grass": 1.0}


# 2. a 3 x 3 adjacency matrix without names is not an edge list

@pytest.mark.parametrize("name, text", [
    ("adj.csv", "0,1,0\n0,0,1\n0,0,0\n"),  # row_to_col chain: 0/1, zero diagonal
    ("adj.txt", "0 0 0\n1 0 0\n0 1 0\n"),  # col_to_row chain
    ("adj.tsv", "0\t1\t1\n0\t0\t1\n0\t0\t0\n"),  # omnivory
    ("w.txt", "0 0.5 0\n0 0 2.5\n0 0 0\n"),  # weighted: no species is numbered 0.5
    ("w3.txt", "0 3 0\n0 0 2\n0 0 0\n"),  # weighted with whole numbers: two links of weight 0
    ("w4.txt", "0 3 5\n0 0 2\n0 0 0\n"),  # ... a link (0, 0) listed twice
    ("z.txt", "0 1 0\n1 1 0\n1 0 0\n"),  # weights all 0 between species 0 and 1
])
def test_a_small_matrix_without_names_is_refused_as_an_edge_list(tmp_path, capsys, name, text):
    (tmp_path / name).write_text(text)
    err = _error(capsys, tmp_path / name)
    assert f"{name}: looks like an adjacency matrix (3 rows of 3 entries), not an edge list" in err
    assert "--format adjacency --convention row_to_col" in err


def test_the_small_matrix_read_as_a_matrix(tmp_path, capsys):
    (tmp_path / "adj.csv").write_text("0,1,0\n0,0,1\n0,0,0\n")
    assert sorted(_levels(tmp_path, capsys, tmp_path / "adj.csv", "--format", "adjacency",
                          "--convention", "row_to_col").values()) == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("text", [
    "1 2 0.5\n2 3 1\n1 3 0.2\n",  # species numbered from 1, weights
    "0 1 1\n1 2 1\n0 2 1\n",  # numbered from 0, 0/1 weights
    "0 1 2\n1 2 3\n2 3 1\n",
    "1 2 0\n2 3 1\n3 4 1\n",  # one link of weight 0
    "0 1\n1 2\n2 0\n",  # two columns
])
def test_genuine_three_line_edge_lists_of_numbered_species_are_read(tmp_path, capsys, text):
    web = tmp_path / "ids.txt"
    web.write_text(text)
    species = {x for line in text.splitlines() for x in line.split()[:2]}
    assert {str(s) for s in _levels(tmp_path, capsys, web)} == species


# 3. options that do not apply are refused, not ignored

def test_weight_column_refused_for_pajek_and_matrix(tmp_path, capsys):
    net = tmp_path / "chain.net"
    net.write_text(PLAIN_PAJEK)
    err = _error(capsys, net, "--weight", "foo")
    assert "--weight foo: " in err and "read as a Pajek file" in err and "leave it out" in err
    adj = tmp_path / "adj.csv"
    adj.write_text(",grass,rabbit,fox\ngrass,0,1,0\nrabbit,0,0,1\nfox,0,0,0\n")
    err = _error(capsys, adj, "--format", "adjacency", "--convention", "row_to_col", "--weight", "foo")
    assert "--weight foo: " in err and "read as an adjacency matrix" in err
    # without --weight both are read, and --unweighted still applies
    assert _levels(tmp_path, capsys, net, "--unweighted") == {"grass": 1.0, "rabbit": 2.0, "fox": 3.0}
    assert _levels(tmp_path, capsys, adj, "--format", "adjacency", "--convention", "row_to_col") == \
        {"grass": 1.0, "rabbit": 2.0, "fox": 3.0}


def _cheddar(tmp_path):
    folder = tmp_path / "comm"
    folder.mkdir()
    (folder / "nodes.csv").write_text("node\ngrass\nrabbit\nfox\n")
    (folder / "trophic.links.csv").write_text("resource,consumer\ngrass,rabbit\nrabbit,fox\n")
    return folder


def _gateway(tmp_path):
    folder = tmp_path / "W_7"
    folder.mkdir()
    (folder / "7_edge_list.txt").write_text("0 1\n1 2\n")
    return folder


@pytest.mark.parametrize("flag", ["--header", "--no-header"])
def test_header_refused_where_there_is_no_header_row(tmp_path, capsys, flag):
    net = tmp_path / "chain.net"
    net.write_text(PLAIN_PAJEK)
    err = _error(capsys, net, flag)
    assert err.split("error: ")[1].startswith(f"{flag}: ") and "read as a Pajek file" in err
    for folder, what in ((_cheddar(tmp_path), "a cheddar community folder"), (_gateway(tmp_path),
                                                                               "a GATEWAy web folder")):
        err = _error(capsys, folder, flag)
        assert f"{flag}: {folder} is {what}" in err and "--header/--no-header apply to table files only" in err
        assert _levels(tmp_path, capsys, folder)  # read without it
    err = _error(capsys, "gateway/11", flag)
    assert f"{flag}: gateway/11 is a named web" in err


def test_format_refused_for_a_named_web(capsys):
    err = _error(capsys, "gateway/11", "--format", "csv")
    assert "--format csv: gateway/11 is a named web" in err and "leave it out" in err
    assert "a named web" in _error(capsys, "pajek/baydry", "--format", "edgelist")


def test_named_web_with_its_own_format(data_root, tmp_path, capsys):
    assert len(_levels(tmp_path, capsys, "gateway/11", "--format", "gateway")) == 122


def test_foodweb_predict_header_still_reads_its_traits(tmp_path):
    """``foodweb predict``'s --header also reads --traits: not refused for a web without a header row."""
    from gatbio.ecology.commands import read_foodweb_file

    net = tmp_path / "chain.net"
    net.write_text(PLAIN_PAJEK)
    with pytest.raises(ValueError, match="--no-header: "):
        read_foodweb_file(net, header=False)
    assert read_foodweb_file(net, header=False, header_shared=True).num_nodes == 3
    with pytest.raises(ValueError, match="--header: "):
        read_foodweb_file(_gateway(tmp_path), header=True)
    assert read_foodweb_file(tmp_path / "W_7", header=True, header_shared=True).num_edges == 2


# 4. a bare collection name says how to name one of its webs

@pytest.mark.parametrize("name, example", [("gateway", "gateway/11 "), ("cheddar", "cheddar/Benguela"),
                                           ("pajek", "pajek/baydry")])
def test_a_bare_collection_name(capsys, name, example):
    err = _error(capsys, name)
    assert f"'{name}' is a collection: name one web, e.g. {example}" in err
    assert f"gatbio datasets --members {name}" in err and "did you mean" not in err


# 5. a Pajek file read as a table

@pytest.mark.parametrize("name, argv, fix", [
    ("web.txt", [], "name it .net or pass --format pajek"),
    ("web.net", ["--format", "edgelist"], "leave out --format (or pass --format pajek)"),
    ("web.net", ["--format", "csv"], "leave out --format"),
    ("web.txt", ["--format", "adjacency", "--convention", "row_to_col"], "name it .net"),
])
def test_a_pajek_file_read_as_a_table_is_named(tmp_path, capsys, name, argv, fix):
    web = tmp_path / name
    web.write_text("% made by hand\n" + PLAIN_PAJEK.replace("*Vertices", "*vertices"))
    err = _error(capsys, web, *argv)
    assert f"{name}:2: '*vertices': looks like a Pajek file, not a table: {fix}" in err
    assert _levels(tmp_path, capsys, web, "--format", "pajek") == {"grass": 1.0, "rabbit": 2.0, "fox": 3.0}


def test_a_species_named_with_a_star_is_still_a_species(tmp_path, capsys):
    web = tmp_path / "w.txt"
    web.write_text("*grass rabbit\nrabbit fox\n")
    assert _levels(tmp_path, capsys, web) == {"*grass": 1.0, "rabbit": 2.0, "fox": 3.0}


def test_a_pajek_file_without_weights_counts_a_repeated_arc_once_and_says_so(tmp_path, capsys, caplog):
    """As an edge list: fox 2.3333 (the repeated arc summed to weight 2 gave 2.4), and the note says no weights
    were summed."""
    p = tmp_path / "dup.net"
    p.write_text("*Vertices 3\n1 grass\n2 rabbit\n3 fox\n*Arcs\n1 2\n1 3\n2 3\n2 3\n")
    assert main(["trophic", str(p), "--csv", str(tmp_path / "l.csv")]) == 0
    levels = pd.read_csv(tmp_path / "l.csv").set_index("species")["trophic_level"]
    assert levels["fox"] == pytest.approx(7 / 3, abs=1e-4)
    assert "1 duplicate link merged, each counted once" in caplog.text and "weights summed" not in caplog.text


@pytest.mark.parametrize("suffix, noted", [(".csv", True), (".txt", False)])
def test_hash_lines_of_a_csv_web_are_counted_in_a_note(tmp_path, caplog, suffix, noted):
    # a CSV documents no comments: '#moth,fox' was dropped without a word (an edge list's '#' lines are comments)
    web = tmp_path / f"web{suffix}"
    web.write_text("prey,predator\ngrass,rabbit\n#moth,fox\nrabbit,fox\n# old: grass,fox\n"
                   if suffix == ".csv" else "grass rabbit\n#moth fox\nrabbit fox\n")
    assert main(["trophic", str(web)]) == 0
    err = caplog.text
    said = f"{web}: 2 lines starting with '#' skipped as comments (the first: line 3)"
    assert (said in err) is noted and ("skipped as comment" in err) is noted


def test_a_named_web_in_another_case_is_read_as_load_reads_it(data_root, tmp_path, capsys):
    """`gatbio trophic Cheddar/TL84` said 'no such file' while `cheddar/tl84` and `load('Cheddar/TL84')` read the web:
    one case rule (gatbio.data.sources.resolve_name) for every named web."""
    same = _levels(tmp_path, capsys, "cheddar/TL84")
    assert _levels(tmp_path, capsys, "Cheddar/TL84") == same == _levels(tmp_path, capsys, "CHEDDAR/tl84")
    assert "did you mean cheddar/TL84?" in _error(capsys, "Chedar/TL84")


@pytest.mark.parametrize("convention", ["row_to_col", "col_to_row"])
def test_an_adjacency_matrix_refuses_direction_predator_prey(tmp_path, convention):
    """The convention says who eats whom in a matrix; --direction predator-prey applied after it reversed every
    link (row_to_col with it read 'grass eats rabbit') without a word."""
    from gatbio.ecology.commands import read_foodweb_file

    path = tmp_path / "web.csv"
    path.write_text(",grass,rabbit\ngrass,0,1\nrabbit,0,0\n")
    with pytest.raises(ValueError, match=r"--direction predator-prey: .*web.csv is an adjacency matrix, whose "
                                         rf"--convention {convention} already says who eats whom.*leave --direction "
                                         "out"):
        read_foodweb_file(path, "adjacency", convention=convention, direction="predator-prey")
    d = read_foodweb_file(path, "adjacency", convention="row_to_col")
    names = d.node_names
    assert [(names[a], names[b]) for a, b in d.edge_index.t().tolist()] == [("grass", "rabbit")]  # prey -> predator
