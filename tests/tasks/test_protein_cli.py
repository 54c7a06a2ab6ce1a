"""`gatbio protein predict` on user files: predictions, explanations, isolated proteins, bad input."""

import re

import numpy as np
import pandas as pd
import pytest

from gatbio.cli import main


@pytest.fixture
def files(tmp_path):
    """Two communities of 12 proteins (kinases / transporters), half annotated, one bridge."""
    rng = np.random.default_rng(0)
    edges = [f"{c}{i} {c}{j}" for c in "KT" for i in range(12) for j in range(i + 1, 12) if rng.random() < 0.5]
    (tmp_path / "edges.txt").write_text("\n".join(edges + ["K0 T0"]) + "\n")
    labels = [f"{c}{i} {'kinase' if c == 'K' else 'transport'}" for c in "KT" for i in range(0, 12, 2)]
    (tmp_path / "labels.txt").write_text("\n".join(labels) + "\n")
    (tmp_path / "nodes.txt").write_text("\n".join([f"{c}{i}" for c in "KT" for i in range(12)] + ["LONE"]) + "\n")
    return tmp_path


def test_predict_writes_one_row_per_unannotated_protein_with_evidence(files, capsys):
    rc = main(["protein", "predict", "--edges", str(files / "edges.txt"), "--labels", str(files / "labels.txt"),
               "--nodes", str(files / "nodes.txt"), "--out", str(files / "pred.csv"),
               "--explain", str(files / "why.tsv"), "--epochs", "40", "--top", "2"])
    out, err = capsys.readouterr()
    assert rc == 0 and ("13 unannotated proteins predicted (1 isolated, flagged: no interaction with another "
                        "protein, so the same scores for each)") in out
    assert "# note: 12 annotated proteins to learn from (1 held out for early stopping): with so few" in err
    assert "label homophily: an annotated neighbour shares a function" in out and "weak predictions" not in out
    assert "embedding: prone + netmf (25 nodes <= 8,000: exact dense matrix)" in out
    pred = pd.read_csv(files / "pred.csv")
    assert sorted(pred["protein"]) == sorted([f"{c}{i}" for c in "KT" for i in range(1, 12, 2)] + ["LONE"])
    assert pred.set_index("protein").loc["LONE", "isolated"] and not pred["isolated"].iloc[:-1].any()
    top = pred.set_index("protein")["top_functions"].str.split(";").str[0]
    assert (top[[f"K{i}" for i in range(1, 12, 2)]] == "kinase").all()
    assert (top[[f"T{i}" for i in range(1, 12, 2)]] == "transport").all()
    assert "\t" in (files / "why.tsv").read_text().splitlines()[0]  # .tsv: tab-separated
    why = pd.read_csv(files / "why.tsv", sep="\t")
    assert set(why.columns) >= {"protein", "neighbour", "attention", "neighbour_known_labels"}
    assert "LONE" not in set(why["protein"]) and (why["protein"] != why["neighbour"]).all()
    assert why.groupby("protein").size().max() <= 5 and why["attention"].between(0, 1).all()


def test_bad_input_gives_one_clear_line(files, capsys, caplog):
    base = ["protein", "predict", "--edges", str(files / "edges.txt"), "--out", str(files / "p.csv")]
    (files / "ghost.txt").write_text("K1 kinase\nGHOST kinase\n")
    assert main(base + ["--labels", str(files / "ghost.txt")]) != 0
    err = capsys.readouterr().err
    # a protein outside the network is left out with a note (line and name); here that leaves one to learn from
    assert "ghost.txt: 1 of 2 label lines name nodes that are not in the graph (e.g. 'GHOST' (line 2)): left out" \
        in caplog.text and "annotates 1 protein(s)" in err
    (files / "empty.txt").write_text("# no labels yet\n")
    assert main(base + ["--labels", str(files / "empty.txt")]) != 0
    assert "no label rows" in capsys.readouterr().err
    (files / "one.txt").write_text("K1 kinase\n")
    assert main(base + ["--labels", str(files / "one.txt")]) != 0
    assert "annotates 1 protein(s)" in capsys.readouterr().err
    (files / "loops.txt").write_text("A A\nB B\n")
    assert main(["protein", "predict", "--edges", str(files / "loops.txt"), "--labels", str(files / "one.txt"),
                 "--out", str(files / "p.csv")]) != 0
    assert "no interactions between two different proteins" in capsys.readouterr().err


