r"""Node classifiers for protein function: a stack of :class:`gatbio.nn.GATConv` with residuals.

One class, :class:`GATNodeClassifier`, covers the multi-label case (protein → set of functions, trained with
binary cross-entropy) and the single-label case (protein → one class, cross-entropy); ``task`` picks the
loss (:meth:`GATNodeClassifier.loss`) and the output activation (:meth:`GATNodeClassifier.predict_proba`).

The same wiring runs with other message-passing layers (``conv="pyg-gat"``, ``"gcn"``) or none
(``conv="mlp"``), so that baselines differ from our model only in the layer.

Architecture (``num_layers = K``):

.. math::
    h^{(0)} &= \mathrm{ELU}\big(W_{in}\,\mathrm{drop}_{in}([x \,\|\, \tilde y \,\|\, e])\big) \\
    h^{(k)} &= \mathrm{ELU}\big(\mathrm{GATConv}_k(\mathrm{drop}(h^{(k-1)}))\big) + h^{(k-1)}, \quad k=1..K-1 \\
    z &= \mathrm{GATConv}_K(\mathrm{drop}(h^{(K-1)})) + W_{skip}\,x

where :math:`x` are node inputs (embeddings / encodings), :math:`\tilde y` the optional *label input*
(known training labels of the other nodes; zeros for the nodes being predicted, the label trick of Wang et
al. 2021), :math:`e` optional learnable node-ID embeddings, and :math:`W_{skip}x` a linear skip from the
inputs to the logits, which makes the model a strict superset of logistic regression on the same inputs.

References: Veličković et al., *Graph Attention Networks*, ICLR 2018; Wang, Jin et al., *Bag of Tricks for
Node Classification with Graph Neural Networks*, 2021 (label trick).
"""

from __future__ import annotations

import numbers
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from gatbio.nn.functional import dropout

__all__ = ["GATNodeClassifier", "CONVS", "TASKS"]

#: Message-passing layers the classifier can be built with.
CONVS = ("gatbio", "pyg-gat", "gcn", "mlp")
#: ``multilabel`` (BCE, sigmoid) or ``multiclass`` (cross-entropy, softmax).
TASKS = ("multilabel", "multiclass")


def _check_float_tensor(t: object, name: str, dtype: torch.dtype) -> None:
    """A ``TypeError`` naming ``name`` unless ``t`` is a tensor of the model's floating dtype (any floating dtype
    under ``torch.autocast``, which casts for the layers): the model does not cast its inputs, and a float64 array
    through ``torch.from_numpy`` would otherwise fail inside the first linear layer with torch's dtype mismatch."""
    if not isinstance(t, Tensor):
        what = "None" if t is None else type(t).__name__
        raise TypeError(f"{name} must be a torch.Tensor of dtype {dtype}; got {what} "
                        f"(use torch.as_tensor({name}, dtype={dtype}))")
    from gatbio.nn.conv import _autocast_on

    if t.dtype != dtype and not (t.is_floating_point() and _autocast_on(t)):
        fix = f"{name}.float()" if dtype == torch.float32 else f"{name}.to({dtype})"
        # converting the model only makes sense to another floating dtype (model.to(torch.int64) is no model)
        other = f" (or convert the model, e.g. model.to({t.dtype}))" if t.is_floating_point() else ""
        raise TypeError(f"{name} has dtype {t.dtype} but the model's parameters are {dtype}: pass {fix}{other}")


def _check_node_features(x: object, name: str, width: int, dtype: torch.dtype) -> None:
    """:func:`_check_float_tensor`, then a ``ValueError`` naming ``name``, the expected ``(N, width)`` and the given
    shape unless ``x`` is 2-D with ``width`` columns (torch's own message is a matmul's 'mat1 and mat2 shapes
    cannot be multiplied', naming neither). The models' boundary check of their node inputs."""
    _check_float_tensor(x, name, dtype)
    if x.dim() != 2 or x.size(1) != width:
        raise ValueError(f"{name} must be (N, {width}), one row of in_channels={width} features per node; got shape "
                         f"{tuple(x.shape)}")


