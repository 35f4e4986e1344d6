"""A field an endpoint does not take is refused, named, at any depth: never a result computed without it."""

import pytest
from api_helpers import load_real_catalog

pytestmark = pytest.mark.django_db
BASE = "/api/v1/simulators"
WORKLOAD = {"num_requests": 5, "arrival_rate_per_s": 5, "prompt_tokens": 100, "output_tokens": 10}


@pytest.fixture(autouse=True)
def catalog(db):
    return load_real_catalog()


@pytest.mark.parametrize(("endpoint", "body", "field"), [
    ("step-time", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "context_tokens": 1024, "dtype": "fp4"}, "dtype"),
    ("engine", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "workload": WORKLOAD,
                "long_prefil_token_threshold": 256}, "long_prefil_token_threshold"),
    ("engine", {"model": "llama-3.1-8b", "gpu": "h100-sxm",
                "workload": {**WORKLOAD, "prompt_tokenz": 100}}, "workload.prompt_tokenz"),
    ("engine", {"model": "llama-3.1-8b", "workload": WORKLOAD, "gpu_spec": {
        "memory_bytes": 80e9, "hbm_bandwidth_bytes_per_s": 3.35e12, "bf16_dense_flops": 989e12,
        "interconnect_bandwidth_bytes_per_s": 900e9, "hbm_gb": 80}}, "gpu_spec.hbm_gb"),
])
def test_an_unknown_field_is_a_400_naming_it(api_client, endpoint, body, field):
    response = api_client.post(f"{BASE}/{endpoint}/", body, format="json")
    assert response.status_code == 400, response.json()
    assert field in response.json()["fields"], response.json()
    known = {key: value for key, value in body.items() if key != field}
    if "." not in field:  # the same request without it is answered: the field alone was the problem
        assert api_client.post(f"{BASE}/{endpoint}/", known, format="json").status_code == 200


def test_a_catalog_row_read_and_written_back_keeps_working(author_client):
    """A model serializer knows its model's fields: the read row's updated_at and source_file are not unknown."""
    row = author_client.get(f"{BASE}/models/opt-13b/").json()
    assert "updated_at" in row
    assert author_client.post(f"{BASE}/models/", {**row, "slug": "opt-13b-again"}, format="json").status_code == 201
    response = author_client.post(f"{BASE}/models/", {**row, "slug": "opt-13b-third", "layers": 40}, format="json")
    assert response.status_code == 400 and "layers" in response.json()["fields"]
