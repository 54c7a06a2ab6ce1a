"""``gatbio foodweb``: the benchmark says a web's notes (its cannibal links, its missing traits) once, not once
per protocol; ``predict`` says each note once, and gives a GATEWAy folder the look-alike-names note that the other
formats get."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gatbio.cli import main as gatbio_main
from gatbio.tasks import foodweb as fw


def write_web(folder: Path, n: int = 12, loops: str = "", traits: str | None = None) -> None:
    """A web folder in the gateway_dev/webs layout: every species i eats i - 1 and i - 2, after ``loops`` lines."""
    wid = folder.name.rsplit("_", 1)[1]
    folder.mkdir(parents=True)
    links = [f"{i - d} {i}" for i in range(2, n) for d in (1, 2)] + ["0 1"]
    order = np.random.default_rng(0).permutation(len(links))
    (folder / f"{wid}_edge_list.txt").write_text(loops + "".join(links[k] + "\n" for k in order))
    if traits is not None:
        (folder / f"{wid}_node_attr_list.txt").write_text(traits)


def tiny_cfg(tmp_path: Path, **kw) -> fw.FoodWebConfig:
    base = dict(webs=str(tmp_path / "webs"), out=str(tmp_path / "out"), seeds=[0], species_seeds=[0],
                models=["l3_ra"], protocols=["links", "species"])
    base.update(kw)
    return fw.FoodWebConfig(**base)


@pytest.fixture
def notes(caplog):
    caplog.set_level("WARNING", logger="gatbio.data")
    return caplog


def test_the_benchmark_says_a_webs_notes_once_not_once_per_protocol(tmp_path, notes):
    """Each protocol reads the web folder again: its cannibal note (and its missing-traits note) came twice."""
    rows = "".join(f"{k} {'NA' if k == 3 else k / 10}\n" for k in range(12))
    write_web(tmp_path / "webs" / "Pond_7", loops="5 5\n", traits="id log_mass\n" + rows)
    fw.benchmark(tiny_cfg(tmp_path), progress=False)
    assert notes.text.count("1 cannibalism link(s) (a species eating itself) left out") == 1
    assert notes.text.count("1 missing trait value (NA)") == 1
    assert sorted(p.name for p in (tmp_path / "out" / "webs").glob("*.json")) == ["Pond_7.links.json",
                                                                                 "Pond_7.species.json"]


def test_the_protocol_run_alone_still_says_them(tmp_path, notes):
    write_web(tmp_path / "webs" / "Pond_7", loops="5 5\n")
    fw.benchmark(tiny_cfg(tmp_path, protocols=["species"]), progress=False)
    assert notes.text.count("1 cannibalism link(s) (a species eating itself) left out") == 1
    notes.clear()
    cfg = tiny_cfg(tmp_path, out=str(tmp_path / "direct"))
    fw.run_web(tmp_path / "webs" / "Pond_7", cfg.out, cfg, "links")  # the first protocol of the config: said
    assert "cannibalism link(s)" in notes.text


def test_a_resumed_benchmark_says_a_webs_notes_when_its_first_protocol_is_done(tmp_path, notes):
    """Only the config's first protocol said a web's notes: a resumed run whose links unit was done said none."""
    rows = "".join(f"{k} {'NA' if k == 3 else k / 10}\n" for k in range(12))
    write_web(tmp_path / "webs" / "Pond_7", loops="5 5\n", traits="id log_mass\n" + rows)
    fw.benchmark(tiny_cfg(tmp_path), progress=False)
    (tmp_path / "out" / "webs" / "Pond_7.species.json").unlink()  # interrupted after the links unit
    notes.clear()
    fw.benchmark(tiny_cfg(tmp_path), progress=False)  # the species unit alone runs: it says them, as a fresh run
    assert notes.text.count("1 cannibalism link(s) (a species eating itself) left out") == 1
    assert notes.text.count("1 missing trait value (NA)") == 1


def test_benchmark_summary_only_remakes_the_tables_from_python_and_the_cli_uses_it(tmp_path, monkeypatch, capsys):
    """``benchmark`` had no ``summary_only=`` (protein, interactions and robustness ``run`` have it): the CLI's
    ``--summary-only`` did the work by hand."""
    write_web(tmp_path / "webs" / "Pond_7")
    cfg = tiny_cfg(tmp_path, protocols=["links"])
    made = fw.benchmark(cfg, progress=False)
    out = tmp_path / "out"
    fingerprint = (out / "fingerprint.json").read_text()
    (out / "summary.csv").unlink()
    again = fw.benchmark(tiny_cfg(tmp_path, protocols=["links"], jobs=2), progress=False, summary_only=True)
    pd.testing.assert_frame_equal(again["summary"], made["summary"])
    assert (out / "summary.csv").is_file() and (out / "fingerprint.json").read_text() == fingerprint
    with pytest.raises(ValueError, match="summary_only trains nothing: resume='restart'"):
        fw.benchmark(cfg, summary_only=True, resume="restart")
    seen = []
    monkeypatch.setattr(fw, "benchmark", lambda cfg, **kw: seen.append(kw) or made)
    assert gatbio_main(["foodweb", "benchmark", "--out", str(out), "--summary-only"]) == 0
    assert seen == [{"progress": True, "resume": "check", "summary_only": True}]
    assert "== summary" in capsys.readouterr().out


# ---------------------------------------------------------------- predict


@pytest.fixture
def captured(monkeypatch):
    """Replace the training by a stub that records the web ``predict`` would train on (fast)."""
    seen: dict = {}

    def stub(data, top, seeds=None, traits=None, trait_names=None, progress=False, device=None):
        seen.update(data=data)
        return pd.DataFrame({"rank": [1], "resource": ["a"], "consumer": ["f"], "score": [0.0],
                             "resource_level": [1.0], "consumer_level": [2.0], "model": ["structure_only"]})

    monkeypatch.setattr(fw, "predict_missing_links", stub)
    return seen


def collection(tmp_path: Path, names: list[str], loops: str = "") -> Path:
    """A GATEWAy collection holding one web (webs/Pond_7) whose species are ``names``; returns the web folder."""
    root = tmp_path / "coll"
    web = root / "webs" / "Pond_7"
    write_web(web, n=len(names), loops=loops)
    (root / "web_index.csv").write_text(f"web_id,web_name,data_dir,n_nodes,n_links\n7,pond,Pond_7,{len(names)},0\n")
    (root / "node_ids.csv").write_text(",web_name,node_name,node_id\n" + "".join(
        f"{k + 1},pond,{x},{k}\n" for k, x in enumerate(names)))
    return web


def _predict(path, capsys, notes) -> tuple[str, str]:
    assert gatbio_main(["foodweb", "predict", str(path), "--seeds", "0", "--device", "cpu"]) == 0
    out, err = capsys.readouterr()
    text = err + notes.text
    notes.clear()
    return out, text


def test_predict_gives_a_gateway_folder_the_look_alike_names_note(tmp_path, capsys, notes, captured):
    """Names that differ only in case or Unicode form: said for an edge list, not for a GATEWAy folder."""
    names = ["alga", "Daphnia_adult", "daphnia_adult", "Cafe\u0301", "perch", "pike", "Café"] + \
        [f"sp{k}" for k in range(5)]
    web = collection(tmp_path, names)
    text = _predict(web, capsys, notes)[1]
    assert captured["data"].node_names == names
    assert text.count("2 pairs of species names differ only in case or Unicode form (e.g. 'Daphnia_adult' and "
                      "'daphnia_adult'): read as different species") == 1
    # the same note as gatbio trophic gives the folder (one function)
    assert gatbio_main(["trophic", str(web)]) == 0
    capsys.readouterr()
    assert notes.text.count("2 pairs of species names differ only in case or Unicode form") == 1


def test_predict_says_each_note_once(tmp_path, capsys, notes, captured):
    web = collection(tmp_path, [f"sp{k}" for k in range(10)], loops="4 4\n")
    text = _predict(web, capsys, notes)[1]
    assert text.count("cannibal (self) link(s) left out") == 1
    assert "cannibalism link(s)" not in text  # the benchmark's wording: not said a second time
    table = tmp_path / "web.txt"
    table.write_text("a b\nb c\nc d\nd e\ne f\na c\nc c\n")
    text = _predict(table, capsys, notes)[1]
    assert text.count("no header row: column 1 read as the prey (resource) and column 2 as the predator") == 1
    assert text.count("cannibal (self) link(s) left out") == 1
    flow = tmp_path / "flow.paj"
    flow.write_text("*partition ECO types\n*vertices 7\n1\n1\n1\n1\n1\n2\n5\n*network w\n*vertices 7\n1 \"a\"\n"
                    "2 \"b\"\n3 \"c\"\n4 \"d\"\n5 \"e\"\n*arcs\n1 2 1\n2 3 1\n3 4 1\n4 5 1\n1 3 1\n2 4 1\n6 2 1\n"
                    "5 7 1\n*vector bio-masses\n*vertices 7\n1\n1\n1\n1\n1\n1\n1\n")
    text = _predict(flow, capsys, notes)[1]
    assert text.count("2 of the 7 vertices of *vertices have no line") == 1
