"""Discrete-event simulation of one serving engine (a vLLM V1-style scheduler).

Each iteration is one engine step:
1. Running requests first, in admission order (decode-first): each gets
   min(tokens still to compute, token budget left) new tokens; a decode needs 1.
   KV blocks for those tokens are allocated; when the pool runs dry the *last admitted*
   running request is preempted (blocks freed, KV recomputed later: vLLM's RECOMPUTE
   mode) and put back at the head of the waiting queue.
2. If nothing was preempted, waiting requests are admitted FCFS while the batch has
   fewer than `max_num_seqs` sequences, budget is left and their blocks fit (with prefix
   caching a request starts from its longest cached prefix). Without chunked prefill a
   prompt that does not fit the remaining budget waits for the next step.
3. The step's duration comes from the step-cost function of (new tokens per sequence,
   context per sequence); the clock advances; every sequence whose computed tokens reach
   prompt + generated emits one token (the first one sets its TTFT).
Static batching (for comparison): a batch is formed only when the previous one has
finished, padded prefill, then decode until its longest request finishes; requests
return with the batch.

The hot path keeps the running set as a numpy index array and handles the common step
(everything fits) with a few vector operations; preemption falls back to a plain loop.
No wall clock, no global random state: the workload is an input.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from .costs import StepCostFn
from .scheduler import BlockPool, SchedulerConfig, block_hash
from .workload import Workload


class SimulationError(ValueError):
    """The configuration cannot serve this workload; `field` names the input to change."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


