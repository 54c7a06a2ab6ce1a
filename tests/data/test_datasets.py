"""Every named dataset in the shared folder loads with the counts its SOURCE.md gives."""

from __future__ import annotations

import pandas as pd
import pytest
import torch
from torch_geometric.utils import is_undirected

from gatbio.data import dataset_names, list_datasets, load
from gatbio.data.sources import CHEDDAR_WEBS, GATEWAY_WEBS, PAJEK_WEBS


def n_self_loops(d):
    return int((d.edge_index[0] == d.edge_index[1]).sum())


def check_contract(d):
    assert d.edge_index.dtype == torch.long and d.edge_index.dim() == 2 and d.edge_index.size(0) == 2
    assert isinstance(d.name, str) and d.name
    assert isinstance(d.node_names, list) and len(d.node_names) == d.num_nodes
    assert all(isinstance(s, str) for s in d.node_names)
    if d.num_edges:
        assert 0 <= int(d.edge_index.min()) and int(d.edge_index.max()) < d.num_nodes


def test_node2vec_ppi(data_root):
    d = load("node2vec-ppi", root=data_root)
    check_contract(d)
    # 3,890 nodes; 38,739 undirected pairs incl. 894 self-loops -> 76,584 directed entries
    assert d.num_nodes == 3890 and d.num_edges == 76584 and n_self_loops(d) == 894
    assert is_undirected(d.edge_index)
    assert d.y.shape == (3890, 50) and d.y.dtype == torch.float and len(d.label_names) == 50
    assert int(d.y.sum()) == 6640 and d.y.sum(1).min() >= 1 and int(d.y.sum(1).max()) == 10
    no_loops = load("node2vec-ppi", root=data_root, self_loops="remove")
    assert no_loops.num_edges == 76584 - 894 and n_self_loops(no_loops) == 0


def test_yeast_bu2003(data_root):
    d = load("yeast-bu2003", root=data_root)
    check_contract(d)
    assert d.num_nodes == 2361 and n_self_loops(d) == 536
    assert d.num_edges == (7182 - 536) * 2 + 536 and is_undirected(d.edge_index)
    assert d.node_names[0] == "YBR236C" and d.node_descriptions[0].startswith("ABD1")
    sizes13 = torch.bincount(d.y13, minlength=13).tolist()
    # SOURCE.md: class 1(T):283, 2(M):183, 3(U):586, 4(C):146, ... 13(A):54
    assert sizes13 == [283, 183, 586, 146, 200, 147, 66, 260, 189, 82, 46, 119, 54]
    assert d.y.dtype == torch.long and int((d.y == -1).sum()) == 586
    assert d.label_names == ["T", "M", "C", "F", "P", "G", "D", "O", "E", "R", "B", "A"]
    assert set(d.y[d.y >= 0].tolist()) == set(range(12))
    assert d.label_names[int(d.y[d.y13 == 0][0])] == "T"


def test_shs27k(data_root):
    d = load("shs27k", root=data_root)
    check_contract(d)
    assert d.num_nodes == 1690 and d.num_edges == 2 * 7624 and is_undirected(d.edge_index)
    assert d.edge_mode.shape == (2 * 7624, 7) and d.edge_mode.sum(1).min() >= 1
    assert len(d.sequences) == 1690 and d.node_names[0].startswith("9606.ENSP")
    assert 0.15 <= float(d.edge_weight.min()) and float(d.edge_weight.max()) <= 0.982
    # the pair table in GNN-PPI's order; counts of SOURCE.md
    assert d.pairs.shape == (7624, 2) and d.pair_modes.shape == (7624, 7)
    per_mode = dict(zip(d.mode_names, d.pair_modes.sum(0).long().tolist(), strict=True))
    assert per_mode == {"reaction": 3164, "binding": 4017, "ptmod": 1303, "activation": 3297, "inhibition": 1407,
                        "catalysis": 3492, "expression": 687}
    assert torch.bincount(d.pair_modes.sum(1).long()).tolist() == [0, 3073, 1464, 1804, 701, 345, 234, 3]
    assert ((d.pair_direction > 0) == (d.pair_modes > 0)).all()
    assert d.x.shape == (1690, 789) and len(d.feature_names) == 789 and torch.isfinite(d.x).all()


