"""Messages for a user's STRING actions file, protein pairs and config paths that named the wrong problem.

Each case here was reported with a misleading message: an empty score field said "too few columns", a line
separated by spaces (or a comment line) said "item_id_b is empty", a header repeated mid-file (two files joined)
said "score must be an integer, found 'score'", a pairs file's header 'a b' said "protein 'a' is not in the
interaction network", and a config's relative path said "no such file" without the folder it was looked for in.
"""

from __future__ import annotations

import pytest
from conftest import write

from gatbio.data.io import MalformedFileError, read_protein_pairs, read_string_actions
from gatbio.data.tables import read_table

HEAD = "item_id_a\titem_id_b\tmode\taction\tis_directional\ta_is_acting\tscore\n"
ROW = "P1\tP2\tbinding\t\tf\tf\t500\n"
ROW2 = "P2\tP3\tactivation\tactivation\tt\tt\t800\n"




# ---------------------------------------------------------------------------------- 1. an empty score field

def test_actions_empty_score_field_is_said_empty_not_too_few_columns(tmp_path):
    p = write(tmp_path, "a.txt", HEAD + ROW + "P1\tP3\tbinding\t\tf\tf\t\n" + ROW2)
    with pytest.raises(MalformedFileError, match=r"a\.txt:3: the score field is empty: write an integer there, or "
                                                 r"delete the line"):
        read_string_actions(p)
    p = write(tmp_path, "a.txt", HEAD + ROW + "P1\tP3\tbinding\t\tf\tf\t   \n")  # blanks only: empty too
    with pytest.raises(MalformedFileError, match=r"a\.txt:3: the score field is empty"):
        read_string_actions(p)
    p = write(tmp_path, "a.txt", HEAD + ROW + "P1\tP3\tbinding\t\tf\tf\n")  # a short line keeps its message
    with pytest.raises(MalformedFileError, match=r"a\.txt:3: score is missing \(too few columns on this line\)"):
        read_string_actions(p)


def test_table_empty_weight_field_is_said_empty_not_too_few_columns(tmp_path):
    table = read_table(write(tmp_path, "w.csv", "a,b,w\nx,y,0.5\ny,z,\nz,x,1\n"), sep=",", header=True)
    with pytest.raises(MalformedFileError, match=r"w\.csv:3: the w field is empty: write a number there, or delete "
                                                 r"the line"):
        table.weights("w", "w")
    table = read_table(write(tmp_path, "w.csv", "a,b,w\nx,y,0.5\ny,z\n"), sep=",", header=True)
    with pytest.raises(MalformedFileError, match=r"w\.csv:3: w is missing \(too few columns on this line\)"):
        table.weights("w", "w")


# ------------------------------------------------------------------- 2. spaces for tabs, and a comment line

@pytest.mark.parametrize("body", [ROW + ROW.replace("\t", " ").replace("  ", " "),  # a later line
                                  ROW.replace("\t", " ").replace("  ", " ") + ROW2,  # the first data line
                                  ROW + "P1\tP2\tbinding\t\tf f 500\n"])  # partly
def test_actions_line_separated_by_spaces_is_said(tmp_path, body):
    line = 3 if body.startswith("P1\t") else 2
    with pytest.raises(MalformedFileError, match=rf"a\.txt:{line}: this line is not tab-separated \(spaces\?\): "
                                                 r"STRING protein\.actions files separate their 7 columns by tabs; "
                                                 r"replace the spaces between the fields by tabs"):
        read_string_actions(write(tmp_path, "a.txt", HEAD + body))


def test_actions_file_separated_by_spaces_or_commas_is_said_at_its_header(tmp_path):
    for sep, word in ((" ", "spaces"), (",", "commas")):
        text = (HEAD + ROW).replace("\t", sep)
        with pytest.raises(MalformedFileError, match=rf"a\.txt:1: the header line is not tab-separated \({word}\?\)"
                                                     rf".*replace the {word} by tabs"):
            read_string_actions(write(tmp_path, "a.txt", text))


@pytest.mark.parametrize("body, line", [(ROW + "# a note\n" + ROW2, 3), ("# a note\n" + ROW, 2),
                                        (ROW + "#P1\tP2\tbinding\t\tf\tf\t500\n", 3)])
