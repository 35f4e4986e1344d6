"""The `authors` group: change rights on content only, kept in step with the content models after each migrate."""

from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType

from apps.core.permissions import AUTHORS_GROUP

CONTENT_MODELS = [
    ("courses", "part"),
    ("courses", "chapter"),
    ("glossary", "term"),
    ("quiz", "topic"),
    ("quiz", "question"),
    ("quiz", "numbertomemorize"),
    ("quiz", "diagnosisscenario"),
    ("simulators", "modelconfig"),
    ("simulators", "gpu"),
]


def ensure_authors_group(**kwargs) -> Group:
    group, _ = Group.objects.get_or_create(name=AUTHORS_GROUP)
    wanted = []
    for app_label, model in CONTENT_MODELS:
        content_type = ContentType.objects.filter(app_label=app_label, model=model).first()
        if content_type is None:
            continue
        wanted.extend(Permission.objects.filter(content_type=content_type))
        history = ContentType.objects.filter(app_label=app_label, model=f"historical{model}").first()
        if history is not None:
            wanted.extend(Permission.objects.filter(content_type=history, codename__startswith="view_"))
    if set(group.permissions.all()) != set(wanted):
        group.permissions.set(wanted)
    return group


def staff_follows_authors_group(sender, instance, action, pk_set, reverse, **kwargs):
    """Joining `authors` (however it happens: admin form, action, shell) grants admin access; leaving revokes it."""
    if reverse or action not in {"post_add", "post_remove", "post_clear"}:
        return
    is_author_now = instance.groups.filter(name=AUTHORS_GROUP).exists()
    if instance.is_superuser or instance.is_staff == is_author_now:
        return
    type(instance).objects.filter(pk=instance.pk).update(is_staff=is_author_now)
    instance.is_staff = is_author_now
