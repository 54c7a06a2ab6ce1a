"""Input handling of the food-web folder readers (:mod:`gatbio.data.foodweb`): cheddar link weights, GATEWAy ids
outside the node table, missing (``NA``) traits in a GATEWAy node table, and ``#`` lines of a species-trait table."""

from __future__ import annotations

import numpy as np
import pytest

from gatbio.cli import main
from gatbio.data.foodweb import read_cheddar, read_gateway_web, read_species_traits, read_trait_table
from gatbio.data.io import MalformedFileError

# ---------------------------------------------------------------- cheddar link weights


def cheddar(tmp_path, links: str, name: str = "web"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "nodes.csv").write_text("node\ngrass\nrabbit\nfox\n")
    (folder / "trophic.links.csv").write_text(links)
    return folder


def test_cheddar_weight_column_with_one_empty_cell_is_refused(tmp_path):
    """One empty biomass.flow must not make the web silently unweighted (it dropped the other links' weights)."""
    web = cheddar(tmp_path, "resource,consumer,biomass.flow\ngrass,rabbit,1\ngrass,fox,\nrabbit,fox,9\n")
    with pytest.raises(MalformedFileError, match=r"trophic\.links\.csv:3: biomass\.flow \(column 3\) is empty.*"
                                                 r"\(0: no flow\), or remove the biomass\.flow column to read the "
                                                 r"web unweighted"):
        read_cheddar(web)
    short = cheddar(tmp_path, "resource,consumer,x,diet.fraction\ngrass,rabbit,a,0.5\nrabbit,fox,b\n", "short")
    with pytest.raises(MalformedFileError, match=r"trophic\.links\.csv:3: diet\.fraction \(column 4\) is empty"):
        read_cheddar(short)


def test_cheddar_weights_on_the_command_line(tmp_path, capsys):
    """Complete weights give the flow-weighted level (fox 2.4737, not the unweighted 2.3333); an empty cell is a
    one-line error with status 1, not unweighted levels."""
    full = cheddar(tmp_path, "resource,consumer,biomass.flow\ngrass,rabbit,1\ngrass,fox,1\nrabbit,fox,9\n", "full")
    assert main(["trophic", str(full)]) == 0
    assert "fox         2.4737" in capsys.readouterr().out
    part = cheddar(tmp_path, "resource,consumer,biomass.flow\ngrass,rabbit,1\ngrass,fox,\nrabbit,fox,9\n", "part")
    assert main(["trophic", str(part)]) == 1
    captured = capsys.readouterr()
    assert "trophic.links.csv:3: biomass.flow (column 3) is empty" in captured.err and "2.3333" not in captured.out


def test_cheddar_weight_column_empty_on_every_row_is_no_weight_with_a_note(tmp_path, caplog):
    web = cheddar(tmp_path, "resource,consumer,biomass.flow\ngrass,rabbit,\nrabbit,fox,\n")
    d = read_cheddar(web)
    assert getattr(d, "edge_weight", None) is None and d.edge_index.tolist() == [[0, 1], [1, 2]]
    assert "column 'biomass.flow' is empty on every row: not used as link weights" in caplog.text


def test_cheddar_with_both_weight_columns_says_which_is_used(tmp_path, caplog):
    web = cheddar(tmp_path, "resource,consumer,diet.fraction,biomass.flow\ngrass,rabbit,0.5,1\ngrass,fox,0.5,2\n"
                            "rabbit,fox,1,9\n")
    assert read_cheddar(web).edge_weight.tolist() == [1.0, 2.0, 9.0]
    assert "both 'diet.fraction' and 'biomass.flow' columns: 'biomass.flow' is used as the link weight" in caplog.text
    caplog.clear()
    one = cheddar(tmp_path, "resource,consumer,diet.fraction\ngrass,rabbit,0.5\nrabbit,fox,1\n", "one")
    assert read_cheddar(one).edge_weight.tolist() == [0.5, 1.0]
    assert "weight" not in caplog.text  # one weight column: nothing to say


