"""Production's gunicorn settings (apps.core.gunicorn_conf), on a real gunicorn."""

import os
import urllib.request
from pathlib import Path

import pytest

from tests.support.servers import Gunicorn

LISTEN = "0A"  # the TCP state LISTEN in /proc/net/tcp


def listening_sockets(port: int) -> int:
    """How many sockets listen on 127.0.0.1:``port``, each counted once (the kernel lists every socket)."""
    local = f"0100007F:{port:04X}"
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(1 for row in rows if row.split()[1] == local and row.split()[3] == LISTEN)


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="reads Linux's socket table")
def test_each_worker_listens_on_its_own_socket(transactional_db):
    """With one shared socket the worker that woke first took a burst of new connections (6 of 8 kept-alive clients
    on one of four workers, the other three idle). With a socket per worker (SO_REUSEPORT) the kernel spreads them."""
    server = Gunicorn(workers=3)
    try:
        assert listening_sockets(server.port) == 3
        for _ in range(6):
            with urllib.request.urlopen(f"{server.url}/api/v1/ping/", timeout=10) as response:
                assert response.status == 200
    finally:
        server.stop()
