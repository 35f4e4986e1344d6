// Shared plumbing for the Inference Lab: state in the query string, debounced + abortable simulator calls, formatting.
import { useEffect, useMemo, useRef, useState } from "react";
import { useSearchParams } from "react-router-dom";
import { algorithmEnumValues, dtypeEnumValues, kvDtypeEnumValues, opEnumValues, phaseEnumValues, routerEnumValues, type paths } from "../../generated/api";
import { api, ApiError, type Page } from "../../lib/api";

// Responses are documented in the OpenAPI schema; panels read the fields they draw.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Result = Record<string, any>;

/** Each simulator's response as the API documents it (src/generated/api.ts is generated from /api/schema/). */
/** What each simulator endpoint answers, read from the generated schema (a new simulator needs no line here). */
type SimulatorPath = Extract<keyof paths, `/api/v1/simulators/${string}/`>;
type PageName<P> = P extends `/api/v1/simulators/${infer Name}/` ? Name : never;
type Answer<P extends SimulatorPath> = paths[P] extends { post: { responses: { 200: { content: { "application/json": infer R } } } } } ? R : never;
export type SimulatorResults = { [P in SimulatorPath as PageName<P>]: Answer<P> };

export interface CatalogModel {
  slug: string; name: string; hidden_size: number; num_layers: number; num_attention_heads: number;
  num_kv_heads: number; head_dim: number; intermediate_size: number; vocab_size: number; attention: string;
  max_position_embeddings: number; num_experts: number | null; experts_per_token: number | null;
  kv_lora_rank: number | null; qk_rope_head_dim: number | null; first_k_dense_replace: number | null;
}
export interface CatalogGPU { slug: string; name: string; memory_bytes: number; interconnect_bandwidth_bytes_per_s: number; price_per_hour_usd: number }

// Option lists are the API's enums (src/generated/api.ts, `make api-types`), so a value the server adds shows up here.
/** Weight and KV dtypes the analytic simulators accept. */
export const DTYPES: string[] = [...dtypeEnumValues];
/** KV cache dtypes the engine and `vllm serve` take. */
export const KV_DTYPES: string[] = [...kvDtypeEnumValues];
export const PHASES: string[] = [...phaseEnumValues];
export const COLLECTIVE_OPS: string[] = [...opEnumValues];
export const COLLECTIVE_ALGORITHMS: string[] = [...algorithmEnumValues];
export const ROUTERS: [string, string][] = routerEnumValues.map((r) => [r, r.replaceAll("_", " ")]);

/** vLLM's defaults the forms start from: vLLM v0.33.0, vllm/config/cache.py (CacheConfig.gpu_memory_utilization,
 * CacheConfig.DEFAULT_BLOCK_SIZE). The server's defaults are the same constants (apps/simulators/modeling/
 * vllm_defaults.py); tests/simulators/test_vllm_defaults.py checks that the two agree. */
/** What bounds a capacity plan, in words (the API's limiting_factor codes). */
export const LIMITING_FACTORS: Record<string, string> = {
  ttft_slo: "the TTFT target (p99)", tpot_slo: "the TPOT target (p99)", kv_memory: "KV-cache memory",
  max_utilization: "the utilisation cap (90 %)",
};
export const limitingFactor = (code: string) => LIMITING_FACTORS[code] ?? code.replaceAll("_", " ");

export const VLLM_DEFAULTS = { gpu_memory_utilization: 0.92, block_size: 16 } as const;

/** Lab state lives in the query string so every view is a shareable URL. */
export function useQueryState(defaults: Record<string, string>): [Record<string, string>, (patch: Record<string, string | null>) => void] {
  const [params, setParams] = useSearchParams();
  const routed = params.toString();
  // The router commits a navigation in a transition, so the URL lags behind an edit: until it shows the query string
  // we asked for, the controls show that one (a controlled checkbox would otherwise spring back for a moment, and a
  // click on it could look ignored), and a second edit builds on it.
  const [asked, setAsked] = useState<string | null>(null);
  const shown = asked ?? routed;
  const values = useMemo(() => {
    const out: Record<string, string> = { ...defaults };
    new URLSearchParams(shown).forEach((value, key) => { out[key] = value; });
    return out;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shown]);
  // The same, read at once by a second edit of the same event (before a render shows `asked`).
  const pending = useRef<string | null>(null);
  useEffect(() => {
    if (pending.current === routed) { pending.current = null; setAsked(null); }
  }, [routed]);
  const update = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(pending.current ?? routed);
    for (const [key, value] of Object.entries(patch)) {
      if (value === null || value === "") next.delete(key); else next.set(key, value);
    }
    pending.current = next.toString();
    setAsked(pending.current);
    setParams(next, { replace: true });
  };
  return [values, update];
}

