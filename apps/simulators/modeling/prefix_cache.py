"""Prefix caching: block hash chains and LRU hit rate.

vLLM automatic prefix caching (docs "Automatic Prefix Caching" design): a prompt is
cut into full blocks of `block_size` tokens; block i's key is
hash(parent_key, tokens of block i), so a key identifies the whole prefix up to
that block. Only full blocks are cached. A new request reuses the longest run of
leading blocks whose keys are cached; evicted blocks are chosen least recently used.

Hashing is vectorized with numpy and deterministic (no PYTHONHASHSEED, no process
state): a block's hash is splitmix64 of a multilinear sum Σ_j (token_j + 1)·K_j over
fixed odd 64-bit constants K_j, one per position in the block; the chain is
key_i = key_{i-1} · CHAIN_MULTIPLIER + block_hash_i (mod 2^64), key_{-1} = ROOT_HASH = 0.
That recurrence is linear with an odd (invertible) multiplier, so the chains of all
prompts of a batch come from one cumulative sum: key_i = A^i · Σ_{k≤i} h_k · A^-k.
A ≡ 1 (mod 4) keeps a run of identical blocks from ever repeating a key (the partial
sums 1 + A + … + A^(m-1) vanish mod 2^64 only for m divisible by 2^64).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain as concat

import numpy as np

from .errors import ModelInputError
from .vllm_defaults import BLOCK_SIZE

ROOT_HASH = 0
MASK_64 = (1 << 64) - 1
CHAIN_MULTIPLIER = 0xC6A4A7935BD1E995   # ≡ 1 (mod 4): odd, so invertible mod 2^64
_CHAIN_INVERSE = pow(CHAIN_MULTIPLIER, -1, 1 << 64)
_GOLDEN = 0x9E3779B97F4A7C15
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S27, _S30, _S31 = np.uint64(27), np.uint64(30), np.uint64(31)


def _splitmix64(z: np.ndarray) -> np.ndarray:
    """splitmix64 finalizer, in place on a uint64 array (wraps mod 2^64)."""
    z ^= z >> _S30
    z *= _MIX1
    z ^= z >> _S27
    z *= _MIX2
    z ^= z >> _S31
    return z


def _position_keys(block_size: int) -> np.ndarray:
    """K_0 … K_(block_size-1): odd 64-bit constants, the same for every call."""
    keys = _splitmix64(np.arange(1, block_size + 1, dtype=np.uint64) * np.uint64(_GOLDEN))
    return keys | np.uint64(1)


def block_token_hashes(blocks: np.ndarray) -> np.ndarray:
    """64-bit hash of each block (last axis: the block's tokens) of a token array, as uint64."""
    blocks = np.asarray(blocks, dtype=np.int64)
    keys = _position_keys(blocks.shape[-1])
    return _splitmix64(blocks.view(np.uint64) @ keys + keys.sum(dtype=np.uint64))  # Σ (token + 1)·K, no copy


def chain_hash(parent: int, block_tokens: Sequence[int]) -> int:
    """Key of one block given its parent's key: the scalar form of the chain in `prompt_chains`."""
    own = int(block_token_hashes(np.asarray([block_tokens], dtype=np.int64))[0])
    return (parent * CHAIN_MULTIPLIER + own) & MASK_64


def _powers(base: int, n: int) -> np.ndarray:
    """base^0 … base^(n-1) mod 2^64."""
    out = np.full(max(n, 1), base, dtype=np.uint64)
    out[0] = 1
    return np.cumprod(out, dtype=np.uint64)[:n]


def _full_block_tokens(prompts: Sequence[Sequence[int]] | np.ndarray, block_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Tokens of every full block of every prompt as (n_blocks, block_size), and the block count per prompt.

    A 2-D token matrix (equal-length prompts) is cut into blocks as a view, without copying.
    """
    if isinstance(prompts, np.ndarray) and prompts.ndim == 2:
        n, width = prompts.shape
        per_prompt = width // block_size
        blocks = prompts[:, :per_prompt * block_size].reshape(n, per_prompt, block_size)
        return blocks, np.full(n, per_prompt, dtype=np.int64)
    counts = np.fromiter((len(p) // block_size for p in prompts), dtype=np.int64, count=len(prompts))
    cuts = (counts * block_size).tolist()
    if all(isinstance(p, np.ndarray) for p in prompts):
        parts = [np.asarray(p[:c], dtype=np.int64) for p, c in zip(prompts, cuts, strict=True)]
        flat = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    else:
        flat = np.fromiter(concat.from_iterable(p[:c] for p, c in zip(prompts, cuts, strict=True)),
                           dtype=np.int64, count=sum(cuts))
    return flat.reshape(-1, block_size), counts


def _chain_keys(prompts: Sequence[Sequence[int]] | np.ndarray, block_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Chained uint64 keys of the full blocks of all prompts, concatenated, and the block count per prompt."""
    if block_size < 1:
        raise ModelInputError("block_size", "must be >= 1")
    blocks, counts = _full_block_tokens(prompts, block_size)
    own = block_token_hashes(blocks).reshape(-1)
    starts = np.cumsum(counts) - counts
    local = np.arange(len(own), dtype=np.int64) - np.repeat(starts, counts)
    longest = int(counts.max()) if len(counts) else 0
    running = np.cumsum(own * _powers(_CHAIN_INVERSE, longest)[local], dtype=np.uint64)
    before = np.concatenate([np.zeros(1, dtype=np.uint64), running])[starts]
    return (running - np.repeat(before, counts)) * _powers(CHAIN_MULTIPLIER, longest)[local], counts


def prompt_chains(prompts: Sequence[Sequence[int]] | np.ndarray, block_size: int = BLOCK_SIZE) -> list[np.ndarray]:
    """Chained uint64 keys of the full blocks of each prompt, all prompts hashed in one pass."""
    keys, counts = _chain_keys(prompts, block_size)
    return np.split(keys, np.cumsum(counts)[:-1]) if len(counts) else []


def block_hashes(tokens: Sequence[int], block_size: int = BLOCK_SIZE) -> list[int]:
    """Chained hashes of every full block of `tokens`."""
    return prompt_chains([tokens], block_size)[0].tolist()


@dataclass(frozen=True)
class PrefixCacheResult:
    hit_blocks: int
    lookup_blocks: int
    hit_rate: float                 # of full blocks looked up
    token_hit_rate: float           # of all prompt tokens (partial last blocks count as misses)
    hits_per_request: list[int]
    evictions: int
    derivation: str
    chains: list[np.ndarray] = field(default_factory=list, repr=False, compare=False)  # uint64 keys per prompt


def _replay_lru(chains: Sequence[list[int]], capacity_blocks: int) -> tuple[list[int], int]:
    """Hits per request and evictions when `chains` arrive in order at an LRU cache of `capacity_blocks` keys.

    The cache maps key → time of its last touch; `touched` lists every touch in time order, so the
    least recently used key is the first entry of `touched` whose time is still its key's last touch.
    Each chain is looked up, then all its keys are touched in chain order, then the cache shrinks to size.
    """
    last_touch: dict[int, int] = {}
    touched: list[int] = []
    hits_per_request, evictions, oldest = [], 0, 0
    for chain in chains:
        cached = list(map(last_touch.__contains__, chain))
        hits_per_request.append(cached.index(False) if False in cached else len(chain))
        last_touch.update(zip(chain, range(len(touched), len(touched) + len(chain)), strict=True))
        touched.extend(chain)
        while len(last_touch) > capacity_blocks:
            key = touched[oldest]
            if last_touch.get(key) == oldest:
                del last_touch[key]
                evictions += 1
            oldest += 1
    return hits_per_request, evictions


def _leading_hits(cached: np.ndarray, counts: np.ndarray) -> list[int]:
    """Per prompt, the length of the run of cached blocks its chain starts with."""
    starts = np.cumsum(counts) - counts
    misses = np.cumsum(~cached)
    misses_before = np.concatenate([np.zeros(1, dtype=misses.dtype), misses])[starts]
    leading = misses == np.repeat(misses_before, counts)
    prompt_of_block = np.repeat(np.arange(len(counts)), counts)
    return np.bincount(prompt_of_block[leading], minlength=len(counts)).tolist()


def lru_hit_rate(prompts: Sequence[Sequence[int]] | np.ndarray, *, block_size: int = BLOCK_SIZE,
                 capacity_blocks: int) -> PrefixCacheResult:
    """Replay prompts (token id lists, or a 2-D matrix of equal-length prompts) in arrival order
    through an LRU cache of `capacity_blocks` blocks."""
    if capacity_blocks < 0:
        raise ModelInputError("capacity_blocks", "must be >= 0")
    keys, counts = _chain_keys(prompts, block_size)
    chains = np.split(keys, np.cumsum(counts)[:-1]) if len(counts) else []
    distinct, first_seen, block_key = np.unique(keys, return_index=True, return_inverse=True)
    if len(distinct) <= capacity_blocks:
        # nothing is ever evicted: a block is cached iff its key was first seen in an earlier prompt
        seen_before = first_seen[block_key] < np.repeat(np.cumsum(counts) - counts, counts)
        hits_per_request, evictions = _leading_hits(seen_before, counts), 0
    else:
        hits_per_request, evictions = _replay_lru([c.tolist() for c in chains], capacity_blocks)
    total_tokens = prompts.size if isinstance(prompts, np.ndarray) else sum(len(p) for p in prompts)
    lookups = sum(len(c) for c in chains)
    hit_blocks = sum(hits_per_request)
    rate = hit_blocks / lookups if lookups else 0.0
    token_rate = hit_blocks * block_size / total_tokens if total_tokens else 0.0
    derivation = (f"{len(prompts):,} prompts, {lookups:,} full blocks of {block_size} tokens looked up, "
                  f"{hit_blocks:,} served from an LRU cache of {capacity_blocks:,} blocks → block hit rate "
                  f"{hit_blocks:,}/{lookups:,} = {rate:.1%}, {token_rate:.1%} of prompt tokens skip prefill; "
                  f"{evictions:,} evictions")
    return PrefixCacheResult(hit_blocks, lookups, rate, token_rate, hits_per_request, evictions, derivation, chains)


def synthetic_prompt_matrix(
    *, num_requests: int, num_system_prompts: int, system_tokens: int, user_tokens: int,
    rng: np.random.Generator, vocab_size: int = 32000,
) -> np.ndarray:
    """(num_requests, system_tokens + user_tokens) token ids: one of `num_system_prompts` system prompts
    (Zipf-ish popularity) followed by unique user text."""
    for name, v in (("num_requests", num_requests), ("num_system_prompts", num_system_prompts)):
        if v < 1 or v > 1_000_000:
            raise ModelInputError(name, "must be between 1 and 1,000,000")
    if system_tokens < 0 or user_tokens < 0 or system_tokens + user_tokens > 1_000_000:
        raise ModelInputError("system_tokens", "token counts must be between 0 and 1,000,000")
    systems = rng.integers(0, vocab_size, size=(num_system_prompts, system_tokens))
    weights = 1.0 / np.arange(1, num_system_prompts + 1)
    choice = rng.choice(num_system_prompts, size=num_requests, p=weights / weights.sum())
    users = rng.integers(0, vocab_size, size=(num_requests, user_tokens))
    return np.concatenate([systems[choice], users], axis=1)


def synthetic_prompts(
    *, num_requests: int, num_system_prompts: int, system_tokens: int, user_tokens: int,
    rng: np.random.Generator, vocab_size: int = 32000,
) -> list[list[int]]:
    """`synthetic_prompt_matrix` as lists of token ids."""
    return synthetic_prompt_matrix(num_requests=num_requests, num_system_prompts=num_system_prompts,
                                   system_tokens=system_tokens, user_tokens=user_tokens, rng=rng,
                                   vocab_size=vocab_size).tolist()
