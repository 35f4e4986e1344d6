"""The Lab page registry is the one list: the web client's copy is generated from it, and every page has its API."""

from django.urls import Resolver404, resolve

from apps.core.management.commands.export_lab_pages import TARGET, lab_pages_json
from apps.core.registry import LAB_PAGES, SIMULATORS, simulator_errors


def test_the_web_client_reads_the_registry_as_generated():
    assert TARGET.read_text(encoding="utf-8") == lab_pages_json(), "run: python manage.py export_lab_pages"


def test_every_lab_page_has_its_simulator_endpoint():
    missing = []
    for name, _ in LAB_PAGES:
        try:
            resolve(f"/api/v1/simulators/{name}/")
        except Resolver404:
            missing.append(name)
    assert not missing


def test_content_may_link_only_to_registered_simulators():
    assert simulator_errors(["kv-cache", "engine"]) == []
    assert simulator_errors(["warp-drive"]) == [
        f"unknown simulator: 'warp-drive'; use one of {', '.join(sorted(SIMULATORS))}"]
    assert simulator_errors("kv-cache") != []
