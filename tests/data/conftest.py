"""Fixtures shared by the data tests."""

from __future__ import annotations

import hashlib

import pytest

FAKE_PAYLOAD = b"a b\nb c\n"


@pytest.fixture
def make_fake_dataset(monkeypatch):
    """``make_fake_dataset(*more)``: registers a dataset ``fake`` (folder ``fake_folder``) whose ``edges.txt`` has a
    URL and the sha256 of its payload, then the :class:`~gatbio.data.sources.FileSource` entries ``more``; returns
    ``(info, payload)``. Undone after the test."""
    from gatbio.data.sources import DATASETS, DatasetInfo, FileSource

    def make(*more: FileSource):
        info = DatasetInfo("fake", "fake_folder", "ppi", "t", "c", "l", "undirected", "3", "2", "none",
                           (FileSource("edges.txt", "https://example.org/repo/abc/edges.txt",
                                       hashlib.sha256(FAKE_PAYLOAD).hexdigest()), *more))
        monkeypatch.setitem(DATASETS, "fake", info)
        return info, FAKE_PAYLOAD

    return make
