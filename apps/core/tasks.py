import socket

from celery import shared_task


@shared_task(name="core.ping")
def ping(payload: str) -> dict:
    """Round trip through the broker: proves a worker is consuming."""
    return {"echo": payload, "worker": socket.gethostname()}
