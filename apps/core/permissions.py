from rest_framework import permissions

AUTHORS_GROUP = "authors"


def is_author(user) -> bool:
    """Authors (the `authors` group) and superusers may change content."""
    if not user or not user.is_authenticated:
        return False
    return user.is_superuser or user.groups.filter(name=AUTHORS_GROUP).exists()


class IsAuthorOrReadOnly(permissions.BasePermission):
    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        return is_author(request.user)
