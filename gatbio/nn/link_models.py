r"""Directed link prediction on food webs: a GAT encoder with a trophic-level attention bias, and an
asymmetric "j eats i" decoder.

Direction convention (as everywhere in gatbio): an edge :math:`i \to j` means **j eats i** (prey → predator).

The encoder passes messages both ways along the observed links, with separate attention layers for
"what a species eats" (messages from its resources) and "what eats it" (messages from its consumers), because
the two roles are not interchangeable. Each attention layer receives a **trophic-level positional bias**: for
a message edge :math:`u \to v` with MacKay trophic levels :math:`h`, a learned per-head function

.. math::
    b_{uv}^{(k)} = \sum_{m} w^{(k)}_m \exp\!\left(-\frac{(\Delta h_{uv} - \mu_m)^2}{2\sigma^2}\right),
    \qquad \Delta h_{uv} = h_v - h_u,

(a radial-basis embedding of the level difference, like the relative position biases of sequence
transformers) is added to the attention logit of that edge (``attn_bias`` of :class:`gatbio.nn.GATConv`).
The weights :math:`w` start at zero, so an untrained model is the plain GAT. Trophic levels come from the
observed network only (MacKay et al. 2020; :func:`gatbio.ecology.trophic_levels`).

The decoder scores the ordered pair (i, j) asymmetrically, with separate resource and consumer embeddings:

.. math::
    s_{ij} = \langle \mathbf{P} \mathbf{z}_i, \mathbf{Q} \mathbf{z}_j \rangle / \sqrt{d}
    + \mathbf{p}^\top \mathbf{z}_i + \mathbf{q}^\top \mathbf{z}_j \; [+ \beta(h_j - h_i)],

so :math:`s_{ij} \neq s_{ji}` in general (:math:`\beta`, off by default, is a learned RBF function of the
pair's level difference: ``decoder_bias=True``).

References:
    MacKay, R. S., Johnson, S. & Sansom, B. How directed is a directed network? R. Soc. Open Sci. 7, 201138 (2020).
    Shaw, P., Uszkoreit, J. & Vaswani, A. Self-attention with relative position representations. NAACL (2018).
"""

from __future__ import annotations

import numbers

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from gatbio.nn.conv import GATConv, _cached_plan, _check_indices
from gatbio.nn.node_models import _check_node_features

__all__ = ["TrophicBias", "FoodWebGAT"]


def _check_levels(levels: Tensor | None, x: Tensor) -> Tensor:
    """``levels`` as one value per node of ``x``, in ``x``'s dtype (:func:`gatbio.ecology.trophic_levels` returns
    float64, and a float64 bias met float32 weights in torch's 'expected m1 and m2 to have the same dtype'), or one
    error saying what was given. The levels are an input of every call, with ``trophic_bias=False`` too."""
    if levels is None:
        raise ValueError("levels is None: FoodWebGAT takes the trophic levels (N,) of the observed web in every call "
                         "(trophic_bias=False included); compute them with "
                         "gatbio.ecology.trophic_levels(edge_index, num_nodes=x.size(0))")
    if not isinstance(levels, Tensor):  # a host array or list: checked at no device sync (and not under vmap)
        bad = ~np.isfinite(np.asarray(levels, dtype=np.float64)).reshape(-1)
        if bad.any():  # one NaN level made every logit NaN (through the attention softmax)
            raise ValueError(f"levels has NaN or infinite values at nodes {np.flatnonzero(bad)[:10].tolist()}: "
                             "give every node a finite trophic level (gatbio.ecology.trophic_levels)")
    levels = torch.as_tensor(levels, device=x.device)
    if tuple(levels.shape) != (x.size(0),):
        raise ValueError(f"levels has shape {tuple(levels.shape)}, expected ({x.size(0)},): one trophic level per "
                         "node of x")
    return levels.to(x.dtype)


