"""One case rule for dataset names (load and ``gatbio datasets``), UniProt FASTA headers read as accessions, and the
sequence tables a user writes (CSV, a header naming the sequence column among several, ``;`` comments)."""

from __future__ import annotations

import pickle

import pytest
from torch_geometric.data import Data

from gatbio.cli import main
from gatbio.data import DATASETS, UnknownDatasetError, load, resolve_name
from gatbio.data.sequence import ProteinId, match_ids, read_sequences
from gatbio.data.sources import DatasetInfo
from gatbio.data.tables import MalformedFileError


def write(folder, name, text):
    p = folder / name
    p.write_text(text)
    return p


# ------------------------------------------------------------------------------------------- one case rule
@pytest.mark.parametrize("given, expected", [
    ("shs27k", "shs27k"), ("SHS27K", "shs27k"), ("Node2Vec-PPI", "node2vec-ppi"),
    ("GATEWAY/11", "gateway/11"), ("gateway/aew03_11", "gateway/AEW03_11"), ("gateway/balsam LAKE_59",
                                                                           "gateway/Balsam lake_59"),
    ("cheddar/tl84", "cheddar/TL84"), ("Cheddar/phwebs/broadstone", "cheddar/pHWebs/Broadstone"),
    ("pajek/BAYDRY", "pajek/baydry"), ("Pajek/BayDry.PAJ", "pajek/baydry"), ("pajek/chesapeake", "pajek/Chesapeake"),
])
def test_every_part_of_a_name_is_matched_ignoring_case(given, expected):
    """A dataset's name was case-sensitive ('SHS27K' unknown), a collection's was not ('GATEWAY/11' loaded) and a
    web's was again ('pajek/BAYDRY', 'cheddar/tl84' unknown): one rule now."""
    assert resolve_name(given) == expected


def test_load_takes_case_variants_of_every_kind_of_name(data_root):
    assert load("String-Web-Sample", root=data_root).name == "string-web-sample"
    assert load("Pajek/BAYDRY", root=data_root).name == "pajek/baydry"
    assert load("cheddar/tl84", root=data_root).name == "cheddar/TL84"
    assert load("gateway/aew03_11", root=data_root).name == "gateway/11"


def test_an_exact_name_wins_and_names_equal_but_for_case_are_ambiguous(monkeypatch):
    info = DatasetInfo("webs", "webs", "foodweb", "t", "c", "l", "d", "1", "1", "", members=("Web", "web", "Other"))
    monkeypatch.setitem(DATASETS, "webs", info)
    monkeypatch.setitem(DATASETS, "Webs", DatasetInfo("Webs", "Webs2", "ppi", "t", "c", "l", "d", "1", "1", ""))
    assert resolve_name("webs/web") == "webs/web" and resolve_name("webs/Web") == "webs/Web"
    assert resolve_name("webs/OTHER") == "webs/Other" and resolve_name("Webs") == "Webs"
    with pytest.raises(UnknownDatasetError, match=r"webs web 'webs/WEB' is ambiguous: 2 names differ from it only by "
                                                  r"case; did you mean webs/Web or webs/web\? \(give one exactly\)"):
        resolve_name("webs/WEB")
    with pytest.raises(UnknownDatasetError, match=r"dataset 'WEBS' is ambiguous.*did you mean webs or Webs\?"):
        resolve_name("WEBS")


@pytest.mark.parametrize("name, expected", [
    ("gatewy/11", r"unknown dataset 'gatewy/11'; did you mean gateway/11\? \(known: "),  # was gateway/BP3_171, ...
    ("Chedar/TL84", r"did you mean cheddar/TL84\?"),
    ("pajek/bay", r"unknown Pajek food web 'pajek/bay'; did you mean"),
    ("shs27k/x", r"unknown dataset 'shs27k/x'; did you mean shs27k\?"),
])
def test_unknown_names_still_get_the_closest(tmp_path, name, expected):
    with pytest.raises(UnknownDatasetError, match=expected) as err:
        load(name, root=tmp_path)
    assert "\n" not in str(err.value)


