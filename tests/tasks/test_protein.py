"""gatbio.tasks.protein: splits without leakage, baselines with known answers, the sweep (results, resume,
summary), the 24-graph PPI benchmark on a tiny PyG-layout set, and a real-data check."""

import json
import time

import numpy as np
import pytest
import torch
from torch_geometric.data import Data

from gatbio.tasks import protein as P
from gatbio.train import TrainConfig, fit, label_matrix, predict


def communities(k: int = 3, size: int = 16, p_in: float = 0.5, seed: int = 0, multilabel: bool = True) -> Data:
    """k dense communities, a few bridges; node i's label = its community (+ label k on every 4th node)."""
    rng = np.random.default_rng(seed)
    n = k * size
    comm = np.repeat(np.arange(k), size)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)
             if (comm[i] == comm[j] and rng.random() < p_in) or rng.random() < 0.01]
    ei = torch.tensor(pairs + [(j, i) for i, j in pairs]).t()
    if multilabel:
        y = torch.zeros(n, k + 1)
        y[torch.arange(n), torch.from_numpy(comm)] = 1
        y[::4, k] = 1
        names = [f"L{j}" for j in range(k + 1)]
    else:
        y = torch.from_numpy(comm).long()
        y[::7] = -1  # unlabelled
        names = [f"C{j}" for j in range(k)]
    return Data(edge_index=ei, y=y, num_nodes=n, node_names=[f"p{i}" for i in range(n)], label_names=names)


@pytest.fixture
def tiny(monkeypatch):
    data = communities()
    monkeypatch.setattr(P, "load_data", lambda name: data.clone())
    return data


def test_split_is_leakage_free_and_saved_parts_are_consistent():
    data = communities(multilabel=False)
    sp = P.make_split(data, 0.5, seed=1, val_fraction=0.2)
    train, val, fit_, test = (set(sp[k]) for k in ("train", "val", "fit", "test"))
    labelled = set(torch.nonzero(data.y >= 0).view(-1).tolist())
    assert train | test == labelled and not train & test
    assert val <= train and fit_ == train - val and len(val) == round(0.2 * len(train))
    assert sp == P.make_split(data, 0.5, seed=1, val_fraction=0.2)  # seeded
    assert sp["test"] != P.make_split(data, 0.5, seed=2, val_fraction=0.2)["test"]


def test_neighbor_vote_known_answer():
    # path 0-1-2 plus isolated node 3; labels known for 0 (A) and 2 (B): node 1 votes A and B equally
    data = Data(edge_index=torch.tensor([[0, 1, 1, 2], [1, 0, 2, 1]]), num_nodes=4,
                y=torch.tensor([[1.0, 0], [0, 0], [0, 1], [0, 0]]))
    s = P.neighbor_vote(data, torch.tensor([0, 2]), 2)
    assert np.allclose(s[1], [0.5 + 1e-3 * 0.5, 0.5 + 1e-3 * 0.5])
    assert np.allclose(s[3], [1e-3 * 0.5] * 2)  # isolated: the prior only


def test_knn_vote_known_answer_and_isolated_prior():
    # two clusters of training proteins in embedding space; protein 4 sits in cluster A, protein 5 is isolated
    emb = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9], [1.0, 0.05], [0.0, 0.0]])
    y = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [0, 0], [0, 0]])
    s = P.knn_vote(emb, y, [0, 1, 2, 3], multilabel=True, k=4, sharpness=50.0)
    assert s[4, 0] > 0.99 and s[4, 1] < 0.01  # its near neighbours (cosine distance ~0) carry label A
    assert np.allclose(s[5], 0.5 * (1 + 1e-3))  # no embedding: the training prior (plus the tie-breaker)
    labels = P.knn_vote(emb, np.array([0, 0, 1, 1, 0, 0]), [0, 1, 2, 3], multilabel=False, k=2)
    assert labels.shape == (6, 2) and labels[2].argmax() == 1


def test_prior_power_recovers_a_rare_label_and_is_zero_when_it_does_not_help():
    prior = np.array([0.9, 0.1])
    y = np.array([[1, 0]] * 6 + [[0, 1]] * 2)  # label 1 is rare
    proba = np.array([[0.5, 0.05]] * 6 + [[0.5, 0.3]] * 2)  # ... and always ranked second
    assert P.choose_prior_power(y, proba, prior, multilabel=True) == 0.25  # the smallest γ that fixes it
    easy = np.array([[0.5, 0.05]] * 6 + [[0.1, 0.3]] * 2)  # already right: no correction
    assert P.choose_prior_power(y, easy, prior, multilabel=True) == 0.0


