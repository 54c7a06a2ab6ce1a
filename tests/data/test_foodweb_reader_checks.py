"""Checks of the food-web readers on what a user's files get wrong: Pajek flow webs (an ECO type outside 1-5, no
ECO types partition, no biomass vector), repeated Pajek vertex labels, a cheddar link listed twice, and a GATEWAy
node table with a repeated column name."""

from __future__ import annotations

import re

import pytest
from conftest import write

from gatbio.cli import main
from gatbio.data.foodweb import read_cheddar, read_pajek_foodweb, read_trait_table
from gatbio.data.io import MalformedFileError, read_pajek_network

# A SCOR flow web: grass (living) eaten by rabbit, rabbit by fox, detritus (non-living) eaten by rabbit; Input feeds
# grass, everyone respires. Only the 3 feeding arcs are links.
PARTITION = "*partition ECO types / tiny\n*vertices 6\n1\n1\n1\n2\n3\n5\n"  # values on lines 3-8
NETWORK = ('*network tiny\n*vertices 6\n1 "grass"\n2 "rabbit"\n3 "fox"\n4 "detritus"\n5 "Input"\n6 "Respiration"\n'
           "*arcs\n1 2 10\n2 3 2\n4 2 1\n5 1 20\n2 6 3\n3 6 1\n1 4 5\n")
VECTOR = "*vector bio-masses / tiny\n*vertices 6\n100\n10\n1\n50\n0\n0\n"




def test_flow_web_reads_its_feeding_arcs(tmp_path):
    """The intact tiny web: the baseline the other Pajek tests change one thing of."""
    d = read_pajek_foodweb(write(tmp_path, "w.paj", PARTITION + NETWORK + VECTOR))
    assert d.node_names == ["grass", "rabbit", "fox", "detritus"]
    assert d.edge_index.tolist() == [[0, 1, 3], [1, 2, 1]] and d.edge_weight.tolist() == [10.0, 2.0, 1.0]
    assert d.x[:, 1].tolist() == [0.0, 0.0, 0.0, 0.0]  # no biomass missing


@pytest.mark.parametrize("value", ["7", "0"])
def test_an_eco_type_outside_1_to_5_is_refused_at_its_line(tmp_path, value):
    """A type 7 (or 0) dropped the compartment silently (fox gone, with its link)."""
    text = PARTITION.replace("1\n2\n3", f"{value}\n2\n3") + NETWORK + VECTOR  # fox's type (vertex 3), line 5
    path = write(tmp_path, "w.paj", text.replace("\n", "\r\n"))
    with pytest.raises(MalformedFileError, match=re.escape(
            f"w.paj:5: ECO type must be 1-5 (1 living, 2 non-living, 3 input, 4 output, 5 respiration), found "
            f"{value} for vertex 3")):
        read_pajek_foodweb(path)


def test_boundary_compartments_without_an_eco_partition_are_refused(tmp_path, capsys):
    """Without the partition, 'Respiration' was read as a top predator of the plain network; any case refused."""
    path = write(tmp_path, "w.paj", NETWORK.replace('"Input"', '"INPUT"') + VECTOR)
    message = ("w.paj:7: vertex 5 is 'INPUT', a boundary compartment of a SCOR flow web (Input, Output, "
               "Respiration: its arcs are imports, exports and respiration, not feeding links), but the file has no "
               "'*partition ECO types' saying which vertices are species: add one before *network")
    with pytest.raises(MalformedFileError, match=re.escape(message)):
        read_pajek_network(path)
    with pytest.raises(MalformedFileError, match=r"w\.paj: no '\*partition ECO types' \(each vertex's compartment "
                                                 r"type: 1 living, .*, which tells the feeding arcs from "
                                                 r"imports, exports and respiration: add it before \*network"):
        read_pajek_foodweb(path)
    assert main(["trophic", str(path)]) == 1
    assert message in capsys.readouterr().err
    # a plain food web without such vertices is still read as a plain network
    plain = write(tmp_path, "p.net", '*Vertices 3\n1 "grass"\n2 "rabbit"\n3 "fox"\n*Arcs\n1 2\n2 3\n')
    assert read_pajek_network(plain).edge_index.tolist() == [[0, 1], [1, 2]]


