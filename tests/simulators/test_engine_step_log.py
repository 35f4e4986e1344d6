"""The engine's step log, which the batching stepper replays: each step as the scheduler ran it (no database)."""

import numpy as np
import pytest

from apps.simulators.engine.metrics import step_log
from apps.simulators.engine.workload import Workload
from tests.simulators.test_engine_scheduler import run, two_requests


def test_two_requests_step_by_step():
    e = run(two_requests())
    # Block size 4. Step 1 prefills A (4) and B (6) = 10 tokens in 0.2 s, A holding 1 block and B 2. Steps 2-3
    # decode one token each (0.12 s): A's context 5 then 6 needs 2 blocks, B's 7 then 8 needs 2: 4 blocks.
    # Both are admitted in step 1; nothing is held back.
    assert step_log(e, 10) == [
        {"step": 1, "end_s": pytest.approx(0.2), "duration_s": pytest.approx(0.2), "waiting": 0, "running": 2,
         "kv_blocks_used": 3, "tokens": 10, "held_back": None,
         "admitted": [{"request": 0, "prompt_tokens": 4}, {"request": 1, "prompt_tokens": 6}]},
        {"step": 2, "end_s": pytest.approx(0.32), "duration_s": pytest.approx(0.12), "waiting": 0, "running": 2,
         "kv_blocks_used": 4, "tokens": 2, "admitted": [], "held_back": None},
        {"step": 3, "end_s": pytest.approx(0.44), "duration_s": pytest.approx(0.12), "waiting": 0, "running": 2,
         "kv_blocks_used": 4, "tokens": 2, "admitted": [], "held_back": None},
    ]


def test_a_queue_forms_when_one_sequence_runs_at_a_time():
    e = run(two_requests(), max_num_seqs=1)
    log = step_log(e, 2)
    # A runs alone (prefill, then two decodes) while B waits; the log stops at the steps asked for.
    assert [(row["running"], row["waiting"], row["tokens"]) for row in log] == [(1, 1, 4), (1, 1, 1)]


def test_a_long_prompt_is_held_back_until_its_whole_prompt_fits():
    # Blocks of 4 tokens, a pool of 10, a budget of 8. A (8-token prompt, 10 outputs) takes the whole budget in
    # step 1. From step 2, B (30 tokens: 8 blocks) is at the head of the queue: A holds ceil(9/4) = 3 blocks after its
    # decode's allocation, so 7 are free; B's first 7-token chunk would fit in 2, but its whole prompt does not.
    # A's context grows 9..17 over steps 2-10 (3, 3, 3, 3, 4, 4, 4, 4, 5 blocks); it finishes in step 10, and B is
    # admitted in step 11 with a chunk of 8.
    held = run(Workload(np.zeros(2), np.array([8, 30]), np.array([10, 3]), np.full(2, -1), np.zeros(2, np.int64)),
               max_num_batched_tokens=8, num_blocks=10)
    log = step_log(held, 12)
    assert [row["held_back"] for row in log[1:10]] == [
        {"request": 1, "tokens": 30, "blocks_needed": 8, "blocks_free": free} for free in (7, 7, 7, 7, 6, 6, 6, 6, 5)]
    assert log[0]["held_back"] is None and log[10]["held_back"] is None
    assert [row["admitted"] for row in (log[0], log[10])] == [[{"request": 0, "prompt_tokens": 8}],
                                                             [{"request": 1, "prompt_tokens": 30}]]
    assert log[10]["tokens"] == 8
    # With the gate off (vLLM's first-chunk check), B's first chunk of 7 tokens goes in at step 2.
    chunked = step_log(run(Workload(np.zeros(2), np.array([8, 30]), np.array([10, 3]), np.full(2, -1),
                                    np.zeros(2, np.int64)),
                           max_num_batched_tokens=8, num_blocks=10, scheduler_reserve_full_isl=False), 2)
    assert chunked[1]["admitted"] == [{"request": 1, "prompt_tokens": 30}] and chunked[1]["tokens"] == 8
