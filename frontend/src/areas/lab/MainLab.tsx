// The main Lab: one configuration, every view (memory, step time, roofline, throughput–latency, cost) updating together.
import { Link } from "react-router-dom";
import labPages from "../../generated/lab-pages.json";
import { DtypePicker, Explain, ModelGpuPicker, NumberInput } from "./form";
import { useQueryState, useSimulation } from "./lib";
import { BASE_DEFAULTS, capacityBody, curveBody, fitBody, stepBody } from "./panels";
import { CostView, CurveView, MemoryView, StepView } from "./views";

// One list of Lab pages for the whole product: apps/core/registry.py, written here by `manage.py export_lab_pages`.
export const TOOLS: { name: string; title: string; path: string }[] = labPages;

export default function MainLab() {
  const [v, set] = useQueryState({ ...BASE_DEFAULTS, output_tokens: "256", requests_per_s: "10", ttft_p99_s: "2", tpot_s: "0.05" });
  const fit = useSimulation("fit", fitBody(v));
  const step = useSimulation("step-time", stepBody({ ...v, phase: "decode" }));
  const curve = useSimulation("throughput-latency", curveBody(v));
  const cost = useSimulation("capacity", capacityBody(v));
  return (
    <section className="lab-tool">
      <h1>Inference Lab</h1>
      <p>Pick a model and a GPU; every chart follows. The address bar holds the whole state — copy it to share.</p>
      <div className="lab-grid">
        <form className="lab-form" aria-label="Lab inputs" onSubmit={(e) => e.preventDefault()}>
          <ModelGpuPicker values={v} set={set} error={fit.error} />
          <DtypePicker values={v} set={set} />
          <NumberInput name="context_tokens" label="Context tokens" values={v} set={set} error={fit.error} />
          <NumberInput name="batch_size" label="Batch size" values={v} set={set} error={fit.error} />
          <NumberInput name="tensor_parallel" label="Tensor parallel" values={v} set={set} error={fit.error} />
          <NumberInput name="output_tokens" label="Output tokens" values={v} set={set} error={curve.error} />
          <NumberInput name="requests_per_s" label="Requests/s (cost)" values={v} set={set} min={0} error={cost.error} />
        </form>
        <div className="lab-results" aria-busy={fit.loading || step.loading || curve.loading || cost.loading}>
          <h2>Memory</h2>
          {fit.data && <MemoryView fit={fit.data} />}
          <Explain data={fit.data} error={fit.error} loading={fit.loading} />
          <h2>Decode step</h2>
          {step.data && <StepView step={step.data} />}
          <Explain data={step.data} error={step.error} loading={step.loading} />
          <h2>Throughput vs latency</h2>
          {curve.data && <CurveView curve={curve.data} highlight={Number(v.batch_size)} />}
          <Explain data={curve.data} error={curve.error} loading={curve.loading} />
          <h2>Cost</h2>
          {cost.data && <CostView cap={cost.data} fit={fit.data} formTp={Number(v.tensor_parallel) || 1} />}
          <Explain data={cost.data} error={cost.error} loading={cost.loading} />
        </div>
      </div>
    </section>
  );
}

export function ToolNav() {
  return (
    <nav aria-label="Simulators" className="lab-nav">
      <Link to="/lab">Lab</Link>
      {TOOLS.map((page) => <Link key={page.name} to={page.path}>{page.title}</Link>)}
    </nav>
  );
}
