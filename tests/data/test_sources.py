"""Data root lookup and the download path, tested against a loopback HTTP server."""

from __future__ import annotations

import hashlib
import http.client
import http.server
import io
import threading
import urllib.error
import zipfile
from pathlib import Path

import pytest

from gatbio.data import sources
from gatbio.data.sources import DATASETS, DatasetInfo, DatasetNotFoundError, FileSource, data_root, download


def serve(www: Path, url: str, payload: bytes) -> None:
    p = www / url.split("://", 1)[1]
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(payload)


@pytest.fixture
def fake_dataset(make_fake_dataset):
    return make_fake_dataset(FileSource("notes.txt", None, None))


def test_data_root_lookup_order(monkeypatch, tmp_path):
    monkeypatch.setenv("GATBIO_DATA", str(tmp_path))
    assert data_root() == tmp_path
    monkeypatch.delenv("GATBIO_DATA")
    root = data_root()
    assert root.name in ("data", "gatbio")  # ../shared/data when present, else ~/.cache/gatbio
    monkeypatch.setattr(sources, "_REPO", tmp_path / "repo")
    monkeypatch.chdir(tmp_path)
    assert data_root() == Path.home() / ".cache" / "gatbio"


def test_download_writes_file_with_checked_sha256(server, tmp_path, fake_dataset):
    base, www = server
    info, payload = fake_dataset
    serve(www, info.files[0].url, payload)
    written = download("fake", root=tmp_path / "data", mirror=base, files=["edges.txt"])
    assert written == [tmp_path / "data" / "fake_folder" / "edges.txt"]
    assert written[0].read_bytes() == payload
    # already present: nothing fetched again
    assert download("fake", root=tmp_path / "data", mirror=base, files=["edges.txt"]) == []


def test_download_rejects_a_wrong_sha256_and_writes_nothing(server, tmp_path, fake_dataset):
    base, www = server
    info, _ = fake_dataset
    serve(www, info.files[0].url, b"tampered\n")
    with pytest.raises(ValueError, match=rf"^{base}/example\.org/repo/abc/edges\.txt \(through the mirror, for "
                                         r"https://example\.org/repo/abc/edges\.txt\): sha256 mismatch for edges.txt"
                                         r".*the file was not written"):
        download("fake", root=tmp_path / "data", mirror=base, files=["edges.txt"])
    assert not (tmp_path / "data" / "fake_folder").exists() or not any((tmp_path / "data" / "fake_folder").iterdir())


def test_offline_gives_one_message_naming_file_and_place(tmp_path, fake_dataset):
    dead = "http://127.0.0.1:9"  # discard port: connection refused
    with pytest.raises(DatasetNotFoundError) as err:
        download("fake", root=tmp_path, mirror=dead, files=["edges.txt"])
    msg = str(err.value)
    assert "dataset 'fake': 1 file(s) missing" in msg and "download failed" in msg
    assert f"put edges.txt at {tmp_path / 'fake_folder' / 'edges.txt'}" in msg
    assert "from https://example.org/repo/abc/edges.txt" in msg
    with pytest.raises(DatasetNotFoundError, match=r"put notes.txt at .*no public URL: place it by hand"):
        download("fake", root=tmp_path, mirror=dead)


