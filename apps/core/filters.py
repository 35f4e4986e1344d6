"""Query-string filters that name what they refuse: ``?kind=`` (a filter given with no value) is a 400 naming
``kind``, where django-filter reads it as no filter at all and lists everything."""

import django_filters


class StrictFilterSet(django_filters.FilterSet):
    def is_valid(self) -> bool:
        valid = super().is_valid()
        for name in self.filters:
            if name in self.data and not str(self.data.get(name)).strip():
                self.form.add_error(name, "must not be empty; leave the parameter out to skip this filter")
                valid = False
        return valid
