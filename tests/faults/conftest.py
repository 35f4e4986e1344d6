"""Fault tests reuse the security suite's tiny curriculum."""

from tests.security.conftest import content  # noqa: F401
