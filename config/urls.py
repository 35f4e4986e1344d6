from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularSwaggerSplitView

from apps.core import views as core_views
from apps.core.errors import api_or_html_handler

api_v1 = [
    path("health/", core_views.health, name="health"),
    path("ping/", core_views.ping, name="ping"),
    path("auth/", include("apps.accounts.urls")),
    path("", include("apps.courses.urls")),
    path("", include("apps.glossary.urls")),
    path("", include("apps.quiz.urls")),
    path("", include("apps.flashcards.urls")),
    path("", include("apps.search.urls")),
    path("", include("apps.plans.urls")),
    path("", include("apps.exercises.urls")),
    path("simulators/", include("apps.simulators.api.urls")),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("api/schema/", core_views.CachedSchemaView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as its own file, so the page runs under script-src 'self'.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("", include("django_prometheus.urls")),
    re_path(r"^api/", api_or_html_handler(404, "not_found", "No such API endpoint.")),
    re_path(r"^(?!static/|admin/|api/)(?P<path>.*)$", core_views.spa_index, name="spa"),
]

handler400 = api_or_html_handler(400, "bad_request", "Bad request.")
handler403 = api_or_html_handler(403, "forbidden", "Forbidden.")
handler404 = api_or_html_handler(404, "not_found", "Not found.")
handler500 = api_or_html_handler(500, "server_error", "Server error.")
