"""Closed-loop load driver: N connections each send a request, wait for the answer, and send the next at once.

Each scenario runs in stages of rising concurrency until its throughput stops rising (summarize.still_rising) or
the stages run out. A stage warms up for WARMUP seconds (not recorded), then records every request that completes
in its window: at least --seconds, extended until every endpoint has summarize.MIN_SAMPLES samples, at most
--max-seconds. Writes every latency per stage and endpoint to --out for summarize.py.

Scenarios: ping (the minimal view: plain Django, no auth, no throttle), mix (signed-in learners: chapter list and
page, glossary list and term, search, a practice session — start, answer two questions, finish on the summary — the
due queue then a rating, and the kv-cache simulator), and one scenario per judged read alone (chapter, term,
chapters, glossary, due, review). Every learner request carries the token of a learner drawn at random for each flow
from the prepared pool, under the production throttles.

The HTTP/1.1 client is a few lines over asyncio streams (keep-alive, Content-Length or chunked bodies), so the
driver spends little of the machine's CPU; each stage records the driver's own CPU time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
import uuid
from pathlib import Path
from urllib.parse import quote_plus

import orjson
from summarize import MIN_SAMPLES, stage_stats, still_rising

API = "/api/v1"


class Connection:
    """One keep-alive HTTP/1.1 connection; reopened after an error or a server close."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, token: str | None, body: bytes = b"") -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nAccept: application/json\r\n"
        if token:
            head += f"Authorization: Token {token}\r\n"
        if body:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + body)
        try:
            raw = await self.reader.readuntil(b"\r\n\r\n")
            status = int(raw[9:12])
            headers = raw.lower()
            length = headers.find(b"\r\ncontent-length:")
            if length >= 0:
                end = headers.index(b"\r\n", length + 2)
                payload = await self.reader.readexactly(int(headers[length + 17:end]))
            elif b"transfer-encoding: chunked" in headers:
                payload = b""
                while size := int((await self.reader.readuntil(b"\r\n")).strip(), 16):
                    payload += await self.reader.readexactly(size)
                    await self.reader.readexactly(2)
                await self.reader.readexactly(2)
            else:
                payload = b"" if status in (204, 304) else await self.reader.read()
            if b"\r\nconnection: close" in headers:
                self.close()
            return status, payload
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class Recorder:
    """Latencies and errors per endpoint for the requests that complete inside the window (those in flight when it
    opens count with their whole latency), so throughput is completions per second of the window."""

    def __init__(self) -> None:
        self.start = self.end = float("inf")
        self.endpoints: dict[str, dict] = {}

    def add(self, name: str, started: float, finished: float, error: str | None) -> None:
        if self.start <= finished <= self.end:
            record = self.endpoints.setdefault(name, {"ms": [], "errors": {}})
            record["ms"].append(round((finished - started) * 1000, 2))
            if error:
                record["errors"][error] = record["errors"].get(error, 0) + 1

    def counts(self) -> list[int]:
        return [len(record["ms"]) for record in self.endpoints.values()]


class Client:
    """A connection plus the recorder: each call is one judged request."""

    def __init__(self, connection: Connection, recorder: Recorder) -> None:
        self.connection, self.recorder = connection, recorder

    async def call(self, name: str, method: str, path: str, token: str | None = None, body: dict | None = None,
                   expect: tuple[int, ...] = (200,)) -> bytes | None:
        started = time.perf_counter()
        try:
            status, payload = await self.connection.request(method, path, token, orjson.dumps(body) if body else b"")
            error = None if status in expect else str(status)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
            payload, error = None, type(exc).__name__
        self.recorder.add(name, started, time.perf_counter(), error)
        return payload if error is None else None


