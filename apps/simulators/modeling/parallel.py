"""How a deployment splits a model over GPUs: tensor (TP), pipeline (PP), data (DP) and expert (EP) parallelism.

vLLM's layout (`--tensor-parallel-size`, `--pipeline-parallel-size`, `--data-parallel-size`,
`--enable-expert-parallel`; FusedMoEParallelConfig in vllm/model_executor/layers/fused_moe/config.py):
* one deployment is TP · PP · DP GPUs; PP splits the layers into stages (each GPU holds L/PP layers);
* attention, dense MLPs, shared experts, embedding and LM head are sharded by TP and replicated by DP: each DP rank
  runs its own batch ("attention data parallel", the DeepSeek-style deployment);
* the routed experts of a MoE layer are split over all TP · DP GPUs of a stage. With EP the split is by whole
  experts (EP = TP · DP, N/EP experts per GPU, tokens travel to their experts by all-to-all); without it each GPU
  holds a 1/(TP · DP) slice of every expert and the DP ranks' tokens are all-gathered and reduce-scattered.
  Either way an expert costs 1/(TP · DP) of its bytes per GPU;
* a dense model's DP ranks are independent replicas.
Inter-node: one node has GPUS_PER_NODE GPUs on NVLink; traffic that leaves the node goes over one RDMA NIC per GPU
(SCALE_OUT_BANDWIDTH_BYTES_PER_S, 400 Gb/s ConnectX-7 as in DGX H100/H200/B200).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ModelInputError
from .specs import ModelSpec

GPUS_PER_NODE = 8
SCALE_OUT_BANDWIDTH_BYTES_PER_S = 50e9  # 400 Gb/s per GPU, one direction (DGX H100 datasheet: 8 × ConnectX-7 400 Gb/s)
MAX_DEGREE = 1024


@dataclass(frozen=True)
class Parallelism:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    ep: int = 1

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp

    @property
    def expert_shards(self) -> int:
        """GPUs of one pipeline stage that share each MoE layer's routed experts: TP · DP."""
        return self.tp * self.dp

    def expert_width(self, model: ModelSpec) -> float:
        """Columns of each routed expert on one GPU: the whole moe_intermediate_size with EP (whole experts per
        GPU), 1/(TP · DP) of it without (every GPU holds a slice of every expert)."""
        return float(model.moe_intermediate_size or 0) / (1 if self.ep > 1 else self.expert_shards)

    def describe(self) -> str:
        parts = [f"TP {self.tp}"] + [f"{k} {v}" for k, v in (("PP", self.pp), ("DP", self.dp), ("EP", self.ep)) if v > 1]
        return " × ".join(parts) + f" = {self.gpus} GPUs" if len(parts) > 1 or self.tp > 1 else "1 GPU"


def parallelism(model: ModelSpec, *, tp: int = 1, pp: int = 1, dp: int = 1, ep: int = 1) -> Parallelism:
    """A checked layout; ModelInputError names the API field (tp, pipeline_parallel, data_parallel, expert_parallel)."""
    for field, value in (("tp", tp), ("pipeline_parallel", pp), ("data_parallel", dp), ("expert_parallel", ep)):
        if isinstance(value, bool) or int(value) != value or not 1 <= value <= MAX_DEGREE:
            raise ModelInputError(field, f"must be a whole number between 1 and {MAX_DEGREE:,}")
    if pp > model.num_layers:
        raise ModelInputError("pipeline_parallel", f"at most the model's {model.num_layers} layers (one per stage)")
    if ep > 1:
        if not model.is_moe:
            raise ModelInputError("expert_parallel", f"{model.name} has no experts; expert parallelism needs a "
                                  "mixture-of-experts model")
        if ep != tp * dp:
            raise ModelInputError("expert_parallel", f"vLLM's expert parallelism spans the tensor- and data-parallel "
                                  f"GPUs of a stage: expert_parallel must be tensor_parallel × data_parallel = "
                                  f"{tp} × {dp} = {tp * dp} (or 1)")
        if (model.num_experts or 0) % ep:
            raise ModelInputError("expert_parallel", f"must divide {model.name}'s {model.num_experts} routed experts "
                                  "(each GPU holds the same number of whole experts)")
    return Parallelism(int(tp), int(pp), int(dp), int(ep))


def spread_time(message_bytes, n: int, link_bandwidth: float, efficiency: float, latency_s: float):
    """α–β time of an all-to-all (or all-gather / reduce-scatter) moving (N−1)/N of each GPU's `message_bytes` to the
    others: the in-node share at `link_bandwidth` (NVLink, one direction), the share for other nodes at
    SCALE_OUT_BANDWIDTH_BYTES_PER_S, plus (N−1)·α. The collectives model's ring all-to-all when n ≤ GPUS_PER_NODE."""
    if n <= 1:
        return np.zeros_like(np.asarray(message_bytes, dtype=float))
    inside, outside = (min(n, GPUS_PER_NODE) - 1) / n, max(n - GPUS_PER_NODE, 0) / n  # shares of the traffic
    per_byte = inside / link_bandwidth + outside / SCALE_OUT_BANDWIDTH_BYTES_PER_S
    return np.asarray(message_bytes, dtype=float) * per_byte / efficiency + (n - 1) * latency_s