def test_datasets_command_follows_the_rule(data_root, tmp_path, monkeypatch, capsys):
    """--download Pajek/BAYDRY was 'unknown dataset' (and --members Gateway, --verify SHS27K too)."""
    f = next(f for f in DATASETS["pajek"].files if f.path == "baydry.paj")
    mirror = tmp_path / "mirror"
    dest = mirror / f.url.split("://", 1)[1]
    dest.parent.mkdir(parents=True)
    dest.write_bytes((data_root / "foodwebs_ulanowicz_pajek" / f.path).read_bytes())
    monkeypatch.setenv("GATBIO_MIRROR", str(mirror))  # loopback only: a folder as the mirror
    assert main(["datasets", "--download", "Pajek/BAYDRY", "--root", str(tmp_path / "data")]) == 0
    assert "pajek/baydry: 1 file(s) written" in capsys.readouterr().out
    assert [p.name for p in (tmp_path / "data").rglob("*.paj")] == ["baydry.paj"]
    assert main(["datasets", "--verify", "PAJEK/baydry", "--root", str(tmp_path / "data")]) == 0
    assert capsys.readouterr().out == "pajek/baydry: 1 ok\n"  # that web's file only, not 18 missing ones
    assert main(["datasets", "--verify", "String-Web-Sample", "--root", str(data_root)]) == 0
    assert "string-web-sample: 1 ok" in capsys.readouterr().out
    assert main(["datasets", "--members", "Gateway"]) == 0
    assert "gateway/AEW03_11" in capsys.readouterr().out.split("\n")


# ------------------------------------------------------------------------------------------- UniProt headers
UNIPROT = (">sp|P69905|HBA_HUMAN Hemoglobin subunit alpha OS=Homo sapiens OX=9606 GN=HBA1 PE=1 SV=2\nMVLSPADKTN\n"
           ">sp|P69905-2|HBA_HUMAN Isoform 2 of Hemoglobin subunit alpha\nMVLSPAD\n"
           ">tr|A0A024R161|A0A024R161_HUMAN Guanine nucleotide-binding protein\nMKKLLQ\n"
           ">sp|NOTANACC|X_HUMAN not a UniProt accession: kept whole\nMKV\n"
           ">Q1 plain header\nMKKL\n")


def test_uniprot_headers_give_the_accession_and_say_so(tmp_path, caplog):
    seqs = read_sequences(write(tmp_path, "u.fasta", UNIPROT))
    assert list(seqs) == ["P69905", "P69905-2", "A0A024R161", "sp|NOTANACC|X_HUMAN", "Q1"]
    assert seqs["P69905"] == "MVLSPADKTN" and seqs["A0A024R161"] == "MKKLLQ"
    key = next(iter(seqs))
    assert isinstance(key, ProteinId) and key.aliases == ("HBA_HUMAN", "sp|P69905|HBA_HUMAN")
    assert "u.fasta: UniProt FASTA headers ('sp|P69905|HBA_HUMAN'): 3 protein(s) named by their accession " \
           "('P69905'); their entry names ('HBA_HUMAN') match a network's protein names too" in caplog.text
    copy = pickle.loads(pickle.dumps(seqs))  # worker processes: the aliases travel with the key
    assert next(iter(copy)).aliases == key.aliases


def test_entry_names_and_whole_ids_match_and_the_canonical_isoform_wins(tmp_path):
    seqs = read_sequences(write(tmp_path, "u.fasta", UNIPROT))
    found = match_ids({**seqs}, ["HBA_HUMAN", "P69905-2", "A0A024R161_HUMAN", "tr|A0A024R161|A0A024R161_HUMAN",
                                 "NOTANACC", "Q1", "P99999"])
    assert found == {"HBA_HUMAN": "P69905", "P69905-2": "P69905-2", "A0A024R161_HUMAN": "A0A024R161",
                     "tr|A0A024R161|A0A024R161_HUMAN": "A0A024R161", "NOTANACC": "sp|NOTANACC|X_HUMAN", "Q1": "Q1"}


def test_a_network_of_accessions_or_entry_names_gets_its_sequences(tmp_path):
    from gatbio.data.ppi import attach_sequences

    fa = write(tmp_path, "u.fasta", UNIPROT)
    data = attach_sequences(Data(node_names=["P69905", "A0A024R161", "Q1"]), read_sequences(fa), fa)
    assert data.sequences == ["MVLSPADKTN", "MKKLLQ", "MKKL"]
    data = attach_sequences(Data(node_names=["HBA_HUMAN", "A0A024R161_HUMAN"]), read_sequences(fa), fa)
    assert data.sequences == ["MVLSPADKTN", "MKKLLQ"]


def test_interaction_pairs_name_the_accessions(tmp_path):
    """read_protein_pairs answered 'did you mean sp|P69905|HBA_HUMAN?' for 'P69905': the ids are accessions now."""
    from gatbio.data.io import read_protein_pairs

    seqs = read_sequences(write(tmp_path, "u.fasta", UNIPROT))
    pairs, raw = read_protein_pairs(write(tmp_path, "q.txt", "P69905 A0A024R161\n"), list(seqs))
    assert pairs.tolist() == [[0, 2]]


