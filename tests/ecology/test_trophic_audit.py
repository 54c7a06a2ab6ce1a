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


def _watch(monkeypatch, name: str) -> list:
    """Wraps ``trophic.<name>``: a list of what each call returned (empty where the code never calls it)."""
    returned, original = [], getattr(trophic, name, None)

    def watched(*args, **kwargs):
        returned.append(original(*args, **kwargs))
        return returned[-1]

    monkeypatch.setattr(trophic, name, watched, raising=False)
    return returned


def test_a_long_chain_falls_back_to_the_direct_solve(monkeypatch):
    """Conjugate gradients (MacKay) and BiCGSTAB (Levine) need about one step per link of a long chain: after their
    step limit the direct solve answers (a chain is tridiagonal: no fill-in), and the levels are the positions."""
    n = 3000
    chain = torch.stack([torch.arange(n - 1), torch.arange(1, n)])
    for method, iterative in (("mackay", "_pcg"), ("levine", "_bicgstab")):
        tried, direct = _watch(monkeypatch, iterative), _watch(monkeypatch, "spsolve")
        torch.testing.assert_close(trophic_levels(chain, method),
                                   torch.arange(1, n + 1, dtype=torch.float64), rtol=0, atol=1e-6)
        assert len(tried) == 1 and tried[0] is None  # the iterative solve gave up ...
        assert len(direct) == 1 and len(direct[0]) == n - 1  # ... and the direct one answered
        monkeypatch.undo()


def _refuse(monkeypatch, *names: str) -> None:
    for name in names:
        def refused(*args, _name=name, **kwargs):
            raise AssertionError(f"{_name} was used")

        owner = trophic.nx if name == "trophic_levels" else trophic
        monkeypatch.setattr(owner, name, refused)


