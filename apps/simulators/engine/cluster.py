"""N engine replicas behind a router, co-simulated in arrival order.

Before each arrival every replica is advanced to the arrival time, so the router sees
each replica's outstanding requests (assigned, not finished) at that moment.
Policies:
* round_robin: replica i mod N.
* least_outstanding: fewest outstanding requests (ties: lowest index).
* prefix_aware: requests of one prefix group stick to the replica that served the group
  first (its prefix cache holds their blocks), unless that replica is overloaded:
  outstanding > 1.5 · (least outstanding) + 4, then the least-loaded replica takes it
  (bounded-load affinity, like SGLang's cache-aware router balance thresholds).
"""

from __future__ import annotations

import numpy as np

from .costs import StepCostFn
from .engine import Engine
from .scheduler import SchedulerConfig
from .workload import Workload

ROUTERS = ("round_robin", "least_outstanding", "prefix_aware")
AFFINITY_REL_SLACK = 1.5
AFFINITY_ABS_SLACK = 4


class Router:
    def __init__(self, policy: str, replicas: int) -> None:
        if policy not in ROUTERS:
            raise ValueError(f"router must be one of {', '.join(ROUTERS)}")
        self.policy = policy
        self.replicas = replicas
        self.count = 0
        self.affinity: dict[int, int] = {}

    def pick(self, prefix_id: int, loads: list[int]) -> int:
        self.count += 1
        if self.policy == "round_robin":
            return (self.count - 1) % self.replicas
        least = min(range(self.replicas), key=loads.__getitem__)
        if self.policy == "least_outstanding" or prefix_id < 0:
            return least
        home = self.affinity.setdefault(prefix_id, least)
        if loads[home] > AFFINITY_REL_SLACK * loads[least] + AFFINITY_ABS_SLACK:
            return least
        return home


def run_replicas(
    workload: Workload,
    config: SchedulerConfig,
    step_cost: StepCostFn,
    *,
    replicas: int,
    router: str,
    max_steps: int = 5_000_000,
    **engine_kwargs,
) -> tuple[list[Engine], np.ndarray]:
    """Simulate to completion; returns the engines and each request's replica."""
    engines = [Engine(workload, config, step_cost, max_steps=max_steps, **engine_kwargs) for _ in range(replicas)]
    order = np.argsort(workload.arrival_s, kind="stable")
    where = np.zeros(len(workload), np.int64)
    if replicas == 1:
        engines[0].assign_all()
        engines[0].advance()
        return engines, where
    r = Router(router, replicas)
    for i, t, pid in zip(order.tolist(), workload.arrival_s[order].tolist(), workload.prefix_id[order].tolist(),
                         strict=True):
        for e in engines:
            e.advance(t)
        k = r.pick(pid, [e.outstanding for e in engines])
        engines[k].assign(i)
        where[i] = k
    for e in engines:
        e.advance()
    return engines, where
