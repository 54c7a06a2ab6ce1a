"""`gatbio protein predict` on a user's own files: GAF evidence codes, label tables of columns, ids written
another way, and the line saying what was read."""

import pandas as pd
import pytest

from gatbio.cli import main
from gatbio.data.io import MalformedFileError, read_gaf, read_label_table


def _gaf_row(symbol: str, go: str, evidence: str, qualifier: str = "involved_in") -> str:
    return "\t".join(["UniProtKB", f"Q{symbol}", symbol, qualifier, go, "PMID:1", evidence, "", "P", "name", "",
                      "protein", "taxon:9606", "20200101", "UniProt", "", ""])


@pytest.fixture
def network(tmp_path):
    """Two triangles joined by one interaction, a tab-separated edge list with a header."""
    edges = [("A1", "A2"), ("A2", "A3"), ("A1", "A3"), ("B1", "B2"), ("B2", "B3"), ("B1", "B3"), ("A1", "B1")]
    (tmp_path / "ppi.tsv").write_text("protein_a\tprotein_b\n" + "".join(f"{a}\t{b}\n" for a, b in edges))
    return tmp_path


def test_gaf_no_data_annotation_leaves_the_protein_unannotated(network):
    """ND ('no biological data available', made to a root term) says the function is unknown: read as a label,
    it made an uncharacterised protein a labelled one (not predicted) and the root term a function to learn."""
    from gatbio.tasks.protein_cli import read_labels, read_network

    rows = [_gaf_row("A1", "GO:0000001", "IDA"), _gaf_row("A2", "GO:0000001", "IMP"),
            _gaf_row("B1", "GO:0000002", "IDA"), _gaf_row("B2", "GO:0000002", "TAS"),
            _gaf_row("A3", "GO:0008150", "ND"), _gaf_row("B3", "GO:0000001", "IDA", "NOT|involved_in")]
    gaf = network / "a.gaf"
    gaf.write_text("!gaf-version: 2.2\n" + "\n".join(rows) + "\n")
    y, terms, _ = read_gaf(gaf, ["A1", "A2", "A3", "B1", "B2", "B3"])
    assert terms == ["GO:0000001", "GO:0000002"] and y[2].sum() == 0 and y[5].sum() == 0
    data = read_labels(read_network(str(network / "ppi.tsv"), "tsv"), str(gaf))
    annotated = {str(n) for n, row in zip(data.node_names, data.y, strict=True) if row.any()}
    assert annotated == {"A1", "A2", "B1", "B2"} and "GO:0008150" not in data.label_names


@pytest.mark.parametrize("third", ["IDA", "DNA repair", "0.95"])
def test_label_table_of_columns_without_a_header_is_refused(tmp_path, third):
    """'protein GO evidence' (or GO name, or a score) rows without a header: every field after the first was read
    as a label, so evidence codes, term names or scores became functions to predict, without a word."""
    text = "".join(f"P{i}\tGO:000000{i}\t{third}\n" for i in range(1, 4))
    (tmp_path / "t.tsv").write_text(text)
    with pytest.raises(MalformedFileError, match=r"t\.tsv:1: every line has 3 fields, column 2 ontology ids "
                                                 r"\('GO:0000001'\) and column 3 something else .*cut -f1,2"):
        read_label_table(tmp_path / "t.tsv", ["P1", "P2", "P3"])
    # with a header naming the columns, the GO column is read; node2vec lines of labels are read as before
    (tmp_path / "h.tsv").write_text("protein\tGO\tevidence\n" + text)
    y, names = read_label_table(tmp_path / "h.tsv", ["P1", "P2", "P3"])
    assert names == ["GO:0000001", "GO:0000002", "GO:0000003"] and y.sum() == 3
    (tmp_path / "n.txt").write_text("P1 GO:1 GO:2\nP2 GO:2 GO:3\nP3 kinase transport\n")
    assert read_label_table(tmp_path / "n.txt", ["P1", "P2", "P3"])[1] == ["GO:1", "GO:2", "GO:3", "kinase",
                                                                            "transport"]