def test_actions_comment_line_is_said_a_comment_to_delete(tmp_path, body, line):
    """STRING files have no comments, and gatbio's STRING readers read none: a clear error, not a skip."""
    with pytest.raises(MalformedFileError, match=rf"a\.txt:{line}: this line starts with '#' \(a comment\?\): "
                                                 r"STRING protein\.actions files have no comment lines; delete it"):
        read_string_actions(write(tmp_path, "a.txt", HEAD + body))


# -------------------------------------------------------------------------------- 3. a repeated header line

def test_actions_repeated_header_is_said_to_delete(tmp_path):
    p = write(tmp_path, "a.txt", HEAD + ROW + HEAD + ROW2)  # two files joined with cat
    with pytest.raises(MalformedFileError, match=r"a\.txt:3: a repeated header line \(two files joined\?; the header "
                                                 r"is line 1\): delete it"):
        read_string_actions(p)


# ------------------------------------------------------------------------- 4. a pairs file's unknown header

def test_pairs_header_of_unknown_words_suggests_header_option(tmp_path):
    names = ["P1", "P2", "P3"]
    p = write(tmp_path, "q.tsv", "a\tb\nP1\tP2\nP2\tP3\n")
    with pytest.raises(MalformedFileError, match=r"q\.tsv:1: neither 'a' nor 'b' is a protein of the interaction "
                                                 r"network, and every later line names two known proteins: is this "
                                                 r"line a header \(column names\)\? pass --header \(header=True\)"):
        read_protein_pairs(p, names)
    assert read_protein_pairs(p, names, header=True)[1] == [("P1", "P2"), ("P2", "P3")]
    with pytest.raises(MalformedFileError, match=r"q\.tsv:1: protein 'a' is not in the interaction network") as err:
        read_protein_pairs(p, names, header=False)  # --no-header: the user said line 1 is data
    assert "--header" not in str(err.value)
    # column names above a file with another unknown protein: the unknown one is named, the header suggested
    p = write(tmp_path, "q.tsv", "a\tb\nP1\tP2\nP2\tQ9\n")
    with pytest.raises(MalformedFileError, match=r"q\.tsv:1: protein 'a' is not in the interaction network.*; line "
                                                 r"1 looks like column names: if it is a header, pass --header"):
        read_protein_pairs(p, names)


def test_pairs_unknown_first_line_that_is_no_header_is_not_called_one(tmp_path):
    p = write(tmp_path, "q.tsv", "X1\tX2\nP1\tX3\n")
    with pytest.raises(MalformedFileError, match=r"q\.tsv:1: protein 'X1' is not in the interaction network") as err:
        read_protein_pairs(p, ["P1", "P2"])
    assert "--header" not in str(err.value)


# --------------------------------------------------------------------------- 5. a config's relative paths

def test_config_relative_path_missing_names_the_folder_and_the_config_folder(tmp_path, monkeypatch):
    from gatbio.tasks import protein_interactions as pi

    there = tmp_path / "project"
    there.mkdir()
    write(there, "actions.txt", HEAD + ROW)
    cfg_file = write(there, "files.yaml", "dataset: files\nactions: actions.txt\nsequences: seqs.fa\n"
                                          f"out_dir: {tmp_path / 'out'}\ndevice: cpu\n")
    here = tmp_path / "elsewhere"
    here.mkdir()
    monkeypatch.chdir(here)
    cfg = pi.load(str(cfg_file), [])
    with pytest.raises(FileNotFoundError) as err:
        pi.run(cfg)
    msg = str(err.value)
    assert msg.startswith("config actions: actions.txt: no such file")
    assert f"looked for {here / 'actions.txt'}" in msg  # the folder it was looked in
    assert f"actions.txt is in the folder of the config file {cfg_file}: run gatbio from {there}, or write the " \
           f"path relative to the current folder or absolute ({there / 'actions.txt'})" in msg
    # found in neither folder: the folder looked in, nothing about the config's
    (there / "actions.txt").unlink()
    with pytest.raises(FileNotFoundError) as err:
        pi.run(cfg)
    assert f"looked for {here / 'actions.txt'}" in str(err.value) and "folder of the config" not in str(err.value)
    # the rule stays: run from the config's folder, the relative path is found
    monkeypatch.chdir(there)
    write(there, "actions.txt", HEAD + ROW)
    from gatbio._paths import check_input_file
    assert check_input_file(cfg.actions, "config actions:").name == "actions.txt"


