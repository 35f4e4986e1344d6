// Kubernetes for inference: the Pending-pod debugger, the quota gates, a GPU node-pool rotation and the manifest explorer.
import { useEffect, useRef, useState } from "react";
import type { components } from "../../../generated/api";
import { api, ApiError } from "../../../lib/api";
import { C, Plot } from "../charts";
import { Explain, NumberInput, SelectInput, Stat } from "../form";
import { fmtNum, num, useQueryState } from "../lib";
import { Tool } from "../panels";
import "./k8s.css";

type Schemas = components["schemas"];
interface K8sResults {
  "k8s-pending": Schemas["K8sPendingOutput"];
  "k8s-quota-gates": Schemas["K8sQuotaGatesOutput"];
  "k8s-rotation": Schemas["K8sRotationOutput"];
  "k8s-manifest": Schemas["K8sManifestOutput"];
}

/** POST `body` to /simulators/<name>/ 150 ms after the last change; a newer change aborts the older request. */
function useK8s<Name extends keyof K8sResults>(name: Name, body: object) {
  type Data = K8sResults[Name];
  const [state, setState] = useState<{ data: Data | null; error: ApiError | null }>({ data: null, error: null });
  const key = JSON.stringify(body);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => {
    const timer = window.setTimeout(() => {
      controller.current?.abort();
      const ctrl = new AbortController();
      controller.current = ctrl;
      api<Data>(`/simulators/${name}/`, { method: "POST", body: JSON.parse(key), signal: ctrl.signal })
        .then((data) => { if (!ctrl.signal.aborted) setState({ data, error: null }); })
        .catch((err) => {
          if (ctrl.signal.aborted) return;
          setState({ data: null, error: err instanceof ApiError ? err : new ApiError(0, { error: "network", detail: String(err), fields: {} }) });
        });
    }, 150);
    return () => window.clearTimeout(timer);
  }, [name, key]);
  useEffect(() => () => controller.current?.abort(), []);
  return state;
}

const yes = (v: string) => v === "yes";
const GPU_TAINT = [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" }];

/** Resources as a manifest writes them: cores, memory with a binary suffix, whole GPUs under the device plugin's name. */
const res = (cpu: number, memoryGi: number, gpus: number) => ({ cpu, memory: `${memoryGi}Gi`, "nvidia.com/gpu": gpus });

/** A small cluster: two tainted H100 nodes (one partly used by a low-priority batch job), an A100 node and a CPU node. */
function cluster(v: Record<string, string>) {
  return [
    { name: "h100-a", allocatable: res(190, 1900, 8), labels: { gpu: "h100" }, taints: GPU_TAINT,
      pods: [{ name: "batch-train", requests: res(32, 256, num(v.batch_gpus, 6)), priority: 0 }],
      unschedulable: yes(v.cordon_a) },
    { name: "h100-b", allocatable: res(190, 1900, 8), labels: { gpu: "h100" }, taints: GPU_TAINT,
      pods: [{ name: "vllm-70b", requests: res(32, 512, 8), priority: 1000 }] },
    { name: "a100-a", allocatable: res(94, 1100, 8), labels: { gpu: "a100" }, taints: GPU_TAINT },
    { name: "cpu-a", allocatable: res(64, 256, 0), labels: { pool: "cpu" } },
  ];
}

export function K8sPendingPanel() {
  const [v, set] = useQueryState({ gpus: "4", cpu: "16", memory_gib: "128", tolerate: "no", selector: "h100", priority: "0",
    batch_gpus: "6", cordon_a: "no", quota: "16", quota_used: "8" });
  const gpus = num(v.gpus, 0);
  const resources = res(num(v.cpu, 0), num(v.memory_gib, 0), gpus);
  const quota = num(v.quota, 0);
  const { data, error } = useK8s("k8s-pending", {
    pod: {
      name: "vllm-0", namespace: "inference", requests: resources, limits: resources, priority: num(v.priority, 0),
      node_selector: v.selector === "any" ? {} : { gpu: v.selector },
      tolerations: yes(v.tolerate) ? [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }] : [],
    },
    nodes: cluster(v),
    quota: quota > 0 ? { name: "gpu-quota", hard: { "requests.nvidia.com/gpu": quota }, used: { "requests.nvidia.com/gpu": num(v.quota_used, 0) } } : null,
  });
  return (
    <Tool title="Pending-pod debugger" form={<>
      <NumberInput name="gpus" label="nvidia.com/gpu (requests = limits)" values={v} set={set} min={0} step={1} error={error} />
      <NumberInput name="cpu" label="CPU cores" values={v} set={set} min={0} error={error} />
      <NumberInput name="memory_gib" label="Memory (GiB)" values={v} set={set} min={0} error={error} />
      <SelectInput name="tolerate" label="Toleration nvidia.com/gpu:NoSchedule" values={v} set={set} options={["no", "yes"]} />
      <SelectInput name="selector" label="nodeSelector gpu=" values={v} set={set} options={["h100", "a100", "b200", "any"]} />
      <NumberInput name="priority" label="Priority" values={v} set={set} min={0} step={100} error={error} />
      <NumberInput name="batch_gpus" label="GPUs the batch job holds on h100-a" values={v} set={set} min={0} max={8} step={1} error={error} />
      <SelectInput name="cordon_a" label="Cordon h100-a" values={v} set={set} options={["no", "yes"]} />
      <NumberInput name="quota" label="Namespace quota requests.nvidia.com/gpu (0: none)" values={v} set={set} min={0} step={1} error={error} />
      <NumberInput name="quota_used" label="GPUs already used in the namespace" values={v} set={set} min={0} step={1} error={error} />
    </>}>
      {data && (<>
        <dl className="lab-stats">
          <Stat label="Pod phase" value={data.phase} testId="k8s-phase" />
          <Stat label="Node" value={data.node ?? "–"} />
        </dl>
        <pre className="lab-event" data-testid="k8s-event"><code>{data.event}</code></pre>
        {data.nodes.length > 0 && (
          <table className="lab-table"><thead><tr><th>Node</th><th>Free GPUs</th><th>Plugin</th><th>First reason</th></tr></thead>
            <tbody>{data.nodes.map((n) => (
              <tr key={n.name}><td>{n.name}</td><td>{fmtNum(n.free.gpu)}</td><td>{n.plugin ?? "fits"}</td><td>{n.reason ?? "✓"}</td></tr>
            ))}</tbody>
          </table>
        )}
        {data.preemption && <p className="lab-note">{data.preemption.message}</p>}
        {data.fix.length > 0 && (
          <div className="lab-note" data-testid="k8s-fix"><strong>Smallest fix{data.fix_node ? ` (${data.fix_node})` : ""}: </strong>
            <ul>{data.fix.map((f) => <li key={f}>{f}</li>)}</ul></div>
        )}
      </>)}
      <Explain data={data} error={error} />
    </Tool>
  );
}

