"""``python -m gatbio.demo`` ends as a ``gatbio`` command does: one line for an error, ``interrupted`` on Ctrl-C."""

from __future__ import annotations

import pytest

from gatbio import demo


def test_ctrl_c_says_interrupted_without_a_traceback(tmp_path, monkeypatch, capsys):
    # was: a 40-line KeyboardInterrupt traceback
    def interrupted(**kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(demo, "layer_demo", interrupted)
    try:
        rc = demo.main([str(tmp_path / "out"), "--device", "cpu"])
    except KeyboardInterrupt:  # caught here, so that the test fails instead of stopping pytest
        pytest.fail("KeyboardInterrupt escaped python -m gatbio.demo (a traceback for the user)")
    assert rc == 130
    assert capsys.readouterr().err.endswith("interrupted\n")


@pytest.mark.parametrize("what", ["missing", "empty"])
def test_a_data_root_without_the_data_is_an_error_not_a_traceback(tmp_path, monkeypatch, capsys, what):
    # was: a traceback ending in DatasetNotFoundError
    root = tmp_path / "data"
    if what == "empty":
        root.mkdir()
    monkeypatch.setenv("GATBIO_DATA", str(root))
    assert demo.main([str(tmp_path / "out"), "--device", "cpu"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if what == "missing":  # found before any work
        assert err == (f"python -m gatbio.demo: error: GATBIO_DATA={root}: no such folder (the data root: a folder "
                       "holding one folder per dataset; gatbio datasets --download NAME creates it)\n")
        assert not (tmp_path / "out").exists()
    else:  # every dataset the demo reads, named at once before any work (was: yeast-bu2003 only, after the banner)
        assert err.startswith(f"python -m gatbio.demo: error: the demo reads 5 dataset(s) not found under "
                              f"GATBIO_DATA={root}:\n  yeast-bu2003: 4 file(s) missing; "
                              "gatbio datasets --download yeast-bu2003\n")
        for line in ("  node2vec-ppi: 2 file(s) missing; gatbio datasets --download node2vec-ppi\n",
                     "  gateway/Mosendale Beck_125: 2 file(s) missing; gatbio datasets --download "
                     "'gateway/Mosendale Beck_125'\n",
                     # was: 3 file(s) have no public URL: the demo could not be completed from downloads
                     "  cheddar/Benguela: 3 file(s) missing; gatbio datasets --download cheddar/Benguela\n"):
            assert line in err
        assert err.endswith("or set GATBIO_DATA to a folder that has them\n")
        assert "== gatbio demo ==" not in capsys.readouterr().out and not (tmp_path / "out").exists()


def test_the_demo_data_check_names_only_what_is_missing(tmp_path, data_root):
    """A root holding all but one web: that web alone is named; a root with everything passes."""
    import shutil

    from gatbio.data.sources import DATASETS

    for name, paths in demo.demo_data():
        info = DATASETS[name.split("/", 1)[0]]
        for p in paths:
            (tmp_path / info.folder / p).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(data_root / info.folder / p, tmp_path / info.folder / p)
    demo.check_demo_data(tmp_path)
    (tmp_path / "gateway_dev" / "webs" / "PP2I4_250" / "250_edge_list.txt").unlink()
    with pytest.raises(FileNotFoundError) as err:
        demo.check_demo_data(tmp_path)
    assert str(err.value).splitlines()[1:3] == [
        "  gateway/PP2I4_250: 1 file(s) missing; gatbio datasets --download gateway/PP2I4_250",
        "or give a data root that has them"]


def test_a_bug_keeps_its_traceback(tmp_path, monkeypatch):
    def bug(**kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(demo, "layer_demo", bug)
    with pytest.raises(KeyError):
        demo.main([str(tmp_path / "out"), "--device", "cpu"])


def test_every_file_the_demo_reads_can_be_downloaded(tmp_path, data_root, server):
    """From an empty data root, the download commands the demo's check names fill it: every file the demo reads
    has a public URL (was: cheddar/Benguela, read by the robustness section, had none) that downloads over HTTP
    (was: gateway/Mosendale Beck_125, a space in its URL). The URLs are served by a loopback server from a mirror
    made of the shipped files (ZIP members zipped again, cheddar's CSV files through their RData)."""
    import shutil
    import zipfile

    from gatbio.data.sources import DATASETS, download

    base, mirror = server
    root = tmp_path / "data"
    for name, paths in demo.demo_data():
        info = DATASETS[name.split("/", 1)[0]]
        by_path = {f.path: f for f in info.files}
        for p in paths:
            f = by_path[p]
            assert f.url is not None, f"{name}: {p} has no public URL"
            source = by_path[f.derived_from] if f.derived_from else f
            dst = mirror / f.url.split("://", 1)[1]
            dst.parent.mkdir(parents=True, exist_ok=True)
            if f.member:  # the URL is a ZIP archive: add the member
                with zipfile.ZipFile(dst, "a") as z:
                    if f.member not in z.namelist():
                        z.write(data_root / info.folder / f.path, f.member)
            else:
                shutil.copy(data_root / info.folder / source.path, dst)
    root.mkdir()
    with pytest.raises(FileNotFoundError):
        demo.check_demo_data(root)
    for name, _ in demo.demo_data():
        download(name, root=root, mirror=base, progress=False)
    demo.check_demo_data(root)  # nothing missing
