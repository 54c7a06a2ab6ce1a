"""``gatbio trophic FILE``."""

from __future__ import annotations

import pandas as pd
import pytest

from gatbio.cli import main


def test_trophic_edge_list_table_and_csv(tmp_path, capsys):
    web = tmp_path / "chain.txt"
    web.write_text("grass rabbit\nrabbit fox\n")
    out_csv = tmp_path / "out" / "levels.csv"
    assert main(["trophic", str(web), "--method", "levine", "--csv", str(out_csv)]) == 0
    out = capsys.readouterr().out
    assert "3 species, 2 links" in out and "F0=0.0000" in out
    df = pd.read_csv(out_csv)
    assert df.to_dict("list") == {"species": ["grass", "rabbit", "fox"], "trophic_level": [1.0, 2.0, 3.0],
                                  "prey": [0, 1, 1], "predators": [1, 1, 0]}


def test_trophic_direction_flag_and_csv_format(tmp_path, capsys):
    web = tmp_path / "links.csv"
    web.write_text("consumer,resource\nfox,rabbit\nrabbit,grass\n")
    assert main(["trophic", str(web), "--csv", str(tmp_path / "a.csv")]) == 0  # resource/consumer by name
    assert pd.read_csv(tmp_path / "a.csv").set_index("species")["trophic_level"].to_dict() == \
        {"fox": 3.0, "rabbit": 2.0, "grass": 1.0}
    flipped = tmp_path / "f.txt"
    flipped.write_text("fox rabbit\nrabbit grass\n")
    assert main(["trophic", str(flipped), "--direction", "predator-prey", "--csv", str(tmp_path / "b.csv")]) == 0
    assert pd.read_csv(tmp_path / "b.csv").set_index("species")["trophic_level"]["fox"] == 3.0
    capsys.readouterr()


