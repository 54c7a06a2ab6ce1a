"""cheddar's CSV files made from the package's RData files (gatbio.data.cheddar), and their download.

Before, only the RData files had a URL: `gatbio datasets --download cheddar/Benguela` wrote nothing and exited 1,
so `make demo` (whose robustness part reads cheddar/Benguela) could not be completed from downloads. The
downloads are tested against a loopback HTTP server or a mirror folder (no test reaches the internet).
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

import pytest

from gatbio.cli import main
from gatbio.data import sources
from gatbio.data._checksums import CHECKSUMS
from gatbio.data.sources import DATASETS, DatasetNotFoundError, download

CHEDDAR = DATASETS["cheddar"]
CSVS = sorted(p for p in CHECKSUMS["foodwebs_cheddar"] if p.endswith(".csv"))
BENGUELA = ["Benguela/nodes.csv", "Benguela/properties.csv", "Benguela/trophic.links.csv"]


def _file(path: str):
    return next(f for f in CHEDDAR.files if f.path == path)


def _serve(www: Path, path: str, payload: bytes) -> None:
    """Put ``payload`` where the loopback server (or a mirror folder) serves registry file ``path``'s URL."""
    dest = www / _file(path).url.split("://", 1)[1]
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(payload)


def _rdata(data_root: Path, name: str) -> bytes:
    return (data_root / "foodwebs_cheddar" / "original_RData" / f"{name}.RData").read_bytes()


def test_the_conversion_reproduces_every_shipped_csv_byte_for_byte(data_root):
    """All 57 CSV files come out of the 9 RData files with the registered sha256 (number formats, NA, line ends,
    pHWebs folder names), and nothing else does."""
    from gatbio.data.cheddar import convert_rdata

    made: dict[str, str] = {}
    for name in sorted({p.split("/")[0] for p in CSVS}):
        for path, payload in convert_rdata(_rdata(data_root, name)).items():
            assert path.startswith(name + "/")
            made[path] = hashlib.sha256(payload).hexdigest()
    assert sorted(made) == CSVS and len(CSVS) == 57
    assert {p: made[p] for p in CSVS} == {p: CHECKSUMS["foodwebs_cheddar"][p] for p in CSVS}


def test_every_csv_is_registered_as_converted_from_its_rdata():
    for path in CSVS:
        f = _file(path)
        src = _file(f"original_RData/{path.split('/')[0]}.RData")
        assert f.derived_from == src.path and f.url == src.url and f.sha256 is not None
    assert all(f.url is not None for f in CHEDDAR.files)  # nothing left to place by hand


def test_one_web_downloads_from_the_rdata_and_loads(server, data_root, tmp_path):
    base, www = server
    _serve(www, "original_RData/Benguela.RData", _rdata(data_root, "Benguela"))
    root = tmp_path / "data"
    written = download("cheddar/benguela", root=root, mirror=base)  # load's case rule
    assert written == [root / "foodwebs_cheddar" / p for p in BENGUELA]
    for p in BENGUELA:  # the shipped bytes
        assert (root / "foodwebs_cheddar" / p).read_bytes() == (data_root / "foodwebs_cheddar" / p).read_bytes()
    assert not (root / "foodwebs_cheddar" / "original_RData").exists()  # a web's files only
    assert not list(root.rglob("*.tmp*"))
    from gatbio.data import load

    web = load("cheddar/Benguela", root=root)
    assert (web.num_nodes, web.edge_index.size(1)) == (29, 203)
    assert download("cheddar/Benguela", root=root, mirror=base) == []  # present: nothing again


def test_the_command_downloads_a_collection_web_and_the_whole_dataset(data_root, tmp_path, capsys, monkeypatch):
    """`gatbio datasets --download cheddar/pHWebs/Allt_a_Mharcaidh` (a folder name made from "Allt a'Mharcaidh"),
    then `--download cheddar`: each RData is fetched once, all 66 files verify."""
    mirror = tmp_path / "mirror"
    names = sorted({p.split("/")[0] for p in CSVS})
    for name in names:
        _serve(mirror, f"original_RData/{name}.RData", _rdata(data_root, name))
    monkeypatch.setenv("GATBIO_MIRROR", str(mirror))
    root = tmp_path / "data"
    assert main(["datasets", "--download", "cheddar/pHWebs/Allt_a_Mharcaidh", "--root", str(root)]) == 0
    assert "cheddar/pHWebs/Allt_a_Mharcaidh: 3 file(s) written" in capsys.readouterr().out
    props = (root / "foodwebs_cheddar" / "pHWebs" / "Allt_a_Mharcaidh" / "properties.csv").read_text()
    assert props.splitlines()[1].startswith("Allt a'Mharcaidh,")
    fetched = []
    real = sources.fetch_url
    monkeypatch.setattr(sources, "fetch_url", lambda url, **kw: fetched.append(url) or real(url, **kw))
    assert main(["datasets", "--download", "cheddar", "--root", str(root)]) == 0
    assert f"cheddar: {len(CHEDDAR.files) - 3} file(s) written" in capsys.readouterr().out
    assert sorted(u.rsplit("/", 1)[1] for u in fetched) == sorted(f"{n}.RData" for n in names)  # once each
    assert main(["datasets", "--verify", "cheddar", "--root", str(root)]) == 0
    assert capsys.readouterr().out == "cheddar: 66 ok\n"


