"""Readers on tiny files with known answers, and on malformed files (each message asserted)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from conftest import ppi_raw, write

from gatbio.data.io import (
    MalformedFileError,
    pajek_to_data,
    read_adjacency_matrix,
    read_biogrid_tab3,
    read_edge_list,
    read_gaf,
    read_label_table,
    read_pajek,
    read_sif,
    read_string_actions,
    read_string_links,
    read_string_web_export,
)


def edges(d):
    return [(d.node_names[a], d.node_names[b]) for a, b in d.edge_index.t().tolist()]


# ---------------------------------------------------------------- generic edge lists


def test_whitespace_edge_list_keeps_names_order_and_comments(tmp_path):
    p = write(tmp_path, "e.txt", "# comment\nfox  rabbit\nrabbit\tgrass\n\ngrass fox\n")
    d = read_edge_list(p)
    assert d.node_names == ["fox", "rabbit", "grass"] and d.num_nodes == 3
    assert edges(d) == [("fox", "rabbit"), ("rabbit", "grass"), ("grass", "fox")]
    assert d.name == "e"


def test_csv_with_header_weights_and_named_columns(tmp_path):
    p = write(tmp_path, "e.csv", "prey,predator,w\nalga,snail,0.5\nsnail,fish,2\n")
    d = read_edge_list(p, sep=",", header=True, source="prey", target="predator", weight="w")
    assert edges(d) == [("alga", "snail"), ("snail", "fish")]
    assert d.edge_weight.tolist() == [0.5, 2.0]


def test_default_separator_is_detected_as_the_command_line_readers_do(tmp_path):
    """Tabs on every line: names may hold spaces; commas: CSV; whitespace: a name may be quoted; commas that are
    only decimal commas among whitespace lines stay whitespace (the weight parser names them)."""
    tsv = write(tmp_path, "t.txt", "green grass\twild rabbit\nwild rabbit\tred fox\n")
    assert edges(read_edge_list(tsv)) == [("green grass", "wild rabbit"), ("wild rabbit", "red fox")]
    csv = write(tmp_path, "c.txt", "green grass,wild rabbit\n")
    assert edges(read_edge_list(csv)) == [("green grass", "wild rabbit")]
    quoted = write(tmp_path, "q.txt", '"green grass" "wild rabbit"\n')
    assert edges(read_edge_list(quoted)) == [("green grass", "wild rabbit")]
    with pytest.raises(MalformedFileError, match=r"d\.txt:2: weight must be a number, found '1,5': a decimal comma"):
        read_edge_list(write(tmp_path, "d.txt", "a b 1\nb c 1,5\n"), weight=2)


def test_extra_columns_are_noted_or_refused_never_dropped_silently(tmp_path, caplog):
    p = write(tmp_path, "e.tsv", "grass\trabbit\t0.5\tfield obs\nrabbit\tfox\t2\tgut\n")
    d = read_edge_list(p, weight=2)
    assert edges(d) == [("grass", "rabbit"), ("rabbit", "fox")] and d.edge_weight.tolist() == [0.5, 2.0]
    assert "e.tsv: column 4 not read" in caplog.text
    caplog.clear()
    read_edge_list(p)
    assert "e.tsv: columns 3, 4 not read" in caplog.text
    caplog.clear()
    read_edge_list(p, weight=2, extra_columns="ignore")
    assert caplog.text == ""
    with pytest.raises(MalformedFileError, match=r"e\.tsv:1: column 4: more columns than source, target and weight"):
        read_edge_list(p, weight=2, extra_columns="error")
    h = write(tmp_path, "h.csv", "prey,predator,notes\ngrass,rabbit,seen\n")
    read_edge_list(h, header=True)
    assert "h.csv: column 3 ('notes') not read" in caplog.text


@pytest.mark.parametrize("text,kw,msg", [
    ("grass,rabbit,\nrabbit,fox,1\n", {"weight": 2}, r"e\.csv:1: weight \(column 3\) is empty"),
    ("grass,rabbit\n,fox\n", {}, r"e\.csv:2: source \(column 1\) is empty"),
    ("grass,rabbit\nrabbit,\n", {}, r"e\.csv:2: target \(column 2\) is empty"),
    ("grass,rabbit,1\nrabbit\n", {"weight": 2}, r"e\.csv:2: expected 3 columns \(source target weight\), found fewer"),
])
def test_an_empty_field_is_named_as_empty(tmp_path, text, kw, msg):
    with pytest.raises(MalformedFileError, match=msg):
        read_edge_list(write(tmp_path, "e.csv", text), **kw)


def test_undirected_stores_both_directions_and_self_loop_once(tmp_path):
    p = write(tmp_path, "u.tsv", "A\tB\nB\tC\nC\tC\n")
    d = read_edge_list(p, sep="\t", directed=False)
    assert sorted(edges(d)) == sorted([("A", "B"), ("B", "A"), ("B", "C"), ("C", "B"), ("C", "C")])


def test_sif_lines_list_several_targets_and_lone_nodes(tmp_path):
    """Cytoscape SIF: every target of a line is an edge (a table reader kept only the first), a name alone is a
    node without edges, tabs allow names with spaces; the interaction type is dropped."""
    p = write(tmp_path, "n.sif", "A pp B C\n# note\nA pd D\nheat shock 70\tpp\tB\tE\nZ\n")
    d = read_sif(p, directed=True)
    assert edges(d) == [("A", "B"), ("A", "C"), ("A", "D"), ("heat shock 70", "B"), ("heat shock 70", "E")]
    assert d.node_names == ["A", "B", "C", "D", "heat shock 70", "E", "Z"] and d.num_nodes == 7
    assert read_sif(p, directed=False).edge_index.size(1) == 10
    with pytest.raises(MalformedFileError, match=r"b\.sif:2: expected 'source type target \[target ...\]', found 2"):
        read_sif(write(tmp_path, "b.sif", "A pp B\nA pp\n"))
    loop = write(tmp_path, "l.sif", "A pp A\nB pp C\n")  # A's only line is a self-loop
    kept = read_sif(loop, self_loops="remove")
    assert kept.node_names == ["A", "B", "C"] and edges(kept) == [("B", "C"), ("C", "B")]  # A stays, alone


def test_numeric_ids_with_index_base_and_isolated_nodes(tmp_path):
    p = write(tmp_path, "n.txt", "1 2\n2 3\n")
    d = read_edge_list(p, numeric_ids=True, index_base=1, num_nodes=5)
    assert d.num_nodes == 5 and d.edge_index.tolist() == [[0, 1], [1, 2]] and d.node_names[4] == "5"


@pytest.mark.parametrize("text,kw,msg", [
    ("a b\nb c\n# x\nc d e\n", {}, r"e\.txt:4: expected 2 columns \(source target\), found 3"),
    ("a b c\nd\n", {"weight": 2}, r"e\.txt:2: expected 3 columns \(source target weight\), found fewer"),
    ("1 2\n2 x\n", {"numeric_ids": True}, r"e\.txt:2: target id must be an integer, found 'x'"),
    ("1 2 0.5\n2 3 abc\n", {"weight": 2}, r"e\.txt:2: weight must be a number, found 'abc'"),
    ("1 2 0.5\n2 3\n", {"weight": 2}, r"e\.txt:2: weight is missing \(too few columns on this line\)"),
    ("a b\nb a\na b\n", {"duplicates": "error"},
     r"e\.txt:3: duplicate edge 'a' - 'b' \(1 duplicate rows\): remove the repeated line"),
    ("a b\nb a\n", {"duplicates": "error", "directed": False},
     r"e\.txt:2: duplicate interaction \(in either direction\) 'b' - 'a'"),
    ("a a\na b\nc d\na b\n", {"self_loops": "remove", "duplicates": "error"},
     r"e\.txt:4: duplicate edge 'a' - 'b'"),  # line numbers survive the removal of self-loops
    ("a b\nb b\n", {"self_loops": "error"}, r"e\.txt:2: self-loop 'b' -> 'b' \(1 in total\); pass self_loops="),
    ("0 1\n1 7\n", {"numeric_ids": True, "num_nodes": 3}, r"e\.txt:2: node id 7 is out of range for 3 nodes"),
    ("# only a comment\n", {}, r"e\.txt: the file has no data rows"),
])
def test_malformed_edge_lists(tmp_path, text, kw, msg):
    p = write(tmp_path, "e.txt", text)
    with pytest.raises(MalformedFileError, match=msg):
        read_edge_list(p, **kw)


def test_empty_and_missing_files(tmp_path):
    with pytest.raises(MalformedFileError, match=r"e\.txt: the file is empty"):
        read_edge_list(write(tmp_path, "e.txt", ""))
    with pytest.raises(FileNotFoundError, match="nope.txt: no such file"):
        read_edge_list(tmp_path / "nope.txt")


def test_duplicate_policies(tmp_path):
    p = write(tmp_path, "e.txt", "a b 1\nb c 5\na b 3\n")
    assert read_edge_list(p, weight=2).num_edges == 3
    merged = read_edge_list(p, weight=2, duplicates="merge")
    assert edges(merged) == [("a", "b"), ("b", "c")] and merged.edge_weight.tolist() == [3.0, 5.0]
    summed = read_edge_list(p, weight=2, duplicates="merge", reduce="sum")
    assert summed.edge_weight.tolist() == [4.0, 5.0]
    loops = write(tmp_path, "l.txt", "a a\na b\n")
    assert edges(read_edge_list(loops, self_loops="remove")) == [("a", "b")]


def test_unknown_names_against_given_node_list(tmp_path):
    p = write(tmp_path, "e.txt", "a b\nb zz\n")
    with pytest.raises(MalformedFileError, match=r"e\.txt:2: 1 node\(s\) not in node_names, e\.g\. \['zz'\]"):
        read_edge_list(p, node_names=["a", "b"])


# ---------------------------------------------------------------- STRING / BioGRID


STRING_LINKS = ("protein1 protein2 combined_score\n9606.ENSP01 9606.ENSP02 900\n9606.ENSP02 9606.ENSP01 900\n"
                "9606.ENSP01 9606.ENSP03 300\n9606.ENSP03 9606.ENSP01 300\n9606.ENSP02 9606.ENSP03 701\n"
                "9606.ENSP03 9606.ENSP02 701\n")


def test_string_links_merges_directions_and_thresholds(tmp_path):
    p = write(tmp_path, "9606.protein.links.v12.0.txt", STRING_LINKS)
    d = read_string_links(p)
    assert d.num_nodes == 3 and d.num_edges == 6  # 3 interactions, both directions
    assert d.edge_weight.tolist() == pytest.approx([0.9, 0.3, 0.701, 0.9, 0.3, 0.701])
    with pytest.raises(MalformedFileError, match="no interactions left with combined_score >= 950"):
        read_string_links(p, min_score=950)
    hi = read_string_links(p, min_score=700)
    assert hi.num_edges == 4 and sorted(set(hi.edge_weight.tolist())) == pytest.approx([0.701, 0.9])
    # a protein named NA (or null, None) is a name: pandas read it as missing
    na = read_string_links(write(tmp_path, "na.txt", "protein1 protein2 combined_score\nNA None 900\nnull NA 400\n"))
    assert na.node_names == ["NA", "None", "null"] and na.num_edges == 4


@pytest.mark.parametrize("text,msg", [
    ("protein1\tprotein2\tcombined_score\na\tb\t1\n", r"links\.txt:1: expected the header 'protein1 protein2"),
    ("protein1 protein2 combined_score\na b 10\na b c 4\n", r"links\.txt:3: expected 3 columns \(space separated: protein1 protein2 combined_score\), found 4"),
    ("protein1 protein2 combined_score\na b 10\nc d high\n", r"links\.txt:3: combined_score must be an integer, found 'high'"),
    ("protein1 protein2 combined_score\na b 10\nc d 1200\n", r"links\.txt:3: combined_score must be in 0\.\.1000"),
    # the other STRING files named, with what reads them
    ("item_id_a\titem_id_b\tmode\taction\tis_directional\ta_is_acting\tscore\na\tb\tbinding\t\tf\tf\t900\n",
     r"links\.txt:1: .*this is a STRING actions file .*gatbio protein interactions reads it"),
    ("#node1\tnode2\tnode1_string_internal_id\tcombined_score\na\tb\t1\t0.9\n",
     r"links\.txt:1: .*this is a STRING web export .*--format string-web reads it"),
    # the file as STRING wrote it but for tabs, or without its header line
    ("protein1\tprotein2\tcombined_score\na\tb\t1\n",
     r"links\.txt:1: .*; its columns are separated by tabs, STRING's by spaces: read it as a tab-separated edge "
     r"list \(--format tsv\)"),
    ("a b 900\nb c 400\n", r"links\.txt:1: .*found 'a b 900'; the file has no header line: add 'protein1 protein2 "
                           r"combined_score' as its first line, or read it as a plain edge list"),
])
def test_string_links_malformed(tmp_path, text, msg):
    with pytest.raises(MalformedFileError, match=msg):
        read_string_links(write(tmp_path, "links.txt", text))


def test_string_actions_modes_per_pair(tmp_path):
    text = ("item_id_a\titem_id_b\tmode\taction\tis_directional\ta_is_acting\tscore\n"
            "P1\tP2\tbinding\t\tf\tf\t500\nP2\tP1\tbinding\t\tf\tf\t500\nP1\tP2\tactivation\tactivation\tt\tt\t800\n"
            "P2\tP3\treaction\t\tt\tt\t300\n")
    d = read_string_actions(write(tmp_path, "a.txt", text))
    assert d.num_nodes == 3 and d.num_edges == 4
    m = {pair: row for pair, row in zip(edges(d), d.edge_mode.tolist(), strict=True)}
    assert [d.mode_names[i] for i, v in enumerate(m[("P1", "P2")]) if v] == ["activation", "binding"]
    assert m[("P2", "P1")] == m[("P1", "P2")]
    bad = write(tmp_path, "b.txt", text.replace("reaction", "teleport"))
    with pytest.raises(MalformedFileError, match=r"b\.txt:5: unknown mode 'teleport'"):
        read_string_actions(bad)


def test_string_web_export(data_root):
    d = read_string_web_export(data_root / "string_web_export_sample" / "string_interactions.tsv")
    assert d.num_nodes == 12 and d.num_edges == 38
    assert ("MAP2K3", "MAPK14") in edges(d) and d.string_ids[d.node_names.index("MAPK14")] == "9606.ENSP00000229794"


BIOGRID_HEADER = ("#BioGRID Interaction ID\tEntrez Gene Interactor A\tEntrez Gene Interactor B\t"
                  "BioGRID ID Interactor A\tBioGRID ID Interactor B\tOfficial Symbol Interactor A\t"
                  "Official Symbol Interactor B\tExperimental System\tExperimental System Type\t"
                  "Organism ID Interactor A\tOrganism ID Interactor B\n")


def test_biogrid_tab3(tmp_path, caplog):
    rows = ["1\t7157\t4193\t113010\t110358\tTP53\tMDM2\tTwo-hybrid\tphysical\t9606\t9606",
            "2\t4193\t7157\t110358\t113010\tMDM2\tTP53\tAffinity Capture-MS\tphysical\t9606\t9606",
            "3\t7157\t1026\t113010\t107461\tTP53\tCDKN1A\tSynthetic Lethality\tgenetic\t9606\t9606",
            "4\t7157\t99\t113010\t1\tTP53\tYEASTX\tTwo-hybrid\tphysical\t9606\t559292"]
    p = write(tmp_path, "BIOGRID.tab3.txt", BIOGRID_HEADER + "\n".join(rows) + "\n")
    d = read_biogrid_tab3(p, organism=9606, physical_only=True)
    assert d.node_names == ["TP53", "MDM2"] and d.num_edges == 2 and d.edge_weight.tolist() == [2.0, 2.0]
    caplog.set_level("WARNING", logger="gatbio.data")
    read_biogrid_tab3(p, physical_only=True)  # what is left out and what joins two organisms is said
    assert "1 non-physical (e.g. genetic) interaction rows left out" in caplog.text
    assert "1 rows join proteins of two organisms" in caplog.text
    assert "1 rows repeat an interaction (another experiment, or A and B swapped): merged, edge_weight counts" \
        in caplog.text
    assert read_biogrid_tab3(p, id_column="entrez").num_nodes == 4
    caplog.clear()
    loop = write(tmp_path, "l.txt", BIOGRID_HEADER + rows[0] + "\n"
                 + "7\t7157\t7157\t113010\t113010\tTP53\tTP53\tTwo-hybrid\tphysical\t9606\t9606\n")
    assert read_biogrid_tab3(loop).num_edges == 2
    assert "1 self-interaction row(s) (a protein with itself) left out" in caplog.text
    # BioGRID's '-' is "no such id", not one protein called '-' joining every row that lacks one
    dash = write(tmp_path, "d.txt", BIOGRID_HEADER + "\n".join(
        rows + ["5\t-\t4193\t9\t110358\tORF1\tMDM2\tTwo-hybrid\tphysical\t9606\t9606",
                "6\t-\t7157\t8\t113010\tORF2\tTP53\tTwo-hybrid\tphysical\t9606\t9606"]) + "\n")
    d = read_biogrid_tab3(dash, id_column="entrez")
    assert "-" not in d.node_names and d.num_nodes == 4
    assert "2 rows left out: an interactor has no entrez id ('-'); id_column='symbol' keeps them" in caplog.text
    assert {"ORF1", "ORF2"} <= set(read_biogrid_tab3(dash).node_names)
    with pytest.raises(MalformedFileError, match=r"x\.txt:1: no column 'Official Symbol Interactor A'"):
        read_biogrid_tab3(write(tmp_path, "x.txt", "a\tb\n1\t2\n"))


def test_a_row_without_an_interactor_is_named_not_an_edge_to_nowhere(tmp_path):
    rows = ["1\t7157\t4193\t113010\t110358\tTP53\tMDM2\tTwo-hybrid\tphysical\t9606\t9606",
            "2\t4193\t7157\t110358\t113010\tMDM2",  # cut short: no symbol B
            "3\t7157\t1026\t113010\t107461\tTP53\tCDKN1A\tTwo-hybrid\tphysical\t9606\t9606"]
    p = write(tmp_path, "b.txt", BIOGRID_HEADER + "\n".join(rows) + "\n")
    with pytest.raises(MalformedFileError, match=r"b\.txt:3: Official Symbol Interactor B is empty, and the row has "
                                                 r"6 of the header's 11 fields: a row cut short\?"):
        read_biogrid_tab3(p)
    # cut after the symbols: read with the physical-only filter it was left out as a "non-physical" row
    cut = write(tmp_path, "c.txt", BIOGRID_HEADER + rows[0] + "\n" + "\t".join(rows[2].split("\t")[:7]) + "\n")
    with pytest.raises(MalformedFileError, match=r"c\.txt:3: Experimental System Type is empty, and the row has 7"):
        read_biogrid_tab3(cut, physical_only=True)
    # after a filter the line is still the file's: row 3 of the data is line 4
    p = write(tmp_path, "b.txt", BIOGRID_HEADER + rows[0] + "\n" + rows[2] + "\n"
              + "5\t1\t2\t3\t4\t\tX\tTwo-hybrid\tphysical\t9606\t9606\n")
    with pytest.raises(MalformedFileError, match=r"b\.txt:4: Official Symbol Interactor A is empty"):
        read_biogrid_tab3(p, organism=9606)
    web = write(tmp_path, "w.tsv", "#node1\tnode2\tcombined_score\nA\tB\t0.9\n\tC\t0.5\nB\tC\t0.4\n")
    with pytest.raises(MalformedFileError, match=r"w\.tsv:3: node1 is empty"):
        read_string_web_export(web)


# ---------------------------------------------------------------- labels


def test_label_table_node2vec_format(tmp_path):
    p = write(tmp_path, "labels.txt", "1 3 2 \n2 1\n3 2\n1 1\n")
    y, names = read_label_table(p, ["1", "2", "3"])
    assert names == ["1", "2", "3"]
    assert y.tolist() == [[1, 1, 1], [1, 0, 0], [0, 1, 0]]


def test_label_table_unknown_nodes_shows_a_few(tmp_path):
    p = write(tmp_path, "labels.txt", "1 3\n9 1\n10 2\n")
    with pytest.raises(MalformedFileError,
                       match=r"labels\.txt:2: 2 line\(s\) name nodes that are not in the graph, e\.g\. '9' \(line 2\), '10' \(line 3\)"):
        read_label_table(p, ["1", "2"])
    with pytest.raises(MalformedFileError, match=r"labels\.txt:1: expected 'node label \[label \.\.\.\]'"):
        read_label_table(write(tmp_path, "labels.txt", "1\n"), ["1"])


def test_label_table_may_leave_out_nodes_outside_the_graph_with_a_note(tmp_path, caplog):
    """A genome-wide annotation against a subnetwork: with unknown_nodes='note' the other nodes' lines are left out
    and counted; an error still where no line matches (the ids differ) or the first line does not (a header?)."""
    p = write(tmp_path, "labels.txt", "1 3\n9 1\n10 2\n2 1\n")
    y, names = read_label_table(p, ["1", "2"], unknown_nodes="note")
    assert names == ["1", "3"] and y.tolist() == [[0, 1], [1, 0]]
    assert "labels.txt: 2 of 4 label lines name nodes that are not in the graph (e.g. '9' (line 2), '10' (line 3)): " \
           "left out" in caplog.text
    with pytest.raises(MalformedFileError, match=r"labels\.txt:1: 2 line\(s\) name nodes .* no line names a node of "
                                                 r"the graph"):
        read_label_table(write(tmp_path, "labels.txt", "9 1\n10 2\n"), ["1", "2"], unknown_nodes="note")
    with pytest.raises(MalformedFileError, match=r"labels\.txt:1: 1 line\(s\) name nodes that are not in the graph, "
                                                 r"e\.g\. 'Q9' \(line 1\) \(if that line is a header, pass --header"):
        read_label_table(write(tmp_path, "labels.txt", "Q9 3\nA 3\nB 1\n"), ["A", "B"], unknown_nodes="note")


def test_label_table_line_without_the_files_separator_is_named(tmp_path):
    """'P1 GO:1;GO:2' among tab-separated lines is one field: it was refused as 'a node without labels'."""
    p = write(tmp_path, "labels.txt", "YAL001C GO:1;GO:2\nYAL002W\tDNA repair\n")
    with pytest.raises(MalformedFileError, match=r"labels\.txt:1: expected 'node label \[label \.\.\.\]', found "
                                                 r"'YAL001C GO:1;GO:2' \(this line has no tab, which separates the "
                                                 r"columns of the file's other lines, e\.g\. line 2: use one separator"):
        read_label_table(p, ["YAL001C", "YAL002W"])


def test_label_table_header_with_a_column_of_numbers_is_detected(tmp_path, caplog):
    """'protein pubmed go_id': 'pubmed' is no header word, but its column holds numbers below text, the rule every
    reader follows (README: header rows); the label column is then chosen by its name."""
    p = write(tmp_path, "labels.tsv", "protein\tpubmed\tgo_id\nA\t17\tGO:1\nB\t34\tGO:2\n")
    y, names = read_label_table(p, ["A", "B"])
    assert names == ["GO:1", "GO:2"] and y.tolist() == [[1, 0], [0, 1]]
    assert "line 1 'protein\\tpubmed\\tgo_id' read as a header" in caplog.text
    assert "labels read from column 'go_id'; pubmed not read" in caplog.text



def test_label_table_of_named_columns_reads_the_label_column(tmp_path, caplog):
    """A long table 'protein go_id go_name evidence' read every column after the node as labels (each GO name and
    the evidence code 'IDA' became functions of every annotated protein), silently. The label column is the one the
    header names so (the id column among several); an unclear one is refused, naming the columns."""
    p = write(tmp_path, "l.tsv", "protein\tgo_id\tgo_name\tevidence\nP1\tGO:1\tapoptosis\tIDA\n"
                                 "P1\tGO:2\tDNA repair\tIMP\nP2\tGO:2\tDNA repair\tIDA\n")
    y, names = read_label_table(p, ["P1", "P2", "P3"])
    assert names == ["GO:1", "GO:2"] and y.tolist() == [[1, 1], [0, 1], [0, 0]]
    assert "labels read from column 'go_id'; go_name, evidence not read" in caplog.text
    p = write(tmp_path, "l2.csv", "gene,evidence,function\nP1,IDA,kinase\nP2,IMP,DNA repair\n")
    assert read_label_table(p, ["P1", "P2"])[1] == ["DNA repair", "kinase"]
    p = write(tmp_path, "l3.tsv", "protein\tgo_name\tgo_term\nP1\tapoptosis\tx\n")
    with pytest.raises(MalformedFileError, match=r"l3\.tsv:1: the header names 3 columns \(protein, go_name, "
                                                 r"go_term\), and which of them holds the labels is not clear"):
        read_label_table(p, ["P1"])
    # the node2vec layout with a header (lines of several lengths) reads every field after the node, as before
    p = write(tmp_path, "l4.txt", "protein label labels\nP1 a b c\nP2 d\n")
    assert read_label_table(p, ["P1", "P2"])[1] == ["a", "b", "c", "d"]


def test_ontology_ids_joined_by_commas_or_spaces_in_one_field_are_several_labels(tmp_path, caplog):
    """'GO:1,GO:2' in a tab-separated or quoted CSV field was one label (74 combined 'functions' on a real table),
    with no note; a name holding a comma or spaces stays one label."""
    p = write(tmp_path, "l.tsv", "protein\tfunctions\nP1\tGO:0000006,GO:0000016\nP2\tGO:0000002 GO:0000006\n"
                                 "P3\t1,3-bisphosphoglycerate\nP3\tDNA repair, double-strand\n")
    y, names = read_label_table(p, ["P1", "P2", "P3"])
    assert names == ["1,3-bisphosphoglycerate", "DNA repair, double-strand", "GO:0000002", "GO:0000006",
                     "GO:0000016"]
    assert y.tolist() == [[0, 0, 0, 1, 1], [0, 0, 1, 1, 0], [1, 1, 0, 0, 0]]
    assert "2 field(s) hold several labels" in caplog.text
    p = write(tmp_path, "l.csv", 'protein,functions\nP1,"GO:0000006, GO:0000016"\nP2,"12,15"\n')
    assert read_label_table(p, ["P1", "P2"])[1] == ["12", "15", "GO:0000006", "GO:0000016"]


def test_label_table_and_node_list_read_quoted_names_in_whitespace_files(tmp_path):
    """The edge list reads '"heat shock 70" P2' as two fields; the label table and the node list read it the same
    way (they split '"heat' off, so the protein was 'not in the graph')."""
    from gatbio.data.io import read_node_list

    p = write(tmp_path, "labels.txt", '"heat shock 70" chaperone "protein folding"\nP2 kinase\n')
    y, names = read_label_table(p, ["heat shock 70", "P2"])
    assert names == ["chaperone", "kinase", "protein folding"] and y.tolist() == [[1, 0, 1], [0, 1, 0]]
    assert read_node_list(write(tmp_path, "n.txt", '"heat shock 70" note\nP2\n')) == ["heat shock 70", "P2"]
    # a quoted label holding a comma is one label; unquoted, a comma still joins two
    p = write(tmp_path, "l2.txt", 'P1 "DNA repair, double-strand" GO:1,GO:2\nP2 kinase\n')
    y, names = read_label_table(p, ["P1", "P2"])
    assert names == ["DNA repair, double-strand", "GO:1", "GO:2", "kinase"] and y.tolist()[0] == [1, 1, 1, 0]


GAF = """!gaf-version: 2.2
!generated-by: test
UniProtKB\tP04637\tTP53\tenables\tGO:0003700\tPMID:1\tIDA\t\tF\tp53\t\tprotein\ttaxon:9606\t20200101\tUniProt\t\t
UniProtKB\tP04637\tTP53\tinvolved_in\tGO:0006915\tPMID:1\tIMP\t\tP\tp53\t\tprotein\ttaxon:9606\t20200101\tUniProt\t\t
UniProtKB\tQ00987\tMDM2\tinvolved_in\tGO:0006915\tPMID:2\tIDA\t\tP\tmdm2\t\tprotein\ttaxon:9606\t20200101\tUniProt\t\t
UniProtKB\tQ00987\tMDM2\tNOT|enables\tGO:0003700\tPMID:2\tIDA\t\tF\tmdm2\t\tprotein\ttaxon:9606\t20200101\tUniProt\t\t
UniProtKB\tQ00987\tMDM2\tenables\tGO:0004842\tGO_REF:1\tIEA\t\tF\tmdm2\t\tprotein\ttaxon:9606\t20200101\tUniProt\t\t
UniProtKB\tP38936\tCDKN1A\tinvolved_in\tGO:0006915\tPMID:3\tTAS\t\tP\tp21\t\tprotein\ttaxon:9606\t20200101\tUniProt\t\t
"""


def test_gaf_multilabel_with_min_count(tmp_path):
    p = write(tmp_path, "goa.gaf", GAF)
    y, terms, nodes = read_gaf(p, ["TP53", "MDM2", "XYZ"])
    assert terms == ["GO:0003700", "GO:0006915"]  # NOT row and IEA row dropped
    assert y.tolist() == [[1, 1], [0, 1], [0, 0]]
    y2, terms2, _ = read_gaf(p, ["TP53", "MDM2", "CDKN1A"], min_count=2)
    assert terms2 == ["GO:0006915"] and y2[:, 0].tolist() == [1, 1, 1]
    y3, terms3, _ = read_gaf(p, ["TP53", "MDM2"], aspect="P")
    assert terms3 == ["GO:0006915"]
    # accessions against symbols: no row matches, said (not an empty label matrix)
    with pytest.raises(MalformedFileError, match=r"goa\.gaf: no annotation's DB_Object_Symbol is a protein of the "
                                                 r"graph \(e\.g\. 'P04637' against 'TP53'\): 3 rows match by "
                                                 r"DB_Object_ID: pass id_column='DB_Object_ID'"):
        read_gaf(p, ["P04637", "Q00987"])
    assert read_gaf(p, ["P04637", "Q00987"], id_column="DB_Object_ID")[0].sum() == 3
    with pytest.raises(MalformedFileError, match=r"\(the graph has no proteins\)"):
        read_gaf(p, [])


def test_gaf_malformed(tmp_path):
    with pytest.raises(MalformedFileError, match=r"g\.gaf:1: expected a '!gaf-version: 2\.x' header line"):
        read_gaf(write(tmp_path, "g.gaf", "UniProtKB\tP1\n"))
    bad = GAF.replace("GO:0006915\tPMID:2", "GO6915\tPMID:2")
    with pytest.raises(MalformedFileError, match=r"g\.gaf:5: GO_ID must look like 'GO:0005515', found 'GO6915'"):
        read_gaf(write(tmp_path, "g.gaf", bad))
    short = GAF.replace("\tTAS\t\tP\tp21\t\tprotein\ttaxon:9606\t20200101\tUniProt\t\t", "\tTAS")
    with pytest.raises(MalformedFileError, match=r"g\.gaf:8: expected 17 tab-separated GAF 2\.2 columns, found 7"):
        read_gaf(write(tmp_path, "g.gaf", short))


# ---------------------------------------------------------------- Pajek


PAJ = """% a test project
*Network test
*Vertices 4
 1 "grass land"
 2 "rabbit"
 3 fox
 4 "soil"
