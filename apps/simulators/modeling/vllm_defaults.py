"""vLLM's own defaults that the simulators start from, each pinned to the release the content describes
(fixtures/vllm-flags.yaml: `release`) and the file that defines it there. One definition: the modeling functions,
the engine, the calculators, the request serializers (and through them the OpenAPI schema) read these names.

Not here, because vLLM has no single default for them: max_num_seqs and max_num_batched_tokens
(vLLM v0.33.0, vllm/engine/arg_utils.py: EngineArgs.get_batch_defaults picks them by GPU memory, GPU kind and usage
context, e.g. 1,024 / 8,192 for the API server on an H100, 256 / 2,048 on an A100; vllm/config/scheduler.py:
SchedulerConfig falls back to 128 / 2,048). The simulators' 256 / 8,192 are their own starting point.
"""

from __future__ import annotations

VLLM_RELEASE = "v0.33.0"

# vLLM v0.33.0, vllm/config/cache.py: CacheConfig.gpu_memory_utilization (default 0.92; older releases used 0.9)
GPU_MEMORY_UTILIZATION = 0.92

# vLLM v0.33.0, vllm/config/cache.py: CacheConfig.DEFAULT_BLOCK_SIZE (16 tokens per KV block on CUDA)
BLOCK_SIZE = 16