# ------------------------------------------------------------------------------------------- sequence tables
def test_a_csv_sequence_table_is_read(tmp_path, caplog):
    """'protein,sequence' was 'protein 'protein,sequence' has an empty sequence'."""
    assert read_sequences(write(tmp_path, "s.csv", "protein,sequence\nP1,mkv*\n\"P2\",\"MKLL\"\r\n")) == \
        {"P1": "MKV", "P2": "MKLL"}
    assert "s.csv: line 1 'protein,sequence' read as a header" in caplog.text
    assert read_sequences(write(tmp_path, "n.csv", "P1,MKV\nP2,MKLL\n")) == {"P1": "MKV", "P2": "MKLL"}


def test_a_header_may_name_the_sequence_column_among_several(tmp_path, caplog):
    """UniProt's TSV download (Entry, Entry Name, ..., Sequence) was 'expected 2 columns (id sequence), found 4'."""
    text = "Entry\tEntry Name\tLength\tSequence\nP69905\tHBA_HUMAN\t5\tMVLSP\nP68871\tHBB_HUMAN\t4\tMVHL\n"
    seqs = read_sequences(write(tmp_path, "uniprot.tsv", text))
    assert seqs == {"P69905": "MVLSP", "P68871": "MVHL"}
    assert match_ids(seqs, ["HBB_HUMAN"]) == {"HBB_HUMAN": "P68871"}
    assert "uniprot.tsv: line 1 'Entry\\tEntry Name\\tLength\\tSequence' read as a header, not as a protein (its " \
           "field 'Sequence' names the sequences); ids from 'Entry', UniProt entry names from 'Entry Name' matched " \
           "too; column(s) 'Length' not read" in caplog.text
    assert read_sequences(write(tmp_path, "a.tsv", "name\taa_seq\nP1\tMKV\n")) == {"P1": "MKV"}
    with pytest.raises(MalformedFileError, match=r"t\.tsv:1: expected 2 columns \(id sequence\), or a header row "
                                                 r"naming the sequence column among more"):
        read_sequences(write(tmp_path, "t.tsv", "P1\t3\tMKV\n"))
    with pytest.raises(MalformedFileError, match=r"h\.tsv:3: expected 2 columns as the header row names, found 3"):
        read_sequences(write(tmp_path, "h.tsv", "id\tsequence\nP1\tMKV\nP2\tMKV\tx\n"))


def test_a_fasta_file_may_open_with_a_semicolon_comment(tmp_path):
    """';' comment lines (old FASTA) were skipped inside the file, but one first made it a table: "protein
    ';comment' has an empty sequence"."""
    assert read_sequences(write(tmp_path, "c.fa", "; from an old pipeline\n>P1\nMKV\n;x\nLL\n")) == {"P1": "MKVLL"}


@pytest.mark.parametrize("text, says", [
    (">P1\nMKV\n>P1\nMKV\n", r"c\.fa:3: duplicate protein id 'P1' \(first on line 1\), with the same sequence: remove "
                             r"the repeat"),
    (">P1\nMKV\n>P1\nMKVL\n", r"c\.fa:3: duplicate protein id 'P1' \(first on line 1\), with another sequence \(4 "
                              r"residues, 3 there\): give each its own id, or keep one"),
])
def test_a_duplicate_id_says_whether_its_sequences_differ(tmp_path, text, says):
    with pytest.raises(MalformedFileError, match=says):
        read_sequences(write(tmp_path, "c.fa", text))


def test_windows_line_ends_blank_lines_lowercase_stops_and_gzip(tmp_path):
    import gzip

    text = ">sp|P69905|HBA_HUMAN x\r\nmvls\r\n\r\npadk*\r\n\r\n>Q1\r\nMKKL\r\n"
    p = tmp_path / "u.fa.gz"
    p.write_bytes(gzip.compress(text.encode()))
    assert read_sequences(p) == {"P69905": "MVLSPADK", "Q1": "MKKL"}


@pytest.mark.parametrize("head", ["gene\tprotein", "Protein_ID,aa", "name residues"])
def test_a_header_row_that_does_not_name_the_sequence_column_is_refused(tmp_path, head):
    """'gene<TAB>protein' was read as a protein named 'gene' with the sequence 'PROTEIN' (all letters)."""
    sep = "\t" if "\t" in head else "," if "," in head else " "
    path = tmp_path / "seqs.txt"
    path.write_text(f"{head}\nP1{sep}MKTAYIAKQR\nP2{sep}MSSHEGGKKK\n")
    with pytest.raises(MalformedFileError, match=r"seqs\.txt:1: .*looks like a header row .* call that column "
                                                 r"'sequence'"):
        read_sequences(path)
    path.write_text(f"geneA{sep}MKTAYIAKQR\n")  # an id that only starts like a column name is a protein
    assert read_sequences(path) == {"geneA": "MKTAYIAKQR"}