export function K8sQuotaGatesPanel() {
  const [v, set] = useQueryState({ desired_replicas: "8", gpus_per_replica: "2", gpus_per_node: "8", existing_nodes: "1",
    cloud_gpu_quota: "32", cloud_gpus_in_use: "8", instances_available: "2", pool_max_nodes: "4", namespace_gpu_quota: "16",
    namespace_gpus_used: "0", gpus_used_by_other_pods: "0" });
  const nsQuota = v.namespace_gpu_quota === "" ? null : num(v.namespace_gpu_quota, 0);
  const { data, error } = useK8s("k8s-quota-gates", {
    desired_replicas: num(v.desired_replicas, 0), gpus_per_replica: num(v.gpus_per_replica, 0), gpus_per_node: num(v.gpus_per_node, 0),
    existing_nodes: num(v.existing_nodes, 0), cloud_gpu_quota: num(v.cloud_gpu_quota, 0), cloud_gpus_in_use: num(v.cloud_gpus_in_use, 0),
    instances_available: num(v.instances_available, 0), pool_max_nodes: num(v.pool_max_nodes, 0), namespace_gpu_quota: nsQuota,
    namespace_gpus_used: num(v.namespace_gpus_used, 0), gpus_used_by_other_pods: num(v.gpus_used_by_other_pods, 0),
  });
  const inputs: [string, string][] = [
    ["desired_replicas", "Want replicas"], ["gpus_per_replica", "GPUs per replica"], ["gpus_per_node", "GPUs per node"],
    ["existing_nodes", "Nodes already in the pool"], ["cloud_gpu_quota", "Cloud GPU quota (region)"],
    ["cloud_gpus_in_use", "GPUs in use against it"], ["instances_available", "Instances the zone can give"],
    ["pool_max_nodes", "Node pool max size"], ["namespace_gpu_quota", "Namespace quota requests.nvidia.com/gpu (blank: none)"],
    ["namespace_gpus_used", "GPUs used in the namespace"], ["gpus_used_by_other_pods", "GPUs held by other pods"],
  ];
  return (
    <Tool title="Quota gates" form={<>
      {inputs.map(([name, label]) => <NumberInput key={name} name={name} label={label} values={v} set={set} min={0} step={1} error={error} />)}
    </>}>
      {data && (<>
        <dl className="lab-stats">
          <Stat label="Serving" value={`${data.serving_replicas} of ${data.desired_replicas}`} testId="k8s-serving" />
          <Stat label="Stops at" value={data.stopped_at ?? "nothing: every gate passes"} testId="k8s-stopped-at" />
          <Stat label="Replicas per node" value={`${data.replicas_per_node} (${data.stranded_gpus_per_node} GPU stranded)`} />
        </dl>
        <ol className="lab-gates">
          {data.gates.map((g) => (
            <li key={g.name} className={g.stops_here ? "lab-gate-stop" : undefined}>
              <strong>{g.name}</strong>: {g.passing_replicas} of {data.desired_replicas} pass
              <div className="lab-gate-bar" style={{ width: `${Math.round(100 * g.passing_replicas / Math.max(data.desired_replicas, 1))}%`, background: g.stops_here ? C.waste : C.kv }} />
              <small>{g.detail}</small>
              {g.message && <p className="lab-warning"><code>{g.message}</code></p>}
              {g.fix && <p className="lab-note">Fix: {g.fix}</p>}
            </li>
          ))}
        </ol>
      </>)}
      <Explain data={data} error={error} />
    </Tool>
  );
}