# ---------------------------------------------------------------- GATEWAy ids outside the node table


def gateway(tmp_path, edges: str, attrs: str | None, name: str = "Pond_7"):
    web = tmp_path / name
    web.mkdir()
    (web / "7_edge_list.txt").write_text(edges)
    if attrs is not None:
        (web / "7_node_attr_list.txt").write_text(attrs)
    return web


@pytest.mark.parametrize("attrs,msg", [
    ("id log_mass\n0 1\n1 2\n2 3\n", r"7_edge_list\.txt:2: node id 3 is not a species of the web: it has no row in "
                                     r"the node table \S*Pond_7/7_node_attr_list\.txt \(its rows are the web's "
                                     r"species: 3 rows, ids 0\.\.2\); add a row for node id 3 to "
                                     r"\S*Pond_7/7_node_attr_list\.txt .*or correct the id"),
    ("id log_mass\n", r"7_edge_list\.txt:1: node id 1 is not a species of the web: it has no row in the node table "
                      r"\S*7_node_attr_list\.txt \(its rows are the web's species: a header and no rows\); add rows "
                      r"for node ids 0\.\.1 to"),
])
def test_gateway_id_beyond_the_node_table_names_the_node_table(tmp_path, attrs, msg):
    web = gateway(tmp_path, "0 1\n1 3\n", attrs)
    with pytest.raises(MalformedFileError, match=msg) as err:
        read_gateway_web(web)
    assert "out of range" not in str(err.value) and "0..-1" not in str(err.value)


def test_gateway_negative_id_is_said_plainly(tmp_path):
    web = gateway(tmp_path, "0 1\n-1 2\n", "id log_mass\n0 1\n1 2\n2 3\n")
    with pytest.raises(MalformedFileError, match=r"7_edge_list\.txt:2: node id -1 is negative: ids are 0\.\.N-1 for "
                                                 r"a web of N species \(N = 3 here: ids 0\.\.2\); correct the id"):
        read_gateway_web(web)
    bare = gateway(tmp_path, "0 1\n2 -4\n", None, "Bare_7")
    with pytest.raises(MalformedFileError, match=r"7_edge_list\.txt:2: node id -4 is negative: ids are 0\.\.N-1"):
        read_gateway_web(bare)


def test_gateway_id_beyond_the_species_list_names_it(tmp_path):
    web = gateway(tmp_path, "0 1\n1 2\n", None)
    with pytest.raises(MalformedFileError, match=r"7_edge_list\.txt:2: node id 2 is not a species of the web: the "
                                                 r"web's species list \(node_ids\.csv of the collection\) has 2 "
                                                 r"species, ids 0\.\.1"):
        read_gateway_web(web, node_names=["alga", "snail"])


# ---------------------------------------------------------------- missing traits in a GATEWAy node table


def test_na_trait_is_imputed_and_flagged_with_a_note(tmp_path, caplog):
    """log_mass NA: the median of the others (1 and 3: 2) and GATEWAy's mass_missing flag, as a --traits table's
    missing values are imputed; the traits hold no NaN."""
    web = gateway(tmp_path, "0 1\n1 2\n", "id log_mass\n0 1.0\n1 NA\n2 3.0\n")
    d = read_gateway_web(web)
    assert d.trait_names == ["log_mass", "mass_missing"]
    assert d.x.tolist() == [[1.0, 0.0], [2.0, 1.0], [3.0, 0.0]]
    assert "7_node_attr_list.txt: 1 missing trait value (NA) in 1 of 3 rows, in log_mass: imputed with the column's " \
           "median" in caplog.text and "flagged in mass_missing" in caplog.text