def _check_graph(edge_index: object, num_nodes: int, conv: str) -> None:
    """For the layers gatbio does not check itself (``conv="pyg-gat"``, ``"gcn"``, ``"mlp"``): a ``ValueError``
    unless ``edge_index`` is a (2, E) integer tensor of indices in ``0..num_nodes - 1`` (or a sparse adjacency, which
    PyG checks). PyG's own messages were 'Sizes of tensors must match', 'index 7 is out of bounds' or 'scatter():
    Expected dtype int32/int64' (GCN), and the MLP baseline took anything. ``conv="mlp"`` passes no message, so it
    also takes ``None``."""
    from torch_geometric.typing import SparseTensor

    from gatbio.nn.conv import _check_indices

    if (conv == "mlp" and edge_index is None) or isinstance(edge_index, SparseTensor) or (
            isinstance(edge_index, Tensor) and edge_index.layout != torch.strided):
        return
    if not isinstance(edge_index, Tensor) or edge_index.dim() != 2 or edge_index.size(0) != 2:
        shape = tuple(edge_index.shape) if isinstance(edge_index, Tensor) else type(edge_index).__name__
        flip = (" (an (E, 2) list of edges: pass edge_index.t())" if isinstance(edge_index, Tensor)
                and edge_index.dim() == 2 and edge_index.size(1) == 2 else "")
        raise ValueError(f"edge_index must be a (2, E) integer tensor (or a sparse adjacency); got {shape}{flip}")
    _check_indices(edge_index, num_nodes, num_nodes)


