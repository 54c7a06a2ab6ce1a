"""`gatbio protein interactions`: the sweep on tiny files and on the quick config (resumes without recomputing),
the metric, and `predict` for a user's pairs with its errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import write_pair_files

from gatbio.cli import main
from gatbio.data.pair_features import homologues
from gatbio.nn.pair_models import model_options
from gatbio.results import ResumeConflictError
from gatbio.tasks import protein_interactions as pi

REPO_CONFIGS = Path(__file__).resolve().parents[2] / "experiments" / "configs"
MODES = ("activation", "binding", "catalysis", "expression", "inhibition", "ptmod", "reaction")


@pytest.fixture
def files(tmp_path):
    """40 proteins, 120 pairs; a pair's modes follow its proteins' families (two families, two sequence styles)."""
    write_pair_files(tmp_path)
    return tmp_path


def config(files, **kw):
    base = {"dataset": "files", "actions": str(files / "actions.txt"), "sequences": str(files / "seqs.tsv"),
            "features": "[aac,ct]", "splits": "[random,bfs]", "seeds": "[0,1]", "models": "[seq_mlp,gat]",
            "graphs": "[train,all]", "hidden": 16, "epochs": 30, "eval_every": 2, "out_dir": str(files / "out"),
            "device": "cpu"}
    base.update(kw)
    return pi.load(None, [f"{k}={v}" for k, v in base.items()])


def test_sweep_writes_one_result_per_run_and_resumes_without_recomputing(files, monkeypatch, capsys):
    cfg = config(files)
    text = pi.run(cfg)
    out = files / "out"
    runs = sorted(p.relative_to(out / "runs").as_posix() for p in (out / "runs").rglob("*.json"))
    # seq_mlp passes no messages: it runs under the train graph only; gat (a choice) writes its candidates' runs:
    # the two recipes and their mean
    assert runs == sorted(f"{k}/s{s}/{g}/{m}.json" for k in ("random", "bfs") for s in (0, 1)
                          for g, m in (("train", "seq_mlp"), ("train", "gat"), ("all", "gat"), ("train", "gat_region"),
                                       ("all", "gat_region"), ("train", "gat_ppi"), ("all", "gat_ppi"),
                                       ("train", "gat_mean"), ("all", "gat_mean")))
    # every fitted run keeps its probabilities; a choice has none of its own
    assert sorted(p.name for p in (out / "runs/bfs/s0/train").glob("*.npz")) == [
        "gat_mean.proba.npz", "gat_ppi.proba.npz", "gat_region.proba.npz", "seq_mlp.proba.npz"]
    row = json.loads((out / "runs/bfs/s0/train/gat.json").read_text())
    assert 0 <= row["micro_f1"] <= 1 and row["n_test"] >= 24 and row["n_fit"] + row["n_val"] + row["n_test"] == 120
    assert row["options"]["kind"] == "choice" and row["best_epoch"] <= row["epochs_run"]
    # the choice is made on validation, per seed, and recorded; the mean averages its members' probabilities,
    # on the validation pairs too (its validation micro-F1 is the average's, not the members')
    modes = pi.load_data(cfg).pair_modes.numpy()
    for k, sd, g in [(k, sd, g) for k in ("random", "bfs") for sd in (0, 1) for g in ("train", "all")]:
        d = out / f"runs/{k}/s{sd}/{g}"
        row = json.loads((d / "gat.json").read_text())
        cands = {c: json.loads((d / f"{c}.json").read_text()) for c in ("gat_region", "gat_ppi", "gat_mean")}
        assert row["candidates_val_micro_f1"] == {c: r["val_micro_f1"] for c, r in cands.items()}
        assert row["chosen"] == max(cands, key=lambda c: cands[c]["val_micro_f1"])
        assert row["micro_f1"] == cands[row["chosen"]]["micro_f1"] and row["model"] == "gat"
        z = {c: np.load(d / f"{c}.proba.npz") for c in cands}
        sp = json.loads((out / f"splits/{k}_s{sd}.json").read_text())
        for part in ("val", "test"):
            assert np.array_equal(z["gat_mean"][f"{part}_pairs"], sp[part])
            np.testing.assert_allclose(z["gat_mean"][f"{part}_proba"], (z["gat_region"][f"{part}_proba"]
                                                                         + z["gat_ppi"][f"{part}_proba"]) / 2, atol=1e-6)
        for c, r in cands.items():  # the stored figures are those of the stored probabilities
            assert r["val_micro_f1"] == pytest.approx(pi.evaluate_pairs(modes[sp["val"]], z[c]["val_proba"])["micro_f1"])
            assert r["micro_f1"] == pytest.approx(pi.evaluate_pairs(modes[sp["test"]], z[c]["test_proba"])["micro_f1"])
        assert cands["gat_mean"]["members_val_micro_f1"] == [
            pytest.approx(cands[c]["val_micro_f1"], abs=1e-6) for c in ("gat_region", "gat_ppi")]
        # time: the mean counts its networks' runs, the choice each network once
        both = cands["gat_region"]["seconds"] + cands["gat_ppi"]["seconds"]
        assert cands["gat_mean"]["seconds"] == pytest.approx(both, abs=2e-3)
        assert row["seconds"] == pytest.approx(both, abs=2e-3)
    region = json.loads((out / "runs/bfs/s0/train/gat_region.json").read_text())
    assert region["options"]["kind"] == "gat_pairs" and region["options"]["supervision"] == "node"
    split = json.loads((out / "splits/bfs_s0.json").read_text())
    assert set(split["test"]).isdisjoint(split["train"]) and sorted(split["fit"] + split["val"]) == split["train"]
    assert "## random" in text and "## bfs" in text and "| all | gat | 2 |" in text
    summ = pd.read_csv(out / "summary.csv")
    assert set(summ["model"]) == {"seq_mlp", "gat"} and (summ["n"] == 2).all()

    def boom(*a, **k):
        raise AssertionError("a finished run was recomputed")

    monkeypatch.setattr(pi, "train_model", boom)
    capsys.readouterr()
    assert pi.run(cfg) == text
    # the finished units are left out before the pool starts, and said so: progress times only this call's work
    err = capsys.readouterr().err
    assert "4 of 4 (split, seed) units already done in" in err and "0 to run" in err and "/4 done" not in err, err
    with pytest.raises(ValueError, match=r"different configuration \(epochs: 30 -> 31\)"):
        pi.run(config(files, epochs=31))


def test_config_errors_name_the_fix(files, capsys):
    with pytest.raises(ValueError, match="splits=\\['kfold'\\]: choose one or more of random, bfs, dfs"):
        config(files, splits="[kfold]")
    with pytest.raises(ValueError, match="unknown model 'gatt'"):
        config(files, models="[gatt]")
    with pytest.raises(ValueError, match="dataset: files needs actions"):
        pi.load(None, ["dataset=files"])
    cfg = config(files, **{"custom_models": "{gat_log: {base: gat_plain, degree_norm: log}}", "models": "[gat_log]",
                           "splits": "[dfs]", "seeds": "[0]", "graphs": "[train]"})
    pi.run(cfg)
    row = json.loads((files / "out/runs/dfs/s0/train/gat_log.json").read_text())
    assert row["options"]["degree_norm"] == "log"
    # adding a model to the folder is fine; redefining a finished one is refused
    pi.run(config(files, **{"custom_models": "{gat_log: {base: gat_plain, degree_norm: log}, gat_t: {base: "
                                              "gat_plain, temperature: learn}}", "models": "[gat_log,gat_t]",
                            "splits": "[dfs]", "seeds": "[0]", "graphs": "[train]"}))
    redefined = config(files, **{"custom_models": "{gat_log: {base: gat_plain, degree_norm: sym}}",
                                 "models": "[gat_log]", "splits": "[dfs]", "seeds": "[0]", "graphs": "[train]"})
    with pytest.raises(ValueError, match=r"other options of model 'gat_log' \(degree_norm\)"):
        pi.run(redefined)
    # --resume-anyway reuses it, says so, and leaves the stored run as it was
    capsys.readouterr()
    pi.run(redefined, resume="anyway")
    err = capsys.readouterr().err
    assert "reusing" in err and "gat_log" in err and "degree_norm" in err
    assert json.loads((files / "out/runs/dfs/s0/train/gat_log.json").read_text()) == row
    # a run made before an option existed: the new option is named, even when its value is null
    stored = files / "out/runs/dfs/s0/train/gat_log.json"
    older = {**row, "options": {k: v for k, v in row["options"].items() if k not in ("edge_features", "hidden")}}
    stored.write_text(json.dumps(older))
    kept = config(files, **{"custom_models": "{gat_log: {base: gat_plain, degree_norm: log}}", "models": "[gat_log]",
                            "splits": "[dfs]", "seeds": "[0]", "graphs": "[train]"})
    with pytest.raises(ValueError, match=r"other options of model 'gat_log' \(edge_features, hidden\)"):
        pi.run(kept)

    # a run made before the interolog options existed is the same model while they are at the values of then
    rule = "{r: {base: interolog_rule}}"
    pi.run(config(files, models="[r]", custom_models=rule, splits="[dfs]", seeds="[0]", graphs="[train]"))
    stored = files / "out/runs/dfs/s0/train/r.json"
    row = json.loads(stored.read_text())
    assert row["options"]["interolog_similarity"] is None
    row["options"] = {k: v for k, v in row["options"].items() if k != "interolog_similarity"}
    stored.write_text(json.dumps(row))
    pi.run(config(files, models="[r]", custom_models=rule, splits="[dfs]", seeds="[0]", graphs="[train]"))
    assert json.loads(stored.read_text()) == row  # reused, not recomputed
    changed = "{r: {base: interolog_rule, interolog_similarity: kmer}}"
    with pytest.raises(ValueError, match=r"other options of model 'r' \(interolog_similarity\)"):
        pi.run(config(files, models="[r]", custom_models=changed, splits="[dfs]", seeds="[0]", graphs="[train]"))


def test_changed_input_files_missing_files_and_datasets_without_pairs_are_refused(files, capsys):
    """A saved split is indices into the pair table it was made from: a rerun on other files is refused, naming
    the split, not trained on other pairs (or an IndexError). A missing input is named before the folder records
    the config, so the corrected command runs; a named dataset without a pair table is refused by check()."""
    kw = {"models": "[profile_rule]", "splits": "[random]", "seeds": "[0]", "graphs": "[train]"}
    pi.run(config(files, **kw))
    split = files / "out/splits/random_s0.json"
    assert len(json.loads(split.read_text())["pairs_sha256"]) == 64
    lines = (files / "actions.txt").read_text().splitlines()
    (files / "actions.txt").write_text("\n".join(lines[:60]) + "\n")  # fewer pairs
    with pytest.raises(ResumeConflictError, match=r"actions: the file's contents changed \(sha256 "):
        pi.run(config(files, **kw))  # the file's hash is a result setting
    # reused anyway, the saved split still refuses pairs it was not made from
    with pytest.raises(ValueError, match=r"random_s0\.json: made from another pair table \(120 pairs; the data read "
                                         r"now has \d\d\): the input files changed since these results were made; "
                                         r"--restart"):
        pi.run(config(files, **kw), resume="anyway")
    # the same number of pairs, other pairs (another order): refused too
    (files / "actions.txt").write_text("\n".join(lines[:1] + lines[1:][::-1]) + "\n")
    with pytest.raises(ValueError, match=r"made from another pair table \(120 pairs; the data read now has 120, "
                                         r"other pairs\)"):
        pi.run(config(files, **kw), resume="anyway")
    (files / "actions.txt").write_text("\n".join(lines) + "\n")
    # the same files again: the splits match (the folder last recorded the reversed file, reused anyway)
    pi.run(config(files, **kw), resume="anyway")
    pi.run(config(files, **kw))  # and now resumes plainly
    # the summary says the folder was resumed anyway after its input changed (was in fingerprint.json only)
    assert "mixed: these results may mix configurations (resumed with --resume-anyway" in \
        (files / "out/summary.md").read_text()
    # a run file gone: the summary-only tables say how many runs they leave out (they did not)
    extra = config(files, **{**kw, "models": "[profile_rule,seq_mlp]"})
    pi.run(extra)
    (files / "out/runs/random/s0/train/seq_mlp.json").unlink()
    assert "incomplete: 1 of the 2 runs this config names have no result" in pi.run(extra, summary_only=True)
    # a run file of another shape is no result: made again (it was read as done, and the tables lost the run)
    run = files / "out/runs/random/s0/train/profile_rule.json"
    good = json.loads(run.read_text())
    run.write_text('{"foo": 1}')
    pi.run(config(files, **kw))
    assert json.loads(run.read_text())["micro_f1"] == good["micro_f1"]
    missing = config(files, **kw, out_dir=str(files / "fresh"), actions=str(files / "actoins.txt"))
    with pytest.raises(FileNotFoundError, match=r"config actions: .*actoins\.txt: no such file"):
        pi.run(missing)
    assert not (files / "fresh" / "fingerprint.json").exists()
    pi.run(config(files, **kw, out_dir=str(files / "fresh")))
    with pytest.raises(ValueError, match=r"config dataset='yeast-bu2003': not a dataset with a pair table; use "
                                         r"shs27k or dataset: files"):
        pi.load(None, ["dataset=yeast-bu2003"])
    # benchmark-only command lines: predict's options are refused, not ignored; 'predict' must come first
    cfgfile = str(REPO_CONFIGS / "shs27k_quick.yaml")
    for extra, named in ((["--seed", "7"], "--seed"), (["--no-header"], "--no-header")):
        assert main(["protein", "interactions", "--config", cfgfile, *extra]) == 2  # a usage error
        assert f"{named} belong to 'gatbio protein interactions predict'" in capsys.readouterr().err
    assert main(["protein", "interactions", "threshold=0.4", "predict"]) == 2
    assert "'predict' comes first, before the key=value overrides" in capsys.readouterr().err


def test_a_split_that_leaves_no_validation_pairs_is_refused_with_the_fix(files):
    """On a small network the whole-protein walk can take nearly every pair for the test part: no validation pairs
    are left, and each model would fail on an empty tensor (an IndexError from torch before this check)."""
    cfg = config(files, models="[profile_rule]", splits="[bfs]", seeds="[0]", graphs="[train]", test_fraction=0.95)
    with pytest.raises(ValueError, match=r"^bfs split, seed 0: no validation pairs are left of the network's 120 "
                                         r"\(training 4, validation 0, test 116\): the walk takes whole proteins, .*; "
                                         r"use a random split \('splits=\[random\]'\), a smaller test_fraction"):
        pi.run(cfg)


def test_profile_rule_baseline_and_choice_errors(files):
    pi.run(config(files, models="[profile_rule]", graphs="[train,all]", seeds="[0]"))
    row = json.loads((files / "out/runs/bfs/s0/train/profile_rule.json").read_text())
    assert 0.15 <= row["threshold_chosen"] <= 0.6 and 0 < row["micro_f1"] <= 1 and row["epochs_run"] == 0
    assert not (files / "out/runs/bfs/s0/all/profile_rule.json").exists()  # no graph: train setting only
    with pytest.raises(ValueError, match=r"'c' \(kind profile_rule\) is not a trained network; a choice takes"):
        config(files, models="[g]", custom_models="{g: {base: gat, among: [gat_region, c]}, c: {base: profile_rule}}")
    # a mean averages networks only (a rule's threshold is its own), each once, at least one training each
    with pytest.raises(ValueError, match=r"'interolog_rule' \(kind profile_rule\) is not a trained network; a mean"):
        config(files, models="[m]", custom_models="{m: {base: gat_mean, among: [gat_region, interolog_rule]}}")
    with pytest.raises(ValueError, match=r"'gat' \(kind choice\) is not a trained network"):
        config(files, models="[m]", custom_models="{m: {base: gat_mean, among: [gat_region, gat]}}")
    with pytest.raises(ValueError, match=r"averages \['gat_ppi', 'gat_ppi'\]: give other models, each once"):
        config(files, models="[m]", custom_models="{m: {base: gat_mean, among: [gat_ppi, gat_ppi]}}")
    with pytest.raises(ValueError, match="inits=0 must be a positive integer"):
        config(files, models="[m]", custom_models="{m: {base: gat_mean, inits: 0}}")
    with pytest.raises(ValueError, match=r"unknown mean option\(s\) \['hidden'\]"):
        config(files, models="[m]", custom_models="{m: {base: gat_mean, hidden: 8}}")


def test_mean_of_inits_trains_each_network_from_other_seeds_and_reuses_stored_runs(files, monkeypatch):
    """A seed ensemble (inits: 2) trains each network once more than its own run, from seed + 1000; a mean in a
    folder whose member runs lack their probability files (made before they were kept) makes those runs again."""
    seen = []
    real = pi.train_model

    def counting(cfg, name, data, fit, val, graph, seed, **kw):
        seen.append((name, graph, seed))
        return real(cfg, name, data, fit, val, graph, seed, **kw)

    monkeypatch.setattr(pi, "train_model", counting)
    kw = {"models": "[gat_ppi,ens]", "custom_models": "{ens: {base: gat_mean, among: [gat_ppi], inits: 2}}",
          "splits": "[bfs]", "seeds": "[3]", "graphs": "[train]"}
    pi.run(config(files, **kw))
    assert seen == [("gat_ppi", "train", 3), ("gat_ppi", "train", 1003)]
    d = files / "out/runs/bfs/s3/train"
    ens, one = json.loads((d / "ens.json").read_text()), json.loads((d / "gat_ppi.json").read_text())
    assert len(ens["members_val_micro_f1"]) == 2 and ens["members_val_micro_f1"][0] == pytest.approx(one["val_micro_f1"])
    assert [n[:2] for n in ens["networks"]] == [["gat_ppi", 3], ["gat_ppi", 1003]]
    assert ens["networks"][0][2] == one["seconds"] and ens["seconds"] == pytest.approx(
        one["seconds"] + ens["networks"][1][2], abs=2e-3) and ens["networks"][1][2] > 0
    # the mean's probabilities: its members' average (the second training's own are not stored)
    z_ens, z_one = np.load(d / "ens.proba.npz"), np.load(d / "gat_ppi.proba.npz")
    assert not np.allclose(z_ens["test_proba"], z_one["test_proba"])
    # an older folder: the member's run has no probability file; the mean makes it again, the rest is reused
    (d / "gat_ppi.proba.npz").unlink()
    (d / "ens.json").unlink()
    seen.clear()
    pi.run(config(files, **kw))
    assert seen == [("gat_ppi", "train", 3), ("gat_ppi", "train", 1003)]
    assert json.loads((d / "gat_ppi.json").read_text())["micro_f1"] == one["micro_f1"]  # the same run, made again
    np.testing.assert_allclose(np.load(d / "ens.proba.npz")["test_proba"], z_ens["test_proba"], atol=1e-6)
    seen.clear()
    pi.run(config(files, **kw))  # now all finished
    assert seen == []
    # a probability file of other pairs (a folder mixed with another split) is named, not averaged
    z = dict(np.load(d / "gat_ppi.proba.npz"))
    np.savez(d / "gat_ppi.proba.npz", **{**z, "test_pairs": z["test_pairs"][::-1]})
    (d / "ens.json").unlink()
    with pytest.raises(ValueError, match=r"gat_ppi\.proba\.npz: its pairs are not this unit's validation / test"):
        pi.run(config(files, **kw))


def test_learnt_sequence_encoder_reads_residues_under_the_train_graph_only(files):
    cfg = config(files, models="[cnn]", seeds="[0]", splits="[bfs]", epochs=4,
                 custom_models="{cnn: {base: seq_cnn, channels: 4, hidden: 8, max_len: 50}}")
    x = pi.node_features(pi.load_data(cfg), model_options("cnn", custom=cfg.custom_models))
    assert x.shape == (40, 50, 14)  # 60-residue sequences cut to max_len; 13 vec5_CTC channels + the mask
    pi.run(cfg)
    row = json.loads((files / "out/runs/bfs/s0/train/cnn.json").read_text())
    assert row["options"]["kind"] == "residue_cnn" and 0 <= row["micro_f1"] <= 1 and row["epochs_run"] == 4
    assert not (files / "out/runs/bfs/s0/all/cnn.json").exists()  # no messages: train setting only


def test_evaluate_pairs_known_answers():
    y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    p = np.array([[0.9, 0.6, 0.4], [0.2, 0.7, 0.1], [0.8, 0.3, 0.5]])  # > 0.5: TP 3, FP 1, FN 2 (0.5 is not > 0.5)
    m = pi.evaluate_pairs(y, p, 0.5, subsets=np.array([2, 2, 0]))
    assert m["micro_f1"] == pytest.approx(2 * 3 / (2 * 3 + 1 + 2))
    assert m["n_bs"] == 2 and m["n_es"] == 0 and m["micro_f1_es"] is None
    assert m["micro_f1_ns"] == pytest.approx(2 / 3)  # pair 3: TP 1, FN 1


def test_a_new_protein_is_paired_with_shs27k_from_its_sequence(data_root, tmp_path, monkeypatch, capsys):
    """--sequences without --actions: a protein outside SHS27k joins it as an isolated node. Given the sequence of
    an SHS27k protein under a new name, the sequence-only model scores its pair as that protein's."""
    monkeypatch.setenv("GATBIO_DATA", str(data_root))
    table = data_root / "string_shs27k" / "protein.SHS27k.sequences.dictionary.tsv"
    (a, seq), (b, _) = [line.split("\t") for line in table.read_text().splitlines()[:2]]
    (tmp_path / "new.fa").write_text(f">NEWPROT\n{seq}\n")
    (tmp_path / "pairs.txt").write_text(f"NEWPROT {b}\n{a} {b}\n")
    argv = ["protein", "interactions", "predict", "--pairs", str(tmp_path / "pairs.txt"), "--sequences",
            str(tmp_path / "new.fa"), "--model", "seq_mlp", "--epochs", "2", "--device", "cpu", "--out",
            str(tmp_path / "out.csv")]
    assert main(argv) == 0
    assert "1 protein(s) of --pairs have a sequence but no interaction in SHS27k (e.g. NEWPROT)" in \
        capsys.readouterr().err
    df = pd.read_csv(tmp_path / "out.csv", keep_default_na=False)
    assert df["known"].tolist() == [False, True]
    scores = df[[f"score_{m}" for m in MODES]].to_numpy()
    np.testing.assert_allclose(scores[0], scores[1])