export function K8sRotationPanel() {
  const [v, set] = useQueryState({ nodes: "4", gpus_per_node: "8", gpus_per_replica: "2", replicas: "16", replicas_needed: "12",
    pdb_min_available: "12", max_surge: "1", max_unavailable: "0", node_provision_s: "300", image_pull_s: "120",
    model_download_s: "600", model_load_s: "60", warmup_s: "30", pre_pulled_image: "no", model_cache: "no" });
  const { data, error } = useK8s("k8s-rotation", {
    nodes: num(v.nodes, 0), gpus_per_node: num(v.gpus_per_node, 0), gpus_per_replica: num(v.gpus_per_replica, 0),
    replicas: num(v.replicas, 0), replicas_needed: num(v.replicas_needed, 0), pdb_min_available: num(v.pdb_min_available, 0),
    max_surge: num(v.max_surge, 0), max_unavailable: num(v.max_unavailable, 0), node_provision_s: num(v.node_provision_s, 0),
    image_pull_s: num(v.image_pull_s, 0), model_download_s: num(v.model_download_s, 0), model_load_s: num(v.model_load_s, 0),
    warmup_s: num(v.warmup_s, 0), pre_pulled_image: yes(v.pre_pulled_image), model_cache: yes(v.model_cache),
  });
  const inputs: [string, string][] = [
    ["nodes", "Nodes in the pool"], ["gpus_per_node", "GPUs per node"], ["gpus_per_replica", "GPUs per replica"],
    ["replicas", "Replicas"], ["replicas_needed", "Replicas the traffic needs"], ["pdb_min_available", "PDB minAvailable (0: none)"],
    ["max_surge", "maxSurge (nodes)"], ["max_unavailable", "maxUnavailable (nodes)"], ["node_provision_s", "New node Ready (s)"],
    ["image_pull_s", "Image pull (s)"], ["model_download_s", "Model download (s)"], ["model_load_s", "Load to GPU (s)"],
    ["warmup_s", "Warm-up (s)"],
  ];
  const end = data ? Math.max(...data.timeline.map((p) => p.t_s), 1) : 1;
  const steps = (pick: (p: Schemas["K8sRotationPoint"]) => number): [number, number][] => data
    ? data.timeline.flatMap((p, i) => {
      const next = data.timeline[i + 1]?.t_s ?? end * 1.05;
      return [[p.t_s, pick(p)], [next, pick(p)]] as [number, number][];
    }) : [];
  return (
    <Tool title="Node rotation" form={<>
      {inputs.map(([name, label]) => <NumberInput key={name} name={name} label={label} values={v} set={set} min={0} error={error} />)}
      <SelectInput name="pre_pulled_image" label="Image pre-pulled on new nodes" values={v} set={set} options={["no", "yes"]} />
      <SelectInput name="model_cache" label="Model cache (no download)" values={v} set={set} options={["no", "yes"]} />
    </>}>
      {data && (<>
        <dl className="lab-stats">
          <Stat label="Lowest serving" value={`${data.min_serving} (need ${data.replicas_needed})`} testId="k8s-min-serving" />
          <Stat label="Below the need" value={`${fmtNum(data.seconds_below_need)} s`} testId="k8s-below" />
          <Stat label="Rotation done" value={data.duration_s == null ? "never" : `${fmtNum(data.duration_s)} s`} testId="k8s-duration" />
          <Stat label="Replica start (new node)" value={`${fmtNum(data.pod_start_s_new_node)} s`} />
        </dl>
        {data.stuck && <p className="lab-warning" role="status" data-testid="k8s-stuck">⚠ {data.stuck_reason}</p>}
        <Plot title="Serving replicas during the rotation" xLabel="seconds" yLabel="replicas" fmtX={(x) => `${Math.round(x)}`}
          fmtY={(y) => `${Math.round(y)}`} xDomain={[0, end * 1.05]}
          series={[
            { label: "serving (Ready)", color: C.compute, points: steps((p) => p.serving) },
            { label: "starting (pull, load, warm-up)", color: C.waste, points: steps((p) => p.starting), dashed: true },
            { label: "needed by traffic", color: C.tokens, points: [[0, data.replicas_needed], [end * 1.05, data.replicas_needed]], dashed: true },
          ]} />
        <table className="lab-table"><thead><tr><th>Option</th><th>Done</th><th>Lowest serving</th><th>s below need</th><th>replica·s short</th></tr></thead>
          <tbody>{data.options.map((o) => (
            <tr key={o.name}><td>{o.name}</td><td>{o.stuck ? "stuck" : o.duration_s == null ? "–" : `${fmtNum(o.duration_s)} s`}</td>
              <td>{o.min_serving}</td><td>{fmtNum(o.seconds_below_need)}</td><td>{fmtNum(o.replica_seconds_short)}</td></tr>
          ))}</tbody>
        </table>
      </>)}
      <Explain data={data} error={error} />
    </Tool>
  );
}

