"""Scheduler configuration and the paged KV block pool with an optional prefix cache.

Modelled on vLLM V1 (`vllm/v1/core/sched/scheduler.py`, `kv_cache_manager.py`,
`block_pool.py`):
* KV memory is split into blocks of `block_size` tokens; a sequence holding c tokens
  owns ceil(c / block_size) blocks. The block count comes from the memory left after
  weights, activations and runtime overhead (`modeling.memory.fit`) at
  `gpu_memory_utilization`.
* Prefix caching: a *full* block (of prompt or generated tokens) is registered, when it is
  allocated, under a hash of its whole prefix
  (here: the prefix group and block index for shared blocks, the request and index for
  private ones, which is what a hash chain over token ids amounts to). A new request
  reuses the longest run of leading cached blocks. Freed blocks go back to vLLM's free
  queue as v0.33.0 puts them there (`BlockPool.free_blocks`): uncached ones at the head
  (reused first, before never-used blocks), cached ones at the tail (evicted least
  recently freed first), which is what the counts below amount to.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from ..modeling.vllm_defaults import BLOCK_SIZE


@dataclass(frozen=True)
class SchedulerConfig:
    max_num_seqs: int = 256
    max_num_batched_tokens: int = 8192
    chunked_prefill: bool = True
    prefix_caching: bool = False
    block_size: int = BLOCK_SIZE
    num_blocks: int = 10_000
    static_batching: bool = False
    # vLLM's names and v0.33.0 defaults (vllm/config/scheduler.py): a prefill chunk is capped at this many tokens
    # while more than one request is running or waiting (0: no cap) ...
    long_prefill_token_threshold: int = 0
    # ... and a waiting request is admitted only when blocks for its whole prompt fit, not just its first chunk.
    scheduler_reserve_full_isl: bool = True


def block_hash(prefix_id: int, prefix_tokens: int, request_key: int, index: int, block_size: int) -> int:
    """Identity of the KV block `index` of a prompt: shared inside a prefix group, private otherwise."""
    if prefix_id >= 0 and (index + 1) * block_size <= prefix_tokens:
        return (prefix_id << 20) | index
    return -((request_key << 20) | index) - 1


class BlockPool:
    """Counts of free blocks plus, with prefix caching, ref-counted cached blocks in LRU order.

    vLLM's one free queue, as counts: its head holds uncached blocks (freed ones are prepended, then the never-used
    ones), its tail the cached blocks nobody references, in the order they were freed. So uncached blocks are handed
    out first and a cached block only when none is left, the least recently freed first."""

    def __init__(self, num_blocks: int, caching: bool) -> None:
        self.num_blocks = num_blocks
        self.caching = caching
        self.free = num_blocks                      # never used or released uncached blocks
        self.refs: dict[int, int] = {}              # cached block hash -> number of requests using it
        self.evictable: OrderedDict[int, None] = OrderedDict()  # cached, unreferenced, oldest first
        self.evictions = 0

    def available(self) -> int:
        return self.free + len(self.evictable)

    def used(self) -> int:
        return self.num_blocks - self.available()

    def take(self, k: int) -> None:
        """Hand out k blocks (caller checked `available()`)."""
        from_free = min(k, self.free)
        self.free -= from_free
        for _ in range(k - from_free):
            h, _ = self.evictable.popitem(last=False)
            del self.refs[h]
            self.evictions += 1

    def cached_prefix(self, hashes: list[int]) -> tuple[int, int]:
        """(leading blocks found in the cache, how many of them are now unreferenced)."""
        hits = idle = 0
        for h in hashes:
            r = self.refs.get(h)
            if r is None:
                break
            hits += 1
            idle += r == 0
        return hits, idle

    def acquire(self, hashes: list[int]) -> None:
        for h in hashes:
            if self.refs[h] == 0:
                del self.evictable[h]
            self.refs[h] += 1

    def register(self, h: int) -> bool:
        """A private block just became full: cache it unless its twin is cached."""
        if h in self.refs:
            return False
        self.refs[h] = 1
        return True

    def release(self, private_blocks: int, cached: list[int]) -> None:
        self.free += private_blocks
        for h in reversed(cached):  # tail blocks first, so they are evicted first (as vLLM does)
            r = self.refs[h] - 1
            self.refs[h] = r
            if r == 0:
                self.evictable[h] = None