def test_an_shs27k_protein_given_another_sequence_is_said_to_keep_shs27k_s(data_root, tmp_path, monkeypatch,
                                                                            capsys):
    """--sequences alone: an SHS27k protein listed with another sequence is predicted with SHS27k's, and said so
    (was silent: the user's sequence was dropped)."""
    monkeypatch.setenv("GATBIO_DATA", str(data_root))
    table = data_root / "string_shs27k" / "protein.SHS27k.sequences.dictionary.tsv"
    (a, seq), (b, _) = [line.split("\t") for line in table.read_text().splitlines()[:2]]
    (tmp_path / "new.fa").write_text(f">{a}\nMKVLLAAGVILFWWKRDEEKL\n>NEWPROT\n{seq}\n")
    (tmp_path / "pairs.txt").write_text(f"{a} {b}\nNEWPROT {b}\n")
    assert main(["protein", "interactions", "predict", "--pairs", str(tmp_path / "pairs.txt"), "--sequences",
                 str(tmp_path / "new.fa"), "--model", "seq_mlp", "--epochs", "1", "--device", "cpu", "--out",
                 str(tmp_path / "out.csv")]) == 0
    assert f"warning: 1 protein(s) of {tmp_path / 'new.fa'} are in SHS27k with another sequence (e.g. {a}): " \
           "predicted with SHS27k's" in capsys.readouterr().err


