import pytest


@pytest.mark.django_db
def test_metrics_endpoint_exposes_latency_queue_depth_and_jobs(client, make_user):
    from apps.simulators.models import SweepJob

    SweepJob.objects.create(user=make_user(), request={}, total_points=4, status="succeeded")
    client.get("/api/v1/health/")
    response = client.get("/metrics")
    assert response.status_code == 200
    text = response.content.decode()
    assert "django_http_requests_latency_seconds_by_view_method" in text
    assert 'llmkit_jobs{kind="sweep",status="succeeded"} 1.0' in text
    assert "llmkit_celery_queue_depth" in text
