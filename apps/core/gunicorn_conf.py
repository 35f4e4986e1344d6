"""gunicorn hooks for production mode (``gunicorn -c python:apps.core.gunicorn_conf``).

With PROMETHEUS_MULTIPROC_DIR set, each worker writes its metrics to files there and /metrics sums them; a worker
that exits is marked dead so its live gauges stop counting.
"""

import os


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)

# Each worker listens on its own socket (SO_REUSEPORT) and the kernel spreads new connections over them. On one shared
# socket, whichever worker woke first took a burst of new connections: 6 of 8 kept-alive clients sat on one worker, and
# the page was served at one process's speed while three idled (benchmarks/README.md, "Connections spread over the
# workers").
reuse_port = True
