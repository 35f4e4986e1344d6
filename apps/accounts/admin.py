from django.contrib import admin

from apps.accounts.models import Profile

admin.site.register(Profile)
