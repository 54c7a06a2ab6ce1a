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
    assert "rabbit         2.0000" in out  # Levine levels printed as MacKay's are (4 decimals)
    # omnivory: the header's F0 is MacKay's whatever the method, and with Levine's levels Johnson's q is given
    # too (std of the level differences over the links 1, 0.5 and 1.5: sqrt(1/6))
    omni = tmp_path / "omni.txt"
    omni.write_text("grass rabbit\nrabbit fox\ngrass fox\n")
    assert main(["trophic", str(omni), "--method", "levine"]) == 0
    assert "method=levine, incoherence F0=0.1111 (MacKay), q=0.4082 (Johnson)" in capsys.readouterr().out


def test_trophic_table_counts_other_species_once(tmp_path, capsys, caplog):
    """A cannibal link (a eats a) and a link listed twice do not count as prey or predators, as the levels do
    not count them: a is basal, b eats one species."""
    web = tmp_path / "cann.txt"
    web.write_text("a a\na b\na b\n")
    assert main(["trophic", str(web), "--method", "levine", "--csv", str(tmp_path / "t.csv")]) == 0
    df = pd.read_csv(tmp_path / "t.csv").set_index("species")
    assert df.loc["a", "prey"] == 0 and df.loc["a", "predators"] == 1 and df.loc["b", "prey"] == 1
    assert df["trophic_level"].to_dict() == {"a": 1.0, "b": 2.0}
    assert "cann.txt: 1 cannibal (self) link(s) counted among the links but left out of the levels" in caplog.text


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


def test_a_column_of_interaction_kinds_is_never_read_as_species(tmp_path, capsys):
    """GloBI's export (source, interaction type, target): its camelCase header is a header, and its second column
    ("eats") is refused as a species column, with the columns to choose; chosen, the web is right. A third column
    of interaction kinds after two species columns is only not read."""
    globi = tmp_path / "globi.csv"
    globi.write_text("sourceTaxonName,interactionTypeName,targetTaxonName\nfox,eats,rabbit\nrabbit,eats,grass\n")
    assert main(["trophic", str(globi)]) == 1
    err = capsys.readouterr().err
    assert "globi.csv:1: column 2 ('interactionTypeName') names a kind of interaction, not a species" in err
    assert "--source targetTaxonName --target sourceTaxonName" in err
    assert main(["trophic", str(globi), "--source", "targetTaxonName", "--target", "sourceTaxonName", "--csv",
                 str(tmp_path / "g.csv")]) == 0
    assert pd.read_csv(tmp_path / "g.csv").set_index("species")["trophic_level"].to_dict() == \
        {"grass": 1.0, "rabbit": 2.0, "fox": 3.0}
    last = tmp_path / "last.csv"
    last.write_text("from,to,interaction_type\ngrass,rabbit,eats\nrabbit,fox,eats\n")
    assert main(["trophic", str(last), "--csv", str(tmp_path / "l.csv")]) == 0
    assert pd.read_csv(tmp_path / "l.csv").set_index("species")["trophic_level"]["fox"] == 3.0
    capsys.readouterr()


def test_table_outputs_follow_their_suffix(tmp_path, capsys):
    """--csv x.tsv was written with commas and x.csv.gz as plain text: .tsv is tab-separated, and a name that
    promises compression or a spreadsheet is refused before any reading (here, and for foodweb predict --out)."""
    web = tmp_path / "chain.txt"
    web.write_text("grass rabbit\nrabbit fox\n")
    assert main(["trophic", str(web), "--csv", str(tmp_path / "lv.tsv")]) == 0
    assert (tmp_path / "lv.tsv").read_text().splitlines()[:2] == ["species\ttrophic_level\tprey\tpredators",
                                                                  "grass\t1.0\t0\t1"]
    for option, name in (("--csv", "lv.csv.gz"), ("--csv", "lv.xlsx")):
        assert main(["trophic", str(tmp_path / "missing.txt"), option, str(tmp_path / name)]) == 1
        assert f"{option} {tmp_path / name}: the table is written as plain text" in capsys.readouterr().err
    assert main(["foodweb", "predict", str(web), "--out", str(tmp_path / "links.xlsx")]) == 1
    assert "--out" in (err := capsys.readouterr().err) and "name it .csv or .tsv" in err


