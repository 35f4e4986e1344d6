"""Hypothesis invariants: monotonic in batch and context, finite and non-negative, vectorized == scalar."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.simulators.modeling import kv_bytes_per_sequence, load_gpus, load_models, step_time

MODELS = load_models()
GPUS = load_gpus()
SLUGS = sorted(MODELS)
GPU_SLUGS = sorted(GPUS)

model_st = st.sampled_from(SLUGS)
gpu_st = st.sampled_from(GPU_SLUGS)
tp_st = st.sampled_from([1, 2, 4, 8])
batch_st = st.integers(1, 4096)
ctx_st = st.integers(0, 200_000)
FAST = settings(max_examples=40, deadline=None)




def _finite_non_negative(r):
    for name in ("flops_per_gpu", "bytes_per_gpu", "compute_time_s", "memory_time_s",
                 "communication_time_s", "step_time_s", "tokens_per_s", "crossover_batch"):
        v = np.asarray(getattr(r, name))
        assert np.all(np.isfinite(v)) and np.all(v >= 0), name


@FAST
@given(model_st, gpu_st, tp_st, batch_st, batch_st, ctx_st)
def test_step_time_monotonic_in_batch(slug, gpu, tp, b1, b2, ctx):
    lo, hi = sorted((b1, b2))
    r = step_time(MODELS[slug], GPUS[gpu], batch=[lo, hi], context_tokens=ctx, tp=tp)
    _finite_non_negative(r)
    assert r.step_time_s[0] <= r.step_time_s[1] * (1 + 1e-12)


@FAST
@given(model_st, gpu_st, tp_st, batch_st, ctx_st, ctx_st, st.integers(1, 4096))
def test_step_time_monotonic_in_context(slug, gpu, tp, b, c1, c2, new):
    lo, hi = sorted((c1, c2))
    r = step_time(MODELS[slug], GPUS[gpu], batch=b, context_tokens=[lo, hi], new_tokens=new, tp=tp)
    _finite_non_negative(r)
    assert r.step_time_s[0] <= r.step_time_s[1] * (1 + 1e-12)
    assert np.all(np.asarray(r.step_time_s_range[0]) <= r.step_time_s)
    assert np.all(np.asarray(r.step_time_s_range[1]) >= r.step_time_s)


@FAST
@given(model_st, gpu_st, tp_st, st.lists(batch_st, min_size=1, max_size=5), ctx_st)
def test_vectorized_equals_scalar(slug, gpu, tp, batches, ctx):
    vec = step_time(MODELS[slug], GPUS[gpu], batch=batches, context_tokens=ctx, tp=tp)
    for i, b in enumerate(batches):
        one = step_time(MODELS[slug], GPUS[gpu], batch=b, context_tokens=ctx, tp=tp)
        assert one.step_time_s == pytest.approx(float(np.atleast_1d(vec.step_time_s)[i]), rel=1e-12)
        assert one.bound == np.atleast_1d(vec.bound)[i]


@FAST
@given(model_st, st.integers(1, 1_000_000), st.integers(1, 1_000_000), tp_st,
       st.sampled_from(["bf16", "fp8", "int4", "mxfp4", "fp32"]))
def test_kv_monotonic_finite_and_vectorized(slug, c1, c2, tp, dtype):
    lo, hi = sorted((c1, c2))
    vec = kv_bytes_per_sequence(MODELS[slug], [lo, hi], dtype, tp)
    assert np.all(np.isfinite(vec)) and 0 < vec[0] <= vec[1]
    assert kv_bytes_per_sequence(MODELS[slug], lo, dtype, tp) == vec[0]