*Arcs
 1 2 1.5
 2 3 0.5
*Edges
 3 4
*Arcslist
 4 1 2
*Partition types
*Vertices 4
1
1
1
2
*Vector mass
*Vertices 4
10.0
2
1e-1
0
"""


def test_pajek_arcs_edges_lists_partitions_vectors_crlf(tmp_path):
    pj = read_pajek(write(tmp_path, "t.paj", PAJ, newline="\r\n"))
    net = pj.network()
    assert net["node_names"] == ["grass land", "rabbit", "fox", "soil"]
    assert net["arcs"].tolist() == [[0, 1], [1, 2], [3, 0], [3, 1]]  # 1-based -> 0-based
    assert net["edges"].tolist() == [[2, 3]]
    assert pj.partitions["types"].tolist() == [1, 1, 1, 2]
    np.testing.assert_allclose(pj.vectors["mass"], [10.0, 2.0, 0.1, 0.0])
    d = pajek_to_data(pj)  # directed (has arcs): edges stored both ways
    assert set(edges(d)) >= {("grass land", "rabbit"), ("fox", "soil"), ("soil", "fox")}
    assert d.edge_weight[:2].tolist() == [1.5, 0.5]


@pytest.mark.parametrize("text,msg", [
    ("*Vertices 2\n1 \"a\"\n2 \"b\"\n*Arcs\n1 3\n", r"t\.net:5: vertex id 3 outside 1\.\.2 \(Pajek ids are 1-based\)"),
    ("*Vertices 2\n1 \"a\"\n*Arcs\n1 x\n", r"t\.net:4: expected integer vertex ids, found '1 x'"),
    ("*Vertices 2\n*Arcs\n1 2 heavy\n", r"t\.net:3: weight must be a number, found 'heavy'"),
    ("*Arcs\n1 2\n", r"t\.net:1: \*arcs before \*vertices"),
    ("*Partition p\n*Vertices 3\n1\n2\n", r"t\.net: \*partition 'p': expected 3 values, found 2"),
    ("*Vertices two\n", r"t\.net:1: expected '\*vertices N'"),
    # a label with a space, unquoted, was cut at the space ("tall"); an open or escaped quote kept a piece of it
    ("*Vertices 2\n1 tall grass\n2 b\n", r"t\.net:2: vertex label 'tall grass'\.\.\. has a space: quote it, as in "
                                        r"'1 \"tall grass\"'"),
    ("*Vertices 2\n1 \"tall grass\n2 b\n", r"t\.net:2: a vertex label's quotes do not close"),
    ("*Vertices 2\n1 \"Mr \\\"rabbit\\\"\"\n2 b\n", r"t\.net:2: .* a quote stands inside a quoted label \(Pajek has "
                                                      r"no escapes\)"),
])
def test_pajek_malformed(tmp_path, text, msg):
    with pytest.raises(MalformedFileError, match=msg):
        read_pajek(write(tmp_path, "t.net", text))


def test_pajek_encodings_repeated_ids_unlisted_vertices_and_self_loops(tmp_path, caplog):
    utf8 = tmp_path / "u.net"
    utf8.write_bytes("\ufeff*Vertices 2\n1 \"écaille\"\n2 \"bar\"\n*Arcs\n1 2\n".encode("utf-8"))
    assert read_pajek(utf8).network()["node_names"] == ["écaille", "bar"]  # UTF-8 with a byte-order mark
    latin = tmp_path / "l.net"
    latin.write_bytes("*Vertices 2\n1 \"écaille\"\n2 \"bar\"\n".encode("latin-1"))  # Pajek's own encoding
    assert read_pajek(latin).network()["node_names"] == ["écaille", "bar"]
    with pytest.raises(MalformedFileError, match=r"t\.net:3: vertex id 1 listed twice \(first on line 2\)"):
        read_pajek(write(tmp_path, "t.net", "*Vertices 2\n1 \"a\"\n1 \"b\"\n"))
    caplog.set_level("WARNING", logger="gatbio.data")
    pj = read_pajek(write(tmp_path, "p.net", "*Vertices 3\n1 \"a\"\n*Edges\n1 1 2\n1 2\n"))
    assert pj.network()["node_names"] == ["a", "2", "3"]
    assert "2 of the 3 vertices of *vertices have no line" in caplog.text
    d = pajek_to_data(pj, directed=True)  # the self-loop once (weight 2, not doubled), the edge both ways
    assert sorted(zip(d.edge_index[0].tolist(), d.edge_index[1].tolist(), d.edge_weight.tolist(), strict=True)) == \
        [(0, 0, 2.0), (0, 1, 1.0), (1, 0, 1.0)]
    read_pajek(write(tmp_path, "d.net", "*Vertices 3\n1 \"x\"\n2 \"y\"\n3 \"x\"\n"))
    assert "1 vertex label(s) repeat another, e.g. 'x' (vertices 1 and 3, line 4)" in caplog.text


def test_pajek_without_weights_counts_a_repeated_arc_once_as_an_edge_list_does(tmp_path):
    """A repeated arc of a Pajek file with no weights summed Pajek's default weight 1 to 2: the trophic levels
    moved (fox 2.4 instead of the edge list's 2.3333) and the note said 'each counted once'. With weights, the
    repeated arcs' flows add up."""
    from gatbio.ecology import trophic_levels

    net = "*Vertices 3\n1 grass\n2 rabbit\n3 fox\n*Arcs\n1 2\n1 3\n2 3\n2 3\n"
    d = pajek_to_data(read_pajek(write(tmp_path, "w.net", net)), directed=True, duplicates="merge")
    e = read_edge_list(write(tmp_path, "w.txt", "grass rabbit\ngrass fox\nrabbit fox\nrabbit fox\n"),
                       duplicates="merge")
    assert getattr(d, "edge_weight", None) is None and d.num_edges == 3
    torch.testing.assert_close(trophic_levels(d), trophic_levels(e))
    assert trophic_levels(d)[2].item() == pytest.approx(7 / 3)
    weighted = net.replace("1 2\n1 3\n2 3\n2 3\n", "1 2 4\n1 3\n2 3 1.5\n2 3 2.5\n")  # 1 3: Pajek's default 1
    d = pajek_to_data(read_pajek(write(tmp_path, "f.net", weighted)), directed=True, duplicates="merge")
    assert d.edge_weight.tolist() == [4.0, 1.0, 4.0]


# ---------------------------------------------------------------- adjacency matrices


def test_adjacency_matrix_conventions(tmp_path):
    # rows = prey, columns = predators: A[0,1] = 1 means 1 eats 0
    p = write(tmp_path, "m.txt", "0 1 1\n0 0 1\n0 0 0\n")
    a = read_adjacency_matrix(p, convention="row_to_col", node_names=["plant", "herbivore", "carnivore"])
    assert edges(a) == [("plant", "herbivore"), ("plant", "carnivore"), ("herbivore", "carnivore")]
    b = read_adjacency_matrix(p, convention="col_to_row")
    assert b.edge_index.tolist() == [[1, 2, 2], [0, 0, 1]]
    with pytest.raises(TypeError):
        read_adjacency_matrix(p)  # the convention must be explicit
    with pytest.raises(ValueError, match="convention='rows'"):
        read_adjacency_matrix(p, convention="rows")
    with pytest.raises(MalformedFileError, match=r"sq\.txt: expected a square matrix, found 2 rows x 3 columns"):
        read_adjacency_matrix(write(tmp_path, "sq.txt", "0 1 0\n1 0 0\n"), convention="row_to_col")
    with pytest.raises(MalformedFileError, match=r"nn\.txt:2: column 2: entry must be a number, found 'x'"):
        read_adjacency_matrix(write(tmp_path, "nn.txt", "0 1\n0 x\n"), convention="row_to_col")


def test_weighted_adjacency_with_header_and_index(tmp_path):
    p = write(tmp_path, "m.csv", "name,a,b\na,0,2.5\nb,0,0\n")
    d = read_adjacency_matrix(p, convention="row_to_col", sep=",", header=True, index_col=True, weighted=True)
    assert d.node_names == ["a", "b"] and edges(d) == [("a", "b")] and d.edge_weight.tolist() == [2.5]


@pytest.mark.parametrize("text", ['"","1","2","3"\n"1",0,1,0\n"2",0,0,1\n"3",0,0,0\n',  # R's write.csv
                                  "\t1\t2\t3\n1\t0\t1\t0\n2\t0\t0\t1\n3\t0\t0\t0\n",
                                  "1,2,3\n1,0,1,0\n2,0,0,1\n3,0,0,0\n"])  # no corner cell
def test_adjacency_matrix_with_numeric_row_and_column_names(tmp_path, text):
    """A header row of names above rows that start with the same names is read as names, numbers too."""
    sep = "\t" if "\t" in text else ","
    d = read_adjacency_matrix(write(tmp_path, "m.csv", text), convention="row_to_col", sep=sep)
    assert d.node_names == ["1", "2", "3"] and edges(d) == [("1", "2"), ("2", "3")]


@pytest.mark.parametrize("text,sep,msg", [
    ("0 1 x\n0 0 1\n0 0 0\n", r"\s+", r"m\.txt:1: column 3: entry must be a number, found 'x'"),
    ("x 1 0\n0 0 1\n0 0 0\n", r"\s+", r"m\.txt:1: column 1: entry must be a number, found 'x'"),
    ("grass,,1,0\nrabbit,0,0,1\nfox,0,0,0\n", ",", r"m\.txt:1: column 2: the entry is empty \(write 0 for no link\)"),
])
def test_a_bad_entry_in_the_first_row_of_a_matrix_is_not_a_header(tmp_path, text, sep, msg):
    with pytest.raises(MalformedFileError, match=msg):
        read_adjacency_matrix(write(tmp_path, "m.txt", text), convention="row_to_col", sep=sep)


# ---------------------------------------------------------------- food-web traits


def test_trait_table_errors(tmp_path):
    from gatbio.data.foodweb import read_trait_table

    ok = read_trait_table(write(tmp_path, "t.txt", "id met_a log_mass\n0 1 -2.5\n1 0 3\n"), 2)
    assert ok["log_mass"].tolist() == [-2.5, 3.0]
    with pytest.raises(MalformedFileError, match=r"t\.txt:3: trait 'log_mass' is nan \(NaN/inf traits are not allowed"):
        read_trait_table(write(tmp_path, "t.txt", "id met_a log_mass\n0 1 -2.5\n1 0 nan\n"), 2)
    with pytest.raises(MalformedFileError, match=r"t\.txt:2: expected 3 columns \(id met_a log_mass\), found 2 \(inconsistent"):
        read_trait_table(write(tmp_path, "t.txt", "id met_a log_mass\n0 1\n"), 1)
    with pytest.raises(MalformedFileError, match=r"t\.txt:2: trait 'met_a' must be a number, found 'yes'"):
        read_trait_table(write(tmp_path, "t.txt", "id met_a log_mass\n0 yes 1\n"), 1)
    with pytest.raises(MalformedFileError, match=r"t\.txt: expected one row per node with ids 0\.\.2 in order"):
        read_trait_table(write(tmp_path, "t.txt", "id met_a log_mass\n0 1 1\n1 1 1\n"), 3)


# ---------------------------------------------------------------- PyG PPI layout


def test_ppi_benchmark_through_pyg_on_a_tiny_raw_set(tmp_path, monkeypatch):
    """PyG's PPI raw layout written by the test: 2 train graphs, 1 valid, 1 test."""
    from gatbio.data import load

    raw = tmp_path / "ppi_benchmark" / "raw"
    raw.mkdir(parents=True)
    rng = np.random.default_rng(0)
    sizes = {"train": [3, 4], "valid": [3], "test": [2]}
    gid = 1
    for split, ns in sizes.items():
        n = sum(ns)
        ids, links, off = [], [], 0
        for k in ns:
            ids += [gid] * k
            links += [{"source": off + i, "target": off + i + 1} for i in range(k - 1)]
            gid, off = gid + 1, off + k
        graph = {"directed": False, "multigraph": False, "graph": {},
                 "nodes": [{"id": i} for i in range(n)], "links": links}
        (raw / f"{split}_graph.json").write_text(json.dumps(graph))
        np.save(raw / f"{split}_feats.npy", rng.standard_normal((n, 50)))
        np.save(raw / f"{split}_labels.npy", (rng.random((n, 121)) < 0.3).astype(np.int64))
        np.save(raw / f"{split}_graph_id.npy", np.array(ids, dtype=np.int64))
    monkeypatch.setenv("GATBIO_CACHE", str(tmp_path / "cache"))
    graphs = load("ppi", root=tmp_path)
    assert [g.split for g in graphs] == ["train", "train", "val", "test"]
    assert [g.num_nodes for g in graphs] == [3, 4, 3, 2] and [g.graph_index for g in graphs] == [1, 2, 3, 4]
    assert graphs[1].x.shape == (4, 50) and graphs[1].y.shape == (4, 121)
    assert graphs[1].node_names == ["train:3", "train:4", "train:5", "train:6"]
    assert graphs[1].num_edges == 6  # path of 4 nodes, both directions
    assert torch.is_floating_point(graphs[0].y)


def test_ppi_benchmark_from_read_only_roots_does_not_mix_their_graphs(tmp_path, monkeypatch):
    """A read-only raw folder is processed under $GATBIO_CACHE; one shared cache folder gave the first root's graphs
    for every other root (PyG reuses processed files whatever raw/ holds)."""
    import os

    from gatbio.data.ppi import load_ppi_benchmark

    roots = []
    for k, n in enumerate((3, 5)):  # two roots: one train graph of 3 nodes, then of 5
        root = tmp_path / f"root{k}"
        ppi_raw(root / "ppi_benchmark" / "raw", n)
        roots.append(root)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if "ppi_benchmark" in str(p) and str(p).startswith(
        str(tmp_path / "root")) else real_access(p, mode))  # (tests run as root: chmod would not stop a write)
    monkeypatch.setenv("GATBIO_CACHE", str(tmp_path / "cache"))
    assert load_ppi_benchmark(roots[0])[0].num_nodes == 3
    assert load_ppi_benchmark(roots[1])[0].num_nodes == 5
    assert load_ppi_benchmark(roots[0])[0].num_nodes == 3
    assert not any(p.name == "processed" for p in roots[0].rglob("*"))  # nothing written into the read-only root


