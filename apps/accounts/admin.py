from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import Group

from apps.accounts.models import Profile
from apps.core.permissions import AUTHORS_GROUP

admin.site.register(Profile)

User = get_user_model()


class AccountAdmin(UserAdmin):
    """Users, with one-click author roles: the `authors` group (content permissions only) plus staff status,
    which the admin needs for login."""

    actions = ["make_authors", "revoke_authors"]

    @admin.action(description="Make selected users authors (admin access to content only)", permissions=["change"])
    def make_authors(self, request, queryset) -> None:
        group = Group.objects.get_or_create(name=AUTHORS_GROUP)[0]
        for user in queryset:
            user.groups.add(group)
        count = queryset.update(is_staff=True)
        self.message_user(request, f"{count} user(s) are now authors.", messages.SUCCESS)

    @admin.action(description="Revoke the author role of selected users", permissions=["change"])
    def revoke_authors(self, request, queryset) -> None:
        group = Group.objects.filter(name=AUTHORS_GROUP).first()
        for user in queryset:
            if group is not None:
                user.groups.remove(group)
        count = queryset.filter(is_superuser=False).update(is_staff=False)
        self.message_user(request, f"{count} user(s) are no longer authors.", messages.SUCCESS)


if admin.site.is_registered(User):
    admin.site.unregister(User)
admin.site.register(User, AccountAdmin)
