r"""Pair classifiers for protein interaction types: a node encoder, then a decoder of the pair's two embeddings.

.. math::
    h &= \mathrm{Encoder}(x, \mathcal{E}_{mp}) \in \mathbb{R}^{N \times D} \\
    \hat y_{ab} &= W\,\mathrm{drop}(h_a \odot h_b) + c \in \mathbb{R}^{M}

The decoder is GNN-PPI's (Lv et al. 2021): the element-wise product of the two protein embeddings (symmetric, so
the pair (a, b) and (b, a) get the same logits), one linear layer to ``M`` mode logits, trained with
BCE-with-logits (multi-label).

The encoder (:class:`PairEncoder`) maps sequence features ``x`` (N, F) through an input layer and ``layers``
message-passing layers over the graph :math:`\mathcal{E}_{mp}` (the training pairs, or every pair in the
published "all pairs" setting), each with a residual connection:

.. math::
    h^{(0)} = \mathrm{ELU}(W_{in}\,\mathrm{drop}_{in}(x)), \qquad
    h^{(k)} = h^{(k-1)} + \mathrm{ELU}\big(\mathrm{Conv}_k(\mathrm{drop}(h^{(k-1)}), \mathcal{E}_{mp}, e)\big)

``conv`` picks the layer: ``"gatbio"`` (:class:`gatbio.nn.GATConv`, with its options ``heads``, ``degree_norm``,
``temperature``, ``attention`` and edge features ``e`` through ``edge_dim``), ``"pyg_gat"`` (PyG's ``GATConv``,
``edge_dim`` too), ``"gin"`` (PyG ``GINConv`` with a trainable :math:`\epsilon` and a 2-layer MLP with batch norm:
GNN-PPI's graph layer; GNN-PPI feeds it a convolutional / recurrent encoding of the residue matrix, here the
pooled sequence features), ``"gcn"`` (``GCNConv``) or ``"mlp"`` (a linear layer, no message passing: the
sequence-only baseline, like PIPR a model of the two sequences alone).

The ``residue_cnn`` kind (preset ``seq_cnn``) is a learnt sequence encoder,
:class:`gatbio.nn.sequence_encoder.ResidueCNN`, over each protein's residue matrix (PIPR's per-residue
``vec5_CTC`` rows, as PIPR and GNN-PPI feed their convolutional / recurrent encoders), with the product decoder:
sequence only, the learnt counterpart of ``seq_mlp``.

Models are built by name from :data:`PAIR_MODELS` (presets of options) by :func:`build_pair_model`; new kinds of
model register a builder with :func:`register_pair_model` (see its docstring: the extension point).

The ``gat_pairs`` kind (:class:`GATPairModel`; presets ``gat_region``, ``gat_ppi``, ``pyg_gat_region``) is the
recipe measured for issue #15: its inputs are rebuilt from the message pairs every epoch
(:class:`gatbio.data.pair_features.PairGraphBuilder`: PCA of sequence features + label profiles; interaction
edges with their modes and STRING score + a sequence-similarity kNN graph), its training pairs are split into
messages and supervised pairs (:func:`gatbio.data.pair_features.supervision_split`), and its decoder reads
:math:`[h_a \odot h_b, |h_a - h_b|, h_a + h_b]` through a hidden layer, plus (``profile_skip``: ``gat_region``,
``pyg_gat_region``) the no-learning rule's score as a logit. Two kinds are not networks but are made from
networks by :mod:`gatbio.tasks.protein_interactions`: a ``mean`` (``gat_mean``) averages the probabilities of its
``among`` networks, each trained ``inits`` times from other seeds (an ensemble; its validation micro-F1 is the
averaged probabilities'), and a ``choice`` (``gat``) takes, per seed, whichever of its ``among`` models has the
better validation micro-F1. ``profile_rule`` is the no-learning baseline
(:func:`gatbio.data.pair_features.profile_rule`).

References: Lv, G. et al. Learning unknown from correlations: graph neural network for inter-novel-protein
interaction prediction. IJCAI 2021 (GNN-PPI); Xu, K. et al. How powerful are graph neural networks? ICLR 2019
(GIN); Veličković, P. et al. Graph attention networks. ICLR 2018.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from gatbio.nn.node_models import _check_node_features

__all__ = ["PairEncoder", "PairClassifier", "GATPairModel", "PAIR_MODELS", "PAIR_CONVS", "MODEL_DEFAULTS",
           "GAT_PAIRS_DEFAULTS", "register_pair_model", "build_pair_model", "model_options", "PAIR_BUILDERS",
           "uses_pair_inputs", "uses_residues", "pair_edge_dim", "TRAIN_OPTIONS",
           "RESIDUE_CNN_DEFAULTS", "RECIPE_DEFAULTS", "PROFILE_RULE_DEFAULTS",
           "IMPUTE_SIMILARITIES", "check_options", "PairEncoding", "ADDED_OPTIONS", "NOT_NETWORKS", "check_pairs"]

PAIR_CONVS = ("gatbio", "pyg_gat", "gin", "gcn", "mlp")

#: Options every model starts from (a config's model settings and a preset override them).
MODEL_DEFAULTS: dict[str, Any] = {
    "kind": "encoder",  # the builder (PAIR_BUILDERS)
    "conv": "gatbio", "hidden": 128, "layers": 2, "heads": 4, "dropout": 0.2, "input_dropout": 0.1,
    "attn_dropout": 0.0, "degree_norm": None, "temperature": 1.0, "attention": "gat", "edge_features": None,
    "decoder_dropout": 0.2,
}

#: Options of the ``gat_pairs`` kind (:class:`GATPairModel` and its inputs): the "region" recipe of issue #15.
#: They are complete, so a config's shared model settings (``hidden``, ``dropout``, ...) do not change the recipe.
GAT_PAIRS_DEFAULTS: dict[str, Any] = {
    "kind": "gat_pairs", "conv": "gatbio", "hidden": 128, "layers": 2, "heads": 4, "dropout": 0.3,
    "input_dropout": 0.0, "attn_dropout": 0.1, "decoder_dropout": 0.3, "degree_norm": "log",
    "temperature": "learn", "attention": "gat", "residual": True, "jk": True, "edge_features": None,
    # inputs (gatbio.data.pair_features.PairGraphBuilder)
    "seq_features": ["aac", "dpc", "ct", "vec5_mean", "vec5_max", "vec5_std", "log_length"],
    "pca": 32, "seq_dropout": 0.5, "profile": True, "profile_skip": True, "interactions": True, "knn": 10, "kmer": 3,
    # profiles of proteins without message pairs imputed from their `impute` most similar seen proteins
    # (gatbio.data.pair_features.impute_profiles; 0: the plain mean mode vector), by `impute_similarity`: "kmer"
    # (TF-IDF `impute_kmer`-mer cosine) or "align" (normalised Smith-Waterman score; needs parasail). 10, kmer and
    # 4 were chosen on validation micro-F1 (experiments/README, "Homology imputation")
    "impute": 10, "impute_similarity": "kmer", "impute_kmer": 4,
    # the role block: per mode, how often a protein acts / is acted on in its message pairs (STRING's directions;
    # gatbio.data.pair_features.role_profiles), imputed like the profiles
    "roles": False,
    # profile_skip's score becomes the interolog transfer from the message pairs whose proteins are among the two
    # proteins' `interolog` most similar (same similarity as impute), shrunk towards the profile rule by
    # `interolog_shrink` (gatbio.data.pair_features.interolog_scores; 0: off). 5 and 0.03 chosen on validation
    # micro-F1 (experiments/shs27k_impute_sweep.py --interolog)
    "interolog": 5, "interolog_shrink": 0.03,
    # the interologs' own similarity ("kmer" / "align"; None: impute_similarity's)
    "interolog_similarity": None,
    # the interolog score with learnt weights: a gatbio GATConv from the known pairs to the query pair, its attention
    # logits biased by the rule's log weights, started as the rule (None: off; "gat" / "gatv2": the attention)
    "interolog_attention": None, "interolog_heads": 4,
    "edge_type": True, "edge_modes": True, "edge_score": True,
    # training
    "supervision": "node", "node_fraction": 0.2, "edge_fraction": 0.3, "pos_weight": 2.5,
    "lr": 0.003, "patience": 12,
}
#: Options of the ``residue_cnn`` kind: a learnt sequence encoder (:class:`gatbio.nn.sequence_encoder.ResidueCNN`)
#: over each protein's residue matrix (:func:`gatbio.data.sequence.residue_matrix`, ``max_len`` residues), with
#: the product decoder; sequence only, like ``seq_mlp`` but learnt from the residues instead of fixed features.
RESIDUE_CNN_DEFAULTS: dict[str, Any] = {
    "kind": "residue_cnn", "hidden": 128, "channels": 64, "kernel_sizes": [7, 5], "pool": 3, "dropout": 0.1,
    "norm": True, "decoder_dropout": 0.2, "max_len": 2000, "lr": 0.003,
}
#: Options of the ``profile_rule`` kind (no learning; :func:`gatbio.data.pair_features.profile_rule`): the
#: homology imputation of unseen proteins' profiles, as in :data:`GAT_PAIRS_DEFAULTS` (0: the mean mode vector), and
#: the interolog transfer (``interolog`` homologues per protein, 0: off; ``interolog_shrink``).
PROFILE_RULE_DEFAULTS: dict[str, Any] = {"kind": "profile_rule", "impute": 0, "impute_similarity": "kmer",
                                         "impute_kmer": 4, "interolog": 0, "interolog_shrink": 0.03,
                                         "interolog_similarity": None}
#: Options added after results were first stored, with the value that gives exactly the model those results were
#: made with: a stored run that lacks such an option is the same model when the option has that value
#: (:func:`gatbio.tasks.protein_interactions` reuses it without ``--resume-anyway``). Listed one by one rather than
#: "a missing option counts as its default" (the rule for config settings, :mod:`gatbio.results`): a recipe's
#: defaults may change the model (``interolog: 5`` did), so only options known to reproduce old runs qualify.
ADDED_OPTIONS: dict[str, Any] = {"interolog_attention": None, "interolog_heads": 4, "interolog_similarity": None,
                                 "roles": False}
#: Model kinds that are not one network to build: made by :mod:`gatbio.tasks.protein_interactions`.
NOT_NETWORKS = ("choice", "mean", "profile_rule")
#: ``interolog_attention`` values: off, or the attention of the learnt interolog correction (GATConv's ``attention``).
INTEROLOG_ATTENTIONS = (None, "gat", "gatv2")
#: How ``impute`` measures sequence similarity: TF-IDF k-mer cosine, or normalised Smith-Waterman (parasail).
IMPUTE_SIMILARITIES = ("kmer", "align")
#: Model options that override the config's training settings (:class:`gatbio.train.PairTrainConfig`).
TRAIN_OPTIONS = ("lr", "weight_decay", "patience", "epochs", "eval_every")

#: Named models: options merged over :data:`MODEL_DEFAULTS` (and a config's model settings).
PAIR_MODELS: dict[str, dict[str, Any]] = {
    # the recipe of issue #15 (gatbio.nn.GATConv): BFS/DFS ("region") and random ("ppi") variants, and the choice
    "gat_region": dict(GAT_PAIRS_DEFAULTS),
    "gat_ppi": {**GAT_PAIRS_DEFAULTS, "pca": 128, "seq_dropout": 0.0, "supervision": "mix", "pos_weight": 1.0,
                # the interolog score as a logit raises its random-split validation micro-F1 on all 5 seeds
                # (shs27k_skip_random.yaml); homology imputation lowered it (measured before the interologs)
                "impute": 0},
    # the two recipes' probabilities averaged (no extra training: the task reuses their runs)
    "gat_mean": {"kind": "mean", "among": ["gat_region", "gat_ppi"], "inits": 1},
    "gat": {"kind": "choice", "among": ["gat_region", "gat_ppi", "gat_mean"]},
    # PyG's GATConv with the same recipe (same inputs, edge features, residual; no degree norm, fixed temperature)
    "pyg_gat_region": {**GAT_PAIRS_DEFAULTS, "conv": "pyg_gat", "degree_norm": None, "temperature": 1.0},
    # no learning: the mean of the two proteins' mode profiles, threshold chosen on validation; an unseen protein
    # takes the mean mode vector (profile_rule) or the profile imputed from its 10 most similar seen proteins
    "profile_rule": dict(PROFILE_RULE_DEFAULTS),
    "profile_rule_hom": {**PROFILE_RULE_DEFAULTS, "impute": 10},
    # and the interolog transfer: the modes of known pairs between the two proteins' close homologues
    "interolog_rule": {**PROFILE_RULE_DEFAULTS, "impute": 10, "interolog": 5},
    # plain GNN-PPI-style encoders over sequence features and the message graph (product decoder)
    "gat_plain": {"conv": "gatbio"},
    "pyg_gat": {"conv": "pyg_gat"},
    "gin": {"conv": "gin", "layers": 1},
    "gcn": {"conv": "gcn"},
    "seq_mlp": {"conv": "mlp"},
    # a learnt sequence encoder (PIPR / GNN-PPI style, convolutional) instead of seq_mlp's fixed features
    "seq_cnn": dict(RESIDUE_CNN_DEFAULTS),
}

#: Kinds whose options are a complete recipe: their own defaults, not :data:`MODEL_DEFAULTS` nor a config's shared
#: model settings (``hidden``, ``dropout``, ...), so those settings do not change the recipe.
RECIPE_DEFAULTS: dict[str, dict[str, Any]] = {"gat_pairs": GAT_PAIRS_DEFAULTS, "residue_cnn": RESIDUE_CNN_DEFAULTS,
                                              "profile_rule": PROFILE_RULE_DEFAULTS}

#: ``edge_features`` values: per-pair inputs of the message-passing edges.
EDGE_FEATURES = (None, "score")


def check_pairs(pairs: Any, num_nodes: int | None = None, name: str = "pairs") -> None:
    """A ``ValueError`` / ``TypeError`` naming ``name`` unless ``pairs`` is a ``(P, 2)`` integer tensor (one row per
    pair) with, when ``num_nodes`` is given, every index in ``0..num_nodes - 1``.

    The models read ``pairs[:, 0]`` and ``pairs[:, 1]``: PyG's ``(2, P)`` edge_index layout would be read as two
    pairs of the first ``P`` proteins' indices without any error, so it is refused with the fix (``.t()``). The range
    is checked where ``num_nodes`` is given (it reads the values back: ``forward`` and
    :func:`gatbio.train.predict_pairs`, not the training loop's ``decode``)."""
    if not isinstance(pairs, Tensor):
        raise TypeError(f"{name} must be a (P, 2) integer tensor, one row per pair; got {type(pairs).__name__} "
                        f"(use torch.as_tensor({name}, dtype=torch.long))")
    if pairs.dtype not in (torch.long, torch.int):
        raise TypeError(f"{name} must hold integer protein indices; got dtype {pairs.dtype} (use {name}.long())")
    if pairs.dim() != 2 or pairs.size(1) != 2:
        hint = (f"; this looks like the (2, P) edge_index layout: pass {name}.t()"
                if pairs.dim() == 2 and pairs.size(0) == 2 else "")
        raise ValueError(f"{name} must be (P, 2), one row (a, b) per pair; got shape {tuple(pairs.shape)}{hint}")
    if num_nodes is not None and pairs.numel() and not torch.compiler.is_compiling():
        lo, hi = torch.stack([pairs.min(), pairs.max()]).tolist()
        if lo < 0 or hi >= num_nodes:
            raise ValueError(f"{name} holds protein index {lo if lo < 0 else hi} but there are {num_nodes} proteins "
                             f"(valid indices 0..{num_nodes - 1})")


def _check_edge_attr_given(edge_attr: Tensor | None, edge_dim: int | None, model: str) -> None:
    """A ``ValueError`` when a model built with ``edge_dim`` is called without ``edge_attr``: its attention layers
    would run without edge features (GATConv, like PyG's, treats a missing ``edge_attr`` as none), silently
    dropping what the model was built to read. Every caller in :mod:`gatbio.tasks.protein_interactions` passes
    them (``_edge_attr`` for ``edge_features: score``; :meth:`PairGraphBuilder.build` whenever the model has
    ``edge_dim``, an empty (0, edge_dim) tensor for a graph without edges)."""
    if edge_dim and edge_attr is None:  # GATPairModel reads edge_dim by truth (0 or None: no features)
        raise ValueError(f"edge_attr is None but this {model} was built with edge_dim={edge_dim}: pass edge_attr "
                         f"(E, {edge_dim}), one row per edge of edge_index, or build the model with edge_dim=None")


class PairEncoder(nn.Module):
    r"""Node encoder: input layer, then ``layers`` residual message-passing layers (module docstring).

    Args:
        in_channels: input feature size F.
        hidden: embedding size D (a multiple of ``heads`` for the attention layers). (default: 128)
        layers: message-passing layers K ≥ 1. (default: 2)
        conv: ``"gatbio"``, ``"pyg_gat"``, ``"gin"``, ``"gcn"`` or ``"mlp"``. (default: ``"gatbio"``)
        heads: attention heads (``D / heads`` channels each, concatenated). (default: 4)
        dropout, input_dropout: dropout between layers / on the inputs. (default: 0.2, 0.1)
        attn_dropout: dropout on attention coefficients. (default: 0.0)
        edge_dim: edge feature size for the attention layers (``None``: no edge features). (default: ``None``)
        **conv_kwargs: further :class:`gatbio.nn.GATConv` options (``degree_norm``, ``temperature``,
            ``attention``); they need ``conv="gatbio"``.

    Shapes:
        - input: x (N, F), edge_index (2, E), edge_attr (E, edge_dim) (required with ``edge_dim``; else ``None``)
        - output: (N, D)
    """

    def __init__(self, in_channels: int, hidden: int = 128, layers: int = 2, conv: str = "gatbio", heads: int = 4,
                 dropout: float = 0.2, input_dropout: float = 0.1, attn_dropout: float = 0.0,
                 edge_dim: int | None = None, **conv_kwargs: Any):
        super().__init__()
        if conv not in PAIR_CONVS:
            raise ValueError(f"conv={conv!r}: choose one of {', '.join(PAIR_CONVS)}")
        if layers < 1 or hidden < 1 or in_channels < 1:
            raise ValueError(f"in_channels={in_channels}, hidden={hidden}, layers={layers}: must be positive")
        if conv in ("gatbio", "pyg_gat") and hidden % heads:
            raise ValueError(f"hidden={hidden} is not a multiple of heads={heads}")
        if conv_kwargs and conv != "gatbio":
            raise ValueError(f"{sorted(conv_kwargs)} are gatbio GATConv options; they need conv='gatbio'")
        if edge_dim is not None and conv not in ("gatbio", "pyg_gat"):
            raise ValueError(f"edge features (edge_dim={edge_dim}) need an attention layer (gatbio or pyg_gat), "
                             f"not conv={conv!r}")
        self.in_channels, self.hidden, self.layers, self.conv = in_channels, hidden, layers, conv
        self.heads, self.dropout, self.input_dropout = heads, dropout, input_dropout
        self.attn_dropout, self.edge_dim, self.conv_kwargs = attn_dropout, edge_dim, conv_kwargs
        self.lin_in = nn.Linear(in_channels, hidden)
        self.convs = nn.ModuleList([self._make_conv() for _ in range(layers)])
        self.reset_parameters()

    def _make_conv(self) -> nn.Module:
        d, h = self.hidden, self.heads
        if self.conv == "gatbio":
            from gatbio.nn.conv import GATConv

            return GATConv(d, d // h, heads=h, dropout=self.attn_dropout, edge_dim=self.edge_dim, **self.conv_kwargs)
        if self.conv == "pyg_gat":
            from torch_geometric.nn import GATConv as PyGGATConv

            return PyGGATConv(d, d // h, heads=h, dropout=self.attn_dropout, edge_dim=self.edge_dim)
        if self.conv == "gin":
            from torch_geometric.nn import GINConv

            mlp = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, d), nn.ReLU(), nn.BatchNorm1d(d))
            return GINConv(mlp, train_eps=True)
        if self.conv == "gcn":
            from torch_geometric.nn import GCNConv

            return GCNConv(d, d)
        return nn.Linear(d, d)  # "mlp": no message passing

    def reset_parameters(self) -> None:
        self.lin_in.reset_parameters()
        for conv in self.convs:
            if hasattr(conv, "reset_parameters"):
                conv.reset_parameters()

    def forward(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor | None = None) -> Tensor:
        _check_node_features(x, "x", self.in_channels, self.lin_in.weight.dtype)
        _check_edge_attr_given(edge_attr, self.edge_dim, "PairEncoder")
        if self.conv == "gin" and self.training and x.size(0) == 1:  # torch: 'Expected more than 1 value per channel'
            raise ValueError("conv='gin' batch-normalises over the nodes of a call: in training mode it needs at "
                             "least 2 nodes, got 1; call model.eval() to embed a single node")
        h = F.elu(self.lin_in(F.dropout(x, self.input_dropout, self.training)))  # (N, D)
        for conv in self.convs:
            z = F.dropout(h, self.dropout, self.training)
            if self.conv == "mlp":
                z = conv(z)
            elif self.conv in ("gatbio", "pyg_gat") and self.edge_dim is not None:
                z = conv(z, edge_index, edge_attr=edge_attr)
            else:
                z = conv(z, edge_index)
            h = h + F.elu(z)  # (N, D)
        return h


class PairClassifier(nn.Module):
    r"""Encoder + product decoder: ``M`` mode logits per pair (module docstring).

    Args:
        encoder: a module ``(x, edge_index, edge_attr) -> (N, D)``.
        hidden: its output size D.
        num_modes: labels per pair M. (default: 7)
        dropout: dropout on the pair product. (default: 0.2)
        edge_features: what :func:`gatbio.tasks.protein_interactions` feeds as ``edge_attr``: ``None`` or
            ``"score"`` (the pair's STRING score). (default: ``None``)

    Shapes:
        - input: x (N, F), edge_index (2, E), pairs (P, 2) long (one row per pair, not edge_index's (2, P):
          :func:`check_pairs`), edge_attr (E, ·) or ``None``
        - output: logits (P, M)
    """

    def __init__(self, encoder: nn.Module, hidden: int, num_modes: int = 7, dropout: float = 0.2,
                 edge_features: str | None = None):
        super().__init__()
        self.encoder, self.num_modes, self.dropout, self.edge_features = encoder, num_modes, dropout, edge_features
        self.lin = nn.Linear(hidden, num_modes)

    def reset_parameters(self) -> None:
        """The encoder's parameters (its ``reset_parameters``) and the decoder's."""
        if hasattr(self.encoder, "reset_parameters"):
            self.encoder.reset_parameters()
        self.lin.reset_parameters()

    def encode(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor | None = None) -> Tensor:
        return self.encoder(x, edge_index, edge_attr)  # (N, D)

    def decode(self, h: Tensor, pairs: Tensor) -> Tensor:
        check_pairs(pairs)
        if h.dim() != 2 or h.size(1) != self.lin.in_features:  # else torch's 'mat1 and mat2 shapes cannot be multiplied'
            raise ValueError(f"the encoder gives embeddings of shape {tuple(h.shape)} but this PairClassifier was "
                             f"built with hidden={self.lin.in_features}: expected (N, {self.lin.in_features})")
        z = h[pairs[:, 0]] * h[pairs[:, 1]]  # (P, D)
        return self.lin(F.dropout(z, self.dropout, self.training))  # (P, M)

    def forward(self, x: Tensor, edge_index: Tensor, pairs: Tensor, edge_attr: Tensor | None = None) -> Tensor:
        check_pairs(pairs, x.size(0))  # before the encoder runs
        return self.decode(self.encode(x, edge_index, edge_attr), pairs)

    def loss(self, logits: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(logits, target.float())


# ----------------------------------------------------------------------------------------------- registry
#: ``kind`` → builder ``(options, in_channels, num_modes) -> module`` (:func:`register_pair_model`).
PAIR_BUILDERS: dict[str, Callable[[dict[str, Any], int, int], nn.Module]] = {}


def register_pair_model(kind: str):
    """Register a builder of pair models under ``kind`` (a decorator): **the extension point for new models**.

    A builder is ``builder(options: dict, in_channels: int, num_modes: int) -> nn.Module``; ``options`` are the
    resolved model options (:data:`MODEL_DEFAULTS`, the config's model settings, the preset or
    ``custom_models`` entry, in that order). The module must provide

    - ``encode(x, edge_index, edge_attr) -> h`` and ``decode(h, pairs) -> logits (P, num_modes)``,
    - ``loss(logits, target) -> scalar`` and an ``edge_features`` attribute (``None`` or ``"score"``),

    as :class:`PairClassifier` does (subclass it to change one part). A config then names it::

        custom_models:
          my_gat: {kind: my_kind, hidden: 256, whatever_option: 3}
        models: [gat, my_gat]

    Options a builder does not know are its own business; the built-in ``"encoder"`` builder rejects unknown ones.
    """
    def wrap(builder):
        PAIR_BUILDERS[kind] = builder
        return builder
    return wrap


def model_options(name: str, settings: dict[str, Any] | None = None,
                  custom: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The resolved options of model ``name``: :data:`MODEL_DEFAULTS`, then ``settings`` (a config's shared model
    settings), then the preset (:data:`PAIR_MODELS`) or the ``custom`` entry (which may name a preset as ``base``)."""
    custom = custom or {}
    if name in custom:
        entry = dict(custom[name])
        base = entry.pop("base", None)
        if base is not None and base not in PAIR_MODELS:
            raise ValueError(f"custom model {name!r}: base={base!r} is not a model; choose from "
                             f"{', '.join(PAIR_MODELS)}")
        preset = {**(PAIR_MODELS[base] if base else {}), **entry}
    elif name in PAIR_MODELS:
        preset = PAIR_MODELS[name]
    else:
        raise ValueError(f"unknown model {name!r}; choose from {', '.join(list(PAIR_MODELS) + list(custom))} "
                         "(or define it under custom_models)")
    kind = preset.get("kind", "encoder")
    if kind in RECIPE_DEFAULTS:  # a complete recipe: the config's shared model settings do not apply
        return {**RECIPE_DEFAULTS[kind], **preset}
    if kind == "mean":
        return {"inits": 1, **preset}
    if kind != "encoder":
        return dict(preset)
    return {**MODEL_DEFAULTS, **(settings or {}), **preset}


def build_pair_model(options: dict[str, Any], in_channels: int, num_modes: int = 7) -> nn.Module:
    """Build a pair model from resolved options (:func:`model_options`) with the builder of ``options["kind"]``."""
    kind = options.get("kind", "encoder")
    if kind in NOT_NETWORKS:
        raise ValueError(f"model kind {kind!r} is not a network: gatbio.tasks.protein_interactions makes it")
    if kind not in PAIR_BUILDERS:
        raise ValueError(f"model kind {kind!r} is not registered; known: {', '.join(PAIR_BUILDERS)} "
                         "(gatbio.nn.pair_models.register_pair_model)")
    return PAIR_BUILDERS[kind](dict(options), in_channels, num_modes)


def _gatbio_conv_options(opts: dict[str, Any]) -> dict[str, Any]:
    """The :class:`gatbio.nn.GATConv`-only options of ``opts`` for ``conv="gatbio"``; for another layer they must
    be left at their defaults (an error otherwise: a set option that would be silently ignored)."""
    if opts["conv"] == "gatbio":
        return {"degree_norm": opts["degree_norm"], "temperature": opts["temperature"], "attention": opts["attention"]}
    if opts["degree_norm"] is not None or opts["temperature"] != 1.0 or opts["attention"] != "gat":
        raise ValueError(f"degree_norm / temperature / attention are gatbio GATConv options; conv={opts['conv']!r}")
    return {}


def check_options(name: str, opts: dict[str, Any]) -> None:
    """Checks of resolved options that need no model built (a config's check, before any work): the options of a
    ``profile_rule`` (which has no builder to reject unknown ones), a recipe's switches (true / false), the
    homology imputation's and the interolog transfer's values."""
    if opts.get("kind") == "profile_rule":
        _reject_unknown(opts, PROFILE_RULE_DEFAULTS, "profile_rule")
    for key, default in RECIPE_DEFAULTS.get(opts.get("kind"), {}).items():
        # a switch read with bool(): a string such as "false" (quoted in YAML) would switch it on
        if isinstance(default, bool) and key in opts and not isinstance(opts[key], bool):
            raise ValueError(f"model {name!r}: {key}={opts[key]!r} must be true or false (unquoted)")
    if opts.get("kind") == "mean":
        _reject_unknown(opts, {"kind": "mean", "among": [], "inits": 1}, "mean")
        inits = opts.get("inits", 1)
        if isinstance(inits, bool) or not isinstance(inits, int) or inits < 1:
            raise ValueError(f"model {name!r}: inits={inits!r} must be a positive integer (trainings of each "
                             "model averaged, from seeds seed, seed + 1000, ...)")
    for key in ("impute_similarity", "interolog_similarity"):
        if opts.get(key) is not None and opts[key] not in IMPUTE_SIMILARITIES:
            raise ValueError(f"model {name!r}: {key}={opts[key]!r}: choose one of {', '.join(IMPUTE_SIMILARITIES)}"
                             + (" (null: impute_similarity's)" if key == "interolog_similarity" else ""))
    for key, least in (("impute", 0), ("impute_kmer", 1), ("interolog", 0)):
        value = opts.get(key, least)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"model {name!r}: {key}={value!r} must be an integer >= {least} (impute: similar "
                             "proteins an unseen protein's profile is imputed from, 0 = none; impute_kmer: k-mer "
                             "length of their similarity; interolog: homologues per protein of the interolog "
                             "transfer, 0 = none)")
    shrink = opts.get("interolog_shrink", 1.0)
    if isinstance(shrink, bool) or not isinstance(shrink, int | float) or not shrink > 0:
        raise ValueError(f"model {name!r}: interolog_shrink={shrink!r} must be a number > 0 (the pseudo-weight "
                         "of the rule's score against the interologs, e.g. 0.03)")
    if opts.get("kind") == "gat_pairs" and opts.get("interolog") and not opts.get("profile_skip"):
        raise ValueError(f"model {name!r}: interolog transfer replaces profile_skip's score: set profile_skip: true "
                         "or interolog: 0")
    attention = opts.get("interolog_attention")
    if attention not in INTEROLOG_ATTENTIONS:
        raise ValueError(f"model {name!r}: interolog_attention={attention!r}: choose one of "
                         f"{', '.join(map(str, INTEROLOG_ATTENTIONS))} (null: off)")
    heads = opts.get("interolog_heads", 1)
    if isinstance(heads, bool) or not isinstance(heads, int) or heads < 1:
        raise ValueError(f"model {name!r}: interolog_heads={heads!r} must be a positive integer")
    if attention is not None and not opts.get("interolog"):
        raise ValueError(f"model {name!r}: interolog_attention weighs the interologs: it needs interolog > 0 "
                         "(homologues per protein), or interolog_attention: null")


def _reject_unknown(opts: dict[str, Any], known, what: str) -> None:
    """A builder's check: every option of ``opts`` is one of ``known`` (a set option would else be ignored)."""
    unknown = sorted(set(opts) - set(known))
    if unknown:
        raise ValueError(f"unknown {what} option(s) {unknown}; it takes {', '.join(sorted(known))}")


@register_pair_model("encoder")
def _build_encoder_model(opts: dict[str, Any], in_channels: int, num_modes: int) -> PairClassifier:
    """The built-in models: :class:`PairEncoder` + :class:`PairClassifier`."""
    _reject_unknown(opts, MODEL_DEFAULTS, "model")
    ef = opts["edge_features"]
    if ef not in EDGE_FEATURES:
        raise ValueError(f"edge_features={ef!r}: choose none or score")
    conv_kwargs = _gatbio_conv_options(opts)
    enc = PairEncoder(in_channels, hidden=opts["hidden"], layers=opts["layers"], conv=opts["conv"],
                      heads=opts["heads"], dropout=opts["dropout"], input_dropout=opts["input_dropout"],
                      attn_dropout=opts["attn_dropout"], edge_dim=1 if ef == "score" else None, **conv_kwargs)
    return PairClassifier(enc, opts["hidden"], num_modes, dropout=opts["decoder_dropout"], edge_features=ef)


def uses_residues(options: dict[str, Any]) -> bool:
    """Whether a model reads each protein's residue matrix (:func:`gatbio.data.sequence.residue_matrix`, its
    ``max_len``) instead of the fixed sequence features ``x``; such a model passes no message."""
    return options.get("kind") == "residue_cnn"


@register_pair_model("residue_cnn")
def _build_residue_cnn(opts: dict[str, Any], in_channels: int, num_modes: int) -> PairClassifier:
    """:class:`gatbio.nn.sequence_encoder.ResidueCNN` + the product decoder; ``in_channels``: the channels of the
    residue matrix, ``d + 1`` (the embedding, then the mask channel)."""
    from gatbio.nn.sequence_encoder import ResidueCNN

    _reject_unknown(opts, RESIDUE_CNN_DEFAULTS, "residue_cnn")
    enc = ResidueCNN(in_channels - 1, hidden=opts["hidden"], channels=opts["channels"],
                     kernel_sizes=tuple(opts["kernel_sizes"]), pool=opts["pool"], dropout=opts["dropout"],
                     norm=bool(opts["norm"]))
    return PairClassifier(enc, opts["hidden"], num_modes, dropout=opts["decoder_dropout"])


# ----------------------------------------------------------------------------------------------- the #15 recipe
def uses_pair_inputs(options: dict[str, Any]) -> bool:
    """Whether a model's inputs are rebuilt from message pairs (:class:`gatbio.data.pair_features.PairGraphBuilder`)
    rather than the fixed sequence features ``x`` and message graph."""
    return options.get("kind") == "gat_pairs"


def pair_edge_dim(options: dict[str, Any], num_modes: int = 7) -> int | None:
    """Edge feature size of a ``gat_pairs`` model: type one-hot (2), modes (M), STRING score + similarity (2)."""
    d = 2 * bool(options["edge_type"]) + num_modes * bool(options["edge_modes"]) + 2 * bool(options["edge_score"])
    return d or None


class PairEncoding(NamedTuple):
    """What :meth:`GATPairModel.encode` gives its decoder: the protein embeddings ``z`` (N, D'), the profile prior
    (N, M) of ``profile_skip`` (else ``None``) and the labelled message pairs ``(pairs (K, 2), modes (K, M))`` of the
    interolog transfer (else ``None``)."""

    z: Tensor
    prior: Tensor | None = None
    known: tuple[Tensor, Tensor] | None = None


class GATPairModel(nn.Module):
    r"""The interaction-type recipe of issue #15: input layer, attention layers with layer norm and residuals,
    jumping knowledge, and an MLP decoder of :math:`[h_a \odot h_b, |h_a - h_b|, h_a + h_b]`.

    .. math::
        h^{(0)} &= \mathrm{drop}(\mathrm{ReLU}(W_{in} x)), \qquad
        h^{(k)} = \mathrm{drop}\big(\mathrm{ELU}(\mathrm{LN}_k(\mathrm{Conv}_k(h^{(k-1)}, \mathcal{E}, e)))
                  + h^{(k-1)}\big) \\
        z_v &= [h^{(0)}_v \| \dots \| h^{(K)}_v], \qquad
        \hat y_{ab} = W_2\,\mathrm{drop}(\mathrm{ReLU}(W_1 [z_a \odot z_b, |z_a - z_b|, z_a + z_b]))

    With ``profile_skip``, the decoder adds the no-learning rule's score as a logit, so the network learns a
    correction to :func:`gatbio.data.pair_features.profile_rule` rather than relearning it:

    .. math::
        \hat y_{ab} \mathrel{+}= w \odot \mathrm{logit}\big(\mathrm{clip}_{[0.02,\,0.98]}
            (\tfrac12 (\pi_a + \pi_b))\big) + b, \qquad w = \mathbf 1,\ b = \mathbf 0 \text{ at init},

    where :math:`\pi_v` is protein :math:`v`'s label profile (input columns after the sequence block) or, for a
    protein without message pairs, its profile imputed from similar sequences (the builder's ``impute``) or else
    the mean mode vector of the message pairs (:func:`gatbio.data.pair_features.profile_prior`).

    With ``interolog`` (it needs ``profile_skip``) the rule's score :math:`\tfrac12 (\pi_a + \pi_b)` is replaced by
    the interolog transfer :math:`t_{ab}` from the message pairs between the two proteins' homologues, shrunk towards
    it by ``interolog_shrink`` (:func:`gatbio.data.pair_features.interolog_scores`, :func:`interolog_prior
    <gatbio.data.pair_features.interolog_prior>`): the message pairs and their modes are read from the last ``M``
    edge columns (the builder's ``mode_record``, which the attention layers do not see), the homologue sets are set
    once with :meth:`set_homologues`.

    With ``interolog_attention`` (``"gat"`` or ``"gatv2"``; it needs ``interolog``) the interolog score is computed
    by a :class:`gatbio.nn.GATConv` with ``interolog_heads`` heads that attends from each query pair over its
    interologs one by one and over the profile rule's score, its attention logits biased by the rule's log weights
    (:meth:`_transfer`; :func:`gatbio.data.pair_features.interolog_edges`); it starts as the rule exactly
    (:meth:`_init_transfer`) and learns how to weigh the evidence that the rule weighs by fixed similarities (off by
    default: not ahead on validation, experiments/README).

    The first ``seq_channels`` input columns (the sequence block) get dropout ``seq_dropout`` in training; the
    next ``role_channels`` are the builder's role block (``roles``), if any, and the profile block comes last.
    ``conv="gatbio"``: :class:`gatbio.nn.GATConv` with ``degree_norm``, ``temperature``, ``attention`` and a
    linear residual; ``conv="pyg_gat"``: PyG's ``GATConv`` (residual too). Loss: BCE with logits with
    ``pos_weight`` on every mode (> 1 favours recall; it moves the operating point of the 0.5 threshold).

    Args:
        in_channels (int): Input features per protein :math:`F` (sequence block, role block, profile block).
        num_modes (int, optional): Interaction modes :math:`M`. (default: :obj:`7`)
        seq_channels (int, optional): Width of the sequence block. (default: :obj:`0`)
        hidden (int, optional): Width :math:`D` of every layer (a multiple of ``heads``). (default: :obj:`128`)
        layers (int, optional): Attention layers :math:`K`. (default: :obj:`2`)
        heads (int, optional): Heads per attention layer, concatenated to ``hidden``. (default: :obj:`4`)
        conv (str, optional): ``"gatbio"`` or ``"pyg_gat"`` (above). (default: :obj:`"gatbio"`)
        dropout (float, optional): Dropout on the layers' outputs and in the decoder. (default: :obj:`0.3`)
        attn_dropout (float, optional): Dropout on the attention weights. (default: :obj:`0.1`)
        seq_dropout (float, optional): Dropout on the sequence block's inputs. (default: :obj:`0.0`)
        jk (bool, optional): Decode the concatenation of every layer's output (jumping knowledge); else the
            last layer's. (default: :obj:`True`)
        residual (bool, optional): The attention layers' linear residual. (default: :obj:`True`)
        edge_dim (int, optional): Edge features the attention layers read. (default: :obj:`None`)
        pos_weight (float, optional): BCE weight of the positive labels. (default: :obj:`1.0`)
        profile_skip, interolog, interolog_shrink, interolog_attention, interolog_heads: above.
            (defaults: :obj:`False`, :obj:`False`, :obj:`0.03`, :obj:`None`, :obj:`4`)
        role_channels (int, optional): Width of the role block. (default: :obj:`0`)
        **conv_kwargs: further :class:`gatbio.nn.GATConv` options (``degree_norm``, ``temperature``,
            ``attention``, ...), with ``conv="gatbio"`` only.

    Shapes:
        - input: x (N, F), edge_index (2, E), pairs (P, 2) long (one row per pair: :func:`check_pairs`),
          edge_attr (E, edge_dim) (required with ``edge_dim``; else ``None``):
          ``forward(x, edge_index, pairs, edge_attr=None)``
        - output: logits (P, M)
    """

    def __init__(self, in_channels: int, num_modes: int = 7, seq_channels: int = 0, hidden: int = 128,
                 layers: int = 2, heads: int = 4, conv: str = "gatbio", dropout: float = 0.3,
                 attn_dropout: float = 0.1, seq_dropout: float = 0.0, jk: bool = True, residual: bool = True,
                 edge_dim: int | None = None, pos_weight: float = 1.0, profile_skip: bool = False,
                 interolog: bool = False, interolog_shrink: float = 0.03, interolog_attention: str | None = None,
                 interolog_heads: int = 4, role_channels: int = 0, **conv_kwargs: Any):
        super().__init__()
        if profile_skip and in_channels - seq_channels - role_channels != num_modes + 2:
            raise ValueError("profile_skip needs the label profile block (profile: true) after the sequence block")
        if interolog and not profile_skip:
            raise ValueError("interolog transfer replaces profile_skip's score: it needs profile_skip")
        if interolog_shrink <= 0:
            raise ValueError(f"interolog_shrink={interolog_shrink}: must be > 0")
        if interolog_attention is not None and not interolog:
            raise ValueError("interolog_attention weighs the interolog transfer's evidence: it needs interolog")
        if conv not in ("gatbio", "pyg_gat"):
            raise ValueError(f"conv={conv!r}: the gat_pairs recipe takes gatbio or pyg_gat")
        if hidden % heads:
            raise ValueError(f"hidden={hidden} is not a multiple of heads={heads}")
        if conv_kwargs and conv != "gatbio":
            raise ValueError(f"{sorted(conv_kwargs)} are gatbio GATConv options; they need conv='gatbio'")
        self.in_channels, self.num_modes, self.seq_channels = in_channels, num_modes, seq_channels
        self.dropout, self.seq_dropout, self.jk, self.edge_dim = dropout, seq_dropout, jk, edge_dim
        self.register_buffer("pos_weight", torch.full((num_modes,), float(pos_weight)))
        self.edge_features = None  # inputs come from a PairGraphBuilder, not the task's fixed edge attributes
        self.lin_in = nn.Linear(in_channels, hidden)
        self.convs, self.norms = nn.ModuleList(), nn.ModuleList()
        for _ in range(layers):
            if conv == "gatbio":
                from gatbio.nn.conv import GATConv

                layer = GATConv(hidden, hidden // heads, heads=heads, dropout=attn_dropout, edge_dim=edge_dim,
                                residual=residual, **conv_kwargs)
            else:
                from torch_geometric.nn import GATConv as PyGGATConv

                layer = PyGGATConv(hidden, hidden // heads, heads=heads, dropout=attn_dropout, edge_dim=edge_dim,
                                   residual=residual)
            self.convs.append(layer)
            self.norms.append(nn.LayerNorm(hidden))
        out = hidden * (layers + 1) if jk else hidden
        self.dec = nn.Sequential(nn.Linear(3 * out, hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, num_modes))
        self.profile_skip, self.interolog, self.interolog_shrink = profile_skip, interolog, interolog_shrink
        if profile_skip:  # per-mode scale and shift of the profile prior's logit (init: the prior itself)
            self.skip_weight = nn.Parameter(torch.ones(num_modes))
            self.skip_bias = nn.Parameter(torch.zeros(num_modes))
        self.register_buffer("hom_index", None)  # (N, k + 1): set_homologues
        self.register_buffer("hom_weight", None)
        self.transfer = None
        if interolog_attention is not None:  # known pair (modes, flag) -> query pair (its decoder input)
            from gatbio.nn.conv import GATConv

            self.transfer = GATConv((num_modes + 1, 3 * out), num_modes, heads=interolog_heads, concat=False,
                                    dropout=attn_dropout, add_self_loops=False, edge_dim=5,
                                    attention=interolog_attention, temperature="learn")
            self._init_transfer()

    def reset_parameters(self) -> None:
        """Every parameter to its initial distribution: the layers' own initialisations, the ``profile_skip``
        scale and shift to 1 and 0, and the learnt interolog weighting to the rule (:meth:`_init_transfer`). The
        homologue sets (:meth:`set_homologues`) are data, kept."""
        self.lin_in.reset_parameters()
        for conv, norm in zip(self.convs, self.norms, strict=True):
            conv.reset_parameters()
            norm.reset_parameters()
        for layer in self.dec:
            if hasattr(layer, "reset_parameters"):
                layer.reset_parameters()
        if self.profile_skip:
            with torch.no_grad():
                self.skip_weight.fill_(1.0)
                self.skip_bias.zero_()
        if self.transfer is not None:
            self.transfer.reset_parameters()
            self._init_transfer()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # The homologue buffers are None until set_homologues: a saved model that had them loaded into a fresh one
        # as 'Unexpected key(s) in state_dict: "hom_index", "hom_weight"'. Take their shapes from the state first.
        for name in ("hom_index", "hom_weight"):
            saved = state_dict.get(prefix + name)
            if saved is not None and getattr(self, name) is None:
                setattr(self, name, torch.empty_like(saved, device=self.lin_in.weight.device))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def _init_transfer(self) -> None:
        """Start the learnt weighting at the rule: every head passes the sources' modes through unchanged and
        attends by the rule's log weights alone (attention parameters zero, temperature 1, no output bias), so that
        :meth:`_transfer` is :func:`gatbio.data.pair_features.interolog_prior` until training moves it."""
        t, m = self.transfer, self.num_modes
        lin = t.lin_src if t.attention == "gat" else t.lin_l
        with torch.no_grad():
            lin.weight.copy_(torch.cat([torch.eye(m), torch.zeros(m, 1)], dim=1).repeat(t.heads, 1))
            for p in (getattr(lin, "bias", None), t.att_src, t.att_dst, t.att_edge, t.att, t.bias):
                if p is not None:
                    p.zero_()

    def set_homologues(self, index: Tensor, weight: Tensor) -> None:
        """The homologue sets of the interolog transfer, ``(N, k + 1)`` each
        (:func:`gatbio.data.pair_features.homologues`; label-free); kept as buffers (they move with the model)."""
        device = self.lin_in.weight.device
        self.hom_index = torch.as_tensor(index).long().to(device)
        self.hom_weight = torch.as_tensor(weight).float().to(device)

    def encode(self, x: Tensor, edge_index: Tensor, edge_attr: Tensor | None = None) -> PairEncoding:
        _check_node_features(x, "x", self.in_channels, self.lin_in.weight.dtype)
        _check_edge_attr_given(edge_attr, self.edge_dim, "GATPairModel")
        known = None
        if self.interolog:  # the message pairs' mode record: the last M edge columns, not a feature
            from gatbio.data.pair_features import PairGraphBuilder

            if self.hom_index is None or self.hom_index.size(0) != x.size(0):
                raise ValueError("interolog transfer needs the homologue sets of the graph's proteins: call "
                                 "set_homologues(index, weight) (gatbio.data.pair_features.homologues) first")
            if edge_attr is None or edge_attr.size(1) != (self.edge_dim or 0) + self.num_modes:
                raise ValueError("interolog transfer reads the message pairs' modes from the last edge columns: "
                                 "build the graph with PairGraphBuilder(mode_record=True)")
            known = PairGraphBuilder.labelled_edges(edge_index, edge_attr[:, -self.num_modes:])
            edge_attr = edge_attr[:, :-self.num_modes] if self.edge_dim else None
        if self.training and self.seq_dropout > 0 and self.seq_channels:
            s = self.seq_channels
            x = torch.cat([F.dropout(x[:, :s], self.seq_dropout, True), x[:, s:]], dim=1)  # (N, F)
        h = F.dropout(F.relu(self.lin_in(x)), self.dropout, self.training)  # (N, D)
        hs = [h]
        for conv, norm in zip(self.convs, self.norms, strict=True):
            z = conv(h, edge_index, edge_attr=edge_attr) if self.edge_dim else conv(h, edge_index)  # (N, D)
            h = F.dropout(F.elu(norm(z)) + h, self.dropout, self.training)
            hs.append(h)
        z = torch.cat(hs, dim=1) if self.jk else h  # (N, D (K + 1)) or (N, D)
        prior = None
        if self.profile_skip:  # each protein's profile prior, for the decoder's skip logit
            from gatbio.data.pair_features import profile_prior

            prior = profile_prior(x[:, -(self.num_modes + 2):])  # (N, M): the profile block is last
        return PairEncoding(z, prior, known)

    def decode(self, h: PairEncoding, pairs: Tensor) -> Tensor:
        check_pairs(pairs)
        a, b = h.z[pairs[:, 0]], h.z[pairs[:, 1]]  # (P, D') each
        pair = torch.cat([a * b, (a - b).abs(), a + b], dim=1)  # (P, 3 D')
        out = self.dec(pair)  # (P, M)
        if h.prior is not None:  # the no-learning score as a logit, added: the network learns the correction
            from gatbio.data.pair_features import rule_scores

            if self.transfer is not None:  # the rule's score with learnt weights of its evidence
                p = self._transfer(h, pairs, pair)
            else:
                p = rule_scores(h.prior, pairs, h.known, (self.hom_index, self.hom_weight), self.interolog_shrink)
            out = out + self.skip_weight * torch.logit(p.clamp(0.02, 0.98)) + self.skip_bias
        return out

    def _transfer(self, h: PairEncoding, pairs: Tensor, pair: Tensor) -> Tensor:
        r"""The interolog score ``(P, M)`` with learnt weights: attention of each query pair over its interologs
        :math:`(c, d)` (sources: their modes, flag 0) and over the profile rule's score (a source of its own, flag 1),
        with the rule's weights as the attention bias, :math:`\log w_{ac} w_{bd}` and :math:`\log \lambda`: with
        zero attention parameters and temperature 1 the attention weights are the rule's, and with the identity
        projection of :meth:`_init_transfer` the score is the rule's (:func:`gatbio.data.pair_features.interolog_prior`).
        Edge features: :math:`\log w_{ac}`, :math:`\log w_{bd}`, whether
        :math:`c = a`, whether :math:`d = b`, the rule flag."""
        from gatbio.data.pair_features import interolog_edges

        ev = interolog_edges(*h.known, pairs, self.hom_index, self.hom_weight)
        q, k, dev = len(pairs), len(ev.modes), pairs.device
        rule = (h.prior[pairs[:, 0]] + h.prior[pairs[:, 1]]) / 2  # (P, M): the rule's score without interologs
        x_src = torch.cat([torch.cat([ev.modes.to(rule.dtype), rule.new_zeros(k, 1)], dim=1),
                           torch.cat([rule, rule.new_ones(q, 1)], dim=1)])  # (K' + P, M + 1)
        ar = torch.arange(q, device=dev)
        edge_index = torch.stack([torch.cat([ev.src, k + ar]), torch.cat([ev.dst, ar])])  # (2, E + P)
        wa = self.hom_weight[pairs[ev.dst, 0], ev.rank_a].clamp_min(1e-4).log()  # (E,)
        wb = self.hom_weight[pairs[ev.dst, 1], ev.rank_b].clamp_min(1e-4).log()
        evidence = torch.stack([wa, wb, (ev.rank_a == 0).to(wa), (ev.rank_b == 0).to(wa), torch.zeros_like(wa)], 1)
        edge_attr = torch.cat([evidence, evidence.new_tensor([[0.0, 0, 0, 0, 1]]).expand(q, 5)])  # (E + P, 5)
        bias = torch.cat([wa + wb, wa.new_full((q,), math.log(self.interolog_shrink))])  # (E + P,)
        return self.transfer((x_src, pair), edge_index, edge_attr=edge_attr, attn_bias=bias)  # (P, M)

    def forward(self, x: Tensor, edge_index: Tensor, pairs: Tensor, edge_attr: Tensor | None = None) -> Tensor:
        check_pairs(pairs, x.size(0))  # before the encoder runs
        return self.decode(self.encode(x, edge_index, edge_attr), pairs)

    def loss(self, logits: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(logits, target.float(), pos_weight=self.pos_weight)


@register_pair_model("gat_pairs")
def _build_gat_pairs(opts: dict[str, Any], in_channels: int, num_modes: int) -> GATPairModel:
    """:class:`GATPairModel` from the ``gat_pairs`` options (:data:`GAT_PAIRS_DEFAULTS`); ``in_channels`` is the
    builder's feature size (sequence block first, then the role block of ``2 num_modes`` columns with ``roles``,
    then the profile block of ``num_modes + 2`` columns)."""
    _reject_unknown(opts, GAT_PAIRS_DEFAULTS, "gat_pairs")
    if opts["interolog"] and not opts["interactions"]:
        raise ValueError("interolog transfer reads the message pairs from the graph's interaction edges: it needs "
                         "interactions: true (or interolog: 0)")
    conv_kwargs = _gatbio_conv_options(opts)
    graph = opts["interactions"] or opts["knn"]
    roles = 2 * num_modes if opts["roles"] else 0
    seq = in_channels - roles - (num_modes + 2 if opts["profile"] else 0)
    return GATPairModel(in_channels, num_modes, seq_channels=seq, role_channels=roles, hidden=opts["hidden"],
                        layers=opts["layers"],
                        heads=opts["heads"], conv=opts["conv"], dropout=opts["dropout"],
                        attn_dropout=opts["attn_dropout"], seq_dropout=opts["seq_dropout"], jk=opts["jk"],
                        residual=opts["residual"], edge_dim=pair_edge_dim(opts, num_modes) if graph else None,
                        pos_weight=opts["pos_weight"], profile_skip=opts["profile_skip"],
                        interolog=opts["interolog"] > 0, interolog_shrink=opts["interolog_shrink"],
                        interolog_attention=opts["interolog_attention"], interolog_heads=opts["interolog_heads"],
                        **conv_kwargs)
