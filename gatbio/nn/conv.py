"""The attention layer: a drop-in superset of PyG's :class:`~torch_geometric.nn.conv.GATConv`."""

from __future__ import annotations

import functools
import math
import numbers
import weakref

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn import Parameter
from torch_geometric.nn.aggr import SumAggregation
from torch_geometric.nn.conv import MessagePassing
from torch_geometric.nn.dense.linear import Linear
from torch_geometric.nn.inits import glorot, zeros
from torch_geometric.typing import Adj
from torch_geometric.utils import add_self_loops, scatter

from gatbio.nn import functional as GF
from gatbio.nn import fused as FU
from gatbio.nn import kernels as KN
from gatbio.nn._adj import attention_like, read_adjacency

ATTENTIONS = ("gat", "gatv2", "dot")
DEGREE_NORMS = (None, "log", "sym")
IMPLS = ("auto", "reference", "fused", "triton")
# How the added self-loops' edge features are made from a node's incoming ones (torch_geometric.utils.add_self_loops).
FILL_VALUES = ("mean", "add", "sum", "max", "min", "mul")
#: The smallest temperature: below it the attention is a hard max already, and the logits divided by it overflow
#: float32 (1e-40 gave NaN outputs without an error)
TEMPERATURE_FLOOR = 1e-6
# Input dtypes of the Triton kernels (they compute in float32; float64 stays on the other paths).
TRITON_DTYPES = (torch.float32, torch.bfloat16, torch.float16)
# impl="auto" uses the fused path when the avoided (E, H, C) message tensor has at least this many entries
# (on tiny graphs sorting the edges into the CSR layout costs more than the gather it saves).
FUSED_MIN_ELEMENTS = 1 << 18
# Per input edge_index (unmodified): the graph layouts of the fused and Triton paths, the self-loop selection and
# the checked index range (computed once: reading index values back waits for the GPU). Keys: (id, version,
# shape, device, what, ...) → (weakref, value).
_PLANS: dict[tuple, tuple] = {}
_CACHE = {"enabled": True}


def cache_graphs(enabled: bool) -> bool:
    """Turn the per-graph cache (CSR layouts, self-loop selection, index check) on or off; returns the old setting.

    The cache knows a graph by its ``edge_index`` tensor and the tensor's version counter, which PyTorch bumps on
    every in-place write it sees (``ei[1] = 0``, ``ei.add_(1)``). Writes it cannot see reuse a stale entry: through a
    NumPy array that shares the memory (``torch.from_numpy(buf)``, then ``buf[...] = ...``) or through
    ``ei.data``. Code that refills the same buffer that way (some samplers do) should call
    ``cache_graphs(False)``, or pass a fresh tensor per batch. Off, every call rebuilds what it needs (slower on
    large graphs, equal results)."""
    old, _CACHE["enabled"] = _CACHE["enabled"], bool(enabled)
    if not enabled:
        _PLANS.clear()
        _KEYS.clear()
    return old


# The keys of each live input graph's entries, by id(edge_index): what its weak reference's callback drops when the
# graph is freed, and what a new version of the same tensor replaces (no scan of the whole cache on either).
_KEYS: dict[int, set] = {}


def _forget_plans(tensor_id: int, _ref=None, plans: dict = _PLANS, keys: dict = _KEYS) -> None:
    """A freed graph's entries, dropped at once (their memory too). Called as a weak reference's callback, where
    Python ignores any exception: a Ctrl-C landing here would be lost (seen: a benchmark ran on to its end), so it
    is handed back to the main thread. ``plans`` / ``keys`` bound at definition: at interpreter exit the module's
    globals may already be cleared (None) when the last graphs are freed and call back here."""
    try:
        for key in keys.pop(tensor_id, ()):
            plans.pop(key, None)
    except KeyboardInterrupt:
        import _thread

        _thread.interrupt_main()


def _cached_plan(edge_index_in: Tensor, key: tuple, build):
    """``build()`` for this graph (a CSR plan, the self-loop selection, the index check), computed once while
    the input ``edge_index`` tensor lives unchanged (same object, same version) and shared by every layer; built
    afresh for an inference tensor and with :func:`cache_graphs` off. Under ``torch.inference_mode()`` a cached
    plan is used, but one built there is not kept (it is made of inference tensors, which a later training step
    could not save for backward)."""
    if torch.compiler.is_compiling():  # traced into the compiled graph instead (no Python-side cache there)
        return build()
    if not _CACHE["enabled"] or edge_index_in.is_inference():  # inference tensors have no version counter
        return build()
    tensor_id, version = id(edge_index_in), edge_index_in._version
    key = (tensor_id, version, tuple(edge_index_in.shape), edge_index_in.device, *key)
    entry = _PLANS.get(key)
    if entry is not None and entry[0]() is edge_index_in:
        return entry[1]
    plan = build()
    if torch.is_inference_mode_enabled():  # built of inference tensors: a later step with autograd could not use it
        return plan
    # Forget the plan with its graph (the weak reference's callback). A buffer refilled in place (a new version
    # each time) keeps only its current version's entries: older versions can never be asked for again.
    mine = _KEYS.setdefault(tensor_id, set())
    for old in [k for k in mine if k[1] != version]:
        mine.discard(old)
        _PLANS.pop(old, None)
    ref = weakref.ref(edge_index_in, functools.partial(_forget_plans, tensor_id))
    _PLANS[key] = (ref, plan)
    mine.add(key)
    return plan


def _looped(edge_index: Tensor, n_loops: int) -> tuple[Tensor, Tensor]:
    """``(keep, looped)``: the positions of the edges that are not self-loops (E',), and the graph without its
    self-loops plus one loop on each of the first ``n_loops`` nodes, appended (2, E' + n_loops), as
    :func:`~torch_geometric.utils.remove_self_loops` then :func:`~torch_geometric.utils.add_self_loops` give.

    A 'meta' tensor (shape inference) has no values, so which edges are loops is unknown (``nonzero``'s size
    depends on them): there every edge is taken to be no loop (``keep`` is 0..E-1, ``looped`` is (2, E +
    n_loops)), the shapes exact for a graph without self-loops and an upper bound otherwise."""
    if edge_index.is_meta:
        keep = torch.arange(edge_index.size(1), device=edge_index.device)
        looped, _ = add_self_loops(edge_index, num_nodes=n_loops)
        return keep, looped
    keep = (edge_index[0] != edge_index[1]).nonzero().view(-1)
    looped, _ = add_self_loops(edge_index.index_select(1, keep), num_nodes=n_loops)
    return keep, looped


def _select_edges(t: Tensor, keep: Tensor, *, by_column: bool | None = None) -> Tensor:
    """``t.index_select(0, keep)`` for a per-edge tensor ``t`` (E, D), by columns where rows are narrow on CUDA.

    On an H200 (torch 2.11) one ``aten::gather`` in ``vectorized_gather_kernel<16, long>`` took 6.0 ms of each
    forward + backward step at 10M edges with four float32 edge features, 31 % of the layer's device time
    (``experiments/gpu_runs/2026-11-26c-h200``): that kernel gives each selected row its own thread block, which
    for a 16-byte row copies one vector. Selecting along the edges of the transposed (D, E) copy instead goes
    through the element-wise kernel (the profile's other gather, 0.17 ms a step, ran there). Measured after the
    change, same machine kind (``experiments/gpu_runs/2026-11-26d-h200``): the slow gather is gone, every
    ``aten::gather`` together 0.37 ms a step, the layer's step with edge features 20.1 → 15.0 ms. On the CPU both
    ways give the same values and the plain selection is kept. ``by_column`` forces either way (tests). A graph
    without self-loops keeps every edge: ``t`` itself."""
    # No loop removed: keep is 0, 1, ..., E-1 (nonzero's positions, in order). Not while compiling, where keep's
    # length is data-dependent (a guard on it breaks the graph), nor under torch.jit.trace, which would record the
    # shortcut for every later graph (one with self-loops then kept its loops' rows: a size mismatch).
    if not torch.compiler.is_compiling() and not torch.jit.is_tracing() and keep.numel() == t.size(0):
        return t
    if by_column is None:
        by_column = t.is_cuda and t.dim() == 2 and t.size(1) * t.element_size() <= 64
    if by_column:
        return t.t().contiguous().index_select(1, keep).t()
    return t.index_select(0, keep)