def test_ppi_benchmark_missing_says_where_to_put_files(tmp_path):
    from gatbio.data import DatasetNotFoundError, load

    with pytest.raises(DatasetNotFoundError, match=r"dataset 'ppi': 12 file\(s\) missing under .*ppi_benchmark"):
        load("ppi", root=tmp_path)


def test_gateway_layout_folder_reader(tmp_path):
    from gatbio.data.foodweb import read_gateway_web

    web = tmp_path / "Pond_7"
    web.mkdir()
    (web / "7_edge_list.txt").write_text("2 0\n0 1\n2 1\n")
    (web / "7_node_attr_list.txt").write_text("id met_plant mov_swim log_mass\n0 0 1 -1.5\n1 0 1 0.5\n2 1 0 -3\n")
    d = read_gateway_web(web)
    assert d.edge_index.tolist() == [[2, 0, 2], [0, 1, 1]]  # file order kept
    assert d.trait_names == ["met_plant", "mov_swim", "log_mass", "mass_missing"] and d.x.shape == (3, 4)
    (web / "7_edge_list.txt").write_text("2 0\n0 1\n2 0\n")
    with pytest.raises(MalformedFileError, match=r"7_edge_list\.txt:3: duplicate edge '2' - '0'"):
        read_gateway_web(web)


