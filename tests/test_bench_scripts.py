"""experiments/bench_embed.py, bench_batch_seeds.py, bench_readers.py, bench_string_scale.py, bench_foodweb_fit.py and
bench_attention_mask.py: arguments
checked before any work (one line, exit 2), and the side-by-side figures they print."""

from __future__ import annotations

import json

import pytest
from conftest import experiment_script


@pytest.mark.parametrize("script,argv,message", [
    ("bench_embed", ["--only", "bogus"], "--only ['bogus']: no such method"),
    ("bench_embed", ["--device", "mps"], "device 'mps'"),
    ("bench_embed", ["--json", "."], "--json .: is a folder"),
    ("bench_batch_seeds", ["--webs", "nope"], "--webs ['nope']: no such web folder"),
    ("bench_batch_seeds", ["--repeats", "0"], "--repeats 0: give at least 1"),
    ("bench_batch_seeds", ["--json", "."], "--json .: is a folder"),
    ("bench_readers", ["--lines", "0"], "--lines 0: give at least 2"),
    ("bench_readers", ["--lines", "-5"], "--lines -5: give at least 2"),
    ("bench_string_scale", ["--proteins", "0", "--generate-only"], "--proteins 0: give at least 2"),
    ("bench_string_scale", ["--labelled-fraction", "2"], "--labelled-fraction 2.0: give a share in (0, 1]"),
    ("bench_string_scale", ["--proteins", "10", "--edges", "100"], "--edges 100 needs more than 10 proteins"),
    ("bench_string_scale", ["--edges", "7"], "give an even number"),
    ("bench_foodweb_fit", ["--webs", "nope"], "--webs ['nope']: not web folders of"),
    ("bench_foodweb_fit", ["--seeds", "0"], "--seeds 0: give at least 1"),
    ("bench_foodweb_fit", ["--against", "/nonexistent"], "--against /nonexistent: not a gatbio checkout"),
    ("bench_foodweb_fit", ["--json", "."], "--json .: is a folder"),
    ("bench_attention_mask", ["--edges", "0"], "--edges 0: give at least 1"),
    ("bench_attention_mask", ["--repeats", "0"], "--repeats 0: give at least 1"),
])
def test_bad_arguments_stop_before_any_work(script, argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        experiment_script(script).main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_the_block_product_is_timed_in_numpy_and_torch_side_by_side(tmp_path, capsys):
    bench = experiment_script("bench_embed")
    out = tmp_path / "block.json"
    assert bench.block_product(str(out), n=300, h=16, cols=8, repeats=2) == 0
    row = json.loads(out.read_text())["block_product"]
    assert row["torch_over_numpy"] == pytest.approx(row["torch_s"] / row["numpy_s"], rel=0.02, abs=0.01)
    assert "torch / numpy" in capsys.readouterr().out


@pytest.mark.usefixtures("data_root")
def test_foodweb_fit_is_timed_side_by_side_with_the_same_models(tmp_path, capsys):
    """Two checkouts (here both this one) train the same models: the script says so, and gives the ratio."""
    from pathlib import Path

    bench = experiment_script("bench_foodweb_fit")
    out = tmp_path / "fit.json"
    here = Path(bench.__file__).resolve().parent.parent
    assert bench.main(["--webs", "BP2_170", "--seeds", "1", "--rounds", "1", "--against", str(here),
                       "--json", str(out)]) == 0
    row = json.loads(out.read_text())
    assert row["BP2_170.same_models"] is True
    assert row["BP2_170.ratio_vs_against"] == pytest.approx(row["BP2_170.seconds"] / row["BP2_170.against_seconds"],
                                                           rel=0.01)
    assert "same models: yes" in capsys.readouterr().out


def test_attention_mask_cost_is_timed_side_by_side_with_the_same_weights(capsys):
    """The two computations give the same weights (asserted inside, rtol = atol = 0), and the ratio is printed."""
    assert experiment_script("bench_attention_mask").main(["--nodes", "50", "--edges", "400", "--repeats", "2"]) == 0
    out = capsys.readouterr().out
    assert "the same weights" in out and "without masking" in out and "ratio             :" in out
