"""The errors services raise. Services know nothing of HTTP; the API layer (apps.core.errors) turns each class
into the one error body with its status code, so a rule like "a replayed answer is a conflict" lives in one place."""

from __future__ import annotations


class DomainError(Exception):
    """A request that the domain refuses. `field` names the input at fault (dotted for nested fields); `fields`
    names several at once ({"cards.3.due": ["..."]}), for checks that report every problem of a file."""

    status_code = 400
    code = "invalid"

    def __init__(self, message: str, field: str | None = None, fields: dict[str, list[str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.fields = fields if fields is not None else ({field: [message]} if field else {})

    @classmethod
    def of_fields(cls, fields: dict[str, list[str]]) -> DomainError:
        """One error naming every field at fault; its message is the first field's."""
        first = next(iter(fields), "non_field_errors")
        return cls(fields[first][0] if fields else "Invalid input.", field=first, fields=fields)


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
