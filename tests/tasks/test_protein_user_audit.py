"""A biologist's own files through `gatbio protein predict`: a multi-organism BioGRID file, a GO table with
functions of one protein (the early-stopping hold-out keeps each function in training), and the PyG PPI layout's
cache (one per version of the raw files, the stale ones removed)."""


import numpy as np
import pandas as pd
import pytest
import torch
from conftest import ppi_raw
from torch_geometric.data import Data

from gatbio.cli import main

BIOGRID_COLUMNS = ["#BioGRID Interaction ID", "Entrez Gene Interactor A", "Entrez Gene Interactor B",
                   "Official Symbol Interactor A", "Official Symbol Interactor B", "Experimental System",
                   "Experimental System Type", "Organism ID Interactor A", "Organism ID Interactor B"]


def _two_modules() -> tuple[list[str], list[tuple[int, int]]]:
    """Two modules of 12 yeast-like proteins each, joined by one interaction."""
    rng = np.random.default_rng(0)
    names = [f"Y{c}R{i:03d}W" for c in "AB" for i in range(12)]
    edges = [(m * 12 + i, m * 12 + j) for m in (0, 1) for i in range(12) for j in range(i + 1, 12)
             if rng.random() < 0.5] + [(0, 12)]
    return names, edges


def _toy(rare: str) -> Data:
    """The two modules as a Data object: every other protein annotated with its module's function, and the
    protein ``rare`` also with a function of its own."""
    names, edges = _two_modules()
    ei = torch.tensor(edges).T
    data = Data(edge_index=torch.cat([ei, ei.flip(0)], 1), num_nodes=len(names))
    data.y = torch.zeros(len(names), 3)
    for i in range(0, 24, 2):
        data.y[i, i // 12] = 1
    data.y[names.index(rare), 2] = 1
    data.node_names, data.label_names = names, ["GO:0006351", "GO:0006810", "GO:0006281"]
    return data


def test_a_function_of_one_protein_stays_in_training(monkeypatch):
    """The tenth of the annotated proteins held out for early stopping was drawn blind to functions: a GO term of
    one protein drawn into it was never seen in training (scores near 0 for every protein, nothing said)."""
    from gatbio.tasks import protein as P

    data = _toy("YAR002W")
    rare = data.node_names.index("YAR002W")
    known = (data.y.sum(1) > 0).nonzero().view(-1).numpy()
    # a seed whose draw holds out the one protein of the rare function (the draw predict_unannotated makes)
    seed = next(s for s in range(100)
                if rare in np.random.default_rng(s).permutation(known)[:max(1, len(known) // 10)])
    seen = {}
    real = P.train_neural

    def spy(cfg, variant, data, x, fit_idx, val, *args, **kwargs):
        seen["fit"], seen["val"] = fit_idx.tolist(), val.tolist()
        return real(cfg, variant, data, x, fit_idx, val, *args, **kwargs)

    monkeypatch.setattr(P, "train_neural", spy)
    pred, _ = P.predict_unannotated(data, {"epochs": 4}, top=3, seed=seed)
    assert rare in seen["fit"] and len(seen["val"]) == 1 and not set(seen["val"]) & set(seen["fit"])
    assert set(seen["fit"]) | set(seen["val"]) == set(known.tolist())
    fit, val, unlearnt = P.early_stopping_split(data, seed)
    assert (fit.tolist(), val.tolist(), unlearnt) == (seen["fit"], seen["val"], [])
    # a seed whose draw holds out no protein of one function: the draw's own hold-out, as before
    other = next(s for s in range(100)
                 if rare not in np.random.default_rng(s).permutation(known)[:max(1, len(known) // 10)])
    assert P.early_stopping_split(data, other)[1].tolist() == sorted(
        np.random.default_rng(other).permutation(known)[:max(1, len(known) // 10)].tolist())
    scores = pred["scores"].str.split(";").explode().astype(float)
    assert scores.between(0, 1).all() and set(pred["protein"]) == set(data.node_names) - {
        data.node_names[i] for i in known}


def test_a_function_left_without_a_training_protein_is_said(tmp_path, capsys, caplog):
    """Two annotated proteins with a function each: one must be held out, and its function is never learnt; that
    is said, naming the function, and the count of held-out proteins printed is the one used."""
    names, edges = _two_modules()
    (tmp_path / "ppi.txt").write_text("".join(f"{names[a]} {names[b]}\n" for a, b in edges))
    (tmp_path / "go.txt").write_text("YAR000W GO:0006351\nYBR000W GO:0006810\n")
    rc = main(["protein", "predict", "--edges", str(tmp_path / "ppi.txt"), "--labels", str(tmp_path / "go.txt"),
               "--out", str(tmp_path / "p.csv"), "--epochs", "4", "--quiet"])
    assert rc == 0 and "2 annotated proteins to learn from (1 held out for early stopping)" in capsys.readouterr().err
    assert "1 function(s) have all their annotated proteins among the 1 held out for early stopping ('GO:0006" \
        in caplog.text and "the model never sees them in training" in caplog.text
    # every protein is the last of one of its functions: another seed only loses another function, so not advised
    assert "another seed would only lose another function" in caplog.text and "(--seed)" not in caplog.text


def test_a_multi_organism_biogrid_file_end_to_end(tmp_path, capsys, caplog):
    """Both directions, a duplicate row from a second experiment, self-interactions (one protein with nothing
    else), a genetic row, a host-pathogen row; a GO table with a protein outside the network: what was read is said
    and the predictions keep the file's names, with scores in [0, 1]."""
    names, edges = _two_modules()
    rows, k = [], 0

    def row(a, b, system="Two-hybrid", kind="physical", ta=559292, tb=559292):
        nonlocal k
        k += 1
        rows.append("\t".join(map(str, [k, 850000 + k, 860000 + k, a, b, system, kind, ta, tb])))

    for a, b in edges:
        row(names[a], names[b])
    row(names[edges[0][1]], names[edges[0][0]], "Affinity Capture-MS")  # the other direction, another experiment
    row(names[edges[1][0]], names[edges[1][1]], "Affinity Capture-MS")  # the same pair twice
    row(names[3], names[3])  # a self-interaction of a protein with others
    row("YSELF01", "YSELF01")  # a protein seen only with itself
    row(names[5], "YGEN01", "Synthetic Lethality", "genetic")
    row(names[7], "vpr", ta=559292, tb=11676)
    (tmp_path / "bg.tab3.txt").write_text("\t".join(BIOGRID_COLUMNS) + "\n" + "\n".join(rows) + "\n")
    go = ["protein\tgo_id\tgo_name\tevidence"] + [
        f"{names[i]}\t{'GO:0006351' if i < 12 else 'GO:0006810'}\tterm\tIDA" for i in range(0, 24, 2)]
    (tmp_path / "go.tsv").write_text("\n".join(go + ["YNOTHERE\tGO:0006281\tDNA repair\tIMP"]) + "\n")
    out = tmp_path / "pred.csv"
    rc = main(["protein", "predict", "--edges", str(tmp_path / "bg.tab3.txt"), "--format", "biogrid", "--labels",
               str(tmp_path / "go.tsv"), "--out", str(out), "--epochs", "4", "--top", "2", "--quiet"])
    text = capsys.readouterr().out
    n_pairs = len(edges) + 1  # the host-pathogen row; duplicates, directions and self-interactions merged or removed
    assert rc == 0 and f"read: 26 proteins, {n_pairs} interactions" in text and "12 annotated with 2 functions" in text
    assert "1 non-physical (e.g. genetic) interaction rows left out" in caplog.text
    assert "1 rows join proteins of two organisms" in caplog.text
    assert "1 of 13 label lines name nodes that are not in the graph (e.g. 'YNOTHERE'" in caplog.text
    assert "14 unannotated proteins predicted (1 isolated, flagged: no interaction other than with itself" in text
    pred = pd.read_csv(out, dtype=str)
    assert list(pred.columns) == ["protein", "isolated", "top_functions", "scores"]
    assert set(pred["protein"]) == {names[i] for i in range(1, 24, 2)} | {"YSELF01", "vpr"}
    assert pred.set_index("protein")["isolated"].to_dict()["YSELF01"] == "True"
    scores = pred["scores"].str.split(";").explode().astype(float)
    assert len(scores) == 2 * len(pred) and scores.between(0, 1).all()
    again = tmp_path / "again.csv"
    assert main(["protein", "predict", "--edges", str(tmp_path / "bg.tab3.txt"), "--format", "biogrid", "--labels",
                 str(tmp_path / "go.tsv"), "--out", str(again), "--epochs", "4", "--top", "2", "--quiet"]) == 0
    assert again.read_bytes() == out.read_bytes()  # the same seed: the same predictions


def test_re_extracted_ppi_raw_files_leave_no_stale_cache(tmp_path, monkeypatch, caplog):
    """A read-only PPI raw folder is processed under $GATBIO_CACHE in a folder per version of its files; the
    folder of the earlier version (hundreds of MB of processed graphs) stayed behind for good after each
    re-extraction. Now it is removed, with a note; another root's cache and the raw files are left alone."""
    import os

    from gatbio.data.ppi import load_ppi_benchmark

    roots = [tmp_path / "root0", tmp_path / "root1"]
    ppi_raw(roots[0] / "ppi_benchmark" / "raw", 3)
    ppi_raw(roots[1] / "ppi_benchmark" / "raw", 4)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p).startswith(str(tmp_path / "root"))
                        else real_access(p, mode))  # read-only roots (tests run as root: chmod would not stop it)
    monkeypatch.setenv("GATBIO_CACHE", str(tmp_path / "cache"))
    caches = tmp_path / "cache" / "ppi_benchmark"
    assert load_ppi_benchmark(roots[0])[0].num_nodes == 3
    assert load_ppi_benchmark(roots[1])[0].num_nodes == 4
    first = sorted(p.name for p in caches.iterdir())
    assert len(first) == 2
    ppi_raw(roots[0] / "ppi_benchmark" / "raw", 5)  # re-extracted: new files, new mtimes
    assert load_ppi_benchmark(roots[0])[0].num_nodes == 5
    now = sorted(p.name for p in caches.iterdir())
    assert len(now) == 2 and len(set(now) & set(first)) == 1  # root1's kept, root0's old one replaced
    assert "PyG's processed PPI graphs of an earlier version of the raw files" in caplog.text
    assert all((r / "ppi_benchmark" / "raw" / "train_graph.json").is_file() for r in roots)
    assert load_ppi_benchmark(roots[1])[0].num_nodes == 4  # root1's cache still serves it
    assert sorted(p.name for p in caches.iterdir()) == now


@pytest.mark.parametrize("entry", ["file", "foreign link"])
def test_a_cache_folder_not_made_for_the_raw_files_is_kept(tmp_path, monkeypatch, entry):
    """Only folders whose raw/ holds nothing but links to this root's raw files are deleted."""
    import os

    from gatbio.data.ppi import load_ppi_benchmark

    root = tmp_path / "root"
    ppi_raw(root / "ppi_benchmark" / "raw", 3)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p).startswith(str(root))
                        else real_access(p, mode))
    monkeypatch.setenv("GATBIO_CACHE", str(tmp_path / "cache"))
    load_ppi_benchmark(root)
    (old,) = (tmp_path / "cache" / "ppi_benchmark").iterdir()
    other = old.parent / "mine"
    (other / "raw").mkdir(parents=True)
    for f in (old / "raw").iterdir():
        (other / "raw" / f.name).symlink_to(os.readlink(f))
    if entry == "file":
        (other / "raw" / "notes.txt").write_text("kept\n")
    else:
        (other / "raw" / "x.npy").symlink_to(tmp_path / "elsewhere.npy")
    ppi_raw(root / "ppi_benchmark" / "raw", 4)
    assert load_ppi_benchmark(root)[0].num_nodes == 4
    assert other.is_dir() and not old.exists()



def test_explain_help_names_every_column_the_table_has(capsys):
    from gatbio.cli import main

    with pytest.raises(SystemExit):
        main(["protein", "predict", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for column in ("protein", "neighbour", "attention", "top_prediction", "neighbour_known_labels"):
        assert column in text.split("--explain CSV")[-1].split("--plot FILE")[0], column


def test_plot_f1_leaves_the_sessions_matplotlib_backend_alone(tmp_path):
    # it called matplotlib.use("Agg"): from a notebook, inline figures stopped showing afterwards
    import matplotlib

    from gatbio.tasks.protein import plot_f1

    summ = pd.DataFrame({"variant": ["gat", "gat", "lr_spectral", "lr_spectral"], "fraction": [0.1, 0.5] * 2,
                         "n": [3] * 4, "micro_f1_mean": [0.3, 0.4, 0.2, 0.3], "micro_f1_std": [0.01] * 4})
    before = matplotlib.get_backend()
    matplotlib.use("svg")
    try:
        plot_f1(summ, tmp_path / "f1.png", ["micro_f1"], "toy")
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)
    assert (tmp_path / "f1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_two_roots_linking_one_store_of_ppi_raw_files_keep_their_caches(tmp_path, monkeypatch, caplog):
    """Raw files of two data roots linking to the same store: each root's cache looked like a stale copy of the
    other's, so every load deleted the other root's processed graphs."""
    import os

    from gatbio.data.ppi import load_ppi_benchmark

    ppi_raw(tmp_path / "store", 3)
    roots = [tmp_path / "rootA", tmp_path / "rootB"]
    for r in roots:
        (r / "ppi_benchmark").mkdir(parents=True)
        (r / "ppi_benchmark" / "raw").symlink_to(tmp_path / "store")
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p).startswith(str(tmp_path / "root"))
                        else real_access(p, mode))
    monkeypatch.setenv("GATBIO_CACHE", str(tmp_path / "cache"))
    for r in roots + roots[:1]:
        assert load_ppi_benchmark(r)[0].num_nodes == 3
    assert len(list((tmp_path / "cache" / "ppi_benchmark").iterdir())) == 2
    assert "removed" not in caplog.text


def test_early_stopping_split_names_class_ids_as_the_wrong_shape():
    from gatbio.tasks.protein import early_stopping_split

    with pytest.raises(ValueError, match=r"data.y has shape \(4,\): early_stopping_split takes multi-hot labels"):
        early_stopping_split(Data(y=torch.tensor([0, 1, -1, 1])))


def test_biogrid_ids_name_the_proteins_of_a_file_whose_symbols_clash(tmp_path, capsys):
    """Two organisms sharing a symbol are refused (they were one node); --biogrid-ids entrez is the way out from
    the command line, which had only --organism (that drops one organism: no use for a host-virus file)."""
    from gatbio.data.io import MalformedFileError
    from gatbio.tasks.protein_cli import read_network

    head = ("#BioGRID Interaction ID\tEntrez Gene Interactor A\tEntrez Gene Interactor B\tBioGRID ID Interactor A\t"
            "BioGRID ID Interactor B\tOfficial Symbol Interactor A\tOfficial Symbol Interactor B\tExperimental "
            "System\tExperimental System Type\tOrganism ID Interactor A\tOrganism ID Interactor B\n")
    rows = ["1\t43740575\t43740578\t1\t2\tN\tS\tTwo-hybrid\tphysical\t2697049\t2697049",
            "2\t1489678\t1489668\t3\t4\tN\tS\tTwo-hybrid\tphysical\t694009\t694009",
            "3\t43740575\t7157\t1\t5\tN\tTP53\tTwo-hybrid\tphysical\t2697049\t9606"]
    path = tmp_path / "cov.tab3.txt"
    path.write_text(head + "\n".join(rows) + "\n")
    with pytest.raises(MalformedFileError, match="--biogrid-ids entrez in gatbio protein predict"):
        read_network(str(path), "biogrid")
    data = read_network(str(path), "biogrid", biogrid_ids="entrez")
    assert sorted(map(str, data.node_names)) == ["1489668", "1489678", "43740575", "43740578", "7157"]
    assert main(["protein", "predict", "--edges", str(path), "--format", "edgelist", "--biogrid-ids", "entrez",
                 "--labels", str(path), "--out", str(tmp_path / "o.csv")]) != 0
    assert "--biogrid-ids entrez: the id column of a BioGRID file, with --format biogrid" in capsys.readouterr().err
