"""Can a reviewer trust the food-web benchmark's numbers? Leakage, negatives, saved splits, seeds and webs.

Each test builds tiny webs in the gateway_dev/webs layout and checks one promise of
:mod:`gatbio.tasks.foodweb` end to end, through :func:`run_web` / :func:`benchmark` as the CLI runs them:

- changing only the held-out links of a fold changes no score any model gives in that fold (so no feature,
  trophic level, message, training pair, negative sample or prior of a model saw them);
- the test negatives are neither training nor test positives, and cannibal links are never scored;
- the splits saved in the result file give back exactly the pairs that were scored;
- a web's results depend on its own files only: the same on a rerun and with or without other webs beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import niche_edges

from gatbio.tasks import foodweb as fw

N = 16


def niche_links(n: int = N, seed: int = 0) -> list[tuple[int, int]]:
    """The links (prey, predator) of a niche-model web of ``n`` species, in a shuffled (file) order."""
    edges, _ = niche_edges(n, seed)
    return [(int(a), int(b)) for a, b in edges.T]


def write_folder(folder: Path, links: list[tuple[int, int]], n: int = N) -> Path:
    """A web folder (``<id>_edge_list.txt`` in the given order, and a node table with traits)."""
    wid = folder.name.rsplit("_", 1)[1]
    folder.mkdir(parents=True)
    (folder / f"{wid}_edge_list.txt").write_text("".join(f"{a} {b}\n" for a, b in links))
    rows = [f"{k} {k % 2} {int(k % 2 == 0)} {np.log10(k + 1.5):.5f}" for k in range(n)]
    (folder / f"{wid}_node_attr_list.txt").write_text("id met_a met_b log_mass\n" + "\n".join(rows) + "\n")
    return folder


def tiny_cfg(tmp_path: Path, **kw) -> fw.FoodWebConfig:
    base = dict(webs=str(tmp_path / "webs"), out=str(tmp_path / "out"), seeds=[0, 1], species_seeds=[0],
                gat=fw.GATParams(epochs=20, eval_every=5, hidden_channels=4, heads=2),
                stack=fw.lp.StackParams(max_iter=10, max_negatives=50, low_rank=[2, 4], trait_scores=True),  # sampled
                niche_steps=10, ensemble_seeds=3)
    base.update(kw)
    return fw.FoodWebConfig(**base)


def first_fold_scores(monkeypatch) -> list:
    """Make :func:`fw.fold_scores` compute the first fold of each run for real (and record its inputs and every
    model's scores) and give zeros for the other folds (this test looks at the first fold only)."""
    real, seen = fw.fold_scores, []

    def first_only(A, traits, cfg, mode, seeds, *a, **k):
        if len(seen) % 5 == 0:  # the first of a run's 5 folds
            out = real(A, traits, cfg, mode, seeds, *a, **k)
            seen.append({"A": A.toarray(), "traits": traits, "scores": out})
            return out
        seen.append(None)
        n = A.shape[0]
        return {m: [np.zeros((n, n))] for m in cfg.models}

    monkeypatch.setattr(fw, "fold_scores", first_only)
    return seen


# ----------------------------------------------------------------------------------------------- leakage
@pytest.mark.parametrize("protocol", ["links", "species"])
def test_changing_only_the_held_out_links_of_a_fold_changes_no_score_of_that_fold(tmp_path, monkeypatch, protocol):
    """Two webs that differ only in the links fold 0 holds out (links: other pairs on the held-out block's file
    lines; species: other links of the held-out species) give every model of fold 0 the same inputs and the same
    (N, N) scores, bit for bit: degrees, MacKay levels, messages, the cross-fitted training pairs and their
    sampled negatives, the niche model's start, the stacks' features and the GAT's early stopping all come from
    the observed links; only the truth they are scored against moves."""
    links = niche_links()
    cfg = tiny_cfg(tmp_path, protocols=[protocol])
    if protocol == "links":
        lo, hi = 0, -(-len(links) // 5)  # fold 0: the first block of file lines
        kept = set(links[hi:])
        others = [(a, b) for a in range(N) for b in range(N) if a != b and (a, b) not in set(links)]
        moved = [others[k] for k in np.random.default_rng(1).choice(len(others), hi - lo, replace=False)]
        other_web = moved + links[hi:]
        assert set(moved).isdisjoint(kept) and set(moved) != set(links[lo:hi])
    else:
        held = set(np.array_split(np.random.default_rng(cfg.split_seed).permutation(N), 5)[0].tolist())
        kept = [(a, b) for a, b in links if a not in held and b not in held]
        touch = [(h, (h + 5) % N) for h in sorted(held)] + [((h + 7) % N, h) for h in sorted(held)]
        moved = [p for p in dict.fromkeys(touch) if p[0] != p[1] and p not in set(kept)]
        other_web = kept + moved
        assert set(moved) != set(links) - set(kept)
    seen = first_fold_scores(monkeypatch)
    for name, web in (("A_1", links), ("B_2", other_web)):
        fw.run_web(write_folder(tmp_path / "webs" / name, web), cfg.out, cfg, protocol)
    a, b = (s for s in seen if s is not None)
    np.testing.assert_array_equal(a["A"], b["A"])
    np.testing.assert_array_equal(a["traits"], b["traits"])
    assert set(a["scores"]) == set(b["scores"]) and len(a["scores"]) >= 10
    for model, per_seed in a["scores"].items():
        assert len(per_seed) == len(b["scores"][model])
        for s_a, s_b in zip(per_seed, b["scores"][model], strict=True):
            assert np.array_equal(s_a, s_b), f"{model}: the held-out links moved its scores"
    recs = [json.loads((Path(cfg.out) / "webs" / f"{w}.{protocol}.json").read_text()) for w in ("A_1", "B_2")]
    assert recs[0]["splits"][0] == recs[1]["splits"][0]  # the same fold, scored against other truths


# ----------------------------------------------------------------------------------------------- negatives
def test_test_negatives_are_no_positive_and_cannibal_links_are_never_scored(tmp_path):
    """Links protocol on a web with a reciprocal pair and two cannibal links: in every fold, the test positives
    are exactly the held-out block, the negatives are every other ordered pair i != j that is no link of the web
    (never a training link, never a held-out one), and a species eating itself is neither."""
    links = [(a, b) for a, b in niche_links() if (b, a) not in set(niche_links())][:30]
    links = links[:3] + [(4, 4)] + links[3:17] + [(9, 9)] + links[17:] + [(links[5][1], links[5][0])]
    folder = write_folder(tmp_path / "webs" / "Loops_3", links)
    data = fw.read_web_folder(folder, say=False)
    web = [p for p in links if p[0] != p[1]]
    assert [tuple(e) for e in data.edge_index.t().tolist()] == web
    for f in fw.link_folds(data):
        lo, hi = f["split"]["test_lines"]
        observed = {tuple(e) for e in f["observed"].t().tolist()}
        pos = {(int(i), int(j)) for i, j in zip(*np.nonzero(f["test"] & f["truth"]), strict=True)}
        neg = {(int(i), int(j)) for i, j in zip(*np.nonzero(f["test"] & ~f["truth"]), strict=True)}
        assert pos == set(web[lo:hi]) and observed == set(web) - pos
        assert not neg & observed and not neg & pos and not neg & set(web)
        assert len(neg) == N * (N - 1) - len(web)
        assert not np.diag(f["test"]).any()  # (4, 4) and (9, 9): never a test pair


# ----------------------------------------------------------------------------------------------- saved splits
def test_the_saved_splits_give_back_the_scored_pairs_when_cannibal_links_were_left_out(tmp_path):
    """A web folder with cannibal links: they are left out before the folds, so the saved ``test_lines`` count the
    other links, not the file's lines. The result file said nothing of it (only a note on stderr), so a reviewer
    reloading the folds from it scored other pairs; it now lists the left-out lines (``self_loops_dropped``, 0-based
    positions among the file's links), from which the scored pairs come back exactly."""
    links = niche_links()[:25]
    links = [(3, 3)] + links[:6] + [(7, 7)] + links[6:]
    folder = write_folder(tmp_path / "webs" / "Loops_4", links)
    cfg = tiny_cfg(tmp_path, models=["l3_ra"], protocols=["links"])
    rec = json.loads(Path(fw.run_web(folder, cfg.out, cfg, "links")).read_text())
    assert rec["self_loops_dropped"] == [0, 7]
    assert "cannibal" in rec["link_order"] and "test_lines" in rec["link_order"]
    from_file = [p for k, p in enumerate(links) if k not in set(rec["self_loops_dropped"])]
    for split, row in zip(rec["splits"], [r for r in rec["rows"] if r["model"] == "l3_ra"], strict=True):
        lo, hi = split["test_lines"]
        held = from_file[lo:hi]
        assert all(a != b for a, b in held) and row["n_pos"] == len(held)
        assert row["n_neg"] == N * (N - 1) - len(from_file)
        assert held != links[lo:hi]  # the file's lines lo..hi: other pairs (a cannibal link among them)
        obs = [p for p in from_file if p not in set(held)]
        A = fw.adjacency_of(torch.tensor(obs).t(), N)
        assert A.nnz == len(from_file) - len(held)
    clean = write_folder(tmp_path / "webs" / "Clean_5", niche_links()[:25])
    rec = json.loads(Path(fw.run_web(clean, cfg.out, cfg, "links")).read_text())
    assert "self_loops_dropped" not in rec and "link_order" not in rec  # a web without them: as before


# ----------------------------------------------------------------------------------------------- seeds, webs
def test_a_webs_results_are_its_own_the_same_on_a_rerun_and_beside_other_webs(tmp_path):
    """The benchmark (both protocols, every model) on a web alone and on the same web with a smaller one beside it,
    run first in the same process: the web's rows are identical (nothing of another web, its links, traits or
    scaling, and no random state it leaves, reaches its models), so a rerun scores the same pairs the same way.
    In every fold all models are scored on the same pairs (one n_pos, n_neg per fold)."""
    links = niche_links()
    write_folder(tmp_path / "alone" / "Big_1", links)
    write_folder(tmp_path / "both" / "Big_1", links)
    write_folder(tmp_path / "both" / "Small_2", niche_links(11, seed=3), n=11)
    runs = {}
    for where in ("alone", "both"):
        cfg = tiny_cfg(tmp_path, webs=str(tmp_path / where), out=str(tmp_path / f"out_{where}"), jobs=1)
        fw.benchmark(cfg, progress=False)
        runs[where] = [json.loads((Path(cfg.out) / "webs" / f"Big_1.{p}.json").read_text())
                       for p in ("links", "species")]
    assert (tmp_path / "out_both" / "webs" / "Small_2.links.json").is_file()
    for alone, both in zip(runs["alone"], runs["both"], strict=True):
        assert alone["splits"] == both["splits"]
        assert alone["rows"] == both["rows"]
        per_fold = {}
        for r in alone["rows"]:
            per_fold.setdefault(r["fold"], set()).add((r["n_pos"], r["n_neg"]))
        assert all(len(v) == 1 for v in per_fold.values())
    gat = sorted({r["seed"] for r in runs["alone"][0]["rows"] if r["model"] == "gat"})
    assert gat == [0, 1, 2]  # seeds 0, 1 and the ensemble's next one: several seeds, each fixed
