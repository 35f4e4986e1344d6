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
    RegisterSerializer,
    TokenSerializer,
)
from apps.core.errors import error_body
from apps.core.throttling import LoginAccountThrottle, LoginAddressThrottle

# Sign-in attempts: limited per client address and per account named. Registration: per address (same budget).
SIGN_IN_THROTTLES = [LoginAddressThrottle, LoginAccountThrottle]


class CsrfProtectedView(APIView):
    """Session endpoints check CSRF even before anyone is logged in (login CSRF)."""

    def initial(self, request, *args, **kwargs):
        check = CSRFCheck(lambda req: None)
        check.process_request(request._request)
        reason = check.process_view(request._request, None, (), {})
        if reason:
            raise PermissionDenied(f"CSRF failed: {reason}")
        super().initial(request, *args, **kwargs)


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

    @extend_schema(responses={204: None})
    def get(self, request):
        return Response(status=status.HTTP_204_NO_CONTENT)


class RegisterView(CsrfProtectedView):
    throttle_classes = [LoginAddressThrottle]

    @extend_schema(request=RegisterSerializer, responses={201: MeSerializer})
    def post(self, request):
        serializer = RegisterSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = services.register_user(**serializer.validated_data)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return Response(services.describe_user(user), status=status.HTTP_201_CREATED)


class LoginView(CsrfProtectedView):
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
