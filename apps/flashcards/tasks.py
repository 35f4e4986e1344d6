from celery import shared_task

from apps.flashcards.interchange.export_jobs import EXPORT_TASK, PRUNE_TASK, export_job_run, prune_exports
from apps.flashcards.interchange.jobs import IMPORT_TASK, TIME_LIMIT_S, import_job_run
from apps.flashcards.optimization import OPTIMIZE_TASK, optimization_job_run


@shared_task(name=OPTIMIZE_TASK, acks_late=True, time_limit=300)
def optimize_parameters_task(job_id: str) -> None:
    optimization_job_run(job_id=job_id)


@shared_task(name=IMPORT_TASK, acks_late=True, time_limit=TIME_LIMIT_S, soft_time_limit=TIME_LIMIT_S - 10)
def import_collection_task(job_id: str) -> None:
    import_job_run(job_id=job_id)


@shared_task(name=EXPORT_TASK, acks_late=True, time_limit=TIME_LIMIT_S, soft_time_limit=TIME_LIMIT_S - 10)
def export_collection_task(job_id: str) -> None:
    export_job_run(job_id=job_id)


@shared_task(name=PRUNE_TASK)
def prune_exports_task() -> None:
    prune_exports()
