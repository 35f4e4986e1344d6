"""PostgreSQL backend whose per-request health check costs no round trip while the connection is healthy.

Django's health check runs ``SELECT 1`` before each request's first query on a kept connection: under load that round
trip was the largest single cost of a cached read (31 % of a chapter page's busy time, benchmarks/README.md). An idle,
healthy connection has nothing to read; a server that ended it (a restart, an administrator's termination, an idle
timeout) has sent its error and closed the socket, which makes the socket readable. So a socket with nothing to read
passes at once, and only a readable one pays for the real ``SELECT 1``, which then decides.
"""

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self):
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        try:
            readable, _, _ = select.select([connection.pgconn.socket], [], [], 0)
        except (OSError, ValueError, base.Database.Error):
            return False
        return not readable or super().is_usable()
