// Form controls bound to the query string, and the shared result furniture (note, warnings, derivation, errors).
import type { ReactNode } from "react";
import type { ApiError } from "../../lib/api";
import { DTYPES, useCatalog, type CatalogModel, type Result } from "./lib";

type Set = (patch: Record<string, string | null>) => void;

export function NumberInput({ name, label, values, set, min = 1, max, step, error }: {
  name: string; label: string; values: Record<string, string>; set: Set; min?: number; max?: number; step?: number | string; error?: ApiError | null;
}) {
  const message = error?.fieldMessage(name);
  return (
    <label className="lab-field">
      <span>{label}</span>
      <input type="number" name={name} value={values[name] ?? ""} min={min} max={max} step={step ?? "any"}
        aria-invalid={message ? true : undefined} onChange={(e) => set({ [name]: e.target.value })} />
      {message && <small role="alert" className="lab-error">{message}</small>}
    </label>
  );
}

export function SelectInput({ name, label, values, set, options }: {
  name: string; label: string; values: Record<string, string>; set: Set; options: (string | [string, string])[];
}) {
  return (
    <label className="lab-field">
      <span>{label}</span>
      <select name={name} aria-label={label} value={values[name] ?? ""} onChange={(e) => set({ [name]: e.target.value })}>
        {options.map((o) => {
          const [value, text] = Array.isArray(o) ? o : [o, o];
          return <option key={value} value={value}>{text}</option>;
        })}
      </select>
    </label>
  );
}

const CUSTOM_FIELDS = ["num_layers", "hidden_size", "num_attention_heads", "num_kv_heads", "head_dim", "intermediate_size", "vocab_size"] as const;

function customFrom(model: CatalogModel | undefined): Record<string, unknown> {
  const base: Record<string, unknown> = { attention: model?.attention === "mla" ? "gqa" : model?.attention ?? "gqa" };
  for (const f of CUSTOM_FIELDS) base[f] = model?.[f] ?? 1;
  return base;
}

/** Model (catalog or a custom config edited inline) and, unless `noGpu`, GPU pickers. */
export function ModelGpuPicker({ values, set, noGpu, error }: { values: Record<string, string>; set: Set; noGpu?: boolean; error?: ApiError | null }) {
  const { models, gpus } = useCatalog();
  let config: Record<string, unknown> = {};
  try { config = values.config ? JSON.parse(values.config) : {}; } catch { config = {}; }
  const onModel = (slug: string) => {
    if (slug === "custom") set({ model: "custom", config: JSON.stringify(customFrom(models.find((m) => m.slug === values.model))) });
    else set({ model: slug, config: null });
  };
  return (
    <>
      <label className="lab-field">
        <span>Model</span>
        <select name="model" aria-label="Model" value={values.model} onChange={(e) => onModel(e.target.value)}>
          {!models.some((m) => m.slug === values.model) && values.model !== "custom" && <option value={values.model}>{values.model}</option>}
          {models.map((m) => <option key={m.slug} value={m.slug}>{m.name}</option>)}
          <option value="custom">Custom config…</option>
        </select>
        {error?.fieldMessage("model") && <small role="alert" className="lab-error">{error.fieldMessage("model")}</small>}
      </label>
      {values.model === "custom" && (
        <fieldset className="lab-custom">
          <legend>Custom config</legend>
          {CUSTOM_FIELDS.map((f) => (
            <label className="lab-field" key={f}>
              <span>{f}</span>
              <input type="number" min={1} value={String(config[f] ?? "")}
                onChange={(e) => set({ config: JSON.stringify({ ...config, [f]: Number(e.target.value) }) })} />
              {error?.fieldMessage(`config.${f}`) && <small role="alert" className="lab-error">{error.fieldMessage(`config.${f}`)}</small>}
            </label>
          ))}
          <label className="lab-field">
            <span>attention</span>
            <select value={String(config.attention ?? "gqa")} onChange={(e) => set({ config: JSON.stringify({ ...config, attention: e.target.value }) })}>
              {["mha", "gqa", "mqa"].map((a) => <option key={a}>{a}</option>)}
            </select>
          </label>
        </fieldset>
      )}
      {!noGpu && (
        <label className="lab-field">
          <span>GPU</span>
          <select name="gpu" aria-label="GPU" value={values.gpu} onChange={(e) => set({ gpu: e.target.value })}>
            {!gpus.some((g) => g.slug === values.gpu) && <option value={values.gpu}>{values.gpu}</option>}
            {gpus.map((g) => <option key={g.slug} value={g.slug}>{g.name}</option>)}
          </select>
          {error?.fieldMessage("gpu") && <small role="alert" className="lab-error">{error.fieldMessage("gpu")}</small>}
        </label>
      )}
    </>
  );
}

export function DtypePicker({ values, set, weights = true, kv = true, kvDtypes = DTYPES }: {
  values: Record<string, string>; set: Set; weights?: boolean; kv?: boolean; kvDtypes?: string[];
}) {
  return (
    <>
      {weights && <SelectInput name="weight_dtype" label="Weight dtype" values={values} set={set} options={DTYPES} />}
      {kv && <SelectInput name="kv_dtype" label="KV dtype" values={values} set={set} options={kvDtypes} />}
    </>
  );
}

/** Warnings, the plain-English note, the error (naming the field) and the collapsible derivation. */
export function Explain({ data, error, extra, loading }: { data: Result | null; error: ApiError | null; extra?: ReactNode; loading?: boolean }) {
  if (error) return <p role="alert" className="lab-error">{error.message}</p>;
  if (!data) return <p aria-live="polite">Calculating…</p>;
  return (
    <div className="lab-explain">
      {loading && <p className="lab-updating-note" role="status" data-testid="lab-updating">Updating…</p>}
      {(data.warnings ?? []).map((w: string) => <p key={w} className="lab-warning" role="status">⚠ {w}</p>)}
      {data.note && <p className="lab-note" data-testid="lab-note"><strong>What limits you: </strong>{data.note}</p>}
      {extra}
      {data.derivation && (
        <details className="lab-derivation">
          <summary>Derivation</summary>
          <p>{data.derivation}</p>
        </details>
      )}
    </div>
  );
}

export function Stat({ label, value, range, testId }: { label: string; value: string; range?: string; testId?: string }) {
  return (
    <div className="lab-stat">
      <dt>{label}</dt>
      <dd data-testid={testId}>{value}{range && <small className="lab-range"> ({range})</small>}</dd>
    </div>
  );
}
