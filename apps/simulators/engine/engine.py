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

Hot path. Per-request state lives in plain Python lists. Running requests that only
decode (one new token per step, blocks exactly covering their context) form the set D,
kept *lazily*: a member stores its computed/generated counts as of the D-tick it joined,
and every step in which all of D is scheduled ("fast step") just bumps the D-tick. The
step cost needs only per-step sums, so D contributes |D| and Σ context (kept as a running
sum); the members needing a fresh KV block this step are counted in `block_size` phase
buckets; finishes are scheduled by D-tick. A fast step therefore costs O(prefilling +
admitted + finishing requests), not O(batch). Steps where the token budget binds or
blocks run out ("slow steps") walk the running set in admission order exactly as
described above, touching only the requests they schedule or preempt. With the roofline
cost the per-step sums are computed in integers and are exact, so results are
bit-for-bit those of evaluating the cost on per-sequence arrays.
No wall clock, no global random state: the workload is an input.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import deque
from collections.abc import Callable
from typing import cast

import numpy as np

from .costs import RooflineStepCost, StepCostFn
from .scheduler import BlockPool, SchedulerConfig, block_hash
from .workload import Workload

ADMISSION_LOG_STEPS = 500  # the step log's longest reach (trace_steps): admissions and gate waits are kept that far