/** The serving manifests annotated line by line; edit them and the checker marks each mistake on its line. */
export function K8sManifestPanel() {
  const [v, set] = useQueryState({ tp: "2", load_s: "600" });
  const [edited, setEdited] = useState<string | null>(null);
  const shape = { tp: num(v.tp, 1), load_s: num(v.load_s, 600) };
  const { data, error } = useK8s("k8s-manifest", edited === null ? shape : { ...shape, yaml: edited });
  const [shown, setShown] = useState<Schemas["K8sManifestOutput"] | null>(null);
  useEffect(() => { if (data) setShown(data); }, [data]);
  const text = edited ?? shown?.yaml ?? "";
  const notes = new Map<number, string[]>();
  for (const n of shown?.annotations ?? []) notes.set(n.line, [...(notes.get(n.line) ?? []), n.note]);
  const findings = new Map<number, Schemas["K8sManifestFinding"][]>();
  for (const f of shown?.findings ?? []) findings.set(f.line, [...(findings.get(f.line) ?? []), f]);
  const yamlError = error?.fieldMessage("yaml");
  return (
    <Tool title="Manifest explorer" form={<>
      <SelectInput name="tp" label="Tensor parallel (GPUs per replica)" values={v} set={(p) => { setEdited(null); set(p); }}
        options={["1", "2", "4", "8", "16"]} />
      <NumberInput name="load_s" label="Worst cold start (s)" values={v} set={set} min={1} error={error} />
      <label className="lab-field k8s-yaml-field">
        <span>Manifests (edit them)</span>
        <textarea aria-label="Manifests" spellCheck={false} rows={18} value={text}
          onChange={(e) => setEdited(e.target.value)} />
        {yamlError && <span className="field-error" role="alert" data-testid="k8s-yaml-error">{yamlError}</span>}
      </label>
      {edited !== null && <button type="button" onClick={() => setEdited(null)}>Back to the generated manifests</button>}
    </>}>
      {shown && (<>
        <dl className="lab-stats">
          <Stat label="Documents" value={shown.kinds.join(", ")} testId="k8s-kinds" />
          <Stat label="Mistakes" value={shown.findings.length ? `${shown.findings.length}` : "none"} testId="k8s-mistakes" />
        </dl>
        {shown.findings.length > 0 && (
          <ul className="k8s-findings" data-testid="k8s-findings">
            {shown.findings.map((f) => <li key={`${f.line}-${f.field}`} className={`k8s-${f.severity}`}>line {f.line}: {f.message}</li>)}
          </ul>
        )}
        <ol className="k8s-manifest" aria-label="Annotated manifests">
          {shown.yaml.split("\n").map((line, i) => {
            const number = i + 1;
            const bad = findings.get(number);
            return (
              <li key={number} className={bad ? `k8s-line k8s-line-${bad.some((f) => f.severity === "error") ? "error" : "warning"}` : "k8s-line"}
                data-testid={`k8s-line-${number}`}>
                <code>{line || " "}</code>
                {(notes.get(number) ?? []).map((n) => <small key={n} className="k8s-note">{n}</small>)}
                {(bad ?? []).map((f) => <small key={f.field} className="k8s-finding" role="note">⚠ {f.message}</small>)}
              </li>
            );
          })}
        </ol>
      </>)}
      <Explain data={data} error={yamlError ? null : error} />
    </Tool>
  );
}

export const PANELS = {
  "k8s-pending": K8sPendingPanel, "k8s-quota-gates": K8sQuotaGatesPanel, "k8s-rotation": K8sRotationPanel,
  "k8s-manifest": K8sManifestPanel,
};
