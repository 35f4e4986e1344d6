"""Flashcard import at the 20 MB limit, as a background job, and the exports of what it imported (JSON and Anki
package), as background jobs too: CPU time, peak Python allocations and peak RSS.

Also a 3.4 MB Anki package made by Anki (3,000 notes, 6,000 reviews), imported as a job for a fresh learner.

Run: .venv/bin/python benchmarks/bench_import.py [--tracemalloc] [--mb 44]   (target: peak RSS growth < 100 MB at
the limit, for the import and for the export; --mb sets the file's size, 20 MB by default: a learner's own 44 MB
export must import back, as a job takes JSON up to 100 MB)
Uses DATABASE_URL when set (the bench user and its cards are removed afterwards), otherwise a fresh SQLite file
in a temporary folder. Migrates first. Writes a 20 MB export (20,000 cards, with reviews to fill the size). A fresh
child process sends it over HTTP, streamed from the file, to the import endpoint of a server process of its own
(runserver, one thread, DEBUG off; the request only stores the file: the server's CPU and peak memory are printed),
another runs the job as a worker does (apps.flashcards.interchange.jobs.import_job_run). Each export of the imported
collection (JSON, then the Anki package) is three steps: the request that starts the job (sent over HTTP to a server
process of its own, as above), the job as a worker runs it (export_jobs.export_job_run), and the download of its file
through the API, chunk by chunk as a client would. Each reports wall and CPU seconds,
resident memory before and its peak after (VmRSS, VmHWM), and with --tracemalloc the peak of Python allocations (tracing slows the work several
times over, so its CPU figure is not the real one).
"""

from __future__ import annotations

import io
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
if not os.environ.get("DATABASE_URL"):
    os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp(prefix='bench-import-')}/bench.sqlite3"
os.environ.setdefault("THROTTLE_USER", "1000000/hour")
os.environ["CELERY_BROKER_URL"] = "memory://"  # the job's message goes nowhere: this process runs the job itself

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from apps.flashcards.models import Card  # noqa: E402

CARDS = 20_000
LIMIT = 20 * 1024 * 1024
SOURCE_BASE = 8_000_000_000  # far from real content ids
USERNAME = "bench-import"
SNAPSHOT = {"state": 2, "step": None, "stability": 12.5, "difficulty": 5.1, "due": "2026-03-01T04:00:00Z",
            "last_review": "2026-02-01T10:00:00Z", "reps": 3, "lapses": 0, "suspended": False, "leech": False,
            "buried_until": None, "source_changed": False}


def review(index: int) -> dict:
    return {"review_id": str(uuid.UUID(int=index + 1)), "rating": 3, "reviewed_at": "2026-02-01T10:00:00Z",
            "duration_ms": 4200, "state_before": 2, "state_after": 2, "before": SNAPSHOT, "after": {"state": 2}}


def build_file(path: Path, limit: int = LIMIT) -> tuple[int, int]:
    """An export of CARDS cards with as many reviews as fit under the limit; returns (bytes, reviews)."""
    cards = [{"source_type": "question", "source_id": SOURCE_BASE + i, "added_at": "2026-01-01T00:00:00Z",
              **SNAPSHOT, "reviews": []} for i in range(CARDS)]
    body = {"format": "llmkit-flashcards", "version": 1, "exported_at": "2026-03-01T00:00:00Z", "cards": cards}
    base = len(json.dumps(body))
    per_review = len(json.dumps(review(10**9))) + 2
    total = (limit - base - 1024) // per_review
    for n in range(total):
        cards[n % CARDS]["reviews"].append(review(n))
    data = json.dumps(body).encode()
    path.write_bytes(data)
    return len(data), total


APKG_NOTES = 3_000


def build_apkg(path: Path) -> tuple[int, int]:
    """An Anki package made by Anki itself (the `anki` package): APKG_NOTES basic notes of about 1,400 random
    characters (so zstd cannot shrink them much), each answered twice; returns (bytes, reviews)."""
    import random
    import string

    from anki import collection as anki_collection
    from anki.scheduler.v3 import CardAnswer

    rng = random.Random(0)
    letters = string.ascii_letters + string.digits
    col = anki_collection.Collection(str(path.with_suffix(".anki2")))
    try:
        deck, basic = col.decks.id("Bench"), col.models.by_name("Basic")
        for i in range(APKG_NOTES):
            note = col.new_note(basic)
            note["Front"] = f"Q{i} " + "".join(rng.choices(letters, k=700))
            note["Back"] = "".join(rng.choices(letters, k=700))
            col.add_note(note, deck)
            for rating in (CardAnswer.GOOD, CardAnswer.EASY):
                card = note.cards()[0]
                card.start_timer()
                col.sched.answer_card(col.sched.build_answer(card=card, states=col._backend.get_scheduling_states(
                    card.id), rating=rating))
        col.export_anki_package(out_path=str(path), limit=None, options=anki_collection.ExportAnkiPackageOptions(
            with_scheduling=True, with_deck_configs=False, with_media=False, legacy=False))
        return path.stat().st_size, col.db.scalar("select count() from revlog")
    finally:
        col.close()


