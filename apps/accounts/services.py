from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction

from apps.accounts.models import READING_DEFAULTS, Profile
from apps.core.permissions import is_author

if TYPE_CHECKING:  # the project keeps Django's own user model (no AUTH_USER_MODEL); a type needs the class itself
    from django.contrib.auth.models import User
else:
    User = get_user_model()


@transaction.atomic
def register_user(username: str, password: str, email: str = "") -> User:
    user = User.objects.create_user(username=username, email=email, password=password)
    Profile.objects.create(user=user)
    return user


def profile_for(user) -> Profile:
    profile, _ = Profile.objects.get_or_create(user=user)
    return profile


def reading_settings(user) -> dict:
    return {**READING_DEFAULTS, **profile_for(user).reading_settings}


def update_reading_settings(user, changes: dict) -> dict:
    profile = profile_for(user)
    profile.reading_settings = {**profile.reading_settings, **changes}
    profile.save(update_fields=["reading_settings"])
    return {**READING_DEFAULTS, **profile.reading_settings}


def describe_user(user) -> dict:
    return {
        "id": user.id,
        "username": user.username,
        "email": user.email,
        "is_author": is_author(user),
        "reading_settings": reading_settings(user),
    }