def test_label_matrix_and_predict_never_read_unknown_labels():
    data = communities(size=8)
    known = torch.arange(0, data.num_nodes, 2)
    lab = label_matrix(data.y, known, data.y.size(1))
    assert torch.equal(lab[known], data.y[known]) and lab[1::2].abs().sum() == 0
    model = P.make_model(P.ProteinConfig(hidden=4, heads=2), "gat_labels", 0, data.y.size(1), data.num_nodes, True)
    model.embedding = None  # no inputs but the labels
    model.lin_in = torch.nn.Linear(data.y.size(1), 8)
    a = predict(model, None, data.edge_index, data.y, known)
    y2 = data.y.clone()
    y2[1::2] = 1 - y2[1::2]  # change every unknown label: predictions must not move
    assert torch.equal(a, predict(model, None, data.edge_index, y2, known))


def test_fit_learns_communities_and_early_stops():
    data = communities(multilabel=False)
    torch.manual_seed(0)
    x = P.node_features(data, ["prone"], dim=8)
    labelled = torch.nonzero(data.y >= 0).view(-1)
    fit_idx, val_idx = labelled[::2], labelled[1::2]
    from gatbio.nn.models import GATNodeClassifier

    model = GATNodeClassifier(8, 3, hidden_channels=8, heads=2, task="multiclass")
    res = fit(model, x, data.edge_index, data.y, fit_idx, val_idx, P.val_score(False),
              TrainConfig(epochs=60, lr=0.02, patience=5, eval_every=2), seed=0)
    acc = (predict(model, x, data.edge_index, data.y, fit_idx).argmax(1)[val_idx] == data.y[val_idx]).float().mean()
    assert acc > 0.9 and res.best_val > 0.9 and res.epochs_run <= 60


def test_sweep_writes_results_resumes_and_summarizes(tiny, tmp_path, monkeypatch, capsys, caplog):
    overrides = [f"out_dir={tmp_path}", "fractions=[0.3,0.6]", "seeds=[1]", "epochs=20", "hidden=4", "heads=2",
                 "inputs=[prone]", "embed_dim=8", "variants=[neighbor_vote,label_prop,lr_prone,gat_labels,gat_labels+lr,lr_ens]"]
    cfg = P.load(None, overrides)
    text = P.run(cfg)
    runs = sorted((tmp_path / "runs" / "node2vec-ppi").glob("*/*.json"))
    assert len(runs) == 2 * 1 * 6
    ens = json.loads((tmp_path / "runs" / "node2vec-ppi" / "f0.30_s1" / "lr_ens.json").read_text())
    assert ens["members"] == ["lr_prone", "lr_netmf", "knn_prone"] and ens["prior_power"] in P.PRIOR_POWERS
    row = json.loads(runs[0].read_text())
    assert {"macro_f1", "micro_f1", "macro_f1_thr", "micro_f1_thr", "split", "seed"} <= set(row)
    assert json.loads((tmp_path / "splits" / "node2vec-ppi_f0.30_s1.json").read_text())["test"]
    assert "gat_labels+lr" in text and (tmp_path / "f1_vs_fraction.png").stat().st_size > 1000
    assert (tmp_path / "attention_example.json").is_file()
    # dense communities: the label-aware models beat chance by far
    summ = __import__("pandas").read_csv(tmp_path / "summary.csv")
    assert summ.query("variant == 'label_prop'")["micro_f1_mean"].min() > 0.7
    stamp = runs[0].stat().st_mtime_ns
    time.sleep(0.01)
    with monkeypatch.context() as m:  # resume: nothing is redone, not even the embeddings
        m.setattr(P, "compute_inputs", lambda *a: (_ for _ in ()).throw(AssertionError("embeddings recomputed")))
        capsys.readouterr()
        P.run(cfg)
    assert runs[0].stat().st_mtime_ns == stamp
    assert "2 of 2 (fraction, seed) units already done in" in capsys.readouterr().err
    # a run file holding its names and no result (another program's) is redone, not read as finished
    kept = json.loads(runs[0].read_text())
    runs[0].write_text(json.dumps({k: kept[k] for k in ("fraction", "variant", "seed")}))
    caplog.clear()
    P.run(cfg)
    assert f"1 damaged result file(s) will be redone (e.g. {runs[0]}: missing the keys macro_f1)" in caplog.text
    assert json.loads(runs[0].read_text())["macro_f1"] == kept["macro_f1"]
    stamp = runs[0].stat().st_mtime_ns
    # another config that changes results is refused before any work, naming the key; the stored config stays
    from gatbio.results import ResumeConflictError

    stored = (tmp_path / "config.yaml").read_text()
    with pytest.raises(ResumeConflictError, match=r"\(epochs: 20 -> 21\)"):
        P.run(P.load(None, overrides + ["epochs=21", "jobs=2"]))  # jobs: free
    assert (tmp_path / "config.yaml").read_text() == stored and runs[0].stat().st_mtime_ns == stamp


