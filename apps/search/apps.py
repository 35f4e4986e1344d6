from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "apps.search"
