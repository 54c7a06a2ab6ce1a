"""Text (categorical) trait columns of a ``foodweb predict --traits`` table: one-hot encoded as GATEWAy's ``met_*``
columns are (one 0/1 trait ``<column>=<category>`` per category, said in a note), an empty cell missing rather
than a category; a typo in a column of numbers, a text column holding a number, and columns of names or free
text (too many categories) are refused; tables of numbers elsewhere (protein features) still refuse text."""

from __future__ import annotations

import numpy as np
import pytest

from gatbio.cli import main as gatbio_main
from gatbio.data.foodweb import read_species_traits
from gatbio.data.sequence import read_protein_features
from gatbio.data.tables import MalformedFileError, read_node_table
from gatbio.tasks import foodweb as fw

WEB = "resource,consumer\n" + "".join(f"{a},{b}\n" for a, b in [
    ("algae", "snail"), ("algae", "mayfly"), ("detritus", "mayfly"), ("detritus", "shrimp"), ("mayfly", "trout"),
    ("shrimp", "trout"), ("snail", "heron"), ("trout", "heron")])
SPECIES = ["algae", "detritus", "snail", "mayfly", "shrimp", "trout", "heron"]
TRAITS = [("algae", -5.0, "plant"), ("detritus", -6.0, "detritus"), ("snail", -0.3, "invertebrate"),
          ("mayfly", -2.0, "invertebrate"), ("shrimp", -1.3, " invertebrate "), ("trout", 2.5, "ectotherm"),
          ("heron", 3.3, "endotherm")]
CATEGORIES = ["detritus", "ectotherm", "endotherm", "invertebrate", "plant"]


@pytest.fixture
def seen(predict_stub):
    """What ``predict`` would train on (tests/conftest.py ``predict_stub``)."""
    return predict_stub


def _predict(tmp_path, rows, header="species,log_mass,metabolic") -> int:
    (tmp_path / "web.csv").write_text(WEB)
    (tmp_path / "traits.csv").write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return gatbio_main(["foodweb", "predict", str(tmp_path / "web.csv"), "--traits", str(tmp_path / "traits.csv"),
                        "--seeds", "0", "--quiet"])


def _notes(capsys, caplog) -> str:
    return capsys.readouterr().err + caplog.text


def test_a_text_trait_column_is_one_hot_encoded_per_species_in_any_row_order(tmp_path, capsys, caplog, seen):
    """A 'metabolic' column of plant / invertebrate / ... was refused ('must be a number'); now one 0/1 trait per
    category, the same for each species whatever the order of the table's rows, and a note names the column and
    its categories (whitespace around a category is not part of it)."""
    got = []
    for rows in (TRAITS, TRAITS[::-1], TRAITS[3:] + TRAITS[:3]):
        caplog.clear()
        assert _predict(tmp_path, rows) == 0, capsys.readouterr().err
        assert seen["trait_names"] == ["log_mass"] + [f"metabolic={c}" for c in CATEGORIES]
        got.append({n: tuple(seen["traits"][k]) for k, n in enumerate(seen["data"].node_names)})
        err = _notes(capsys, caplog)
        assert "traits.csv: text trait column one-hot encoded" in err
        assert "metabolic (detritus, ectotherm, endotherm, invertebrate, plant)" in err
        assert "differ only in case" not in err
    assert got[0] == got[1] == got[2]
    assert got[0]["heron"] == (3.3, 0, 0, 1, 0, 0)
    assert got[0]["shrimp"] == (-1.3, 0, 0, 0, 1, 0)  # " invertebrate ": the category, whitespace stripped
    assert got[0]["algae"] == (-5.0, 0, 0, 0, 0, 1)
    assert seen["data"].num_nodes == 7  # no species added, none lost


