"""``gatbio protein interactions predict`` with a UniProt FASTA as --sequences: new proteins named by their accession
or their entry name in --pairs; network proteins found by their entry name."""

from __future__ import annotations

import pandas as pd
from conftest import write_pair_files

from gatbio.cli import main


def test_new_uniprot_proteins_are_paired_by_accession_or_entry_name(tmp_path, capsys, caplog):
    """The new protein's id was 'sp|Q9XYZ1|NEW_HUMAN' (the header's first word): '--pairs' naming Q9XYZ1 or
    NEW_HUMAN was refused ('not in the interaction network nor in --sequences; did you mean sp|Q9XYZ1|...')."""
    write_pair_files(tmp_path)
    seqs = dict(line.split("\t") for line in (tmp_path / "seqs.tsv").read_text().splitlines())
    (tmp_path / "u.fasta").write_text("".join(f">{n}\n{q}\n" for n, q in seqs.items())
                                      + f">sp|Q9XYZ1|NEW_HUMAN A new protein OS=Homo sapiens\n{seqs['P3'][::-1]}\n")
    (tmp_path / "q.txt").write_text("Q9XYZ1 P1\nNEW_HUMAN P2\nP0 P1\n")
    argv = ["protein", "interactions", "predict", "--actions", str(tmp_path / "actions.txt"), "--sequences",
            str(tmp_path / "u.fasta"), "--device", "cpu", "features=[aac,ct]", "--model", "profile_rule",
            "--pairs", str(tmp_path / "q.txt"), "--out", str(tmp_path / "p.csv")]
    assert main(argv) == 0
    err = capsys.readouterr().err
    # said once: the network was read again with the new protein, and the file's notes were said twice
    assert caplog.text.count("UniProt FASTA headers ('sp|Q9XYZ1|NEW_HUMAN'): 1 protein(s) named by their accession "
                             "('Q9XYZ1')") == 1
    assert "1 protein(s) of --pairs have a sequence but no interaction in --actions (e.g. Q9XYZ1)" in err
    assert "q.txt: 1 new protein(s) named by another name of their --sequences record (e.g. 'NEW_HUMAN', a UniProt " \
           "entry name), which --out names by the record's id ('Q9XYZ1')" in caplog.text
    pred = pd.read_csv(tmp_path / "p.csv")  # one protein, one name
    assert pred["protein_a"].tolist() == ["Q9XYZ1", "Q9XYZ1", "P0"] and pred["protein_b"].tolist() == ["P1", "P2", "P1"]
