"""Every `sources` entry in fixtures/ (the YAML files and the front matter of the chapter files) can be checked by a
reader: it holds an https:// URL of the primary source, or a repository reference pinned to a release or commit with
a file path ('vLLM v0.33.0, vllm/config/cache.py: ...', 'microsoft/vidur at 0c1a57a, vidur/...py: ...'), or a file of
this repository ('Interview kit, apps/simulators/modeling/capacity.py: plan_capacity'), which must exist and hold the
name cited after it.

The entries not converted yet are listed, exactly, in NOT_YET_CHECKABLE; an entry listed there that no longer occurs
fails the test, so the list can only shrink."""

import re
from pathlib import Path

import yaml

from apps.core.content import FIXTURES_DIR

FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
URL = re.compile(r"https://[\w.-]+\.[a-z]{2,}/?\S*")
# owner/repo at <tag or commit>, path/to/file.ext
REPO_AT = re.compile(r"\b[\w.-]+/[\w.-]+ at (?:commit )?[\w.-]+, [\w./-]+\.\w+")
# <project> <version> [(note)], path/to/file.ext  e.g. 'vLLM v0.33.0, vllm/config/cache.py'
PINNED = re.compile(r"\b[\w.-]+ v?\d[\w.]*(?: \([^)]*\))?, [\w./-]+\.\w+")
# a file of this repository, with the name it defines: 'apps/simulators/modeling/moe.py: routing_probabilities'
PROJECT_FILE = re.compile(r"(?<![\w/.-])((?:apps|fixtures|frontend|benchmarks)/[\w./-]+\.\w+)(?::\s*([A-Za-z_]\w*))?")
REPO_ROOT = FIXTURES_DIR.parent