def test_sif_files_are_refused_as_edge_lists_and_read_with_format_sif(files, capsys):
    sif = [line.replace(" ", " pp ") for line in (files / "edges.txt").read_text().splitlines()]
    (files / "net.sif").write_text("\n".join(sif) + "\n")
    base = ["protein", "predict", "--edges", str(files / "net.sif"), "--labels", str(files / "labels.txt"),
            "--epochs", "5"]
    assert main(base + ["--out", str(files / "a.csv")]) == 1
    assert "looks like a Cytoscape SIF file ('protein type protein'; column 2 holds only ['pp']): pass --format " \
           "sif" in capsys.readouterr().err
    assert main(base + ["--out", str(files / "b.csv"), "--format", "sif"]) == 0
    pred = pd.read_csv(files / "b.csv")
    assert "pp" not in set(pred["protein"]) and len(pred) == 12
    capsys.readouterr()


def test_few_values_in_column_2_of_a_table_chosen_by_name_are_read_as_asked(files, capsys, caplog):
    """AP-MS rows 'prey bait method' with two baits look like SIF lines: the default format refuses them and says
    how to read them; --format tsv reads the first two columns as the proteins, with a note."""
    edges = [line.split() for line in (files / "edges.txt").read_text().splitlines()]
    rows = [f"{a}\t{'K0' if a < 'T' else 'T0'}\tAP-MS" for a, _ in edges if a not in ("K0", "T0")]
    (files / "apms.tsv").write_text("\n".join(rows) + "\n")
    base = ["protein", "predict", "--edges", str(files / "apms.tsv"), "--labels", str(files / "labels.txt"),
            "--nodes", str(files / "nodes.txt"), "--epochs", "5"]
    assert main(base + ["--out", str(files / "a.csv")]) == 1
    assert "pass --format sif (or --format tsv / csv to read its first two columns as the proteins)" in \
        capsys.readouterr().err
    assert main(base + ["--out", str(files / "b.csv"), "--format", "tsv"]) == 0
    err = caplog.text
    assert "column 2 holds only ['K0', 'T0'], as a Cytoscape SIF file's interaction types would; read as " \
           "--format tsv asks" in err
    assert "AP-MS" not in set(pd.read_csv(files / "b.csv")["protein"])


def test_plot_without_a_drawable_protein_is_refused_before_training(files, capsys):
    """Every unannotated protein isolated: no neighbourhood to draw, said before any training."""
    (files / "iso.txt").write_text("\n".join(f"{c}{i} {c}x" for c in "KT" for i in range(12)) + "\n")
    assert main(["protein", "predict", "--edges", str(files / "edges.txt"), "--labels", str(files / "iso.txt"),
                 "--nodes", str(files / "nodes.txt"), "--out", str(files / "p.csv"), "--plot",
                 str(files / "p.png")]) == 1
    err = capsys.readouterr().err
    assert "--plot: every unannotated protein is isolated" in err and not (files / "p.csv").exists()


def test_homophily_line_known_answers():
    import torch
    from torch_geometric.data import Data

    from gatbio.tasks.protein_cli import homophily_line

    ei = torch.tensor([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]])  # path 0-1-2-3
    # functions a a b b: 4 of 6 directed edges keep the function, chance 1/2
    data = Data(edge_index=ei, y=torch.tensor([[1, 0], [1, 0], [0, 1], [0, 1]]), num_nodes=4)
    assert homophily_line(data) == ("label homophily: an annotated neighbour shares a function 66.7% of the time, "
                                    "chance 50.0% (1.3x); the functions barely follow the interactions, so expect "
                                    "weak predictions")
    data.y = torch.tensor([[1, 0], [0, 0], [0, 1], [0, 0]])  # no edge joins two annotated proteins
    assert "no interaction joins two annotated proteins" in homophily_line(data)
    # the linked annotated proteins all have one function (another one's only protein has no interaction): no
    # "100% of the time, chance 100% (1.0x); the functions barely follow the interactions" contradiction
    data.y = torch.tensor([[1, 0], [1, 0], [1, 0], [1, 0], [0, 1]])
    data.num_nodes = 5
    assert homophily_line(data) == ("label homophily: every interaction between annotated proteins joins proteins "
                                    "with the same functions, so the interactions cannot tell functions apart; "
                                    "expect weak predictions")


