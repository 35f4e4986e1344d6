"""Every log line about a request carries its id, the 404 and 400 warnings Django writes after the middleware
has finished included, so an incident can be traced from a client's X-Request-ID to the server's lines."""

import io
import json
import logging

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def log_lines():
    """A copy of the configured console handler (same filters, same JSON formatter) writing into memory."""
    root = logging.getLogger()
    console = next(handler for handler in root.handlers if type(handler.formatter).__name__ == "JsonFormatter")
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(console.formatter)
    for log_filter in console.filters:
        handler.addFilter(log_filter)
    root.addHandler(handler)
    try:
        yield lambda: [json.loads(line) for line in buffer.getvalue().splitlines() if line.strip()]
    finally:
        root.removeHandler(handler)


@pytest.mark.parametrize(("method", "path", "body", "status", "reason"), [
    ("get", "/api/v1/no-such-endpoint/", None, 404, "Not Found"),
    ("get", "/api/v1/chapters/no-such-chapter/", None, 404, "Not Found"),
    ("post", "/api/v1/auth/token/", "{not json", 400, "Bad Request"),
])
def test_warning_lines_for_client_errors_carry_the_request_id(client, log_lines, method, path, body, status, reason):
    request_id = f"trace-{status}-{abs(hash(path)) % 10_000}"
    extra = {"data": body, "content_type": "application/json"} if body is not None else {}
    response = getattr(client, method)(path, HTTP_X_REQUEST_ID=request_id, **extra)
    assert response.status_code == status
    assert response["X-Request-ID"] == request_id
    warnings = [line for line in log_lines() if line["level"] == "WARNING" and line["message"].startswith(reason)]
    assert warnings, log_lines()
    assert all(line["request_id"] == request_id for line in warnings), warnings