def test_config_errors_name_the_key():
    with pytest.raises(ValueError, match=r"unknown variant\(s\) \['gat_xl'\]"):
        P.load(None, ["variants=[gat_xl]"])
    with pytest.raises(ValueError, match=r"'fractions' must be in \(0, 1\)"):
        P.load(None, ["fractions=[1.5]"])
    with pytest.raises(ValueError, match=r"config fractions=\[0.1, 0.1\]: 0.1 is listed twice"):
        P.load(None, ["fractions=[0.1,0.1]"])


def test_close_fractions_have_their_own_folders(tmp_path):
    """0.12 and 0.125 (or 0.005 and 0.01) once shared one folder (two decimals); earlier folders keep their names."""
    cfg = P.load(None, [f"out_dir={tmp_path}"])
    tags = [P._paths(cfg, f, 0)[1].name for f in (0.12, 0.125, 0.005, 0.01, 0.1)]
    assert tags == ["f0.12_s0", "f0.125_s0", "f0.005_s0", "f0.01_s0", "f0.10_s0"]
    with pytest.raises(ValueError, match="bad config in command-line overrides"):
        P.load(None, ["epoch=3"])


def test_ppi24_paper_architecture_on_a_tiny_pyg_layout(tmp_path, monkeypatch):
    """The GAT paper's PPI model (4x256, 4x256, 6 heads averaged) on 4 tiny graphs in PyG's raw layout."""
    from gatbio.tasks import protein_ppi

    raw = tmp_path / "ppi_benchmark" / "raw"
    raw.mkdir(parents=True)
    rng = np.random.default_rng(0)
    gid = 1
    for split, sizes in {"train": [6, 5], "valid": [5], "test": [4]}.items():
        ids, links, off = [], [], 0
        for k in sizes:
            ids += [gid] * k
            links += [{"source": off + i, "target": off + i + 1} for i in range(k - 1)]
            gid, off = gid + 1, off + k
        graph = {"directed": False, "multigraph": False, "graph": {}, "nodes": [{"id": i} for i in range(off)],
                 "links": links}
        (raw / f"{split}_graph.json").write_text(json.dumps(graph))
        feats = rng.standard_normal((off, 50))
        np.save(raw / f"{split}_feats.npy", feats)
        np.save(raw / f"{split}_labels.npy", (rng.random((off, 121)) < 0.3).astype(np.int64))
        np.save(raw / f"{split}_graph_id.npy", np.array(ids, dtype=np.int64))
    monkeypatch.setenv("GATBIO_CACHE", str(tmp_path / "cache"))
    model = protein_ppi.GATPaperPPI(50, 121)
    assert (model.conv1.heads, model.conv1.out_channels, model.conv3.heads, model.conv3.concat) == (4, 256, 6, False)
    cfg = protein_ppi.load(None, [f"root={tmp_path}", f"out_dir={tmp_path / 'out'}", "epochs=2", "hidden=8"])
    out = protein_ppi.run(cfg)
    done = tmp_path / "out" / "runs" / "seed0" / "results.json"
    assert 0 <= out["test_micro_f1_mean"] <= 1 and done.is_file()
    # resumes: a finished seed is read back, not trained again; other result settings are refused, named
    stamp = done.stat().st_mtime_ns
    assert protein_ppi.run(cfg) == out and done.stat().st_mtime_ns == stamp
    with pytest.raises(ValueError, match=r"different configuration \(epochs: 2 -> 3\)"):
        protein_ppi.run(protein_ppi.load(None, [f"root={tmp_path}", f"out_dir={tmp_path / 'out'}", "epochs=3",
                                                "hidden=8"]))
    again = protein_ppi.run(protein_ppi.load(None, [f"root={tmp_path}", f"out_dir={tmp_path / 'out'}", "epochs=3",
                                                    "hidden=8"]), resume="restart")
    assert done.stat().st_mtime_ns != stamp and 0 <= again["test_micro_f1_mean"] <= 1