def test_quick_config_on_shs27k_resumes(data_root, tmp_path, monkeypatch):
    monkeypatch.setenv("GATBIO_DATA", str(data_root))
    argv = ["protein", "interactions", "--config", "experiments/configs/shs27k_quick.yaml", "--out",
            str(tmp_path / "q"), "--device", "cpu", "splits=[bfs]", "epochs=10"]
    monkeypatch.chdir(pi.__file__.rsplit("/gatbio/", 1)[0])
    assert main(argv) == 0
    row = json.loads((tmp_path / "q/runs/bfs/s0/train/gat.json").read_text())
    assert row["n_fit"] + row["n_val"] + row["n_test"] == 7624 and row["n_test"] >= 1524 and row["n_bs"] == 0
    monkeypatch.setattr(pi, "train_model", lambda *a, **k: (_ for _ in ()).throw(AssertionError("recomputed")))
    assert main(argv) == 0


def test_predict_user_pairs_and_errors(files, capsys):
    (files / "q.txt").write_text("protein_a protein_b\nP0 P2\nP1 P3\nP0 P1\n")
    base = ["protein", "interactions", "predict", "--actions", str(files / "actions.txt"), "--sequences",
            str(files / "seqs.tsv"), "--device", "cpu", "features=[aac,ct]", "hidden=16"]
    assert main(base + ["--pairs", str(files / "q.txt"), "--out", str(files / "p.csv"), "--epochs", "60"]) == 0
    # a choice names the candidate it took
    assert re.search(r"3 pairs predicted with gat: gat_(region|ppi|mean), the best on validation \(2 already",
                     capsys.readouterr().out)
    df = pd.read_csv(files / "p.csv", keep_default_na=False)
    assert list(df.columns[:5]) == ["protein_a", "protein_b", "known", "known_modes", "predicted"]
    assert [f"score_{m}" for m in MODES] == list(df.columns[5:])
    assert df[[f"score_{m}" for m in MODES]].apply(lambda c: c.between(0, 1)).all().all()
    same, cross = df.iloc[0], df.iloc[2]  # P0, P2: one family; P0, P1: two families
    assert same["score_binding"] > cross["score_binding"] and cross["score_activation"] > same["score_activation"]

    (files / "bad.txt").write_text("P0 P2\nP0 P99\n")
    assert main(base + ["--pairs", str(files / "bad.txt"), "--out", str(files / "p2.csv")]) == 1
    err = capsys.readouterr().err
    assert "bad.txt:2: protein 'P99' is not in the interaction network (40 proteins)" in err
    assert not (files / "p2.csv").exists()
    # a protein with a sequence but no interaction (a new protein) is predicted from its sequence, said so; one
    # in neither file is named as unknown in both
    seqs = (files / "seqs.tsv").read_text()
    (files / "seqs_more.tsv").write_text(seqs + "P78\tMKVLLAAGVILFWWKR\nP77\t" + seqs.split("\n")[2].split("\t")[1] + "\n")
    (files / "new.txt").write_text("P0 P77\nP2 P77\nP0 P2\n")
    more = list(base)
    more[more.index("--sequences") + 1] = str(files / "seqs_more.tsv")
    assert main(more + ["--pairs", str(files / "new.txt"), "--out", str(files / "p4.csv"), "--epochs", "60"]) == 0
    captured = capsys.readouterr()
    assert "1 protein(s) of --pairs have a sequence but no interaction in --actions (e.g. P77): predicted from " \
        "their sequences alone" in captured.err and "3 pairs predicted" in captured.out
    new = pd.read_csv(files / "p4.csv", keep_default_na=False)
    assert new["protein_b"].tolist() == ["P77", "P77", "P2"]
    assert new["known"].tolist() == [False, False, bool(same["known"])]  # P0 P2's, as in the first run
    assert new[[f"score_{m}" for m in MODES]].apply(lambda c: c.between(0, 1)).all().all()
    # P77 has P2's sequence: its pair with P0 scores as a one-family pair (binding), not as a cross-family one
    assert new.iloc[0]["score_binding"] > cross["score_binding"]
    assert new.iloc[0]["score_activation"] < cross["score_activation"]
    (files / "new2.txt").write_text("P0 P79\n")
    assert main(more + ["--pairs", str(files / "new2.txt"), "--out", str(files / "p5.csv")]) == 1
    assert "new2.txt:1: protein 'P79' is not in the interaction network (40 proteins) nor in --sequences" in \
        capsys.readouterr().err
    assert main(["protein", "interactions", "predict", "--actions", str(files / "actions.txt"), "--pairs",
                 str(files / "q.txt"), "--out", str(files / "p3.csv")]) == 1
    assert "--actions needs --sequences" in capsys.readouterr().err
    assert main(["protein", "interactions"]) == 2  # usage errors exit 2, as argparse's own
    assert "the benchmark needs --config FILE" in capsys.readouterr().err
    assert main(["protein", "interactions", "--config", "x.yaml", "--pairs", "q.txt"]) == 2
    assert "--pairs belong to 'gatbio protein interactions predict'" in capsys.readouterr().err