@pytest.mark.parametrize("empty", ["", "NA", "nan"])
def test_an_empty_cell_of_a_text_trait_is_missing_not_a_category(tmp_path, capsys, caplog, seen, empty):
    rows = [r if r[0] != "trout" else (r[0], r[1], empty) for r in TRAITS]
    assert _predict(tmp_path, rows) == 0
    names = seen["trait_names"]
    assert names == ["log_mass"] + [f"metabolic={c}" for c in CATEGORIES if c != "ectotherm"]  # no 'metabolic='
    x = np.asarray(seen["traits"])
    trout = seen["data"].node_names.index("trout")
    assert np.isnan(x[trout, 1:]).all() and x[trout, 0] == 2.5
    assert not np.isnan(np.delete(x, trout, axis=0)).any()
    assert "1 missing trait value(s) (empty or NA) of 1 species" in _notes(capsys, caplog)  # one cell, not four
    # then imputed and flagged as any missing trait
    prepared, pnames = fw.prepare_traits(x, names)
    assert not np.isnan(prepared).any() and "metabolic=plant_missing" in pnames
    assert prepared[trout, pnames.index("metabolic=plant_missing")] == 1


def test_a_text_cell_in_a_column_of_numbers_is_still_refused_at_its_line(tmp_path, capsys, seen):
    """A typo in a numeric column ('O.3' for '-0.3') must not turn the whole column into categories."""
    rows = [r if r[0] != "snail" else (r[0], "O.3", r[2]) for r in TRAITS]  # letter O for a zero
    assert _predict(tmp_path, rows) == 1
    err = capsys.readouterr().err
    assert "traits.csv:4: trait 'log_mass' must be a number, found 'O.3'" in err
    assert "data" not in seen
    # a column of numbers written with a unit or a decimal comma: numbers written wrong, never categories
    assert _predict(tmp_path, [(s, f"{m} g", c) for s, m, c in TRAITS]) == 1
    assert "traits.csv:2: trait 'log_mass' must be a number, found '-5.0 g'" in capsys.readouterr().err
    (tmp_path / "traits.csv").write_text("species;log_mass;metabolic\n" + "".join(
        f"{s};{str(m).replace('.', ',')};{c}\n" for s, m, c in TRAITS))
    assert gatbio_main(["foodweb", "predict", str(tmp_path / "web.csv"), "--traits", str(tmp_path / "traits.csv"),
                        "--seeds", "0", "--quiet"]) == 1
    assert "traits.csv:2: trait 'log_mass' must be a number, found '-5,0': a decimal comma?" in \
        capsys.readouterr().err
    assert "data" not in seen
    # and a number among text categories is refused at that cell
    rows = [r if r[0] != "trout" else (r[0], r[1], "3") for r in TRAITS]
    assert _predict(tmp_path, rows) == 1
    err = capsys.readouterr().err
    assert "traits.csv:7: trait 'metabolic' is a column of text categories" in err and "found '3'" in err


def test_categories_differing_only_in_case_are_named_in_the_note(tmp_path, capsys, caplog, seen):
    rows = [r if r[0] != "mayfly" else (r[0], r[1], "Invertebrate") for r in TRAITS]
    assert _predict(tmp_path, rows) == 0
    assert "metabolic=Invertebrate" in seen["trait_names"] and "metabolic=invertebrate" in seen["trait_names"]
    assert "'Invertebrate' and 'invertebrate' in metabolic: categories that differ only in case" in \
        _notes(capsys, caplog)


def test_a_column_of_names_or_free_text_is_refused(tmp_path, capsys, seen):
    """A different text on every row (common names, notes) is no category: refused, not seven one-row traits."""
    rows = [(s, m, f"common {s}") for s, m, _ in TRAITS]
    assert _predict(tmp_path, rows, header="species,log_mass,common_name") == 1
    err = capsys.readouterr().err
    assert "trait 'common_name' is text with a different value on each of its 7 rows" in err
    assert "names or free text" in err and "data" not in seen


