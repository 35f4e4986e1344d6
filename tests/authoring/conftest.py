"""The authoring API tests' fixtures (defined in api_fixtures.py): content, client_for, superuser_client."""

from .api_fixtures import client_for, content, fast_passwords, superuser_client  # noqa: F401