def rule_predict_argv(files, sequences: str) -> list[str]:
    """``predict`` on the fixture's network with the sequences of ``files / sequences`` (the quick profile rule)."""
    return ["protein", "interactions", "predict", "--actions", str(files / "actions.txt"), "--sequences",
            str(files / sequences), "--device", "cpu", "features=[aac,ct]", "--model", "profile_rule"]


def test_a_new_protein_named_as_a_network_protein_but_for_case_or_version_is_refused(files, capsys):
    """'p0', 'P2.1' or '9606.P4' (STRING's taxon prefix) with a sequence but no interaction would be predicted as a
    new protein without partners (its known pair not flagged 'known'): refused, naming the line, both ids and the
    fix (was silently predicted)."""
    seqs = dict(line.split("\t") for line in (files / "seqs.tsv").read_text().splitlines())
    (files / "more.fa").write_text("".join(f">{n}\n{q}\n" for n, q in seqs.items()) + f">p0\n{seqs['P0']}\n"
                                   f">P2.1 version 1\n{seqs['P2']}\n>NEW\n{seqs['P3']}\n"
                                   f">9606.P4\n{seqs['P4']}\n")
    base = rule_predict_argv(files, "more.fa")
    (files / "q.txt").write_text("# my pairs\nNEW P1\np0 P1\n")
    assert main(base + ["--pairs", str(files / "q.txt"), "--out", str(files / "p.csv")]) == 1
    assert "q.txt:3: protein 'p0' has a sequence in --sequences but no interaction in --actions, and differs from " \
           "its protein 'P0' only by case, a version suffix or a taxon prefix: write 'P0'" in capsys.readouterr().err
    assert not (files / "p.csv").exists()
    (files / "q2.txt").write_text("P0 P2.1\n")
    assert main(base + ["--pairs", str(files / "q2.txt"), "--out", str(files / "p.csv")]) == 1
    assert "q2.txt:1: protein 'P2.1' has a sequence" in capsys.readouterr().err
    (files / "q4.txt").write_text("P1 9606.P4\n")
    assert main(base + ["--pairs", str(files / "q4.txt"), "--out", str(files / "p.csv")]) == 1
    assert "q4.txt:1: protein '9606.P4' has a sequence in --sequences but no interaction in --actions, and differs " \
           "from its protein 'P4' only by case, a version suffix or a taxon prefix: write 'P4'" in capsys.readouterr().err
    (files / "q3.txt").write_text("NEW P1\n")  # the look-alikes not asked for: no error
    assert main(base + ["--pairs", str(files / "q3.txt"), "--out", str(files / "p.csv")]) == 0


def test_a_new_protein_keeps_the_sequence_given_for_it(files):
    """A config's files network with --sequences: a new protein that the config's sequence file also lists (no
    interaction) is read with the sequence given for it, not that file's (was silently replaced)."""
    (files / "seqs_all.tsv").write_text((files / "seqs.tsv").read_text() + "P77\tDEKRHNQDEKRHNQ\n")
    data = pi.load_data(config(files, sequences=str(files / "seqs_all.tsv")), extra_proteins={"P77": "AGVILFPAGV"})
    assert data.node_names[-1] == "P77" and data.sequences[-1] == "AGVILFPAGV"


def test_a_new_protein_without_a_standard_amino_acid_is_refused(files, capsys):
    """A new protein is predicted from its sequence alone: one of only ambiguous letters (X, B, Z, ...) has nothing
    to be predicted from (was: scored from empty compositions)."""
    (files / "more.tsv").write_text((files / "seqs.tsv").read_text() + "NEWX\txxxxbzxx\nNEWU\tMKUOXL\n")
    base = rule_predict_argv(files, "more.tsv")
    (files / "q.txt").write_text("P0 NEWU\nP1 NEWX\n")
    assert main(base + ["--pairs", str(files / "q.txt"), "--out", str(files / "p.csv")]) == 1
    assert "more.tsv: protein 'NEWX' (a new protein of --pairs, predicted from its sequence alone) has no standard " \
           "amino acid (XXXXBZXX)" in capsys.readouterr().err
    assert not (files / "p.csv").exists()
    (files / "q.txt").write_text("P0 NEWU\n")  # some ambiguous letters: predicted
    assert main(base + ["--pairs", str(files / "q.txt"), "--out", str(files / "p.csv")]) == 0