def test_gateway_folder_without_node_table_notes_ids_in_no_link(tmp_path, caplog):
    """Without a node table the species are the ids 0..max: ids in no link are read as species without links,
    with a note naming them (a gap in the ids may be a typo, and predict would score those species)."""
    from gatbio.data.foodweb import read_gateway_web

    web = tmp_path / "x_10"
    web.mkdir()
    (web / "10_edge_list.txt").write_text("0 1\n1 5\n")
    d = read_gateway_web(web)
    assert d.num_nodes == 6
    assert "10_edge_list.txt: ids 2, 3, 4 of 0..5 are in no link and the folder has no *_node_attr_list.txt" \
        in caplog.text
    caplog.clear()
    (web / "10_edge_list.txt").write_text("0 1\n1 2\n")
    read_gateway_web(web)
    assert "in no link" not in caplog.text
    with pytest.raises(NotADirectoryError, match=r"10_edge_list\.txt: is a file; a GATEWAy web is a folder"):
        read_gateway_web(web / "10_edge_list.txt")


# ---------------------------------------------------------------- from Python: arguments checked up front


def test_edges_to_data_refuses_ids_that_are_not_nodes():
    """Node 5 of a 3-node graph, -1, or 1.5 (truncated to 1) made another graph, silently."""
    from gatbio.data.io import edges_to_data

    for src, dst, msg in (([0, 1], [1, 5], r"dst holds node id 5 \(position 1\), outside 0\.\.2"),
                          ([0, -1], [1, 2], r"src holds node id -1 \(position 1\), outside 0\.\.2"),
                          ([0, 1.5], [1, 2], r"src holds 1\.5 \(position 1\), not a whole number"),
                          (["a", "b"], [1, 2], r"src holds <U1 values: node ids are integers"),
                          ([0, 1], [1], r"src has 2 ids but dst has 1")):
        with pytest.raises((ValueError, TypeError), match=msg):
            edges_to_data(src, dst, ["a", "b", "c"])
    d = edges_to_data(np.array([0.0, 1.0]), [1, 2], ["a", "b", "c"])  # whole numbers: read as they are
    assert d.edge_index.tolist() == [[0, 1], [1, 2]] and d.edge_index.dtype == torch.long


