from django.apps import AppConfig
from django.contrib.auth.signals import user_logged_in
from django.db.models.signals import m2m_changed, post_migrate


class AccountsConfig(AppConfig):
    name = "apps.accounts"

    def ready(self):
        from django.contrib.auth import get_user_model

        # Models (the user model, groups) are importable only once apps are ready.
        from apps.accounts.roles import ensure_authors_group, staff_follows_authors_group
        from apps.core.throttling import remember_sign_in

        def sync_group(sender, **kwargs):
            # Permissions appear per app as its migrations finish; re-sync after each of ours (idempotent).
            if sender.name.startswith("apps."):
                ensure_authors_group()

        def signed_in(sender, request, user, **kwargs):
            # Every session sign-in (API, registration, admin form) makes its address known to the account.
            if request is not None:
                remember_sign_in(request, user.get_username())

        user_logged_in.connect(signed_in, weak=False, dispatch_uid="sign-in-known-address")
        post_migrate.connect(sync_group, weak=False, dispatch_uid="authors-group")
        m2m_changed.connect(
            staff_follows_authors_group, sender=get_user_model().groups.through, weak=False, dispatch_uid="authors-staff"
        )
