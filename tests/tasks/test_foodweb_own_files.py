"""A user's own food web and trait table with ``gatbio foodweb predict`` and ``gatbio robustness``: trait-table
names that differ from the web's only in case or spacing, trait rows in another order, and fractions of a small
web that perturb no species."""

from __future__ import annotations

import numpy as np
import pytest
from torch_geometric.data import Data

from gatbio.cli import main as gatbio_main

WEB = "resource,consumer\n" + "".join(f"{a},{b}\n" for a, b in [
    ("algae", "snail"), ("algae", "mayfly"), ("detritus", "mayfly"), ("detritus", "shrimp"), ("mayfly", "trout"),
    ("shrimp", "trout"), ("snail", "heron"), ("trout", "heron")])
TRAITS = [("algae", 1e-5, 0), ("detritus", 1e-6, 0), ("snail", 0.5, 1), ("mayfly", 0.01, 1), ("shrimp", 0.05, 1),
          ("trout", 300.0, 2), ("heron", 2000.0, 3)]


@pytest.fixture
def seen(predict_stub):
    """What ``predict`` would train on (tests/conftest.py ``predict_stub``)."""
    return predict_stub


def _files(tmp_path, rows) -> tuple[str, str]:
    web, traits = tmp_path / "web.csv", tmp_path / "traits.csv"
    web.write_text(WEB)
    traits.write_text("species,body_mass,metabolic\n" + "".join(f"{s},{m},{t}\n" for s, m, t in rows))
    return str(web), str(traits)


@pytest.mark.parametrize("wrong", ["Heron", "heron ", "HERON", "her_on"])
def test_a_trait_row_named_like_a_web_species_up_to_case_or_spacing_is_refused(tmp_path, capsys, seen, wrong):
    """``Heron`` in the table for the web's ``heron`` was added as a new species without links (its links
    predicted), and the web's heron got imputed traits, with only a generic note: a misspelling taken for a new
    species. Now one error naming the file, line and the web's spelling. (``heron `` with a trailing space was
    already matched: the reader strips fields; it stays accepted.)"""
    rows = [r if r[0] != "heron" else (wrong, *r[1:]) for r in TRAITS]
    web, traits = _files(tmp_path, rows)
    code = gatbio_main(["foodweb", "predict", web, "--traits", traits, "--seeds", "0", "--quiet"])
    err = capsys.readouterr().err
    if wrong == "heron ":
        assert code == 0 and seen["data"].num_nodes == 7
        return
    if wrong == "her_on":  # a different name (not a look-alike): a new species, as documented
        assert code == 0 and seen["data"].num_nodes == 8 and seen["data"].node_names[-1] == "her_on"
        return
    assert code == 1, err
    assert f"traits.csv:8: species {wrong!r} is not in the web, but the web's 'heron' differs" in err
    assert "data" not in seen  # refused before any training


def test_an_underscore_for_a_space_is_a_look_alike_too(tmp_path, capsys, seen):
    (tmp_path / "web.csv").write_text("prey,predator\nSalmo trutta,Ardea cinerea\nGammarus pulex,Salmo trutta\n"
                                      "algae,Gammarus pulex\nalgae,Salmo trutta\nGammarus pulex,Ardea cinerea\n")
    (tmp_path / "traits.csv").write_text("species,log_mass\nSalmo_trutta,2.5\nArdea cinerea,3.3\n")
    code = gatbio_main(["foodweb", "predict", str(tmp_path / "web.csv"), "--traits", str(tmp_path / "traits.csv"),
                        "--seeds", "0", "--quiet"])
    assert code == 1
    assert "traits.csv:2: species 'Salmo_trutta' is not in the web, but the web's 'Salmo trutta'" in \
        capsys.readouterr().err


def test_trait_rows_in_another_order_give_the_same_traits_per_species(tmp_path, seen):
    """The trait table's row order must not move a species' traits onto another (a silent misalignment)."""
    got = []
    for rows in (TRAITS, TRAITS[::-1], TRAITS[3:] + TRAITS[:3]):
        web, traits = _files(tmp_path, rows)
        assert gatbio_main(["foodweb", "predict", web, "--traits", traits, "--seeds", "0", "--quiet"]) == 0
        names = seen["data"].node_names
        got.append({n: tuple(seen["traits"][k]) for k, n in enumerate(names)})
    assert got[0] == got[1] == got[2]
    assert got[0]["heron"] == (2000.0, 3.0) and got[0]["algae"] == (1e-5, 0.0)


