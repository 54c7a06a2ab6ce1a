"""Audit of ``gatbio datasets --download`` as a new user meets it (loopback server or local files only)."""

from __future__ import annotations

import hashlib
import tempfile

import pytest

from gatbio.data import sources
from gatbio.data.sources import FileSource, download


@pytest.fixture
def fake_dataset(make_fake_dataset):
    payload = b"a b\nb c\n"
    return make_fake_dataset(FileSource("sub/more.txt", "https://example.org/repo/abc/more.txt",
                                        hashlib.sha256(payload).hexdigest()))


@pytest.mark.parametrize("where", ["fake_folder", "fake_folder/sub"])
def test_a_dataset_folder_it_cannot_write_is_named_before_fetching(tmp_path, monkeypatch, fake_dataset, where):
    # was: the file fetched, then "[Errno 13] Permission denied: '.../.edges.txt.k3j2.tmp'" (a temporary file's
    # name, no word of the data root); the root itself was writable (a shared root, a folder of another user)
    (tmp_path / where).mkdir(parents=True)
    refused = tmp_path / where
    real = tempfile.mkstemp

    def mkstemp(*args, dir=None, **kwargs):  # the superuser passes permission bits: refuse as a read-only mount
        if dir is not None and sources.Path(dir) == refused:
            raise PermissionError(13, "Permission denied")
        return real(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setenv("GATBIO_DATA", str(tmp_path))
    info, payload = fake_dataset
    fetched = []
    with pytest.raises(sources.DataRootError) as err:
        download("fake", fetch=lambda url: fetched.append(url) or payload)
    assert str(err.value) == (f"GATBIO_DATA={tmp_path}: dataset 'fake': cannot write in {refused} (Permission "
                              "denied); make that folder writable, or download into another data root (--root DIR "
                              "or GATBIO_DATA=DIR)")
    assert fetched == []


def test_a_writable_dataset_folder_downloads(tmp_path, fake_dataset):
    info, payload = fake_dataset
    written = download("fake", root=tmp_path, fetch=lambda url: payload)
    assert [p.relative_to(tmp_path).as_posix() for p in written] == ["fake_folder/edges.txt",
                                                                      "fake_folder/sub/more.txt"]