def test_real_node2vec_ppi_logistic_regression_matches_published_range(data_root, tmp_path):
    """ProNE + liblinear LR at 50%: the published pipeline lands near 0.20 Macro-F1 (ProNE paper's protocol)."""
    cfg = P.load(None, [f"out_dir={tmp_path}", "seeds=[0]", "fractions=[0.5]", "inputs=[degree]",
                        "variants=[neighbor_vote,lr_prone]"])
    P.run(cfg)
    res = {v: json.loads((tmp_path / "runs/node2vec-ppi/f0.50_s0" / f"{v}.json").read_text())
           for v in cfg.variants}
    assert 0.17 < res["lr_prone"]["macro_f1"] < 0.25 and res["lr_prone"]["n_test"] == 1945
    assert res["neighbor_vote"]["macro_f1"] < res["lr_prone"]["macro_f1"]


def test_a_fraction_leaving_nothing_to_train_or_test_is_refused_before_embeddings(tiny, tmp_path, monkeypatch):
    monkeypatch.setattr(P, "compute_inputs", lambda *a: (_ for _ in ()).throw(AssertionError("embeddings computed")))
    for frac in (0.0001, 0.9999):
        cfg = P.load(None, [f"out_dir={tmp_path}", f"fractions=[{frac}]", "seeds=[0]", "variants=[neighbor_vote]"])
        with pytest.raises(ValueError, match=rf"config fractions: {frac} of the \d+ labelled proteins of node2vec-ppi "
                                             r"is \d+ to train on \(\d+ of them validation\) and \d+ to test"):
            P.run(cfg)


def test_test_labels_reach_no_score_threshold_or_prior_power(tmp_path, monkeypatch):
    """Every label of every test protein flipped: each variant's scores of the test proteins, its realistic
    threshold and an ensemble's prior power are unchanged (label inputs, neighbour votes, label propagation, kNN
    votes, logistic regressions, early stopping and the priors read training labels only; the embeddings none)."""
    data = communities()
    settings = ["fractions=[0.5]", "seeds=[0]", "epochs=8", "hidden=4", "heads=2", "inputs=[prone]", "embed_dim=8",
                f"variants=[{','.join(P.VARIANTS)}]", "attention_example=false", "device=cpu"]
    sp = P.make_split(data, 0.5, 0, P.ProteinConfig().val_fraction)
    flipped = data.clone()
    flipped.y[sp["test"]] = 1 - flipped.y[sp["test"]]
    scored: dict[str, list] = {}
    real = P.evaluate

    def spy(y, proba, multilabel, threshold=None):  # the row's call: the test proteins, at the realistic threshold
        if threshold is not None:
            scored[name].append((proba.copy(), threshold))
        return real(y, proba, multilabel, threshold)

    monkeypatch.setattr(P, "evaluate", spy)
    for name, d in (("original", data), ("flipped", flipped)):
        scored[name] = []
        monkeypatch.setattr(P, "load_data", lambda _, d=d: d.clone())
        cfg = P.load(None, [f"out_dir={tmp_path / name}"] + settings)
        rows = P.run_unit(cfg, 0.5, 0, P.compute_inputs(cfg, d))
        assert json.loads((tmp_path / name / "splits" / "node2vec-ppi_f0.50_s0.json").read_text()) == sp
        scored[name + " gamma"] = [r.get("prior_power") for r in rows]
    assert len(scored["original"]) == len(P.VARIANTS)
    for (a, ta), (b, tb) in zip(scored["original"], scored["flipped"], strict=True):
        assert np.array_equal(a, b) and ta == tb
    assert scored["original gamma"] == scored["flipped gamma"]


