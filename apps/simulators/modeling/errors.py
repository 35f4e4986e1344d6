"""The one error the modeling package raises for bad input."""

from __future__ import annotations


class ModelInputError(ValueError):
    """An input the models cannot use; `field` names it so the API can say which."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")