class Engine:
    def __init__(
        self,
        workload: Workload,
        config: SchedulerConfig,
        step_cost: StepCostFn,
        *,
        request_keys: np.ndarray | None = None,
        initial_computed: np.ndarray | None = None,
        initial_generated: np.ndarray | None = None,
        max_steps: int = 5_000_000,
    ) -> None:
        n = len(workload)
        self.w = workload
        self.cfg = config
        self.cost = step_cost
        self.max_steps = max_steps
        self.keys = request_keys if request_keys is not None else np.arange(n)
        self.arrival = workload.arrival_s
        self.prompt = workload.prompt_tokens.astype(np.int64)
        self.target = workload.output_tokens.astype(np.int64)
        self.computed = np.zeros(n, np.int64) if initial_computed is None else initial_computed.astype(np.int64)
        self.generated = np.zeros(n, np.int64) if initial_generated is None else initial_generated.astype(np.int64)
        self.initial_computed = self.computed.copy()
        self.held = np.zeros(n, np.int64)
        self.first_t = np.full(n, np.nan)
        self.finish_t = np.full(n, np.nan)
        self.preempted = np.zeros(n, np.int64)
        self.done = np.zeros(n, bool)
        self.pool = BlockPool(config.num_blocks, config.prefix_caching)
        self.cached: dict[int, list[int]] = {}
        self.registered = np.zeros(n, np.int64)
        self.hashes: dict[int, list[int]] = {}
        self.pending: list[int] = []
        self.pos = 0
        self.waiting: deque[int] = deque()
        self.run = np.empty(0, np.int64)
        self.now = 0.0
        self.steps = 0
        self.busy_s = 0.0
        self.area = 0.0                 # ∫ requests in the engine dt, sampled per step
        self.tokens_computed = 0        # Σ new tokens over steps (static: real tokens only)
        self.tokens_lost = 0            # KV tokens dropped by preemption
        self.hit_tokens = 0
        self.lookup_tokens = 0
        self.finished = 0
        self.series: list[tuple[float, int, int, int]] = []
        self._static_ctx = 0
        self._static_left = 0

    # ---- feeding -------------------------------------------------------------------------
    def assign(self, idx: int) -> None:
        """Route request `idx` to this engine (call in arrival order)."""
        self.pending.append(int(idx))

    def assign_all(self) -> None:
        self.pending = list(np.argsort(self.arrival, kind="stable").tolist())

    @property
    def outstanding(self) -> int:
        return len(self.pending) - self.finished

    def _arrive(self) -> None:
        pending, arrival, now = self.pending, self.arrival, self.now
        while self.pos < len(pending) and arrival[pending[self.pos]] <= now:
            self.waiting.append(pending[self.pos])
            self.pos += 1

    # ---- main loop -----------------------------------------------------------------------
    def advance(self, t_limit: float = math.inf) -> None:
        """Run steps until the clock passes `t_limit` (a started step always finishes) or no work is left."""
        step = self._step_static if self.cfg.static_batching else self._step
        while True:
            self._arrive()
            if self.waiting or self.run.size:
                if self.now >= t_limit:
                    return
                if not step():
                    if self.run.size == 0:
                        r = self.waiting[0]
                        raise SimulationError("gpu_memory_utilization", f"a request of {self.prompt[r] + self.target[r]:,} "
                                              f"tokens can never be scheduled with {self.cfg.num_blocks:,} KV blocks of "
                                              f"{self.cfg.block_size} tokens and a budget of "
                                              f"{self.cfg.max_num_batched_tokens:,} tokens per step")
                continue
            if self.pos >= len(self.pending):
                return
            t = float(self.arrival[self.pending[self.pos]])
            if t > t_limit:
                return
            self.now = max(self.now, t)

    def _tick(self, dt: float) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise SimulationError("workload.num_requests", f"the simulation needs more than {self.max_steps:,} "
                                  "engine steps; use fewer requests, shorter outputs or a larger max_num_seqs")
        self.area += (len(self.waiting) + self.run.size) * dt
        self.busy_s += dt
        self.now += dt
        self.series.append((self.now, len(self.waiting), int(self.run.size), self.pool.used()))

    # ---- continuous batching -------------------------------------------------------------
    def _step(self) -> bool:
        cfg, pool, bs = self.cfg, self.pool, self.cfg.block_size
        budget = cfg.max_num_batched_tokens
        run = self.run
        preempted = False
        ids = n = np.empty(0, np.int64)
        if run.size:
            comp = self.computed[run]
            need = self.prompt[run] + self.generated[run] - comp
            before = np.cumsum(need) - need
            sched = np.clip(budget - before, 0, need)
            new_blocks = np.maximum(-(-(comp + sched) // bs) - self.held[run], 0)
            total = int(new_blocks.sum())
            if total <= pool.available():
                pool.take(total)
                self.held[run] += new_blocks
                budget -= int(sched.sum())
                mask = sched > 0
                ids, n = run[mask], sched[mask]
            else:
                ids, n, budget = self._schedule_with_preemption(budget)
                preempted = True
                run = self.run
        if not preempted and self.waiting and budget > 0 and run.size < cfg.max_num_seqs:
            new_ids, new_n = self._admit(budget, int(run.size))
            if new_ids:
                added = np.asarray(new_ids, np.int64)
                self.run = run = np.concatenate((run, added))
                ids = np.concatenate((ids, added))
                n = np.concatenate((n, np.asarray(new_n, np.int64)))
        if ids.size == 0:
            return preempted
        ctx = self.computed[ids]
        self._tick(float(self.cost(n.astype(float), ctx.astype(float))))
        self._after_step(ids, n, ctx)
        return True

    def _schedule_with_preemption(self, budget: int):
        bs, pool = self.cfg.block_size, self.pool
        run = self.run.tolist()
        ids: list[int] = []
        ns: list[int] = []
        i = 0
        while i < len(run) and budget > 0:
            r = run[i]
            k = min(int(self.prompt[r] + self.generated[r] - self.computed[r]), budget)
            nb = max(-(-(int(self.computed[r]) + k) // bs) - int(self.held[r]), 0)
            ok = True
            while nb > pool.available():
                victim = run.pop()
                self._preempt(victim)
                if victim == r:
                    ok = False
                    break
            if not ok:
                break
            pool.take(nb)
            self.held[r] += nb
            ids.append(r)
            ns.append(k)
            budget -= k
            i += 1
        self.run = np.asarray(run, np.int64)
        return np.asarray(ids, np.int64), np.asarray(ns, np.int64), budget

    def _preempt(self, r: int) -> None:
        cached = self.cached.pop(r, [])
        self.pool.release(int(self.held[r]) - len(cached), cached)
        self.held[r] = 0
        self.registered[r] = 0
        self.tokens_lost += int(self.computed[r])
        self.computed[r] = 0
        self.preempted[r] += 1
        self.waiting.appendleft(r)

    def _prompt_hashes(self, r: int) -> list[int]:
        h = self.hashes.get(r)
        if h is None:
            bs = self.cfg.block_size
            pid, ptok, key = int(self.w.prefix_id[r]), int(self.w.prefix_tokens[r]), int(self.keys[r])
            h = [block_hash(pid, ptok, key, b, bs) for b in range(int(self.prompt[r]) // bs)]
            self.hashes[r] = h
        return h

    def _admit(self, budget: int, nrun: int) -> tuple[list[int], list[int]]:
        cfg, pool, bs = self.cfg, self.pool, self.cfg.block_size
        ids: list[int] = []
        ns: list[int] = []
        while self.waiting and budget > 0 and nrun < cfg.max_num_seqs:
            r = self.waiting[0]
            tokens = int(self.prompt[r] + self.generated[r])
            base = int(self.computed[r])
            hit = idle = 0
            hashes: list[int] = []
            if cfg.prefix_caching and base == 0:
                hashes = self._prompt_hashes(r)[: (tokens - 1) // bs]
                hit, idle = pool.cached_prefix(hashes)
                base = hit * bs
            k = tokens - base
            if not cfg.chunked_prefill and k > budget:
                break
            k = min(k, budget)
            nb = -(-(base + k) // bs) - hit
            if nb > pool.available() - idle:
                break
            self.waiting.popleft()
            if cfg.prefix_caching and int(self.computed[r]) == 0:
                self.lookup_tokens += int(self.prompt[r])
                self.hit_tokens += hit * bs
                if hit:
                    pool.acquire(hashes[:hit])
                self.cached[r] = hashes[:hit]
                self.registered[r] = hit
            pool.take(nb)
            self.held[r] = hit + nb
            self.computed[r] = base
            ids.append(r)
            ns.append(k)
            budget -= k
            nrun += 1
        return ids, ns

    def _after_step(self, ids: np.ndarray, n: np.ndarray, ctx: np.ndarray) -> None:
        comp = ctx + n
        self.computed[ids] = comp
        self.tokens_computed += int(n.sum())
        if self.cfg.prefix_caching:
            self._register_blocks(ids, ctx, comp)
        emit = ids[comp == self.prompt[ids] + self.generated[ids]]
        if emit.size == 0:
            return
        gen = self.generated[emit] + 1
        self.generated[emit] = gen
        self.first_t[emit[gen == 1]] = self.now
        fin = emit[gen >= self.target[emit]]
        if fin.size:
            self.finish_t[fin] = self.now
            self.done[fin] = True
            self.finished += int(fin.size)
            for r in fin.tolist():
                cached = self.cached.pop(r, [])
                self.pool.release(int(self.held[r]) - len(cached), cached)
                self.held[r] = 0
            self.run = self.run[~self.done[self.run]]

    def _register_blocks(self, ids: np.ndarray, ctx: np.ndarray, comp: np.ndarray) -> None:
        bs = self.cfg.block_size
        prefill = ctx < self.prompt[ids]
        for r, c in zip(ids[prefill].tolist(), comp[prefill].tolist(), strict=True):
            full = min(c, int(self.prompt[r])) // bs
            start = int(self.registered[r])
            if full <= start:
                continue
            hashes, cached = self._prompt_hashes(r), self.cached.setdefault(r, [])
            for b in range(start, full):
                if self.pool.register(hashes[b]):
                    cached.append(hashes[b])
            self.registered[r] = full

    # ---- static batching -----------------------------------------------------------------
    def _step_static(self) -> bool:
        if self.run.size == 0:
            return self._static_prefill()
        batch = self.run
        real = int((self.generated[batch] < self.target[batch]).sum())
        self._tick(float(self.cost(np.ones(batch.size), np.full(batch.size, float(self._static_ctx)))))
        self.tokens_computed += real
        self._static_ctx += 1
        self.generated[batch] = np.minimum(self.generated[batch] + 1, self.target[batch])
        self._static_left -= 1
        if self._static_left <= 0:
            self._static_finish()
        return True

    def _static_prefill(self) -> bool:
        bs, pool = self.cfg.block_size, self.pool
        batch: list[int] = []
        while self.waiting and len(batch) < self.cfg.max_num_seqs:
            r = self.waiting[0]
            reserve = -(-int(self.prompt[r] + self.target[r]) // bs)  # whole request reserved up front
            if reserve > pool.available():
                break
            pool.take(reserve)
            self.held[r] = reserve
            batch.append(self.waiting.popleft())
        if not batch:
            return False
        ids = np.asarray(batch, np.int64)
        self.run = ids
        longest = int(self.prompt[ids].max())
        self._tick(float(self.cost(np.full(ids.size, float(longest)), np.zeros(ids.size))))
        self.tokens_computed += int(self.prompt[ids].sum())
        self.computed[ids] = self.prompt[ids]
        self.generated[ids] = 1
        self.first_t[ids] = self.now
        self._static_ctx = longest
        self._static_left = int(self.target[ids].max()) - 1
        if self._static_left <= 0:
            self._static_finish()
        return True

    def _static_finish(self) -> None:
        ids = self.run
        self.computed[ids] = self.prompt[ids] + self.target[ids] - 1
        self.finish_t[ids] = self.now
        self.done[ids] = True
        self.finished += int(ids.size)
        self.pool.release(int(self.held[ids].sum()), [])
        self.held[ids] = 0
        self.run = np.empty(0, np.int64)