# ----------------------------------------------------------------------- 6. review: messages on real files

def test_actions_bad_last_score_looks_only_at_rows_that_may_be_no_row(tmp_path, monkeypatch):
    """One bad score at the end of a real actions file (STRING's action column empty on most rows) was reported
    after a Python loop over nearly every row (seconds on SHS27k): only rows that may be no row at all (a line read
    whole, a comment, a header) are looked at. Counted by the whitespace checks of the loop, not timed."""
    import re

    import gatbio.data.io as io_mod

    calls = []

    class CountingRe:
        def __getattr__(self, name):
            return getattr(re, name)

        @staticmethod
        def search(*args, **kwargs):
            calls.append(args[0])
            return re.search(*args, **kwargs)

    rows = "".join(f"P{i}\tP{i + 1}\tbinding\t\tf\tf\t500\n" for i in range(2000))
    p = write(tmp_path, "a.txt", HEAD + rows + "P1\tP9\tbinding\t\tf\tf\tx9\n")
    monkeypatch.setattr(io_mod, "re", CountingRe())
    with pytest.raises(MalformedFileError, match=r"a\.txt:2002: score must be an integer, found 'x9'"):
        read_string_actions(p)
    assert len(calls) < 100


def test_pairs_outside_protein_on_line_one_is_named_not_called_a_header(tmp_path):
    """Line 1 naming a protein written another way ('p0' for 'P0') got "is this line a header?" instead of the
    reason the caller knows; two unknown ids (another STRING version's) on line 1 were called a header too."""
    names = ["P0", "P1", "P2"]
    p = write(tmp_path, "q.txt", "p0 P9\nP0 P1\nP1 P2\n")
    with pytest.raises(MalformedFileError, match=r"q\.txt:1: protein 'p0' differs from 'P0' only by case: write "
                                                 r"'P0'$"):
        read_protein_pairs(p, names, outside={"p0": "differs from 'P0' only by case: write 'P0'"})
    p = write(tmp_path, "q.txt", "9606.ENSP00000000233 9606.ENSP00000000412\nP0 P1\nP1 P2\n")
    with pytest.raises(MalformedFileError, match=r"q\.txt:1: protein '9606\.ENSP00000000233' is not in the "
                                                 r"interaction network") as err:
        read_protein_pairs(p, names)
    assert "header" not in str(err.value)


def test_node_list_with_semicolons_in_descriptions_names_the_first_word(tmp_path):
    """'P1 serine kinase; putative' lines were split at their semicolons (a spreadsheet's CSV): the names became
    'P1 serine kinase'."""
    from gatbio.data.io import read_node_list

    p = write(tmp_path, "n.txt", "P1 serine kinase; putative\nP2 transporter; membrane\n")
    assert read_node_list(p) == ["P1", "P2"]
    assert read_node_list(write(tmp_path, "s.csv", "TP53;kinase\nMYC;tf\n")) == ["TP53", "MYC"]


def test_matrix_hints_say_the_command_line_way(tmp_path):
    """sep= and index_col= are Python arguments that a `gatbio trophic` user cannot pass: the hint says what to
    do there too."""
    from gatbio.data.io import read_adjacency_matrix

    p = write(tmp_path, "m.txt", "1 0 1 0\n2 0 0 1\n3 0 0 0\n")
    with pytest.raises(MalformedFileError, match=r"pass index_col=True \(gatbio trophic has no such option\), or "
                                                 r"give the matrix a header row of the same names to read both"):
        read_adjacency_matrix(p, convention="row_to_col")
    p = write(tmp_path, "m.txt", "0|1|0\n0|0|1\n0|0|0\n")
    with pytest.raises(MalformedFileError, match=r"\(pass sep='\|'\); gatbio trophic, which has no separator "
                                                 r"option, reads tabs, commas or blanks .*: replace each '\|' by a tab"):
        read_adjacency_matrix(p, convention="row_to_col")
