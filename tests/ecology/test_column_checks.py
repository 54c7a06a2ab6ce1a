"""``gatbio trophic FILE``: the columns of a food-web table are chosen without wrong or stuck messages (a column of
presence/absence, repeated header names, one column for both roles), names that differ only in case or Unicode
form are said, and an error about the levels names the file."""

from __future__ import annotations

import pytest

from gatbio.cli import main
from gatbio.ecology.commands import read_foodweb_file

LONG01 = "prey,predator,interaction\ngrass,rabbit,1\ngrass,fox,0\nrabbit,fox,1\nrabbit,grass,0\nfox,grass,0\n" \
         "fox,rabbit,0\n"


def _error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gatbio trophic: error: ")  # one line
    return err.strip()


def test_a_column_of_0_and_1_not_read_is_refused(tmp_path, capsys):
    f = tmp_path / "long01.csv"
    f.write_text(LONG01)
    assert main(["trophic", str(f)]) == 1
    assert _error(capsys) == (
        f"gatbio trophic: error: {f}: column 'interaction' holds only 0 and 1 (4 rows of 0): if it says whether the "
        "link exists, pass --weight interaction (rows of 0 are then no link), or remove those rows; if it says "
        "something else, remove the column")


def test_the_fix_reads_rows_of_0_as_no_link(tmp_path, capsys):
    f = tmp_path / "long01.csv"
    f.write_text(LONG01)
    assert main(["trophic", str(f), "--weight", "interaction"]) == 0
    out = capsys.readouterr().out
    assert "grass         1.0000     0          1" in out and "fox         3.0000     1          0" in out
    data = read_foodweb_file(f, weight="interaction")
    assert data.edge_weight.tolist() == [1, 0, 1, 0, 0, 0]
    assert read_foodweb_file(f, weight=None).num_edges == 6  # --unweighted: every row is a link, as said


@pytest.mark.parametrize("values, held, fix", [
    (("Yes", "no", "YES", "No"), "Yes and no (2 rows of no)", "write it as 1 and 0 and pass --weight present"),
    (("TRUE", "FALSE", "true", "true"), "TRUE and FALSE (1 row of FALSE)", "write it as 1 and 0"),
    (("y", "n", "y", "y"), "y and n (1 row of n)", "remove the rows of n"),
    (("1.0", "0.0", "1", "0"), "0 and 1 (2 rows of 0)", "pass --weight present (rows of 0 are then no link)"),
    (("no", "No", "no", "no"), "no (4 rows of no)", "remove the rows of no"),
])
def test_yes_and_no_in_any_spelling_are_refused(tmp_path, capsys, values, held, fix):
    f = tmp_path / "yn.csv"
    pairs = [("grass", "rabbit"), ("grass", "fox"), ("rabbit", "fox"), ("fox", "grass")]
    rows = "".join(f"{a},{b},{v}\n" for (a, b), v in zip(pairs, values, strict=True))
    f.write_text("prey,predator,present\n" + rows)
    assert main(["trophic", str(f)]) == 1
    err = _error(capsys)
    assert f"column 'present' holds only {held}: if it says whether the link exists, " in err and fix in err


def test_presence_columns_without_a_header_and_after_the_first_rows(tmp_path, capsys):
    nohdr = tmp_path / "nohdr.txt"  # tab separated, no header: columns by number
    nohdr.write_text("grass\trabbit\t1\t1\ngrass\tfox\t1\t0\nrabbit\tfox\t1\t1\n")
    assert main(["trophic", str(nohdr)]) == 1
    assert f"{nohdr}: column 4 holds only 0 and 1 (1 row of 0): if it says whether the link exists, pass " \
           "--weight 4 " in _error(capsys)
    words = tmp_path / "words.txt"  # a third column of text is not weights: its 'no' rows are not links either
    words.write_text("grass\trabbit\tyes\ngrass\tfox\tno\n")
    assert main(["trophic", str(words)]) == 1
    assert "column 3 holds only yes and no (1 row of no)" in _error(capsys)
    late = tmp_path / "late.csv"  # the 0 only after the first 100 rows: the whole file decides
    late.write_text("prey,predator,present\n" + "".join(f"s{i},s{i + 1},1\n" for i in range(150)) + "s0,s9,0\n")
    assert main(["trophic", str(late)]) == 1
    assert "column 'present' holds only 0 and 1 (1 row of 0)" in _error(capsys)


def test_columns_that_are_not_presence_are_only_not_read(tmp_path, capsys, caplog):
    ones = tmp_path / "ones.csv"  # no 0: nothing is left out by reading every row
    ones.write_text("prey,predator,present\ngrass,rabbit,1\nrabbit,fox,1\n")
    assert main(["trophic", str(ones)]) == 0
    other = tmp_path / "other.csv"  # a 2 among the 0s and 1s after the first rows: not a yes/no column
    other.write_text("prey,predator,site\n" + "grass,rabbit,0\nrabbit,fox,1\n" * 60 + "fox,wolf,2\n")
    assert main(["trophic", str(other)]) == 0
    assert "column 'site' not read" in caplog.text
    weights = tmp_path / "w.txt"  # a third column of 0 and 1 without a header is read as weights (as before)
    weights.write_text("grass rabbit 1\ngrass fox 0\nrabbit fox 1\n")
    capsys.readouterr()
    assert main(["trophic", str(weights)]) == 0
    assert "1 of 3 links have weight 0 and are not counted" in caplog.text
    # the header line counts the links the levels count (it said 3 links)
    assert capsys.readouterr().out.startswith("# w: 3 species, 2 links (and 1 of weight 0, not counted), ")


