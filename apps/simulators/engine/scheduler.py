"""Scheduler configuration and the paged KV block pool with an optional prefix cache.

Modelled on vLLM V1 (`vllm/v1/core/sched/scheduler.py`, `kv_cache_manager.py`,
`block_pool.py`):
* KV memory is split into blocks of `block_size` tokens; a sequence holding c tokens
  owns ceil(c / block_size) blocks. The block count comes from the memory left after
  weights, activations and runtime overhead (`modeling.memory.fit`) at
  `gpu_memory_utilization`.
* Prefix caching: a *full* prompt block is registered under a hash of its whole prefix
  (here: the prefix group and block index for shared blocks, the request and index for
  private ones, which is what a hash chain over token ids amounts to). A new request
  reuses the longest run of leading cached blocks. Blocks nobody references stay cached
  and are evicted least-recently-freed first, only when a fresh block is needed
  (never-used blocks are handed out before cached ones: a small simplification of
  vLLM's single free queue).
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


def block_hash(prefix_id: int, prefix_tokens: int, request_key: int, index: int, block_size: int) -> int:
    """Identity of the KV block `index` of a prompt: shared inside a prefix group, private otherwise."""
    if prefix_id >= 0 and (index + 1) * block_size <= prefix_tokens:
        return (prefix_id << 20) | index
    return -((request_key << 20) | index) - 1


class BlockPool:
    """Counts of free blocks plus, with prefix caching, ref-counted cached blocks in LRU order."""

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
        """A private block just became a full prompt block: cache it unless its twin is cached."""
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