class GATNodeClassifier(nn.Module):
    r"""Multi-label or single-label node classifier built on :class:`gatbio.nn.GATConv`.

    Args:
        in_channels: input feature size F (0 for none: then give ``num_nodes`` and ``embedding_dim``).
        out_channels: number of labels / classes L.
        hidden_channels: per-head hidden size C (default: 64).
        heads: attention heads of the hidden layers (default: 4); hidden width is ``heads * C``.
        num_layers: message-passing layers K ≥ 1 (default: 2).
        out_heads: heads of the last layer, averaged (default: 1).
        dropout: dropout between layers (default: 0.5).
        input_dropout: dropout on the inputs (default: 0.5).
        attn_dropout: dropout on attention coefficients (default: 0.2).
        label_channels: size of the label input :math:`\tilde y` (0: no label input; default: 0).
        num_nodes, embedding_dim: learnable node-ID embeddings (transductive only; default: none).
        linear_skip: add :math:`W_{skip}x` to the logits (default: ``True``).
        task: ``"multilabel"`` or ``"multiclass"`` (default: ``"multilabel"``).
        conv: ``"gatbio"`` (default), ``"pyg-gat"``, ``"gcn"`` or ``"mlp"``.
        **conv_kwargs: passed to every :class:`gatbio.nn.GATConv` (e.g. ``attention="gatv2"``,
            ``degree_norm="log"``, ``temperature="learn"``).

    Shapes:
        - input: x (N, F) of the parameters' dtype (float32 unless the model is converted; not cast: pass
          ``x.float()``), edge_index (2, E), label_input (N, label_channels) or ``None``
        - output: logits (N, L); with ``return_attention_weights=True`` also a list of
          ``(edge_index, alpha)`` per GAT layer, alpha (E', H) (``conv="gcn"`` / ``"mlp"``: refused)
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        hidden_channels: int = 64,
        heads: int = 4,
        num_layers: int = 2,
        out_heads: int = 1,
        dropout: float = 0.5,
        input_dropout: float = 0.5,
        attn_dropout: float = 0.2,
        label_channels: int = 0,
        num_nodes: int | None = None,
        embedding_dim: int = 0,
        linear_skip: bool = True,
        task: str = "multilabel",
        conv: str = "gatbio",
        **conv_kwargs: Any,
    ):
        super().__init__()
        if task not in TASKS:
            raise ValueError(f"task={task!r}: choose one of {', '.join(TASKS)}")
        if conv not in CONVS:
            raise ValueError(f"conv={conv!r}: choose one of {', '.join(CONVS)}")
        if num_layers < 1:
            raise ValueError(f"num_layers={num_layers}: need at least 1 layer")
        for arg, value in (("out_channels", out_channels), ("hidden_channels", hidden_channels), ("heads", heads),
                           ("out_heads", out_heads)):  # named here: the layers would name their own arguments
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{arg}={value!r}: must be a positive integer")
        for arg, value in (("in_channels", in_channels), ("label_channels", label_channels),
                           ("embedding_dim", embedding_dim)):  # -1 was torch's 'negative dimension -1: [2, -1]'
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
                raise ValueError(f"{arg}={value!r}: must be a non-negative integer (0: none)")
        for arg, value in (("dropout", dropout), ("input_dropout", input_dropout), ("attn_dropout", attn_dropout)):
            # refused here, by name: a bad rate failed at the first training step as 'dropout probability must be
            # in [0, 1)' without saying which of the three (and conv='pyg-gat' took any attn_dropout)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value < 1:
                raise ValueError(f"{arg}={value!r}: must be a number in [0, 1)")
        if embedding_dim and not num_nodes:
            raise ValueError("embedding_dim > 0 needs num_nodes (learnable node-ID embeddings)")
        if in_channels + label_channels + embedding_dim <= 0:
            raise ValueError("the model has no input: give in_channels, label_channels or embedding_dim")
        if conv_kwargs and conv != "gatbio":
            raise ValueError(f"{sorted(conv_kwargs)} are gatbio GATConv options; they need conv='gatbio'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.hidden_channels = hidden_channels
        self.heads = heads
        self.num_layers = num_layers
        self.out_heads = out_heads
        self.dropout = dropout
        self.input_dropout = input_dropout
        self.attn_dropout = attn_dropout
        self.label_channels = label_channels
        self.embedding_dim = embedding_dim
        self.task = task
        self.conv = conv
        self.conv_kwargs = conv_kwargs

        width = hidden_channels * heads
        self.embedding = nn.Embedding(num_nodes, embedding_dim) if embedding_dim else None
        self.lin_in = nn.Linear(in_channels + label_channels + embedding_dim, width)
        self.convs = nn.ModuleList()
        for k in range(num_layers):
            last = k == num_layers - 1
            self.convs.append(self._make_conv(width, out_channels if last else hidden_channels,
                                              out_heads if last else heads, concat=not last))
        self.lin_skip = nn.Linear(in_channels, out_channels, bias=False) if linear_skip and in_channels else None
        self.reset_parameters()

    def _make_conv(self, fin: int, fout: int, heads: int, concat: bool) -> nn.Module:
        if self.conv == "gatbio":
            from gatbio.nn.conv import GATConv

            return GATConv(fin, fout, heads=heads, concat=concat, dropout=self.attn_dropout, residual=True,
                           **self.conv_kwargs)
        if self.conv == "pyg-gat":
            from torch_geometric.nn import GATConv as PyGGATConv

            return PyGGATConv(fin, fout, heads=heads, concat=concat, dropout=self.attn_dropout, residual=True)
        if self.conv == "gcn":
            from torch_geometric.nn import GCNConv

            return GCNConv(fin, fout * heads if concat else fout)
        return nn.Linear(fin, fout * heads if concat else fout)  # "mlp": no message passing

    def reset_parameters(self) -> None:
        if self.embedding is not None:
            nn.init.normal_(self.embedding.weight, std=0.1)
        self.lin_in.reset_parameters()
        for conv in self.convs:
            conv.reset_parameters()
        if self.lin_skip is not None:
            self.lin_skip.reset_parameters()

    def _layer(self, conv: nn.Module, h: Tensor, edge_index: Tensor, want_attention: bool):
        if self.conv == "mlp":
            return conv(h), None
        if self.conv == "gcn":
            return conv(h, edge_index), None
        if want_attention:
            out, att = conv(h, edge_index, return_attention_weights=True)
            return out, att
        return conv(h, edge_index), None

    def forward(self, x: Tensor | None, edge_index: Tensor, label_input: Tensor | None = None,
                return_attention_weights: bool = False):
        """Logits (N, L); with ``return_attention_weights=True`` also one ``(edge_index, alpha)`` per GAT layer.

        ``x`` (N, in_channels) in the parameters' dtype (``None`` for a model without inputs), ``label_input``
        (N, label_channels): float, or 0/1 integers / booleans (cast to the parameters' dtype); N is the number
        of nodes of the embeddings (``num_nodes``) when the model has them. ``return_attention_weights=True``
        needs an attention layer (``conv="gatbio"`` or ``"pyg-gat"``): a ``"gcn"`` or ``"mlp"`` model refuses it
        rather than return an empty list that a caller would index."""
        if return_attention_weights and self.conv not in ("gatbio", "pyg-gat"):
            raise ValueError(f"return_attention_weights=True but this model was built with conv={self.conv!r}, "
                             "which has no attention weights; use conv='gatbio' or 'pyg-gat', or leave it False")
        parts = []
        dtype = self.lin_in.weight.dtype
        if self.in_channels:
            _check_node_features(x, "x", self.in_channels, dtype)
            parts.append(x)
        n = x.size(0) if self.in_channels else None
        if self.label_channels:
            if label_input is None:
                raise ValueError("this model was built with label_channels > 0: pass label_input (N, L)")
            if not isinstance(label_input, Tensor):
                raise TypeError(f"label_input must be a torch.Tensor (N, {self.label_channels}); got "
                                f"{type(label_input).__name__} (use torch.as_tensor(label_input))")
            if not label_input.is_floating_point():  # a 0/1 label matrix: exact in any float dtype
                label_input = label_input.to(dtype)
            _check_float_tensor(label_input, "label_input", dtype)
            rows = "N" if n is None else n
            if label_input.dim() != 2 or label_input.size(1) != self.label_channels or (
                    n is not None and label_input.size(0) != n):
                raise ValueError(f"label_input must be ({rows}, {self.label_channels}), one row of "
                                 f"label_channels={self.label_channels} per node" + ("" if n is None else " of x")
                                 + f"; got shape {tuple(label_input.shape)}")
            n = label_input.size(0) if n is None else n
            parts.append(label_input)
        if self.embedding is not None:
            if n is not None and n != self.embedding.num_embeddings:
                given = "x" if self.in_channels else "label_input"
                raise ValueError(f"{given} has {n} rows but this model has learnable embeddings of "
                                 f"num_nodes={self.embedding.num_embeddings} nodes (transductive: one row per "
                                 "node of the graph it was built for, in the same order)")
            parts.append(self.embedding.weight)
        h = torch.cat(parts, dim=-1) if len(parts) > 1 else parts[0]  # (N, F + L + D)
        if self.conv != "gatbio":  # gatbio's GATConv checks its graph itself
            _check_graph(edge_index, h.size(0), self.conv)
        h = dropout(h, p=self.input_dropout, training=self.training)
        h = F.elu(self.lin_in(h))  # (N, H*C)
        attention = []
        for k, conv in enumerate(self.convs):
            last = k == self.num_layers - 1
            out, att = self._layer(conv, dropout(h, p=self.dropout, training=self.training), edge_index,
                                   return_attention_weights)
            if att is not None:
                attention.append(att)  # (edge_index (2, E'), alpha (E', H))
            h = out if last else F.elu(out) + h  # hidden: (N, H*C); last: (N, L)
        if self.lin_skip is not None:
            h = h + self.lin_skip(dropout(x, p=self.input_dropout, training=self.training))  # (N, L)
        return (h, attention) if return_attention_weights else h

    def loss(self, logits: Tensor, target: Tensor) -> Tensor:
        """BCE-with-logits (multi-label, target float (n, L)) or cross-entropy (multi-class, target long (n,)).

        Multi-class targets of ``-1`` (unlabelled, as ``gatbio.data.load("yeast-bu2003")``'s class U) are left out
        of the mean (``ignore_index=-1``): the loss is that of the labelled nodes. When none is labelled (e.g. a
        label-trick draw of unlabelled nodes only) it is 0 with zero gradients, not torch's NaN (0 / 0), so one such
        step leaves the parameters finite."""
        if self.task == "multilabel":
            return F.binary_cross_entropy_with_logits(logits, target.float())
        target = target.long()
        if not bool((target != -1).any()):
            return logits.sum() * 0.0  # keeps the graph (backward works) and gives zero gradients
        return F.cross_entropy(logits, target, ignore_index=-1)

    def predict_proba(self, logits: Tensor) -> Tensor:
        """Per-label sigmoid (multi-label) or softmax over classes (multi-class)."""
        return torch.sigmoid(logits) if self.task == "multilabel" else torch.softmax(logits, dim=-1)

    def __repr__(self) -> str:
        opts = "".join(f", {k}={v!r}" for k, v in self.conv_kwargs.items())
        return (f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, conv={self.conv!r}, "
                f"layers={self.num_layers}, heads={self.heads}, hidden={self.hidden_channels}, "
                f"task={self.task!r}{opts})")