def test_a_numeric_source_picks_among_columns_named_for_the_prey(tmp_path, capsys, caplog):
    f = tmp_path / "two.csv"  # two columns could be the prey: --source chooses, and is not asked for again
    f.write_text("prey,prey_name,predator\nx,grass,rabbit\ny,rabbit,fox\n")
    assert main(["trophic", str(f)]) == 1
    assert "several columns could be the preys ('prey', 'prey_name'): pick one with --source COLUMN" \
        in _error(capsys)
    for source in ("2", "prey_name"):
        data = read_foodweb_file(f, source=source)
        assert data.node_names == ["grass", "rabbit", "fox"] and data.edge_index.tolist() == [[0, 1], [1, 2]]
    assert main(["trophic", str(f), "--source", "1"]) == 0
    assert capsys.readouterr().out.startswith("# two: 4 species, 2 links")  # x, y, rabbit, fox


def test_repeated_header_names_ask_to_rename_one(tmp_path, capsys):
    dup = tmp_path / "dupprey.csv"
    dup.write_text("prey,prey,predator\ngrass,grass,rabbit\nrabbit,rabbit,fox\n")
    for extra in ([], ["--source", "1"], ["--source", "prey"]):
        assert main(["trophic", str(dup), *extra]) == 1
        err = _error(capsys)
        assert err.endswith(": rename one") and "'prey'" in err and "--source COLUMN" not in err, err
    dupw = tmp_path / "dupw.csv"  # two columns of weights: neither is silently left out
    dupw.write_text("prey,predator,weight,weight\ngrass,rabbit,1,2\nrabbit,fox,1,2\n")
    assert main(["trophic", str(dupw)]) == 1
    assert _error(capsys) == f"gatbio trophic: error: {dupw}:1: columns 3 and 4 are both named 'weight': rename one"


def test_two_columns_named_like_weights_are_refused(tmp_path, capsys):
    f = tmp_path / "twow.csv"
    f.write_text("prey,predator,weight,flow\ngrass,rabbit,1,2\nrabbit,fox,1,2\n")
    assert main(["trophic", str(f)]) == 1
    assert _error(capsys) == f"gatbio trophic: error: {f}:1: several columns could be the link weights ('weight', " \
                             "'flow'): pick one with --weight COLUMN (or --unweighted)"
    assert read_foodweb_file(f, weight="flow").edge_weight.tolist() == [2, 2]


def test_one_column_for_two_roles_is_refused(tmp_path, capsys):
    f = tmp_path / "s.csv"
    f.write_text("grass,rabbit\nrabbit,fox\n")
    assert main(["trophic", str(f), "--source", "1", "--target", "1"]) == 1
    assert _error(capsys) == "gatbio trophic: error: --source 1 and --target 1 name the same column (1): a link " \
                             "needs its prey and its predator in two columns: give two different columns"
    named = tmp_path / "named.csv"
    named.write_text("prey,predator\ngrass,rabbit\n")
    with pytest.raises(ValueError, match="--source prey and --target 1 name the same column"):
        read_foodweb_file(named, source="prey", target="1")
    with pytest.raises(ValueError, match="--weight 2: column 2 is the predator column, not weights"):
        read_foodweb_file(f, weight="2")


def test_names_that_differ_only_in_case_or_unicode_form_are_said(tmp_path, caplog):
    f = tmp_path / "case.csv"
    f.write_bytes(b"grass,rabbit\nRabbit,fox\nCaf\xc3\xa9,fox\nCafe\xcc\x81,wolf\n")
    data = read_foodweb_file(f)
    assert data.num_nodes == 7  # still read as they are written
    assert f"{f}: 2 pairs of species names differ only in case or Unicode form (e.g. 'rabbit' (line 1) and " \
           "'Rabbit' (line 2)): read as different species; write each species one way if they are the same" \
           in caplog.text
    caplog.clear()
    nfd = tmp_path / "nfd.txt"  # one pair, differing only in form: shown so that the two can be told apart
    nfd.write_bytes(b"grass Caf\xc3\xa9\ngrass Cafe\xcc\x81\n")
    read_foodweb_file(nfd)
    assert "1 pair of species names differs only in case or Unicode form (e.g. 'Caf\\xe9' (line 1) and " \
           "'Cafe\\u0301' (line 2))" in caplog.text
    caplog.clear()
    pajek = tmp_path / "p.net"  # every format passes the check
    pajek.write_text('*Vertices 3\n1 "grass"\n2 "GRASS"\n3 "fox"\n*Arcs\n1 3\n2 3\n')
    read_foodweb_file(pajek)
    assert "(e.g. 'grass' (line 2) and 'GRASS' (line 3))" in caplog.text
    caplog.clear()
    plain = tmp_path / "plain.txt"
    plain.write_text("grass rabbit\nrabbit fox\n")
    read_foodweb_file(plain)
    assert "only in case or Unicode form" not in caplog.text  # (the folder's name holds "differ")


def test_an_error_of_the_levels_names_the_file(tmp_path, capsys):
    f = tmp_path / "loop.csv"
    f.write_text("a,b\nb,a\n")
    assert main(["trophic", str(f), "--method", "levine"]) == 1
    assert _error(capsys) == f"gatbio trophic: error: {f}: food web has no basal species (every node has a prey), " \
                             "so Levine trophic levels are not defined; use method='mackay' (gatbio trophic " \
                             "--method mackay)"
