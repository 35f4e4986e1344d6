"""gunicorn hooks for production mode (``gunicorn -c python:apps.core.gunicorn_conf``).

With PROMETHEUS_MULTIPROC_DIR set, each worker writes its metrics to files there and /metrics sums them; a worker
that exits is marked dead so its live gauges stop counting.
"""

import os


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
