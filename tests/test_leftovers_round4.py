"""Round-4 leftovers: protein features found by entry name, the seed count of the AUC table, GATConv on 'meta'."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import write

from gatbio.data.io import MalformedFileError
from gatbio.data.sequence import id_aliases, read_protein_features, read_sequences
from gatbio.nn import GATConv
from gatbio.tasks import robustness_summary as rs


# ------------------------------------------------------------------------------------------ protein features
def test_features_keyed_by_accession_serve_a_network_of_entry_names(tmp_path, caplog):
    """`gatbio protein embed` names a UniProt FASTA's proteins by accession; a network naming them HBA_HUMAN found
    no row."""
    names = ["HBB_HUMAN", "HBA_HUMAN"]
    p = write(tmp_path, "e.tsv", "id\tentry_name\tfeature_1\tfeature_2\nP69905\tHBA_HUMAN\t1\t2\n"
                                 "P68871\tHBB_HUMAN\t3\t4\nQ99999\tX_HUMAN\t5\t6\n")
    with caplog.at_level(logging.WARNING, logger="gatbio.data"):
        x, cols = read_protein_features(p, names)
    assert x.tolist() == [[3, 4], [1, 2]] and cols == ["feature_1", "feature_2"] and x.dtype == np.float32
    assert "e.tsv: 2 of the network's proteins found by another name of their row (e.g. 'HBB_HUMAN' -> " \
           "'P68871')" in caplog.text and "1 row(s) of proteins outside the network skipped" in caplog.text
    assert read_protein_features(p, ["P69905"])[0].tolist() == [[1, 2]]  # by accession, as before
    with pytest.raises(MalformedFileError, match=r"b\.tsv:3: feature 'feature_1' of protein 'P68871' must be a "
                                                 r"finite number, found 'x'"):
        read_protein_features(write(tmp_path, "b.tsv", "id\tentry_name\tfeature_1\nP69905\tHBA_HUMAN\t1\n"
                                                       "P68871\tHBB_HUMAN\tx\n"), names)


def test_an_old_features_file_without_entry_names(tmp_path):
    """A headerless file keyed by accession still reads; entry names come from ``aliases`` (the FASTA's), and an
    id kept whole (an older embed's 'sp|P69905|HBA_HUMAN') matches by its fields."""
    fasta = write(tmp_path, "s.fa", ">sp|P69905|HBA_HUMAN a\nMVLSPADK\n>sp|P68871|HBB_HUMAN b\nMVHLTPEEK\n")
    p = write(tmp_path, "e.tsv", "P69905\t1\t2\nP68871\t3\t4\n")
    with pytest.raises(MalformedFileError, match=r"no row, e\.g\. \['HBA_HUMAN'\] .*'entry_name' column"):
        read_protein_features(p, ["HBA_HUMAN"])
    x, _ = read_protein_features(p, ["HBA_HUMAN", "P68871"], aliases=id_aliases(read_sequences(fasta)))
    assert x.tolist() == [[1, 2], [3, 4]]
    old = write(tmp_path, "old.tsv", "sp|P69905|HBA_HUMAN\t1\t2\nsp|P68871|HBB_HUMAN\t3\t\n")
    assert read_protein_features(old, ["P69905", "HBA_HUMAN"])[0].tolist() == [[1, 2], [1, 2]]
    with pytest.raises(MalformedFileError, match=r"old\.tsv:2: protein 'sp\|P68871\|HBB_HUMAN' has no feature"):
        read_protein_features(old, ["HBB_HUMAN"])  # a hole in a row found by another name: named with its line


# ------------------------------------------------------------------------------------------ robustness AUC
def test_auc_n_counts_only_seeds_with_an_area():
    """A seed whose curve has a single scored fraction has a NaN area: auc_mean leaves it out, n counted it."""
    rows = [{"task": "protein", "dataset": "ppi", "model": "gat", "perturbation": "degree", "seed": s,
             "fraction": f, "relative": (np.nan if s == 2 and f > 0 else 1 - f), "clean": 0.8}
            for s in range(3) for f in (0.0, 0.1, 0.2)]
    auc = rs.auc_table(pd.DataFrame(rows), pool_webs=False)
    assert len(auc) == 1 and auc.loc[0, "n"] == 2 and auc.loc[0, "auc_mean"] == pytest.approx(0.9)


# ------------------------------------------------------------------------------------------ GATConv on 'meta'
def test_gatconv_forward_on_meta_tensors():
    """The index range check read the values back: 'Cannot copy out of meta tensor'."""
    conv = GATConv(4, 3, heads=2, add_self_loops=False).to("meta")
    x = torch.empty(5, 4, device="meta")
    edge_index = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]], device="meta")
    out, (ei, alpha) = conv(x, edge_index, return_attention_weights=True)
    assert out.device.type == "meta" and out.shape == (5, 6) and alpha.shape == (4, 2)