def test_predict_reports_threshold_self_pairs_small_networks_and_config_device(files, capsys, monkeypatch):
    """What a user reads: the threshold of the 'predicted' column, a warning for a protein paired with itself, a
    note when few pairs are held out, and the config's device honoured (refused here: no GPU)."""
    base = ["protein", "interactions", "predict", "--actions", str(files / "actions.txt"), "--sequences",
            str(files / "seqs.tsv"), "features=[aac,ct]", "--model", "profile_rule"]
    (files / "q.txt").write_text("P0 P2\nP5 P5\n")
    assert main(base + ["--pairs", str(files / "q.txt"), "--out", str(files / "p.csv"), "--device", "cpu"]) == 0
    out, err = capsys.readouterr()
    pred = pd.read_csv(files / "p.csv", keep_default_na=False)
    threshold = float(re.search(r"a mode is predicted above a score of ([0-9.]+)\)", out).group(1))
    for _, row in pred.iterrows():  # the printed threshold is the one behind the 'predicted' column
        above = {m for m in MODES if row[f"score_{m}"] > threshold + 1e-4}
        maybe = {m for m in MODES if row[f"score_{m}"] > threshold - 1e-4}  # scores are rounded to 4 digits
        assert above <= set(filter(None, row["predicted"].split(";"))) <= maybe
    assert "warning: 1 pair(s) of a protein with itself (e.g. P5)" in err
    # the fixture's pairs have three of the seven modes: the four others are named, not scored silently
    assert "no known pair has the mode(s) expression, inhibition, ptmod, reaction: the model cannot learn" in err
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert main(base + ["--pairs", str(files / "q.txt"), "--out", str(files / "p2.csv"), "device=cuda"]) == 1
    assert "cuda" in capsys.readouterr().err.lower() and not (files / "p2.csv").exists()
    # a network of 5 proteins: fewer proteins than the sequence kNN's 10 neighbours; a note on the few held-out pairs
    lines = (files / "actions.txt").read_text().splitlines()
    small = [lines[0]] + [ln for ln in lines[1:] if {ln.split()[0], ln.split()[1]} <= {"P0", "P1", "P2", "P3", "P4"}]
    (files / "small.txt").write_text("\n".join(small) + "\n")
    (files / "q2.txt").write_text("P0 P1\n")
    assert len(small) > 3
    assert main(["protein", "interactions", "predict", "--actions", str(files / "small.txt"), "--sequences",
                 str(files / "seqs.tsv"), "--pairs", str(files / "q2.txt"), "--out", str(files / "p3.csv"),
                 "--device", "cpu", "--model", "gat_region", "--epochs", "3", "features=[aac,ct]", "hidden=8"]) == 0
    assert re.search(r"note: \d held-out pair\(s\) of \d+ for early stopping", capsys.readouterr().err)


def test_predict_embedding_without_a_letter_names_protein_and_files(files, capsys):
    (files / "emb.txt").write_text("".join(f"{c}\t{' '.join(['0.1'] * 5)}\n" for c in "ACDEFGHIKLMNPQRSTVWY"))
    (files / "seqs2.tsv").write_text((files / "seqs.tsv").read_text().replace("P3\t", "P3\tX", 1))
    (files / "q.txt").write_text("P0 P2\n")
    assert main(["protein", "interactions", "predict", "--actions", str(files / "actions.txt"), "--sequences",
                 str(files / "seqs2.tsv"), "--pairs", str(files / "q.txt"), "--out", str(files / "p.csv"),
                 "--device", "cpu", "--model", "profile_rule", f"embedding={files / 'emb.txt'}"]) == 1
    assert re.search(r"emb\.txt: protein 'P3' of .*seqs2\.tsv holds 'X', which this amino-acid embedding has no row "
                     r"for", capsys.readouterr().err)


def test_model_help_lists_every_pair_model():
    from gatbio.nn.pair_models import PAIR_MODELS
    from gatbio.tasks.protein_cli import PREDICT_MODELS

    assert set(PREDICT_MODELS) == set(PAIR_MODELS)


@pytest.mark.parametrize("path", sorted(REPO_CONFIGS.glob("shs27k*.yaml")), ids=lambda p: p.name)
def test_every_shipped_config_loads(path):
    cfg = pi.load(path)  # checks every model name, custom_models entry and option
    assert cfg.models and cfg.splits


@pytest.mark.parametrize("entry,match", [
    ({"base": "profile_rule", "imput": 10}, r"unknown profile_rule option\(s\) \['imput'\]"),
    ({"base": "profile_rule", "impute": -1}, r"impute=-1 must be an integer >= 0"),
    ({"base": "gat_region", "impute_kmer": 0}, r"impute_kmer=0 must be an integer >= 1"),
    ({"base": "gat_region", "impute": 2.5}, r"impute=2.5 must be an integer"),
    ({"base": "profile_rule_hom", "impute_similarity": "blast"}, r"impute_similarity='blast': choose one of kmer, align"),
    ({"base": "interolog_rule", "interolog_similarity": "psi"}, r"interolog_similarity='psi': choose one of kmer, "
                                                                r"align \(null: impute_similarity's\)"),
    ({"base": "gat_region", "interolog_attention": "dot"}, r"interolog_attention='dot': choose one of None, gat, "
                                                           r"gatv2"),
    ({"base": "gat_region", "roles": "false"}, r"roles='false' must be true or false \(unquoted\)"),
    ({"base": "seq_cnn", "norm": 1}, r"norm=1 must be true or false"),
])
def test_bad_imputation_options_are_refused_before_any_work(entry, match):
    with pytest.raises(ValueError, match=match):
        pi.load(None, ["models=[m]", f"custom_models={{m: {json.dumps(entry)}}}"])


def test_the_interologs_may_read_their_own_similarity(files, monkeypatch):
    """interolog_similarity switches the homologue sets of the interologs, not the imputation's similarity."""
    from gatbio.data import sequence

    cfg = config(files)
    data = pi.load_data(cfg)
    fake = np.eye(data.num_nodes)[::-1].copy()  # each protein's one "homologue": its mirror image
    monkeypatch.setattr(sequence, "alignment_similarity", lambda seqs: fake)
    pi._INPUT_CACHE.clear()
    opts = model_options("m", custom={"m": {"base": "interolog_rule", "interolog": 1, "interolog_similarity": "align"}})
    index, weight = pi._homologues(data, opts)
    assert index[:, 1].tolist() == list(range(data.num_nodes))[::-1] and weight[:, 1].eq(1).all()
    kmer = pi._similarity(data, opts)  # the imputation's: 4-mer cosine still
    assert not np.allclose(kmer.numpy(), fake) and torch.equal(pi._homologues(
        data, {**opts, "interolog_similarity": None})[0], homologues(kmer, 1)[0])
    pi._INPUT_CACHE.clear()


def test_the_learnt_interolog_weighting_runs_end_to_end(files):
    """A gat_region with interolog_attention trains, scores and records its option; the option changes the scores."""
    models = "{plain: {base: gat_region, hidden: 16, heads: 2}, att: {base: gat_region, hidden: 16, heads: 2, " \
             "interolog_attention: gatv2, interolog_heads: 2}}"
    pi.run(config(files, models="[plain,att]", custom_models=models, splits="[dfs]", seeds="[0]", graphs="[train]"))
    rows = {m: json.loads((files / f"out/runs/dfs/s0/train/{m}.json").read_text()) for m in ("plain", "att")}
    assert rows["att"]["options"]["interolog_attention"] == "gatv2" and rows["plain"]["options"]["interolog_attention"] is None
    assert all(0 < r["micro_f1"] <= 1 and r["epochs_run"] > 0 for r in rows.values())
    assert rows["att"]["val_micro_f1"] != rows["plain"]["val_micro_f1"] or rows["att"]["micro_f1"] != rows["plain"]["micro_f1"]


def test_role_block_reads_the_directions_and_runs_end_to_end(files):
    """roles: true adds each protein's acting / acted-on fractions per mode (from the actions file's direction
    columns) to the recipe's inputs; a network without directions is refused with the fix."""
    lines = (files / "actions.txt").read_text().splitlines()
    a, b = lines[1].split("\t")[:2]
    lines.append(f"{a}\t{b}\texpression\texpression\tt\tt\t700")  # a acts on b's expression
    (files / "actions.txt").write_text("\n".join(lines) + "\n")
    cfg = config(files, models="[roles]", custom_models="{roles: {base: gat_region, hidden: 16, heads: 2, roles: true}}",
                 splits="[dfs]", seeds="[0]", graphs="[train]")
    data = pi.load_data(cfg)
    opts = model_options("r", custom={"r": {"base": "gat_region", "roles": True}})
    builder = pi.graph_builder(data, opts)
    x, _, _ = builder.build(np.arange(len(data.pairs)))
    ia, ib, e = data.node_names.index(a), data.node_names.index(b), MODES.index("expression")
    seq = builder.seq_channels
    assert x.shape[1] == seq + 14 + 9 and x[ia, seq + e] > 0 and x[ib, seq + 7 + e] > 0  # a acts, b is acted on
    assert x[:, seq:seq + 14].sum() == x[ia, seq + e] + x[ib, seq + 7 + e]  # the only directed action
    pi.run(cfg)
    row = json.loads((files / "out/runs/dfs/s0/train/roles.json").read_text())
    assert row["options"]["roles"] is True and 0 < row["micro_f1"] <= 1
    del data.pair_direction
    with pytest.raises(ValueError, match="roles: true reads the direction.*set roles: false"):
        pi.graph_builder(data, opts)


