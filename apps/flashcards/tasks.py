from celery import shared_task

from apps.flashcards.optimization import OPTIMIZE_TASK, optimization_job_run


@shared_task(name=OPTIMIZE_TASK, acks_late=True, time_limit=300)
def optimize_parameters_task(job_id: str) -> None:
    optimization_job_run(job_id=job_id)
