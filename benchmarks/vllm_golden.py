"""Record golden schedules from vLLM's own V1 scheduler, step by step, for the engine's golden-trace test.

The project never installs vLLM. Run this in a throwaway virtualenv that has the release the engine follows:

    python -m venv /tmp/vllm-env && /tmp/vllm-env/bin/pip install vllm==0.33.0
    VLLM_TARGET_DEVICE=cpu /tmp/vllm-env/bin/python benchmarks/vllm_golden.py            # every trace
    VLLM_TARGET_DEVICE=cpu /tmp/vllm-env/bin/python benchmarks/vllm_golden.py --only kv_pressure

No weights and no accelerator: the scheduler (``vllm/v1/core/sched/scheduler.py``) and its KV cache manager run for
real on a one-layer model config written to a temporary folder; the model runner is replaced by a stand-in that
samples one token for every request whose scheduled tokens reach the end of its sequence (a finished prefill or a
decode), as vLLM's own ``tests/v1/core/utils.py`` drives it. Time is counted in steps: a request with
``arrival_step`` a is added before the first step at or after a, and when nothing is waiting or running the clock
jumps to the next arrival (the engine, run at one second a step, does the same).

Each trace file under ``tests/simulators/golden/`` holds the design (``config`` and ``requests``) and what vLLM did:
per step the tokens scheduled per request, the waiting and running counts and the KV blocks in use after
scheduling, and the requests preempted; per request the step of its first token and of its finish. The script
rewrites only the recorded part, so the designs are edited by hand and recorded again.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "simulators" / "golden"
TINY_MODEL = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
              "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 4, "num_hidden_layers": 1,
              "vocab_size": 32000, "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "torch_dtype": "float16",
              "bos_token_id": 1, "eos_token_id": 2}
EOS = 2


def prompt_ids(index: int, request: dict) -> list[int]:
    """A group's shared prefix is the same token ids in every member; the rest is the request's own."""
    group, shared = request.get("prefix_group", -1), request.get("prefix_tokens", 0) if request.get("prefix_group", -1) >= 0 else 0
    own = 10_000 + index
    return [100 + group] * shared + [own] * (request["prompt"] - shared)


def build_scheduler(config: dict, model_dir: str):
    import torch
    from vllm.config import CacheConfig, DeviceConfig, ModelConfig, SchedulerConfig, VllmConfig
    from vllm.v1.core.sched.scheduler import Scheduler
    from vllm.v1.kv_cache_interface import FullAttentionSpec, KVCacheConfig, KVCacheGroupSpec
    from vllm.v1.structured_output import StructuredOutputManager

    block_size = config["block_size"]
    scheduler_config = SchedulerConfig(
        max_num_seqs=config["max_num_seqs"], max_num_batched_tokens=config["max_num_batched_tokens"],
        max_model_len=config["max_model_len"], enable_chunked_prefill=True, is_encoder_decoder=False,
        long_prefill_token_threshold=config.get("long_prefill_token_threshold", 0),
        scheduler_reserve_full_isl=config.get("scheduler_reserve_full_isl", True))
    model_config = ModelConfig(model=model_dir, skip_tokenizer_init=True, dtype="float16",
                               max_model_len=config["max_model_len"])
    cache_config = CacheConfig(block_size=block_size, enable_prefix_caching=config["enable_prefix_caching"])
    vllm_config = VllmConfig(scheduler_config=scheduler_config, model_config=model_config, cache_config=cache_config,
                             device_config=DeviceConfig(device="cpu"))
    # vLLM keeps block 0 as its null block: one more than the engine's pool gives the same usable blocks.
    num_blocks = config["num_blocks"] + 1
    kv_cache_config = KVCacheConfig(
        num_blocks=num_blocks, kv_cache_tensors=[],
        kv_cache_groups=[KVCacheGroupSpec(["layer"], FullAttentionSpec(block_size=block_size, num_kv_heads=1,
                                                                         head_size=1, dtype=torch.float32))])
    cache_config.num_gpu_blocks = num_blocks
    scheduler = Scheduler(vllm_config=vllm_config, kv_cache_config=kv_cache_config,
                          structured_output_manager=StructuredOutputManager(vllm_config), block_size=block_size,
                          log_stats=False)
    # The CPU platform may adjust settings; the trace is only worth recording with the ones asked for.
    actual = (scheduler.scheduler_config.max_num_seqs, scheduler.scheduler_config.max_num_batched_tokens,
              scheduler.cache_config.enable_prefix_caching, scheduler.block_size,
              scheduler.scheduler_config.scheduler_reserve_full_isl,
              scheduler.scheduler_config.long_prefill_token_threshold)
    wanted = (config["max_num_seqs"], config["max_num_batched_tokens"], config["enable_prefix_caching"], block_size,
              config.get("scheduler_reserve_full_isl", True), config.get("long_prefill_token_threshold", 0))
    assert actual == wanted, f"vLLM changed the settings: {actual} != {wanted}"
    return scheduler


def record(trace: dict, model_dir: str) -> dict:
    from vllm.sampling_params import SamplingParams
    from vllm.utils.hashing import sha256
    from vllm.v1.core.kv_cache_utils import get_request_block_hasher, init_none_hash
    from vllm.v1.outputs import ModelRunnerOutput
    from vllm.v1.request import Request

    config = trace["config"]
    scheduler = build_scheduler(config, model_dir)
    init_none_hash(sha256)
    hasher = get_request_block_hasher(config["block_size"], sha256)
    pool = scheduler.kv_cache_manager.block_pool
    usable = config["num_blocks"]

    requests = trace["requests"]
    pending = sorted(range(len(requests)), key=lambda i: (requests[i]["arrival_step"], i))
    made: dict[str, Request] = {}
    first: dict[int, int] = {}
    finish: dict[int, int] = {}
    preemptions = [0] * len(requests)
    steps: list[dict] = []
    now = 0
    while len(finish) < len(requests):
        while pending and requests[pending[0]]["arrival_step"] <= now:
            i = pending.pop(0)
            req = Request(request_id=str(i), prompt_token_ids=prompt_ids(i, requests[i]),
                          sampling_params=SamplingParams(max_tokens=requests[i]["output"], ignore_eos=True),
                          pooling_params=None, block_hasher=hasher, arrival_time=float(now))
            made[str(i)] = req
            scheduler.add_request(req)
        running, waiting = scheduler.get_request_counts()
        if not running and not waiting:
            now = requests[pending[0]]["arrival_step"]
            continue
        out = scheduler.schedule()
        scheduled = out.num_scheduled_tokens
        preempted = sorted(int(r) for r in getattr(out, "preempted_req_ids", None) or ())
        for r in preempted:
            preemptions[r] += 1
        running, waiting = scheduler.get_request_counts()
        steps.append({"tokens": {r: scheduled[r] for r in sorted(scheduled, key=int)}, "waiting": waiting,
                      "running": running, "kv_blocks_used": usable - pool.get_num_free_blocks(),
                      "preempted": preempted})
        if not scheduled:
            raise RuntimeError(f"step {len(steps)}: vLLM scheduled nothing with requests waiting")
        now += 1
        ids = list(scheduled)
        sampled = []
        for r in ids:
            req = made[r]
            # The request's computed count already includes this step's tokens (the scheduler advances it).
            done_prefill = req.num_computed_tokens >= req.num_tokens
            sampled.append([20_000 + int(r)] if done_prefill else [])
            if done_prefill and int(r) not in first:
                first[int(r)] = len(steps)
        runner = ModelRunnerOutput(req_ids=ids, req_id_to_index={r: k for k, r in enumerate(ids)},
                                   sampled_token_ids=sampled)
        scheduler.update_from_output(out, runner)
        for r, req in made.items():
            if req.is_finished() and int(r) not in finish:
                finish[int(r)] = len(steps)
    return {**{k: v for k, v in trace.items() if k not in ("steps", "per_request")},
            "steps": steps,
            "per_request": [{"first_token_step": first[i], "finish_step": finish[i], "preemptions": preemptions[i]}
                            for i in range(len(requests))]}


def dump(trace: dict) -> str:
    """One line per request and per step: reviewable in a diff, a tenth of the size of indented JSON."""
    lines = ["{"]
    items = list(trace.items())
    for n, (key, value) in enumerate(items):
        end = "," if n < len(items) - 1 else ""
        if isinstance(value, list):
            rows = [f"  {json.dumps(row)}" for row in value]
            lines.append(f" {json.dumps(key)}: [\n" + ",\n".join(rows) + f"\n ]{end}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{end}")
    return "\n".join(lines) + "\n}\n"


def main() -> None:
    import vllm

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="record this trace (file stem) only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as model_dir:
        (Path(model_dir) / "config.json").write_text(json.dumps(TINY_MODEL))
        for path in sorted(GOLDEN.glob("*.json")):
            if args.only and path.stem != args.only:
                continue
            trace = json.loads(path.read_text())
            recorded = record(trace, model_dir)
            recorded["recorded_with"] = f"vllm {vllm.__version__}"
            path.write_text(dump(recorded))
            print(f"{path.name}: {len(recorded['steps'])} steps, "
                  f"{sum(r['preemptions'] for r in recorded['per_request'])} preemptions")


if __name__ == "__main__":
    main()