def memory_kb(field: str) -> int:
    """This process's resident set now (VmRSS) or at its peak (VmHWM), in kB. Not ru_maxrss: that one survives fork
    and exec, so a child would start at its parent's peak and hide its own growth below it."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # no /proc: the less exact figure


def measure(step: str, arg: str, trace: bool) -> None:
    """Child process: one step ("request" / "request-apkg": send the file at arg; "job": run import job arg as a
    worker; "export-request": start an export of format arg; "export-job": run export job arg as a worker;
    "download": read export job arg's file); prints a JSON line of figures. Each step in its own process, so each
    peak RSS is its own."""
    from apps.flashcards.interchange.export_jobs import export_job_run
    from apps.flashcards.interchange.jobs import import_job_run

    user = get_user_model().objects.get(username=USERNAME)
    client = Client()
    client.force_login(user)
    if step.startswith("request"):
        fmt = "apkg" if step == "request-apkg" else "json"
        print(json.dumps(request_to_server(user, f"/api/v1/flashcards/imports/?format={fmt}", Path(arg),
                                           "application/octet-stream")))
        return
    if step == "export-request":
        print(json.dumps(request_to_server(user, "/api/v1/flashcards/exports/", json.dumps({"format": arg}).encode(),
                                           "application/json")))
        return
    rss_before = memory_kb("VmRSS")
    if trace:
        tracemalloc.start()
    cpu, wall = time.process_time(), time.perf_counter()
    if step == "job":
        job = import_job_run(job_id=arg)
        status, answer = job.status, json.dumps(job.result or job.error)[:200]
    elif step == "export-job":
        job = export_job_run(job_id=arg)
        status, answer = job.status, f"{job.format}: {job.file_bytes / 2**20:.1f} MiB, {job.cards} cards, stored"
    else:
        response = client.get(f"/api/v1/flashcards/exports/{arg}/file/")
        size = sum(len(chunk) for chunk in response.streaming_content)
        status, answer = response.status_code, f"{size / 2**20:.1f} MiB streamed"
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    peak = tracemalloc.get_traced_memory()[1] if trace else 0
    tracemalloc.stop()
    rss_after = memory_kb("VmHWM")
    print(json.dumps({"status": status, "answer": answer, "cpu_s": cpu, "wall_s": wall,
                      "tracemalloc_peak_mb": peak / 2**20, "rss_before_mb": rss_before / 1024,
                      "rss_after_mb": rss_after / 1024}))


def _server_figures(pid: int, field: str) -> tuple[float, float]:
    """(CPU seconds, resident kB as ``field``) of another process, from /proc."""
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return cpu, int(line.split()[1])
    raise RuntimeError(f"no {field} for process {pid}")


def request_to_server(user, url: str, body: Path | bytes, content_type: str) -> dict:
    """A POST as a client sends it: to a server process of its own (runserver, one thread, production settings) over
    HTTP, an upload's body streamed from its file. The server's CPU and its peak resident memory are the request's."""
    import http.client
    import socket

    from rest_framework.authtoken.models import Token

    token = Token.objects.get_or_create(user=user)[0].key
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "DEBUG": "false", "SECRET_KEY": "bench-import-only-" + uuid.uuid4().hex,
           "SECURE_SSL_REDIRECT": "false"}
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", "--noreload", "--nothreading",
                               f"127.0.0.1:{port}"], cwd=Path(__file__).resolve().parents[1], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        headers = {"Authorization": f"Token {token}"}
        for _ in range(600):  # up to 60 s to start; then one request so that the first one's imports are done
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
                connection.request("GET", "/api/v1/flashcards/imports/", headers=headers)
                connection.getresponse().read()
                break
            except OSError:
                time.sleep(0.1)
        cpu_before, rss_before = _server_figures(server.pid, "VmRSS")
        wall = time.perf_counter()
        size = body.stat().st_size if isinstance(body, Path) else len(body)
        with body.open("rb") if isinstance(body, Path) else io.BytesIO(body) as stream:
            connection.request("POST", url, body=stream, headers={
                **headers, "Content-Type": content_type, "Content-Length": str(size)})
            response = connection.getresponse()
            answer = json.loads(response.read())
        wall = time.perf_counter() - wall
        cpu_after, peak = _server_figures(server.pid, "VmHWM")
    finally:
        server.terminate()
        server.wait(timeout=30)
    return {"status": response.status, "answer": answer.get("id", answer), "cpu_s": cpu_after - cpu_before,
            "wall_s": wall, "tracemalloc_peak_mb": 0, "rss_before_mb": rss_before / 1024, "rss_after_mb": peak / 1024}