def _dag(n: int, links: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    ei, w = _large_web(n, links, seed=seed)
    forward = ei[0] < ei[1]  # every species reachable from one without prey: Levine's levels are defined
    return ei[:, forward], w[forward]


def test_levine_levels_of_a_large_web_come_from_an_iterative_solve(monkeypatch):
    """The sparse LU of I - P filled in (16 s and 0.4 GB for a 10,000-species random web of 100,000 links): a web
    of more than ``_DIRECT_MAX`` species is solved by BiCGSTAB, to the levels of the direct path (networkx's)."""
    n = 3000
    ei, w = _dag(n, 30000, seed=2)
    monkeypatch.setattr(trophic, "_DIRECT_MAX", 5000)  # the reference: the direct path for this web
    direct = trophic_levels(ei, "levine", num_nodes=n, edge_weight=w)
    monkeypatch.undo()
    _refuse(monkeypatch, "spsolve", "trophic_levels")
    tried = _watch(monkeypatch, "_bicgstab")
    torch.testing.assert_close(trophic_levels(ei, "levine", num_nodes=n, edge_weight=w), direct, rtol=0, atol=1e-9)
    assert len(tried) == 1 and tried[0] is not None


def test_levine_falls_back_to_the_direct_solve_where_the_residual_is_too_large(monkeypatch):
    """An iterative answer is checked by its residual, whatever scipy's flag says: one that does not solve I - P is
    set aside and the direct solve answers, with the levels of the direct path."""
    n = 2500
    ei, w = _dag(n, 20000, seed=3)
    monkeypatch.setattr(trophic, "_DIRECT_MAX", 5000)
    expected = trophic_levels(ei, "levine", num_nodes=n, edge_weight=w)
    monkeypatch.undo()

    def off(A, b, **kwargs):  # "converged" (info 0), to a wrong answer
        return np.zeros_like(b), 0

    monkeypatch.setattr(trophic, "bicgstab", off, raising=False)
    tried, direct = _watch(monkeypatch, "_bicgstab"), _watch(monkeypatch, "spsolve")
    torch.testing.assert_close(trophic_levels(ei, "levine", num_nodes=n, edge_weight=w), expected, rtol=0, atol=1e-9)
    assert tried == [None] and len(direct) == 1


@pytest.mark.parametrize("method", ["mackay", "levine"])
def test_both_methods_switch_on_the_number_of_species(monkeypatch, method):
    """MacKay's levels switched on the unknowns of the grounded system (the species less one per connected part):
    a web of 2,001 species, some of them isolated, went the direct way for MacKay and the sparse way for Levine.
    Now both switch on the species, as the docs say; a web of 2,000 species stays on the direct path."""
    ei, w = _dag(1995, 15000, seed=4)  # and 6 isolated species
    monkeypatch.setattr(trophic, "_DIRECT_MAX", 5000)
    direct = trophic_levels(ei, method, num_nodes=2001, edge_weight=w)
    monkeypatch.undo()
    _refuse(monkeypatch, "spsolve", "trophic_levels")
    iterative = _watch(monkeypatch, "_pcg" if method == "mackay" else "_bicgstab")
    torch.testing.assert_close(trophic_levels(ei, method, num_nodes=2001, edge_weight=w), direct, rtol=0, atol=1e-9)
    assert len(iterative) == 1
    monkeypatch.undo()
    _refuse(monkeypatch, "_pcg", "_bicgstab")
    trophic_levels(ei, method, num_nodes=2000, edge_weight=w)  # the direct path, as before


@pytest.mark.parametrize("method", ["mackay", "levine"])
def test_the_command_solves_for_the_levels_once(tmp_path, capsys, monkeypatch, method):
    """``gatbio trophic --method levine`` solved for Levine's levels twice (the table, then Johnson's q), and
    ``--method mackay`` for MacKay's twice (the table, then F0): once now, with the same figures."""
    web = tmp_path / "web.txt"
    web.write_text("grass rabbit 2\nrabbit fox 1\ngrass fox 0.5\nalga fox 1\nfox fox 1\n")
    from gatbio.ecology import trophic_incoherence
    from gatbio.ecology.commands import read_foodweb_file

    data = read_foodweb_file(web)
    f0, q = trophic_incoherence(data, "mackay"), trophic_incoherence(data, "johnson")
    levels = trophic_levels(data, method)
    calls = {name: _watch(monkeypatch, name) for name in ("_mackay", "_levine")}
    out = tmp_path / "levels.csv"
    assert main(["trophic", str(web), "--method", method, "--csv", str(out)]) == 0
    summary = capsys.readouterr().out.splitlines()[0]
    assert f"incoherence F0={f0:.4f}" in summary
    assert (f"q={q:.4f} (Johnson)" in summary) == (method == "levine")
    assert len(calls["_mackay"]) == 1 and len(calls["_levine"]) == (method == "levine")
    assert pd.read_csv(out)["trophic_level"].tolist() == levels.numpy().round(4).tolist()
    # the levels given to trophic_incoherence: the same figure, bit for bit
    monkeypatch.undo()
    assert trophic_incoherence(data, "mackay" if method == "mackay" else "johnson", levels=levels) == \
        (f0 if method == "mackay" else q)
    with pytest.raises(ValueError, match="levels has 3 entries for 4 nodes"):
        trophic_incoherence(data, "johnson", levels=levels[:3])


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


@pytest.mark.parametrize("direction", ["prey-predator", "predator-prey"])
def test_a_header_with_one_column_chosen_says_which_the_other_is(tmp_path, capsys, notes, direction):
    """Under a header that names no role, ``--source`` (or ``--target``) chooses one column and the other is taken
    by position: said, as it is without a header row (it said nothing with a header)."""
    web = tmp_path / "web.csv"
    web.write_text("taxon_a,taxon_b,w\nrabbit,fox,1\ngrass,rabbit,2\n")
    levels = _levels(capsys, web, "--source", "taxon_a", "--direction", direction)
    prey_first = direction == "prey-predator"
    assert levels == ({"grass": 1.0, "rabbit": 2.0, "fox": 3.0} if prey_first else
                      {"grass": 3.0, "rabbit": 2.0, "fox": 1.0})
    role, other = ("predator (consumer)", "prey (resource)") if prey_first else ("prey (resource)",
                                                                                 "predator (consumer)")
    flip = "--direction predator-prey" if prey_first else "the default --direction prey-predator"
    example = "'fox' eats 'rabbit'" if prey_first else "'rabbit' eats 'fox'"
    assert (f"web.csv: column 2 ('taxon_b') taken for the {role} of each link, by position, beside column 1 "
            f"('taxon_a'), the {other} by --source, e.g. line 2: {example} ({flip} reads them the other way; "
            "--source/--target choose other columns, or name them in the header, such as 'prey' and "
            "'predator')") in notes.text
    notes.clear()
    _levels(capsys, web, "--target", "taxon_a", "--direction", direction)
    assert "column 2 ('taxon_b') taken for the" in notes.text and "('taxon_a'), the" in notes.text \
        and "by --target" in notes.text


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


def test_a_column_number_is_no_sign_of_a_header(tmp_path, capsys):
    """--source 1 with a headerless first row holding a weight 1: that row was read as a header (the '1' taken for
    the column's name), the weights became the prey and a link was lost."""
    web = tmp_path / "web.csv"
    web.write_text("rabbit,fox,1\ngrass,rabbit,2\nfox,wolf,3\n")
    out = tmp_path / "levels.csv"
    assert main(["trophic", str(web), "--source", "1", "--method", "levine", "--csv", str(out)]) == 0
    assert "read as a header" not in capsys.readouterr().err
    levels = pd.read_csv(out).set_index("species")["trophic_level"].to_dict()
    assert levels == {"grass": 1.0, "rabbit": 2.0, "fox": 3.0, "wolf": 4.0}
