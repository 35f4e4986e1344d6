"""The heaviest frames of a py-spy collapsed-stack file: each frame's inclusive share of the request-handling samples
(frames below gunicorn's request handler), and the heaviest leaves (self time).

    .venv/bin/python benchmarks/load/profile_top.py var/load/profile-chapter-gil.txt [--top 40]
"""

from __future__ import annotations

import argparse
from collections import Counter

HANDLER = "handle_request (gunicorn/workers/gthread.py"


def frame_name(frame: str) -> str:
    """``func (path/to/file.py:123)`` -> ``func (file.py)``: lines differ between samples of one function."""
    name, _, where = frame.partition(" (")
    return f"{name} ({where.rsplit('/', 1)[-1].split(':')[0]})" if where else name


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    inclusive, leaves, total = Counter(), Counter(), 0
    with open(args.path) as handle:
        for line in handle:
            stack, _, count = line.rstrip().rpartition(" ")
            frames = stack.split(";")
            start = next((i for i, frame in enumerate(frames) if HANDLER in frame), None)
            if start is None:  # the arbiter, idle workers, the accept loop: not serving a request
                continue
            samples = int(count)
            total += samples
            for name in dict.fromkeys(frame_name(frame) for frame in frames[start:]):
                inclusive[name] += samples
            leaves[frame_name(frames[-1])] += samples
    if not total:
        print("no request-handling samples")
        return
    print(f"{total} samples in request handling; inclusive share (frames below the request handler):")
    for name, samples in inclusive.most_common(args.top):
        print(f"  {100 * samples / total:5.1f}%  {name}")
    print("self (leaf) share:")
    for name, samples in leaves.most_common(15):
        print(f"  {100 * samples / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