#: MessagePassing's hook registries (``register_propagate_forward_pre_hook`` and the like): PyG calls them from
#: ``propagate``, ``message`` and ``aggregate``, which only the reference path runs. (Its ``edge_update`` hooks
#: fire on no path: the attention is computed outside PyG's ``edge_updater``; the layer refuses them.)
_PYG_HOOKS = tuple(f"_{step}_forward{pre}_hooks" for step in ("propagate", "message", "aggregate",
                                                               "message_and_aggregate")
                   for pre in ("_pre", ""))


def _check_index_range(edge_index: Tensor, num_src: int, num_dst: int) -> bool:
    """Raise a ValueError unless every source index is in [0, num_src) and every target in [0, num_dst); a 'meta'
    tensor (shapes only, no values to read back) passes unchecked."""
    if edge_index.is_meta:
        return True
    lo, max_src, max_dst = torch.stack([edge_index.min(), edge_index[0].max(), edge_index[1].max()]).tolist()
    if lo < 0:
        raise ValueError(f"edge_index contains a negative node index ({lo})")
    for what, top, n in (("source", max_src, num_src), ("target", max_dst, num_dst)):
        if top >= n:
            have = f"only {n} {what} nodes (valid indices 0..{n - 1})" if n else f"no {what} nodes (x has no rows)"
            raise ValueError(f"edge_index contains {what} node index {top} but there are {have}")
    return True


def _autocast_on(t: Tensor) -> bool:
    """Whether autocast is on for ``t``'s device; ``False`` for a device autocast does not know ('meta', used for
    shape inference; 'lazy'), where ``torch.is_autocast_enabled`` raises instead of answering."""
    device = t.device.type
    return torch.amp.is_autocast_available(device) and torch.is_autocast_enabled(device)


def _check_same_device(t: Tensor, name: str, x: Tensor) -> None:
    """A ``ValueError`` naming ``name`` when ``t`` is on another device than the node features ``x`` (a bias or
    edge features made on the CPU for a model on the GPU: torch's own error names no argument)."""
    if t.device != x.device:
        raise ValueError(f"{name} is on {t.device} but x is on {x.device}: move it with {name}.to(x.device)")


def _check_indices(edge_index: Tensor, num_src: int, num_dst: int) -> None:
    """A ``ValueError`` unless the (2, E) ``edge_index`` holds long or int32 indices in ``0..num_src - 1`` (row 0)
    and ``0..num_dst - 1`` (row 1). The values are read back once per graph and sizes (cached with the graph:
    reading them waits for the GPU), in eager mode only (data-dependent)."""
    if edge_index.dtype not in (torch.long, torch.int):
        raise ValueError(f"edge_index must hold torch.long or torch.int32 indices; got dtype {edge_index.dtype} "
                         "(convert it with edge_index.long())")
    if edge_index.size(1) > 0 and not torch.compiler.is_compiling():
        _cached_plan(edge_index, ("checked", num_src, num_dst),
                     lambda: _check_index_range(edge_index, num_src, num_dst))