def _check_edge_index(edge_index: object, num_nodes: int) -> None:
    """A ``ValueError`` unless ``edge_index`` is a (2, E) integer tensor of node indices in ``0..num_nodes - 1``:
    :meth:`FoodWebGAT.encode` reads the levels of its ends before any attention layer checks it (a float or
    out-of-range index was torch's IndexError there). The range check is :class:`gatbio.nn.GATConv`'s, cached with
    the graph under the same key, so the layers do not read the indices back a second time."""
    if not isinstance(edge_index, Tensor) or edge_index.dim() != 2 or edge_index.size(0) != 2:
        shape = tuple(edge_index.shape) if isinstance(edge_index, Tensor) else type(edge_index).__name__
        raise ValueError(f"edge_index must be a (2, E) integer tensor of prey → predator edges; got {shape}"
                         + (" (an (E, 2) list of edges: pass edge_index.t())" if isinstance(edge_index, Tensor)
                            and edge_index.dim() == 2 and edge_index.size(1) == 2 else ""))
    _check_indices(edge_index, num_nodes, num_nodes)


class TrophicBias(nn.Module):
    r"""A learned per-head function of the trophic-level difference, :math:`\Delta h \mapsto (H,)`.

    A radial-basis embedding of :math:`\Delta h` on ``num_kernels`` centres evenly spaced in
    ``[-max_delta, max_delta]`` followed by a linear map to ``heads`` values (zero-initialised).

    Args:
        heads (int): Number of outputs (attention heads).
        num_kernels (int, optional): Number of radial basis functions. (default: :obj:`12`)
        max_delta (float, optional): Range of the centres. (default: :obj:`3.0`)

    Shapes:
        - **input:** :math:`(E,)` level differences.
        - **output:** :math:`(E, H)`.
    """

    def __init__(self, heads: int, num_kernels: int = 12, max_delta: float = 3.0) -> None:
        super().__init__()
        if num_kernels < 1 or not 0 < max_delta < float("inf"):  # a zero width made the bias NaN
            raise ValueError(f"TrophicBias needs num_kernels >= 1 and a finite max_delta > 0, got num_kernels="
                             f"{num_kernels}, max_delta={max_delta}")
        self.heads = heads
        self.num_kernels = num_kernels
        self.max_delta = max_delta
        self.register_buffer("centers", torch.linspace(-max_delta, max_delta, num_kernels))
        self.width = 2 * max_delta / max(num_kernels - 1, 1)
        self.lin = nn.Linear(num_kernels, heads, bias=False)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.zeros_(self.lin.weight)

    def forward(self, delta: Tensor) -> Tensor:
        if not isinstance(delta, Tensor) or delta.dim() != 1:
            shape = tuple(delta.shape) if isinstance(delta, Tensor) else type(delta).__name__
            raise ValueError(f"delta has shape {shape}, expected (E,): one level difference per edge (pass "
                             "delta.reshape(-1) and view the (E, H) result back)")
        delta = delta.to(self.centers.dtype)  # levels come as float64 (trophic_levels); the weights are float32
        rbf = torch.exp(-0.5 * ((delta[:, None] - self.centers[None, :]) / self.width).square())  # (E, K)
        return self.lin(rbf)  # (E, H)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(heads={self.heads}, num_kernels={self.num_kernels})"


