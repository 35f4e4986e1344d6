"""The engine against vLLM's own scheduler, step by step.

Each file under golden/ was recorded by ``benchmarks/vllm_golden.py`` from vLLM's V1 ``Scheduler`` (the release in
``recorded_with``) on the request design in the file. The engine runs the same design at one second a step, and every
step must match: the tokens scheduled per request, the waiting and running counts and the KV blocks in use after
scheduling, the requests preempted; and per request the step of its first token and of its finish.

Which trace holds which of vLLM's rules (each fails when its rule is missing):
- long_prompts_kv_pressure: a waiting request is admitted only when blocks for its whole prompt fit
  (``scheduler_reserve_full_isl``); the *_gate_off twin checks the first chunk only, as with the setting off.
- prefix_shared_t0: a full block is cached when it is allocated, so a request admitted later in the same step reuses it.
- long_prefill_threshold / long_prefill_threshold_alone: ``long_prefill_token_threshold`` caps each prefill chunk,
  except while a request is the only one running or waiting.
- preempted_resume_reuses_output: full blocks of generated tokens are cached too, and reused on resuming.
- eviction_order: freed uncached blocks go to the head of vLLM's free queue and cached ones to its tail
  (``BlockPool.free_blocks``), so a cached prefix freed early outlives private blocks freed later; a single LRU queue
  for both fails it at step 6.
- the rest (short_mixed, chunked_long_prompt, max_num_seqs_queue, decode_kv_pressure, prefix_staggered) hold the
  core loop; the two 220-request lognormal runs (2,161 and 1,896 steps, 37 and 25 preemptions) hold everything at
  once and fail without the full-prompt gate, and the prefix one without caching on allocation or output blocks.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from apps.simulators.engine.engine import Engine
from apps.simulators.engine.scheduler import SchedulerConfig
from apps.simulators.engine.workload import Workload

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


def one_second_a_step(n, ctx):
    return 1.0


def run_engine(trace: dict) -> Engine:
    requests, config = trace["requests"], trace["config"]
    workload = Workload(
        np.array([float(r["arrival_step"]) for r in requests]),
        np.array([r["prompt"] for r in requests]),
        np.array([r["output"] for r in requests]),
        np.array([r.get("prefix_group", -1) for r in requests]),
        np.array([r.get("prefix_tokens", 0) for r in requests]),
    )
    engine = Engine(workload, SchedulerConfig(
        max_num_seqs=config["max_num_seqs"], max_num_batched_tokens=config["max_num_batched_tokens"],
        prefix_caching=config["enable_prefix_caching"], block_size=config["block_size"],
        num_blocks=config["num_blocks"], long_prefill_token_threshold=config["long_prefill_token_threshold"],
        scheduler_reserve_full_isl=config["scheduler_reserve_full_isl"]), one_second_a_step, trace_steps=True)
    engine.assign_all()
    engine.advance()
    return engine


def engine_steps(engine: Engine) -> list[dict]:
    assert engine.step_tokens is not None
    return [{"tokens": {str(r): k for r, k in sorted(tokens.items())}, "waiting": waiting, "running": running,
             "kv_blocks_used": used, "preempted": preempted}
            for tokens, preempted, (_, waiting, running, used, _, _) in
            zip(engine.step_tokens, engine.step_preempted, engine.series, strict=True)]


def engine_requests(engine: Engine) -> list[dict]:
    step_of = {end: k + 1 for k, (end, *_rest) in enumerate(engine.series)}
    return [{"first_token_step": step_of[first], "finish_step": step_of[finish], "preemptions": int(pre)}
            for first, finish, pre in zip(engine.first_t, engine.finish_t, engine.preempted, strict=True)]


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_the_engine_schedules_every_step_as_vllm_does(path):
    trace = json.loads(path.read_text())
    engine = run_engine(trace)
    ours, theirs = engine_steps(engine), trace["steps"]
    for k, (mine, vllm) in enumerate(zip(ours, theirs, strict=False), start=1):
        assert mine == vllm, f"step {k} of {len(theirs)} differs from {trace['recorded_with']}"
    assert len(ours) == len(theirs)
    assert engine_requests(engine) == trace["per_request"]
    assert not any(math.isnan(t) for t in engine.finish_t)


def test_the_traces_cover_every_rule_and_a_long_mixed_run():
    names = {p.stem for p in GOLDEN}
    assert {"long_prompts_kv_pressure", "prefix_shared_t0", "long_prefill_threshold", "long_prefill_threshold_alone",
            "preempted_resume_reuses_output", "eviction_order"} <= names
    long_runs = [json.loads(p.read_text()) for p in GOLDEN if p.stem.startswith("lognormal")]
    assert long_runs and all(len(t["requests"]) >= 200 for t in long_runs)
