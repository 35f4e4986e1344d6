"""Prefix caching: block hash chains and LRU hit rate.

vLLM automatic prefix caching (docs "Automatic Prefix Caching" design): a prompt is
cut into full blocks of `block_size` tokens; block i's key is
hash(parent_key, tuple(tokens of block i)), so a key identifies the whole prefix up to
that block. Only full blocks are cached. A new request reuses the longest run of
leading blocks whose keys are cached; evicted blocks are chosen least recently used.
Deterministic: Python's hash of tuples of ints does not depend on PYTHONHASHSEED.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import ModelInputError

ROOT_HASH = 0


def block_hashes(tokens: Sequence[int], block_size: int = 16) -> list[int]:
    """Chained hashes of every full block of `tokens`."""
    if block_size < 1:
        raise ModelInputError("block_size", "must be >= 1")
    hashes, parent = [], ROOT_HASH
    for start in range(0, len(tokens) - block_size + 1, block_size):
        parent = hash((parent, tuple(tokens[start:start + block_size])))
        hashes.append(parent)
    return hashes


@dataclass(frozen=True)
class PrefixCacheResult:
    hit_blocks: int
    lookup_blocks: int
    hit_rate: float                 # of full blocks looked up
    token_hit_rate: float           # of all prompt tokens (partial last blocks count as misses)
    hits_per_request: list[int]
    evictions: int
    derivation: str


def lru_hit_rate(prompts: Sequence[Sequence[int]], *, block_size: int = 16, capacity_blocks: int) -> PrefixCacheResult:
    """Replay prompts in arrival order through an LRU cache of `capacity_blocks` blocks."""
    if capacity_blocks < 0:
        raise ModelInputError("capacity_blocks", "must be >= 0")
    cache: OrderedDict[int, None] = OrderedDict()
    hits_per_request, evictions, lookups, total_tokens = [], 0, 0, 0
    for prompt in prompts:
        chain = block_hashes(prompt, block_size)
        total_tokens += len(prompt)
        lookups += len(chain)
        hits = 0
        while hits < len(chain) and chain[hits] in cache:
            hits += 1
        hits_per_request.append(hits)
        for key in chain:
            cache[key] = None
            cache.move_to_end(key)
        while len(cache) > capacity_blocks:
            cache.popitem(last=False)
            evictions += 1
    hit_blocks = sum(hits_per_request)
    rate = hit_blocks / lookups if lookups else 0.0
    token_rate = hit_blocks * block_size / total_tokens if total_tokens else 0.0
    derivation = (f"{len(prompts):,} prompts, {lookups:,} full blocks of {block_size} tokens looked up, "
                  f"{hit_blocks:,} served from an LRU cache of {capacity_blocks:,} blocks → block hit rate "
                  f"{hit_blocks:,}/{lookups:,} = {rate:.1%}, {token_rate:.1%} of prompt tokens skip prefill; "
                  f"{evictions:,} evictions")
    return PrefixCacheResult(hit_blocks, lookups, rate, token_rate, hits_per_request, evictions, derivation)


def synthetic_prompts(
    *, num_requests: int, num_system_prompts: int, system_tokens: int, user_tokens: int,
    rng: np.random.Generator, vocab_size: int = 32000,
) -> list[list[int]]:
    """Requests sharing one of `num_system_prompts` system prompts (Zipf-ish popularity) + unique user text."""
    for name, v in (("num_requests", num_requests), ("num_system_prompts", num_system_prompts)):
        if v < 1 or v > 1_000_000:
            raise ModelInputError(name, "must be between 1 and 1,000,000")
    if system_tokens < 0 or user_tokens < 0 or system_tokens + user_tokens > 1_000_000:
        raise ModelInputError("system_tokens", "token counts must be between 0 and 1,000,000")
    systems = rng.integers(0, vocab_size, size=(num_system_prompts, system_tokens))
    weights = 1.0 / np.arange(1, num_system_prompts + 1)
    choice = rng.choice(num_system_prompts, size=num_requests, p=weights / weights.sum())
    users = rng.integers(0, vocab_size, size=(num_requests, user_tokens))
    return [systems[c].tolist() + users[i].tolist() for i, c in enumerate(choice)]
