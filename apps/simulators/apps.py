from django.apps import AppConfig


class SimulatorsConfig(AppConfig):
    name = "apps.simulators"
