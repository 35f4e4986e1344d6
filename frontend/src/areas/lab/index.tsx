import type { ComponentType } from "react";
import { Route, Routes, useLocation } from "react-router-dom";
import EngineArea from "./engine";
import SweepsArea from "./sweeps";
import MainLab, { ToolNav } from "./MainLab";
import RequestWalkPanel from "./RequestWalk";
import { K8sManifestPanel, K8sPendingPanel, K8sQuotaGatesPanel, K8sRotationPanel } from "./k8s";
import {
  CapacityPanel, CollectivesPanel, FitPanel, KVCachePanel, MoEPanel, PagedKVPanel, PrefixCachePanel, ServeConfigPanel,
  SpeculativePanel, StepTimePanel, ThroughputLatencyPanel,
} from "./panels";
import "./lab.css";

const PANELS: Record<string, ComponentType> = {
  "kv-cache": KVCachePanel, fit: FitPanel, "step-time": StepTimePanel, "throughput-latency": ThroughputLatencyPanel,
  capacity: CapacityPanel, speculative: SpeculativePanel, collectives: CollectivesPanel, "paged-kv": PagedKVPanel,
  "prefix-cache": PrefixCachePanel, moe: MoEPanel, "request-walk": RequestWalkPanel, "serve-config": ServeConfigPanel,
  "k8s-pending": K8sPendingPanel, "k8s-quota-gates": K8sQuotaGatesPanel, "k8s-rotation": K8sRotationPanel, "k8s-manifest": K8sManifestPanel,
};

function Panel() {
  const tool = useLocation().pathname.replace(/^\/lab\/?/, "").split("/")[0];
  const Component = PANELS[tool];
  return Component ? <Component /> : <p>No simulator called “{tool}”.</p>;
}

export default function LabArea() {
  return (
    <div className="lab">
      <ToolNav />
      <Routes>
        <Route index element={<MainLab />} />
        <Route path="engine/*" element={<EngineArea />} />
        <Route path="sweeps/*" element={<SweepsArea />} />
        <Route path=":tool" element={<Panel />} />
      </Routes>
    </div>
  );
}
