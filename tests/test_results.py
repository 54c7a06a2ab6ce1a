"""gatbio.results: the markdown table every summary writes (known answer)."""

import pandas as pd

from gatbio.results import format_mean_std, markdown_table, summarize


def test_markdown_table_of_a_mean_std_summary():
    df = pd.DataFrame({"variant": ["a", "a", "b"], "f1": [0.2, 0.4, 0.5]})
    table = format_mean_std(summarize(df, ["variant"], ["f1"]), ["variant"], ["f1"])
    assert markdown_table(table) == ("| variant | n | f1 |\n"
                                     "|---|---|---|\n"
                                     "| a | 2 | 0.300 ± 0.141 |\n"
                                     "| b | 1 | 0.500 ± 0.000 |")
