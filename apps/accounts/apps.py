from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_migrate


class AccountsConfig(AppConfig):
    name = "apps.accounts"

    def ready(self):
        from django.contrib.auth import get_user_model

        # Models (the user model, groups) are importable only once apps are ready.
        from apps.accounts.roles import ensure_authors_group, staff_follows_authors_group

        def sync_group(sender, **kwargs):
            # Permissions appear per app as its migrations finish; re-sync after each of ours (idempotent).
            if sender.name.startswith("apps."):
                ensure_authors_group()

        post_migrate.connect(sync_group, weak=False, dispatch_uid="authors-group")
        m2m_changed.connect(
            staff_follows_authors_group, sender=get_user_model().groups.through, weak=False, dispatch_uid="authors-staff"
        )