@pytest.mark.parametrize("lift,barely", [(1.44, True), (1.47, False), (1.6, False)])
def test_homophily_warning_follows_the_printed_lift(monkeypatch, lift, barely):
    """A lift of 1.47 is printed as 1.5x: no "barely follow" warning beside it (the threshold is 1.5x as printed)."""
    import gatbio.metrics
    from gatbio.tasks.protein_cli import homophily_line

    monkeypatch.setattr(gatbio.metrics, "label_homophily",
                        lambda ei, y: {"homophily": 0.3 * lift, "expected": 0.3, "lift": lift})
    line = homophily_line(type("D", (), {"edge_index": None, "y": None})())
    assert f"({lift:.1f}x)" in line and ("barely follow" in line) == barely


@pytest.mark.parametrize("table,message", [
    ("{} kinase", "all 12 annotated proteins have the one function 'kinase', so there is nothing to tell apart and "
                  "nothing to predict; give a label table with at least two functions"),
    ("{} kinase membrane", "all 12 annotated proteins have the same functions (kinase; membrane), so there is "
                           "nothing to tell apart"),
])
def test_a_label_table_of_one_function_is_refused_before_any_work(files, capsys, table, message):
    """Every annotated protein with the same function(s): nothing to learn, said naming the label file, instead of a
    homophily line of 100% against a chance of 100% and a training run."""
    annotated = [line.split()[0] for line in (files / "labels.txt").read_text().splitlines()]
    (files / "same.txt").write_text("".join(table.format(n) + "\n" for n in annotated))
    assert main(["protein", "predict", "--edges", str(files / "edges.txt"), "--labels", str(files / "same.txt"),
                 "--out", str(files / "p.csv")]) == 1
    captured = capsys.readouterr()
    assert f"{files / 'same.txt'}: {message}" in captured.err
    assert "label homophily" not in captured.out and "embedding:" not in captured.out
    assert not (files / "p.csv").exists()


def test_predict_unannotated_refuses_one_function():
    import torch
    from torch_geometric.data import Data

    from gatbio.tasks.protein import predict_unannotated

    data = Data(edge_index=torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]), num_nodes=3, node_names=["a", "b", "c"],
                y=torch.tensor([[1.0], [1.0], [0.0]]), label_names=["x"])
    with pytest.raises(ValueError, match="the label table: all 2 annotated proteins have the one function 'x'"):
        predict_unannotated(data)


@pytest.mark.parametrize("fmt", ["edgelist", "string"])
def test_read_network_keeps_weights_with_their_edges(tmp_path, fmt):
    from gatbio.tasks.protein_cli import read_network

    # rows out of sorted order (and a self-loop to drop), so that sorting the edges must move the weights too
    known = {("C", "D"): 0.3, ("A", "B"): 0.9, ("B", "C"): 0.5, ("A", "D"): 0.1}
    rows = [(a, b, w) for (a, b), w in known.items()] + [("B", "B", 0.7)]
    if fmt == "edgelist":
        text = "".join(f"{a} {b} {w}\n" for a, b, w in rows)
    else:  # STRING: every interaction listed in both directions, scores 0-1000
        text = "protein1 protein2 combined_score\n" + "".join(
            f"{x} {y} {round(w * 1000)}\n" for a, b, w in rows for x, y in ((a, b), (b, a)))
    path = tmp_path / "edges.txt"
    path.write_text(text)
    data = read_network(str(path), fmt)
    names = data.node_names
    pairs = [(names[u], names[v]) for u, v in data.edge_index.t().tolist()]
    assert sorted(pairs) == sorted(list(known) + [(b, a) for a, b in known])  # both directions, no self-loop
    assert data.edge_index.t().tolist() == sorted(data.edge_index.t().tolist())  # sorted by (source, target)
    got = dict(zip(pairs, data.edge_weight.tolist(), strict=True))
    for (a, b), w in known.items():
        assert got[a, b] == pytest.approx(w) and got[b, a] == pytest.approx(w)


