"""Learners against production mode: read chapters and the glossary, practise, review flashcards, call simulators.

Run by benchmarks/load/run.sh (which prepares users, tokens and `LOAD_DATA`); `PingUser` measures the ceiling of a
minimal Django view. Each user paces itself with constant_throughput, so the request rate grows with the user count.
"""

import json
import os
import random
import uuid

from locust import FastHttpUser, constant_throughput, task

DATA = json.loads(open(os.environ.get("LOAD_DATA", "var/load-data.json")).read())
PER_USER_RPS = float(os.environ.get("LOAD_PER_USER_RPS", "1"))
SIMULATOR_BODIES = {
    "kv-cache": {"model": "llama-3.1-8b", "context_tokens": 8192, "batch_size": 16},
    "fit": {"model": "llama-3.1-8b", "gpu": "h100-sxm", "context_tokens": 8192, "batch_size": 16},
    "step-time": {"model": "llama-3.1-8b", "gpu": "h100-sxm", "phase": "decode", "batch_size": 32,
                  "context_tokens": 2048},
}


class Learner(FastHttpUser):
    wait_time = constant_throughput(PER_USER_RPS)

    def on_start(self) -> None:
        self.token = DATA["tokens"].pop() if DATA["tokens"] else DATA["spare_token"]
        self.headers = {"Authorization": f"Token {self.token}"}

    def get(self, path: str, name: str):
        with self.client.get(path, headers=self.headers, name=name, catch_response=True) as response:
            if response.status_code != 200:
                response.failure(f"{response.status_code}")
            return response

    def post(self, path: str, body: dict, name: str, expect: tuple = (200, 201)):
        with self.client.post(path, json=body, headers=self.headers, name=name, catch_response=True) as response:
            if response.status_code not in expect:
                response.failure(f"{response.status_code}: {response.text[:120]}")
            return response

    @task(2)
    def chapter_list(self) -> None:
        self.get("/api/v1/chapters/", "read GET /chapters/")

    @task(4)
    def chapter_detail(self) -> None:
        self.get(f"/api/v1/chapters/{random.choice(DATA['chapters'])}/", "read GET /chapters/{slug}/")

    @task(2)
    def glossary_list(self) -> None:
        self.get("/api/v1/glossary/?page_size=50", "read GET /glossary/")

    @task(2)
    def glossary_term(self) -> None:
        self.get(f"/api/v1/glossary/{random.choice(DATA['terms'])}/", "read GET /glossary/{slug}/")

    @task(1)
    def practise(self) -> None:
        created = self.post("/api/v1/practice/sessions/", {"size": 2, "kind": ["open"]},
                            "practice POST /practice/sessions/")
        if created.status_code != 201:
            return
        session = created.json()
        for question in session["questions"][:2]:
            self.post(f"/api/v1/practice/sessions/{session['id']}/answers/",
                      {"question": question["id"], "self_rating": "good"},
                      "practice POST /practice/sessions/{id}/answers/")

    @task(3)
    def review(self) -> None:
        due = self.get("/api/v1/flashcards/due/?limit=5", "review GET /flashcards/due/")
        if due.status_code != 200 or not due.json()["cards"]:
            return
        card = random.choice(due.json()["cards"])
        self.post(f"/api/v1/flashcards/{card['card_id']}/review/",
                  {"rating": random.choice([2, 3, 3, 4]), "review_id": str(uuid.uuid4())},
                  "review POST /flashcards/{id}/review/")

    @task(1)
    def simulators(self) -> None:
        name = random.choice(list(SIMULATOR_BODIES))
        self.post(f"/api/v1/simulators/{name}/", SIMULATOR_BODIES[name], f"simulator POST /simulators/{name}/",
                  expect=(200,))


class PingUser(FastHttpUser):
    wait_time = constant_throughput(PER_USER_RPS)

    @task
    def ping(self) -> None:
        with self.client.get("/api/v1/ping/", name="ping GET /ping/", catch_response=True) as response:
            if response.status_code != 200:
                response.failure(f"{response.status_code}")
