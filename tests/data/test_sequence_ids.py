"""FASTA ids of UniRef and NCBI RefSeq headers, and header descriptions that are not UTF-8 (Latin-1)."""

from __future__ import annotations

import gzip
import logging

import pytest

from gatbio.data.io import MalformedFileError
from gatbio.data.sequence import ProteinId, header_id, match_ids, read_sequences


def write_bytes(tmp_path, name, data: bytes):
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize("word, acc, alias", [
    ("UniRef90_P69905", "P69905", "UniRef90_P69905"),
    ("UniRef50_UPI0000001A2B", "UPI0000001A2B", "UniRef50_UPI0000001A2B"),
    ("ref|NP_000549.1|", "NP_000549.1", "ref|NP_000549.1|"),
    ("gi|4504347|ref|NP_000549.1|", "NP_000549.1", "gi|4504347|ref|NP_000549.1|"),
    ("sp|P69905|HBA_HUMAN", "P69905", "sp|P69905|HBA_HUMAN"),
])
def test_header_words_give_the_accession_with_the_whole_word_as_alias(word, acc, alias):
    pid = header_id(word)
    assert isinstance(pid, ProteinId) and pid == acc and pid.aliases[-1] == alias


@pytest.mark.parametrize("word", ["P1", "gb|AAA12345.1|", "UniRef90", "ref|", "plain|thing", "gi|123|gb|X.1|"])
def test_other_header_words_are_kept_whole(word):
    assert header_id(word) == word and not isinstance(header_id(word), ProteinId)


def test_uniref_and_refseq_fasta_are_named_by_accession(tmp_path, caplog):
    """Their whole first word was the id ('UniRef90_P69905', 'ref|NP_000549.1|'): a network naming proteins by
    accession found none."""
    p = write_bytes(tmp_path, "s.fa", b">UniRef90_P69905 Hemoglobin subunit alpha n=1 Tax=Homo sapiens\nMVLSPADK\n"
                                      b">ref|NP_000549.1| hemoglobin subunit alpha [Homo sapiens]\nMVLSPADKT\n"
                                      b">gi|4504349|ref|NP_000509.1| hemoglobin subunit beta\nMVHLTPEEK\n"
                                      b">other|x desc\nMKV\n")
    with caplog.at_level(logging.WARNING, logger="gatbio.data"):
        seqs = read_sequences(p)
    assert list(seqs) == ["P69905", "NP_000549.1", "NP_000509.1", "other|x"]
    assert match_ids(seqs, ["UniRef90_P69905", "ref|NP_000549.1|", "NP_000509.1"]) == {
        "UniRef90_P69905": "P69905", "ref|NP_000549.1|": "NP_000549.1", "NP_000509.1": "NP_000509.1"}
    lines = [r.getMessage() for r in caplog.records]
    assert any("UniRef FASTA headers ('UniRef90_P69905'): 1 protein(s) named by" in ln for ln in lines)
    assert any("NCBI RefSeq FASTA headers ('ref|NP_000549.1|'): 2 protein(s) named by their accession.version "
               "('NP_000549.1')" in ln for ln in lines)


def test_a_latin1_description_is_read_leniently(tmp_path, caplog):
    """One Latin-1 byte in a header's description (never used) refused the whole file."""
    data = b">sp|P69905|HBA_HUMAN H\xe9moglobine alpha\nMVLSPADK\n>P2 caf\xe9\nMKV\n"
    for p in (write_bytes(tmp_path, "s.fa", data), write_bytes(tmp_path, "s.fa.gz", gzip.compress(data))):
        with caplog.at_level(logging.WARNING, logger="gatbio.data"):
            seqs = read_sequences(p)
        assert seqs == {"P69905": "MVLSPADK", "P2": "MKV"} and seqs is not None
        assert f"{p}: the description of 2 FASTA header(s) (line 1, 3) is not UTF-8" in caplog.text


def test_a_latin1_byte_in_an_id_or_a_sequence_is_still_refused(tmp_path):
    with pytest.raises(MalformedFileError, match=r"q\.fa:2: not utf-8 text: it looks like Windows-1252"):
        read_sequences(write_bytes(tmp_path, "q.fa", b">P1 x\nMVL\xe9SP\n"))
    with pytest.raises(MalformedFileError, match=r"i\.fa:3: not utf-8 text in this header's protein id "
                                                 r"\(byte b'\\xe9'\)"):  # after a lenient description on line 1
        read_sequences(write_bytes(tmp_path, "i.fa", b">P1 caf\xe9\nMKV\n>P\xe92 ok\nMKV\n"))
    with pytest.raises(MalformedFileError, match=r"t\.fa\.gz:4: not utf-8 text in this sequence line"):
        read_sequences(write_bytes(tmp_path, "t.fa.gz", gzip.compress(b">P1 caf\xe9\nMKV\n>P2\nMK\xe9V\n")))
    with pytest.raises(MalformedFileError, match=r"t\.tsv:1: not utf-8 text"):  # a table: no description
        read_sequences(write_bytes(tmp_path, "t.tsv", b"P1 caf\xe9\tMKV\n"))