def test_a_label_table_that_annotates_every_protein_is_refused_before_any_work(files, capsys):
    names = sorted({n for line in (files / "edges.txt").read_text().split() for n in [line]})
    (files / "all.txt").write_text("".join(f"{n} kinase\n" for n in names))
    assert main(["protein", "predict", "--edges", str(files / "edges.txt"), "--labels", str(files / "all.txt"),
                 "--out", str(files / "p.csv")]) == 1
    captured = capsys.readouterr()
    assert "all.txt annotates every protein of" in captured.err and "nothing to predict (give the proteins to " \
        "predict with --nodes FILE" in captured.err
    assert "embedding:" not in captured.out and "label homophily" not in captured.out


BIOGRID_HEADER = ("#BioGRID Interaction ID\tEntrez Gene Interactor A\tEntrez Gene Interactor B\t"
                  "Official Symbol Interactor A\tOfficial Symbol Interactor B\tExperimental System Type\n")


@pytest.mark.parametrize("fmt", ["edgelist", "tsv"])
def test_a_biogrid_file_read_as_a_plain_table_is_refused(tmp_path, fmt):
    """Its header is a '#' line (a comment to an edge list): read as a table, the interaction ids and Entrez ids
    (the third column as weights) would have made a wrong graph without a word."""
    from gatbio.data.io import MalformedFileError
    from gatbio.tasks.protein_cli import read_network

    rows = "".join(f"{100 + k}\t{k}\t{k + 1}\tG{k}\tG{k + 1}\tphysical\n" for k in range(5))
    (tmp_path / "bg.txt").write_text(BIOGRID_HEADER + rows)
    with pytest.raises(MalformedFileError, match=rf"bg\.txt:1: is a BioGRID TAB 3\.0 file .*--format {fmt} would "
                                                 "read it wrongly: pass --format biogrid"):
        read_network(str(tmp_path / "bg.txt"), fmt)
    assert read_network(str(tmp_path / "bg.txt"), "biogrid").node_names == [f"G{k}" for k in range(6)]


@pytest.mark.parametrize("fmt", ["edgelist", "csv"])
def test_files_of_other_formats_are_named_and_a_pajek_network_is_read(tmp_path, fmt):
    """A STRING web export (its '#node1' header a comment, its third column an id read as weights), a STRING
    actions file (one line per mode) or a Pajek file (the yeast PPI's format) given as an edge list: refused with
    the format that reads it; --format pajek reads the Pajek network (isolated vertices kept)."""
    from gatbio.data.io import MalformedFileError
    from gatbio.tasks.protein_cli import read_network

    (tmp_path / "web.tsv").write_text("#node1\tnode2\tnode1_string_id\tnode2_string_id\tcombined_score\n"
                                      "A\tB\t9606.1\t9606.2\t0.9\n")
    (tmp_path / "act.txt").write_text("item_id_a\titem_id_b\tmode\taction\tis_directional\ta_is_acting\tscore\n"
                                      "A\tB\tbinding\t\tf\tf\t900\n")
    (tmp_path / "y.net").write_text("% a comment, with a comma\n*Vertices 4\n1 \"YAL1\"\n2 \"YAL2\"\n3 \"YAL3\"\n"
                                    "4 \"YAL4\"\n*Edges\n1 2\n2 3\n3 3\n2 1\n")
    for name, match in (("web.tsv", r"web\.tsv:1: is a STRING web export .* would read it wrongly: pass --format "
                                     r"string-web"),
                        ("act.txt", r"act\.txt:1: is a STRING protein\.actions file .*: its modes are read by "
                                     r"'gatbio protein interactions'"),
                        ("y.net", r"y\.net:2: is a Pajek file \('\*Vertices 4'\): pass --format pajek")):
        with pytest.raises(MalformedFileError, match=match):
            read_network(str(tmp_path / name), fmt)
    data = read_network(str(tmp_path / "y.net"), "pajek")
    assert data.node_names == ["YAL1", "YAL2", "YAL3", "YAL4"]
    assert sorted(map(tuple, data.edge_index.t().tolist())) == [(0, 1), (1, 0), (1, 2), (2, 1)]  # loop, repeat gone


