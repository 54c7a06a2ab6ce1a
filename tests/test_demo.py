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
    else:
        assert "python -m gatbio.demo: error: dataset 'yeast-bu2003': 3 file(s) missing" in err


def test_a_bug_keeps_its_traceback(tmp_path, monkeypatch):
    def bug(**kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(demo, "layer_demo", bug)
    with pytest.raises(KeyError):
        demo.main([str(tmp_path / "out"), "--device", "cpu"])