def test_reduce_is_checked_as_duplicates_and_self_loops_are(tmp_path):
    p = write(tmp_path, "e.txt", "a b 1\nb c 5\na b 3\n")
    for kw in ({"weight": 2}, {}):  # with weights pandas' AttributeError; without, the typo passed silently
        with pytest.raises(ValueError, match=r"reduce='bogus': expected 'max', 'sum', 'mean' or 'first'"):
            read_edge_list(p, duplicates="merge", reduce="bogus", **kw)


def test_readers_take_a_path_and_say_what_to_use_for_a_table_in_memory(tmp_path):
    import io

    import pandas as pd

    p = write(tmp_path, "e.txt", "a b\nb c\n")
    with open(p) as handle:
        for given, what in ((pd.DataFrame({"a": ["a"], "b": ["b"]}), "a pandas DataFrame"),
                            (io.StringIO("a b\n"), "a StringIO"), (handle, "a TextIOWrapper")):
            with pytest.raises(TypeError, match=rf"path is {what}: read_edge_list reads a file.*edges_to_data"):
                read_edge_list(given)
    labels = write(tmp_path, "labels.txt", "a 1\nb 2\n")
    data = read_edge_list(p)
    with pytest.raises(TypeError, match=r"node_names is a Data: pass data\.node_names"):
        read_label_table(labels, data)
    y, _ = read_label_table(labels, data.node_names)
    assert y.shape == (3, 2)