def test_organism_keeps_one_organisms_biogrid_rows_and_is_refused_with_other_formats(tmp_path, caplog, capsys):
    """A host-virus row (9606 with 11676, HIV-1) is kept by default, with a note naming --organism;
    --organism 9606 leaves it out, said with the count."""
    from gatbio import cli
    from gatbio.tasks.protein_cli import read_network

    header = BIOGRID_HEADER.rstrip("\n") + "\tOrganism ID Interactor A\tOrganism ID Interactor B\n"
    rows = "".join(f"{100 + k}\t{k}\t{k + 1}\tG{k}\tG{k + 1}\tphysical\t9606\t9606\n" for k in range(4))
    rows += "200\t3\t99\tG3\tvpr\tphysical\t9606\t11676\n"
    (tmp_path / "bg.txt").write_text(header + rows)
    path = str(tmp_path / "bg.txt")
    assert "vpr" in read_network(path, "biogrid").node_names
    assert "1 rows join proteins of two organisms" in caplog.text and "--organism TAXID" in caplog.text
    caplog.clear()
    data = read_network(path, "biogrid", organism=9606)
    assert data.node_names == [f"G{k}" for k in range(5)]
    assert "1 rows with an interactor of another organism than 9606 left out (organism 9606), of 5" in caplog.text
    (tmp_path / "lab.txt").write_text("G0 a\nG1 b\n")
    rc = cli.main(["protein", "predict", "--edges", path, "--labels", str(tmp_path / "lab.txt"), "--organism",
                   "9606", "--out", str(tmp_path / "p.csv")])
    assert rc == 1 and "--organism 9606: an NCBI taxonomy id (a positive number, e.g. 9606), with --format biogrid " \
        "(this is --format edgelist)" in capsys.readouterr().err and not (tmp_path / "p.csv").exists()


def test_string_scores_are_said_to_be_unused_and_min_score_keeps_the_confident_ones(tmp_path, caplog, capsys):
    from gatbio.tasks.protein_cli import read_network

    scores = {("A", "B"): 900, ("B", "C"): 150, ("C", "D"): 800, ("D", "E"): 700, ("E", "F"): 200}
    (tmp_path / "links.txt").write_text("protein1 protein2 combined_score\n" + "".join(
        f"{x} {y} {s}\n" for (a, b), s in scores.items() for x, y in ((a, b), (b, a))))
    path = str(tmp_path / "links.txt")
    assert read_network(path, "string").num_nodes == 6
    assert "every listed interaction is used, whatever its combined_score (150 to 900" in caplog.text
    caplog.clear()
    data = read_network(path, "string", min_score=700)
    pairs = {(data.node_names[u], data.node_names[v]) for u, v in data.edge_index.t().tolist() if u < v}
    assert pairs == {("A", "B"), ("C", "D"), ("D", "E")} and data.node_names == ["A", "B", "C", "D", "E"]
    assert data.edge_weight.min().item() == pytest.approx(0.7)
    assert "3 of 5 interactions have combined_score >= 700 (--min-score) and are used; 1 protein(s) left " \
           "without one dropped" in caplog.text
    with pytest.raises(ValueError, match=r"no interaction has combined_score >= 950 \(the highest is 900\)"):
        read_network(path, "string", min_score=950)
    (tmp_path / "l.txt").write_text("A x\nB x\nD y\n")
    base = ["protein", "predict", "--edges", path, "--labels", str(tmp_path / "l.txt"), "--out",
            str(tmp_path / "p.csv")]
    assert main(base + ["--min-score", "400"]) == 1  # --format edgelist: the scores are not STRING's
    assert "--min-score 400: a STRING combined_score from 0 to 1000, with --format string or string-web (this " \
           "is --format edgelist)" in capsys.readouterr().err
    assert main(base + ["--format", "string", "--min-score", "1500"]) == 1
    assert "--min-score 1500: a STRING combined_score from 0 to 1000" in capsys.readouterr().err
    # a web export's 0-1 score read on the 0-1000 scale kept every interaction, with a note saying it filtered
    assert main(base + ["--format", "string-web", "--min-score", "0.7"]) == 1
    assert "--min-score 0.7 is on STRING's 0-1000 scale" in (err := capsys.readouterr().err) and \
        "is --min-score 700" in err
    assert not (tmp_path / "p.csv").exists()


