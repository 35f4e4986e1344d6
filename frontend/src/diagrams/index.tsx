// Mounts a live diagram on every <figure class="diagram"> the server rendered into the chapter body. The chapter HTML
// is never re-rendered: each figure gets a host element and a portal from the reader's tree (router context kept).
import { useEffect, useState, type ComponentType } from "react";
import { createPortal } from "react-dom";
import "./diagrams.css";
import { PrefillDecode, RequestLifecycle, Roofline, ThroughputLatency } from "./compute";
import { PatternDefs, REGISTRY, withDefaults, type Params } from "./kit";
import { KvGrowth, MemoryBreakdown, PagedBlocks, PrefixHashChain } from "./memory";
import { MoeLoad, Speculative, TokenCost, TpAllReduce } from "./scale";
import { Autoscaling, ExpertAllToAll, PdTransfer, PipelineBubbles } from "./serving";
import { Sampling } from "./sampling";
import { BatchingStepper } from "./stepper";
import { Tokenization } from "./tokens";

export const DIAGRAM_COMPONENTS: Record<string, ComponentType<{ params: Params }>> = {
  "kv-growth": KvGrowth, "prefill-decode": PrefillDecode, roofline: Roofline, "paged-blocks": PagedBlocks,
  "memory-breakdown": MemoryBreakdown, speculative: Speculative, "prefix-hash-chain": PrefixHashChain,
  "tp-allreduce": TpAllReduce, "token-cost": TokenCost, "moe-load": MoeLoad, "throughput-latency": ThroughputLatency,
  "request-lifecycle": RequestLifecycle, "pipeline-bubbles": PipelineBubbles, "ep-all-to-all": ExpertAllToAll,
  "pd-transfer": PdTransfer, autoscaling: Autoscaling, tokenization: Tokenization,
  "batching-stepper": BatchingStepper, sampling: Sampling,
};

interface Mount { host: HTMLElement; name: string; params: Params }

export function DiagramMounts({ container, html }: { container: React.RefObject<HTMLElement | null>; html: string }) {
  const [mounts, setMounts] = useState<Mount[]>([]);
  useEffect(() => {
    const body = container.current;
    if (!body) return;
    const found: Mount[] = [];
    body.querySelectorAll<HTMLElement>("figure.diagram[data-diagram]").forEach((figure) => {
      const name = figure.dataset.diagram ?? "";
      if (!DIAGRAM_COMPONENTS[name] || !REGISTRY[name]) return;
      let params: Params = {};
      try { params = JSON.parse(figure.dataset.params || "{}"); } catch { /* keep the fallback's defaults */ }
      let host = figure.querySelector<HTMLElement>(":scope > .diagram-host");
      if (!host) {
        host = document.createElement("div");
        host.className = "diagram-host";
        figure.appendChild(host);
      }
      figure.setAttribute("data-live", "");
      found.push({ host, name, params: withDefaults(name, params) });
    });
    setMounts(found);
  }, [container, html]);
  if (mounts.length === 0) return null;
  return (
    <>
      <PatternDefs />
      {mounts.map((m, i) => {
        const Diagram = DIAGRAM_COMPONENTS[m.name];
        return createPortal(<Diagram params={m.params} />, m.host, `${m.name}-${i}`);
      })}
    </>
  );
}
