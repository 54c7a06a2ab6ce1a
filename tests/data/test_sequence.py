"""Sequence reader (FASTA / TSV) and sequence features: known answers on short sequences, errors with file:line."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import write

from gatbio.data.io import MalformedFileError
from gatbio.data.sequence import (
    AMINO_ACIDS,
    amino_acid_composition,
    conjoint_triad,
    dipeptide_composition,
    pooled_embedding,
    read_aa_embedding,
    read_protein_features,
    read_sequences,
    residue_matrix,
    sequence_features,
)


def test_reads_fasta_and_tsv_alike(tmp_path):
    fasta = read_sequences(write(tmp_path, "s.fa", ">P1 some protein\nMKV\nlla*\n\n>P2\nAAC\n"))
    tsv = read_sequences(write(tmp_path, "s.tsv", "# comment\nP1\tMKVLLA\nP2\tAAC\n"))
    assert fasta == tsv == {"P1": "MKVLLA", "P2": "AAC"}
    # wrapping may leave the final stop on a line of its own
    assert read_sequences(write(tmp_path, "w.fa", ">P1\nMKV\nLLA\n*\n>P2\nAAC\n")) == {"P1": "MKVLLA", "P2": "AAC"}


def test_a_header_row_of_a_sequence_table_is_skipped(tmp_path, caplog):
    assert read_sequences(write(tmp_path, "s.tsv", "id\tsequence\nP1\tMKV\n")) == {"P1": "MKV"}
    assert "s.tsv: line 1 'id\\tsequence' read as a header" in caplog.text  # the line as repr() shows it
    # the same words further down are a protein named 'id', not a header: its sequence is refused as a duplicate
    with pytest.raises(MalformedFileError, match=r"s\.tsv:3: duplicate protein id 'P1'"):
        read_sequences(write(tmp_path, "s.tsv", "P1\tMKV\nid\tsequence\nP1\tMKV\n"))


@pytest.mark.parametrize("name, text, msg", [
    ("s.tsv", "P1\tMKV\nP2\t\n", r"s\.tsv:2: protein 'P2' has an empty sequence"),
    ("s.tsv", "P1\tMKV\nP2\tMK1V\n", r"s\.tsv:2: protein 'P2': invalid character '1'"),
    ("s.tsv", "P1\tMKV\nP2\tAAC\nP1\tMKV\n", r"s\.tsv:3: duplicate protein id 'P1' \(first on line 1\)"),
    ("s.tsv", "P1\tMKV\tx\n", r"s\.tsv:1: expected 2 columns"),
    ("s.fa", ">P1\nMKV\n>P2\n>P3\nAA\n", r"s\.fa:3: protein 'P2' has an empty sequence"),
    ("s.fa", ">P1\nMK-V\n", r"s\.fa:2: protein 'P1': invalid character '-'"),
    ("s.fa", ">P1\nMKV\n>P1\nAA\n", r"s\.fa:3: duplicate protein id 'P1' \(first on line 1\)"),
    ("s.fa", ">\nMKV\n", r"s\.fa:1: FASTA header '>' without a protein id"),
    ("s.fa", ">P1\nMGLTVSA*LFSR\n", r"s\.fa:2: protein 'P1': a stop '\*' inside the sequence \(at residue 8"),
    ("s.fa", ">P1\nMGLT*\nLFSR\n", r"s\.fa:1: protein 'P1': a stop '\*' inside the sequence \(at residue 5"),
    ("s.fa", ">P1\nMKV\n>P2\n*\n", r"s\.fa:3: protein 'P2': an empty sequence \(only a stop '\*'\)"),
    ("s.fa", ">P1\nMKV**\n", r"s\.fa:2: protein 'P1': 2 stops '\*' at the end \(one final '\*' is allowed\)"),
    ("s.fa", ">P1\nMKV*\n*\n", r"s\.fa:1: protein 'P1': 2 stops '\*' at the end"),
    ("s.tsv", "P1\t*\n", r"s\.tsv:1: protein 'P1': an empty sequence \(only a stop"),
    ("s.tsv", "P1\tMGLTVSA\u00c9LFSR\n", r"s\.tsv:1: protein 'P1': invalid character '\u00c9' at residue 8"),
    ("s.fa", ">N1\nACGTTGCAACGTTGCAACGTTGCA\n>N2\nACGUUGCAACGTTGCAACGTTGCANNA\n", r"look like nucleotide sequences"),
    # one nucleotide record among proteins (was read as a protein): no protein of 50 residues is only A, C, G, T, N
    ("s.fa", ">P1\nMKV\n>N1\n" + "ACGT" * 13 + "\n", r"s\.fa:3: protein 'N1': its 52 residues are only A, C, G, "
                                                     r"T/U and N: a nucleotide sequence"),
])
def test_bad_sequence_files_name_file_and_line(tmp_path, name, text, msg):
    with pytest.raises(MalformedFileError, match=msg):
        read_sequences(write(tmp_path, name, text))


def test_composition_known_answers():
    aac = amino_acid_composition(["AAC", "AXC"])  # X is not a standard residue: skipped
    assert aac[0, AMINO_ACIDS.index("A")] == pytest.approx(2 / 3) and aac[0, AMINO_ACIDS.index("C")] == pytest.approx(1 / 3)
    assert aac[1, AMINO_ACIDS.index("A")] == pytest.approx(0.5) and aac.sum(1) == pytest.approx([1, 1])
    dpc = dipeptide_composition(["AAC", "AC", "A"])
    a, c = AMINO_ACIDS.index("A"), AMINO_ACIDS.index("C")
    assert dpc[0, 20 * a + a] == pytest.approx(0.5) and dpc[0, 20 * a + c] == pytest.approx(0.5)
    assert dpc[1, 20 * a + c] == 1.0 and dpc[2].sum() == 0  # a single residue has no dipeptide
    assert dpc[0].sum() == pytest.approx(1.0)  # windows never cross into the next sequence


def test_conjoint_triad_known_answer():
    # classes (Shen et al. 2007): A,G,V -> 0; C -> 6; R,K -> 4; D,E -> 5
    ct = conjoint_triad(["AGVC", "RKDE"], normalize="count")
    assert np.flatnonzero(ct[0]).tolist() == [0, 6] and ct[0, [0, 6]].tolist() == [1, 1]  # AGV=000, GVC=006
    assert np.flatnonzero(ct[1]).tolist() == [4 * 49 + 4 * 7 + 5, 4 * 49 + 5 * 7 + 5]  # RKD=445, KDE=455
    freq = conjoint_triad(["AGVC"])
    assert freq[0, 0] == freq[0, 6] == 0.5
    shen = conjoint_triad(["AGVAGV"], normalize="shen")  # counts AGV 2, GVA 1, VAG 1 (all class 000): 4 at 0
    assert shen[0, 0] == 1.0 and shen[0].sum() == 1.0


def test_pooled_embedding_mean_max_std_and_unknown_letter():
    emb = {"A": np.array([1.0, 0.0]), "C": np.array([3.0, 2.0])}
    seqs = ["AAC", "C"]
    assert pooled_embedding(seqs, emb, "mean") == pytest.approx(np.array([[5 / 3, 2 / 3], [3.0, 2.0]]))
    assert pooled_embedding(seqs, emb, "max") == pytest.approx(np.array([[3.0, 2.0], [3.0, 2.0]]))
    std = pooled_embedding(seqs, emb, "std")
    assert std[0] == pytest.approx(np.array([np.std([1, 1, 3]), np.std([0, 0, 2])])) and std[1] == pytest.approx(0)
    assert pooled_embedding(["AACCC"], emb, "mean", max_len=2) == pytest.approx(np.array([[1.0, 0.0]]))
    with pytest.raises(ValueError, match=r"sequence 0 holds 'W', which has no row"):
        pooled_embedding(["AW"], emb)


def test_residue_matrix_rows_mask_padding_and_standardisation():
    emb = {"A": np.array([1.0, 0.0]), "C": np.array([3.0, 2.0])}
    r = residue_matrix(["AAC", "C", "CCCCC"], emb, max_len=4, standardize=False)
    assert r.shape == (3, 4, 3) and r.dtype == np.float32  # L = min(max_len, longest)
    assert r[:, :, 2].tolist() == [[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1]]  # mask; the 5th C is cut
    assert r[0, :, :2].tolist() == [[1, 0], [1, 0], [3, 2], [0, 0]] and (r[1, 1:] == 0).all()  # zero padding
    # the mean of a sequence's rows is its vec5_mean-style pooled embedding
    assert r[0, :3, :2].mean(0) == pytest.approx(pooled_embedding(["AAC"], emb, "mean")[0])
    z = residue_matrix(["AAC", "C", "CCCCC"], emb, max_len=4)
    rows = z[z[:, :, 2] > 0][:, :2]  # the 8 residues kept
    assert rows.mean(0) == pytest.approx([0, 0], abs=1e-6) and rows.std(0) == pytest.approx([1, 1], abs=1e-6)
    assert (z[z[:, :, 2] == 0] == 0).all()  # padding stays zero after standardising
    assert residue_matrix(["AC"], emb, max_len=100).shape == (1, 2, 3)
    with pytest.raises(ValueError, match=r"sequence 1 holds 'W', which has no row"):
        residue_matrix(["A", "CW"], emb)
    with pytest.raises(ValueError, match="max_len=0"):
        residue_matrix(["A"], emb, max_len=0)


def test_sequence_features_concatenate_in_order_with_names(tmp_path):
    emb = write(tmp_path, "vec.txt", "A\t1.0 0.0\nC\t3.0 2.0\n")
    x, names = sequence_features(["AAC", "CA"], ["aac", "vec5_mean", "ct"], emb)
    assert x.shape == (2, 20 + 2 + 343) and x.dtype == np.float32 and len(names) == x.shape[1]
    assert names[0] == "aac:A" and names[20] == "vec5_mean:0" and names[22] == "ct:000"
    assert x[1, 20:22] == pytest.approx([2.0, 1.0])
    with pytest.raises(ValueError, match="choose one or more of vec5_mean"):
        sequence_features(["AAC"], ["kmer9"])


def test_vec5_ctc_file_and_shs27k_features(data_root):
    emb = read_aa_embedding(data_root / "string_shs27k" / "vec5_CTC.txt")
    assert len(emb) == 26 and all(len(v) == 13 for v in emb.values())
    assert emb["A"][5:].tolist() == [1, 0, 0, 0, 0, 0, 0, 0]  # group code column 1: {A, G, V}
    seqs = read_sequences(data_root / "string_shs27k" / "protein.SHS27k.sequences.dictionary.tsv")
    assert len(seqs) == 1690
    import time

    t0 = time.perf_counter()
    x, _ = sequence_features(list(seqs.values()), ["vec5_mean", "vec5_max", "vec5_std", "aac", "dpc", "ct"], emb)
    assert time.perf_counter() - t0 < 10  # 1,690 sequences of mean length 571 in a few seconds
    assert x.shape == (1690, 13 * 3 + 20 + 400 + 343) and np.isfinite(x).all()


def test_bad_embedding_file(tmp_path):
    with pytest.raises(MalformedFileError, match=r"e\.txt:2: 1 numbers, the rows before have 2"):
        read_aa_embedding(write(tmp_path, "e.txt", "A\t1 2\nC\t3\n"))


def test_log_length_and_kmer_knn_graph_is_symmetric_and_label_free():
    from gatbio.data.sequence import kmer_similarity, sequence_knn_graph

    seqs = ["ACDEFGHIK", "ACDEFGHIKL", "WWYYWWYYW", "WWYYWWYYWY", "MNPQRSTMNP"]
    x, names = sequence_features(seqs, ["log_length"])
    assert names == ["log_length"] and np.allclose(x[:, 0], np.log([9, 10, 9, 10, 10]))
    sim = kmer_similarity(seqs, 3)
    assert np.allclose(sim, sim.T) and np.all(np.diag(sim) == 0) and sim[0, 1] > 0.5 and sim[0, 2] == 0
    ei, w = sequence_knn_graph(seqs, neighbors=1)
    edges = set(map(tuple, ei.T.tolist()))
    assert {(0, 1), (1, 0), (2, 3), (3, 2)} <= edges and all((b, a) in edges for a, b in edges)
    assert all(a != b for a, b in edges) and np.allclose(w, sim[ei[0], ei[1]])
    # label-free: a function of the sequences alone (the same input gives the same graph)
    ei2, _ = sequence_knn_graph(similarity=sim, neighbors=1)
    assert np.array_equal(ei, ei2)
    with pytest.raises(ValueError, match="neighbors=5: must be between 1 and N - 1 = 4"):
        sequence_knn_graph(seqs, neighbors=5)


def test_alignment_similarity_scores_the_textbook_local_alignment():
    """Durbin et al. (1998), Fig. 2.6: HEAGAWGHEE against PAWHEAE, BLOSUM50, linear gap 8 (open = extend = 8):
    the best local alignment AWGHE / AW-HE scores 5 + 15 - 8 + 10 + 6 = 28."""
    pytest.importorskip("parasail")
    from gatbio.data.sequence import alignment_similarity

    a, b = "HEAGAWGHEE", "PAWHEAE"
    sim = alignment_similarity([a, b, a], matrix="blosum50", gap_open=8, gap_extend=8)
    self_a = 10 + 6 + 5 + 8 + 5 + 15 + 8 + 10 + 6 + 6  # BLOSUM50 diagonal of H E A G A W G H E E
    self_b = 10 + 5 + 15 + 10 + 6 + 5 + 6  # P A W H E A E
    assert sim[0, 1] == pytest.approx(28 / np.sqrt(self_a * self_b), rel=1e-6)
    assert sim[0, 2] == pytest.approx(1.0) and np.allclose(sim, sim.T) and np.all(np.diag(sim) == 0)


def test_alignment_similarity_finds_a_shared_domain_that_kmers_dilute():
    pytest.importorskip("parasail")
    from gatbio.data.sequence import alignment_similarity

    rng = np.random.default_rng(0)
    aa = np.array(list("ACDEFGHIKLMNPQRSTVWY"))
    domain = "".join(rng.choice(aa, 60))
    seqs = ["".join(rng.choice(aa, 400)) + domain, domain + "".join(rng.choice(aa, 400)), "".join(rng.choice(aa, 460))]
    sim = alignment_similarity(seqs)
    assert sim[0, 1] > 3 * max(sim[0, 2], sim[1, 2])  # the two sequences sharing a domain stand out
    with pytest.raises(ValueError, match="not a parasail substitution matrix"):
        alignment_similarity(seqs, matrix="blosum999")
    assert alignment_similarity(["", "ACD"])[0, 1] == 0.0  # an empty sequence aligns with nothing


def test_own_protein_features_are_aligned_to_the_network(tmp_path, caplog):
    """Rows in any order, proteins outside the network skipped, a header detected; every network protein needs a
    full row of numbers."""
    names = ["P1", "P2", "P3"]
    x, cols = read_protein_features(write(tmp_path, "e.tsv", "P3\t3\t30\nP9\t9\t90\nP1\t1\t10\nP2\t2\t20\n"), names)
    assert x.tolist() == [[1, 10], [2, 20], [3, 30]] and cols == ["feature_1", "feature_2"] and x.dtype == np.float32
    assert "e.tsv: 1 row(s) of proteins outside the network skipped" in caplog.text
    x, cols = read_protein_features(write(tmp_path, "e.csv", "# ESM\nid,esm_0,esm_1\nP1,1,10\nP2,2,20\nP3,3,30\n"),
                                    names)
    assert cols == ["esm_0", "esm_1"] and x[2].tolist() == [3, 30]
    assert "e.csv: line 2 'id,esm_0,esm_1' read as a header" in caplog.text
    with pytest.raises(MalformedFileError, match=r"1 of the network's 3 proteins have no row, e\.g\. \['P3'\]"):
        read_protein_features(write(tmp_path, "m.tsv", "P1\t1\nP2\t2\n"), names)
    with pytest.raises(MalformedFileError, match=r"b\.tsv:2: feature 'feature_1' must be a number, found 'x'"):
        read_protein_features(write(tmp_path, "b.tsv", "P1\t1\nP2\tx\nP3\t3\n"), names)
    with pytest.raises(MalformedFileError, match=r"d\.tsv:3: protein 'P1' has more than one row"):
        read_protein_features(write(tmp_path, "d.tsv", "P1\t1\nP2\t2\nP1\t1\nP3\t3\n"), names)
    with pytest.raises(MalformedFileError, match=r"h\.tsv:2: protein 'P2' has no feature 'feature_2' \(an empty, NA "
                                                 r"or nan field, or a short row: 2 of 3 fields; 1 missing in all\)"):
        read_protein_features(write(tmp_path, "h.tsv", "P1\t1\t1\nP2\t2\t\nP3\t3\t3\n"), names)
    with pytest.raises(MalformedFileError, match=r"n\.tsv:4: protein 'P3' has no feature 'feature_1'"):
        read_protein_features(write(tmp_path, "n.tsv", "# embeddings\nP1\t1\t1\nP2\t2\t2\nP3\tnan\t3\n"), names)
    # a hole in a row of a protein outside the network does not matter (the row is skipped)
    x, _ = read_protein_features(write(tmp_path, "o.tsv", "P1\t1\t1\nP9\t\t\nP2\t2\t2\nP3\t3\t3\n"), names)
    assert x.tolist() == [[1, 1], [2, 2], [3, 3]]
    with pytest.raises(MalformedFileError, match="no feature columns"):
        read_protein_features(write(tmp_path, "n.tsv", "P1\nP2\nP3\n"), names)


def test_uniprot_style_ids_find_the_interaction_files_proteins(tmp_path, caplog):
    """'>sp|P69905|HBA_HUMAN ...' headers gave 'sp|P69905|HBA_HUMAN' ids: the network's 'P69905' found no
    sequence, and the error named neither the ids read nor the fix. Now the id is the accession; a network naming
    the protein by its entry name finds it too (said)."""
    from torch_geometric.data import Data

    from gatbio.data.ppi import attach_sequences
    from gatbio.data.sequence import read_sequences
    from gatbio.data.tables import MalformedFileError

    fa = tmp_path / "u.fasta"
    fa.write_text(">sp|P69905|HBA_HUMAN Hemoglobin subunit alpha OS=Homo sapiens\nMVLSPADKTNVKAAW\n"
                  ">sp|P68871|HBB_HUMAN Hemoglobin subunit beta\nMVHLTPEEKSAVTAL\n>Q1 plain\nMKKL\n")
    data = attach_sequences(Data(node_names=["P68871", "HBA_HUMAN", "Q1"]), read_sequences(fa), fa)
    assert data.sequences == ["MVHLTPEEKSAVTAL", "MVLSPADKTNVKAAW", "MKKL"]
    assert "1 protein(s) of the interaction file found by another name of their sequence record (e.g. 'HBA_HUMAN', " \
           "the record read as 'P69905')" in caplog.text
    with pytest.raises(MalformedFileError, match=r"u\.fasta: 1 protein\(s\) of the interaction file have no "
                                                 r"sequence, e\.g\. \['P99999'\]; the sequence file's ids are "
                                                 r"'P69905', 'P68871', 'Q1': each needs"):
        attach_sequences(Data(node_names=["P69905", "P99999"]), read_sequences(fa), fa)