def test_na_traits_set_an_existing_flag_and_add_one_per_other_column(tmp_path, caplog):
    path = tmp_path / "t.txt"
    path.write_text("id met_a log_mass mass_missing\n0 na 2 0\n1 1 NA 0\n2 0 -1 1\n3 NA 6 0\n")
    df = read_trait_table(path, 4)
    assert df.columns.tolist() == ["id", "met_a", "log_mass", "mass_missing", "met_a_missing"]
    assert df["log_mass"].tolist() == [2.0, 2.0, -1.0, 6.0]  # median of 2, -1, 6
    assert df["mass_missing"].tolist() == [0.0, 1.0, 1.0, 0.0]  # row 2 was flagged in the file already
    assert df["met_a"].tolist() == [0.5, 1.0, 0.0, 0.5] and df["met_a_missing"].tolist() == [1.0, 0.0, 0.0, 1.0]
    assert "3 missing trait values (NA) in 3 of 4 rows, in met_a, log_mass" in caplog.text
    comma = tmp_path / "c.txt"
    comma.write_text("id,mass\n0,\n1,\n")  # an empty field, and no value at all in the column: 0
    assert read_trait_table(comma, 2, sep=",").to_dict("list") == {"id": [0.0, 1.0], "mass": [0.0, 0.0],
                                                                  "mass_missing": [1.0, 1.0]}