let catalogCache: Promise<{ models: CatalogModel[]; gpus: CatalogGPU[] }> | null = null;

export function useCatalog() {
  const [catalog, setCatalog] = useState<{ models: CatalogModel[]; gpus: CatalogGPU[] }>({ models: [], gpus: [] });
  useEffect(() => {
    catalogCache ??= Promise.all([
      api<Page<CatalogModel>>("/simulators/models/?page_size=200"),
      api<Page<CatalogGPU>>("/simulators/gpus/?page_size=200"),
    ]).then(([m, g]) => ({ models: m.results, gpus: g.results }));
    let live = true;
    catalogCache.then((c) => { if (live) setCatalog(c); }).catch(() => { catalogCache = null; });
    return () => { live = false; };
  }, []);
  return catalog;
}

/** POST `body` to /simulators/<name>/ 150 ms after the last change; a newer change aborts the older request. */
export function useSimulation<Name extends keyof SimulatorResults>(
  name: Name, body: object | null,
): { data: SimulatorResults[Name] | null; error: ApiError | null; loading: boolean } {
  type Data = SimulatorResults[Name];
  const [state, setState] = useState<{ data: Data | null; error: ApiError | null; loading: boolean }>({ data: null, error: null, loading: false });
  const key = body ? JSON.stringify(body) : "";
  const controller = useRef<AbortController | null>(null);
  useEffect(() => {
    if (!key) return;
    setState((s) => ({ ...s, loading: true }));
    const timer = window.setTimeout(() => {
      controller.current?.abort();
      const ctrl = new AbortController();
      controller.current = ctrl;
      api<Data>(`/simulators/${name}/`, { method: "POST", body: JSON.parse(key), signal: ctrl.signal })
        .then((data) => { if (!ctrl.signal.aborted) setState({ data, error: null, loading: false }); })
        .catch((err) => {
          if (ctrl.signal.aborted) return;
          const error = err instanceof ApiError ? err : new ApiError(0, { error: "network", detail: String(err), fields: {} });
          setState({ data: null, error, loading: false });
        });
    }, 150);
    return () => window.clearTimeout(timer);
  }, [name, key]);
  useEffect(() => () => controller.current?.abort(), []);
  return state;
}

export function num(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && value !== "" && value !== undefined ? n : fallback;
}

/** `model` slug or the inline `config` (JSON in the query string when model=custom). */
export function modelChoice(values: Record<string, string>): Record<string, unknown> {
  if (values.model === "custom" && values.config) {
    try { return { config: JSON.parse(values.config) }; } catch { return { config: {} }; }
  }
  return { model: values.model };
}

const SI = [[1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]] as const;

export function fmtBytes(b: number | null | undefined): string {
  if (b === null || b === undefined) return "–";
  for (const [scale, prefix] of SI) if (Math.abs(b) >= scale) return `${(b / scale).toPrecision(4)} ${prefix}B`;
  return `${Math.round(b)} B`;
}

export function fmtSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined) return "–";
  if (s >= 1) return `${s.toPrecision(3)} s`;
  if (s >= 1e-3) return `${(s * 1e3).toPrecision(3)} ms`;
  return `${(s * 1e6).toPrecision(3)} µs`;
}

export function fmtNum(n: number | null | undefined, digits = 3): string {
  if (n === null || n === undefined) return "–";
  if (Number.isInteger(n)) return n.toLocaleString("en-US");
  if (Math.abs(n) >= 1e6 || Math.abs(n) < 1e-3) return n.toExponential(digits - 1);
  return n.toLocaleString("en-US", { maximumSignificantDigits: digits });
}

export function fmtRange(range: number[] | undefined, f: (x: number) => string): string {
  return range && range.length === 2 ? `${f(range[0])} – ${f(range[1])}` : "";
}

export function prefersReducedMotion(): boolean {
  return document.documentElement.dataset.reducedMotion === "true"
    || (typeof window.matchMedia === "function" && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

export type Encoder = { encode: (text: string) => number[]; decode: (ids: number[]) => string };

/** cl100k_base in the browser (gpt-tokenizer), loaded on demand: the vocabulary is large and few pages need it. */
export function useTokenizer(): Encoder | null {
  const [enc, setEnc] = useState<Encoder | null>(null);
  useEffect(() => {
    let live = true;
    import("gpt-tokenizer/encoding/cl100k_base").then((m) => { if (live) setEnc({ encode: m.encode, decode: m.decode }); }).catch(() => undefined);
    return () => { live = false; };
  }, []);
  return enc;
}
