"""STRING protein.actions → pair table (modes, direction flags), and a user's pairs file: known answers, errors."""

from __future__ import annotations

import pytest
import torch
from conftest import write

from gatbio.data.io import (
    DIRECTION_BACKWARD,
    DIRECTION_FORWARD,
    DIRECTION_UNDIRECTED,
    STRING_MODES,
    MalformedFileError,
    read_protein_pairs,
    read_string_actions,
)

HEAD = "item_id_a\titem_id_b\tmode\taction\tis_directional\ta_is_acting\tscore\n"
ROWS = [
    "P2\tP1\tbinding\t\tf\tf\t500",  # pair 0 = (P2, P1): P2 is protein 0, P1 protein 1
    "P1\tP2\tbinding\t\tf\tt\t400",  # undirected, a_is_acting=t carries no direction
    "P1\tP2\tactivation\tactivation\tt\tt\t800",  # P1 -> P2: protein 1 -> 0: backward for pair (0, 1)
    "P2\tP1\tactivation\tactivation\tt\tf\t800",  # the same action listed from P2's side
    "P3\tP2\tinhibition\tinhibition\tt\tf\t300",  # pair 1 = (P2, P3) as (0, 2): acting b = P2 -> P3: forward
    "P3\tP2\tinhibition\tinhibition\tt\tt\t300",  # P3 -> P2: backward: both directions
    "P1\tP3\treaction\t\tt\tt\t900",  # pair 2 = (P1, P3) as (1, 2): P1 -> P3 forward
]




def test_pair_table_in_first_appearance_order_with_modes_scores_and_directions(tmp_path):
    d = read_string_actions(write(tmp_path, "a.txt", HEAD + "\n".join(ROWS) + "\n"))
    assert d.node_names == ["P2", "P1", "P3"]
    assert d.pairs.tolist() == [[0, 1], [0, 2], [1, 2]]
    names = [[STRING_MODES[j] for j in torch.nonzero(row).view(-1).tolist()] for row in d.pair_modes]
    assert names == [["activation", "binding"], ["inhibition"], ["reaction"]]
    assert d.pair_score.tolist() == pytest.approx([0.8, 0.3, 0.9])
    act, bind, inh, rea = (STRING_MODES.index(m) for m in ("activation", "binding", "inhibition", "reaction"))
    pd_ = d.pair_direction
    assert int(pd_[0, bind]) == DIRECTION_UNDIRECTED and int(pd_[0, act]) == DIRECTION_BACKWARD
    assert int(pd_[1, inh]) == DIRECTION_FORWARD | DIRECTION_BACKWARD and int(pd_[2, rea]) == DIRECTION_FORWARD
    assert int((pd_ > 0).sum()) == int(d.pair_modes.sum())  # a flag exactly where a mode is present
    # the graph: the pairs, then their mirror images, with the pair's modes
    assert d.edge_index.t().tolist() == [[0, 1], [0, 2], [1, 2], [1, 0], [2, 0], [2, 1]]
    assert torch.equal(d.edge_mode, torch.cat([d.pair_modes, d.pair_modes]))


@pytest.mark.parametrize("row, msg", [
    ("P1\tP2\tteleport\t\tf\tf\t500", r"a\.txt:3: unknown mode 'teleport'; expected one of activation"),
    ("P1\tP2\t\t\tf\tf\t500", r"a\.txt:3: the mode field is empty; expected one of activation"),  # was "mode nan"
    ("P1\tP2\tbinding\t\tf\tf", r"a\.txt:3: score is missing \(too few columns"),
    ("P1\tP2\tbinding\t\tyes\tf\t500", r"a\.txt:3: is_directional must be 't' or 'f', found 'yes'"),
    ("P1\tP2\tbinding\t\tf\tf\thigh", r"a\.txt:3: score must be an integer, found 'high'"),
    ("\tP2\tbinding\t\tf\tf\t500", r"a\.txt:3: item_id_a is empty"),
    ("P1\tP2\tbinding\t\tf\tf\t5000", r"a\.txt:3: score 5000 is outside STRING's 0-1000 scale"),
    ("P1\tP2\tbinding\t\tf\tf\t-5", r"a\.txt:3: score -5 is outside STRING's 0-1000 scale"),
])
def test_malformed_actions_name_file_and_line(tmp_path, row, msg):
    with pytest.raises(MalformedFileError, match=msg):
        read_string_actions(write(tmp_path, "a.txt", HEAD + ROWS[0] + "\n" + row + "\n"))


def test_wrong_header_is_refused(tmp_path):
    with pytest.raises(MalformedFileError, match=r"a\.txt:1: expected the header"):
        read_string_actions(write(tmp_path, "a.txt", "protein_a protein_b kind\n".replace(" ", "\t")
                                  + "a\tb\tc\td\te\tf\t1\n"))
    # a protein.links file, tab- or space-separated: named, with the file to give instead
    for sep in ("\t", " "):
        with pytest.raises(MalformedFileError, match=r"a\.txt:1: is a STRING protein\.links file \(header 'protein1 "
                                                     r"protein2 \.\.\.'\), which has no interaction modes: give a "
                                                     r"protein\.actions file"):
            read_string_actions(write(tmp_path, "a.txt", sep.join(["protein1", "protein2", "combined_score"])
                                      + "\na b 1\n".replace(" ", sep)))


