"""Reads one locust stage's CSV stats, prints rate, p50/p99 per endpoint and errors, and judges the stage.

A stage passes when nothing failed and p99 < LIMIT_MS for every read and review endpoint (and for ping).
Usage: summarize.py <csv prefix> <label> <users>; exit status 0 when the stage passes. Appends to <dir>/summary.jsonl.
"""

import csv
import json
import sys
from pathlib import Path

LIMIT_MS = 100
JUDGED = ("read ", "review ", "ping ")


def main(prefix: str, label: str, users: int) -> int:
    rows = list(csv.DictReader(open(f"{prefix}_stats.csv")))
    endpoints = [row for row in rows if row["Name"] != "Aggregated"]
    total = next(row for row in rows if row["Name"] == "Aggregated")
    print(f"\n== {label}: {users} users ==")
    print(f"{'endpoint':52} {'requests':>8} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6}")
    slow = []
    for row in sorted(endpoints, key=lambda r: r["Name"]):
        p99 = float(row["99%"] or 0)
        print(f"{row['Name'][:52]:52} {row['Request Count']:>8} {float(row['Requests/s']):7.1f} "
              f"{float(row['50%'] or 0):7.0f} {p99:7.0f} {row['Failure Count']:>6}")
        if row["Name"].startswith(JUDGED) and p99 >= LIMIT_MS:
            slow.append(row["Name"])
    errors = int(total["Failure Count"])
    rate = float(total["Requests/s"])
    print(f"{'TOTAL':52} {total['Request Count']:>8} {rate:7.1f} {float(total['50%'] or 0):7.0f} "
          f"{float(total['99%'] or 0):7.0f} {errors:>6}")
    passed = errors == 0 and not slow
    print(f"-> {'PASS' if passed else 'FAIL'}" + (f" (p99 >= {LIMIT_MS} ms: {', '.join(slow)})" if slow else "")
          + (f" ({errors} errors)" if errors else ""))
    failures = Path(f"{prefix}_failures.csv")
    if errors and failures.exists():
        for row in list(csv.DictReader(open(failures)))[:5]:
            print(f"   failure: {row['Method']} {row['Name']}: {row['Error'][:100]} x{row['Occurrences']}")
    with open(Path(prefix).parent / "summary.jsonl", "a") as out:
        out.write(json.dumps({"label": label, "users": users, "rps": round(rate, 1), "errors": errors,
                              "p50_ms": float(total["50%"] or 0), "p99_ms": float(total["99%"] or 0),
                              "passed": passed}) + "\n")
    return 0 if passed else 1


def report(directory: str) -> None:
    """The highest passing rate per label: the sustained rate."""
    lines = [json.loads(line) for line in open(Path(directory) / "summary.jsonl")]
    print("\n== sustained rates (0 errors, p99 < 100 ms for reads/reviews) ==")
    for label in dict.fromkeys(line["label"] for line in lines):
        passing = [line for line in lines if line["label"] == label and line["passed"]]
        best = max(passing, key=lambda line: line["rps"], default=None)
        peak = max((line for line in lines if line["label"] == label), key=lambda line: line["rps"])
        sustained = f"{best['rps']} req/s at {best['users']} users" if best else "none"
        print(f"{label}: sustained {sustained}; highest measured {peak['rps']} req/s ({peak['errors']} errors, "
              f"p99 {peak['p99_ms']:.0f} ms)")


if __name__ == "__main__":
    if sys.argv[1] == "--report":
        report(sys.argv[2])
    else:
        sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