class GATConv(MessagePassing):
    r"""Graph attention with degree normalisation, temperature and an additive attention bias.

    With ``attention="gat"``, ``temperature=1.0``, ``degree_norm=None`` and no ``attn_bias`` this is
    exactly PyG's :class:`~torch_geometric.nn.conv.GATConv` (Veličković et al., ICLR 2018): same
    arguments, defaults, parameter names and outputs. With ``attention="gatv2"`` it is PyG's
    :class:`~torch_geometric.nn.conv.GATv2Conv` (Brody et al., ICLR 2022). One difference by design: attention
    dropout in training on the CPU draws its mask as ``rand >= p`` (:func:`gatbio.nn.functional.dropout`, 3-4x
    faster), the same distribution as PyG's but not the same mask for a given seed.

    For an edge :math:`j \to i` and head :math:`h` (:math:`W` shared projection, :math:`d` the in-degrees in the
    graph the layer attends over, i.e. with its self-loops when ``add_self_loops``, :math:`b` the ``attn_bias``), in
    this order:

    .. math::
        e_{ij}^{h} &= \begin{cases}
            \mathrm{LeakyReLU}\big(a_{s,h}^\top W_h x_j + a_{d,h}^\top W_h x_i + a_{e,h}^\top W_{e,h} e_{ij}\big)
                & \text{gat} \\
            a_h^\top \mathrm{LeakyReLU}\big(W_{l,h} x_j + W_{r,h} x_i + W_{e,h} e_{ij}\big) & \text{gatv2} \\
            (W_{q,h} x_i)^\top (W_{k,h} x_j) / \sqrt{C} + a_{e,h}^\top W_{e,h} e_{ij} & \text{dot}
        \end{cases} \\
        z_{ij}^{h} &= \big(e_{ij}^{h} - [\lambda_h \log d_j]_{\text{log}} + b_{ij}^{h}\big) / \tau_h \\
        \alpha_{ij}^{h} &= \operatorname{softmax}_{j \in \mathcal{N}(i) \cup \{i\}}\big(z_{ij}^{h}\big)
            \cdot \big[\sqrt{d_i / d_j}\big]_{\text{sym}} \\
        x_i'^{\,h} &= \sum_{j \in \mathcal{N}(i) \cup \{i\}} \mathrm{dropout}(\alpha_{ij}^{h})\, V_h x_j, \qquad
        x_i' = \big\Vert_h x_i'^{\,h} \text{ (concat) or } \tfrac{1}{H}\textstyle\sum_h x_i'^{\,h}
            \;+\; [W_{\text{res}} x_i] + \text{bias}

    where :math:`V = W` (gat, dot) or :math:`W_l` (gatv2). The ``log`` prior (:math:`\lambda_h` learnable,
    initialised to 1) discounts hub sources while each target's attention still sums to one; the ``sym``
    factor is the degree-normalised attention of "Bag of Tricks for Node Classification with Graph Neural
    Networks" (Wang et al., 2021), after which attention no longer sums to one. The temperature
    :math:`\tau_h` is fixed, or learnt per head as :math:`\tau_h = \tau_{\min} + \mathrm{softplus}(\rho_h)`
    (initialised to :math:`\max(1, \tau_{\min} + 10^{-3})`). The bias :math:`b_{ij}` (e.g. a trophic-level positional bias) is given per edge
    of ``edge_index``; self-loops added by the layer get :math:`b = 0`, and with ``add_self_loops`` a self-loop of
    ``edge_index`` is replaced by the added one, its bias dropped (as PyG drops its ``edge_attr``). A bias of :math:`-\infty` masks the edge:
    weight 0 and no gradient through it, as if absent (the degrees of the degree options still count it); a
    target whose every edge is masked gets no message (its output is the layer's bias), as a node without edges.
    A bias of :math:`+\infty` or NaN is not checked (that would read the values back from a GPU at every call):
    the target's outputs become NaN.

    The layer caches what it derives from a graph (self-loop selection, index check, the fused path's CSR layout)
    for as long as the ``edge_index`` tensor lives unchanged. PyTorch's in-place writes are seen; writes through a
    NumPy array that shares its memory, or through ``.data``, are not: code that refills one index buffer that way
    turns the cache off with :func:`cache_graphs` ``(False)``.

    On 'meta' tensors (shape inference: values unknown) the layer runs without its index check and, with
    ``add_self_loops``, takes none of ``edge_index``'s edges to be a self-loop: the output's shape is exact (it
    does not depend on the edges), while the ``(edge_index', alpha)`` of ``return_attention_weights`` have
    :math:`|\mathcal{E}| + \min(|\mathcal{V}_s|, |\mathcal{V}_t|)` rows, exact for a graph without self-loops
    and more than a real device gives when some are there (each is replaced, not added to).

    Under ``torch.autocast`` (bf16 or fp16) the projections run in low precision on every path; the scores,
    degree terms, temperature and softmax are computed in float32 (float64 for a float64 model) and the
    aggregation sums in float32 (:func:`gatbio.nn.functional.accumulation_dtype`). The output has the input's
    dtype promoted with the parameters' (float32 for a float32 model, as PyG's ``GATConv`` under autocast).

    Args:
        in_channels (int or tuple): Size of each input sample, or ``(src, dst)`` sizes for bipartite graphs.
        out_channels (int): Size of each output sample per head (:math:`C`).
        heads (int, optional): Number of attention heads :math:`H`. (default: :obj:`1`)
        concat (bool, optional): Concatenate heads (else average them). (default: :obj:`True`)
        negative_slope (float, optional): LeakyReLU slope. (default: :obj:`0.2`)
        dropout (float, optional): Dropout probability of the attention weights. (default: :obj:`0.0`)
        add_self_loops (bool, optional): Replace self-loops by one per node. (default: :obj:`True`)
        edge_dim (int, optional): Edge feature dimensionality. (default: :obj:`None`)
        fill_value (float or Tensor or str, optional): Edge features of added self-loops, as in
            :func:`torch_geometric.utils.add_self_loops`. (default: :obj:`"mean"`)
        bias (bool, optional): Learn an additive output bias. (default: :obj:`True`)
        residual (bool, optional): Add a linear residual connection. (default: :obj:`False`)
        attention (str, optional): ``"gat"``, ``"gatv2"`` or ``"dot"``. (default: :obj:`"gat"`)
        temperature (float or str, optional): A number ≥ ``1e-6``, or ``"learn"`` for a learnable
            temperature per head. (default: :obj:`1.0`)
        min_temperature (float, optional): Lower bound of a learnt temperature, ≥ ``1e-6``.
            (default: :obj:`0.05`)
        degree_norm (str, optional): ``None``, ``"log"`` or ``"sym"``. (default: :obj:`None`)
        share_weights (bool, optional): ``gatv2`` only: one projection for source and target, as in
            :class:`~torch_geometric.nn.conv.GATv2Conv`. (default: :obj:`False`)
        impl (str, optional): Aggregation path: ``"reference"`` (PyG message passing), ``"fused"``
            (never builds the (E, H, C) message tensor), ``"triton"`` (the whole layer from scores to
            aggregation in fused Triton kernels, :mod:`gatbio.nn.kernels`; CUDA, or CPU under
            ``TRITON_INTERPRET=1``) or ``"auto"`` (``"triton"`` on CUDA when Triton imports, else the
            faster of the other two). (default: :obj:`"auto"`)
        **kwargs (optional): Additional arguments of :class:`torch_geometric.nn.conv.MessagePassing`.

    Shapes:
        - **input:**
          node features :math:`(|\mathcal{V}|, F_{in})` or :math:`((|\mathcal{V}_s|, F_s), (|\mathcal{V}_t|, F_t))`,
          edge indices :math:`(2, |\mathcal{E}|)` (``torch.long``, or ``torch.int32``: computed as a ``long`` copy
          cached with the graph, 8 bytes per index, since torch's CPU scatter backward gives wrong gradients
          with int32) or a sparse adjacency :math:`(|\mathcal{V}_t|, |\mathcal{V}_s|)`,
          edge features :math:`(|\mathcal{E}|, D)` *(optional)*,
          attention bias :math:`(|\mathcal{E}|)` or :math:`(|\mathcal{E}|, H)` *(optional)*
        - **output:** node features :math:`(|\mathcal{V}_t|, H * C)` or :math:`(|\mathcal{V}_t|, C)`
          (``concat=False``); with ``return_attention_weights``, also ``(edge_index, alpha)`` with
          edge indices :math:`(2, |\mathcal{E}'|)` (self-loops included) and :math:`\alpha` of shape
          :math:`(|\mathcal{E}'|, H)`, or for a sparse adjacency the form PyG returns (see :meth:`forward`).
    """

    _default_attention = "gat"  # the attention its repr leaves out

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        heads: int = 1,
        concat: bool = True,
        negative_slope: float = 0.2,
        dropout: float = 0.0,
        add_self_loops: bool = True,
        edge_dim: int | None = None,
        fill_value: float | Tensor | str = "mean",
        bias: bool = True,
        residual: bool = False,
        *,
        attention: str = "gat",
        temperature: float | str = 1.0,
        min_temperature: float = 0.05,
        degree_norm: str | None = None,
        share_weights: bool = False,
        impl: str = "auto",
        **kwargs,
    ):
        kwargs.setdefault("aggr", "add")
        flow = kwargs.get("flow", "source_to_target")
        if flow != "source_to_target":  # scores, softmax, loops and degrees read edge_index[0] as the source
            raise ValueError(f"flow={flow!r} is not supported: gatbio's attention reads edge_index as source -> "
                             "target rows; pass edge_index.flip(0) instead")
        super().__init__(node_dim=0, **kwargs)
        _check_choice("attention", attention, ATTENTIONS)
        _check_choice("degree_norm", degree_norm, DEGREE_NORMS)
        _check_choice("impl", impl, IMPLS)
        def count(value) -> bool:  # a positive Python or NumPy int (bool is an int to Python, not a count)
            return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1

        for name, value in (("out_channels", out_channels), ("heads", heads)):
            if not count(value):
                raise ValueError(f"{name}={value!r} is not allowed: it must be a positive integer")
        channels = in_channels if isinstance(in_channels, tuple) and len(in_channels) == 2 else (in_channels,)
        if not all(count(c) or (c == -1 and not isinstance(c, bool)) for c in channels):
            raise ValueError(f"in_channels={in_channels!r} is not allowed: a positive integer, -1 (sized by the first "
                             "input), or a pair (source, target) of those for bipartite graphs")
        if edge_dim is not None and not (count(edge_dim) or (edge_dim == -1 and not isinstance(edge_dim, bool))):
            raise ValueError(f"edge_dim={edge_dim!r} is not allowed: None, a positive integer, or -1 (sized by the "
                             "first edge_attr)")
        # NumPy integers (a size read from an array) as Python ints, as PyG's layer takes them
        out_channels, heads = int(out_channels), int(heads)
        in_channels = tuple(int(c) for c in in_channels) if isinstance(in_channels, tuple) else int(in_channels)
        edge_dim = None if edge_dim is None else int(edge_dim)
        def real(value) -> bool:  # a Python or NumPy number (np.float32 is no float), not a bool
            return isinstance(value, numbers.Real) and not isinstance(value, bool)

        if not (real(dropout) and 0.0 <= dropout < 1.0):
            raise ValueError(f"dropout={dropout!r} is not allowed: it must be a number in [0, 1)")
        if not (real(negative_slope) and math.isfinite(negative_slope)):
            raise ValueError(f"negative_slope={negative_slope!r} is not allowed: it must be a finite number")
        if not (real(min_temperature) and math.isfinite(min_temperature) and min_temperature > 0):
            raise ValueError(f"min_temperature={min_temperature!r} is not allowed: it must be a positive finite "
                             "number")
        if min_temperature < TEMPERATURE_FLOOR:
            raise ValueError(f"min_temperature={min_temperature!r} is not allowed: it must be at least "
                             f"{TEMPERATURE_FLOOR:g} (below, attention is a hard max and the scaled logits overflow)")
        if fill_value is not None and (isinstance(fill_value, str) and fill_value not in FILL_VALUES or
                                       not isinstance(fill_value, (str, numbers.Real, Tensor)) or
                                       isinstance(fill_value, bool)):
            raise ValueError(f"fill_value={fill_value!r} is not allowed: a number, a tensor of edge_dim values, or "
                             f"one of {', '.join(map(repr, FILL_VALUES))} (the added self-loops' edge features)")
        if isinstance(fill_value, Tensor) and edge_dim is not None and edge_dim != -1 \
                and fill_value.numel() not in (1, edge_dim):
            raise ValueError(f"fill_value has shape {tuple(fill_value.shape)}: a tensor fill_value gives the added "
                             f"self-loops' edge features, one value or edge_dim={edge_dim} values")
        if isinstance(temperature, str):
            if temperature != "learn":
                raise ValueError(f"temperature={temperature!r} is not allowed: use a positive number or 'learn'")
        elif not (real(temperature) and math.isfinite(temperature) and temperature > 0):
            raise ValueError(f"temperature={temperature!r} is not allowed: it must be a positive number or 'learn'")
        elif temperature < TEMPERATURE_FLOOR:
            raise ValueError(f"temperature={temperature!r} is not allowed: it must be at least {TEMPERATURE_FLOOR:g} "
                             "(below, attention is a hard max and the scaled logits overflow)")
        if share_weights and attention != "gatv2":
            raise ValueError(f"share_weights=True is only allowed with attention='gatv2', not {attention!r}")
        if degree_norm is not None and not isinstance(in_channels, int):
            raise ValueError(
                f"degree_norm={degree_norm!r} is not supported for bipartite in_channels={in_channels!r}: "
                "in-degrees of source nodes are undefined there; pass a single int in_channels")

        self.in_channels = in_channels
        self.out_channels = out_channels
        self.heads = heads
        self.concat = concat
        self.negative_slope = negative_slope
        self.dropout = dropout
        self.add_self_loops = add_self_loops
        self.edge_dim = edge_dim
        self.fill_value = fill_value
        self.residual = residual
        self.attention = attention
        self.temperature = temperature
        self.min_temperature = float(min_temperature)
        self.degree_norm = degree_norm
        self.share_weights = share_weights
        self.impl = impl

        H, C = heads, out_channels
        src_ch, dst_ch = (in_channels, in_channels) if isinstance(in_channels, int) else in_channels
        self._src_channels, self._dst_channels = src_ch, dst_ch
        self._edge_channels = edge_dim

        # Projections, named as in PyG's GATConv / GATv2Conv so that state dicts carry over.
        self.lin = self.lin_src = self.lin_dst = None
        self.lin_l = self.lin_r = None
        self.lin_query = self.lin_key = None
        self.att_src = self.att_dst = self.att = None
        if attention == "gatv2":
            self.lin_l = Linear(src_ch, H * C, bias=bias, weight_initializer="glorot")
            self.lin_r = self.lin_l if share_weights else Linear(dst_ch, H * C, bias=bias,
                                                                  weight_initializer="glorot")
            self.att = Parameter(torch.empty(1, H, C))
        else:
            if isinstance(in_channels, int):
                self.lin = Linear(in_channels, H * C, bias=False, weight_initializer="glorot")
            else:
                self.lin_src = Linear(src_ch, H * C, False, weight_initializer="glorot")
                self.lin_dst = Linear(dst_ch, H * C, False, weight_initializer="glorot")
            if attention == "gat":
                self.att_src = Parameter(torch.empty(1, H, C))
                self.att_dst = Parameter(torch.empty(1, H, C))
            else:  # dot
                self.lin_query = Linear(dst_ch, H * C, bias=False, weight_initializer="glorot")
                self.lin_key = Linear(src_ch, H * C, bias=False, weight_initializer="glorot")

        if edge_dim is not None:
            self.lin_edge = Linear(edge_dim, H * C, bias=False, weight_initializer="glorot")
            self.att_edge = Parameter(torch.empty(1, H, C)) if attention != "gatv2" else None
        else:
            self.lin_edge = None
            self.att_edge = None

        total_out_channels = C * (H if concat else 1)
        if residual:
            self.res = Linear(dst_ch, total_out_channels, bias=False, weight_initializer="glorot")
        else:
            self.register_parameter("res", None)

        if temperature == "learn":
            # tau_h = min_temperature + softplus(rho_h): positive and bounded below.
            self.temperature_rho = Parameter(torch.empty(H))
        else:
            self.register_parameter("temperature_rho", None)
        if degree_norm == "log":
            self.degree_lambda = Parameter(torch.empty(H))
        else:
            self.register_parameter("degree_lambda", None)

        if bias:
            self.bias = Parameter(torch.empty(total_out_channels))
        else:
            self.register_parameter("bias", None)

        self.reset_parameters()

    def reset_parameters(self):
        super().reset_parameters()
        for lin in (self.lin, self.lin_src, self.lin_dst, self.lin_l, self.lin_r, self.lin_query,
                    self.lin_key, self.lin_edge, self.res):
            if lin is not None:
                lin.reset_parameters()
        glorot(self.att_src)
        glorot(self.att_dst)
        glorot(self.att)
        glorot(self.att_edge)
        zeros(self.bias)
        if self.temperature_rho is not None:
            # softplus^{-1}(1 - min_temperature), so that tau starts at 1 (when min_temperature < 1).
            start = max(1.0 - self.min_temperature, 1e-3)
            self.temperature_rho.data.fill_(math.log(math.expm1(start)))
        if self.degree_lambda is not None:
            self.degree_lambda.data.fill_(1.0)

    def tau(self) -> Tensor | float:
        """The temperature: a float (fixed) or an (H,) tensor (learnt)."""
        if self.temperature_rho is None:
            return float(self.temperature)
        return self.min_temperature + F.softplus(self.temperature_rho)

    # ------------------------------------------------------------------ forward
    def forward(
        self,
        x: Tensor | tuple[Tensor, Tensor | None],
        edge_index: Adj,
        edge_attr: Tensor | None = None,
        size: tuple[int, int] | None = None,
        return_attention_weights: bool | None = None,
        *,
        attn_bias: Tensor | None = None,
    ):
        r"""Runs the forward pass (PyG's ``GATConv.forward`` positional order; ``attn_bias`` by keyword).

        Args:
            x: node features (N, F) or a pair ``(x_src, x_dst)`` for bipartite graphs.
            edge_index: the graph, in any form PyG's ``GATConv`` accepts: (2, E) source → target indices,
                or the transposed sparse adjacency ``adj_t`` of shape (N_dst, N_src) as a ``torch.sparse``
                tensor (COO, CSR, CSC) or a ``torch_sparse.SparseTensor`` (:mod:`gatbio.nn._adj`).
            edge_attr: optional (E, edge_dim) edge features; for a sparse adjacency one row per stored
                entry, in the order of :func:`torch_geometric.utils.to_edge_index` (else, as in PyG, its
                stored edge features, if any). A layer built without ``edge_dim`` refuses them (PyG's
                ``GATConv`` ignores them silently).
            attn_bias: optional (E,) or (E, H) additive bias of the attention logits of the edges of
                ``edge_index``, or of the stored entries of a sparse adjacency in the order of
                :func:`~torch_geometric.utils.to_edge_index` (added self-loops get 0); ``-inf`` masks an edge.
            size: optional ``(N_src, N_dst)``; a sparse adjacency carries its own.
            return_attention_weights: if true, also return the attention weights as PyG does for this
                form of ``edge_index``: ``(edge_index', alpha)`` with the self-loops the layer added and
                alpha of shape (E', H) in the output's dtype (computed in float32 for a half-precision model); ``(adj_t', alpha)`` for a ``torch.sparse`` adjacency, ``adj_t'`` in
                its layout holding alpha; a ``SparseTensor`` holding alpha for a ``SparseTensor``.
        """
        H, C = self.heads, self.out_channels
        if not isinstance(x, Tensor) and not (isinstance(x, (tuple, list)) and len(x) == 2):
            raise ValueError(f"x must be a tensor (N, F) or a pair (x_src, x_dst); got "
                             f"{type(x).__name__} of length {len(x)}" if isinstance(x, (tuple, list)) else
                             f"x must be a tensor (N, F) or a pair (x_src, x_dst); got {type(x).__name__}")
        if size is not None and not (isinstance(size, (tuple, list)) and len(size) == 2):
            raise ValueError(f"size={size!r} is not allowed: a pair (N_src, N_dst)")
        x_src_in, x_dst_in = (x, x) if isinstance(x, Tensor) else x
        adj = edge_index  # as given: an edge list or a sparse adjacency (gatbio.nn._adj)
        edge_index, edge_attr, size, sparse = read_adjacency(adj, size, edge_attr, self.edge_dim,
                                                             self.add_self_loops, per_entry=attn_bias is not None)
        self._check_inputs(x_src_in, x_dst_in, edge_index, edge_attr, attn_bias, size)
        if self.edge_dim == -1 and edge_attr is not None and torch.nn.parameter.is_lazy(self.lin_edge.weight):
            self.lin_edge(edge_attr.view(edge_attr.size(0), -1)[:1])  # edge_dim=-1: sized by the first call's features
        num_src = x_src_in.size(0) if size is None else size[0]
        num_dst = (x_dst_in.size(0) if x_dst_in is not None else num_src) if size is None else size[1]
        if self.degree_norm is not None and not isinstance(x, Tensor) and (
                (x_dst_in is not None and x_dst_in is not x_src_in) or num_src != num_dst):
            raise ValueError(f"degree_norm={self.degree_norm!r} needs one node set (x as one tensor): with a "
                             "bipartite pair (x_src, x_dst) the in-degrees of source nodes are undefined")

        res = self.res(x_dst_in) if (self.res is not None and x_dst_in is not None) else None

        # 1. Projections: values v (N_src, H, C) and what the scores need.
        if self.attention == "gatv2":
            v = self.lin_l(x_src_in).view(-1, H, C)  # (N_src, H, C)
            if x_dst_in is None:
                raise ValueError("attention='gatv2' needs target node features: pass x as (x_src, x_dst)")
            if self.share_weights and x_dst_in is x_src_in:
                x_r = v
            else:
                x_r = self.lin_r(x_dst_in).view(-1, H, C)  # (N_dst, H, C)
        else:
            lin_src = self.lin if self.lin is not None else self.lin_src
            lin_dst = self.lin if self.lin is not None else self.lin_dst
            v = lin_src(x_src_in).view(-1, H, C)  # (N_src, H, C)
            if x_dst_in is None and self.attention == "dot":
                raise ValueError("attention='dot' needs target node features (the queries): pass x as "
                                 "(x_src, x_dst)")
            if x_dst_in is None:
                x_d = None
            elif x_dst_in is x_src_in and self.lin is not None:
                x_d = v
            else:
                x_d = lin_dst(x_dst_in).view(-1, H, C)  # (N_dst, H, C)

        # Self-loops: replace existing ones by one per node; the bias of added loops is 0.
        # the key of the fused plan's cache: a torch.sparse input itself, else the edge list read from the input
        edge_index_in = adj if sparse is not None and isinstance(adj, Tensor) else edge_index
        # Returned as given without added loops (PyG returns the caller's tensor, int32 included); computed in int64:
        # with an int32 index, torch's CPU gather through the expanded index of the scatter backward (PyG's softmax
        # and sum aggregation) read the wrong rows (torch 2.13), so every gradient was wrong while the outputs
        # were right. The int64 copy is made once per input graph (cached with it, like the plans below).
        edge_index_out = edge_index
        if edge_index.dtype != torch.long:
            edge_index = _cached_plan(edge_index_in, ("int64",), edge_index.long)
        if edge_attr is not None and self.attention == "gat" and edge_index.size(1) == 0 and (
                not self.add_self_loops or min(num_src, num_dst) == 0):
            # No edge to attend over: PyG's GATConv then returns its raw scores without using the edge features
            # (edge_update), so lin_edge / att_edge / edge_attr get no gradient (None, which optimizers skip;
            # zeros would still move them through momentum or weight decay).
            edge_attr = None
        if attn_bias is not None and attn_bias.dim() == 1:
            attn_bias = attn_bias.view(-1, 1).expand(-1, H)  # (E, H)
        if self.add_self_loops:
            n_loops = min(num_src, num_dst)
            # Which edges are not loops, and the looped graph: found once per input graph (like the plans
            # below), since selecting by value waits for the GPU (a host-device synchronisation each call).
            keep, looped = _cached_plan(edge_index_in, ("loops", edge_index.size(1), n_loops),
                                        lambda: _looped(edge_index, n_loops))
            if edge_attr is not None:  # the loops' features (fill_value) from this call's features
                kept = looped[:, :keep.numel()]
                edge_attr = _select_edges(edge_attr, keep)
                if isinstance(self.fill_value, str) and num_dst > n_loops:
                    # More targets than sources (bipartite): PyG's add_self_loops reduces every edge's features
                    # by target into n_loops rows, an index error ("index 4 is out of bounds for dimension 0
                    # with size 3") for the targets that get no loop. Each loop's features are its target's reduction
                    # all the same: reduced over all targets, the first n_loops rows kept.
                    loop_attr = scatter(edge_attr, kept[1], 0, num_dst, reduce=self.fill_value)[:n_loops]
                    edge_attr = torch.cat([edge_attr, loop_attr], dim=0)
                else:
                    _, edge_attr = add_self_loops(kept, edge_attr, fill_value=self.fill_value, num_nodes=n_loops)
            if attn_bias is not None:
                attn_bias = torch.cat([_select_edges(attn_bias, keep, by_column=False), attn_bias.new_zeros(n_loops, H)],
                                      dim=0)
            edge_index = edge_index_out = looped

        if self._use_triton(v):
            out, alpha = self._triton_attention(x_src_in, x_dst_in, v, x_r if self.attention == "gatv2" else x_d,
                                                edge_index_in, edge_index, edge_attr, attn_bias, num_src, num_dst,
                                                bool(return_attention_weights))
            out = self._combine_heads(out, res, self._output_dtype(x_src_in))
            return self._output(out, edge_index_out, alpha, sparse, return_attention_weights)

        # 2. Raw scores e_ij (E, H). The fused path (gatbio.nn.fused) never builds an (E, H, C) tensor:
        #    edge features enter through the folded (edge_dim, H) matrix, dot scores are an SDDMM and
        #    GATv2 scores are computed in chunks of edges.
        plan = self._fused_plan(edge_index_in, edge_index, num_src, num_dst)  # None: reference path
        if edge_attr is not None and edge_attr.dim() == 1:
            edge_attr = edge_attr.view(-1, 1)
        e_feat = a_edge = None
        if edge_attr is not None and self.lin_edge is not None:
            if plan is None:
                e_feat = self.lin_edge(edge_attr).view(-1, H, C)  # (E, H, C)
                if self.att_edge is not None:
                    a_edge = (e_feat * self.att_edge).sum(dim=-1)  # (E, H)
            elif self.att_edge is not None:
                a_edge = FU.edge_scores(edge_attr, self.lin_edge.weight, self.att_edge)  # (E, H), folded
        if self.attention == "gat":
            if plan is None:
                a_src = (v * self.att_src).sum(dim=-1)  # (N_src, H)
                a_dst = None if x_d is None else (x_d * self.att_dst).sum(dim=-1)  # (N_dst, H)
            elif x_d is v:
                a_src, a_dst = FU.head_dots(v, self.att_src, self.att_dst)  # (N, H) each, one GEMM
            else:
                (a_src,) = FU.head_dots(v, self.att_src)
                a_dst = None if x_d is None else FU.head_dots(x_d, self.att_dst)[0]
            scores = GF.gat_scores(a_src, a_dst, edge_index, a_edge, self.negative_slope)
        elif self.attention == "gatv2":
            if plan is None:
                scores = GF.gatv2_scores(v, x_r, edge_index, self.att, e_feat, self.negative_slope)
            else:
                w_edge = None if edge_attr is None or self.lin_edge is None else self.lin_edge.weight
                scores = FU.gatv2_scores(v, x_r, edge_index, self.att, self.negative_slope,
                                         None if w_edge is None else edge_attr, w_edge)
        else:  # dot
            q = self.lin_query(x_dst_in).view(-1, H, C)  # (N_dst, H, C)
            k = self.lin_key(x_src_in).view(-1, H, C)  # (N_src, H, C)
            if plan is None:
                scores = GF.dot_scores(q, k, edge_index)
            else:
                scores = FU.edge_dot(q, k, edge_index, plan) / math.sqrt(C)  # (E, H)
            if a_edge is not None:
                scores = scores + a_edge

        # 3-5. Degree prior, bias, temperature, softmax, degree factor (gatbio.nn.functional).
        deg = None
        if self.degree_norm is not None:
            deg = GF.in_degree(edge_index, max(num_src, num_dst),
                               dtype=GF.accumulation_dtype(scores.dtype))  # (N,)
        alpha = GF.attention_weights(
            scores, edge_index, num_dst, attn_bias=attn_bias, temperature=self.tau(),
            degree_norm=self.degree_norm, degree_lambda=self.degree_lambda, deg=deg,
        )
        alpha = GF.dropout(alpha, p=self.dropout, training=self.training)  # (E, H)

        # 6. Aggregation of the values.
        if plan is None:
            out = self.propagate(edge_index, x=(v, None), alpha=alpha, size=(num_src, num_dst))
        else:
            out = FU.attention_aggregate(v, alpha, edge_index, num_dst, plan)  # (N_dst, H, C)
        out = self._combine_heads(out, res, self._output_dtype(x_src_in))

        return self._output(out, edge_index_out, alpha, sparse, return_attention_weights)

    def _output(self, out: Tensor, edge_index: Tensor, alpha: Tensor, sparse, return_attention_weights):
        """``out``, with the attention weights when asked, in PyG's form for the input (:mod:`gatbio.nn._adj`)."""
        if not return_attention_weights:  # as PyG >= 2.8: False means no weights
            return out
        alpha = alpha.to(out.dtype)  # computed in float32 (or float64); returned in the output's dtype, as PyG
        if sparse is not None:
            return out, attention_like(sparse, edge_index, alpha, looped=self.add_self_loops)
        return out, (edge_index, alpha)

    def _needs_reference(self) -> str | None:
        """Why only PyG's message passing can run this call (the fused and Triton paths sum the weighted messages
        of every edge and never call ``propagate``): another ``aggr`` than ``"add"``, an explainer's edge mask
        (``set_masks``), or a hook on the message passing (``register_message_forward_hook`` and the like, which
        would not fire there); else None."""
        if not isinstance(getattr(self, "aggr_module", None), SumAggregation):  # "add", "sum", SumAggregation()
            return f"aggr={self.aggr!r}"
        if getattr(self, "explain", False) or getattr(self, "_edge_mask", None) is not None:
            return "an explainer's edge mask"
        hooks = [name.strip("_").removesuffix("s") for name in _PYG_HOOKS if getattr(self, name, None)]
        if hooks:
            return f"a message-passing hook ({', '.join(hooks)})"
        return None

    def _refuse_fast_path(self) -> bool:
        """True when the reference path must run; ``impl="fused"`` / ``"triton"`` then get one clear error
        (``"auto"`` takes the reference path)."""
        why = self._needs_reference()
        if why is not None and self.impl in ("fused", "triton"):
            raise RuntimeError(f"impl={self.impl!r} sums the weighted messages of every edge: {why} needs "
                               "impl='reference' (impl='auto' takes it)")
        return why is not None

    def _fused_plan(self, edge_index_in: Tensor, edge_index: Tensor, num_src: int, num_dst: int):
        """The :class:`~gatbio.nn.fused.AttentionPlan` of this graph, or ``None`` for the reference path.

        ``impl="auto"`` takes the fused path once the message tensor it avoids has at least
        ``FUSED_MIN_ELEMENTS`` entries (below that, building the CSR layout costs more than it saves), unless
        only the reference path can run the call (:meth:`_needs_reference`).
        Plans are shared by all layers given the same input ``edge_index`` tensor (unmodified), so
        full-batch training sorts the edges once per graph, not once per layer and step. On 'meta' tensors
        (shapes only) every ``impl`` but ``"triton"`` takes the reference path, whose shapes are the same.
        """
        H, C, E = self.heads, self.out_channels, edge_index.size(1)
        if self.impl == "auto" and torch.compiler.is_compiling():
            # Under torch.compile the number of edges after the self-loops are added depends on the index values
            # (a symbol, not a number): the threshold below would be a data-dependent guard, an error with
            # fullgraph=True, and the CSR build (counts, cumsum) breaks the graph. The compiler fuses the
            # reference path's gathers and scatters itself.
            return None
        if edge_index.is_meta:  # shapes only: the CSR build (bincount) has no meta kernel, the shapes are the same
            return None
        if self.impl == "reference" or (self.impl == "auto" and E * H * C < FUSED_MIN_ELEMENTS) \
                or self._refuse_fast_path():
            return None
        return _cached_plan(edge_index_in, ("fused", self.add_self_loops, E, num_src, num_dst, H),
                            lambda: FU.AttentionPlan(edge_index, num_src, num_dst, H))

    def _output_dtype(self, x: Tensor) -> torch.dtype:
        """The output's dtype: the input's promoted with the parameters' (float32 for a float32 model under
        ``torch.autocast``, as PyG's ``GATConv`` returns; bfloat16 for a model and input cast to bfloat16),
        whatever ran in lower precision inside (projections under autocast; the Triton kernels' values)."""
        lin = self.lin_l if self.lin_l is not None else (self.lin if self.lin is not None else self.lin_src)
        return torch.promote_types(x.dtype, lin.weight.dtype)

    def _combine_heads(self, out: Tensor, res: Tensor | None, dtype: torch.dtype) -> Tensor:
        """(N_dst, H, C) per-head outputs → concatenated or averaged heads, plus residual and bias, in ``dtype``."""
        out = out.to(dtype)
        out = out.reshape(-1, self.heads * self.out_channels) if self.concat else out.mean(dim=1)
        if res is not None:
            out = out + res
        if self.bias is not None:
            out = out + self.bias
        return out.to(dtype)

    # ------------------------------------------------------------------ Triton path
    def _use_triton(self, v: Tensor) -> bool:
        """Whether this call runs in the Triton kernels; a clear error when ``impl="triton"`` cannot."""
        if self.impl in ("auto", "triton") and self._refuse_fast_path():
            return False
        if self.impl == "auto":
            return v.is_cuda and v.dtype in TRITON_DTYPES and KN.available()
        if self.impl != "triton":
            return False
        if not KN.available():
            raise RuntimeError("impl='triton' needs the triton package (pip install triton; CUDA builds of "
                               "PyTorch ship it); use impl='fused' or impl='auto' without it")
        # Imports triton; whether the kernels are interpreted is fixed at this first import.
        from gatbio.nn.kernels import attention as KA

        if not v.is_cuda and not KA.INTERPRET:
            raise RuntimeError(f"impl='triton' runs on CUDA tensors, got {v.device.type} tensors: move the model "
                               "and data to a GPU, use impl='fused' or impl='auto' here, or set "
                               "TRITON_INTERPRET=1 before importing gatbio to run the kernels in Triton's "
                               "(slow) CPU interpreter")
        if v.dtype not in TRITON_DTYPES:
            raise RuntimeError(f"impl='triton' computes in float32 from float32, bfloat16 or float16 inputs, got "
                               f"{v.dtype}: use impl='fused' or impl='reference' for {v.dtype}")
        return True

    def _triton_attention(self, x_src_in, x_dst_in, v, x_dst_proj, edge_index_in, edge_index, edge_attr,
                          attn_bias, num_src, num_dst, need_alpha: bool):
        r"""Steps 2-6 (scores to aggregation) in the fused kernels of :mod:`gatbio.nn.kernels`.

        Returns the (N_dst, H, C) per-head outputs and the (E, H) attention weights (``None`` unless
        ``need_alpha``). Node terms of the scores (GAT's :math:`a^\top W x`, projections) and the folded
        edge-feature scores are computed here in PyTorch; everything per edge happens in the kernels.
        """
        from gatbio.nn.kernels import ops as KO  # imports triton

        H, C, E = self.heads, self.out_channels, edge_index.size(1)
        plan = _cached_plan(edge_index_in, ("triton", self.add_self_loops, E, num_src, num_dst),
                            lambda: KN.CSRPlan(edge_index, num_src, num_dst))
        if edge_attr is not None and edge_attr.dim() == 1:
            edge_attr = edge_attr.view(-1, 1)
        if edge_attr is None or self.lin_edge is None:
            edge_attr = None
        a_edge = None
        if edge_attr is not None and self.att_edge is not None:
            a_edge = FU.edge_scores(edge_attr, self.lin_edge.weight, self.att_edge)  # (E, H), folded
        bias = attn_bias
        if self.attention == "gat":
            if x_dst_proj is v:
                a_src, a_dst = FU.head_dots(v, self.att_src, self.att_dst)  # (N, H) each
            else:
                (a_src,) = FU.head_dots(v, self.att_src)
                a_dst = None if x_dst_proj is None else FU.head_dots(x_dst_proj, self.att_dst)[0]
            terms = dict(a_src=a_src, a_dst=a_dst, edge_pre=a_edge)
        elif self.attention == "gatv2":
            terms = dict(x_dst=x_dst_proj, att=self.att, edge_attr=edge_attr,
                         w_edge=None if edge_attr is None else self.lin_edge.weight)
        else:  # dot: edge-feature scores are additive logits, like the bias
            q = self.lin_query(x_dst_in).view(-1, H, C)  # (N_dst, H, C)
            k = self.lin_key(x_src_in).view(-1, H, C)  # (N_src, H, C)
            terms = dict(x_dst=q, k=k)
            if a_edge is not None:
                bias = a_edge if bias is None else bias + a_edge
        tau = self.tau()
        if not isinstance(tau, Tensor):
            tau = torch.full((H,), tau, dtype=torch.float32, device=v.device)
        return KO.attention(
            v, plan, attention=self.attention, tau=tau, bias=bias,
            lam=self.degree_lambda if self.degree_norm == "log" else None, sym=self.degree_norm == "sym",
            negative_slope=self.negative_slope, dropout=self.dropout if self.training else 0.0,
            need_alpha=need_alpha, **terms)

    def message(self, x_j: Tensor, alpha: Tensor) -> Tensor:
        return alpha.unsqueeze(-1) * x_j  # (E, H, C)

    # --------------------------------------------------------------- validation
    def _check_dtype(self, x: Tensor, name: str) -> None:
        """Node features must be floating point and, outside autocast, of the parameters' dtype (else torch's
        matrix product fails with ``expected m1 and m2 to have the same dtype``, naming neither)."""
        if not x.is_floating_point():
            raise ValueError(f"{name} has dtype {x.dtype}: node features enter a linear projection, give "
                             f"floating-point values (e.g. {name}.float())")
        weight = next((lin.weight for lin in (self.lin, self.lin_src, self.lin_l, self.lin_query)
                       if lin is not None), None)
        if weight is None or isinstance(weight, torch.nn.parameter.UninitializedParameter) \
                or x.dtype == weight.dtype:
            return
        if _autocast_on(x):
            return
        raise ValueError(f"{name} has dtype {x.dtype} but this layer's parameters are {weight.dtype}: convert one "
                         f"to the other ({name}.to({weight.dtype}), or the model's .to({x.dtype}); NumPy arrays "
                         "become float64 tensors)")

    def _check_device(self, x_src: Tensor, x_dst: Tensor | None) -> None:
        """Node features on the parameters' device (else torch's "Expected all tensors to be on the same device",
        naming no argument). Devices are compared, no value is read."""
        name = "x" if x_dst is None or x_dst is x_src else "x_src"
        weight = next((lin.weight for lin in (self.lin, self.lin_src, self.lin_l, self.lin_query)
                       if lin is not None), None)
        if weight is not None and x_src.device != weight.device:
            raise ValueError(f"{name} is on {x_src.device} but this layer's parameters are on {weight.device}: move "
                             f"one to the other ({name}.to('{weight.device}'), or the model's .to('{x_src.device}'))")
        if x_dst is not None and x_dst is not x_src and x_dst.device != x_src.device:
            raise ValueError(f"x_dst is on {x_dst.device} but x_src is on {x_src.device}: move it with "
                             "x_dst.to(x_src.device)")

    def _check_inputs(self, x_src, x_dst, edge_index, edge_attr, attn_bias, size) -> None:
        """Validate at the boundary, with messages that say what was expected."""
        if getattr(self, "_edge_update_forward_pre_hooks", None) or getattr(self, "_edge_update_forward_hooks", None):
            raise RuntimeError("an edge_update hook is registered, but this layer computes its attention outside "
                               "PyG's edge_updater, so the hook would never fire; remove it and read the attention "
                               "with return_attention_weights=True")
        if not isinstance(x_src, Tensor) or x_src.dim() != 2:
            raise ValueError(f"x must be a 2-D tensor (num_nodes, in_channels); got "
                             f"{tuple(x_src.shape) if isinstance(x_src, Tensor) else type(x_src).__name__}")
        # in_channels=-1 (PyG's lazy initialisation): the projections take their size from the first input,
        # which later inputs must then match.
        if self._src_channels == -1:
            self._src_channels = x_src.size(1)
        if self._dst_channels == -1 and x_dst is not None:
            self._dst_channels = x_dst.size(1)
        if x_src.size(1) != self._src_channels:
            raise ValueError(f"x has {x_src.size(1)} features per node but this layer was built with "
                             f"in_channels={self.in_channels}")
        self._check_device(x_src, x_dst)
        self._check_dtype(x_src, "x" if x_dst is None or x_dst is x_src else "x_src")
        if x_dst is not None and x_dst is not x_src:
            self._check_dtype(x_dst, "x_dst")
        if x_dst is not None and x_dst.size(1) != self._dst_channels:
            if x_dst is x_src:  # one tensor (or the same one twice) for a layer built bipartite
                raise ValueError(f"this layer was built for two node sets (in_channels={self.in_channels}: "
                                 f"{self._src_channels} source and {self._dst_channels} target features) but x is "
                                 "one node set; pass x as a pair (x_src, x_dst)")
            raise ValueError(f"x_dst has {x_dst.size(1)} features per node but this layer was built with "
                             f"in_channels={self.in_channels}")
        if size is not None:
            for what, nodes, n in (("source", x_src, size[0]), ("target", x_dst, size[1])):
                if nodes is not None and nodes.size(0) != n:
                    raise ValueError(f"the graph has {n} {what} nodes (size=(N_src, N_dst)={tuple(size)}, given "
                                     f"or read from a sparse adjacency of shape (N_dst, N_src)) but the {what} "
                                     f"node features have {nodes.size(0)} rows")
        if not isinstance(edge_index, Tensor) or edge_index.dim() != 2 or edge_index.size(0) != 2:
            shape = tuple(edge_index.shape) if isinstance(edge_index, Tensor) else type(edge_index).__name__
            raise ValueError(f"edge_index must be a (2, E) integer tensor or a sparse adjacency (torch.sparse or "
                             f"SparseTensor, shape (N_dst, N_src)); got {shape}; for a dense adjacency matrix A "
                             "(A[i, j] for the edge i → j) pass torch_geometric.utils.dense_to_sparse(A)[0]")
        _check_same_device(edge_index, "edge_index", x_src)
        num_src = x_src.size(0) if size is None else size[0]
        num_dst = (x_dst.size(0) if x_dst is not None else num_src) if size is None else size[1]
        _check_indices(edge_index, num_src, num_dst)
        E = edge_index.size(1)
        if edge_attr is not None:
            if self.lin_edge is None:
                raise ValueError("edge_attr was given but this layer was built with edge_dim=None (PyG's GATConv "
                                 "would ignore them silently); pass edge_dim=<edge feature size> to the "
                                 "constructor, or leave edge_attr out")
            if not isinstance(edge_attr, Tensor) or not edge_attr.is_floating_point():
                what = edge_attr.dtype if isinstance(edge_attr, Tensor) else type(edge_attr).__name__
                raise ValueError(f"edge_attr has dtype {what}: edge features enter a linear projection, give "
                                 "floating-point values (e.g. edge_attr.float())")
            _check_same_device(edge_attr, "edge_attr", x_src)
            width = 1 if edge_attr.dim() == 1 else edge_attr.size(-1)
            if self._edge_channels == -1 and edge_attr.dim() <= 2 and edge_attr.size(0) == E:
                self._edge_channels = width  # edge_dim=-1: lazy, as in_channels=-1 (from a well-formed first call)
            if edge_attr.dim() > 2 or edge_attr.size(0) != E or width != self._edge_channels:
                lazy = " (edge_dim=-1: set by the first call's edge_attr)" if self.edge_dim == -1 else ""
                width = "F" if self._edge_channels == -1 else self._edge_channels
                raise ValueError(f"edge_attr has shape {tuple(edge_attr.shape)}, expected ({E}, {width}) (one row of "
                                 f"edge_dim={width} features per edge of edge_index){lazy}")
            fill = self.fill_value
            if self.add_self_loops and isinstance(fill, Tensor) and fill.numel() not in (1, width):
                # checked in __init__ when edge_dim is given; with edge_dim=-1 the width is known only now
                raise ValueError(f"fill_value has shape {tuple(fill.shape)}: a tensor fill_value gives the added "
                                 f"self-loops' edge features, one value or edge_dim={width} values")
        if attn_bias is not None:
            H = self.heads
            ok = isinstance(attn_bias, Tensor) and (
                (attn_bias.dim() == 1 and attn_bias.size(0) == E)
                or (attn_bias.dim() == 2 and attn_bias.shape == (E, H)))
            if not ok:
                shape = tuple(attn_bias.shape) if isinstance(attn_bias, Tensor) else type(attn_bias).__name__
                raise ValueError(f"attn_bias has shape {shape}, expected ({E},) or ({E}, {H}): one value "
                                 f"(or one per head) for each of the E={E} edges of edge_index")
            if not attn_bias.is_floating_point():
                raise ValueError(f"attn_bias has dtype {attn_bias.dtype}: it is added to the attention logits, give "
                                 "floating-point values (e.g. attn_bias.float())")
            _check_same_device(attn_bias, "attn_bias", x_src)

    def __prepare_scriptable__(self):
        # torch.jit.script calls this on every submodule first: one clear line instead of a TorchScript trace.
        raise NotImplementedError(
            f"{self.__class__.__name__} cannot be compiled with TorchScript (torch.jit.script is deprecated in "
            "PyTorch); use torch.compile(model) instead")

    def __repr__(self) -> str:
        extra = []
        if self.attention != self._default_attention:
            extra.append(f"attention={self.attention!r}")
        if self.temperature != 1.0:
            extra.append(f"temperature={self.temperature!r}")
        if self.degree_norm is not None:
            extra.append(f"degree_norm={self.degree_norm!r}")
        more = "".join(", " + e for e in extra)
        return f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, heads={self.heads}{more})"


