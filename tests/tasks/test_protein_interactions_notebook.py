"""notebooks/protein_interactions.ipynb runs top to bottom on results of the quick SHS27k config."""

import pytest
from conftest import REPO, run_notebook


@pytest.mark.slow
def test_interactions_notebook_runs_on_quick_results(data_root, tmp_path):
    from gatbio.tasks import protein_interactions as pi

    cfg = pi.load(REPO / "experiments/configs/shs27k_quick.yaml",
                  [f"out_dir={tmp_path}", "splits=[bfs]", "epochs=10", "graphs=[train]", "device=cpu"])
    pi.run(cfg)
    run_notebook(REPO / "notebooks/protein_interactions.ipynb", env={"GATBIO_INTERACTIONS_RESULTS": str(tmp_path)})