def test_a_saved_split_without_its_parts_is_refused_not_a_traceback(tiny, tmp_path):
    """A split file that was valid JSON without its parts ({"train": [...]}) ended the sweep with KeyError 'val';
    one cut short is the seed's split made again; a valid one that differs is refused naming --restart."""
    overrides = [f"out_dir={tmp_path}", "fractions=[0.5]", "seeds=[0]", "variants=[neighbor_vote,label_prop]",
                 "inputs=[prone]", "embed_dim=8"]
    P.run(P.load(None, overrides))
    split = tmp_path / "splits" / "node2vec-ppi_f0.50_s0.json"
    saved = split.read_text()
    (tmp_path / "runs" / "node2vec-ppi" / "f0.50_s0" / "label_prop.json").unlink()
    split.write_text(saved[:40])  # cut short: made again
    P.run(P.load(None, overrides))
    assert split.read_text() == saved
    (tmp_path / "runs" / "node2vec-ppi" / "f0.50_s0" / "label_prop.json").unlink()
    split.write_text(json.dumps({"train": [1, 2, 3]}))
    with pytest.raises(ValueError, match=r"node2vec-ppi_f0\.50_s0\.json: the saved split differs .* --restart"):
        P.run(P.load(None, overrides))


def test_save_proba_writes_the_scored_probabilities_and_redoes_runs_without_them(tiny, tmp_path):
    """The benchmark kept metrics and splits, not what they were computed from: save_proba writes each run's
    probabilities (test and validation nodes), from which its stored metrics follow again; turned on for a
    finished folder, it redoes only the runs that lack the file."""
    overrides = [f"out_dir={tmp_path}", "fractions=[0.5]", "seeds=[0]", "variants=[neighbor_vote,label_prop]",
                 "inputs=[prone]", "embed_dim=8"]
    P.run(P.load(None, overrides), progress=False)
    unit = tmp_path / "runs" / "node2vec-ppi" / "f0.50_s0"
    assert not list(unit.glob("*.npz"))  # off by default
    stamp = (unit / "label_prop.json").stat().st_mtime_ns
    (unit / "neighbor_vote.json").unlink()
    P.run(P.load(None, [*overrides, "save_proba=true"]), progress=False)  # a free key: no conflict
    assert sorted(p.name for p in unit.glob("*.npz")) == ["label_prop.proba.npz", "neighbor_vote.proba.npz"]
    assert (unit / "label_prop.json").stat().st_mtime_ns != stamp  # redone for its probabilities
    sp = json.loads((tmp_path / "splits" / "node2vec-ppi_f0.50_s0.json").read_text())
    for v in ("neighbor_vote", "label_prop"):
        row = json.loads((unit / f"{v}.json").read_text())
        with np.load(unit / f"{v}.proba.npz") as z:
            assert z["test_nodes"].tolist() == sp["test"] and z["val_nodes"].tolist() == sp["val"]
            assert z["test_proba"].dtype == np.float32 and z["test_proba"].shape == (len(sp["test"]), 4)
            again = P.evaluate(tiny.y.numpy()[sp["test"]], z["test_proba"], True, float(z["threshold"]))
        assert again["macro_f1"] == pytest.approx(row["macro_f1"]) and again["micro_f1_thr"] == pytest.approx(
            row["micro_f1_thr"], abs=1e-6)


def test_a_sweep_that_raises_lets_go_of_its_folder(tiny, tmp_path, monkeypatch):
    """A run that raised (in a notebook: a bad setting, Ctrl-C) kept its folder's lock until its process ended, so
    the kernel refused the folder to every other process until restarted; an interrupted command still names it."""
    import subprocess
    import sys

    from gatbio.results import resume_hint

    def fails(*_, **__):
        raise ValueError("a unit failed")

    monkeypatch.setattr(P, "run_unit", fails)
    cfg = P.load(None, [f"out_dir={tmp_path}", "fractions=[0.3]", "seeds=[1]", "inputs=[prone]", "embed_dim=8",
                        "variants=[neighbor_vote]"])
    with pytest.raises(ValueError, match="a unit failed"):
        P.run(cfg)
    other = subprocess.run([sys.executable, "-c", "from gatbio.results import lock_out_dir; "
                            f"lock_out_dir({str(tmp_path)!r}); print('held')"], capture_output=True, text=True)
    assert other.stdout.strip() == "held", other.stderr
    assert str(tmp_path.resolve()) in resume_hint()