# Not yet made checkable: no URL could be confirmed with the search tools in the time (vendor datasheets, cloud and
# product documentation pages, blog posts, papers without a confirmed arXiv id or DOI), or the project's own code
# cited without a release. Remove an entry once it carries a URL or a pinned repository path.
NOT_YET_CHECKABLE: frozenset[str] = frozenset({
    "AWS EC2 Spot interruption notices (2 minutes); Compute Engine Spot VMs (30 s)",
    "AWS EC2 User Guide, Capacity Reservation pricing and billing (billed at the On-Demand rate whether instances run or not)",
    "AWS EC2 User Guide, Capacity Reservation pricing and billing (reserved capacity billed whether used or not)",
    "AWS EC2 User Guide, Capacity Reservations overview (On-Demand Capacity Reservations and Capacity Blocks for ML); Capacity Reservation pricing and billing (billed at the On-Demand rate whether instances run or not)",
    "AWS EC2 User Guide, Find and purchase Capacity Blocks (1 to 182 days, up to 64 instances per block, all blocks end at 11:30 UTC) and EC2 API CapacityBlock (instances terminated at expiry)",
    "AWS EC2 User Guide, Find and purchase Capacity Blocks, and EC2 API reference: CapacityBlock (endDate: instances terminated at expiry), CapacityBlockOffering (upfrontFee)",
    "AWS EC2 User Guide, Spot Instance interruption notices (two-minute warning); Savings Plans and Reserved Instances (1- or 3-year terms)",
    "AWS Neuron documentation, Trainium2 architecture (96 GiB per chip)",
    "AWS Neuron documentation, Trainium2 architecture (trainium2.rst) and Trainium/Inferentia2 architecture guide (Inferentia2: 32 GiB, 820 GB/s, 190 FP16/BF16 TFLOPS)",
    "AWS Savings Plans and Google Cloud committed use discounts documentation (1- or 3-year terms, discount without a capacity guarantee)",
    "AWS, Amazon Bedrock pricing page: Llama 3.1 70B Instruct on-demand, 0.72 USD per million input and output tokens",
    "AWS, Amazon Bedrock pricing page: On-Demand, Batch and Provisioned Throughput",
    "AWS, Amazon Bedrock pricing page: On-Demand, Batch and Provisioned Throughput (model units, term commitment; custom models only through Provisioned Throughput)",
    "AWS, Amazon EC2 Capacity Blocks for ML pricing page (p5.48xlarge effective hourly rate and per-accelerator rate)",
    "AWS, Amazon EC2 Capacity Blocks for ML pricing page (p5.48xlarge: 39.33 USD per instance-hour in US East)",
    "AWS, Amazon EC2 Capacity Blocks for ML pricing page: p5.48xlarge effective instance and accelerator hourly rates",
    "AWS, Amazon EC2 Capacity Blocks for ML pricing page: p5.48xlarge, 4.916 USD per accelerator-hour",
    "AWS, Amazon EC2 P5 instances (p5.48xlarge: 8 × H100 80 GB, 3,200 Gbps EFA networking)",
    "AWS, Amazon EC2 User Guide, Spot Instance interruption notices (two-minute warning)",
    "AWS, Amazon EKS User Guide, Amazon EKS optimized accelerated AMIs and Install Kubernetes device plugin for GPUs (driver in the AMI; device plugin installed on AL2023, included in Bottlerocket and EKS Auto Mode)",
    "AWS, Elastic Fabric Adapter documentation (libfabric, aws-ofi-nccl plug-in for NCCL)",
    "AWS, SageMaker Developer Guide, Invoke a serverless endpoint (4 MB payload, /ping within 3 minutes, 1-minute /invocations timeout) and Serverless Inference feature exclusions (no GPUs)",
    "AWS, SageMaker Runtime API reference, InvokeEndpoint (60-second container response) and InvokeEndpointWithResponseStream",
    "AWS, SageMaker Runtime API reference, InvokeEndpoint and InvokeEndpointWithResponseStream (60-second container response)",
    "Abts et al., \"Think Fast: A Tensor Streaming Processor (TSP) for Accelerating Deep Learning Workloads\", ISCA 2020, §2-3 (deterministic, compiler-scheduled execution, no caches)",
    "Ainslie et al., GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints (EMNLP 2023)",
    "Anthropic Engineering, A postmortem of three recent issues (17 September 2025)",
    "Anthropic Engineering, A postmortem of three recent issues (17 September 2025): context-window routing error and TPU misconfiguration rolled out across platforms",
    "Brysbaert, How many words do we read per minute? A review and meta-analysis of reading rate (Journal of Memory and Language 109, 2019)",
    "Character.AI research blog, Optimizing AI Inference at Character.AI (June 2024): multi-query attention, hybrid attention horizons, cross-layer KV sharing, stateful caching, int8",
    "Character.AI research blog, Optimizing AI Inference at Character.AI (sticky sessions, 95 % cache rate)",
    "Chen et al., Punica: Multi-Tenant LoRA Serving (MLSys 2024): the SGMV kernel for batches of different adapters",
    "Chowdhery et al., PaLM: Scaling Language Modeling with Pathways (JMLR 2023), the definition of model FLOPs utilization (MFU)",
    "Dao, Haziza, Massa and Sizov, Flash-Decoding for long-context inference (PyTorch blog, October 2023): split-KV and log-sum-exp reduction",
    "Dean and Barroso, The Tail at Scale (Communications of the ACM 56(2), 2013)",
    "DeepSeek open-infra-index, Day 6: DeepSeek-V3/R1 Inference System Overview (February 2025): EP32 prefill, EP144 decode, throughput per H800 node",
    "DeepSeek, open-infra-index, 202502OpenSourceWeek/day_6_one_more_thing_deepseekV3R1_inference_system_overview.md (EP32 prefill and EP144 decode units, dual-batch overlap, load balancers, 24-hour statistics)",
    "DeepSeek, open-infra-index, 202502OpenSourceWeek/day_6_one_more_thing_deepseekV3R1_inference_system_overview.md (prefill EP32 on 4 nodes, decode EP144 on 18 nodes, 32 redundant experts)",
    "DeepSeek, open-infra-index, Day 6: DeepSeek-V3/R1 Inference System Overview (226.75 average nodes of 8 H800, 2 USD per GPU-hour, 608 B input and 168 B output tokens in 24 hours)",
    "DeepSeek, open-infra-index, Day 6: DeepSeek-V3/R1 Inference System Overview (cost 87,072 USD/day, theoretical revenue 562,027 USD/day)",
    "DeepSeek, open-infra-index, Day 6: DeepSeek-V3/R1 Inference System Overview (prefill EP32 on 4 nodes, decode EP144 on 18 nodes)",
    "Dettmers et al., LLM.int8(): 8-bit Matrix Multiplication for Transformers at Scale (NeurIPS 2022): outlier features",
    "Dong et al., XGrammar: Flexible and Efficient Structured Generation Engine for Large Language Models (MLSys 2025): pushdown automata, context-independent token masks",
    "Dosovitskiy et al., An Image is Worth 16x16 Words (ICLR 2021), §3.1 (patch embedding)",
    "Envoy documentation, Local rate limit filter (token bucket: max_tokens, tokens_per_fill, fill_interval) and Global rate limiting",
    "Fedus, Zoph and Shazeer, Switch Transformers (JMLR 2022), §2.2 (expert capacity and capacity factor)",
    "Frantar et al., GPTQ: Accurate Post-Training Quantization for Generative Pre-trained Transformers (ICLR 2023)",
    "Gil Tene, wrk2 README (coordinated omission; constant-throughput load generation)",
    "Google Cloud TPU documentation, TPU v5e (16 GiB HBM2 at 819 GB/s, 197 BF16 TFLOPS, 8 chips per host) and TPU7x tables",
    "Google Cloud TPU documentation, TPU v5e, TPU v6e and TPU7x (Ironwood) system architecture tables",
    "Google Cloud TPU documentation, TPU7x (Ironwood) system architecture table (192 GiB per chip)",
    "Google Cloud, About Flex-start VMs (Dynamic Workload Scheduler; seven-day maximum run; preemptible quota) and Introducing Flex-start VMs blog (queue up to two hours)",
    "Google Cloud, About Flex-start VMs (queued, up to seven days) and calendar-mode future reservations (up to 90 days)",
    "Google Cloud, About future reservation requests in calendar mode (up to 90 days; availability up to 60 days ahead for GPU VMs); Choose a reservation type; Committed use discounts",
    "Google Cloud, Compute Engine documentation, Spot VMs (preemption process, 30-second shutdown)",
    "Google Cloud, GKE docs, Run GPUs in GKE Standard node pools (automatic driver installation, gpu-driver-version default, latest or disabled) and gcloud container node-pools create reference (--accelerator)",
    "Google Cloud, GKE docs, Run GPUs in GKE Standard node pools (gpu-driver-version)",
    "Google I/O 2025 keynote, Sundar Pichai (monthly tokens processed across Google products)",
    "Google, Site Reliability Engineering (O'Reilly 2016), chapter 4: Service Level Objectives",
    "Google, The Site Reliability Workbook (O'Reilly 2018), chapter 5: Alerting on SLOs (error budgets, multiwindow multi-burn-rate alerts)",
    "Holtzman et al., The Curious Case of Neural Text Degeneration (ICLR 2020): nucleus (top-p) sampling",
    "Horace He, Defeating Nondeterminism in LLM Inference (Thinking Machines Lab blog, September 2025): batch-invariant kernels",
    "Hu et al., LoRA: Low-Rank Adaptation of Large Language Models (ICLR 2022), §4.1 (W0 + BA; merging adds no inference latency)",
    "Huang et al., GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism (NeurIPS 2019), §2 (micro-batches, bubble overhead (K-1)/(M+K-1))",
    "Hugging Face, text-generation-inference documentation index (maintenance mode notice, 11 December 2025)",
    "IETF RFC 6585, §4 (429 Too Many Requests) and RFC 9110 §10.2.3 (Retry-After)",
    "Kubernetes Cluster Autoscaler FAQ (TriggeredScaleUp event: pod triggered scale-up)",
    "Kubernetes Cluster Autoscaler FAQ (scale-up for unschedulable pods, node provisioning)",
    "Kubernetes SIGs, Gateway API Inference Extension documentation (InferencePool, inference.networking.k8s.io/v1; endpoint picker and its scorers)",
    "Kubernetes docs, Concepts, Dynamic Resource Allocation",
    "Kubernetes docs, Concepts, Dynamic Resource Allocation (ResourceClaim, ResourceClaimTemplate, DeviceClass, ResourceSlice)",
    "Kubernetes documentation, Configure Liveness, Readiness and Startup Probes",
    "Kubernetes documentation, Configure Liveness, Readiness and Startup Probes (startupProbe holds off liveness and readiness until it succeeds)",
    "Kubernetes documentation, Device Plugins and Schedule GPUs (extended resources such as nvidia.com/gpu)",
    "Kubernetes documentation, Disruptions (PodDisruptionBudget) and Deployments (rolling update: maxSurge, maxUnavailable)",
    "Kubernetes documentation, Horizontal Pod Autoscaling (algorithm: desiredReplicas = ceil[currentReplicas × currentMetricValue / desiredMetricValue]; scale-down stabilization window, default 300 s)",
    "Kubernetes documentation, Network Policies (a policy selecting a pod isolates it for ingress; only allowed connections are accepted)",
    "Kubernetes documentation, Pod Lifecycle: container restarts with exponential back-off (CrashLoopBackOff)",
    "Kubernetes documentation, Resource Management for Pods and Containers (exceeding a memory limit: the container is OOM killed; Last State reason OOMKilled, exit code 137)",
    "Kubernetes documentation, Resource Quotas (quota for extended resources: requests.nvidia.com/gpu; pods rejected at admission)",
    "Kubernetes documentation, Resource Quotas (quota on extended resources such as requests.nvidia.com/gpu; a create that exceeds it is forbidden at admission)",
    "Kubernetes documentation, kube-controller-manager reference (--horizontal-pod-autoscaler-sync-period, default 15s)",
    "LMCache documentation and README (KV offload to CPU, disk and remote stores; integration with vLLM as a KV connector)",
    "LeaderWorkerSet documentation, RecreateGroupOnPodRestart restart policy",
    "Lepikhin et al., GShard: Scaling Giant Models with Conditional Computation and Automatic Sharding (ICLR 2021): expert-parallel all-to-all",
    "Li et al., EAGLE: Speculative Sampling Requires Rethinking Feature Uncertainty (ICML 2024)",
    "Lin et al., AWQ: Activation-aware Weight Quantization for LLM Compression and Acceleration (MLSys 2024)",
    "Linux kernel documentation, Control Group v2, Memory (page cache is charged to the cgroup that reads it)",
    "Linux man-pages, mmap(2) and mlock(2) (file-backed pages loaded on fault, evictable under memory pressure unless locked)",
    "Liu et al., Improved Baselines with Visual Instruction Tuning (CVPR 2024): CLIP ViT-L/14 at 336 px, 576 image tokens",
    "Liu, Zaharia and Abbeel, Ring Attention with Blockwise Transformers for Near-Infinite Context (ICLR 2024)",
    "MLC LLM documentation, Introduction (MLCEngine; model libraries compiled with Apache TVM for CUDA, ROCm, Metal, Vulkan, WebGPU; WebLLM)",
    "Microsoft Learn, AKS docs, Use NVIDIA GPU Operator with AKS",
    "Microsoft Learn, AKS docs, Use NVIDIA GPU Operator with AKS (set the node pool gpu-driver field to none, Azure CLI 2.72.2 or later)",
    "Microsoft Learn, Advanced settings configuration in WSL (.wslconfig memory and swap defaults) and Working across file systems (store files in the WSL file system for Linux tools)",
    "Microsoft Learn, Advanced settings configuration in WSL (.wslconfig memory default)",
    "Microsoft Learn, Azure OpenAI / Foundry Models, What is provisioned throughput?",
    "Microsoft Learn, Azure OpenAI / Foundry Models, What is provisioned throughput? and Provisioned throughput onboarding (PTUs billed hourly per deployed PTU, regional quota, Azure Reservations)",
    "Microsoft Learn, Azure Spot Virtual Machines and Scheduled Events (Preempt event, 30 seconds minimum notice); On-demand capacity reservation (billed at pay-as-you-go rates whether used or not)",
    "Nguyen et al., Turning Up the Heat: Min-p Sampling for Creative and Coherent LLM Outputs (ICLR 2025)",
    "Ollama, docs/windows.md (native Windows application)",
    "Ollama, docs/windows.md (native Windows application, Windows 10 22H2 or newer, no administrator rights, at least 4 GB for the install)",
    "Ollama, envconfig/config.go: OLLAMA_HOST default 127.0.0.1:11434, OLLAMA_KEEP_ALIVE default 5m, OLLAMA_NUM_PARALLEL",
    "OpenAI API docs, Flex processing and Priority processing guides",
    "OpenAI API docs, Prompt caching guide, How it works",
    "OpenAI API docs, Prompt caching guide, How it works (caching enabled automatically for prompts of 1,024 tokens or longer)",
    "OpenAI API docs, Rate limits guide, Error mitigation: the rate limit counts the maximum of max_tokens and the tokens estimated from the request's characters",
    "OpenAI API docs: Prompt caching, Flex processing, Priority processing and Rate limits guides; Help Center Batch API FAQ",
    "OpenAI API documentation, Reasoning models guide (reasoning tokens are billed as output and count against the output-token limit)",
    "OpenAI Help Center, What are tokens and how to count them? (1 token ≈ 4 characters ≈ 0.75 English words)",
    "OpenAI cookbook, Prompt_Caching_201.ipynb, §4.1 Send a prompt over 1024 tokens",
    "OpenAI cookbook, Prompt_Caching_201.ipynb, §4.4 Use prompt_cache_key (routing by a hash of the first ~256 tokens; ~15 requests per minute per prefix + key; hash and mod a user id into buckets)",
    "OpenAI cookbook, Prompt_Caching_201.ipynb, §4.4 and §6",
    "OpenAI status page, incident ctrsv3lwd797 (11 December 2024)",
    "OpenAI status page, incident ctrsv3lwd797, Root cause",
    "Patarasuk and Yuan, Bandwidth Optimal All-reduce Algorithms for Clusters of Workstations (JPDC 2009): the ring all-reduce",
    "Patel et al., Splitwise: Efficient Generative LLM Inference Using Phase Splitting (ISCA 2024)",
    "Prometheus documentation, Histograms and summaries (aggregating histogram buckets; histogram_quantile)",
    "Python documentation, argparse: ArgumentParser.error prints the usage and exits with status 2; parse_args reports unrecognized arguments",
    "Qin et al., Mooncake: A KVCache-centric Disaggregated Architecture for LLM Serving (FAST 2025)",
    "Radford et al., Language Models are Unsupervised Multitask Learners (OpenAI 2019), §2.2 (byte-level BPE input representation)",
    "Schroeder, Wierman and Harchol-Balter, Open Versus Closed: A Cautionary Tale (NSDI 2006)",
    "Sennrich et al., Neural Machine Translation of Rare Words with Subword Units (ACL 2016), §3.2 (byte pair encoding)",
    "Shah et al., FlashAttention-3: Fast and Accurate Attention with Asynchrony and Low-precision (NeurIPS 2024)",
    "Sheng et al., S-LoRA: Serving Thousands of Concurrent LoRA Adapters (MLSys 2024): unified paging of adapters and KV",
    "Xiao et al., C-Pack: Packed Resources For General Chinese Embeddings (SIGIR 2024): the BGE embedding models",
    "Xiao et al., SmoothQuant: Accurate and Efficient Post-Training Quantization for Large Language Models (ICML 2023)",
    "Yu et al., Orca: A Distributed Serving System for Transformer-Based Generative Models (OSDI 2022), §3 (iteration-level scheduling, selective batching)",
    "Zhang and Sennrich, Root Mean Square Layer Normalization (NeurIPS 2019)",
    "Zheng et al., \"SGLang: Efficient Execution of Structured Language Model Programs\", NeurIPS 2024, §3",
    "Zheng et al., \"SGLang: Efficient Execution of Structured Language Model Programs\", NeurIPS 2024, §3 (RadixAttention, cache-aware scheduling)",
    "Zheng et al., \"SGLang: Efficient Execution of Structured Language Model Programs\", NeurIPS 2024, §3 (RadixAttention, cache-aware scheduling) and §4 (compressed finite state machines)",
    "Zheng et al., SGLang: Efficient Execution of Structured Language Model Programs (NeurIPS 2024): RadixAttention and compressed-FSM jump-forward decoding",
    "Zhu et al., Congestion Control for Large-Scale RDMA Deployments (SIGCOMM 2015): DCQCN over PFC and ECN",
    "deepseek-ai/DeepEP README (high-throughput and low-latency all-to-all kernels for expert parallelism)",
    "deepseek-ai/EPLB README (expert-parallel load balancer: redundant experts, hierarchical and global policies)",
    "ggml, docs/gguf.md (GGUF file format: key-value metadata, tensor infos with per-tensor types, aligned data for mmap)",
    "guidance-ai/llguidance README (Earley-based grammar engine, token masks per step)",
    "kubernetes-sigs/lws, README.md (group as unit of replication; all-or-nothing restart)",
    "kubernetes-sigs/lws, README.md and docs (group as a unit of replication, RecreateGroupOnPodRestart)",
    "kubernetes/kubernetes, pkg/kubelet/images/image_manager.go: EnsureImageExists (\"Successfully pulled image %q in %v (%v including waiting). Image size: %v bytes.\")",
    "kubernetes/kubernetes, pkg/kubelet/prober (\"Liveness probe failed\", \"Readiness probe failed\" events) and pkg/kubelet/kuberuntime (\"Container %s failed liveness probe, will be restarted\")",
    "kubernetes/kubernetes, plugin/pkg/admission/resourcequota (\"exceeded quota: %s, requested: %s, used: %s, limited: %s\")",
    "llama.cpp, ggml/src/ggml-common.h: block_q4_K, block_q6_K, block_q8_0 (block layouts and sizes)",
    "llama.cpp, src/llama-quant.cpp: llama_tensor_get_type (Q4_K_M keeps parts of attn_v and ffn_down at Q6_K); tools/quantize/quantize.cpp: QUANT_OPTIONS",
    "llama.cpp, tools/server/README.md (llama-server: slots, --parallel, --kv-unified)",
    "llama.cpp, tools/server/README.md and common/arg.cpp (llama-server options: -ngl, -c, --parallel, --mlock, --no-mmap)",
    "llm-d documentation, architecture (inference scheduler with prefix-cache-aware and load-aware scorers, prefill/decode disaggregation)",
    "ollama, envconfig/config.go (OLLAMA_KEEP_ALIVE default 5 minutes) and docs/faq.md",
    "openai/openai-python, src/openai/types/realtime/realtime_audio_input_turn_detection.py: ServerVad (silence_duration_ms default 500 ms)",
    "openai/openai-python, src/openai/types/realtime/realtime_audio_input_turn_detection.py: ServerVad (silence_duration_ms default 500 ms), SemanticVad (eagerness)",
    "openai/openai-python, src/openai/types/realtime/realtime_audio_input_turn_detection.py: ServerVad (threshold 0.5, prefix_padding_ms 300, silence_duration_ms 500, interrupt_response) and SemanticVad (eagerness max timeouts 8 s, 4 s, 2 s); realtime_audio_formats.py: AudioPCM (rate 24000)",
    "openai/openai-python, src/openai/types/realtime/realtime_audio_input_turn_detection.py: ServerVad, SemanticVad",
    "vLLM v0.33.0, vllm/v1/spec_decode/: eagle.py, draft_model.py, ngram_proposer.py",
})