def test_string_web_sample(data_root):
    d = load("string-web-sample", root=data_root)
    check_contract(d)
    assert d.num_nodes == 12 and d.num_edges == 2 * 19
    assert abs(float(d.edge_weight.min()) - 0.406) < 1e-6 and abs(float(d.edge_weight.max()) - 0.999) < 1e-6


def test_ppi_tissues(data_root):
    graphs = load("ppi-tissues", root=data_root)
    expected = {"cerebellum": (39114, 2608, 1122), "frontal_lobe": (24651, 1952, 906),
                "medulla_oblongata": (22571, 1828, 869), "midbrain": (31665, 2310, 1001),
                "occipital_lobe": (22768, 1845, 868), "parietal_lobe": (6702, 754, 409),
                "pons": (7594, 810, 438), "substantia_nigra": (31654, 2308, 1000),
                "temporal_lobe": (38281, 2570, 1106)}
    assert [g.tissue for g in graphs] == list(expected)
    for g in graphs:
        check_contract(g)
        pairs, nodes, loops = expected[g.tissue]
        assert (g.num_nodes, n_self_loops(g), g.num_edges) == (nodes, loops, 2 * pairs - loops)
    assert sum((g.num_edges + n_self_loops(g)) // 2 for g in graphs) == 225000
    assert len(set().union(*[g.node_names for g in graphs])) == 2716


def test_ppi_partial(data_root):
    graphs = load("ppi-partial", root=data_root)
    assert len(graphs) == 24 and sum(g.num_nodes for g in graphs) == 56944
    assert [g.num_nodes for g in graphs if g.split == "val"] == [3230, 3284]
    assert [g.num_nodes for g in graphs if g.split == "test"] == [3224, 2300]
    assert all(g.x.shape == (g.num_nodes, 50) for g in graphs if g.split == "val")


def test_all_gateway_webs_match_web_index(data_root):
    index = pd.read_csv(data_root / "gateway_dev" / "web_index.csv")
    assert len(GATEWAY_WEBS) == 57 == len(index)
    for _, row in index.iterrows():
        d = load(f"gateway/{row.web_id}", root=data_root)
        check_contract(d)
        assert (d.num_nodes, d.num_edges) == (row.n_nodes, row.n_links)
        assert n_self_loops(d) == 0 and d.x.shape[0] == d.num_nodes and not torch.isnan(d.x).any()
        assert d.edge_index.flatten().unique().numel() == d.num_nodes  # SOURCE.md: no isolated nodes
        assert d.trait_names[-2:] == ["log_mass", "mass_missing"]
        assert all(t.startswith(("met_", "mov_")) for t in d.trait_names[:-2])


def test_gateway_keeps_file_line_order(data_root):
    d = load("gateway/AEW03_11", root=data_root)
    lines = (data_root / "gateway_dev/webs/AEW03_11/11_edge_list.txt").read_text().split("\n")
    first = [tuple(map(int, ln.split())) for ln in lines[:5]]
    assert d.edge_index[:, :5].t().tolist() == [list(p) for p in first]
    assert d.web_id == 11 and d.published["full_roc_auc"] == pytest.approx(0.99038628133393)


CHEDDAR = {"Benguela": (29, 203, 7), "BroadstoneStream": (37, 132, 7), "ChesapeakeBay": (33, 73, 1),
           "Millstream/c4": (65, 422, 0), "Millstream/d4": (52, 263, 0), "SkipwithPond": (37, 381, 11),
           "TL84": (56, 269, 5), "TL86": (57, 241, 5), "YthanEstuary": (92, 417, 3),
           "pHWebs/Afon_Hafren": (25, 135, 4), "pHWebs/Allt_a_Mharcaidh": (40, 334, 7),
           "pHWebs/Bere_Stream": (66, 943, 6), "pHWebs/Broadstone": (25, 178, 6),
           "pHWebs/Dargall_Lane": (21, 99, 5), "pHWebs/Duddon_Pike_Beck": (35, 286, 6),
           "pHWebs/Hardknott_Gill": (44, 386, 5), "pHWebs/Mill_Stream": (87, 1654, 4),
           "pHWebs/Mosedal_Beck": (21, 108, 5), "pHWebs/Old_Lodge": (23, 137, 4)}


# SOURCE.md: basal (no resources), top (no consumers), isolated; a cannibal is its own resource/consumer
CHEDDAR_ROLES = {"Benguela": (2, 0, 0), "BroadstoneStream": (28, 10, 10), "ChesapeakeBay": (5, 12, 0),
                 "Millstream/c4": (32, 23, 0), "Millstream/d4": (31, 20, 0), "SkipwithPond": (3, 2, 1),
                 "TL84": (31, 6, 6), "TL86": (35, 7, 6), "YthanEstuary": (4, 30, 0),
                 "pHWebs/Afon_Hafren": (10, 2, 0), "pHWebs/Allt_a_Mharcaidh": (14, 4, 0),
                 "pHWebs/Bere_Stream": (27, 11, 1), "pHWebs/Broadstone": (8, 1, 0), "pHWebs/Dargall_Lane": (9, 1, 0),
                 "pHWebs/Duddon_Pike_Beck": (13, 4, 0), "pHWebs/Hardknott_Gill": (15, 1, 0),
                 "pHWebs/Mill_Stream": (33, 9, 0), "pHWebs/Mosedal_Beck": (10, 1, 0), "pHWebs/Old_Lodge": (12, 1, 0)}


def test_cheddar_direction_basal_top_isolated(data_root):
    for web, (basal, top, isolated) in CHEDDAR_ROLES.items():
        d = load(f"cheddar/{web}", root=data_root)
        has_res = torch.zeros(d.num_nodes, dtype=torch.bool)
        has_con = torch.zeros(d.num_nodes, dtype=torch.bool)
        has_res[d.edge_index[1]] = True  # prey -> predator: the target has a resource
        has_con[d.edge_index[0]] = True
        assert (int((~has_res).sum()), int((~has_con).sum()), int((~has_res & ~has_con).sum())) == \
            (basal, top, isolated), web


def test_cheddar_webs(data_root):
    assert set(CHEDDAR) == set(CHEDDAR_WEBS)
    for web, (nodes, links, cannibal) in CHEDDAR.items():
        d = load(f"cheddar/{web}", root=data_root)
        check_contract(d)
        assert (d.num_nodes, d.num_edges, n_self_loops(d)) == (nodes, links, cannibal), web
        assert not torch.isnan(d.x).any()
    # direction: Tuesday Lake basal species are exactly the producers (SOURCE.md check)
    tl = load("cheddar/TL84", root=data_root)
    has_prey = torch.zeros(tl.num_nodes, dtype=torch.bool)
    has_prey[tl.edge_index[1]] = True
    producers = torch.tensor([c == "producer" for c in tl.category])
    assert torch.equal(~has_prey, producers) and int(producers.sum()) == 31


PAJEK = {"ChesLower": (37, 31, 3, 68), "ChesMiddle": (37, 31, 3, 93), "ChesUpper": (37, 31, 3, 100),
         "Chesapeake": (39, 33, 3, 84), "CrystalC": (24, 20, 1, 61), "CrystalD": (24, 20, 1, 40),
         "Maspalomas": (24, 18, 3, 33), "Michigan": (39, 35, 1, 139), "Mondego": (46, 42, 1, 306),
         "Narragan": (35, 31, 1, 127), "StMarks": (54, 48, 3, 222), "baydry": (128, 122, 3, 1830),
         "baywet": (128, 122, 3, 1798), "cypdry": (71, 65, 3, 468), "cypwet": (71, 65, 3, 459),
         "gramdry": (69, 63, 3, 664), "gramwet": (69, 63, 3, 664), "mangdry": (97, 91, 3, 1210),
         "mangwet": (97, 91, 3, 1211)}


def test_pajek_foodwebs_feeding_arcs(data_root):
    assert set(PAJEK) == set(PAJEK_WEBS)
    for web, (_vertices, living, nonliving, feeding) in PAJEK.items():
        d = load(f"pajek/{web}", root=data_root)
        check_contract(d)
        assert d.num_nodes == living + nonliving and d.num_edges == feeding, web
        # every edge ends in a living compartment
        assert all(d.compartment_type[j] == "living" for j in d.edge_index[1].tolist())
        assert (d.edge_weight > 0).all()


def test_load_unknown_and_collection_errors(data_root):
    with pytest.raises(KeyError, match="unknown dataset 'nope'"):
        load("nope", root=data_root)
    with pytest.raises(KeyError, match="collection"):
        load("gateway", root=data_root)
    with pytest.raises(KeyError, match="unknown GATEWAy web"):
        load("gateway/99999", root=data_root)


@pytest.mark.parametrize("name,expected", [
    ("gateway/99999", r"unknown GATEWAy web 'gateway/99999' \(known: 57 webs with ids 0\.\.285"),
    ("gateway/12x", r"did you mean gateway/12 "),
    ("cheddar/Nope", r"unknown cheddar web 'cheddar/Nope' \(known: gatbio datasets --members cheddar\)"),
    ("cheddar/tl8", r"did you mean cheddar/TL86 or cheddar/TL84"),  # case ignored (cheddar/tl84 loads TL84)
    ("pajek/baydy", r"did you mean pajek/baydry"),
    ("node2vec_ppi", r"unknown dataset 'node2vec_ppi'; did you mean node2vec-ppi"),
    ("yeast", r"unknown dataset 'yeast'; did you mean yeast-bu2003\? \("),  # a prefix (was no suggestion)
])
def test_unknown_names_are_one_line_with_close_matches(tmp_path, name, expected):
    from gatbio.data import UnknownDatasetError

    with pytest.raises(UnknownDatasetError, match=expected) as err:
        load(name, root=tmp_path)  # the registry answers before any file is needed
    assert isinstance(err.value, KeyError) and isinstance(err.value, ValueError)
    assert "\n" not in str(err.value) and not str(err.value).startswith('"')  # not KeyError's repr


def test_a_collection_name_in_capitals_is_the_collection(data_root):
    """'GATEWAY/11' was unknown (with three unrelated suggestions); a collection's name is read in any case."""
    assert load("GATEWAY/11", root=data_root).num_nodes == load("gateway/11", root=data_root).num_nodes


def test_unknown_named_web_on_the_command_line_is_one_line(capsys):
    from gatbio.cli import main

    assert main(["trophic", "cheddar/Benguella"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean cheddar/Benguela?" in err and "Traceback" not in err
    assert main(["trophic", "gatewy/11"]) == 1
    assert "no such file or folder, nor a named web; did you mean gateway/11" in capsys.readouterr().err


def test_load_returns_independent_copies(data_root):
    a = load("gateway/11", root=data_root)
    a.edge_index[0, 0] = 999
    a.node_names[0] = "changed"
    b = load("gateway/11", root=data_root)
    assert int(b.edge_index[0, 0]) != 999 and b.node_names[0] != "changed"


def test_a_relative_root_is_another_folder_after_a_chdir(data_root, tmp_path, monkeypatch):
    """The in-memory cache keyed a relative root by its text: after a chdir, root="d" (or GATBIO_DATA=d) naming a
    folder without the files still returned the first folder's graph."""
    import shutil

    from gatbio.data.sources import DatasetNotFoundError

    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(data_root / "string_web_export_sample", a / "d" / "string_web_export_sample")
    (b / "d").mkdir(parents=True)
    monkeypatch.chdir(a)
    assert load("string-web-sample", root="d").num_nodes == 12
    monkeypatch.chdir(b)
    with pytest.raises(DatasetNotFoundError):
        load("string-web-sample", root="d")


def test_list_datasets_reports_presence(data_root, tmp_path):
    df = list_datasets(root=data_root)
    assert set(df["name"]) >= {"node2vec-ppi", "gateway/<web>", "ppi"}
    status = dict(zip(df["name"], df["present"], strict=False))
    assert status["node2vec-ppi"] == "yes" and status["ppi"] == "no"
    assert (list_datasets(root=tmp_path)["present"] == "no").all()
    assert "gateway/11" not in dataset_names() and "gateway/AEW03_11" in dataset_names(expand=True)


@pytest.mark.parametrize("name,keyword,takes", [
    ("shs27k", "self_loops", "it takes min_score, features, max_len, extra"),
    ("gateway/11", "self_loops", "it takes none"),
    ("string-web-sample", "self_loops", "it takes none"),
    ("cheddar/TL84", "selfloops", "it takes self_loops$"),
])
def test_a_keyword_the_dataset_does_not_take_names_the_dataset_and_those_it_takes(tmp_path, name, keyword, takes):
    """Was Python's own message naming a private loader: `load_shs27k() got an unexpected keyword argument`;
    refused before any file is read (tmp_path holds none)."""
    with pytest.raises(TypeError, match=rf"^load\('{name}'\) got the keyword\(s\) {keyword}, which this dataset does "
                                        rf"not take; {takes}"):
        load(name, root=tmp_path, **{keyword: "remove"})


def test_self_loops_remove_is_taken_where_the_loader_takes_it(data_root):
    assert n_self_loops(load("yeast-bu2003", root=data_root, self_loops="remove")) == 0


def test_a_name_that_is_not_a_string_is_refused_clearly(tmp_path):
    with pytest.raises(TypeError, match=r"name must be a dataset name \(a str, e.g. 'node2vec-ppi'\); got NoneType"):
        load(None, root=tmp_path)


def test_data_root_error_is_exported():
    import gatbio.data
    from gatbio.data import sources

    assert gatbio.data.DataRootError is sources.DataRootError and "DataRootError" in gatbio.data.__all__


def test_cheddar_without_its_rdata_files_is_present_when_every_csv_is(data_root, tmp_path):
    """Downloaded web by web, cheddar keeps the CSV files made from its RData files, not the RData: that is the
    whole collection (it said 'partial (57/66)'). One CSV file missing: partial, and its RData counts as missing."""
    src = data_root / "foodwebs_cheddar"
    csvs = sorted(p.relative_to(src) for p in src.rglob("*.csv"))
    for rel in csvs:
        (tmp_path / "foodwebs_cheddar" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "foodwebs_cheddar" / rel).symlink_to(src / rel)
    status = dict(zip(list_datasets(root=tmp_path)["name"], list_datasets(root=tmp_path)["present"], strict=False))
    assert status["cheddar/<web>"] == "yes"
    (tmp_path / "foodwebs_cheddar" / "TL84" / "nodes.csv").unlink()
    status = dict(zip(list_datasets(root=tmp_path)["name"], list_datasets(root=tmp_path)["present"], strict=False))
    n = len(csvs) + len(list((src / "original_RData").glob("*.RData")))
    assert status["cheddar/<web>"] == f"partial ({n - 2}/{n})"  # TL84's nodes.csv and TL84.RData


def test_downloading_cheddar_after_its_webs_fetches_nothing(data_root, tmp_path):
    """Every CSV file there (downloaded web by web): the collection's download wants no RData file again."""
    from gatbio.data.sources import download

    src = data_root / "foodwebs_cheddar"
    for rel in (p.relative_to(src) for p in src.rglob("*.csv")):
        (tmp_path / "foodwebs_cheddar" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "foodwebs_cheddar" / rel).symlink_to(src / rel)

    def fetch(url):
        raise AssertionError(f"fetched {url}")

    assert download("cheddar", root=tmp_path, fetch=fetch) == []