def test_a_symbol_of_two_organisms_is_refused_not_merged(tmp_path):
    # a multi-organism BioGRID download: yeast CDC20 (559292) and human CDC20 (9606) share the symbol; keyed by
    # symbol they became one node and the cross-species CDC20-CDC20 row was dropped as a self-interaction
    rows = ["1\t991\t4193\t107416\t110358\tCDC20\tMDM2\tTwo-hybrid\tphysical\t9606\t9606",
            "2\t852236\t856831\t33123\t36600\tCDC20\tCDC16\tTwo-hybrid\tphysical\t559292\t559292",
            "3\t991\t852236\t107416\t33123\tCDC20\tCDC20\tTwo-hybrid\tphysical\t9606\t559292"]
    p = write(tmp_path, "BIOGRID-ALL.tab3.txt", BIOGRID_HEADER + "\n".join(rows) + "\n")
    with pytest.raises(MalformedFileError, match=r"BIOGRID-ALL\.tab3\.txt:2: 1 Official Symbol\(s\) name proteins "
                                                 r"of two or more organisms \(e\.g\. 'CDC20' of organisms 559292, "
                                                 r"9606\).*--organism TAXID.*id_column='entrez'"):
        read_biogrid_tab3(p)
    assert read_biogrid_tab3(p, organism=9606).node_names == ["CDC20", "MDM2"]  # one organism: no clash
    d = read_biogrid_tab3(p, id_column="entrez")  # unique ids: three proteins, the cross-species row kept
    assert d.num_nodes == 4 and d.num_edges == 6
