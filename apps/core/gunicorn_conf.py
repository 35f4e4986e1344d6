"""gunicorn hooks for production mode (``gunicorn -c python:apps.core.gunicorn_conf``).

With PROMETHEUS_MULTIPROC_DIR set, each worker writes its metrics to files there and /metrics sums them; a worker
that exits is marked dead so its live gauges stop counting.
"""

import os

# On a reload (SIGHUP) or stop (SIGTERM) an old worker stops accepting and finishes what it holds: as long as the
# longest request may run (the worker --timeout, 60 s in production), so no answer is cut off mid-way. Its kept-alive
# connections get gunicorn's short stop linger, and a request sent on one meanwhile is answered with
# "Connection: close" (tests/faults/test_gunicorn_reload.py).
graceful_timeout = 60


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