class Scenarios:
    def __init__(self, data: dict, rng: random.Random) -> None:
        self.data, self.rng = data, rng
        self.learners = list(data["learners"])
        # Flows and weights: each of the 11 endpoints gets at least 2/25 of the requests (about 2,500 requests give
        # every endpoint 200 samples); the review and practice flows make 2 and 4 requests.
        self.mix_flows = [self.chapter_list, self.chapter, self.glossary, self.term, self.search, self.review_due,
                          self.practice, self.kv_cache]
        self.mix_weights = [2, 3, 2, 2, 2, 2, 2, 2]

    def learner(self) -> dict:
        return self.rng.choice(self.learners)

    async def ping(self, client: Client) -> None:
        await client.call("GET /ping/", "GET", f"{API}/ping/")

    async def chapter_list(self, client: Client) -> None:
        await client.call("GET /chapters/", "GET", f"{API}/chapters/", self.learner()["token"])

    async def chapter(self, client: Client) -> None:
        slug = self.rng.choice(self.data["chapters"])
        await client.call("GET /chapters/{slug}/", "GET", f"{API}/chapters/{slug}/", self.learner()["token"])

    async def glossary(self, client: Client) -> None:
        await client.call("GET /glossary/", "GET", f"{API}/glossary/?page_size=50", self.learner()["token"])

    async def term(self, client: Client) -> None:
        slug = self.rng.choice(self.data["terms"])
        await client.call("GET /glossary/{slug}/", "GET", f"{API}/glossary/{slug}/", self.learner()["token"])

    async def search(self, client: Client) -> None:
        query = quote_plus(self.rng.choice(self.data["search_words"]))
        await client.call("GET /search/", "GET", f"{API}/search/?q={query}&limit=12", self.learner()["token"])

    async def due(self, client: Client) -> None:
        await client.call("GET /flashcards/due/", "GET", f"{API}/flashcards/due/?limit=20", self.learner()["token"])

    async def rate(self, client: Client, token: str, card: int) -> None:
        body = {"rating": self.rng.choice([2, 3, 3, 4]), "review_id": str(uuid.uuid4())}
        await client.call("POST /flashcards/{id}/review/", "POST", f"{API}/flashcards/{card}/review/", token, body,
                          expect=(201,))

    async def review(self, client: Client) -> None:
        learner = self.learner()
        await self.rate(client, learner["token"], self.rng.choice(learner["cards"]))

    async def review_due(self, client: Client) -> None:
        token = self.learner()["token"]
        due = await client.call("GET /flashcards/due/", "GET", f"{API}/flashcards/due/?limit=20", token)
        cards = orjson.loads(due)["cards"] if due else []
        if cards:
            await self.rate(client, token, self.rng.choice(cards)["card_id"])

    async def practice(self, client: Client) -> None:
        token = self.learner()["token"]
        created = await client.call("POST /practice/sessions/", "POST", f"{API}/practice/sessions/", token,
                                    {"size": 2, "kind": ["open"]}, expect=(201,))
        if not created:
            return
        session = orjson.loads(created)
        base = f"{API}/practice/sessions/{session['id']}"
        for question in session["questions"]:
            await client.call("POST /practice/sessions/{id}/answers/", "POST", f"{base}/answers/", token,
                              {"question": question["id"], "self_rating": "good"}, expect=(201,))
        await client.call("GET /practice/sessions/{id}/summary/", "GET", f"{base}/summary/", token)

    async def kv_cache(self, client: Client) -> None:
        body = {"model": "llama-3.1-8b", "context_tokens": 8192, "batch_size": 16}
        await client.call("POST /simulators/kv-cache/", "POST", f"{API}/simulators/kv-cache/", self.learner()["token"],
                          body)

    async def mix(self, client: Client) -> None:
        await self.rng.choices(self.mix_flows, self.mix_weights)[0](client)

    def flow(self, name: str):
        return {"chapters": self.chapter_list, "glossary": self.glossary}.get(name) or getattr(self, name)


async def run_stage(scenarios: Scenarios, name: str, concurrency: int, args) -> dict:
    recorder, flow, stop = Recorder(), scenarios.flow(name), asyncio.Event()

    async def worker() -> None:
        client = Client(Connection(args.host, args.port), recorder)
        while not stop.is_set():
            started = time.perf_counter()
            try:
                await flow(client)
            except (ValueError, KeyError, TypeError) as exc:  # an answer the flow cannot follow: an error of its own
                recorder.add(f"{name} flow", started, time.perf_counter(), type(exc).__name__)
        client.connection.close()

    workers = [asyncio.create_task(worker()) for _ in range(concurrency)]
    await asyncio.sleep(args.warmup)
    recorder.start, started_cpu = time.perf_counter(), time.process_time()
    while True:
        await asyncio.sleep(0.5)
        elapsed = time.perf_counter() - recorder.start
        enough = len(recorder.counts()) > 0 and min(recorder.counts()) >= MIN_SAMPLES
        if elapsed >= args.max_seconds or (elapsed >= args.seconds and enough):
            break
    recorder.end = time.perf_counter()
    driver_cpu = time.process_time() - started_cpu
    stop.set()
    await asyncio.wait_for(asyncio.gather(*workers, return_exceptions=True), timeout=60)
    return {"concurrency": concurrency, "seconds": recorder.end - recorder.start, "driver_cpu_s": driver_cpu,
            "endpoints": recorder.endpoints}


async def main(args) -> None:
    data = json.loads(Path(args.data).read_text())
    scenarios = Scenarios(data, random.Random(args.seed))
    out = Path(args.out)
    results = {"meta": {"stages": args.stages, "seconds": args.seconds, "max_seconds": args.max_seconds,
                        "warmup": args.warmup, "learners": len(scenarios.learners), **json.loads(args.meta)},
               "scenarios": {}}
    for name in args.scenarios.split():
        stages = results["scenarios"][name] = []
        for concurrency in [int(value) for value in args.stages.split()]:
            stage = await run_stage(scenarios, name, concurrency, args)
            stages.append(stage)
            rates = [stage_stats(each)["rps"] for each in stages]
            print(f"{name} c={concurrency}: {rates[-1]:.1f} req/s over {stage['seconds']:.0f} s", flush=True)
            out.write_text(json.dumps(results))
            if not still_rising(rates, concurrency):
                break


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument("--data", default="var/load/load-data.json")
    parser.add_argument("--out", default="var/load/results.json")
    parser.add_argument("--scenarios", default="ping mix chapter term chapters glossary due review")
    parser.add_argument("--stages", default="1 2 4 8 16 32 64 128", help="concurrency per stage, ascending")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--max-seconds", type=float, default=60)
    parser.add_argument("--warmup", type=float, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--meta", default="{}", help="JSON merged into the results' meta (machine, load average)")
    asyncio.run(main(parser.parse_args()))
