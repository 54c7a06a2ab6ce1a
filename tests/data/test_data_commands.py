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


@pytest.mark.parametrize("what,expected", [("file", "is a file, not a folder"), ("missing", "no such folder")])
@pytest.mark.parametrize("argv", [[], ["--verify"], ["--verify", "node2vec-ppi"]], ids=["list", "verify", "verify1"])
def test_a_bad_gatbio_data_is_refused_like_root(tmp_path, capsys, monkeypatch, what, expected, argv):
    # was: every dataset "N missing", exit status 0
    root = tmp_path / "root"
    if what == "file":
        root.write_text("x\n")
    monkeypatch.setenv("GATBIO_DATA", str(root))
    assert main(["datasets", *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"gatbio datasets: error: GATBIO_DATA={root}: {expected}") and err.count("\n") == 1


def test_verify_of_a_dataset_whose_files_are_missing_fails(tmp_path, capsys, monkeypatch):
    # was: "node2vec-ppi: 2 missing", exit status 0
    monkeypatch.setenv("GATBIO_DATA", str(tmp_path))
    assert main(["datasets", "--verify", "node2vec-ppi"]) == 1
    out, err = capsys.readouterr()
    assert "node2vec-ppi: 2 missing" in out
    assert f"node2vec-ppi: 2 of 2 file(s) missing under {tmp_path / 'ppi_node2vec_biogrid_human'}" in err
    assert "gatbio datasets --download node2vec-ppi" in err


def test_an_empty_root_is_said_to_hold_no_dataset(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GATBIO_DATA", str(tmp_path))
    for argv in ([], ["--verify"]):
        assert main(["datasets", *argv]) == 0
        assert f"note: GATBIO_DATA={tmp_path} holds none of the datasets' files" in capsys.readouterr().err


@pytest.mark.parametrize("via", ["--root", "GATBIO_DATA"])
def test_download_into_a_file_is_refused_before_any_download(server, tmp_path, capsys, monkeypatch, via):
    # was: the file downloaded, then "[Errno 20] Not a directory"
    base, www = server
    monkeypatch.setenv("GATBIO_MIRROR", base)  # serves nothing: a download would fail with "HTTP 404"
    afile = tmp_path / "afile"
    afile.write_text("x\n")
    argv = ["datasets", "--download", "string-web-sample"]
    if via == "--root":
        argv += ["--root", str(afile)]
    else:
        monkeypatch.setenv("GATBIO_DATA", str(afile))
    assert main(argv) == 1
    err = capsys.readouterr().err
    label = f"--root {afile}" if via == "--root" else f"GATBIO_DATA={afile}"
    assert err == f"gatbio datasets: error: {label}: is a file, not a folder (the data root: a folder holding one " \
                  "folder per dataset)\n"


def test_download_from_a_plain_folder_mirror(data_root, tmp_path, capsys, monkeypatch):
    # was: "unknown url type: '/tmp/mirror/raw.githubusercontent.com/...'"
    from gatbio.data.sources import DATASETS

    f = DATASETS["string-web-sample"].files[0]
    mirror = tmp_path / "mirror"
    dest = mirror / f.url.split("://", 1)[1]
    dest.parent.mkdir(parents=True)
    dest.write_bytes((data_root / "string_web_export_sample" / f.path).read_bytes())
    monkeypatch.setenv("GATBIO_MIRROR", str(mirror))
    assert main(["datasets", "--download", "string-web-sample", "--root", str(tmp_path / "data")]) == 0
    assert "string-web-sample: 1 file(s) written" in capsys.readouterr().out


def test_two_actions_at_once_are_refused_not_one_dropped(capsys):
    """`--verify X --download X` only verified, `--verify --members gateway` ignored --members (exit 0)."""
    assert main(["datasets", "--verify", "gateway", "--members", "gateway"]) == 2
    assert "--verify and --members: give one of them per command" in capsys.readouterr().err
    assert main(["datasets", "--verify", "fake", "--download", "fake"]) == 2


def test_one_web_of_a_collection_downloads_alone(data_root, tmp_path, capsys, monkeypatch):
    """`download("pajek/baydry")` was 'unknown dataset', and the hint after a missing web named the whole
    collection (19 webs; gateway's 57): a member, named as load names it, fetches its own files."""
    from gatbio.data.sources import DATASETS, member_files

    assert member_files("pajek/baydry") == ["baydry.paj"]
    assert member_files("gateway/11")[-2:] == ["webs/AEW03_11/11_edge_list.txt", "webs/AEW03_11/11_node_attr_list.txt"]
    f = next(f for f in DATASETS["pajek"].files if f.path == "baydry.paj")
    mirror = tmp_path / "mirror"
    dest = mirror / f.url.split("://", 1)[1]
    dest.parent.mkdir(parents=True)
    dest.write_bytes((data_root / "foodwebs_ulanowicz_pajek" / f.path).read_bytes())
    monkeypatch.setenv("GATBIO_MIRROR", str(mirror))  # only baydry.paj is there: another file would fail
    assert main(["datasets", "--download", "pajek/baydry", "--root", str(tmp_path / "data")]) == 0
    assert "1 file(s) written" in capsys.readouterr().out
    assert [p.name for p in (tmp_path / "data").rglob("*.paj")] == ["baydry.paj"]
    assert main(["datasets", "--download", "pajek/bay", "--root", str(tmp_path / "data")]) == 1
    assert "unknown Pajek food web 'pajek/bay'; did you mean" in capsys.readouterr().err  # load's words


def _gateway_web_11(data_root, root, index: bool = False):
    """gateway/11's own files under ``root`` (copied from the shipped data), and with ``index`` the collection's
    index tables, which have no public URL."""
    import shutil

    from gatbio.data.sources import DATASETS, member_files

    paths = member_files("gateway/11") if index else member_files("gateway/11", shared=False)
    for p in paths:
        (root / "gateway_dev" / p).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(data_root / "gateway_dev" / p, root / "gateway_dev" / p)
    assert DATASETS["gateway"].folder == "gateway_dev"


def test_verify_says_that_files_without_a_public_url_are_placed_by_hand(data_root, tmp_path, capsys):
    """`--verify gateway/11` after `--download gateway/11` (exit 0) said "gatbio datasets --download gateway/11
    fetches those with a public URL", of the three index tables that have none: the download it names fetches
    nothing. Missing files that can be fetched name the command, with --root when it was given."""
    _gateway_web_11(data_root, tmp_path)
    assert main(["datasets", "--verify", "Gateway/11", "--root", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert out == "gateway/11: 2 ok, 3 missing\n"
    assert err == (f"gateway/11: 3 of 5 file(s) missing under {tmp_path / 'gateway_dev'} (food_web_metadata.csv, "
                   "node_ids.csv, web_index.csv: no public URL; place them by hand, datasets/gateway.md says where "
                   "they come from)\n")
    assert main(["datasets", "--verify", "gateway", "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert (f"gatbio datasets --download gateway --root {tmp_path} fetches the 112 with a public URL; "
            "food_web_metadata.csv, node_ids.csv, web_index.csv: no public URL; place them by hand") in err
    assert main(["datasets", "--verify", "pajek/BayDry", "--root", str(tmp_path)]) == 1  # was: no --root
    assert f"(gatbio datasets --download pajek/baydry --root {tmp_path} fetches them)\n" in capsys.readouterr().err


def test_a_damaged_file_without_a_public_url_is_not_to_be_deleted_and_downloaded(data_root, tmp_path, capsys):
    """`--download gateway/11` with a damaged web_index.csv said "delete them and run --download again": deleted, a
    file without a public URL is gone (the download cannot bring it back)."""
    _gateway_web_11(data_root, tmp_path, index=True)
    with open(tmp_path / "gateway_dev" / "web_index.csv", "a") as fh:
        fh.write("x\n")
    assert main(["datasets", "--download", "gateway/11", "--root", str(tmp_path)]) == 1  # nothing to fetch
    err = capsys.readouterr().err
    assert err == (f"gateway/11: 1 present file(s) differ from the registry's sha256 (e.g. "
                   f"{tmp_path / 'gateway_dev' / 'web_index.csv'}): copy web_index.csv again from its source (no "
                   "public URL: datasets/gateway.md says where it comes from)\n")
    with open(tmp_path / "gateway_dev" / "webs" / "AEW03_11" / "11_edge_list.txt", "a") as fh:
        fh.write("0 0\n")
    assert main(["datasets", "--download", "gateway/11", "--root", str(tmp_path)]) == 1
    assert ": delete the others and run --download again; copy web_index.csv again from its source" in \
        capsys.readouterr().err