@pytest.mark.parametrize("other", ["A1.2", "9606.A1"])
def test_label_line_of_a_graph_protein_written_another_way_is_refused(tmp_path, other):
    """A line naming A1.2 (or 9606.A1) in a table matching the graph otherwise was left out as a protein
    outside the network, with a note: A1's labels were lost and A1 was predicted as unannotated."""
    (tmp_path / "l.tsv").write_text(f"A2\tkinase\nB1\ttransport\n{other}\tkinase\n")
    with pytest.raises(MalformedFileError, match=rf"l\.tsv:3: '{other}' is not a node of the graph but differs from "
                                                 r"its node 'A1' only by a version suffix or a taxon prefix: "
                                                 r".*\('A1' counted as unlabelled\); write the graph's ids"):
        read_label_table(tmp_path / "l.tsv", ["A1", "A2", "B1"], unknown_nodes="note")
    # a protein outside the network is still left out, with a note
    (tmp_path / "m.tsv").write_text("A2\tkinase\nB1\ttransport\nZZ9\tkinase\n")
    y, names = read_label_table(tmp_path / "m.tsv", ["A1", "A2", "B1"], unknown_nodes="note")
    assert y.tolist() == [[0, 0], [1, 0], [0, 1]]


def test_predict_says_what_it_read(network, monkeypatch, capsys):
    """A line with the proteins, interactions, annotated proteins, functions and proteins to predict, before any
    training, so that a wrong reading of the files shows."""
    import gatbio.tasks.protein as protein

    def fake(data, cfg, **kw):
        return (pd.DataFrame({"protein": ["A3", "B3"], "isolated": [False, False], "top_functions": ["k", "t"],
                              "scores": ["0.9", "0.9"]}), pd.DataFrame({"protein": [], "neighbour": []}))

    monkeypatch.setattr(protein, "predict_unannotated", fake)  # no training: only what was read is checked
    (network / "l.tsv").write_text("A1\tkinase\nA2\tkinase\nB1\ttransport\nB2\ttransport;binding\n")
    assert main(["protein", "predict", "--edges", str(network / "ppi.tsv"), "--format", "tsv", "--labels",
                 str(network / "l.tsv"), "--out", str(network / "p.csv"), "--device", "cpu", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert (f"read: 6 proteins, 7 interactions ({network / 'ppi.tsv'}); 4 annotated with 3 functions "
            f"({network / 'l.tsv'}); 2 to predict") in out


def test_a_uniprot_export_reads_its_gene_ontology_ids_column(tmp_path):
    """UniProt's export names its columns 'Entry', 'Gene Ontology (biological process)', 'Gene Ontology IDs': the
    labels are the ids column (it was refused: which column holds the labels is not clear)."""
    import torch
    from torch_geometric.data import Data

    from gatbio.data.io import read_label_table

    path = tmp_path / "uniprot.tsv"
    path.write_text("Entry\tGene Ontology (biological process)\tGene Ontology IDs\n"
                    "P1\tapoptotic process [GO:0006915]; DNA repair [GO:0006281]\tGO:0006281; GO:0006915\n"
                    "P2\tDNA repair [GO:0006281]\tGO:0006281\n")
    data = Data(edge_index=torch.tensor([[0, 1], [1, 0]]), num_nodes=3, node_names=["P1", "P2", "P3"])
    y, labels = read_label_table(path, data.node_names)[:2]
    assert sorted(labels) == ["GO:0006281", "GO:0006915"]
    col = {lab: k for k, lab in enumerate(labels)}
    assert y[0, col["GO:0006915"]] == 1 and y[1, col["GO:0006281"]] == 1 and y[1, col["GO:0006915"]] == 0
    assert not y[2].any()  # P3: no line, unlabelled


@pytest.mark.parametrize("table, nodes, left_out", [
    ("F21D5.1\tGO:0000001\nF21D5.9\tGO:0000002\nC10C6.1\tGO:0000003\n", ["F21D5.1", "C10C6.1"], "'F21D5.9'"),
    ("dl\tGO:0000001\nDl\tGO:0000002\nH\tGO:0000003\nh\tGO:0000004\n", ["dl", "H"], "'Dl'"),
])
def test_a_genome_wide_table_of_genes_alike_other_genes_is_read(tmp_path, caplog, table, nodes, left_out):
    """C. elegans' F21D5.1 and F21D5.9, Drosophila's dl (dorsal) and Dl (Delta) are genes of their own: a
    genome-wide table holding them against a subnetwork was refused (they 'differ from a node only by case, a
    version suffix or a taxon prefix') where `protein predict` read it with a note."""
    (tmp_path / "g.tsv").write_text(table)
    y, names = read_label_table(tmp_path / "g.tsv", nodes, unknown_nodes="note")
    assert y.tolist() == [[1, 0], [0, 1]] and names == ["GO:0000001", "GO:0000003"]
    err = caplog.text
    assert f"label lines name nodes that are not in the graph (e.g. {left_out} (line 2)" in err
    if left_out == "'Dl'":  # a case-only difference is said in the note
        assert "2 of them differ from a node only by case (e.g. 'Dl' against 'dl')" in err
    # a node with STRING's taxon prefix and a table without it: that protein, refused
    (tmp_path / "s.tsv").write_text("A2\tkinase\nA1\tkinase\n")
    with pytest.raises(MalformedFileError, match=r"s\.tsv:2: 'A1' is not a node of the graph but differs from its "
                                                 r"node '9606\.A1' only by a version suffix or a taxon prefix"):
        read_label_table(tmp_path / "s.tsv", ["9606.A1", "A2"], unknown_nodes="note")


def test_a_uniprot_export_with_an_entry_without_go_ids_reads_it_unannotated(tmp_path, caplog):
    """An entry without GO ids ends in empty fields: the lines were of other lengths, the label column was not
    found, and every column (entry names, gene names, term names) was read as labels without a word."""
    path = tmp_path / "uniprot.tsv"
    text = ("Entry\tEntry Name\tGene Names\tGene Ontology (biological process)\tGene Ontology IDs\n"
            "P04637\tP53_HUMAN\tTP53 P53\tapoptotic process [GO:0006915]; DNA repair [GO:0006281]\t"
            "GO:0006915; GO:0006281\n"
            "P38398\tBRCA1_HUMAN\tBRCA1 RNF53\t\t\n"
            "Q00987\tMDM2_HUMAN\tMDM2\tDNA repair [GO:0006281]\tGO:0006281\n")
    for written in (text, text.replace("\t\t\n", "\n")):  # trailing empty fields kept, or stripped by an editor
        caplog.clear()
        path.write_text(written)
        y, labels = read_label_table(path, ["P04637", "P38398", "Q00987"])
        assert labels == ["GO:0006281", "GO:0006915"] and y.tolist() == [[1, 1], [0, 0], [1, 0]]
        assert "1 line(s) with an empty label field (e.g. 'P38398', line 3): proteins without annotation" \
            in caplog.text


def test_a_headerless_csv_label_table_suggests_cut_for_commas(tmp_path):
    """The refusal of a headerless protein,GO,evidence table suggested 'cut -f1,2', which splits at tabs only."""
    (tmp_path / "t.csv").write_text("".join(f"P{i},GO:000000{i},IDA\n" for i in range(1, 4)))
    with pytest.raises(MalformedFileError, match=r"e\.g\. cut -d, -f1,2\), or add a header line naming the columns "
                                                 r"\(e\.g\. 'protein,GO,evidence'\)"):
        read_label_table(tmp_path / "t.csv", ["P1", "P2", "P3"])
