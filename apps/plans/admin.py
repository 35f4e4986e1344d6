from django.contrib import admin

from apps.plans.models import StudyPlan


@admin.register(StudyPlan)
class StudyPlanAdmin(admin.ModelAdmin):
    list_display = ("user", "interview_date", "minutes_per_day", "level")
    raw_id_fields = ("user",)
