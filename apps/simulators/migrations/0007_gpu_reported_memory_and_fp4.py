from django.db import migrations, models


def fields(model_name):
    return [
        migrations.AlterField(
            model_name=model_name,
            name='memory_bytes',
            field=models.FloatField(help_text='Total memory as the driver reports it to CUDA (cudaMemGetInfo), bytes'),
        ),
        migrations.AddField(
            model_name=model_name,
            name='marketing_memory_bytes',
            field=models.FloatField(blank=True, help_text="The datasheet's rounded capacity, e.g. 80 GB = 80e9 B",
                                    null=True),
        ),
        migrations.AddField(
            model_name=model_name,
            name='fp4_dense_flops',
            field=models.FloatField(blank=True, help_text='Dense FP4 tensor-core peak; empty: no FP4 unit', null=True),
        ),
    ]


class Migration(migrations.Migration):

    dependencies = [
        ('simulators', '0006_archived_status'),
    ]

    operations = fields('gpu') + fields('historicalgpu')