class FoodWebGAT(nn.Module):
    r"""GAT encoder with trophic-level attention biases and an asymmetric decoder (see the module docstring).

    Args:
        in_channels (int): Node input features (traits, observed degrees, trophic level).
        hidden_channels (int, optional): Width of each head. (default: :obj:`16`)
        heads (int, optional): Attention heads per layer (concatenated). (default: :obj:`4`)
        num_layers (int, optional): Message-passing layers. (default: :obj:`2`)
        dropout (float, optional): Dropout on features and attention. (default: :obj:`0.1`)
        trophic_bias (bool, optional): Add the learned :class:`TrophicBias` to the attention logits (the
            decoder's term is ``decoder_bias``). ``False`` gives the ablation ``no_trophic_bias``.
            (default: :obj:`True`)
        attention (str, optional): ``"gat"`` or ``"gatv2"`` scoring in :class:`gatbio.nn.GATConv`.
            (default: :obj:`"gatv2"`)
        decoder_bias (bool, optional): Also add a learned function of :math:`h_j - h_i` to the pair score.
            (default: :obj:`False`: the trophic information enters through the attention only)

    Shapes:
        - **input:** node features :math:`(N, F_{in})`, observed edges :math:`(2, E)` prey → predator,
          trophic levels :math:`(N,)` (required, also with ``trophic_bias=False``; any float dtype, used in
          :math:`x`'s).
        - **output:** :meth:`forward`: scores :math:`(N, N)`, entry (i, j) for "j eats i" (logits); with
          ``return_attention_weights=True`` also a list of ``(layer, "prey"|"consumers", edge_index, alpha (E, H))``
          (no self-loops are added: ``edge_index`` is the input's, reversed for ``"consumers"``).

    Node features are not cast: give them in the parameters' dtype (float32 unless the model is converted);
    a wrong dtype, width or ``edge_index`` is refused with a message naming the argument.
    """

    def __init__(
        self,
        in_channels: int,
        hidden_channels: int = 16,
        heads: int = 4,
        num_layers: int = 2,
        dropout: float = 0.1,
        trophic_bias: bool = True,
        attention: str = "gatv2",
        decoder_bias: bool = False,
    ) -> None:
        super().__init__()
        if num_layers < 1:
            raise ValueError(f"num_layers={num_layers} is not allowed: use at least one layer")
        for arg, value, least in (("in_channels", in_channels, 0), ("hidden_channels", hidden_channels, 1),
                                  ("heads", heads, 1)):  # named here: hidden_channels=0 was the layer's out_channels=0
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
                raise ValueError(f"{arg}={value!r} is not allowed: it must be a "
                                 f"{'positive' if least else 'non-negative'} integer")
        self.in_channels = in_channels
        self.hidden_channels = hidden_channels
        self.heads = heads
        self.num_layers = num_layers
        self.dropout = dropout
        self.trophic_bias = trophic_bias
        self.decoder_bias = decoder_bias
        width = hidden_channels * heads
        self.lin_in = nn.Linear(in_channels, width)
        # one attention layer over resources (i -> j: j gathers from its prey) and one over consumers
        self.from_prey = nn.ModuleList()
        self.from_consumers = nn.ModuleList()
        self.bias_prey = nn.ModuleList()
        self.bias_consumers = nn.ModuleList()
        self.norms = nn.ModuleList()
        for _ in range(num_layers):
            for convs in (self.from_prey, self.from_consumers):
                convs.append(GATConv(width, hidden_channels, heads=heads, dropout=dropout, add_self_loops=False,
                                     attention=attention))
            if trophic_bias:
                self.bias_prey.append(TrophicBias(heads))
                self.bias_consumers.append(TrophicBias(heads))
            self.norms.append(nn.LayerNorm(width))
        self.res = nn.Linear(width, width)  # resource role (the "i" of i -> j)
        self.con = nn.Linear(width, width)  # consumer role (the "j")
        self.res_bias = nn.Linear(width, 1)
        self.con_bias = nn.Linear(width, 1)
        self.pair_bias = TrophicBias(1) if decoder_bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        for m in [self.lin_in, self.res, self.con, self.res_bias, self.con_bias, *self.norms]:
            m.reset_parameters()
        for m in [*self.from_prey, *self.from_consumers, *self.bias_prey, *self.bias_consumers]:
            m.reset_parameters()
        if self.pair_bias is not None:
            self.pair_bias.reset_parameters()

    def encode(self, x: Tensor, edge_index: Tensor, levels: Tensor,
               return_attention_weights: bool = False) -> Tensor | tuple[Tensor, list]:
        """Node embeddings (N, hidden·heads); with ``return_attention_weights`` also a list of
        ``(layer, "prey"|"consumers", edge_index, alpha (E, H))``."""
        # consumer -> resource: one tensor per input graph (kept with it in the layer's plan cache), so that the
        # consumer layers find their own cached plans at every training step (a new flip each call rebuilt them)
        _check_node_features(x, "x", self.in_channels, self.lin_in.weight.dtype)
        levels = _check_levels(levels, x)
        _check_edge_index(edge_index, x.size(0))
        rev = _cached_plan(edge_index, ("reversed",), lambda: edge_index.flip(0))
        d_fwd = levels[edge_index[1]] - levels[edge_index[0]]  # (E,) level of the receiver minus the sender
        att = []
        h = F.elu(self.lin_in(x))  # (N, W)
        for layer in range(self.num_layers):
            h_in = F.dropout(h, self.dropout, self.training)
            b_p = self.bias_prey[layer](d_fwd) if self.trophic_bias else None  # (E, H)
            b_c = self.bias_consumers[layer](-d_fwd) if self.trophic_bias else None  # (E, H)
            if return_attention_weights:
                m_p, (ei_p, a_p) = self.from_prey[layer](h_in, edge_index, attn_bias=b_p, return_attention_weights=True)
                m_c, (ei_c, a_c) = self.from_consumers[layer](h_in, rev, attn_bias=b_c, return_attention_weights=True)
                att += [(layer, "prey", ei_p, a_p.detach()), (layer, "consumers", ei_c, a_c.detach())]
            else:
                m_p = self.from_prey[layer](h_in, edge_index, attn_bias=b_p)  # (N, W)
                m_c = self.from_consumers[layer](h_in, rev, attn_bias=b_c)  # (N, W)
            h = self.norms[layer](h + F.elu(m_p + m_c))  # residual, (N, W)
        return (h, att) if return_attention_weights else h

    def decode(self, z: Tensor, levels: Tensor) -> Tensor:
        """Logits (N, N) of "j eats i" for every ordered pair (i, j); batched: z (B, N, W), levels (B, N)
        give (B, N, N)."""
        if self.pair_bias is not None:
            levels = torch.as_tensor(levels, device=z.device)
            if tuple(levels.shape) != tuple(z.shape[:-1]):
                raise ValueError(f"levels has shape {tuple(levels.shape)}, expected {tuple(z.shape[:-1])}: one "
                                 "trophic level per node of z")
        r, c = self.res(z), self.con(z)  # (..., N, W) each
        s = r @ c.transpose(-1, -2) / r.size(-1) ** 0.5  # (..., N, N)
        s = s + self.res_bias(z) + self.con_bias(z).transpose(-1, -2)
        if self.pair_bias is not None:
            levels = levels.to(z.dtype)
            d = levels[..., None, :] - levels[..., :, None]  # (..., N, N): h_j - h_i
            s = s + self.pair_bias(d.reshape(-1)).view_as(s)
        return s

    def forward(self, x: Tensor, edge_index: Tensor, levels: Tensor,
                return_attention_weights: bool = False) -> Tensor | tuple[Tensor, list]:
        """Logits (N, N) of "j eats i" (:meth:`encode`, then :meth:`decode` with the same levels); with
        ``return_attention_weights=True`` the pair ``(logits, attention)``, ``attention`` the list of
        :meth:`encode`: ``(layer, "prey"|"consumers", edge_index, alpha (E, H))`` per attention layer."""
        _check_node_features(x, "x", self.in_channels, self.lin_in.weight.dtype)
        levels = _check_levels(levels, x)  # once, for both: a list or array reached decode unconverted
        if return_attention_weights:
            z, att = self.encode(x, edge_index, levels, return_attention_weights=True)
            return self.decode(z, levels), att
        return self.decode(self.encode(x, edge_index, levels), levels)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}({self.in_channels}, {self.hidden_channels}, heads={self.heads}, "
                f"num_layers={self.num_layers}, trophic_bias={self.trophic_bias})")