def test_a_corrupted_rdata_is_refused_naming_the_file(server, data_root, tmp_path):
    base, www = server
    good = _rdata(data_root, "Benguela")
    _serve(www, "original_RData/Benguela.RData", good[:-100] + b"\0" * 100)
    root = tmp_path / "data"
    with pytest.raises(ValueError, match=r"Benguela\.RData\): sha256 mismatch for original_RData/Benguela\.RData: "
                                         r"expected 31173b7d.*the file was not written \(nor the files converted"):
        download("cheddar/Benguela", root=root, mirror=base)
    assert not (root / "foodwebs_cheddar" / "Benguela").exists()
    # one already in the data folder, damaged: refused before anything is fetched, naming it
    local = root / "foodwebs_cheddar" / "original_RData" / "Benguela.RData"
    local.parent.mkdir(parents=True)
    local.write_bytes(good[:-1])

    def no_fetch(url):
        raise AssertionError(f"fetched {url}")

    with pytest.raises(ValueError, match=rf"^{local}: differs from the registered file \(sha256 mismatch\)"):
        download("cheddar/Benguela", root=root, fetch=no_fetch)
    local.write_bytes(good)  # intact: used, nothing fetched
    assert len(download("cheddar/Benguela", root=root, fetch=no_fetch)) == 3


def test_a_conversion_that_differs_from_the_registered_csv_is_not_written(server, data_root, tmp_path, monkeypatch):
    """Another rdata reading a value otherwise (or a registry entry off): nothing but the shipped bytes."""
    base, www = server
    _serve(www, "original_RData/Benguela.RData", _rdata(data_root, "Benguela"))
    from gatbio.data import cheddar

    real = cheddar.convert_rdata

    def off(data):
        out = real(data)
        out["Benguela/nodes.csv"] = out["Benguela/nodes.csv"].replace(b"1e-07", b"1.0e-07")
        return out

    monkeypatch.setattr(cheddar, "convert_rdata", off)
    root = tmp_path / "data"
    with pytest.raises(ValueError, match=r"^Benguela/nodes\.csv, converted from original_RData/Benguela\.RData: "
                                         r"sha256 mismatch: expected de2b689d.*\(rdata 1\.\d.*the file was not written"):
        download("cheddar/Benguela", root=root, mirror=base)
    assert not (root / "foodwebs_cheddar" / "Benguela" / "nodes.csv").exists()


def test_without_rdata_the_download_says_what_to_install_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "rdata", None)  # `import rdata` raises ImportError

    def no_fetch(url):
        raise AssertionError(f"fetched {url}")

    with pytest.raises(DatasetNotFoundError, match=r"pip install 'gatbio\[cheddar\]'"):
        download("cheddar/Benguela", root=tmp_path / "data", fetch=no_fetch)  # before anything is fetched
    monkeypatch.setenv("GATBIO_MIRROR", str(tmp_path))  # serves nothing
    assert main(["datasets", "--download", "cheddar/Benguela", "--root", str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err
    assert err == ("gatbio datasets: error: dataset 'cheddar': making Benguela/nodes.csv, Benguela/properties.csv, "
                   "Benguela/trophic.links.csv from original_RData/Benguela.RData needs the Python package rdata, "
                   "which is not installed: pip install 'gatbio[cheddar]'\n")
    assert not (tmp_path / "data" / "foodwebs_cheddar").exists()


def test_the_demo_check_suggests_the_download_and_the_install(tmp_path, monkeypatch):
    from gatbio import demo

    with pytest.raises(DatasetNotFoundError) as err:
        demo.check_demo_data(tmp_path)
    assert "  cheddar/Benguela: 3 file(s) missing; gatbio datasets --download cheddar/Benguela\n" in str(err.value)
    monkeypatch.setitem(sys.modules, "rdata", None)
    with pytest.raises(DatasetNotFoundError) as err:
        demo.check_demo_data(tmp_path)
    assert ("  cheddar/Benguela: 3 file(s) missing; gatbio datasets --download cheddar/Benguela (converts the "
            "package's RData files: pip install 'gatbio[cheddar]' first)\n") in str(err.value)


def test_one_gateway_web_downloads_with_a_note_about_the_index_files(data_root, tmp_path, capsys, monkeypatch):
    """Was: the web's files written, then exit 1 because the collection's index tables have no public URL."""
    from gatbio.data.sources import dataset_files, member_files

    name, paths = dataset_files("gateway/11")
    own = member_files("gateway/11", shared=False)
    assert name == "gateway" and own == ["webs/AEW03_11/11_edge_list.txt", "webs/AEW03_11/11_node_attr_list.txt"]
    assert sorted(set(paths) - set(own)) == ["food_web_metadata.csv", "node_ids.csv", "web_index.csv"]
    mirror = tmp_path / "mirror"
    for f in DATASETS["gateway"].files:
        if f.path in own:
            dest = mirror / f.url.split("://", 1)[1]
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(data_root / "gateway_dev" / f.path, dest)
    monkeypatch.setenv("GATBIO_MIRROR", str(mirror))
    root = tmp_path / "data"
    assert main(["datasets", "--download", "gateway/11", "--root", str(root)]) == 0
    out, err = capsys.readouterr()
    assert "gateway/11: 2 file(s) written" in out
    assert err == (f"note: gateway/11: the collection's index files food_web_metadata.csv, node_ids.csv, "
                   "web_index.csv have no public URL and are not there: the food-web benchmark reads the web's "
                   "folder alone, gatbio.data.load('gateway/11') needs the index; place them by hand under "
                   f"{root / 'gateway_dev'} if you want it (datasets/gateway.md)\n")
    assert sorted(p.name for p in root.rglob("*") if p.is_file()) == ["11_edge_list.txt", "11_node_attr_list.txt"]
    assert download("gateway/11", root=root) == []  # in Python too: no error for the collection's index
    # the whole collection still names the files to place by hand (exit 1)
    with pytest.raises(DatasetNotFoundError, match=r"3 file\(s\) missing .*\(no public URL\)"):
        download("gateway", root=root, files=["web_index.csv", "node_ids.csv", "food_web_metadata.csv"])
