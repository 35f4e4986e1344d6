from django.urls import path

from apps.accounts import views

urlpatterns = [
    path("csrf/", views.CsrfView.as_view(), name="auth-csrf"),
    path("register/", views.RegisterView.as_view(), name="auth-register"),
    path("login/", views.LoginView.as_view(), name="auth-login"),
    path("logout/", views.LogoutView.as_view(), name="auth-logout"),
    path("token/", views.TokenView.as_view(), name="auth-token"),
    path("me/", views.MeView.as_view(), name="auth-me"),
    path("me/reading-settings/", views.ReadingSettingsView.as_view(), name="auth-reading-settings"),
]
