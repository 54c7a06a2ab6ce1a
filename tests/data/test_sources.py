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
def fake_dataset(monkeypatch):
    payload = b"a b\nb c\n"
    info = DatasetInfo("fake", "fake_folder", "ppi", "t", "c", "l", "undirected", "3", "2", "none",
                       (FileSource("edges.txt", "https://example.org/repo/abc/edges.txt",
                                   hashlib.sha256(payload).hexdigest()),
                        FileSource("notes.txt", None, None)))
    monkeypatch.setitem(DATASETS, "fake", info)
    return info, payload


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
