from celery import shared_task


@shared_task(name="flashcards.optimize_parameters", acks_late=True, time_limit=300)
def optimize_parameters_task(job_id: str) -> None:
    from apps.flashcards.optimization import optimization_job_run

    optimization_job_run(job_id=job_id)