def test_more_than_twenty_categories_are_refused(tmp_path):
    species = [f"sp{i}" for i in range(24)]
    p = tmp_path / "traits.csv"
    p.write_text("species,genus\n" + "".join(f"{s},genus{i // 1 if i < 22 else 0}\n" for i, s in enumerate(species)))
    with pytest.raises(MalformedFileError, match=r"traits\.csv:1: trait 'genus' is text with 22 different values "
                                                 r".*too many categories to one-hot encode \(at most 20\)"):
        read_species_traits(p, species, categorical=True)
    p.write_text("species,group\n" + "".join(f"{s},g{i % 20}\n" for i, s in enumerate(species)))  # 20: accepted
    x, names, _ = read_species_traits(p, species, categorical=True)
    assert len(names) == 20 and (np.nansum(x, axis=1) == 1).all()


def test_a_header_not_detected_above_text_columns_is_not_a_new_species(tmp_path, capsys, seen):
    """Above text columns only, a header row that no header word shows would be read as a species without links,
    its column names as its categories; said, with the options that decide."""
    rows = [(s, c.strip()) for s, _, c in TRAITS]
    assert _predict(tmp_path, rows, header="Art,guild") == 1
    err = capsys.readouterr().err
    assert "traits.csv:1: the first row ('Art,guild') names no species of the web and holds no number: a " \
           "header row?" in err
    assert "data" not in seen
    (tmp_path / "web.csv").write_text(WEB)
    assert gatbio_main(["foodweb", "predict", str(tmp_path / "web.csv"), "--traits", str(tmp_path / "traits.csv"),
                        "--seeds", "0", "--quiet", "--header"]) == 0
    assert seen["trait_names"] == [f"guild={c}" for c in CATEGORIES]


def test_tables_of_numbers_elsewhere_still_refuse_text(tmp_path):
    """Only species traits opt in: protein feature tables (embeddings), read_node_table's default and
    read_species_traits' default still refuse a text column."""
    p = tmp_path / "features.tsv"
    p.write_text("id\tf1\tf2\nP1\t0.1\tplant\nP2\t0.2\tanimal\nP3\t0.3\tplant\n")
    with pytest.raises(MalformedFileError, match=r"features\.tsv:2: feature 'f2' must be a number, found 'plant'"):
        read_protein_features(p, ["P1", "P2", "P3"])
    with pytest.raises(MalformedFileError, match=r"features\.tsv:2: value 'f2' must be a number, found 'plant'"):
        read_node_table(p, ["P1", "P2", "P3"], what="id")
    t = tmp_path / "traits.csv"
    t.write_text("species,metabolic\nalgae,plant\nsnail,invertebrate\n")
    with pytest.raises(MalformedFileError, match=r"traits\.csv:2: trait 'metabolic' must be a number, found "
                                                 r"'plant' \(one-hot encode categorical traits"):
        read_species_traits(t, ["algae", "snail"])
    x, names, _ = read_species_traits(t, ["algae", "snail"], categorical=True)
    assert names == ["metabolic=invertebrate", "metabolic=plant"] and x.tolist() == [[0, 1], [1, 0]]


@pytest.mark.parametrize("mark", ["?", "N/A", "-"])
def test_missing_value_marks_in_a_column_of_numbers_are_named_not_a_valid_number(tmp_path, capsys, seen, mark):
    """Mostly '?' with a few numbers: the column was taken for text categories and refused at a valid number
    ('holds a number here, found 1.2'); all '?': a constant trait 'log_mass=?'."""
    rows = [(s, mark if k < 4 else m, c) for k, (s, m, c) in enumerate(TRAITS)]
    assert _predict(tmp_path, rows) == 1
    err = capsys.readouterr().err
    assert f"traits.csv:2: trait 'log_mass': {mark!r} looks like a mark for a missing value: leave the cell empty" \
        in err
    assert _predict(tmp_path, [(s, mark, c) for s, m, c in TRAITS]) == 1
    assert "looks like a mark for a missing value" in capsys.readouterr().err
    assert "data" not in seen


def test_a_category_starting_with_a_digit_says_how_to_write_it(tmp_path, capsys, seen):
    rows = [(s, m, "2D" if k % 2 else "3D") for k, (s, m, c) in enumerate(TRAITS)]
    assert _predict(tmp_path, rows) == 1
    err = capsys.readouterr().err
    assert "found '3D'" in err and "'2D' or '1st' do, so write such categories starting with a letter" in err
