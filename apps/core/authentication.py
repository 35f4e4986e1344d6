"""Token authentication that also learns, in the same query, whether the user is an author.

``is_author`` is asked on most signed-in requests (which drafts a reader sees, which cached body they get). Asking
the database separately cost a query per request (two on parts). Here the token lookup carries an ``EXISTS`` for the
authors group, so the answer is as fresh as the user row itself: read at the start of every request, never cached
across requests, and a revoked author is a learner on the very next request.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from apps.core.permissions import AUTHOR_FLAG, authors_group_member


class TokenAuthentication(authentication.TokenAuthentication):
    def authenticate_credentials(self, key):
        model = self.get_model()
        tokens = model.objects.select_related("user").annotate(user_is_author=authors_group_member("user_id"))
        try:
            token = tokens.get(key=key)
        except model.DoesNotExist:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        setattr(token.user, AUTHOR_FLAG, token.user_is_author)
        return (token.user, token)