def test_own_protein_features_reach_every_model(files):
    """protein_features: one's own per-protein vectors (e.g. embeddings) are appended to the plain models' inputs
    and to the gat_pairs recipe's sequence block; a protein without a row is refused before any training."""
    rng = np.random.default_rng(1)
    rows = [f"P{i}\t" + "\t".join(f"{v:.4f}" for v in rng.normal(size=3)) for i in range(40)]
    (files / "own.tsv").write_text("\n".join(["P99\t1\t2\t3"] + rows) + "\n")  # a protein outside the network too
    plain = pi.load_data(config(files))
    data = pi.load_data(config(files, protein_features=str(files / "own.tsv")))
    assert data.x.shape == (40, plain.x.shape[1] + 3) and data.feature_names[-3:] == ["own:feature_1",
                                                                                     "own:feature_2", "own:feature_3"]
    p5 = data.node_names.index("P5")  # rows follow the network's protein order, not the file's
    assert np.allclose(data.protein_features[p5].numpy(), [float(v) for v in rows[5].split("\t")[1:]], atol=1e-4)
    opts = model_options("gat_region")
    pi._INPUT_CACHE.clear()
    block = pi.graph_builder(data, opts).x_seq
    assert not torch.allclose(block, pi.graph_builder(plain, opts).x_seq)  # the recipe's block reads them
    out = pi.run(config(files, protein_features=str(files / "own.tsv"), models="[seq_mlp,gat_region]",
                        splits="[dfs]", seeds="[0]", graphs="[train]"))
    assert "gat_region" in out and "seq_mlp" in out
    (files / "short.tsv").write_text("\n".join(rows[:39]) + "\n")
    with pytest.raises(ValueError, match=r"short\.tsv: 1 of the network's 40 proteins have no row, e\.g\. \['P39'\]"):
        pi.run(config(files, protein_features=str(files / "short.tsv"), out_dir=str(files / "out2")))
    with pytest.raises(FileNotFoundError, match=r"nope\.tsv: no such file"):  # named before any work
        pi.run(config(files, protein_features=str(files / "nope.tsv"), out_dir=str(files / "out3")))
    assert not (files / "out3").exists()
    pi._INPUT_CACHE.clear()


def test_summary_md_rounds_the_means_once(files):
    """summary.md prints each mean rounded once from the runs (0.86749 -> 0.867), summary.csv keeps 6 digits."""
    cfg = config(files, splits="[random]", graphs="[train]", models="[seq_mlp]")
    for seed, f1 in zip((0, 1), (0.8674, 0.86758), strict=True):
        path = files / "out" / "runs" / "random" / f"s{seed}" / "train" / "seq_mlp.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({"split": "random", "seed": seed, "graph": "train", "model": "seq_mlp",
                                    "seconds": 1.0, **{m: f1 for m in pi.METRICS}}))
    text = pi.summarize_runs(cfg)
    assert "| train | seq_mlp | 2 | 0.867 ± 0.000 |" in text
    assert pd.read_csv(files / "out" / "summary.csv")["micro_f1_mean"][0] == 0.86749


def test_predict_split_retrains_the_runs_model(files):
    """The worked example (``predict_split``) retrains a run's model on its saved split: the same scores as the
    run's stored probabilities (the run's threads, torch's and BLAS's alike, so the same sums)."""
    cfg = config(files, splits="[bfs]", seeds="[0]", graphs="[train]", models="[gat_region]")
    pi.run(cfg)
    pred = pi.predict_split(cfg, "bfs", 0, "gat_region")
    with np.load(files / "out/runs/bfs/s0/train/gat_region.proba.npz") as z:
        stored = z["test_proba"]
    scores = pred[[f"score_{m}" for m in MODES]].to_numpy()
    np.testing.assert_allclose(scores, stored, atol=6e-5)  # scores are written to 4 digits


def test_predict_split_fits_on_the_runs_threads(files, monkeypatch):
    """Tiny data sums alike on any thread count (above), SHS27k's do not: the retraining runs on the config's
    ``threads`` for torch and BLAS, as the run's units (``gatbio.parallel.unit_threads``)."""
    from threadpoolctl import threadpool_info

    cfg = config(files, splits="[bfs]", seeds="[0]", graphs="[train]", models="[gat_region]")
    seen = []

    def record(*a, **k):
        seen.append((torch.get_num_threads(), {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}))
        raise KeyboardInterrupt

    monkeypatch.setattr(pi, "fit_and_score", record)
    with pytest.raises(KeyboardInterrupt):
        pi.predict_split(cfg, "bfs", 0, "gat_region")
    assert seen == [(1, {1})]


def test_predict_trains_on_the_configs_threads(files, monkeypatch):
    """``interactions predict`` gave other scores each time on SHS27k (three runs of the same command, three
    validation micro-F1s: 0.890, 0.888, 0.892): on two threads the sums' order changes from run to run. Its models
    train on the config's ``threads`` (1), torch's and BLAS's, as the benchmark's units and ``predict_split``."""
    from threadpoolctl import threadpool_info

    data = pi.load_data(config(files))
    seen = []

    def record(*a, **k):
        seen.append((torch.get_num_threads(), {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}))
        raise KeyboardInterrupt

    monkeypatch.setattr(pi, "fit_and_score", record)
    before = torch.get_num_threads()
    torch.set_num_threads(2)  # a machine with two cores or more: torch's default
    try:
        with pytest.raises(KeyboardInterrupt):
            pi.predict_interactions(data, [("P0", "P2")], config(files), "gat_region")
        assert torch.get_num_threads() == 2  # restored
    finally:
        torch.set_num_threads(before)
    assert seen == [(1, {1})]