def test_a_raw_body_mass_spanning_orders_of_magnitude_is_noted(tmp_path, capsys, caplog, seen):
    """A body mass in grams (1e-6 to 2000) was standardised linearly without a word: every species but the heron
    looked alike to the models, where the GATEWAy webs they were tuned on give log10 mass. Now a note names the
    column and its range (the values are used as given); a log10 mass gets none."""
    web, traits = _files(tmp_path, TRAITS)
    assert gatbio_main(["foodweb", "predict", web, "--traits", traits, "--seeds", "0", "--quiet"]) == 0
    err = capsys.readouterr().err + caplog.text
    assert "body_mass (1e-06 to 2e+03): positive values spanning 3 or more orders of magnitude" in err
    line = next(ln for ln in err.splitlines() if "orders of magnitude" in ln)
    assert "metabolic" not in line  # 0 to 3: not all positive, not named
    assert seen["traits"][:, 0].max() == 2000.0  # used as given
    caplog.clear()
    web, traits = _files(tmp_path, [(s, np.log10(m), t) for s, m, t in TRAITS])
    assert gatbio_main(["foodweb", "predict", web, "--traits", traits, "--seeds", "0", "--quiet"]) == 0
    assert "orders of magnitude" not in capsys.readouterr().err + caplog.text


# --------------------------------------------------------------------------------------------------------------
# gatbio robustness on a small web


def test_fractions_perturbing_no_species_of_a_small_web():
    from gatbio.robustness import fractions_perturbing_none, node_count

    assert fractions_perturbing_none([0.0, 0.01, 0.02, 0.05, 0.2], 12) == ([0.01, 0.02], 0.0417)
    assert fractions_perturbing_none([0.0, 0.05], 10) == ([], 0.05)  # 0.5 species: halves round up, to 1
    none, smallest = fractions_perturbing_none([0.0, 0.01], 29)
    assert none == [0.01] and node_count(smallest, 29) == 1 and node_count(smallest - 1e-4, 29) == 0


def test_robustness_says_which_fractions_perturb_no_species_of_a_web(tmp_path, monkeypatch, capsys, caplog):
    """On a 12-species web a fraction of 0.02 is 0 species: the sweep computed that point (equal to the clean score,
    a flat 'robust' stretch of the curve) and wrote it without a word. Now a note names the fractions, the web,
    its species count and the smallest fraction that perturbs a species; the run itself is unchanged."""
    import gatbio.data
    import gatbio.tasks.robustness as rob

    ran = []
    monkeypatch.setattr(gatbio.data, "load", lambda name, *a, **k: Data(num_nodes=12, name=name))
    monkeypatch.setattr(rob, "run", lambda cfg, **kw: ran.append(cfg) or "done")
    config = tmp_path / "rob.yaml"
    config.write_text("name: own\nmodels: [gat_log]\nperturbations: [degree]\nfractions: [0.0, 0.02, 0.2]\n"
                      "seeds: [0]\nprotein:\n  enabled: false\nfoodweb:\n  webs: [cheddar/Benguela]\n")
    assert gatbio_main(["robustness", "--config", str(config), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    err = capsys.readouterr().err + caplog.text
    assert ran and ran[0].fractions == [0.0, 0.02, 0.2]  # nothing changed
    assert ("config fractions: 0.02 of cheddar/Benguela's 12 species perturbs no species" in err
            and "the smallest fraction that perturbs a species of this web is 0.0417" in err), err
    # fractions that perturb a species of every web: no note
    caplog.clear()
    assert gatbio_main(["robustness", "--config", str(config), "--out", str(tmp_path / "out"), "--quiet",
                        "fractions=[0.0,0.05]"]) == 0
    assert "perturb" not in capsys.readouterr().err + caplog.text
    # --summary-only reads no web
    monkeypatch.setattr(gatbio.data, "load", lambda *a, **k: pytest.fail("a web was read"))
    assert gatbio_main(["robustness", "--config", str(config), "--out", str(tmp_path / "out"), "--quiet",
                        "--summary-only"]) == 0


def test_the_note_leaves_fraction_checks_to_the_sweep():
    """Guard: the helper only counts; it does not change a config's fractions (published figures keep their
    points)."""
    from gatbio.robustness import fractions_perturbing_none

    fr = [0.0, 0.01, 0.02]
    fractions_perturbing_none(fr, 5)
    assert fr == [0.0, 0.01, 0.02] and np.isclose(fractions_perturbing_none(fr, 5)[1], 0.1)


def test_a_look_alike_beside_the_web_spellings_own_row_says_it_is_written_twice(tmp_path, capsys, seen):
    """``heron`` has its own row and ``Heron`` a second one: 'write it as the web does' would then fail as a
    duplicate row; the message names both lines and says to keep one."""
    rows = list(TRAITS) + [("Heron", *next(r for r in TRAITS if r[0] == "heron")[1:])]
    web, traits = _files(tmp_path, rows)
    code = gatbio_main(["foodweb", "predict", web, "--traits", traits, "--seeds", "0", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1, err
    line = next(k for k, r in enumerate(TRAITS, 2) if r[0] == "heron")
    assert "species 'Heron' is not in the web, and the web's 'heron', which differs from it only in case" in err
    assert f"has its own row (line {line}): one species written twice? Keep one row" in err
