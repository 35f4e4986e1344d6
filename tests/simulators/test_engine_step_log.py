"""The engine's step log, which the batching stepper replays: each step as the scheduler ran it (no database)."""

import pytest

from apps.simulators.engine.metrics import step_log
from tests.simulators.test_engine_scheduler import run, two_requests


def test_two_requests_step_by_step():
    e = run(two_requests())
    # Block size 4. Step 1 prefills A (4) and B (6) = 10 tokens in 0.2 s, A holding 1 block and B 2. Steps 2-3
    # decode one token each (0.12 s): A's context 5 then 6 needs 2 blocks, B's 7 then 8 needs 2: 4 blocks.
    assert step_log(e, 10) == [
        {"step": 1, "end_s": pytest.approx(0.2), "duration_s": pytest.approx(0.2), "waiting": 0, "running": 2,
         "kv_blocks_used": 3, "tokens": 10},
        {"step": 2, "end_s": pytest.approx(0.32), "duration_s": pytest.approx(0.12), "waiting": 0, "running": 2,
         "kv_blocks_used": 4, "tokens": 2},
        {"step": 3, "end_s": pytest.approx(0.44), "duration_s": pytest.approx(0.12), "waiting": 0, "running": 2,
         "kv_blocks_used": 4, "tokens": 2},
    ]


def test_a_queue_forms_when_one_sequence_runs_at_a_time():
    e = run(two_requests(), max_num_seqs=1)
    log = step_log(e, 2)
    # A runs alone (prefill, then two decodes) while B waits; the log stops at the steps asked for.
    assert [(row["running"], row["waiting"], row["tokens"]) for row in log] == [(1, 1, 4), (1, 1, 1)]
