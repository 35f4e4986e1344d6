"""The admin's names for every model read as English: Django makes a plural by adding "s", which turns a name that
already ends in "s" into "Chapter progresss" or "Srs settingss"."""

from django.contrib import admin


def test_no_model_is_named_in_the_admin_with_a_doubled_plural_s():
    registered = list(admin.site._registry)
    assert len(registered) > 10
    doubled = [f"{model._meta.app_label}.{model.__name__}: {model._meta.verbose_name_plural}" for model in registered
               if str(model._meta.verbose_name).endswith("s")
               and str(model._meta.verbose_name_plural) == f"{model._meta.verbose_name}s"]
    assert not doubled, doubled