def test_a_flow_web_without_biomass_is_read_with_a_note(tmp_path, caplog):
    """Biomass is not needed for the feeding links: same links, biomass flagged missing everywhere."""
    d = read_pajek_foodweb(write(tmp_path, "w.paj", PARTITION + NETWORK))
    assert d.edge_index.tolist() == [[0, 1, 3], [1, 2, 1]]
    assert d.trait_names == ["log10_biomass", "biomass_missing", "living"]
    assert d.x.tolist() == [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 1.0, 0.0]]
    assert "w.paj: no '*vector bio-masses': the web is read without biomass (log10_biomass 0 and biomass_missing 1 " \
           "for every compartment)" in caplog.text
    short = VECTOR.replace("*vertices 6\n100\n", "*vertices 5\n")  # 5 values for the 6 vertices
    with pytest.raises(MalformedFileError, match=r"w2\.paj: \*vector 'bio-masses / tiny' has 5 values for the 6 "
                                                 r"vertices of the network"):
        read_pajek_foodweb(write(tmp_path, "w2.paj", PARTITION + NETWORK + short))


DUP = '*Vertices 5\n1 "grass"\n2 "grass"\n3 "fox"\n4 "rabbit"\n5 "wolf"\n*Arcs\n1 4\n2 4\n4 3\n4 5\n3 5\n2 3\n'


def test_a_repeated_vertex_label_is_refused(tmp_path, capsys):
    """Two 'grass' vertices gave a 'grass,grass' row and two different 'grass,wolf' rows in a prediction."""
    path = write(tmp_path, "d.net", DUP)
    message = "d.net:3: vertex label 'grass' is also vertex 1's (line 2): give each vertex its own label"
    with pytest.raises(MalformedFileError, match=re.escape(message)):
        read_pajek_network(path)
    assert main(["trophic", str(path)]) == 1
    assert message in capsys.readouterr().err
    flow = PARTITION + NETWORK.replace('3 "fox"', '3 "rabbit"') + VECTOR  # also in a flow web
    with pytest.raises(MalformedFileError, match=re.escape(
            "f.paj:13: vertex label 'rabbit' is also vertex 2's (line 12): give each vertex its own label")):
        read_pajek_foodweb(write(tmp_path, "f.paj", flow))


def test_a_cheddar_link_listed_twice_is_merged_with_a_note(tmp_path, caplog):
    web = tmp_path / "ch"
    web.mkdir()
    (web / "nodes.csv").write_text("node,M\ngrass,0.1\nrabbit,2\nfox,5\n")
    (web / "trophic.links.csv").write_text("resource,consumer,biomass.flow\ngrass,rabbit,1\nrabbit,fox,2\n"
                                           "grass,rabbit,3\n")
    d = read_cheddar(web)
    assert d.edge_index.tolist() == [[0, 1], [1, 2]] and d.edge_weight.tolist() == [4.0, 2.0]  # weights summed
    assert "trophic.links.csv: 1 link listed more than once, e.g. 'grass' -> 'rabbit' (lines 2 and 4): merged, " \
           "each counted once; their weights summed" in caplog.text


def test_a_repeated_column_of_a_gateway_node_table_is_refused(tmp_path):
    """pandas made the repeated column a DataFrame: 'The truth value of a Series is ambiguous', with no file."""
    path = write(tmp_path, "9_node_attr_list.txt", "id mov_walking met_plant mov_walking\n0 1 0 1\n1 0 1 0\n")
    with pytest.raises(MalformedFileError, match=re.escape(
            "9_node_attr_list.txt:1: column 'mov_walking' appears twice in the header (columns 2 and 4): rename "
            "one")):
        read_trait_table(path, 2)