def test_zip_member_download_for_yeast(server, tmp_path, data_root):
    base, www = server
    info = DATASETS["yeast-bu2003"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for f in info.files:
            zf.writestr(f.member, (data_root / info.folder / f.path).read_bytes())
    serve(www, info.files[0].url, buf.getvalue())
    written = download("yeast-bu2003", root=tmp_path, mirror=base)
    assert sorted(p.name for p in written) == ["Yeast.clu", "Yeast.paj", "YeastL.net", "YeastS.net"]
    from gatbio.data import load

    assert load("yeast-bu2003", root=tmp_path).num_nodes == 2361


def test_registry_urls_point_at_pinned_commits():
    for info in DATASETS.values():
        for f in info.files:
            if f.url is None:
                continue
            assert f.url.startswith(("https://raw.githubusercontent.com/", "https://data.pyg.org/"))
            if "githubusercontent" in f.url:
                commit = f.url.split("/")[5]
                assert len(commit) == 40, f.url
            if f.sha256 is None:
                assert f.url == sources.PPI_ZIP_URL  # the only file without a published checksum


class _BrokenReplies(http.server.BaseHTTPRequestHandler):
    """Replies that go wrong on the wire: ``/short/...`` announces 100,000 bytes and sends 40, then closes;
    ``/garbled/...`` answers with no HTTP status line."""

    def do_GET(self):
        if self.path.startswith("/short/"):
            self.send_response(200)
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(b"1 2\n" * 10)
        else:
            self.wfile.write(b"garbage\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, *args, **kwargs):
        pass


@pytest.fixture
def broken_server():
    """A loopback HTTP server whose replies are cut short or garbled; yields its base URL."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _BrokenReplies)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_fetch_url_of_a_reply_cut_short_says_incomplete(broken_server):
    url = broken_server + "/short/edges.txt"
    with pytest.raises(urllib.error.URLError, match=rf"download incomplete: {url} sent 40 of 100,000 bytes"):
        sources.fetch_url(url, timeout=10)


@pytest.mark.parametrize("kind, reason", [("short", "download incomplete: {url} sent 40 of 100,000 bytes"),
                                          ("garbled", "download failed: {url}: ")], ids=["short", "garbled"])
def test_download_cut_short_gives_one_message_and_writes_nothing(broken_server, tmp_path, fake_dataset, kind,
                                                                 reason):
    # was a traceback ending in http.client.IncompleteRead / BadStatusLine (not caught by download)
    mirror = f"{broken_server}/{kind}"
    url = f"{mirror}/example.org/repo/abc/edges.txt"
    with pytest.raises(DatasetNotFoundError) as err:
        download("fake", root=tmp_path / "data", mirror=mirror, files=["edges.txt"])
    msg = str(err.value)
    assert msg.startswith("dataset 'fake': 1 file(s) missing") and reason.format(url=url) in msg
    assert f"put edges.txt at {tmp_path / 'data' / 'fake_folder' / 'edges.txt'}" in msg
    folder = tmp_path / "data" / "fake_folder"
    assert not folder.exists() or not any(folder.iterdir())  # no partial file, no temp file


def test_download_catches_transport_errors_of_any_fetch(tmp_path, fake_dataset):
    def cut_short(url):
        raise http.client.IncompleteRead(b"12345", 10)

    with pytest.raises(DatasetNotFoundError, match=r"download incomplete: https://example.org/repo/abc/edges.txt "
                                                   r"sent 5 of 15 bytes"):
        download("fake", root=tmp_path, fetch=cut_short, files=["edges.txt"])
    assert not (tmp_path / "fake_folder").exists()


def test_a_failed_archive_names_every_file_not_written(tmp_path):
    """The yeast archive unreachable: all four of its files are missing, and the message says so."""
    dead = "http://127.0.0.1:9"
    with pytest.raises(DatasetNotFoundError, match=r"dataset 'yeast-bu2003': 4 file\(s\) missing"):
        download("yeast-bu2003", root=tmp_path, mirror=dead)


def test_download_command_says_when_a_present_file_is_damaged(server, tmp_path, fake_dataset, capsys):
    """Present files are skipped: a damaged one is named, with the fix, and the command fails."""
    from gatbio.cli import main

    base, www = server
    info, payload = fake_dataset
    serve(www, info.files[0].url, payload)
    folder = tmp_path / "data" / "fake_folder"
    folder.mkdir(parents=True)
    (folder / "edges.txt").write_bytes(b"damaged\n")
    (folder / "notes.txt").write_text("by hand\n")
    assert main(["datasets", "--download", "fake", "--root", str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err
    assert "fake: 1 present file(s) differ from the registry's sha256" in err and "delete them and run --download " \
        "again" in err


# --- the data root, the mirror and the files checked before use ---------------------------------------------------

def _copy_dataset(data_root: Path, dest: Path, name: str) -> Path:
    """A writable copy of one registered dataset's folder under ``dest`` (a data root of its own)."""
    import shutil

    folder = DATASETS[name].folder
    shutil.copytree(data_root / folder, dest / folder)
    for p in (dest / folder).rglob("*"):
        p.chmod(0o644 if p.is_file() else 0o755)
    (dest / folder).chmod(0o755)
    return dest / folder


@pytest.mark.parametrize("what", ["file", "missing"])
def test_a_bad_gatbio_data_is_named_when_loading(tmp_path, monkeypatch, what):
    # was: "put node2vec_PPI.edgelist at <file>/ppi_node2vec_biogrid_human/..." (impossible under a file)
    from gatbio.data import load

    root = tmp_path / "root"
    if what == "file":
        root.write_text("not a folder\n")
    monkeypatch.setenv("GATBIO_DATA", str(root))
    expected = "is a file, not a folder" if what == "file" else "no such folder"
    with pytest.raises(sources.DataRootError, match=rf"^GATBIO_DATA={root}: {expected} \(the data root"):
        load("string-web-sample")


def test_a_registered_file_cut_mid_line_is_refused_at_load(data_root, tmp_path):
    # was: loaded silently, with a bogus last edge
    from gatbio.data import load

    folder = _copy_dataset(data_root, tmp_path, "node2vec-ppi")
    edges = folder / "node2vec_PPI.edgelist"
    edges.write_bytes(edges.read_bytes()[:1000] + b"12")  # a line cut in the middle
    with pytest.raises(sources.DatasetIntegrityError) as err:
        load("node2vec-ppi", root=tmp_path)
    msg = str(err.value)
    assert f"dataset 'node2vec-ppi': {edges} has 1,002 bytes, the registered file 1,413,096 (cut short" in msg
    assert "gatbio datasets --verify node2vec-ppi" in msg and "--download node2vec-ppi" in msg
    assert "\n" not in msg


def test_a_damaged_file_without_public_url_is_not_sent_to_download(data_root, tmp_path):
    """A file without a public URL (GATEWAy's index tables; cheddar's CSV files were, before they were converted
    from the package's RData): the fix said was `gatbio datasets --download`, which then fails."""
    folder = _copy_dataset(data_root, tmp_path, "gateway")
    index = folder / "web_index.csv"
    index.write_bytes(index.read_bytes() + b"x\n")
    with pytest.raises(sources.DatasetIntegrityError) as err:
        sources.require_files("gateway", ["web_index.csv"], root=tmp_path)
    assert "--download" not in str(err.value) and "no public URL to download it from" in str(err.value)
    index.unlink()
    with pytest.raises(sources.DatasetNotFoundError) as err:
        sources.require_files("gateway", ["web_index.csv"], root=tmp_path)
    assert "(no public URL: place it by hand)" in str(err.value) and "gatbio.data.download" not in str(err.value)


def test_a_registered_file_altered_in_place_is_refused_and_an_intact_copy_loads(data_root, tmp_path):
    from gatbio.data import load

    folder = _copy_dataset(data_root, tmp_path, "string-web-sample")
    assert load("string-web-sample", root=tmp_path).num_nodes == 12  # an intact copy loads
    p = folder / "string_interactions.tsv"
    text = p.read_bytes()
    i = text.index(b"0.9")
    p.write_bytes(text[:i] + b"0.1" + text[i + 3:])  # same size, one score changed
    with pytest.raises(sources.DatasetIntegrityError, match=r"string_interactions\.tsv differs from the registered "
                                                             r"file \(sha256 mismatch"):
        sources.require_files("string-web-sample", ["string_interactions.tsv"], root=tmp_path)


def test_the_load_check_skips_files_the_registry_has_no_size_for(tmp_path, fake_dataset):
    """Datasets registered without sizes (a user's, a test's, the PPI benchmark) are not checked."""
    folder = tmp_path / "fake_folder"
    folder.mkdir()
    (folder / "edges.txt").write_text("anything else\n")
    assert sources.require_files("fake", ["edges.txt"], root=tmp_path) == folder
    assert all(f.size is None for f in DATASETS["ppi"].files)
    sized = [f for n, i in DATASETS.items() if n not in ("ppi", "fake") for f in i.files]
    assert sized and all(f.size is not None and f.size > 0 for f in sized)


def test_registry_sizes_match_the_shared_data(data_root):
    for info in DATASETS.values():
        for f in info.files:
            p = data_root / info.folder / f.path
            if f.size is not None and p.is_file():
                assert p.stat().st_size == f.size, p


def test_a_plain_folder_is_a_file_mirror(tmp_path, fake_dataset):
    # was: "unknown url type: '/tmp/mirror/example.org/...'"
    info, payload = fake_dataset
    mirror = tmp_path / "mirror"
    serve(mirror, info.files[0].url, payload)
    written = download("fake", root=tmp_path / "data", mirror=str(mirror), files=["edges.txt"])
    assert written[0].read_bytes() == payload
    assert sources.mirrored(info.files[0].url, str(mirror)) == mirror.as_uri() + "/example.org/repo/abc/edges.txt"


def test_a_mirror_that_is_neither_url_nor_folder_is_one_line(tmp_path, monkeypatch, fake_dataset):
    monkeypatch.setenv("GATBIO_MIRROR", str(tmp_path / "nope"))
    with pytest.raises(ValueError, match=rf"^GATBIO_MIRROR={tmp_path / 'nope'}: is not a URL nor an existing folder; "
                                         r"give a URL such as http://host:8000 or file:///path/to/mirror"):
        download("fake", root=tmp_path / "data", files=["edges.txt"])
    assert not (tmp_path / "data").exists()


def test_download_into_a_root_that_is_a_file_fails_before_fetching(tmp_path, fake_dataset):
    # was: downloaded, then "[Errno 20] Not a directory"
    fetched = []
    (tmp_path / "afile").write_text("x\n")
    with pytest.raises(sources.DataRootError, match=rf"^data root {tmp_path / 'afile'}: is a file, not a folder"):
        download("fake", root=tmp_path / "afile", files=["edges.txt"], fetch=fetched.append)
    assert fetched == []


def test_download_into_a_root_it_cannot_write_fails_before_fetching(tmp_path, monkeypatch, fake_dataset):
    # was: downloaded, then "[Errno 13] Permission denied" (the superuser passes permission bits: the probe file
    # is refused here as a read-only file system would refuse it)
    import tempfile

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    fetched = []
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    monkeypatch.setenv("GATBIO_DATA", str(tmp_path))
    with pytest.raises(sources.DataRootError, match=rf"^GATBIO_DATA={tmp_path}: cannot write in {tmp_path} "
                                                    r"\(Permission denied\)"):
        download("fake", files=["edges.txt"], fetch=fetched.append)
    assert fetched == []


def test_something_in_the_way_of_a_file_is_named_before_fetching(tmp_path, fake_dataset):
    """A folder where a dataset file should be was 'missing' ('put edges.txt at ...'), then the download failed on
    an internal temporary file ('[Errno 21] Is a directory: .../.edges.txt.64wjl8_o.tmp'); a file where the
    dataset's folder should be, with '[Errno 17] File exists'."""
    fetched = []
    root = tmp_path / "data"
    (root / "fake_folder" / "edges.txt").mkdir(parents=True)
    with pytest.raises(ValueError, match=r"cannot write 1 file\(s\): .*edges\.txt is a folder, not the file: "
                                         r"remove it"):
        download("fake", root=root, files=["edges.txt"], fetch=fetched.append)
    assert fetched == []
    msg = sources.missing_message("fake", [fake_dataset[0].files[0]], root)
    assert "edges.txt is a folder, not the file: remove it" in msg
    other = tmp_path / "other"
    other.mkdir()
    (other / "fake_folder").write_text("x\n")
    with pytest.raises(ValueError, match=r"fake_folder is a file where a folder should be: remove or rename it"):
        download("fake", root=other, files=["edges.txt"], fetch=fetched.append)
    assert fetched == []


def test_files_with_a_url_are_fetched_beside_those_without(server, tmp_path, fake_dataset):
    """`--download gateway` fetched nothing (3 index files without a URL refused the 114 web files that have
    one); now the others are written and those to place by hand are named."""
    base, www = server
    info, payload = fake_dataset
    serve(www, info.files[0].url, payload)
    with pytest.raises(DatasetNotFoundError, match=r"(?s)put notes\.txt at .*no public URL: place it by hand.*"
                                                   r"\(1 other file\(s\) with a public URL written\)"):
        download("fake", root=tmp_path / "data", mirror=base)
    assert (tmp_path / "data" / "fake_folder" / "edges.txt").read_bytes() == payload


def test_a_misspelt_file_name_is_refused(tmp_path, fake_dataset):
    """download(..., files=["edges.tx"]) returned [] and wrote nothing, silently."""
    with pytest.raises(ValueError, match=r"files=\['edges\.tx'\]: not files of dataset 'fake' \(edges\.txt, notes"):
        download("fake", root=tmp_path, files=["edges.tx"], fetch=lambda url: b"")


def test_a_data_root_one_level_off_is_pointed_out(tmp_path, fake_dataset):
    """GATBIO_DATA set to the dataset's own folder, or to the folder above the root: the message said where to put
    the files, one level off, with no hint."""
    (tmp_path / "data" / "fake_folder").mkdir(parents=True)
    msg = sources.missing_message("fake", list(fake_dataset[0].files), tmp_path / "data" / "fake_folder")
    assert f"looks like the dataset's own folder: the root is the folder above it ({tmp_path / 'data'})" in msg
    msg = sources.missing_message("fake", list(fake_dataset[0].files), tmp_path)
    assert f"the data root may be one level down ({tmp_path / 'data'})" in msg
    assert "the data root" not in sources.missing_message("fake", list(fake_dataset[0].files), tmp_path / "data")


class _SlowReplies(http.server.BaseHTTPRequestHandler):
    """``/silent/...`` waits 3 s before answering; ``/trickle/...`` sends 3 blocks of 4 bytes, 0.05 s apart."""

    def do_GET(self):
        import time

        if self.path.startswith("/silent/"):
            time.sleep(3)
        try:
            self.send_response(200)
            self.send_header("Content-Length", "12")
            self.end_headers()
            for _ in range(3):
                self.wfile.write(b"a b\n")
                self.wfile.flush()
                if self.path.startswith("/trickle/"):
                    time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (the timeout test)
            pass

    def log_message(self, *args, **kwargs):
        pass


@pytest.fixture
def slow_server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowReplies)
    httpd.daemon_threads = True
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_silent_server_is_given_up_after_gatbio_timeout_seconds(slow_server, tmp_path, fake_dataset,
                                                                   monkeypatch):
    # was a fixed 60 s, and its failure did not say what to change
    monkeypatch.setenv("GATBIO_TIMEOUT", "0.3")
    with pytest.raises(DatasetNotFoundError) as err:
        download("fake", root=tmp_path, mirror=slow_server + "/silent", files=["edges.txt"])
    assert "the server sent nothing for 0.3 s; run it again, or set GATBIO_TIMEOUT=SECONDS to wait longer" in str(err.value)
    assert not (tmp_path / "fake_folder" / "edges.txt").exists()


@pytest.mark.parametrize("value", ["abc", "0", "-5", "inf"])
def test_a_bad_gatbio_timeout_is_one_line(monkeypatch, value):
    monkeypatch.setenv("GATBIO_TIMEOUT", value)
    with pytest.raises(ValueError, match=rf"^GATBIO_TIMEOUT={value}: give the seconds .* a positive number"):
        sources.download_timeout()


def test_download_shows_bytes_and_files_bars_when_asked(slow_server, tmp_path, monkeypatch, capsys):
    payload = b"a b\n" * 3
    info = DatasetInfo("fake2", "fake2", "ppi", "t", "c", "l", "undirected", "3", "2", "none",
                       tuple(FileSource(f"e{i}.txt", f"https://example.org/r/e{i}.txt",
                                        hashlib.sha256(payload).hexdigest()) for i in range(2)))
    monkeypatch.setitem(DATASETS, "fake2", info)
    monkeypatch.setattr(sources, "_BAR_DELAY", 0.0)
    written = download("fake2", root=tmp_path, mirror=slow_server + "/trickle", progress=True)
    assert [p.read_bytes() for p in written] == [payload, payload]
    err = capsys.readouterr().err
    assert "e0.txt:" in err and "/12.0 [" in err  # the byte bar of a file, its size from Content-Length
    assert "fake2:" in err and "2/2" in err  # the files bar
    download("fake2", root=tmp_path / "quiet", mirror=slow_server + "/trickle", progress=False)
    assert capsys.readouterr().err == ""


def test_a_missing_dataset_names_the_download_command_and_the_python_call(tmp_path, monkeypatch, capsys):
    # was: only "(gatbio.data.download('pajek') fetches ...)": no word of the command a command-line user runs
    from gatbio.cli import main

    monkeypatch.setenv("GATBIO_DATA", str(tmp_path))
    assert main(["trophic", "pajek/baydry"]) == 1
    err = capsys.readouterr().err
    assert f"put baydry.paj at {tmp_path / 'foodwebs_ulanowicz_pajek' / 'baydry.paj'}" in err
    # the one web's files (the whole collection, 19 webs, before)
    assert ("gatbio datasets --download pajek/baydry fetches the files that have a public URL (in Python: "
            "gatbio.data.download('pajek/baydry'))") in err
    assert "or set GATBIO_DATA to a folder that has it" in err


def test_a_missing_dataset_under_root_names_that_root_and_its_option(tmp_path, monkeypatch):
    # was: "or set GATBIO_DATA to a folder that has it" for a root given as --root (or root=), and a download
    # command that would fetch into GATBIO_DATA's folder, not the root that was read
    monkeypatch.setenv("GATBIO_DATA", str(tmp_path / "elsewhere"))
    with pytest.raises(DatasetNotFoundError) as err:
        sources.require_files("pajek", ["baydry.paj"], root=tmp_path, option="--root")
    msg = str(err.value)
    assert "GATBIO_DATA" not in msg and "or give --root a folder that has it" in msg
    assert (f"gatbio datasets --download pajek/baydry --root {tmp_path} fetches the files that have a public URL "
            f"(in Python: gatbio.data.download('pajek/baydry', root='{tmp_path}'))") in msg
    with pytest.raises(DatasetNotFoundError) as err:  # a root given in Python (or a config): no option to name
        sources.require_files("pajek", ["baydry.paj"], root=tmp_path)
    msg = str(err.value)
    assert "GATBIO_DATA" not in msg and "or give a data root that has it" in msg
    assert f"gatbio datasets --download pajek/baydry --root {tmp_path} " in msg
    with pytest.raises(sources.DataRootError, match=rf"^--root {tmp_path / 'none'}: no such folder"):
        sources.require_files("pajek", ["baydry.paj"], root=tmp_path / "none", option="--root")


# --- found by an audit of the download path against a loopback mirror of the shipped files -------------------------

def test_a_gateway_web_whose_folder_has_a_space_downloads_over_http(server, data_root, tmp_path):
    """22 GATEWAy web folders have a space (``Balsam lake_59``): urllib refused to send such a URL ("URL can't
    contain control characters"), so `--download gateway/59` and `--download gateway` failed against any HTTP(S)
    server (a folder mirror, read as a path, worked). The URL is now sent percent-encoded."""
    import shutil

    base, www = server
    own = sources.member_files("gateway/59", shared=False)
    assert own == ["webs/Balsam lake_59/59_edge_list.txt", "webs/Balsam lake_59/59_node_attr_list.txt"]
    by_path = {f.path: f for f in DATASETS["gateway"].files}
    for p in own:  # laid out as the URL's host and path read, as a server's folder is
        dest = www / by_path[p].url.split("://", 1)[1]
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(data_root / "gateway_dev" / p, dest)
    written = download("gateway/59", root=tmp_path, mirror=base)
    assert written == [tmp_path / "gateway_dev" / p for p in own]
    assert all(w.read_bytes() == (data_root / "gateway_dev" / p).read_bytes() for w, p in zip(written, own, strict=True))
    assert sources._request_url("http://h/a b/c%20d/é?x=1") == "http://h/a%20b/c%20d/%C3%A9?x=1"
    # the path and query only: a '%' that starts no escape is sent as %25, a non-ASCII host is left to urllib
    assert sources._request_url("http://h/50%off/a b?q=1 2") == "http://h/50%25off/a%20b?q=1%202"
    assert sources._request_url("http://bücher.example/a b") == "http://bücher.example/a%20b"


def test_a_web_named_with_a_space_gets_a_download_command_that_a_shell_takes(tmp_path):
    """The hint after a missing web named it unquoted (`gatbio datasets --download gateway/Balsam lake_59`): pasted
    into a shell, that is two arguments and an error."""
    from gatbio.data import load

    with pytest.raises(DatasetNotFoundError) as err:
        load("gateway/59", root=tmp_path)
    assert f"gatbio datasets --download 'gateway/Balsam lake_59' --root {tmp_path} fetches" in str(err.value)
    assert sources.download_command("pajek/baydry", tmp_path, "--root") == \
        f"gatbio datasets --download pajek/baydry --root {tmp_path}"


def test_a_sha256_mismatch_names_the_fix(server, tmp_path, fake_dataset):
    """The message said what was wrong ("the file was not written") and no way out: through a mirror, its copy;
    straight from the source, run it again or place the file by hand."""
    base, www = server
    info, _ = fake_dataset
    serve(www, info.files[0].url, b"tampered\n")
    with pytest.raises(ValueError, match=r"the file was not written; the mirror's copy differs from the registered "
                                         r"file: refresh it, or download without the mirror \(GATBIO_MIRROR unset, or no mirror= from Python\)$"):
        download("fake", root=tmp_path / "data", mirror=base, files=["edges.txt"])
    with pytest.raises(ValueError, match=r"^https://example\.org/repo/abc/edges\.txt: sha256 mismatch .*the file was "
                                         r"not written; run the download again \(a reply altered on the way\); if it "
                                         r"differs again, place the file by hand \(datasets/fake\.md says where"):
        download("fake", root=tmp_path / "data", fetch=lambda url: b"tampered\n", files=["edges.txt"])
