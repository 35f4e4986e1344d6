from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef
from rest_framework import permissions

AUTHORS_GROUP = "authors"
# Set on a user by the authentication that loaded it with its group membership (apps.core.authentication).
AUTHOR_FLAG = "_in_authors_group"


def authors_group_member(user_ref: str) -> Exists:
    """``EXISTS`` the user named by the outer column ``user_ref`` is in the authors group: to annotate the query
    that loads the user, so that ``is_author`` needs no query of its own."""
    membership = get_user_model().groups.through
    return Exists(membership.objects.filter(user_id=OuterRef(user_ref), group__name=AUTHORS_GROUP))


def is_author(user) -> bool:
    """Authors (the `authors` group) and superusers may change content. Free when the user was loaded with its
    membership (token authentication does so on every request); otherwise one query."""
    if not user or not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    known = getattr(user, AUTHOR_FLAG, None)
    if known is not None:
        return known
    return user.groups.filter(name=AUTHORS_GROUP).exists()


class IsAuthorOrReadOnly(permissions.BasePermission):
    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        return is_author(request.user)