def test_predict_says_what_its_validation_figure_is(files, capsys):
    """The printed validation micro-F1 is not a test figure: the line after it says how many known pairs were held
    out, at random with which seed, that they also chose the threshold (or the epoch, and the model of a choice),
    so the figure is optimistic, and that it is for pairs whose proteins have other known pairs."""
    (files / "q.txt").write_text("P0 P2\n")
    argv = rule_predict_argv(files, "seqs.tsv") + ["--pairs", str(files / "q.txt"), "--out", str(files / "p.csv"),
                                                   "--seed", "3"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    n = sum(1 for ln in (files / "actions.txt").read_text().splitlines()[1:] if ln.strip())
    m = re.search(r"# validation micro-F1: (\d+) of the (\d+) known pairs, held out at random \(--seed 3\); they also "
                  r"chose the rule's threshold, so the figure is optimistic, and it is for pairs whose proteins have "
                  r"other known pairs", out)
    assert m, out
    pairs = {frozenset(ln.split()[:2]) for ln in (files / "actions.txt").read_text().splitlines()[1:] if ln.strip()}
    assert int(m.group(2)) == len(pairs) <= n and 0 < int(m.group(1)) < int(m.group(2))
    data = pi.load_data(config(files))
    attrs = pi.predict_interactions(data, [("P0", "P2")], config(files, epochs=2), "gat", seed=1).attrs
    assert attrs["selected"] == "the epoch and the model" and attrs["seed"] == 1
    assert 0 < attrs["val_pairs"] < attrs["known_pairs"] == data.pairs.size(0)
    # a choice whose pick is a rule: the held-out pairs chose its threshold (was: "the epoch and the model")
    import dataclasses

    cfg = dataclasses.replace(config(files, epochs=2), custom_models={"pick": {"kind": "choice",
                                                                                "among": ["profile_rule"]}})
    attrs = pi.predict_interactions(data, [("P0", "P2")], cfg, "pick", seed=1).attrs
    assert attrs["model"] == "profile_rule" and attrs["selected"] == "the rule's threshold and the model"


# ----------------------------------------------------------------------------------------------- leakage
LEAK_MODELS = ("seq_mlp", "profile_rule", "interolog_rule", "gat_region", "gat_ppi")


def _split_of(files, kind):
    cfg = config(files, splits=f"[{kind}]", seeds="[0]", epochs=12)
    data = pi.load_data(cfg)
    from gatbio.data.pair_splits import pair_split

    return cfg, data, pair_split(data.pairs, data.num_nodes, kind, 0, cfg.test_fraction, cfg.val_fraction)


@pytest.mark.parametrize("kind", ["random", "bfs"])
@pytest.mark.parametrize("graph", ["train", "all"])
def test_the_test_pairs_modes_never_reach_any_score(files, kind, graph):
    """Every mode of every test pair flipped: the test and validation scores (and so the model chosen, the
    threshold of the rules and the epoch kept) are unchanged, in both graph settings. Profiles, homology imputation,
    interologs and edge features all read the modes of fit / training pairs only."""
    import copy

    cfg, data, sp = _split_of(files, kind)
    other = copy.copy(data)
    other.pair_modes = data.pair_modes.clone()
    test = torch.as_tensor(sp["test"])
    other.pair_modes[test] = 1 - other.pair_modes[test]
    query = data.pairs[test]
    for name in LEAK_MODELS:
        if graph == "all" and not pi._uses_graph(cfg, name):
            continue
        a, b = (pi.fit_and_score(cfg, d, name, sp["fit"], sp["val"], sp["train"], query, graph, 0, device="cpu")
                for d in (data, other))
        assert np.array_equal(a["val_proba"], b["val_proba"]), name
        assert np.array_equal(a["proba"], b["proba"]), name
        assert (a["val_micro_f1"], a["threshold"], a["best_epoch"]) == (b["val_micro_f1"], b["threshold"],
                                                                       b["best_epoch"]), name


ALL_KINDS = ("seq_mlp", "gat_plain", "pyg_gat", "gin", "gcn", "gat_region", "gat_ppi", "pyg_gat_region",
             "profile_rule", "interolog_rule")


def _rewired(data, test, rng):
    """``data`` with every test pair moved to two other proteins (and a new STRING score, the modes flipped), and
    the all-pairs graph rebuilt from them as the reader builds it (the pairs, then their mirror images)."""
    import copy

    other = copy.copy(data)
    other.pairs = data.pairs.clone()
    n = data.num_nodes
    taken = {tuple(sorted(p)) for p in data.pairs.tolist()}
    for t in test.tolist():
        while True:
            a, b = sorted(rng.choice(n, 2, replace=False).tolist())
            if (a, b) not in taken:
                taken.add((a, b))
                other.pairs[t] = torch.tensor([a, b])
                break
    other.pair_modes = data.pair_modes.clone()
    other.pair_modes[test] = 1 - other.pair_modes[test]
    other.pair_score = data.pair_score.clone()
    other.pair_score[test] = 1.0 - other.pair_score[test]
    other.edge_index = torch.cat([other.pairs.t(), other.pairs.flip(1).t()], dim=1)
    other.edge_mode = torch.cat([other.pair_modes, other.pair_modes])
    other.edge_weight = torch.cat([other.pair_score, other.pair_score])
    return other


@pytest.mark.parametrize("kind", ["random", "bfs"])
def test_the_test_pairs_existence_never_reaches_a_train_graph_score(files, kind):
    """Leakage-free ("train" graph): moving every test pair to two other proteins (its score and modes changed
    too, the all-pairs graph rebuilt) changes no score of any model, validation or test. Flipping the test pairs'
    modes alone (the test above) cannot see a test pair used as an edge; this can. The "all" graph, the published
    setting, does use them: there the moved pairs change the message-passing models' scores."""
    cfg, data, sp = _split_of(files, kind)
    test = torch.as_tensor(sp["test"])
    other = _rewired(data, test, np.random.default_rng(1))
    query = data.pairs[test]  # the same questions, asked of both
    moved = []
    for graph in ("train", "all"):
        for name in ALL_KINDS:
            if graph == "all" and not pi._uses_graph(cfg, name):
                continue
            a, b = (pi.fit_and_score(cfg, d, name, sp["fit"], sp["val"], sp["train"], query, graph, 0, device="cpu")
                    for d in (data, other))
            same = np.array_equal(a["val_proba"], b["val_proba"]) and np.array_equal(a["proba"], b["proba"])
            if graph == "train":
                assert same, name
            elif not same:
                moved.append(name)
    assert {"gat_plain", "pyg_gat", "gin", "gcn"} <= set(moved)  # the test can see an edge that leaks


@pytest.mark.parametrize("name", ["gat_region", "gat_ppi", "profile_rule", "interolog_rule"])
def test_while_a_model_is_chosen_its_inputs_read_fit_pairs_only(files, monkeypatch, name):
    """The modes a model reads (the message pairs of every graph it is given, the known pairs of the rules): fit
    pairs only while training and validating (validation pairs are never inputs while the model is chosen on
    them), and all training pairs (fit + validation), never a test pair, when the test pairs are scored."""
    from gatbio.data import pair_features as pf

    cfg, data, sp = _split_of(files, "bfs")
    fit, train = set(sp["fit"]), set(sp["train"])
    read: list[set[int]] = []
    build, rule = pf.PairGraphBuilder.build, pf.profile_rule

    def spy_build(self, msg_idx, structure_idx=None):
        read.append({int(i) for i in np.asarray(msg_idx)})
        return build(self, msg_idx, structure_idx)

    def spy_rule(pairs, modes, known_idx, *a, **k):
        read.append({int(i) for i in np.asarray(known_idx)})
        return rule(pairs, modes, known_idx, *a, **k)

    monkeypatch.setattr(pf.PairGraphBuilder, "build", spy_build)
    monkeypatch.setattr(pf, "profile_rule", spy_rule)
    pi.fit_and_score(cfg, data, name, sp["fit"], sp["val"], sp["train"], data.pairs[torch.as_tensor(sp["test"])],
                     "train", 0, device="cpu")
    assert len(read) >= 2 and read[-1] == train  # the test pairs: scored from every training pair
    assert all(r <= fit for r in read[:-1]) and fit in read[:-1]  # choosing: fit pairs only (validation: all fit)


def test_the_saved_split_is_the_one_used_and_gat_is_chosen_on_validation(files):
    """A split file already in the results folder is what the run trains, validates and tests on (here one made
    by hand: the fit part without its last 10 pairs, which become test pairs); each run records its sizes; ``gat``
    takes the candidate with the best validation micro-F1 and reports that candidate's test figures."""
    from gatbio.data.pair_splits import pair_split

    cfg = config(files, splits="[random]", seeds="[0]", graphs="[train]", models="[gat]", epochs=12)
    data = pi.load_data(cfg)
    sp = pair_split(data.pairs, data.num_nodes, "random", 0, cfg.test_fraction, cfg.val_fraction)
    moved = sp["fit"][-10:]
    sp["fit"], sp["train"] = sp["fit"][:-10], sorted(set(sp["train"]) - set(moved))
    sp["test"] = sorted(sp["test"] + moved)
    sp["pairs_sha256"] = pi.pairs_digest(data)
    path = files / "out" / "splits" / "random_s0.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(sp))
    pi.run(cfg, progress=False)
    assert json.loads(path.read_text()) == sp  # not remade
    run = files / "out" / "runs" / "random" / "s0" / "train"
    rows = {m: json.loads((run / f"{m}.json").read_text()) for m in ("gat", "gat_region", "gat_ppi", "gat_mean")}
    for m in ("gat_region", "gat_ppi", "gat_mean"):
        assert (rows[m]["n_fit"], rows[m]["n_val"], rows[m]["n_test"]) == (len(sp["fit"]), len(sp["val"]),
                                                                            len(sp["test"]))
        with np.load(run / f"{m}.proba.npz") as z:
            assert z["val_pairs"].tolist() == sp["val"] and z["test_pairs"].tolist() == sp["test"]
    cands = rows["gat"]["candidates_val_micro_f1"]
    assert rows["gat"]["chosen"] == max(cands, key=cands.get)
    assert rows["gat"]["micro_f1"] == rows[rows["gat"]["chosen"]]["micro_f1"]


def test_the_quick_config_constant_mirrors_its_yaml():
    """``QUICK_CONFIG`` is the quick config's settings in Python: the same config as shs27k_quick.yaml (its out_dir
    aside, which a caller sets)."""
    import dataclasses

    ours = pi.load(None, [f"{k}={v}" if not isinstance(v, list) else f"{k}=[{','.join(map(str, v))}]"
                          for k, v in pi.QUICK_CONFIG.items()])
    theirs = pi.load(REPO_CONFIGS / "shs27k_quick.yaml")
    assert dataclasses.replace(ours, out_dir=theirs.out_dir) == theirs


def test_predict_says_a_sequence_files_notes_once(files, caplog):
    """--sequences is read for the network and again for proteins outside it: its notes (here: a header line) were
    said twice."""
    (files / "seqs_hdr.tsv").write_text("protein\tsequence\n" + (files / "seqs.tsv").read_text())
    (files / "q.txt").write_text("P0 P2\n")
    assert main(["protein", "interactions", "predict", "--actions", str(files / "actions.txt"), "--sequences",
                 str(files / "seqs_hdr.tsv"), "features=[aac,ct]", "--model", "profile_rule", "--pairs",
                 str(files / "q.txt"), "--out", str(files / "p.csv"), "--device", "cpu"]) == 0
    assert caplog.text.count("read as a header") == 1


def test_a_misspelt_model_gets_the_closest_names(files, capsys):
    """`--model seq_cnnn` said "unknown model 'seq_cnnn'; choose from ..." with no suggestion, where a misspelt
    dataset name gets "did you mean"; the config's models too. Refused before any file is read."""
    (files / "q.txt").write_text("P0 P2\n")
    base = ["protein", "interactions", "predict", "--pairs", str(files / "q.txt"), "--out", str(files / "p.csv")]
    assert main([*base, "--model", "seq_cnnn", "--actions", str(files / "missing.txt"), "--sequences",
                 str(files / "missing.fa")]) == 1
    err = capsys.readouterr().err
    assert "error: --model: unknown model 'seq_cnnn'; did you mean seq_cnn? (known: gat_region, " in err, err
    assert "missing" not in err and err.count("\n") == 1 and not (files / "p.csv").exists()
    with pytest.raises(ValueError, match=r"config models: unknown model 'gat_regoin'; did you mean gat_region"):
        pi.load(None, ["models=[gat_regoin]"])
    cfg = pi.load(None, ["custom_models={gat_log: {base: gat_plain}}", "models=[gat_log]"])
    with pytest.raises(ValueError, match=r"unknown model 'gat_lgo'; did you mean gat_log or .*, gat_log; or define it under"):
        pi.check_model_name("gat_lgo", cfg, "--model")


@pytest.mark.parametrize("query,error,match", [
    (torch.tensor([[0, 2, 1], [1, 3, 3]]), ValueError, r"query must be \(P, 2\).*got shape \(2, 3\).*pass query\.t\(\)"),
    ([[0, 2, 1], [1, 3, 3]], ValueError, r"got \[0, 2, 1\] \(the \(2, Q\) layout\? give one \(a, b\) per pair"),
    ([("P0", "P99")], ValueError, r"query: protein 'P99' is not in the network \(40 proteins, data.node_names\)"),
    ([(0, 40)], ValueError, r"query holds protein index 40 but there are 40 proteins \(valid indices 0\.\.39\)"),
    (("P0", "P2"), ValueError, r"got 'P0' \(for one pair give \[\(a, b\)\]\)"),
    ([], ValueError, "query has no pair"),
    (np.array([[0.0, 1.0]]), TypeError, "query must hold integer protein indices; got dtype torch.float64"),
    ("P0 P2", TypeError, "query must be a list of \\(a, b\\) pairs or a \\(Q, 2\\) tensor; got str"),
])
def test_a_bad_query_is_refused_before_any_training(files, monkeypatch, query, error, match):
    """Each was found after training ('too many values to unpack', "'list' object has no attribute 'tolist'",
    'invalid literal for int()', a bare IndexError deep in pair_features) or not at all."""
    data = pi.load_data(config(files))
    monkeypatch.setattr(pi, "fit_and_score", lambda *a, **k: pytest.fail("trained"))
    with pytest.raises(error, match=match):
        pi.predict_interactions(data, query, config(files), "profile_rule")


def test_a_query_may_be_a_list_of_pairs_of_indices_or_names(files):
    data = pi.load_data(config(files))
    names = list(map(str, data.node_names))
    i0, i2, i1 = names.index("P0"), names.index("P2"), names.index("P1")
    as_tensor = pi.query_pairs(data, torch.tensor([[i0, i2], [i1, i0]]))
    assert as_tensor.dtype == torch.long and as_tensor.tolist() == [[i0, i2], [i1, i0]]
    assert pi.query_pairs(data, [("P0", "P2"), ("P1", i0)]).equal(as_tensor)
    assert pi.query_pairs(data, np.array([[i0, i2], [i1, i0]])).equal(as_tensor)
    pred = pi.predict_interactions(data, [("P0", "P2"), ("P1", "P0")], config(files), "profile_rule")
    assert pred[["protein_a", "protein_b"]].values.tolist() == [["P0", "P2"], ["P1", "P0"]]
    assert pred[[f"score_{m}" for m in MODES]].apply(lambda c: c.between(0, 1)).all().all()


def test_summary_names_its_seeds_and_the_rules_threshold(files):
    """The header said "at threshold 0.5, mean ± std over seeds" for every row, though the no-learning rules are
    scored at the threshold chosen on the validation pairs, and named neither the seeds nor which std."""
    cfg = config(files, splits="[random]", graphs="[train]", models="[seq_mlp,profile_rule]", seeds="[0,1,2]")
    for seed in (0, 2):  # seed 1 never ran: the header names the seeds summarised
        for model, extra in (("seq_mlp", {}), ("profile_rule", {"threshold_chosen": 0.35})):
            path = files / "out" / "runs" / "random" / f"s{seed}" / "train" / f"{model}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps({"split": "random", "seed": seed, "graph": "train", "model": model,
                                        "seconds": 1.0, **{m: 0.5 for m in pi.METRICS}, **extra}))
    head = pi.summarize_runs(cfg).splitlines()[0]
    assert "at threshold 0.5 (profile_rule: at the threshold chosen on the validation pairs" in head
    assert "mean ± std over seeds 0, 2; std of the sample (n − 1); n = runs" in head