def test_a_label_table_wider_than_the_network_is_read_with_a_note(tmp_path, caplog):
    """A genome-wide label table against a subnetwork (or one that --min-score cut): the other proteins' lines are
    left out with their count (they were an error, which sent the user to filter the table by hand)."""
    from gatbio.tasks.protein_cli import read_labels, read_network

    (tmp_path / "e.txt").write_text("A B\nB C\nC D\n")
    (tmp_path / "l.txt").write_text("A x\nZ1 y\nB y\nZ2 x\nZ3 y\n")
    data = read_labels(read_network(str(tmp_path / "e.txt"), "edgelist"), str(tmp_path / "l.txt"))
    assert data.label_names == ["x", "y"] and data.y.tolist() == [[1, 0], [0, 1], [0, 0], [0, 0]]
    assert "l.txt: 3 of 5 label lines name nodes that are not in the graph (e.g. 'Z1' (line 2), 'Z2' (line 4), " \
           "'Z3' (line 5)): left out" in caplog.text
    (tmp_path / "l2.txt").write_text("Z1 y\nZ2 x\n")  # no line names a protein of the network: the ids differ
    with pytest.raises(ValueError, match=r"l2\.txt:1: 2 line\(s\) name nodes .* no line names a node of the graph"):
        read_labels(read_network(str(tmp_path / "e.txt"), "edgelist"), str(tmp_path / "l2.txt"))


def test_a_go_annotation_file_gives_the_labels(tmp_path, caplog):
    """A GAF file as --labels: GO terms by symbol (or UniProt id when no symbol matches), NOT and IEA rows left
    out; it used to be refused as 'a node without labels' at its '!gaf-version' line."""
    from gatbio.tasks.protein_cli import read_labels, read_network

    def row(acc, sym, go, evidence="IDA", qualifier=""):
        return "\t".join(["UniProtKB", acc, sym, qualifier, go, "PMID:1", evidence, "", "P", "name", "", "protein",
                          "taxon:9606", "20200101", "UniProt", "", ""]) + "\n"

    (tmp_path / "go.gaf").write_text("!gaf-version: 2.2\n" + row("Q1", "A", "GO:0000001") + row("Q2", "B", "GO:0000001")
                                     + row("Q4", "D", "GO:0000002") + row("Q4", "D", "GO:0000003", "IEA")
                                     + row("Q3", "C", "GO:0000002", qualifier="NOT") + row("Q9", "Z", "GO:0000004"))
    (tmp_path / "e.txt").write_text("A B\nB C\nC D\n")
    (tmp_path / "u.txt").write_text("Q1 Q2\nQ2 Q3\nQ3 Q4\n")
    for edges, column in (("e.txt", "DB_Object_Symbol"), ("u.txt", "DB_Object_ID")):
        data = read_labels(read_network(str(tmp_path / edges), "edgelist"), str(tmp_path / "go.gaf"))
        assert data.label_names == ["GO:0000001", "GO:0000002"]
        assert data.y.tolist() == [[1, 0], [1, 0], [0, 0], [0, 1]]
        assert f"2 GO terms of 3 proteins of the network, matched by {column}" in caplog.text


@pytest.mark.parametrize("text,line,fields", [
    ("HSP 70 P2\nP2 P3\nP3 P4\n", 1, "3 fields ('HSP 70 P2') where line 2 has 2"),
    ("heat shock 70 P2\nP2 P3\nP3 P4\n", 1, "4 fields ('heat shock 70 P2') where line 2 has 2"),
    ("P2 P3\nP3 P4\nheat shock P2\n", 3, "3 fields ('heat shock P2') where line 1 has 2"),
])
def test_whitespace_rows_with_names_with_spaces_are_refused_at_their_line(tmp_path, text, line, fields):
    """'HSP 70 P2' among two-field rows was read as an interaction HSP - 70 (P2 ignored with a note), and
    'heat shock 70 P2' was named at the next line as a missing weight."""
    from gatbio.data.io import MalformedFileError
    from gatbio.tasks.protein_cli import read_network

    (tmp_path / "e.txt").write_text(text)
    with pytest.raises(MalformedFileError, match=rf"e\.txt:{line}: {re.escape(fields)}: a protein name with spaces"):
        read_network(str(tmp_path / "e.txt"), "edgelist")
    (tmp_path / "q.txt").write_text('"HSP 70" P2\nP2 P3\n')  # quoted, or a column of weights: read
    assert "HSP 70" in read_network(str(tmp_path / "q.txt"), "edgelist").node_names
    (tmp_path / "w.txt").write_text("protein_a protein_b\nP1 P2 0.5\nP2 P3 1\n")
    assert read_network(str(tmp_path / "w.txt"), "edgelist").num_nodes == 3
    (tmp_path / "one.txt").write_text("MAP2K3 MAPK14\nMAPK14\nMAP2K4 MAPK14\n")  # was an IndexError traceback
    with pytest.raises(MalformedFileError, match=r"one\.txt:2: expected 2 columns \(source target\), found 1"):
        read_network(str(tmp_path / "one.txt"), "edgelist")