def test_trophic_errors_are_one_line(tmp_path, capsys):
    assert main(["trophic", str(tmp_path / "missing.txt")]) == 1
    assert "no such file or folder" in capsys.readouterr().err
    cyc = tmp_path / "c.txt"
    cyc.write_text("a b\nb a\n")
    assert main(["trophic", str(cyc), "--method", "levine"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gatbio trophic: error: food web has no basal species") and "method='mackay'" in err
    bad = tmp_path / "bad.txt"
    bad.write_text("a b\nb c d e\n")
    assert main(["trophic", str(bad)]) == 1
    assert "bad.txt:2: 4 fields, more than 'prey predator [weight]'" in capsys.readouterr().err
    m = tmp_path / "m.txt"
    m.write_text("0 1\n0 0\n")
    assert main(["trophic", str(m), "--format", "adjacency"]) == 1
    assert "needs --convention" in capsys.readouterr().err


@pytest.mark.parametrize("target", ["pajek/baydry", "gateway/11"])
def test_trophic_named_webs_and_files(data_root, capsys, target):
    assert main(["trophic", target, "--sort"]) == 0
    out = capsys.readouterr().out
    assert "species  trophic_level  prey  predators" in out


def test_trophic_cheddar_folder_and_pajek_file(data_root, capsys):
    assert main(["trophic", str(data_root / "foodwebs_cheddar" / "TL84"), "--method", "levine"]) == 0
    assert "56 species, 269 links" in capsys.readouterr().out
    assert main(["trophic", str(data_root / "foodwebs_ulanowicz_pajek" / "baydry.paj")]) == 0
    assert "125 species, 1830 links" in capsys.readouterr().out


def test_trophic_gateway_folder(data_root, capsys):
    assert main(["trophic", str(data_root / "gateway_dev" / "webs" / "AEW03_11")]) == 0
    assert "122 species, 1811 links" in capsys.readouterr().out


@pytest.mark.parametrize("method", ["mackay", "levine"])
def test_trophic_zero_weight_link_is_dropped(tmp_path, capsys, method):
    web = tmp_path / "zero.txt"
    web.write_text("a b 1\nb c 0\nc d 1\n")
    assert main(["trophic", str(web), "--method", method, "--csv", str(tmp_path / "z.csv")]) == 0
    out = capsys.readouterr().out
    assert "F0=0.0000" in out and "nan" not in out.lower()
    assert pd.read_csv(tmp_path / "z.csv")["trophic_level"].tolist() == [1.0, 2.0, 1.0, 2.0]


def test_trophic_species_names_with_spaces(tmp_path, capsys):
    """Tab-separated names may hold spaces; a whitespace file cannot, and says so instead of linking the words."""
    tsv = tmp_path / "binom.tsv"
    tsv.write_text("resource\tconsumer\nChlorella vulgaris\tDaphnia pulex\nDaphnia pulex\tChaoborus flavicans\n")
    assert main(["trophic", str(tsv), "--csv", str(tmp_path / "l.csv")]) == 0
    assert pd.read_csv(tmp_path / "l.csv").set_index("species")["trophic_level"].to_dict() == \
        {"Chlorella vulgaris": 1.0, "Daphnia pulex": 2.0, "Chaoborus flavicans": 3.0}
    capsys.readouterr()
    for text, msg in (("resource consumer\nChlorella vulgaris Daphnia pulex\n",
                       "w.txt:2: 4 fields where the header (line 1) names 2: species names with spaces need tabs"),
                      ("# web\nChlorella vulgaris Daphnia pulex\n",
                       "w.txt:2: 4 fields, more than 'prey predator [weight]': species names with spaces"),
                      ("algae Daphnia pulex\nDaphnia pulex fish\n",
                       "w.txt:1: field 3 ('pulex') is not a weight")):
        (tmp_path / "w.txt").write_text(text)
        assert main(["trophic", str(tmp_path / "w.txt")]) == 1
        assert msg in capsys.readouterr().err


@pytest.mark.parametrize("text", ["predator,prey\nfox,rabbit\nrabbit,grass\n",
                                  "# exported\nconsumer,resource\nfox,rabbit\nrabbit,grass\n",
                                  "consumer;resource\nfox;rabbit\nrabbit;grass\n"])
def test_trophic_csv_columns_by_name(tmp_path, capsys, text):
    """prey / predator headers, a comment above the header, a semicolon CSV: the columns are found by name."""
    (tmp_path / "w.csv").write_text(text)
    assert main(["trophic", str(tmp_path / "w.csv"), "--csv", str(tmp_path / "l.csv")]) == 0
    assert pd.read_csv(tmp_path / "l.csv").set_index("species")["trophic_level"].to_dict() == \
        {"fox": 3.0, "rabbit": 2.0, "grass": 1.0}
    capsys.readouterr()


def test_trophic_adjacency_csv(tmp_path, capsys):
    (tmp_path / "a.csv").write_text("0,1,0\n0,0,1\n0,0,0\n")
    assert main(["trophic", str(tmp_path / "a.csv"), "--format", "adjacency", "--convention", "row_to_col",
                 "--csv", str(tmp_path / "l.csv")]) == 0
    assert pd.read_csv(tmp_path / "l.csv")["trophic_level"].tolist() == [1.0, 2.0, 3.0]
    capsys.readouterr()


def test_trophic_zero_weight_links_are_not_counted_as_prey(tmp_path, capsys):
    (tmp_path / "z.txt").write_text("a b 1\nb c 0\nc d 1\n")
    assert main(["trophic", str(tmp_path / "z.txt"), "--csv", str(tmp_path / "l.csv")]) == 0
    df = pd.read_csv(tmp_path / "l.csv").set_index("species")
    assert df["prey"].to_dict() == {"a": 0, "b": 1, "c": 0, "d": 1} and df.loc["c", "trophic_level"] == 1.0
    capsys.readouterr()


def test_trophic_refuses_a_pajek_network_of_undirected_edges(tmp_path, capsys):
    (tmp_path / "u.net").write_text('*Vertices 3\n1 "a"\n2 "b"\n3 "c"\n*Edges\n1 2\n2 3\n')
    assert main(["trophic", str(tmp_path / "u.net")]) == 1
    assert "u.net:6: a network of undirected *Edges only: a food web needs *Arcs" in capsys.readouterr().err


@pytest.mark.parametrize("header", ["predator,prey", "consumer,resource", "Consumer,Resource"])
def test_trophic_named_columns_refuse_a_direction_flag(tmp_path, capsys, header):
    """The header already says which column eats which: --direction predator-prey would reverse the web."""
    (tmp_path / "w.csv").write_text(f"{header}\nfox,rabbit\nrabbit,grass\n")
    assert main(["trophic", str(tmp_path / "w.csv"), "--direction", "predator-prey"]) == 1
    assert "w.csv:1: the header names the prey and predator columns" in capsys.readouterr().err


def test_capitalised_resource_consumer_columns_are_read_by_name(tmp_path, capsys):
    """Column names in any case and order: 'Consumer,Resource' is read as resource → consumer, not by position."""
    (tmp_path / "w.csv").write_text("Consumer,Resource\nfox,rabbit\nrabbit,grass\n")
    assert main(["trophic", str(tmp_path / "w.csv"), "--sort"]) == 0
    out = capsys.readouterr().out
    assert out.index("fox") < out.index("rabbit") < out.index("grass")  # highest level first: grass is basal
    assert "grass            1.0     0          1" in out


@pytest.mark.parametrize("option", [["--direction", "predator-prey"], ["--source", "x"], ["--weight", "w"]])
def test_table_options_are_refused_for_named_webs_and_cheddar_folders(data_root, capsys, option):
    """A named web or a cheddar community is read as prey -> predator with known columns: the table options would
    be ignored (or reverse the web), so gatbio trophic refuses them as foodweb predict does."""
    for web, what in (("gateway/11", "a named web"), (str(data_root / "foodwebs_cheddar" / "TL84"),
                                                       "a cheddar community folder")):
        assert main(["trophic", web, *option]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and f"{option[0]} {option[1]}: {web} is {what}" in err, err


def test_a_semicolon_spreadsheet_csv_is_read_by_its_semicolons(tmp_path, capsys):
    """Where the comma is the decimal mark, spreadsheets write ';' between fields: the web is read by its
    semicolons, and a decimal comma in a weight is named with its fix (not a web of species called '5')."""
    euro = tmp_path / "euro.csv"
    euro.write_text("prey;predator;weight\ngrass;rabbit;0,5\nrabbit;fox;1,5\n")
    assert main(["trophic", str(euro)]) == 1
    assert "euro.csv:2: weight must be a number, found '0,5': a decimal comma? write '0.5' (2 bad weights in " \
           "total)" in capsys.readouterr().err
    euro.write_text("prey;predator;weight\ngrass;rabbit;0.5\nrabbit;fox;1.5\n")
    assert main(["trophic", str(euro), "--csv", str(tmp_path / "l.csv")]) == 0
    assert pd.read_csv(tmp_path / "l.csv").set_index("species")["trophic_level"].to_dict() == \
        {"grass": 1.0, "rabbit": 2.0, "fox": 3.0}
    # a comma CSV whose last column holds '; ' in every row (references) keeps the comma
    refs = tmp_path / "refs.csv"
    refs.write_text("grass,rabbit,Smith 2001; Jones 2003\nrabbit,fox,Smith 2001; Jones 2003\n")
    assert main(["trophic", str(refs), "--csv", str(tmp_path / "r.csv")]) == 0
    assert sorted(pd.read_csv(tmp_path / "r.csv")["species"]) == ["fox", "grass", "rabbit"]
    capsys.readouterr()


def test_a_header_naming_more_columns_than_the_rows_have_is_refused(tmp_path, capsys):
    web = tmp_path / "h.csv"
    web.write_text("prey,predator,weight,notes\ngrass,rabbit,1\nrabbit,fox,3\n")
    assert main(["trophic", str(web)]) == 1
    assert "h.csv:1: the header names 4 columns ('prey', 'predator', 'weight', 'notes'), the rows have 3 (line 2)" \
        in capsys.readouterr().err


def test_a_web_without_a_feeding_link_prints_its_levels_and_f0_undefined(tmp_path, capsys):
    for text in ("a b 0\n", "a a\n"):
        (tmp_path / "w.txt").write_text(text)
        assert main(["trophic", str(tmp_path / "w.txt")]) == 0
        out = capsys.readouterr().out
        assert "F0=undefined (no feeding link between two species)" in out and "1.0" in out
    net = tmp_path / "v.net"
    net.write_text('*Vertices 2\n1 "grass"\n2 "rabbit"\n')
    assert main(["trophic", str(net)]) == 1
    assert "v.net: no *Arcs section: a food web needs its links" in capsys.readouterr().err
    two = tmp_path / "two.paj"
    two.write_text('*Network first\n*Vertices 2\n1 "grass"\n2 "rabbit"\n*Arcs\n1 2\n'
                   '*Network second\n*Vertices 2\n1 "x"\n2 "y"\n*Arcs\n2 1\n')
    assert main(["trophic", str(two)]) == 0
    assert "grass" in capsys.readouterr().out


def test_options_of_another_table_format_are_refused(tmp_path, capsys):
    web = tmp_path / "w.txt"
    web.write_text("grass rabbit\nrabbit fox\n")
    assert main(["trophic", str(web), "--convention", "col_to_row"]) == 1
    assert "--convention col_to_row: " in capsys.readouterr().err
    adj = tmp_path / "a.csv"
    adj.write_text(",grass,rabbit\ngrass,0,1\nrabbit,0,0\n")
    assert main(["trophic", str(adj), "--format", "adjacency", "--convention", "row_to_col", "--source", "a"]) == 1
    assert "--source a: " in (err := capsys.readouterr().err) and "is read as an adjacency matrix" in err


def test_a_whitespace_header_over_rows_with_an_unnamed_weight_column(tmp_path, capsys):
    """'prey predator' above 'grass rabbit 2': the third column is weights (as with tabs), not species names with
    spaces; a row with a name of two words is still refused."""
    web = tmp_path / "w.txt"
    web.write_text("prey predator\ngrass rabbit 2\nrabbit fox 1\ngrass fox 3\n")
    assert main(["trophic", str(web), "--method", "levine", "--csv", str(tmp_path / "l.csv")]) == 0
    levels = pd.read_csv(tmp_path / "l.csv").set_index("species")["trophic_level"]
    assert levels["fox"] == pytest.approx(1 + (2 * 1 + 1 * 3) / 4)  # weighted: rabbit (level 2) weighs 1 of 4
    capsys.readouterr()
    web.write_text("prey predator\nDaphnia pulex fish\nalga Daphnia pulex\n")
    assert main(["trophic", str(web)]) == 1
    assert "w.txt:2: 3 fields where the header (line 1) names 2" in capsys.readouterr().err