def child(args: list[str], trace: bool) -> dict:
    run = subprocess.run([sys.executable, __file__, *args, *(["--tracemalloc"] if trace else [])],
                         capture_output=True, text=True, env=os.environ, check=False, timeout=1800)
    if run.returncode:
        print(run.stderr[-3000:])
        raise SystemExit(run.returncode)
    return json.loads(run.stdout.strip().splitlines()[-1])


def export_steps(fmt: str, trace: bool) -> tuple[dict, dict, dict]:
    """An export as three steps, each in its own process: the request, the job, the download."""
    started = child(["--measure", "export-request", fmt], trace)
    written = child(["--measure", "export-job", started["answer"]], trace)
    return started, written, child(["--measure", "download", started["answer"]], trace)


def report(name: str, figures: dict, trace: bool, ok: str) -> None:
    growth = figures["rss_after_mb"] - figures["rss_before_mb"]
    print(f"{name}: {figures['status']} {figures['answer']}")
    print(f"  cpu {figures['cpu_s']:.2f} s, wall {figures['wall_s']:.2f} s"
          + ", "
          + (f"python allocations peak {figures['tracemalloc_peak_mb']:.0f} MB, " if trace else "")
          + f"RSS {figures['rss_before_mb']:.0f} -> {figures['rss_after_mb']:.0f} MB (growth {growth:.0f} MB)")
    print(f"  target: RSS growth < 100 MB: {'PASS' if growth < 100 and str(figures['status']) == ok else 'FAIL'}")


def main(trace: bool, limit: int = LIMIT) -> None:
    call_command("migrate", verbosity=0)
    get_user_model().objects.get_or_create(username=USERNAME)
    Card.objects.filter(source_id__gte=SOURCE_BASE, source_id__lt=SOURCE_BASE + CARDS).delete()
    Card.objects.bulk_create([Card(source_type="question", source_id=SOURCE_BASE + i, front=f"Q{i}", back="A",
                                   content_hash="x") for i in range(CARDS)], batch_size=2000)
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "export.json"
            size, reviews = build_file(path, limit)
            print(f"file: {size / 2**20:.1f} MiB, {CARDS} cards, {reviews} reviews; "
                  f"load: {os.getloadavg()[0]:.2f} (1-min average), {os.cpu_count()} CPUs")
            stored = child(["--measure", "request", str(path)], trace)
            imported = child(["--measure", "job", stored["answer"]], trace)
            exports = {fmt: export_steps(fmt, trace) for fmt in ("json", "apkg")}
            # Built in a child of its own, so this process does not carry Anki's memory.
            built = subprocess.run([sys.executable, __file__, "--build-apkg", str(Path(folder) / "bench.apkg")],
                                   capture_output=True, text=True, check=True, timeout=600)
            apkg_size, apkg_reviews = json.loads(built.stdout.strip().splitlines()[-1])
            print(f"Anki package: {apkg_size / 2**20:.1f} MiB, {APKG_NOTES} notes, {apkg_reviews} reviews (made by Anki)")
            get_user_model().objects.filter(username=USERNAME).delete()
            get_user_model().objects.get_or_create(username=USERNAME)  # a fresh learner for the package
            stored_apkg = child(["--measure", "request-apkg", str(Path(folder) / "bench.apkg")], trace)
            imported_apkg = child(["--measure", "job", stored_apkg["answer"]], trace)
    finally:
        get_user_model().objects.filter(username=USERNAME).delete()
        Card.objects.filter(source_id__gte=SOURCE_BASE, source_id__lt=SOURCE_BASE + CARDS).delete()
    report("import request (stores the file, answers 202; measured in the server process it was sent to)",
           stored, False, "202")
    report("import job (as a worker runs it)", imported, trace, "done")
    for fmt, name in (("json", "JSON export"), ("apkg", "Anki package export of the same collection")):
        started, written, downloaded = exports[fmt]
        report(f"{name}: the request that starts the job (202; measured in the server process)", started, False, "202")
        report(f"{name}: the job (as a worker runs it)", written, trace, "done")
        report(f"{name}: the download, streamed", downloaded, trace, "200")
    report("Anki package import request (measured in the server process)", stored_apkg, False, "202")
    report("Anki package import job (as a worker runs it)", imported_apkg, trace, "done")



if __name__ == "__main__":
    tracing = "--tracemalloc" in sys.argv
    if len(sys.argv) >= 4 and sys.argv[1] == "--measure":
        measure(sys.argv[2], sys.argv[3], tracing)
    elif len(sys.argv) >= 3 and sys.argv[1] == "--build-apkg":
        print(json.dumps(build_apkg(Path(sys.argv[2]))))
    else:
        megabytes = int(sys.argv[sys.argv.index("--mb") + 1]) if "--mb" in sys.argv else LIMIT // 2**20
        main(tracing, megabytes * 1024 * 1024)
