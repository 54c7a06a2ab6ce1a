"""Trophic levels as an ecologist checks them: large webs solved without dense or filled-in solves, which way a
table or a Pajek file was read said even when nothing in it names the roles, ``--csv -``, and MacKay levels that
lift species without prey above 1 said as such."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import torch

import gatbio.ecology.trophic as trophic
from gatbio.cli import main
from gatbio.ecology import trophic_levels

# --------------------------------------------------------------------------------------------------------------
# large webs: an iterative solve for MacKay, a sparse one for Levine (the direct ones took minutes and gigabytes)
# --------------------------------------------------------------------------------------------------------------


def _large_web(n: int = 3000, links: int = 30000, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """A niche-like web: links mostly from lower to higher rank, a few the other way (cycles), random weights."""
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, n, links), rng.integers(0, n, links)
    src, dst = np.minimum(a, b), np.maximum(a, b)
    back = rng.random(links) < 0.02
    src[back], dst[back] = dst[back], src[back]
    keep = src != dst
    ei = torch.from_numpy(np.stack([src[keep], dst[keep]]))
    return ei, torch.from_numpy(rng.random(int(keep.sum())) + 0.1)


def _matrix(ei: torch.Tensor, w: torch.Tensor, n: int) -> sp.csr_matrix:
    return sp.csr_matrix((w.numpy(), (ei[0].numpy(), ei[1].numpy())), shape=(n, n))


def test_mackay_levels_of_a_large_web_come_from_the_iterative_solve(monkeypatch):
    """A web of more than ``_DIRECT_MAX`` species is solved by preconditioned conjugate gradients: the sparse LU
    (spsolve) filled in, 2 minutes and 1.4 GB for a 10,000-species niche web. The levels solve MacKay's
    equations Lambda h = v (the residual of a converged solve) with the minimum at 1."""
    n = 3000
    ei, w = _large_web(n)

    def refused(*args, **kwargs):
        raise AssertionError("the direct solve was used for a large web")

    monkeypatch.setattr(trophic, "spsolve", refused)
    h = trophic_levels(ei, "mackay", num_nodes=n, edge_weight=w).numpy()
    W = _matrix(ei, w, n)
    s_in, s_out = np.asarray(W.sum(axis=0)).ravel(), np.asarray(W.sum(axis=1)).ravel()
    L = sp.diags(s_in + s_out) - W - W.T
    assert np.abs(L @ h - (s_in - s_out)).max() < 1e-8 * np.abs(s_in - s_out).max()
    assert h.min() == pytest.approx(1.0)


def test_levine_levels_of_a_large_web_come_from_a_sparse_solve(monkeypatch):
    """networkx inverts the dense (N, N) matrix (N^3 time, N^2 memory): a large web takes the sparse solve, whose
    levels are Levine's: 1 for a species without prey, else 1 + the weighted mean level of its prey."""
    n = 3000
    ei, w = _large_web(n)
    dag = ei[0] < ei[1]  # Levine needs every species reachable from a basal one: no cycle through rank 0
    ei, w = ei[:, dag], w[dag]

    def refused(*args, **kwargs):
        raise AssertionError("networkx's dense inverse was used for a large web")

    monkeypatch.setattr(trophic.nx, "trophic_levels", refused)
    s = trophic_levels(ei, "levine", num_nodes=n, edge_weight=w).numpy()
    W = _matrix(ei, w, n)
    k_in = np.asarray(W.sum(axis=0)).ravel()
    fed = k_in > 0
    expected = np.ones(n)
    expected[fed] = 1 + (W.T @ s)[fed] / k_in[fed]
    np.testing.assert_allclose(s, expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("method", ["mackay", "levine"])
def test_the_large_web_solves_equal_the_direct_ones(monkeypatch, method):
    """The same web below and above the size limit: the same levels, to 1e-9 (weighted, with cycles for MacKay)."""
    n = 400
    ei, w = _large_web(n, 4000, seed=1)
    if method == "levine":
        ei, w = ei[:, ei[0] < ei[1]], w[ei[0] < ei[1]]
    direct = trophic_levels(ei, method, num_nodes=n, edge_weight=w)
    monkeypatch.setattr(trophic, "_DIRECT_MAX", 10)
    torch.testing.assert_close(trophic_levels(ei, method, num_nodes=n, edge_weight=w), direct, rtol=0, atol=1e-9)


def test_a_long_chain_falls_back_to_the_direct_solve():
    """Conjugate gradients need about one step per link of a long chain: after their step limit the direct
    solve answers (a chain is tridiagonal: no fill-in), and the levels are the positions."""
    n = 3000
    chain = torch.stack([torch.arange(n - 1), torch.arange(1, n)])
    for method in ("mackay", "levine"):
        torch.testing.assert_close(trophic_levels(chain, method),
                                   torch.arange(1, n + 1, dtype=torch.float64), rtol=0, atol=1e-6)


# --------------------------------------------------------------------------------------------------------------
# which way a file was read, said where nothing in it names the roles
# --------------------------------------------------------------------------------------------------------------


@pytest.fixture
def notes(caplog):
    caplog.set_level("WARNING", logger="gatbio.data")
    return caplog


def _levels(capsys, web, *argv) -> dict:
    out = web.parent / "levels.csv"
    assert main(["trophic", str(web), *argv, "--csv", str(out)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    return pd.read_csv(out).set_index("species")["trophic_level"].to_dict()


@pytest.mark.parametrize("header", ["from,to", "source,target", "taxon_a,taxon_b"])
def test_a_header_that_does_not_name_the_roles_says_which_column_is_the_prey(tmp_path, capsys, notes, header):
    """A header such as 'from,to' is read by position, as a table without a header row is; it said nothing, so
    a web listed predator first came out upside down without a word."""
    web = tmp_path / "web.csv"
    web.write_text(f"{header}\nfox,rabbit\nrabbit,grass\n")  # predator first
    first, second = header.split(",")
    assert _levels(capsys, web) == {"fox": 1.0, "rabbit": 2.0, "grass": 3.0}
    assert (f"web.csv: the header names neither column by its role (prey, resource; predator, consumer): column 1 "
            f"({first!r}) taken for the prey (resource) and column 2 ({second!r}) for the predator (consumer) of each "
            "link, by position, e.g. line 2: 'rabbit' eats 'fox' (--direction predator-prey reads them the other "
            "way;") in notes.text
    notes.clear()
    assert _levels(capsys, web, "--direction", "predator-prey") == {"fox": 3.0, "rabbit": 2.0, "grass": 1.0}
    assert f"column 2 ({second!r}) taken for the prey" in notes.text and "'fox' eats 'rabbit'" in notes.text
    notes.clear()
    _levels(capsys, web, "--source", second, "--target", first)  # both chosen: nothing to say
    assert "taken for the prey" not in notes.text


def test_a_plain_pajek_file_says_which_way_its_arcs_were_read(tmp_path, capsys, notes):
    """Nothing in a Pajek file that is not a flow web says whether an arc i j is prey -> predator: said, with the
    first arc between two species and the option that reads them the other way."""
    web = tmp_path / "chain.net"
    web.write_text('*Vertices 3\n1 "fox"\n2 "rabbit"\n3 "grass"\n*Arcs\n1 1\n1 2\n2 3\n')  # predator first
    assert _levels(capsys, web) == {"fox": 1.0, "rabbit": 2.0, "grass": 3.0}
    assert "chain.net: *Arcs read as prey -> predator, e.g. line 7: 'rabbit' eats 'fox' (--direction " \
           "predator-prey reads them the other way)" in notes.text
    notes.clear()
    assert _levels(capsys, web, "--direction", "predator-prey") == {"fox": 3.0, "rabbit": 2.0, "grass": 1.0}
    assert "*Arcs read as predator -> prey, e.g. line 7: 'fox' eats 'rabbit' (the default --direction " \
           "prey-predator reads them the other way)" in notes.text


# --------------------------------------------------------------------------------------------------------------
# --csv -, and the messages
# --------------------------------------------------------------------------------------------------------------


def test_csv_dash_writes_the_csv_to_standard_output(tmp_path, capsys, monkeypatch):
    """'-' is standard output, as for Unix tools: it wrote a file named '-' in the working folder."""
    monkeypatch.chdir(tmp_path)
    web = tmp_path / "web.txt"
    web.write_text("grass rabbit\nrabbit fox\n")
    assert main(["trophic", str(web), "--sort", "--csv", "-"]) == 0
    out, err = capsys.readouterr()
    assert not (tmp_path / "-").exists()
    assert out == "species,trophic_level,prey,predators\nfox,3.0,1,0\nrabbit,2.0,1,1\ngrass,1.0,0,1\n"
    assert "# web: 3 species, 2 links, method=mackay, incoherence F0=0.0000" in err
    assert main(["trophic", str(web), "--csv=-.tsv"]) == 0  # any other name is a file
    assert (tmp_path / "-.tsv").read_text().startswith("species\ttrophic_level")


def test_mackay_levels_above_1_for_a_species_without_prey_are_said(tmp_path, capsys, notes):
    """An alga eaten only by the fox sits above 1 in MacKay's levels (right by their definition, surprising by the
    classic one): a note says how many and how to get every species without prey at 1."""
    web = tmp_path / "web.txt"
    web.write_text("grass rabbit\nrabbit fox\nalga fox\n")
    levels = _levels(capsys, web)
    assert levels["grass"] == 1.0 and levels["alga"] > 1.5
    assert (f"web.txt: 1 of 2 species without prey sit above level 1 (e.g. 'alga' at {levels['alga']:.4f}): MacKay "
            "levels place each species by all of its links, to its consumers too, with the lowest species of each "
            "connected part at 1; --method levine puts every species without prey at 1") in notes.text
    notes.clear()
    assert _levels(capsys, web, "--method", "levine")["alga"] == 1.0
    chain = tmp_path / "chain.txt"
    chain.write_text("grass rabbit\nrabbit fox\n")
    _levels(capsys, chain)
    assert "without prey sit above" not in notes.text


def test_an_adjacency_matrix_without_a_convention_names_the_file(tmp_path, capsys):
    m = tmp_path / "m.txt"
    m.write_text("0 1\n0 0\n")
    assert main(["trophic", str(m), "--format", "adjacency"]) == 1
    err = capsys.readouterr().err
    assert err == (f"gatbio trophic: error: {m}: --format adjacency needs --convention row_to_col (A[i, j] > 0: j "
                   "eats i) or col_to_row (A[i, j] > 0: i eats j)\n")
