"""notebooks/protein_function.ipynb runs top to bottom on results of a quick real-data config."""

import pytest
from conftest import REPO, run_notebook


@pytest.mark.slow
def test_protein_notebook_runs_on_quick_results(data_root, tmp_path):
    from gatbio.tasks import protein

    cfg = protein.load(REPO / "experiments/configs/protein_quick.yaml",
                       [f"out_dir={tmp_path}", "fractions=[0.3,0.5]", "inputs=[prone]", "epochs=12",
                        "variants=[neighbor_vote,lr_prone,gat_labels]"])
    protein.run(cfg)
    run_notebook(REPO / "notebooks/protein_function.ipynb", env={"GATBIO_PROTEIN_RESULTS": str(tmp_path)})
