// The diagnosis game: an investigation whose cause is the bottleneck (compute, memory, communication, scheduling,
// workload); the Kubernetes incident game is the same investigation over incidents.
import Investigation from "./Investigation";

const COLOURS: Record<string, string> = {
  compute: "var(--c-compute)", memory: "var(--c-memory)", communication: "var(--c-communication)",
  scheduling: "var(--c-decode)", workload: "var(--c-tokens)",
};

export default function Diagnosis() {
  return (
    <Investigation game="diagnosis" title="Diagnosis game" colours={COLOURS}
      intro="Is it compute-, memory-, communication-, scheduling- or workload-bound? Ask for metrics, logs, profiles or config, at most five, then name the bottleneck." />
  );
}

export function K8sIncidents() {
  return (
    <Investigation game="k8s-incident" title="Kubernetes incident game"
      intro="A vLLM deployment on Kubernetes misbehaves. Inspect events, logs, metrics and config, at most five, then name the cause." />
  );
}