def test_trait_table_refusals_say_the_fix(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("id met\n0 plant\n")
    with pytest.raises(MalformedFileError, match=r"t\.txt:2: trait 'met' must be a number, found 'plant' \(one-hot "
                                                 r"encode a categorical trait.*write NA for a value not measured"):
        read_trait_table(path, 1)
    path.write_text("id mass\nNA 1\n")
    with pytest.raises(MalformedFileError, match=r"t\.txt:2: id is NA: each row starts with its node id"):
        read_trait_table(path, 1)
    path.write_text("id mass\n0 -inf\n")  # a computation gone wrong (log10 of 0), not a missing value
    with pytest.raises(MalformedFileError, match=r"t\.txt:2: trait 'mass' is -inf \(NaN/inf traits are not allowed: "
                                                 r"check how the value was computed, or write NA"):
        read_trait_table(path, 1)


# ---------------------------------------------------------------- '#' lines of a species-trait table


def _hash_notes(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "starting with '#'" in r.getMessage()]


def test_hash_lines_of_a_trait_table_are_said_once_with_the_first_line(tmp_path, caplog):
    """A trait CSV (``--traits``) documents no comments, yet a line starting with '#' is skipped as one (as in every
    table): a species named '#moth' or a commented-out row would be dropped without a word. One note per file says
    how many such lines and the first; quoted, the name is read."""
    species = ["grass", "#moth", "fox"]
    path = tmp_path / "traits.csv"
    path.write_text("species,mass\ngrass,1\n#moth,0.1\nfox,5\n  # fox,6\n")
    x, names, _ = read_species_traits(path, species)
    assert names == ["mass"] and x[:, 0].tolist()[::2] == [1.0, 5.0] and np.isnan(x[1, 0])  # the row was dropped
    assert _hash_notes(caplog) == [f"note: {path}: 2 lines starting with '#' skipped as comments (the first: line 3); "
                                   "a name that starts with '#' is read when quoted (\"#name\")"]
    caplog.clear()
    path.write_text('species,mass\ngrass,1\n"#moth",0.1\nfox,5\n')  # quoted, as the note says: read
    x, _, _ = read_species_traits(path, species)
    assert x[:, 0].tolist() == [1.0, 0.1, 5.0] and _hash_notes(caplog) == []


def test_hash_inside_a_name_or_in_a_gateway_edge_list_says_nothing(tmp_path, caplog):
    """Only skipped lines are said, and only where '#' comments are not documented: an edge list (GATEWAy's
    ``*_edge_list.txt`` included) documents them, so its comment lines stay silent."""
    table = tmp_path / "t.csv"
    table.write_text("species,mass\nfox#2,3\n")
    assert read_species_traits(table, ["fox#2"])[0][:, 0].tolist() == [3.0]
    d = read_gateway_web(gateway(tmp_path, "# resource consumer\n0 1\n# 1 2\n1 2\n", None))
    assert d.edge_index.tolist() == [[0, 1], [1, 2]]
    assert _hash_notes(caplog) == []


def test_gateway_node_table_names_are_read_as_written_and_an_empty_one_is_named(tmp_path):
    """pandas read a species named "NA" (or "null", "None") as missing, which became the name "nan"; an empty name
    became "nan" too, without a word."""
    from gatbio.data.foodweb import _gateway_tables, gateway_folder_names
    from gatbio.data.io import MalformedFileError

    coll = tmp_path / "gw"
    (coll / "webs" / "W_7").mkdir(parents=True)
    (coll / "web_index.csv").write_text("data_dir,web_name,n_nodes\nW_7,Pond,3\n")
    (coll / "node_ids.csv").write_text(',0,1,2\n0,Pond,NA,0\n1,Pond,None,1\n2,Pond,Daphnia_adult,2\n')
    assert gateway_folder_names(coll / "webs" / "W_7") == ["NA", "None", "Daphnia_adult"]
    _gateway_tables.cache_clear()
    (coll / "node_ids.csv").write_text(',0,1,2\n0,Pond,NA,0\n1,Pond,,1\n2,Pond,Daphnia_adult,2\n')
    with pytest.raises(MalformedFileError, match=r"node_ids\.csv:3: species 1 of web 'Pond' has no name \(1 such"):
        gateway_folder_names(coll / "webs" / "W_7")
    _gateway_tables.cache_clear()


@pytest.mark.parametrize("rows, why", [
    ("0,Pond,a,0\n1,Pond,b,2\n", "a gap (ids 0, 2)"),
    ("0,Pond,a,0\n1,Pond,b,0\n", "an id twice"),
    ("0,Pond,a,0\n", "a species short of n_nodes"),
    ("0,Pond,b,1\n1,Pond,a,0\n", None),  # ids 0, 1 in another row order: read in id order
])
def test_a_gateway_webs_node_id_order_is_checked_once_for_both_readers(rows, why, tmp_path, monkeypatch):
    """load_gateway and gateway_folder_names each checked that a web's ids in node_ids.csv are 0..n_nodes-1; one
    check now (``_web_species``): the first refuses such a web (same message), the second gives no names."""
    import gatbio.data.foodweb as fw
    from gatbio.data.sources import GATEWAY_WEBS

    folder = next(iter(GATEWAY_WEBS))
    wid = int(folder.rsplit("_", 1)[1])
    coll = tmp_path / "gw"
    (coll / "webs" / folder).mkdir(parents=True)
    (coll / "webs" / folder / f"{wid}_edge_list.txt").write_text("resource consumer\n0 1\n")
    (coll / "web_index.csv").write_text(f"web_id,data_dir,web_name,n_nodes,n_links,ecosystem_type\n"
                                        f"{wid},{folder},Pond,2,1,lake\n")
    (coll / "node_ids.csv").write_text(",0,1,2\n" + rows)
    monkeypatch.setattr(fw, "require_files", lambda *a, **k: coll)
    calls = []
    check = fw._web_species
    monkeypatch.setattr(fw, "_web_species", lambda *a: calls.append(a[1:]) or check(*a))
    fw._gateway_tables.cache_clear()
    try:
        names = fw.gateway_folder_names(coll / "webs" / folder)
        if why is None:
            assert names == ["a", "b"] and fw.load_gateway(wid).node_names == ["a", "b"]
        else:
            assert names is None, why
            with pytest.raises(MalformedFileError, match=r"node_ids\.csv: expected node ids 0\.\.1 for web 'Pond'$"):
                fw.load_gateway(wid)
    finally:
        fw._gateway_tables.cache_clear()
    assert calls == [("Pond", 2), ("Pond", 2)]