class GATv2Conv(GATConv):
    r"""PyG's :class:`~torch_geometric.nn.conv.GATv2Conv` under its own name and signature: :class:`GATConv`
    with ``attention="gatv2"`` (Brody et al., ICLR 2022), the other gatbio options as keyword arguments.

    Args: as :class:`GATConv`, less ``attention`` (always ``"gatv2"``); ``share_weights`` as PyG's (one
    projection for sources and targets). Shapes: as :class:`GATConv`."""

    _default_attention = "gatv2"

    def __init__(
        self,
        in_channels: int | tuple[int, int],
        out_channels: int,
        heads: int = 1,
        concat: bool = True,
        negative_slope: float = 0.2,
        dropout: float = 0.0,
        add_self_loops: bool = True,
        edge_dim: int | None = None,
        fill_value: float | Tensor | str = "mean",
        bias: bool = True,
        share_weights: bool = False,
        residual: bool = False,
        **kwargs,
    ):
        if kwargs.setdefault("attention", "gatv2") != "gatv2":
            raise ValueError(f"GATv2Conv is attention='gatv2'; for attention={kwargs['attention']!r} use GATConv")
        super().__init__(in_channels, out_channels, heads, concat, negative_slope, dropout, add_self_loops,
                         edge_dim, fill_value, bias, residual, share_weights=share_weights, **kwargs)

    def forward(
        self,
        x: Tensor | tuple[Tensor, Tensor | None],
        edge_index: Adj,
        edge_attr: Tensor | None = None,
        return_attention_weights: bool | None = None,
        *,
        attn_bias: Tensor | None = None,
        size: tuple[int, int] | None = None,
    ):
        r"""Runs the forward pass, in PyG's ``GATv2Conv.forward`` positional order (no ``size`` there: it is a
        keyword here, as ``attn_bias``); see :meth:`GATConv.forward`."""
        return super().forward(x, edge_index, edge_attr, size, return_attention_weights, attn_bias=attn_bias)


def _check_choice(name: str, value, allowed: tuple) -> None:
    if value not in allowed:
        shown = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{name}={value!r} is not allowed: choose one of {shown}")