def test_trophic_errors_are_one_line(tmp_path, capsys):
    assert main(["trophic", str(tmp_path / "missing.txt")]) == 1
    assert "no such file or folder" in capsys.readouterr().err
    cyc = tmp_path / "c.txt"
    cyc.write_text("a b\nb a\n")
    assert main(["trophic", str(cyc), "--method", "levine"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"gatbio trophic: error: {cyc}: food web has no basal species")  # names the file
    assert "method='mackay'" in err
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
    assert "grass         1.0000     0          1" in out


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


# ---------------------------------------------------------------- column roles, weights and messages (audit)


def _levels(tmp_path, capsys, *args) -> dict[str, float]:
    assert main(["trophic", *map(str, args), "--csv", str(tmp_path / "levels.csv")]) == 0, capsys.readouterr().err
    capsys.readouterr()
    return pd.read_csv(tmp_path / "levels.csv").set_index("species")["trophic_level"].to_dict()


CHAIN = {"grass": 1.0, "rabbit": 2.0, "fox": 3.0}


@pytest.mark.parametrize("header", ["predator_name,prey_name", "Predator species,Prey species",
                                    "consumer.name,resource.name", "con.taxonomy,res.taxonomy", "pred,prey",
                                    "eater,eaten", "PredatorName,PreyName", "consumer,food"])
def test_role_words_in_header_names_orient_the_web(tmp_path, capsys, caplog, header):
    """A header that names the predator first, in any of the usual spellings, is read by its names (not as a
    link, nor by position, which would turn the web upside down), and a note says which column is which."""
    web = tmp_path / "w.csv"
    web.write_text(f"{header}\nrabbit,grass\nfox,rabbit\n")
    assert _levels(tmp_path, capsys, web) == CHAIN
    predator, prey = header.split(",")
    assert f"column {prey!r} read as the prey (resource) and {predator!r} as the predator" in caplog.text
    assert main(["trophic", str(web), "--direction", "predator-prey"]) == 1  # the names already say it
    assert "the header names the prey and predator columns" in capsys.readouterr().err


def test_role_words_in_a_tab_separated_header_and_columns_not_named_by_role(tmp_path, capsys, caplog):
    web = tmp_path / "w.txt"
    web.write_text("Predator species\tPrey species\nwild rabbit\tgreen grass\nred fox\twild rabbit\n")
    assert _levels(tmp_path, capsys, web) == {"green grass": 1.0, "wild rabbit": 2.0, "red fox": 3.0}
    # a name holding words of both roles, or of neither, is no role: by position, as before
    caplog.clear()
    web.write_text("predator_prey,x\ngrass,rabbit\nrabbit,fox\n")
    assert _levels(tmp_path, capsys, web, "--header") == CHAIN
    assert "read as the prey" not in caplog.text
    # one role named in a two-column table: the other column has the other role
    web.write_text("predator,species\nrabbit,grass\nfox,rabbit\n")
    assert _levels(tmp_path, capsys, web) == CHAIN


def test_a_species_named_like_a_role_word_keeps_the_first_row_as_data(tmp_path, capsys, caplog):
    web = tmp_path / "w.csv"
    web.write_text("pred,prey\nprey,grass\n")  # 'prey' is a species eaten by 'pred'... and eats grass on line 2
    assert _levels(tmp_path, capsys, web) == {"pred": 1.0, "prey": 2.0, "grass": 3.0}
    assert "'prey' is also a name elsewhere in the data: read as data" in caplog.text


def test_a_raw_gateway_database_csv_is_read_by_its_taxonomy_columns(tmp_path, capsys, caplog):
    web = tmp_path / "gateway.csv"
    web.write_text("autoID,interaction.type,foodweb.name,con.taxonomy,con.lifestage,res.taxonomy,res.lifestage,"
                   "con.mass.mean.g.\n"
                   "1,predacious,Web A,Vulpes vulpes,adults,Oryctolagus cuniculus,adults,5000\n"
                   "2,herbivorous,Web A,Oryctolagus cuniculus,adults,Poa annua,adults,1500\n"
                   "3,herbivorous,Web B,Microtus arvalis,adults,Poa annua,adults,30\n")
    assert _levels(tmp_path, capsys, web) == {"Vulpes vulpes": 3.0, "Oryctolagus cuniculus": 2.0,
                                              "Poa annua": 1.0, "Microtus arvalis": 2.0}
    log = caplog.text
    assert "column 'res.taxonomy' read as the prey (resource) and 'con.taxonomy' as the predator" in log
    assert "'autoID', 'interaction.type', 'foodweb.name', 'con.lifestage', 'res.lifestage', 'con.mass.mean.g.' " \
           "not read" in log
    assert "column 'foodweb.name' names 2 or more webs" in log


def test_a_first_column_of_row_numbers_is_not_read_as_species(tmp_path, capsys):
    web = tmp_path / "w.csv"
    web.write_text("autoID,type,a,b\n1,predacious,fox,rabbit\n2,herbivorous,rabbit,grass\n")
    assert main(["trophic", str(web)]) == 1
    err = capsys.readouterr().err
    assert "w.csv:1: column 1 ('autoID') holds row numbers, not species" in err and "--source COLUMN" in err
    assert _levels(tmp_path, capsys, web, "--source", "b", "--target", "a") == CHAIN


def test_an_edge_list_written_by_r_skips_its_row_numbers(tmp_path, capsys, caplog):
    web = tmp_path / "w.csv"
    web.write_text('"","from","to","weight"\n"1","grass","rabbit",1\n"2","rabbit","fox",2\n')
    assert _levels(tmp_path, capsys, web) == CHAIN
    assert "column 1 ('') holds row numbers: columns 'from' and 'to' read as the prey and the predator" in caplog.text


def test_only_a_column_named_like_weights_is_read_as_weights(tmp_path, capsys, caplog):
    """study_id or year is not a weight (year 0 would delete a link): ignored with a note; a column named like
    weights is read, --weight picks any; without a header a third column of numbers is read, with a note."""
    web = tmp_path / "w.csv"
    web.write_text("resource,consumer,year\ngrass,rabbit,1998\ngrass,deer,2001\nrabbit,fox,2001\ndeer,fox,0\n")
    assert _levels(tmp_path, capsys, web) == {"grass": 1.0, "rabbit": 2.0, "deer": 2.0, "fox": 3.0}
    assert "column 'year' not read (not link weights by name; --weight COLUMN reads one as weights)" in caplog.text
    caplog.clear()
    assert main(["trophic", str(web), "--weight", "year", "--csv", str(tmp_path / "y.csv")]) == 0
    assert pd.read_csv(tmp_path / "y.csv").set_index("species")["prey"]["fox"] == 1  # deer -> fox: weight 0, absent
    assert "1 of 4 links have weight 0 and are not counted" in caplog.text
    web.write_text("resource,consumer,study_id,freq\ngrass,rabbit,1,1\ngrass,fox,40,3\nrabbit,fox,2,1\n")
    levine = ("--method", "levine")  # a consumer's level: 1 + the weighted mean of its prey's
    assert _levels(tmp_path, capsys, web, *levine)["fox"] == pytest.approx(1 + (3 * 1 + 1 * 2) / 4)  # freq weights
    assert "column 'freq' read as link weights (--unweighted to ignore)" in caplog.text
    assert "column 'study_id' not read" in caplog.text
    caplog.clear()
    plain = tmp_path / "w.txt"
    plain.write_text("grass rabbit 1\ngrass fox 3\nrabbit fox 1\n")
    assert _levels(tmp_path, capsys, plain, *levine)["fox"] == pytest.approx(1 + (3 * 1 + 1 * 2) / 4)
    assert "column 3 read as link weights (--unweighted to ignore)" in caplog.text


def test_weight_column_by_number_and_a_chain_is_no_matrix(tmp_path, capsys, caplog):
    """Without a header --weight takes a column number; a chain whose first predator is the next line's prey is an
    edge list, not a matrix with row and column names."""
    web = tmp_path / "w.tsv"
    web.write_text("grass\trabbit\t7\t1\nrabbit\tfox\t8\t2\ngrass\tfox\t9\t1\n")
    levels = _levels(tmp_path, capsys, web, "--weight", "4", "--method", "levine")
    assert levels["fox"] == pytest.approx(1 + (2 * 2 + 1 * 1) / 3, abs=1e-4)
    assert "column 3 not read" in caplog.text


def test_quoted_names_in_a_whitespace_file(tmp_path, capsys):
    web = tmp_path / "w.txt"
    web.write_text('"green grass" "wild rabbit" 1\n"wild rabbit" "red fox" 2\n')
    assert _levels(tmp_path, capsys, web) == {"green grass": 1.0, "wild rabbit": 2.0, "red fox": 3.0}


@pytest.mark.parametrize("text", ['"","1","2","3"\n"1",0,1,0\n"2",0,0,1\n"3",0,0,0\n',  # R's write.csv
                                  ',1,2,3\n1,0,1,0\n2,0,0,1\n3,0,0,0\n',
                                  'species,1,2,3\n1,0,1,0\n2,0,0,1\n3,0,0,0\n'])
def test_an_adjacency_matrix_with_numeric_row_and_column_names(tmp_path, capsys, text):
    (tmp_path / "a.csv").write_text(text)
    assert _levels(tmp_path, capsys, tmp_path / "a.csv", "--format", "adjacency", "--convention",
                   "row_to_col") == {1: 1.0, 2: 2.0, 3: 3.0}


@pytest.mark.parametrize("name,text,msg", [
    ("a.txt", "0 1 x\n0 0 1\n0 0 0\n", "a.txt:1: column 3: entry must be a number, found 'x'"),
    ("a.csv", "grass,,1,0\nrabbit,0,0,1\nfox,0,0,0\n", "a.csv:1: column 2: the entry is empty (write 0 for no link)"),
    ("b.csv", ",grass,rabbit,fox\ngrass,0,1,0\nrabbit,0,,1\nfox,0,0,0\n",
     "b.csv:3: column 3: the entry is empty (write 0 for no link)"),
])
def test_a_bad_entry_in_the_first_row_of_a_matrix_is_named(tmp_path, capsys, name, text, msg):
    (tmp_path / name).write_text(text)
    assert main(["trophic", str(tmp_path / name), "--format", "adjacency", "--convention", "row_to_col"]) == 1
    assert msg in capsys.readouterr().err


@pytest.mark.parametrize("name,text,msg", [
    ("d.txt", "grass rabbit 1\nrabbit fox 2\ngrass deer 1,5\n",
     "d.txt:3: weight must be a number, found '1,5': a decimal comma? write '1.5'"),
    ("m.csv", ",grass,rabbit,fox\ngrass,0,1,0\nrabbit,0,0,1\nfox,0,0,0\n",
     "m.csv: looks like an adjacency matrix (3 rows of 3 entries, with row and column names), not an edge list"),
    ("m.txt", "0 1 0 0\n0 0 1 0\n0 0 0 1\n0 0 0 0\n", "m.txt: looks like an adjacency matrix (4 rows of 4 entries)"),
    ("r.csv", "grass,0,1,0\nrabbit,0,0,1\nfox,0,0,0\n", "r.csv: looks like an adjacency matrix (3 rows of 3 "
                                                          "entries, with row names)"),
    ("h.txt", "grass rabbit fox\n0 1 0\n0 0 1\n0 0 0\n", "h.txt: looks like an adjacency matrix (3 rows of 3 "
                                                         "entries, with column names)"),
    ("o.csv", ",grass,rabbit,fox\ngrass,0,1,0\nfox,0,0,0\nrabbit,0,0,1\n", "o.csv: looks like an adjacency matrix"),
    ("e.csv", "grass,rabbit,\nrabbit,fox,1\n", "e.csv:1: weight (column 3) is empty"),
    ("n.csv", "resource,consumer\ngrass,rabbit\n,fox\n", "n.csv:3: source (column 1) is empty"),
    ("c.txt", "grass rabbit # seen in 2001\nrabbit fox\n", "c.txt:1: an inline comment ('# seen in 2001')"),
    ("c2.txt", "grass rabbit 1\nrabbit fox 2 #gut\n", "c2.txt:2: an inline comment ('#gut')"),
    ("x.txt", "grass rabbit 0.5 field\nrabbit fox 1 gut\n",
     "x.txt:1: 4 fields: 'prey predator weight' and 1 more ('field'): an extra column"),
])
def test_messages_name_the_real_problem_and_its_line(tmp_path, capsys, name, text, msg):
    (tmp_path / name).write_text(text)
    assert main(["trophic", str(tmp_path / name)]) == 1
    err = capsys.readouterr().err
    assert msg in err and "species names with spaces" not in err, err