def test_labels_help_names_the_forms_the_reader_takes(tmp_path):
    """--labels' help named the node2vec format and GAF only; the reader also takes ';'-joined labels, comma-joined
    GO ids in one field and tables of named columns. Each form the help names gives the same labels."""
    from types import SimpleNamespace

    from gatbio.cli import build_parser
    from gatbio.tasks.protein_cli import read_labels

    sub = next(a for a in build_parser()._actions if a.dest == "command").choices["protein"]
    predict = next(a for a in sub._actions if a.dest == "protein_command").choices["predict"]
    text = " ".join(next(a for a in predict._actions if a.dest == "labels").help.split())
    for promise in ("'protein label1 label2 ...' lines (node2vec format", "joined by ';' in one field",
                    "ontology ids joined by commas (GO:1,GO:2)", "(protein go_id go_name evidence)", "label column",
                    "GAF 2.x"):
        assert promise in text, promise
    forms = {
        "node2vec.txt": "P1 GO:1 GO:2\nP2 GO:2\n",
        "several_lines.txt": "P1 GO:1\nP1 GO:2\nP2 GO:2\n",
        "semicolons.tsv": "P1\tGO:1;GO:2\nP2\tGO:2\n",
        "commas.tsv": "P1\tGO:1,GO:2\nP2\tGO:2\n",
        "named.tsv": "protein\tgo_id\tgo_name\tevidence\nP1\tGO:1\tkinase activity\tIDA\n"
                     "P1\tGO:2\tATP binding\tIDA\nP2\tGO:2\tATP binding\tIPI\n",
    }
    for name, content in forms.items():
        (tmp_path / name).write_text(content)
        data = read_labels(SimpleNamespace(node_names=["P1", "P2", "P3"]), str(tmp_path / name))
        assert data.label_names == ["GO:1", "GO:2"], name
        assert data.y.tolist() == [[1, 1], [0, 1], [0, 0]], name


def test_a_protein_with_only_a_self_loop_is_said_to_have_one(files, capsys, caplog):
    """A protein whose only line in the edge file is a self-loop (removed, with a note) was flagged 'isolated' with
    'no interaction', as if the file did not name it (node2vec_PPI.edgelist has 7 such proteins)."""
    edges = (files / "edges.txt").read_text() + "SELF SELF\n"
    (files / "loops.txt").write_text(edges)
    base = ["protein", "predict", "--edges", str(files / "loops.txt"), "--labels", str(files / "labels.txt"),
            "--out", str(files / "pred.csv"), "--epochs", "3", "--quiet"]
    assert main(base) == 0
    out = capsys.readouterr().out
    assert "loops.txt: 1 self-loop(s) removed" in caplog.text
    assert "13 unannotated proteins predicted (1 isolated, flagged: no interaction other than with itself " \
           "(self-loops are removed), so the same scores for each)" in out
    assert pd.read_csv(files / "pred.csv").set_index("protein").loc["SELF", "isolated"]
    assert main([*base, "--nodes", str(files / "nodes.txt")]) == 0  # and LONE, in --nodes only
    assert "14 unannotated proteins predicted (2 isolated, flagged: no interaction with another protein (1 of " \
           "them only with itself: self-loops are removed), so the same scores for each)" in capsys.readouterr().out


def _two_communities(y_kind: str = "multi-hot"):
    """Two 8-protein cliques (functions a, b), every other protein annotated, one bridge."""
    import torch
    from torch_geometric.data import Data

    edges = [(c * 8 + i, c * 8 + j) for c in range(2) for i in range(8) for j in range(8) if i != j] + [(0, 8), (8, 0)]
    ids = torch.tensor([c if i % 2 == 0 else -1 for c in range(2) for i in range(8)])
    y = ids if y_kind == "class ids" else torch.nn.functional.one_hot(ids.clamp_min(0), 2).float() * (ids >= 0)[:, None]
    return Data(edge_index=torch.tensor(edges).t(), num_nodes=16, y=y, label_names=["a", "b"],
                node_names=[f"{'AB'[c]}{i}" for c in range(2) for i in range(8)])


