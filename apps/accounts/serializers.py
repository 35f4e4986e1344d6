from django.contrib.auth import get_user_model, password_validation
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

User = get_user_model()

READING_CHOICES = {
    "theme": ["system", "light", "dark"],
    "text_size": ["small", "medium", "large", "x-large"],
    "reading_width": ["narrow", "medium", "wide"],
    "line_spacing": ["compact", "normal", "relaxed"],
    "density": ["compact", "comfortable"],
}


class RegisterSerializer(serializers.Serializer):
    username = serializers.RegexField(r"^[\w.@+-]{3,150}$", max_length=150)
    email = serializers.EmailField(required=False, allow_blank=True, max_length=254)
    password = serializers.CharField(write_only=True, max_length=128, trim_whitespace=False)
    issue_token = serializers.BooleanField(
        required=False, default=False, help_text="Also answer with an API token (`Authorization: Token <key>`)"
    )

    def validate_username(self, value):
        if User.objects.filter(username__iexact=value).exists():
            raise serializers.ValidationError("A user with that username already exists.")
        return value

    def validate(self, attrs):
        candidate = User(username=attrs["username"], email=attrs.get("email", ""))
        try:
            password_validation.validate_password(attrs["password"], candidate)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"password": list(exc.messages)}) from exc
        return attrs


class LoginSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False, write_only=True)


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(read_only=True)


class ReadingSettingsSerializer(serializers.Serializer):
    theme = serializers.ChoiceField(READING_CHOICES["theme"], required=False)
    text_size = serializers.ChoiceField(READING_CHOICES["text_size"], required=False)
    reading_width = serializers.ChoiceField(READING_CHOICES["reading_width"], required=False)
    line_spacing = serializers.ChoiceField(READING_CHOICES["line_spacing"], required=False)
    density = serializers.ChoiceField(READING_CHOICES["density"], required=False)
    reduced_motion = serializers.BooleanField(required=False)


class MeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    email = serializers.CharField()
    is_author = serializers.BooleanField()
    reading_settings = ReadingSettingsSerializer()


class RegisteredSerializer(MeSerializer):
    token = serializers.CharField(required=False, help_text="The API token, present when `issue_token` was true")
