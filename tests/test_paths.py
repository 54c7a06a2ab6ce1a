"""The shared checks of output paths (gatbio._paths)."""

from __future__ import annotations

import pytest

from gatbio._paths import OutputPathError, check_outputs


def _notes(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("note: ")]


def test_an_output_folder_that_does_not_exist_is_said_once(tmp_path, caplog):
    # was: created without a word at write time (a typo in a folder name left a stray folder)
    sub = tmp_path / "typo_dir" / "sub"
    check_outputs({"--csv": sub / "levels.csv"})
    assert _notes(caplog) == [f"note: the folder {sub} does not exist: it will be created for --csv"]
    caplog.clear()
    check_outputs({"--out": sub / "a.csv", "--plot": sub / "a.png"})  # one note per folder
    assert _notes(caplog) == [f"note: the folder {sub} does not exist: it will be created for --out and --plot"]
    caplog.clear()
    check_outputs({"--out": tmp_path / "a.csv", "--plot": None})  # an existing folder: nothing said
    assert _notes(caplog) == []


def test_no_folder_note_when_a_check_refuses(tmp_path, caplog):
    (tmp_path / "x.csv").mkdir()
    with pytest.raises(OutputPathError, match="is a folder"):
        check_outputs({"--out": tmp_path / "new" / "a.csv", "--explain": tmp_path / "x.csv"})
    assert _notes(caplog) == []


def test_trophic_csv_into_a_new_folder_says_so_and_writes(tmp_path, capsys, caplog):
    from gatbio.cli import main

    web = tmp_path / "web.txt"
    web.write_text("a b\nb c\n")
    out = tmp_path / "typo_dir" / "sub" / "levels.csv"
    assert main(["trophic", str(web), "--csv", str(out)]) == 0
    assert out.is_file()
    folder_notes = [n for n in _notes(caplog) if "does not exist" in n]  # (the headerless file's roles: another note)
    assert folder_notes == [f"note: the folder {out.parent} does not exist: it will be created for --csv"]