@pytest.mark.parametrize("change,error,match", [
    (lambda d: setattr(d, "y", d.y.numpy()), TypeError, r"data.y must be a torch tensor.*got ndarray \(use "
                                                        r"torch.as_tensor\(data.y\)\)"),
    (lambda d: setattr(d, "y", d.y[:12]), ValueError, r"data.y has shape \(12, 2\) but the graph has 16 proteins"),
    (lambda d: delattr(d, "node_names"), ValueError, "data has no node_names: the predictions name each protein"),
    (lambda d: delattr(d, "label_names"), ValueError, "data has no label_names"),
    (lambda d: setattr(d, "label_names", ["a"]), ValueError, "data.label_names has 1 names but data.y has 2 columns"),
    (lambda d: setattr(d, "node_names", ["x"] * 15), ValueError, "data.node_names has 15 names but the graph has 16"),
    (lambda d: setattr(d, "y", d.y * 2), ValueError, "data.y must be multi-hot: 1 where a protein has a function"),
    (lambda d: setattr(d, "y", d.y.argmax(1) + 1), ValueError, r"as class ids it must be integers in 0\.\.1"),
])
def test_predict_unannotated_checks_its_data_before_any_work(monkeypatch, change, error, match):
    """Each was found only after training (numpy's 'Calling nonzero on 0d arrays', AttributeError, IndexError) or
    gave a false answer (y of 12 rows for 16 proteins: 'every protein in the graph is annotated')."""
    from gatbio.tasks import protein

    monkeypatch.setattr(protein, "node_features", lambda *a, **k: pytest.fail("computed the inputs"))
    data = _two_communities()
    change(data)
    with pytest.raises(error, match=match):
        protein.predict_unannotated(data)


def test_predict_unannotated_reads_class_ids_as_one_hot_and_takes_a_dict_config(capsys):
    """yeast-bu2003's y: long (N,) class ids with -1 for unlabelled; cfg as a dict (was AttributeError)."""
    from gatbio.tasks.protein import predict_unannotated

    data = _two_communities("class ids")
    given = data.y.clone()
    pred, explain = predict_unannotated(data, {"epochs": 30, "eval_every": 2}, top=1)
    assert "data.y holds class ids with -1 for unannotated: read as one-hot functions (16, 2)" in capsys.readouterr().err
    assert data.y.equal(given)  # the caller's data keeps its y
    assert sorted(pred["protein"]) == sorted(f"{c}{i}" for c in "AB" for i in range(1, 8, 2))
    assert (pred.set_index("protein")["top_functions"].str[0] == pred["protein"].str[0].str.lower().values).all()
    known = {f"{c}{i}": c.lower() for c in "AB" for i in range(0, 8, 2)}  # the neighbours' functions, by name
    assert (explain["neighbour_known_labels"] == explain["neighbour"].map(known).fillna("")).all()
    with pytest.raises(ValueError, match=r"^bad config in cfg: Key 'epoch' not in 'ProteinConfig'"):
        predict_unannotated(data, {"epoch": 5})
    with pytest.raises(TypeError, match="cfg must be a ProteinConfig, a dict of its settings or None; got str"):
        predict_unannotated(data, "config.yaml")


def test_embed_refuses_a_binary_output_name_before_any_work(tmp_path, capsys):
    """``--out emb.npy`` wrote tab-separated text into a file that np.load then could not read: a name that
    promises a binary format is refused, as a spreadsheet's is, before the weights are fetched."""
    (tmp_path / "s.fa").write_text(">P1\nMKTAYIAKQR\n")
    for name in ("emb.npy", "emb.pt"):
        assert main(["protein", "embed", "--sequences", str(tmp_path / "s.fa"), "--out", str(tmp_path / name)]) == 1
        err = capsys.readouterr().err
        assert f"--out {tmp_path / name}: the table is written as plain text" in err and "name it .csv or .tsv" in err
        assert not (tmp_path / name).exists()
