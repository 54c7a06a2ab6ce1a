"""``gatbio datasets``."""

from __future__ import annotations

import pytest

from gatbio.cli import main


def test_datasets_lists_every_dataset_with_presence(data_root, capsys):
    assert main(["datasets", "--root", str(data_root)]) == 0
    out = capsys.readouterr().out
    for name in ("node2vec-ppi", "yeast-bu2003", "shs27k", "ppi-tissues", "gateway/<web>", "cheddar/<web>",
                 "pajek/<web>", "ppi-partial"):
        assert name in out
    ppi_row = next(ln for ln in out.splitlines() if ln.strip().startswith("ppi ") or ln.split()[:1] == ["ppi"])
    assert ppi_row.rstrip().endswith("no")  # the full benchmark is not in the shared folder
    assert "Grover & Leskovec (2016)" in out and "3,890" in out


def test_datasets_members_and_errors(capsys, tmp_path):
    assert main(["datasets", "--members", "gateway"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 57 and "gateway/AEW03_11" in out
    assert main(["datasets", "--members", "node2vec-ppi"]) == 1
    assert "unknown collection (--members) 'node2vec-ppi' (known: gateway, cheddar, pajek)" in capsys.readouterr().err
    assert main(["datasets", "--root", str(tmp_path)]) == 0
    assert " yes" not in capsys.readouterr().out


def test_datasets_download_offline_is_one_clear_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GATBIO_MIRROR", "http://127.0.0.1:9")
    assert main(["datasets", "--download", "string-web-sample", "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gatbio datasets: error: dataset 'string-web-sample': 1 file(s) missing")
    assert "put string_interactions.tsv at" in err


def test_datasets_verify_checks_sha256(data_root, tmp_path, capsys):
    import shutil

    assert main(["datasets", "--verify", "string-web-sample", "--root", str(data_root)]) == 0
    assert "string-web-sample: 1 ok" in capsys.readouterr().out
    copy = tmp_path / "string_web_export_sample"
    copy.mkdir()
    shutil.copy(data_root / "string_web_export_sample" / "string_interactions.tsv", copy)
    with open(copy / "string_interactions.tsv", "a") as fh:
        fh.write("X\tY\n")
    assert main(["datasets", "--verify", "string-web-sample", "--root", str(tmp_path)]) == 1
    assert "string_interactions.tsv: MISMATCH" in capsys.readouterr().out


@pytest.mark.parametrize("option,name,close", [
    ("--download", "nodevec-ppi", "node2vec-ppi"),
    ("--verify", "cheddr", "cheddar"),
    ("--members", "chedar", "cheddar"),
])
def test_unknown_names_are_one_line_with_close_matches(capsys, option, name, close):
    assert main(["datasets", option, name]) == 1
    err = capsys.readouterr().err
    assert f"'{name}'; did you mean {close}?" in err and err.count("\n") == 1


def test_a_root_that_is_not_a_folder_is_refused(tmp_path, capsys):
    from gatbio.cli import main

    (tmp_path / "f.txt").write_text("x\n")
    for root, what in ((tmp_path / "f.txt", "is a file, not a folder"), (tmp_path / "none", "no such folder")):
        assert main(["datasets", "--root", str(root)]) == 1
        assert f"--root {root}: {what}" in capsys.readouterr().err