def project_file_problem(source: str, root: Path = REPO_ROOT) -> str | None:
    """Why a citation of this repository's own files cannot be followed (None when every file and name is there)."""
    for path, name in PROJECT_FILE.findall(source):
        if not (root / path).is_file():
            return f"no file {path}"
        if name and not re.search(rf"\b{re.escape(name)}\b", (root / path).read_text(encoding="utf-8")):
            return f"{path} has no {name}"
    return None


def checkable(source: str) -> bool:
    if URL.search(source) or REPO_AT.search(source) or PINNED.search(source):
        return True
    return bool(PROJECT_FILE.search(source)) and project_file_problem(source) is None


def _walk(node, found: list[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "sources" and isinstance(value, list):
                found.extend(value)
            else:
                _walk(value, found)
    elif isinstance(node, list):
        for value in node:
            _walk(value, found)


def fixture_sources(root: Path = FIXTURES_DIR) -> list[tuple[str, object]]:
    """(file, entry) for every entry of every `sources` list under ``root``."""
    found: list[tuple[str, object]] = []
    documents = [(path, path.read_text(encoding="utf-8")) for path in sorted(root.rglob("*.yaml"))]
    for path in sorted((root / "chapters").rglob("*.md")):
        match = FRONT_MATTER.match(path.read_text(encoding="utf-8"))
        if match:
            documents.append((path, match.group(1)))
    for path, text in documents:
        entries: list = []
        _walk(yaml.safe_load(text), entries)
        found.extend((path.relative_to(root).as_posix(), entry) for entry in entries)
    return found


def problems(root: Path = FIXTURES_DIR, allowed: frozenset[str] = NOT_YET_CHECKABLE) -> list[str]:
    sources = fixture_sources(root)
    found = [f"{where}: not checkable (no https:// URL, no repository path at a release or commit): {entry!r}"
             for where, entry in sources
             if not isinstance(entry, str) or (entry not in allowed and not checkable(entry))]
    present = {entry for _, entry in sources}
    found += [f"NOT_YET_CHECKABLE lists an entry no fixture has any more (remove it): {entry!r}"
              for entry in sorted(allowed - present)]
    return found


def test_every_fixture_source_is_checkable():
    assert problems() == []


def test_the_fixtures_have_sources():
    assert len(fixture_sources()) > 1000


def test_the_check_names_unverifiable_entries_and_stale_allow_list_entries(tmp_path):
    root = tmp_path / "fixtures"
    (root / "chapters" / "basics").mkdir(parents=True)
    (root / "chapters" / "basics" / "01-a.md").write_text(
        "---\nslug: a\nsources:\n- 'vLLM v0.33.0, vllm/config/cache.py: CacheConfig'\n- Someone, a blog post\n---\nBody.\n")
    (root / "q.yaml").write_text(
        "- slug: q\n  sources:\n  - https://arxiv.org/abs/2309.06180, §4.5\n"
        "  - 'microsoft/vidur at 0c1a57a, vidur/x.py: f'\n  - A datasheet (3.35 TB/s)\n  - Allowed one\n")
    assert problems(root, allowed=frozenset({"Allowed one", "Gone one"})) == [
        "q.yaml: not checkable (no https:// URL, no repository path at a release or commit): 'A datasheet (3.35 TB/s)'",
        "chapters/basics/01-a.md: not checkable (no https:// URL, no repository path at a release or commit): "
        "'Someone, a blog post'",
        "NOT_YET_CHECKABLE lists an entry no fixture has any more (remove it): 'Gone one'",
    ]


def test_a_citation_of_this_repository_names_a_file_and_a_name_it_holds(tmp_path):
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "m.py").write_text("def plan_capacity():\n    pass\n")
    assert project_file_problem("Interview kit, apps/m.py: plan_capacity (ρ)", tmp_path) is None
    assert project_file_problem("Interview kit, apps/m.py: plan_capacty", tmp_path) == "apps/m.py has no plan_capacty"
    assert project_file_problem("Interview kit, apps/gone.py: f", tmp_path) == "no file apps/gone.py"
    # The real tree: every own citation in the fixtures resolves.
    assert [entry for _, entry in fixture_sources() if PROJECT_FILE.search(entry) and project_file_problem(entry)] == []


def test_each_entry_fits_the_api_limit():
    from apps.courses.serializers import MAX_SOURCE_LENGTH

    assert [entry for _, entry in fixture_sources() if len(entry) > MAX_SOURCE_LENGTH] == []
