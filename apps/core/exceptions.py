"""The errors services raise. Services know nothing of HTTP; the API layer (apps.core.errors) turns each class
into the one error body with its status code, so a rule like "a replayed answer is a conflict" lives in one place."""

from __future__ import annotations


class DomainError(Exception):
    """A request that the domain refuses. `field` names the input at fault (dotted for nested fields)."""

    status_code = 400
    code = "invalid"

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidInput(DomainError):
    status_code = 400
    code = "validation_error"


class NotFound(DomainError):
    status_code = 404
    code = "not_found"


class Conflict(DomainError):
    status_code = 409
    code = "conflict"


class TooManyRequests(DomainError):
    status_code = 429
    code = "too_many_requests"


class Unavailable(DomainError):
    status_code = 503
    code = "service_unavailable"