def test_actions_file_without_its_header_is_told_to_add_it(tmp_path):
    with pytest.raises(MalformedFileError, match=r"a\.txt:1: the header line is missing \(line 1 is a row: mode "
                                                 r"'binding'\): add the line 'item_id_a item_id_b mode action "
                                                 r"is_directional a_is_acting score', tab-separated, at the top"):
        read_string_actions(write(tmp_path, "a.txt", "\n".join(ROWS) + "\n"))


def test_protein_pairs_file_with_header_and_separators(tmp_path):
    names = ["P2", "P1", "P3"]
    pairs, raw = read_protein_pairs(write(tmp_path, "q.tsv", "protein_a\tprotein_b\nP1\tP3\n# x\nP2\tP2\n"), names)
    assert pairs.tolist() == [[1, 2], [0, 0]] and raw == [("P1", "P3"), ("P2", "P2")]
    pairs, _ = read_protein_pairs(write(tmp_path, "q.csv", "P1,P3\nP3,P2\n"), names)
    assert pairs.tolist() == [[1, 2], [2, 0]]
    pairs, _ = read_protein_pairs(write(tmp_path, "q.txt", "P1 P3 extra\n"), names)
    assert pairs.tolist() == [[1, 2]]


def test_protein_pairs_written_by_r_with_row_names_read_the_named_columns(tmp_path, caplog):
    """R's write.csv (row.names=TRUE) puts an unnamed column of row numbers first: its pairs were read as
    ('1', 'P1') and refused with "protein '1' is not in the interaction network"."""
    names = ["P2", "P1", "P3"]
    text = '"","protein_a","protein_b"\n"1","P1","P3"\n"2","P3","P2"\n'
    pairs, raw = read_protein_pairs(write(tmp_path, "r.csv", text), names)
    assert pairs.tolist() == [[1, 2], [2, 0]] and raw == [("P1", "P3"), ("P3", "P2")]
    assert "the header's first column is unnamed (row names, as R's write.csv writes them): proteins read from " \
           "columns 'protein_a' and 'protein_b'" in caplog.text


def test_protein_pairs_of_a_semicolon_csv(tmp_path):
    """A spreadsheet's CSV where the comma is the decimal mark separates by ';': 'P1;P3' was one unknown id (the
    message's hint named a separator option that predict does not have)."""
    pairs, raw = read_protein_pairs(write(tmp_path, "s.csv", "protein_a;protein_b\nP1;P3\nP3;P2\n"), ["P2", "P1", "P3"])
    assert pairs.tolist() == [[1, 2], [2, 0]] and raw == [("P1", "P3"), ("P3", "P2")]


def test_protein_pairs_repeated_in_either_order_are_noted(tmp_path, caplog):
    names = ["P2", "P1", "P3"]
    pairs, _ = read_protein_pairs(write(tmp_path, "r.txt", "P1 P3\nP2 P1\nP3 P1\nP1 P3\n"), names)
    assert pairs.tolist() == [[1, 2], [0, 1], [2, 1], [1, 2]]  # every line is kept and predicted
    assert "r.txt: 2 line(s) repeat a pair of an earlier line (in either order), e.g. P1 P3 (line 1)" in caplog.text
    caplog.clear()
    read_protein_pairs(write(tmp_path, "u.txt", "P1 P3\nP2 P1\n"), names)
    assert "repeat" not in caplog.text


def test_protein_pairs_notes_columns_not_read_and_string_headers(tmp_path, caplog):
    """Columns after the two ids are not read, and a note says so (named when the header names them); a STRING
    header 'item_id_a item_id_b mode' is a header, not two unknown proteins."""
    names = ["P2", "P1", "P3"]
    pairs, _ = read_protein_pairs(write(tmp_path, "q.txt", "P1 P3 x\nP2 P1 y\n"), names)
    assert pairs.tolist() == [[1, 2], [0, 1]] and "q.txt: 1 column(s) after the two protein ids not read" in caplog.text
    caplog.clear()
    pairs, _ = read_protein_pairs(write(tmp_path, "s.tsv", "item_id_a\titem_id_b\tmode\nP1\tP3\tbinding\n"), names)
    assert pairs.tolist() == [[1, 2]]
    assert "read as a header" in caplog.text and "1 column(s) after the two protein ids not read (mode)" in caplog.text
    caplog.clear()
    read_protein_pairs(write(tmp_path, "two.txt", "P1 P3\n"), names)
    assert "not read" not in caplog.text


def test_protein_pairs_name_a_protein_outside_the_network_with_its_reason(tmp_path):
    names = ["P2", "P1", "P3"]
    with pytest.raises(MalformedFileError, match=r"q\.txt:2: protein 'P4' differs from 'P1' only by case: write "
                                                 r"'P1'$"):
        read_protein_pairs(write(tmp_path, "q.txt", "P1 P3\nP4 P1\n"), names,
                           outside={"P4": "differs from 'P1' only by case: write 'P1'"})