class SimulationError(ValueError):
    """The configuration cannot serve this workload; `field` names the input to change."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


class WorkLimit:
    """Caps on the work of one simulation, shared by all its engines (replicas, disaggregated pools).

    `max_steps` bounds engine steps; `max_entries` bounds requests scheduled one by one (prefill
    chunks, steps where the token budget binds, preemption walks), the other per-step cost.
    Both are counted, not timed, so the same request always gets the same answer."""

    def __init__(self, max_steps: int = 5_000_000, max_entries: int = 50_000_000,
                 on_progress: Callable[[WorkLimit], None] | None = None, progress_every: int = 20_000) -> None:
        self.max_steps = max_steps
        self.max_entries = max_entries
        self.steps = 0
        self.entries = 0
        self.finished = 0  # requests finished by any engine (a disaggregated request finishes in both pools)
        # Called every `progress_every` steps (a background job's progress and cancellation); it may raise to stop.
        self.on_progress = on_progress
        self.progress_every = progress_every

    def exceeded(self, what: str, limit: int) -> SimulationError:
        return SimulationError("workload", f"the simulation needs more than {limit:,} {what}, more than a "
                               "synchronous request may use; use fewer requests or shorter prompts/outputs, larger "
                               "max_num_seqs / max_num_batched_tokens, or run it as a background job (engine-jobs) or a sweep")


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
        limit: WorkLimit | None = None,
        trace_steps: bool = False,
    ) -> None:
        n = len(workload)
        self.w = workload
        self.cfg = config
        self.cost = step_cost
        # The same object typed as the roofline cost: read only on the fast paths guarded by self._roof.
        self.roofline_cost = cast(RooflineStepCost, step_cost)
        self.max_steps = max_steps
        self.limit = limit
        self.keys = request_keys if request_keys is not None else np.arange(n)
        self.arrival = workload.arrival_s
        self.prompt = workload.prompt_tokens.astype(np.int64)
        self.target = workload.output_tokens.astype(np.int64)
        computed = np.zeros(n, np.int64) if initial_computed is None else initial_computed.astype(np.int64)
        generated = np.zeros(n, np.int64) if initial_generated is None else initial_generated.astype(np.int64)
        self.initial_computed = computed.copy()
        # Per-request state (plain lists: scalar access in the loop is much cheaper than numpy's).
        self._arr: list[float] = self.arrival.tolist()
        self._prompt: list[int] = self.prompt.tolist()
        self._target: list[int] = self.target.tolist()
        self._comp: list[int] = computed.tolist()
        self._gen: list[int] = generated.tolist()
        self._held = [0] * n
        self._first = [math.nan] * n
        self._finish = [math.nan] * n
        self._pre = [0] * n
        self._done = [False] * n
        self._reg = [0] * n
        self.pool = BlockPool(config.num_blocks, config.prefix_caching)
        self.cached: dict[int, list[int]] = {}
        self.hashes: dict[int, list[int]] = {}
        self.pending: list[int] = []
        self.pos = 0
        self.waiting: deque[int] = deque()
        self.order: dict[int, int] = {}     # running request -> admission number, in admission order
        self._seq = 0
        self._p: list[int] = []              # running requests outside D, in admission order
        # D, the lazily advanced decoders (see the module docstring).
        self._tick = 0
        self._d0: dict[int, int] = {}        # member -> D-tick when its _comp/_gen were last stored
        self._ep = [0] * n                   # join count, to recognise stale schedule entries
        self._bucket = [0] * config.block_size  # members by (join tick - context) mod block_size
        self._fin_at: dict[int, list[tuple[int, int]]] = {}
        self._sum_ctx = 0
        self._roof = isinstance(step_cost, RooflineStepCost)
        self._local = self._roof and self.roofline_cost.local_layers > 0
        self._window = self.roofline_cost.window if self._local else 0
        self._sum_win = 0                    # Σ min(context, window) over D (sliding-window models)
        self._below = 0                      # members whose context is below the window
        self._cap_at: dict[int, list[tuple[int, int]]] = {}
        self._threshold = 0                  # this step's long_prefill_token_threshold (0 while a request is alone)
        self._d_order_max = -1               # an upper bound on the admission numbers in D (exact when flagged)
        self._d_order_max_exact = True
        self.now = 0.0
        self.steps = 0
        self.busy_s = 0.0
        self.area = 0.0                 # ∫ requests in the engine dt, sampled per step
        self.tokens_computed = 0        # Σ new tokens over steps (static: real tokens only)
        self.tokens_lost = 0            # KV tokens dropped by preemption
        self.hit_tokens = 0
        self.lookup_tokens = 0
        self.finished = 0
        # Per step: (end time, waiting, running, KV blocks in use, duration, tokens computed before the step).
        self.series: list[tuple[float, int, int, int, float, int]] = []
        # With trace_steps: per step, the tokens scheduled per request and the requests preempted (the golden-trace
        # comparison with vLLM's scheduler); off on every user path, where it would cost a dict a step.
        self.step_tokens: list[dict[int, int]] | None = [] if trace_steps else None
        self.step_preempted: list[list[int]] = []
        self._preempted_now: list[int] = []
        # For the step log, over the first ADMISSION_LOG_STEPS steps: step -> [(request, prompt tokens)] admitted, and
        # step -> (request, tokens, blocks its whole sequence needs, blocks free) for a head of the queue held back
        # by the full-prompt gate.
        self.admitted: dict[int, list[tuple[int, int]]] = {}
        self.held_back: dict[int, tuple[int, int, int, int]] = {}
        self._static_ctx = 0
        self._static_left = 0
        self._static_gen = 0
        self._static_targets: list[int] = []

    # ---- numpy views of the per-request state (for metrics and tests) -----------------------
    def _sync(self) -> None:
        """Store the lazily advanced decoders' counts (their schedule keys do not change)."""
        tick, bs = self._tick, self.cfg.block_size
        comp, gen, held, d0 = self._comp, self._gen, self._held, self._d0
        for r, t0 in d0.items():
            if t0 != tick:
                comp[r] += tick - t0
                gen[r] += tick - t0
                held[r] = -(-comp[r] // bs)
                d0[r] = tick

    @property
    def computed(self) -> np.ndarray:
        self._sync()
        return np.asarray(self._comp, np.int64)

    @property
    def generated(self) -> np.ndarray:
        self._sync()
        return np.asarray(self._gen, np.int64)

    @property
    def held(self) -> np.ndarray:
        self._sync()
        return np.asarray(self._held, np.int64)

    @property
    def first_t(self) -> np.ndarray:
        return np.asarray(self._first, float)

    @property
    def finish_t(self) -> np.ndarray:
        return np.asarray(self._finish, float)

    @property
    def preempted(self) -> np.ndarray:
        return np.asarray(self._pre, np.int64)

    @property
    def done(self) -> np.ndarray:
        return np.asarray(self._done, bool)

    @property
    def run(self) -> np.ndarray:
        return np.asarray(list(self.order), np.int64)

    # ---- feeding -------------------------------------------------------------------------
    def assign(self, idx: int) -> None:
        """Route request `idx` to this engine (call in arrival order)."""
        self.pending.append(int(idx))

    def assign_all(self) -> None:
        self.pending = list(np.argsort(self.arrival, kind="stable").tolist())

    @property
    def outstanding(self) -> int:
        return len(self.pending) - self.finished

    # ---- main loop -----------------------------------------------------------------------
    def advance(self, t_limit: float = math.inf) -> None:
        """Run steps until the clock passes `t_limit` (a started step always finishes) or no work is left."""
        step = self._step_static if self.cfg.static_batching else self._step
        pending, arr, waiting, order = self.pending, self._arr, self.waiting, self.order
        npend = len(pending)
        pos = self.pos
        while True:
            now = self.now
            while pos < npend and arr[pending[pos]] <= now:
                waiting.append(pending[pos])
                pos += 1
            self.pos = pos
            if waiting or order:
                if now >= t_limit:
                    return
                if not step() and not order:
                    r = waiting[0]
                    raise SimulationError("gpu_memory_utilization", f"a request of "
                                          f"{self._prompt[r] + self._target[r]:,} tokens can never be scheduled "
                                          f"with {self.cfg.num_blocks:,} KV blocks of {self.cfg.block_size} tokens "
                                          f"and a budget of {self.cfg.max_num_batched_tokens:,} tokens per step")
                continue
            if pos >= npend:
                return
            t = arr[pending[pos]]
            if t > t_limit:
                return
            self.now = max(now, t)

    def _clock(self, dt: float) -> None:
        self.steps = steps = self.steps + 1
        if steps > self.max_steps:
            raise SimulationError("workload.num_requests", f"the simulation needs more than {self.max_steps:,} "
                                  "engine steps; use fewer requests, shorter outputs or a larger max_num_seqs")
        lim = self.limit
        if lim is not None:
            lim.steps += 1
            if lim.steps > lim.max_steps:
                raise lim.exceeded("engine steps", lim.max_steps)
            if lim.on_progress is not None and lim.steps % lim.progress_every == 0:
                lim.on_progress(lim)
        nw, nr = len(self.waiting), len(self.order)
        self.area += (nw + nr) * dt
        self.busy_s += dt
        self.now = now = self.now + dt
        pool = self.pool
        self.series.append((now, nw, nr, pool.num_blocks - pool.free - len(pool.evictable), dt, self.tokens_computed))

    # ---- the lazily advanced decoders D --------------------------------------------------------
    def _join(self, r: int) -> None:
        """r needs one token per step from now on and its blocks cover its context exactly."""
        c, tick = self._comp[r], self._tick
        if not self._d0:
            self._d_order_max, self._d_order_max_exact = -1, True
        self._d_order_max = max(self._d_order_max, self.order[r])
        self._d0[r] = tick
        ep = self._ep[r] + 1
        self._ep[r] = ep
        self._bucket[(tick - c) % self.cfg.block_size] += 1
        self._sum_ctx += c
        self._fin_at.setdefault(tick + self._target[r] - self._gen[r], []).append((r, ep))
        if self._local:
            w = self._window
            if c < w:
                self._below += 1
                self._sum_win += c
                self._cap_at.setdefault(tick + w - c, []).append((r, ep))
            else:
                self._sum_win += w

    def _leave(self, r: int) -> None:
        """Store r's current counts and take it out of D."""
        t0 = self._d0.pop(r)
        self._d_order_max_exact = False
        c0 = self._comp[r]
        c = c0 + self._tick - t0
        bs = self.cfg.block_size
        self._comp[r] = c
        self._gen[r] += self._tick - t0
        self._held[r] = -(-c // bs)
        self._bucket[(t0 - c0) % bs] -= 1
        self._sum_ctx -= c
        if self.cfg.prefix_caching:
            self._register(r, c)
        if self._local:
            if c < self._window:
                self._below -= 1
                self._sum_win -= c
            else:
                self._sum_win -= self._window

    # ---- continuous batching -------------------------------------------------------------
    def _step(self) -> bool:
        cfg, pool = self.cfg, self.pool
        bs = cfg.block_size
        budget = cfg.max_num_batched_tokens
        prompt, gen, comp, held, d0 = self._prompt, self._gen, self._comp, self._held, self._d0
        nd = len(d0)
        p = self._p
        if not p and nd and not self.waiting and nd <= budget and self._roof:
            # Only decoders, nothing to admit: the commonest step, kept short.
            tick = self._tick
            blocks = self._bucket[tick % bs]
            if blocks <= pool.available():
                if blocks:
                    pool.take(blocks)
                if self.step_tokens is not None:
                    self._trace(dict.fromkeys(d0, 1))
                cost, sum_ctx = self.roofline_cost, self._sum_ctx
                g_layers = cost.global_layers
                ep = self._ep
                if not self._local:
                    self._clock(cost.time(float(nd), float(nd), g_layers * float(sum_ctx + nd),
                                          g_layers * float(sum_ctx)))
                else:
                    l_layers, sum_win = cost.local_layers, self._sum_win
                    self._clock(cost.time(float(nd), float(nd),
                                          float(g_layers * (sum_ctx + nd) + l_layers * (sum_win + self._below)),
                                          float(g_layers * sum_ctx + l_layers * sum_win)))
                    self._sum_win = sum_win + self._below
                    for r, e in self._cap_at.pop(tick + 1, ()):
                        if ep[r] == e and r in d0:
                            self._below -= 1
                self.tokens_computed += nd
                self._tick = tick = tick + 1
                self._sum_ctx = sum_ctx + nd
                ends = self._fin_at.pop(tick, None)
                if ends:
                    fins: list[int] = []
                    for r, e in ends:
                        if ep[r] == e and r in d0:
                            self._leave(r)
                            fins.append(r)
                    if fins:
                        self._release(fins)
                return True
        need = nd
        blocks = self._bucket[self._tick % bs] if nd else 0
        ks: list[int] = []
        nbs: list[int] = []
        # vLLM caps prefill chunks only while another request could be starved: more than one running or waiting.
        thr = cfg.long_prefill_token_threshold if len(self.order) + len(self.waiting) > 1 else 0
        self._threshold = thr
        for r in p:
            c = comp[r]
            k = prompt[r] + gen[r] - c
            if 0 < thr < k:
                k = thr
            nb = -(-(c + k) // bs) - held[r]
            if nb < 0:
                nb = 0
            need += k
            blocks += nb
            ks.append(k)
            nbs.append(nb)
        preempted = False
        if need <= budget and blocks <= pool.available():
            # Everything running is scheduled in full: D advances as a block.
            if blocks:
                pool.take(blocks)
            for r, nb in zip(p, nbs, strict=True):
                held[r] += nb
            budget -= need
            ids = p[:]
        elif (partial := self._schedule_after_d(budget, nd, ks)) is not None:
            ids, ks, budget = partial
        else:
            nd = 0
            ids, ks, budget, preempted = self._schedule_slow(budget)
        if cfg.prefix_caching:
            # As vLLM does, a block is cached when it is allocated for the tokens that fill it, not once they are
            # computed: a request admitted later in this very step already reuses it. Output blocks are cached too
            # (a request resuming after preemption reuses them); a decoder in D registers its own when it leaves D.
            for r, k in zip(ids, ks, strict=True):
                self._register(r, comp[r] + k)
        if not preempted and self.waiting and budget > 0 and len(self.order) < cfg.max_num_seqs:
            self._admit(budget, ids, ks)
        if not ids and not nd:
            return preempted
        lim = self.limit
        if lim is not None and ids:
            lim.entries += len(ids) + (len(self.order) if preempted else 0)
            if lim.entries > lim.max_entries:
                raise lim.exceeded("requests scheduled one at a time", lim.max_entries)
        if self.step_tokens is not None:
            row = dict.fromkeys(d0, 1) if nd else {}
            row.update(zip(ids, ks, strict=True))
            self._trace(row)
        self._clock(self._price(nd, ids, ks))
        self.tokens_computed += nd + sum(ks)
        fins = []
        if nd:
            self._tick = tick = self._tick + 1
            self._sum_ctx += nd
            ep = self._ep
            if self._local:
                self._sum_win += self._below
                for r, e in self._cap_at.pop(tick, ()):
                    if ep[r] == e and r in d0:
                        self._below -= 1
            for r, e in self._fin_at.pop(tick, ()):
                if ep[r] == e and r in d0:
                    self._leave(r)
                    fins.append(r)
        now, target, first = self.now, self._target, self._first
        for r, k in zip(ids, ks, strict=True):
            c2 = comp[r] = comp[r] + k
            if c2 == prompt[r] + gen[r]:
                g = gen[r] = gen[r] + 1
                if g == 1:
                    first[r] = now
                if g >= target[r]:
                    fins.append(r)
                else:
                    self._join(r)
        order = self.order
        if fins:
            self._release(fins)
        if not preempted and len(ids) >= len(p) and ids[:len(p)] == p:
            self._p = [r for r in ids if r in order and r not in d0]
        else:
            keep = {r for r in p if r in order and r not in d0}
            keep.update(r for r in ids if r in order and r not in d0)
            self._p = sorted(keep, key=order.__getitem__)
        return True

    def _trace(self, row: dict[int, int]) -> None:
        assert self.step_tokens is not None
        self.step_tokens.append(row)
        self.step_preempted.append(sorted(self._preempted_now))
        self._preempted_now = []

    def _release(self, fins: list[int]) -> None:
        """Finish these requests now, freeing their blocks in admission order (the LRU order of freed blocks)."""
        order, pool, held, now = self.order, self.pool, self._held, self.now
        if len(fins) > 1:
            fins.sort(key=order.__getitem__)
        cached_of, finish, done = self.cached, self._finish, self._done
        for r in fins:
            cached = cached_of.pop(r, [])
            pool.release(held[r] - len(cached), cached)
            held[r] = 0
            done[r] = True
            finish[r] = now
            del order[r]
        self.finished += len(fins)
        if self.limit is not None:
            self.limit.finished += len(fins)

    def _price(self, nd: int, ids: list[int], ks: list[int]) -> float:
        """Step time of D (when it advances) plus the explicitly scheduled requests.

        Roofline: the per-step sums in integers, i.e. exactly what the cost computes from arrays."""
        cost, comp = self.roofline_cost, self._comp
        if not self._roof:
            if nd:
                kmap = dict(zip(ids, ks, strict=True))
                d0, tick = self._d0, self._tick
                scheduled = [r for r in self.order if r in d0 or r in kmap]  # not those the budget left out
                ns = [1 if r in d0 else kmap[r] for r in scheduled]
                cs = [comp[r] + tick - d0[r] if r in d0 else comp[r] for r in scheduled]
            else:
                ns, cs = ks, [comp[r] for r in ids]
            return float(self.cost(np.asarray(ns, float), np.asarray(cs, float)))
        if not ids and not self._local:  # only D: the common decode step
            g_layers, sum_ctx = cost.global_layers, self._sum_ctx
            return cost.time(float(nd), float(nd), g_layers * float(sum_ctx + nd), g_layers * float(sum_ctx))
        return self._price_sums(nd, ks, [comp[r] for r in ids])

    def _price_sums(self, nd: int, ks: list[int], cs: list[int]) -> float:
        """Roofline step time of D (nd members advancing, 0 if it does not) plus sequences (k new tokens, context c)."""
        cost = self.roofline_cost
        tokens = decodes = nd
        x = h = xd = 0  # xd: the decodes' share of x (a sequence of one new token is a decode, as in __call__)
        g_layers = cost.global_layers
        if not self._local:
            for k, c in zip(ks, cs, strict=True):
                tokens += k
                x += k * (2 * c + k + 1)
                h += c
                if k == 1:
                    decodes += 1
                    xd += 2 * c + 2
            if nd:
                block = 2 * (self._sum_ctx + nd)
                x, xd, h = x + block, xd + block, h + self._sum_ctx
            return cost.time(float(tokens), float(nd + len(ks)), g_layers * (x / 2), g_layers * float(h),
                             float(decodes), g_layers * (xd / 2))
        l_layers, w = cost.local_layers, self._window
        for k, c in zip(ks, cs, strict=True):
            e = 2 * c + k + 1
            tokens += k
            per_token = g_layers * e + l_layers * min(e, 2 * w)
            x += k * per_token
            h += g_layers * c + l_layers * min(c, w)
            if k == 1:
                decodes += 1
                xd += per_token
        if nd:
            block = 2 * g_layers * (self._sum_ctx + nd) + 2 * l_layers * (self._sum_win + self._below)
            x, xd = x + block, xd + block
            h += g_layers * self._sum_ctx + l_layers * self._sum_win
        return cost.time(float(tokens), float(nd + len(ks)), x / 2, float(h), float(decodes), xd / 2)

    def _schedule_after_d(self, budget: int, nd: int, ks: list[int]) -> tuple[list[int], list[int], int] | None:
        """The budget binds, but every decoder in D was admitted before every request outside it: D takes its nd
        tokens as a block and the others, in admission order, what is left (what the walk in admission order would
        do, without touching D). None when that does not hold or blocks run short: the caller walks every request."""
        p, d0, order = self._p, self._d0, self.order
        if nd > budget or not p:
            return None
        if d0:
            if order[p[0]] < self._d_order_max and not self._d_order_max_exact:
                self._d_order_max = max(order[r] for r in d0)
                self._d_order_max_exact = True
            if order[p[0]] < self._d_order_max:
                return None
        bs, pool, comp, held = self.cfg.block_size, self.pool, self._comp, self._held
        left = budget - nd
        blocks = self._bucket[self._tick % bs] if nd else 0
        ids: list[int] = []
        new: list[int] = []
        nbs: list[int] = []
        for r, k in zip(p, ks, strict=True):
            if left <= 0:
                break
            k = min(k, left)
            nb = max(-(-(comp[r] + k) // bs) - held[r], 0)
            ids.append(r)
            new.append(k)
            nbs.append(nb)
            blocks += nb
            left -= k
        if blocks > pool.available():
            return None
        if blocks:
            pool.take(blocks)
        for r, nb in zip(ids, nbs, strict=True):
            held[r] += nb
        return ids, new, left

    def _schedule_slow(self, budget: int) -> tuple[list[int], list[int], int, bool]:
        """Walk the running requests in admission order while budget is left (the budget binds or blocks run out)."""
        bs, pool = self.cfg.block_size, self.pool
        prompt, gen, comp, held, d0, tick = self._prompt, self._gen, self._comp, self._held, self._d0, self._tick
        thr = self._threshold
        b = budget
        sel: list[tuple[int, int, int]] = []
        total = 0
        for r in self.order:
            if b <= 0:
                break
            t0 = d0.get(r)
            if t0 is not None:
                k, nb = 1, int((comp[r] + tick - t0) % bs == 0)
            else:
                c = comp[r]
                k = prompt[r] + gen[r] - c
                if 0 < thr < k:
                    k = thr
                k = min(k, b)
                nb = max(-(-(c + k) // bs) - held[r], 0)
            sel.append((r, k, nb))
            total += nb
            b -= k
        if total > pool.available():
            return (*self._schedule_with_preemption(budget), True)
        if total:
            pool.take(total)
        ids: list[int] = []
        ks: list[int] = []
        for r, k, nb in sel:
            if r in d0:
                self._leave(r)
            held[r] += nb
            ids.append(r)
            ks.append(k)
        return ids, ks, b, False

    def _schedule_with_preemption(self, budget: int) -> tuple[list[int], list[int], int]:
        bs, pool = self.cfg.block_size, self.pool
        prompt, gen, comp, held, d0 = self._prompt, self._gen, self._comp, self._held, self._d0
        run = list(self.order)
        ids: list[int] = []
        ns: list[int] = []
        i = 0
        while i < len(run) and budget > 0:
            r = run[i]
            if r in d0:
                self._leave(r)
            k = prompt[r] + gen[r] - comp[r]
            if 0 < self._threshold < k:
                k = self._threshold
            k = min(k, budget)
            nb = max(-(-(comp[r] + k) // bs) - held[r], 0)
            ok = True
            while nb > pool.available():
                victim = run.pop()
                if victim in d0:
                    self._leave(victim)
                self._preempt(victim)
                if victim == r:
                    ok = False
                    break
            if not ok:
                break
            pool.take(nb)
            held[r] += nb
            ids.append(r)
            ns.append(k)
            budget -= k
            i += 1
        return ids, ns, budget

    def _preempt(self, r: int) -> None:
        cached = self.cached.pop(r, [])
        self.pool.release(self._held[r] - len(cached), cached)
        self._held[r] = 0
        self._reg[r] = 0
        self.tokens_lost += self._comp[r]
        self._comp[r] = 0
        self._pre[r] += 1
        if self.step_tokens is not None:
            self._preempted_now.append(r)
        self.waiting.appendleft(r)
        del self.order[r]

    def _hashes(self, r: int, blocks: int) -> list[int]:
        """The identities of r's first `blocks` full blocks (prompt, then generated tokens), extended as needed."""
        h = self.hashes.get(r)
        if h is None:
            h = self.hashes[r] = []
        if len(h) < blocks:
            bs = self.cfg.block_size
            pid, ptok, key = int(self.w.prefix_id[r]), int(self.w.prefix_tokens[r]), int(self.keys[r])
            h.extend(block_hash(pid, ptok, key, b, bs) for b in range(len(h), blocks))
        return h

    def _admit(self, budget: int, ids: list[int], ks: list[int]) -> None:
        """Admit waiting requests FCFS; appends them to ids/ks and to the running order."""
        cfg, pool, bs = self.cfg, self.pool, self.cfg.block_size
        prompt, gen, comp, held = self._prompt, self._gen, self._comp, self._held
        waiting, order = self.waiting, self.order
        nrun = len(order)
        full_isl, threshold = cfg.scheduler_reserve_full_isl, self._threshold
        while waiting and budget > 0 and nrun < cfg.max_num_seqs:
            r = waiting[0]
            tokens = prompt[r] + gen[r]
            base = comp[r]
            hit = idle = 0
            hashes: list[int] = []
            if cfg.prefix_caching and base == 0:
                hashes = self._hashes(r, (tokens - 1) // bs)[: (tokens - 1) // bs]
                hit, idle = pool.cached_prefix(hashes)
                base = hit * bs
            if full_isl and -(-tokens // bs) - hit > pool.available() - idle:
                # vLLM's scheduler_reserve_full_isl: the whole sequence must fit, not only its first chunk
                if self.steps < ADMISSION_LOG_STEPS:
                    self.held_back[self.steps + 1] = (r, tokens, -(-tokens // bs) - hit, pool.available() - idle)
                break
            k = tokens - base
            if 0 < threshold < k:
                k = threshold
            if not cfg.chunked_prefill and k > budget:
                break
            k = min(k, budget)
            nb = -(-(base + k) // bs) - hit
            if nb > pool.available() - idle:
                break
            waiting.popleft()
            if cfg.prefix_caching and comp[r] == 0:
                self.lookup_tokens += prompt[r]
                self.hit_tokens += hit * bs
                if hit:
                    pool.acquire(hashes[:hit])
                self.cached[r] = hashes[:hit]
                self._reg[r] = hit
            pool.take(nb)
            held[r] = hit + nb
            comp[r] = base
            if cfg.prefix_caching:
                self._register(r, base + k)
            if self.steps < ADMISSION_LOG_STEPS:
                self.admitted.setdefault(self.steps + 1, []).append((r, prompt[r]))
            ids.append(r)
            ks.append(k)
            budget -= k
            nrun += 1
            order[r] = self._seq
            self._seq += 1

    def _register(self, r: int, computed: int) -> None:
        full = computed // self.cfg.block_size
        start = self._reg[r]
        if full <= start:
            return
        hashes, cached = self._hashes(r, full), self.cached.setdefault(r, [])
        for b in range(start, full):
            if self.pool.register(hashes[b]):
                cached.append(hashes[b])
        self._reg[r] = full

    # ---- static batching -----------------------------------------------------------------
    def _step_static(self) -> bool:
        if not self.order:
            return self._static_prefill()
        b = len(self.order)
        real = b - bisect_right(self._static_targets, self._static_gen)  # members with generated < target
        self._clock(self._price_uniform(b, 1, self._static_ctx))
        self.tokens_computed += real
        self._static_ctx += 1
        self._static_gen += 1
        self._static_left -= 1
        if self._static_left <= 0:
            self._static_finish()
        return True

    def _price_uniform(self, b: int, k: int, c: int) -> float:
        """b sequences with k new tokens each at context c (padded static batches)."""
        if not self._roof:
            return float(self.cost(np.full(b, float(k)), np.full(b, float(c))))
        cost = self.roofline_cost
        g_layers = cost.global_layers
        e = 2 * c + k + 1
        if not self._local:
            return cost.time(float(b * k), float(b), g_layers * (b * k * e / 2), g_layers * float(b * c))
        l_layers, w = cost.local_layers, self._window
        x = b * k * (g_layers * e + l_layers * min(e, 2 * w))
        return cost.time(float(b * k), float(b), x / 2, float(b * (g_layers * c + l_layers * min(c, w))))

    def _static_prefill(self) -> bool:
        bs, pool = self.cfg.block_size, self.pool
        prompt, target = self._prompt, self._target
        batch: list[int] = []
        while self.waiting and len(batch) < self.cfg.max_num_seqs:
            r = self.waiting[0]
            reserve = -(-(prompt[r] + target[r]) // bs)  # whole request reserved up front
            if reserve > pool.available():
                break
            pool.take(reserve)
            self._held[r] = reserve
            batch.append(self.waiting.popleft())
        if not batch:
            return False
        for r in batch:
            self.order[r] = self._seq
            self._seq += 1
        b = len(batch)
        longest = max(prompt[r] for r in batch)
        self._clock(self._price_uniform(b, longest, 0))
        self.tokens_computed += sum(prompt[r] for r in batch)
        for r in batch:
            self._comp[r] = prompt[r]
            self._gen[r] = 1
            self._first[r] = self.now
        self._static_ctx = longest
        self._static_gen = 1
        self._static_targets = sorted(target[r] for r in batch)
        self._static_left = self._static_targets[-1] - 1
        if self._static_left <= 0:
            self._static_finish()
        return True

    def _static_finish(self) -> None:
        held = 0
        for r in self.order:
            self._comp[r] = self._prompt[r] + self._target[r] - 1
            self._gen[r] = self._target[r]
            self._finish[r] = self.now
            self._done[r] = True
            held += self._held[r]
            self._held[r] = 0
        self.finished += len(self.order)
        if self.limit is not None:
            self.limit.finished += len(self.order)
        self.pool.release(held, [])
        self.order.clear()
