"""Audit of the top-level ``gatbio`` command as a new user meets it."""

from __future__ import annotations

import pytest

from gatbio._options import suggest_choice
from gatbio.cli import main


@pytest.mark.parametrize("argv, suggestion", [
    (["protien"], "did you mean 'protein'?"),
    (["Datasets"], "did you mean 'datasets'?"),
    (["protein", "predcit"], "did you mean 'predict'?"),
    (["foodweb", "sumarize"], "did you mean 'summarize'?"),
    (["trophic", "--method", "levin", "web.txt"], "did you mean 'levine'?"),
])
def test_a_misspelt_command_or_choice_names_the_closest(argv, suggestion, capsys):
    # was: "invalid choice: 'protien' (choose from ...)" and no suggestion
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice" in err and err.rstrip().endswith(suggestion)


def test_no_suggestion_when_nothing_is_close():
    msg = "argument COMMAND: invalid choice: 'xyz' (choose from 'datasets', 'trophic', 'protein')"
    assert suggest_choice(msg) == msg
    # the unquoted list of newer Pythons, and a message that already suggests (Python 3.14)
    assert suggest_choice("argument A: invalid choice: 'rn' (choose from run, predict)").endswith(
        "; did you mean 'run'?")
    done = "argument A: invalid choice: 'rn', maybe you meant 'run'? (choose from run, predict)"
    assert suggest_choice(done) == done