def test_protein_pairs_unknown_protein_names_line_and_close_matches(tmp_path):
    names = ["9606.ENSP00000000233", "9606.ENSP00000250971"]
    p = write(tmp_path, "q.txt", "9606.ENSP00000000233 9606.ENSP00000250971\n9606.ENSP00000000233 9606.ENSP0000025097\n"
                                 "X Y\n")
    with pytest.raises(MalformedFileError, match=r"q\.txt:2: protein '9606\.ENSP0000025097' is not in the interaction "
                                                 r"network \(2 proteins\); did you mean 9606\.ENSP00000250971.*"
                                                 r"\(3 unknown proteins in the file\)"):
        read_protein_pairs(p, names)
    with pytest.raises(MalformedFileError, match=r"one\.txt:1: expected 2 columns"):
        read_protein_pairs(write(tmp_path, "one.txt", "9606.ENSP00000000233\n"), names)


def test_protein_pairs_suggest_a_uniprot_header_id_holding_the_accession(tmp_path):
    """A FASTA read from UniProt names its proteins 'sp|P12345|ABC_HUMAN' (the header's first word): the accession
    alone is pointed to that id (was: no suggestion, too unlike for difflib)."""
    names = ["sp|P12345|ABC_HUMAN", "sp|Q67890|DEF_HUMAN"]
    with pytest.raises(MalformedFileError, match=r"q\.txt:1: protein 'P12345' is not in .*did you mean "
                                                 r"sp\|P12345\|ABC_HUMAN\?"):
        read_protein_pairs(write(tmp_path, "q.txt", "P12345 sp|Q67890|DEF_HUMAN\n"), names)


def test_protein_pairs_with_tabs_and_spaces_mixed(tmp_path):
    """Hand-made files mix tabs and spaces; ids hold no whitespace, so both separate (either line first)."""
    names = ["P2", "P1", "P3"]
    for text in ("P1 P3\nP2\tP1\n", "P1\tP3\nP2 P1\n", "P1 \t P3\nP2\t\tP1\n"):
        pairs, raw = read_protein_pairs(write(tmp_path, "q.txt", text), names)
        assert pairs.tolist() == [[1, 2], [0, 1]] and raw == [("P1", "P3"), ("P2", "P1")]


def test_protein_pairs_tab_separated_table_keeps_its_columns(tmp_path):
    """A TSV with the same number of tabs on every line is read by its tabs: an empty protein_b is named, not
    replaced by the next column; a STRING actions excerpt (empty action fields) is read as pairs."""
    names = ["P2", "P1", "P3"]
    with pytest.raises(MalformedFileError, match=r"q\.tsv:3: expected two protein ids on this line \(its first two "
                                                 r"tab-separated fields; one is empty\)"):
        read_protein_pairs(write(tmp_path, "q.tsv", "protein_a\tprotein_b\tpartner\nP1\tP3\tP2\nP1\t\tP2\n"), names)
    rows = "".join(f"{a}\t{b}\tbinding\t\tf\tf\t500\n" for a, b in (("P1", "P3"), ("P2", "P1")))
    pairs, _ = read_protein_pairs(write(tmp_path, "a.txt", "item_id_a\titem_id_b\tmode\taction\tis_directional\t"
                                                           "a_is_acting\tscore\n" + rows), names)
    assert pairs.tolist() == [[1, 2], [0, 1]]


def test_protein_pairs_line_with_another_separator_is_named(tmp_path):
    names = ["P2", "P1", "P3"]
    with pytest.raises(MalformedFileError, match=r"q\.csv:2: 'P2 P1' was read as one protein id: this line is not "
                                                 r"separated like the file's other lines \(by a comma\); use one "
                                                 r"separator in the whole file"):
        read_protein_pairs(write(tmp_path, "q.csv", "P1,P3\nP2 P1,\n"), names)
    with pytest.raises(MalformedFileError, match=r"q2\.txt:3: 'P2,P1' was read as one protein id: .*\(by spaces "
                                                 r"or tabs\)"):  # was the regular expression '\\s+'
        read_protein_pairs(write(tmp_path, "q2.txt", "P1\tP3\nP3 P1\nP2,P1\n"), names)
    # the first row is the odd one: the message points at it, with the separator the other rows use
    with pytest.raises(MalformedFileError, match=r"q\.csv:1: expected 2 columns \(protein_a protein_b\), found 1 "
                                                 r"\(line 2 has 2; every row needs the same separator: a comma\)"):
        read_protein_pairs(write(tmp_path, "q.csv", "P1 P3\nP2,P1\n"), names)


def test_a_protein_paired_with_itself_is_kept_and_noted(tmp_path, caplog):
    d = read_string_actions(write(tmp_path, "a.txt", HEAD + ROWS[0] + "\nP3\tP3\tbinding\t\tf\tf\t400\n"))
    assert [d.node_names[i] for i in d.pairs[-1].tolist()] == ["P3", "P3"]
    assert "a.txt: 1 row(s) of a protein with itself (e.g. P3, line 3): kept as pairs" in caplog.text
