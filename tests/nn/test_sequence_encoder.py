"""ResidueCNN, the learnt sequence encoder: padding, length chunks and protein order do not change a protein's
embedding; a residue outside the sequence is never read; gradients reach every weight; clear shape errors."""

from __future__ import annotations

import pytest
import torch

from gatbio.nn.sequence_encoder import ResidueCNN


def residues(lengths, d=3, pad_to=None, seed=0):
    """(N, L, d + 1) random residue rows with the mask channel, zero padded to ``pad_to``."""
    g = torch.Generator().manual_seed(seed)
    L = pad_to or max(lengths)
    x = torch.zeros(len(lengths), L, d + 1)
    for i, n in enumerate(lengths):
        x[i, :n, :d] = torch.randn(n, d, generator=g)
        x[i, :n, d] = 1
    return x


def model(**kw):
    torch.manual_seed(0)
    return ResidueCNN(3, hidden=8, channels=6, **kw).eval()


def test_padding_chunks_and_order_do_not_change_an_embedding():
    x = residues([5, 17, 1, 9, 30])
    enc = model()
    out = enc(x)
    assert out.shape == (5, 8)
    wide = torch.cat([x, torch.zeros(5, 40, 4)], dim=1)  # more padding
    assert torch.allclose(enc(wide), out, atol=1e-6)
    assert torch.allclose(model(chunks=1)(x), out, atol=1e-6) and torch.allclose(model(chunks=5)(x), out, atol=1e-6)
    perm = torch.tensor([3, 0, 4, 2, 1])
    assert torch.allclose(enc(x[perm]), out[perm], atol=1e-6)  # each protein alone: permutation equivariant
    single = enc(x[1:2, :17])  # a protein encoded alone, without the batch's padding
    assert torch.allclose(single, out[1:2], atol=1e-6)


def test_values_past_the_mask_are_never_read():
    x = residues([4, 10])
    enc = model()
    noisy = x.clone()
    noisy[0, 4:, :3] = 100.0  # garbage in protein 0's padding (mask 0)
    assert torch.allclose(enc(noisy), enc(x), atol=1e-6)
    changed = x.clone()
    changed[0, 3, :3] += 1.0  # its last residue does change it
    assert not torch.allclose(enc(changed)[0], enc(x)[0])


def test_gradients_reach_every_weight_and_dropout_is_off_in_eval():
    x = residues([6, 12, 3])
    enc = ResidueCNN(3, hidden=8, channels=6, kernel_sizes=(3, 3, 5), pool=2, dropout=0.5)
    enc.train()
    enc(x).pow(2).sum().backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in enc.parameters())
    enc.eval()
    assert torch.equal(enc(x), enc(x))
    a = enc(x).detach()
    enc.reset_parameters()
    assert not torch.allclose(enc(x), a)


def test_errors_name_the_expected_input():
    with pytest.raises(ValueError, match=r"expects \(N, L, 4\) residues with a mask channel"):
        model()(torch.zeros(2, 5, 3))
    with pytest.raises(ValueError, match="1 sequence\\(s\\) without a residue"):
        model()(residues([3, 0]))
    with pytest.raises(ValueError, match="odd widths"):
        ResidueCNN(3, kernel_sizes=(4,))