@pytest.mark.parametrize("damage", ["cut_short", "empty", "row_without_results"])
def test_a_damaged_member_run_is_made_again_not_a_traceback(files, damage, caplog):
    """A mean rebuilt from its members' stored runs met a cut-short or empty .proba.npz (BadZipFile, EOFError) or a
    member .json without its results (KeyError 'val_micro_f1'): each is made again, with a note naming the file."""
    cfg = config(files, splits="[random]", seeds="[0]", graphs="[train]", models="[gat_region,gat_ppi,gat_mean]",
                 epochs=4)
    pi.run(cfg)
    run_dir = files / "out" / "runs" / "random" / "s0" / "train"
    before = json.loads((run_dir / "gat_mean.json").read_text())["micro_f1"]
    (run_dir / "gat_mean.json").unlink()  # the mean is rebuilt from its members
    npz, row = run_dir / "gat_region.proba.npz", run_dir / "gat_region.json"
    if damage == "cut_short":
        npz.write_bytes(npz.read_bytes()[:100])
    elif damage == "empty":
        npz.write_bytes(b"")
    else:
        row.write_text(json.dumps({k: json.loads(row.read_text())[k] for k in pi.RUN_KEYS}))
    pi.run(cfg)
    assert "gat_region" in caplog.text and "its run is made again" in caplog.text
    assert json.loads((run_dir / "gat_mean.json").read_text())["micro_f1"] == before  # remade alike
    assert "val_micro_f1" in json.loads(row.read_text())


def test_a_run_file_with_only_its_names_is_redone_in_a_finished_folder(files, caplog):
    """A run file holding its run's names and no results counted as finished: its unit was skipped, and the
    summary read a row without scores. Now the resumed sweep redoes it, saying so."""
    cfg = config(files, splits="[random]", seeds="[0]", graphs="[train]", models="[gat_region]", epochs=4)
    pi.run(cfg)
    row = files / "out" / "runs" / "random" / "s0" / "train" / "gat_region.json"
    kept = json.loads(row.read_text())
    row.write_text(json.dumps({k: kept[k] for k in pi.RUN_KEYS}))
    caplog.clear()
    pi.run(cfg)
    assert f"1 damaged result file(s) will be redone (e.g. {row}: missing the keys val_micro_f1" in caplog.text
    assert json.loads(row.read_text())["micro_f1"] == kept["micro_f1"]
