from django.conf import settings
from django.contrib.auth import authenticate, login, logout
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authentication import CSRFCheck
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts import services
from apps.accounts.serializers import (
    LoginSerializer,
    MeSerializer,
    ReadingSettingsSerializer,
    RegisteredSerializer,
    RegisterSerializer,
    TokenSerializer,
)
from apps.core.errors import error_body
from apps.core.throttling import LOGIN_THROTTLES, LoginAddressThrottle, remember_sign_in

# Sign-in attempts: per client address, per account and address, per account from new addresses
# (apps/core/throttling.py). Registration: per address (the same budget).
SIGN_IN_THROTTLES = list(LOGIN_THROTTLES)


def _enforce_csrf(request) -> None:
    check = CSRFCheck(lambda req: None)
    check.process_request(request._request)
    reason = check.process_view(request._request, None, (), {})
    if reason:
        raise PermissionDenied(f"CSRF failed: {reason}")


def _from_a_browser(request) -> bool:
    """A request a browser could have been made to send: it carries our cookies or a browser's origin headers.

    A forged request rides on the victim's browser, which sends our cookies if it has any and, in every current
    browser, `Origin` on a POST and `Sec-Fetch-Site`. A client that sends none of them (curl, a generated API client)
    has nothing to forge, so it needs no CSRF token.
    """
    cookies = request.COOKIES
    if settings.SESSION_COOKIE_NAME in cookies or settings.CSRF_COOKIE_NAME in cookies:
        return True
    return "HTTP_ORIGIN" in request.META or "HTTP_SEC_FETCH_SITE" in request.META


class CsrfProtectedView(APIView):
    """Session endpoints check CSRF even before anyone is logged in (login CSRF)."""

    def initial(self, request, *args, **kwargs):
        if self.needs_csrf(request):
            _enforce_csrf(request)
        super().initial(request, *args, **kwargs)

    def needs_csrf(self, request) -> bool:
        return True


def _authenticate_or_400(request, data):
    user = authenticate(request, username=data["username"], password=data["password"])
    if user is None:
        return None, Response(
            error_body("invalid_credentials", "Wrong username or password.", {"password": ["Wrong username or password."]}),
            status=status.HTTP_400_BAD_REQUEST,
        )
    return user, None


@method_decorator(ensure_csrf_cookie, name="dispatch")
class CsrfView(APIView):
    """Sets the csrftoken cookie the web client echoes back in X-CSRFToken."""

    authentication_classes = []

    @extend_schema(responses={204: None}, summary="Set the CSRF cookie (browsers only; API clients need no CSRF)")
    def get(self, request):
        return Response(status=status.HTTP_204_NO_CONTENT)


class RegisterView(CsrfProtectedView):
    """Creates the account. A browser (our sign-up form: it holds our cookies or sends Origin, and passed the CSRF
    check) is signed in with a session; any other client gets no cookie, so a cookie-keeping HTTP client stays an
    anonymous caller that needs no CSRF token, and asks for a token (`issue_token`) to act as the new user."""

    authentication_classes = []
    throttle_classes = [LoginAddressThrottle]

    def needs_csrf(self, request) -> bool:
        return _from_a_browser(request)

    @extend_schema(
        request=RegisterSerializer,
        responses={201: RegisteredSerializer},
        summary="Create an account; a browser is signed in with a session, other clients get a token on request "
                "(CSRF token needed only when the request carries cookies or comes from a browser)",
    )
    def post(self, request):
        serializer = RegisterSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        issue_token = data.pop("issue_token", False)
        user = services.register_user(**data)
        if _from_a_browser(request):
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        body = services.describe_user(user)
        if issue_token:
            body["token"] = Token.objects.get_or_create(user=user)[0].key
        return Response(body, status=status.HTTP_201_CREATED)


class LoginView(CsrfProtectedView):
    """Session sign-in for browsers; always CSRF-checked (API clients use the token endpoint instead)."""

    authentication_classes = []
    throttle_classes = SIGN_IN_THROTTLES

    @extend_schema(request=LoginSerializer, responses={200: MeSerializer})
    def post(self, request):
        serializer = LoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user, error = _authenticate_or_400(request, serializer.validated_data)
        if error:
            return error
        login(request, user)
        return Response(services.describe_user(user))


class LogoutView(CsrfProtectedView):
    @extend_schema(request=None, responses={204: None})
    def post(self, request):
        logout(request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenView(APIView):
    """Token for API consumers: POST username and password, send `Authorization: Token <key>`."""

    authentication_classes = []
    throttle_classes = SIGN_IN_THROTTLES

    @extend_schema(request=LoginSerializer, responses={200: TokenSerializer})
    def post(self, request):
        serializer = LoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user, error = _authenticate_or_400(request, serializer.validated_data)
        if error:
            return error
        remember_sign_in(request, user.get_username())
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


class MeView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: MeSerializer})
    def get(self, request):
        return Response(services.describe_user(request.user))


class ReadingSettingsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: ReadingSettingsSerializer})
    def get(self, request):
        return Response(services.reading_settings(request.user))

    @extend_schema(request=ReadingSettingsSerializer, responses={200: ReadingSettingsSerializer})
    def patch(self, request):
        serializer = ReadingSettingsSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        return Response(services.update_reading_settings(request.user, serializer.validated_data))
