import uuid

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    """Imports and exports share one shape of job (FileJob): the import's upload is its file."""

    dependencies = [
        ('flashcards', '0018_import_csv'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameField(model_name='importjob', old_name='upload', new_name='file'),
        migrations.RenameField(model_name='importjob', old_name='upload_bytes', new_name='file_bytes'),
        migrations.AlterField(
            model_name='importjob',
            name='progress',
            field=models.FloatField(default=0.0, help_text='0 to 1'),
        ),
        migrations.AlterField(
            model_name='importjob',
            name='error',
            field=models.JSONField(blank=True, help_text='{detail, fields}: why the job failed', null=True),
        ),
        migrations.CreateModel(
            name='ExportJob',
            fields=[
                ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed'), ('applied', 'Applied'), ('discarded', 'Discarded')], default='queued', max_length=10)),
                ('progress', models.FloatField(default=0.0, help_text='0 to 1')),
                ('file', models.BinaryField(default=bytes, editable=False)),
                ('file_bytes', models.PositiveBigIntegerField(default=0)),
                ('error', models.JSONField(blank=True, help_text='{detail, fields}: why the job failed', null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('format', models.CharField(choices=[('json', "The kit's JSON collection file"), ('csv', 'One Anki-ready CSV file'), ('apkg', 'An Anki package')], max_length=8)),
                ('cards', models.PositiveIntegerField(default=0, help_text='Cards in the file')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='export_jobs', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-created_at'],
                'abstract': False,
                'constraints': [models.UniqueConstraint(condition=models.Q(('status__in', ['queued', 'running'])), fields=('user',), name='one_active_export_per_learner')],
            },
        ),
    ]
