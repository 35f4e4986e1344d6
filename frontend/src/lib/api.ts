// The one way the web client talks to the server: the public JSON API, same origin, with CSRF.

export interface ApiErrorBody {
  error: string;
  detail: string;
  fields: Record<string, string[]>;
}

export class ApiError extends Error {
  status: number;
  body: ApiErrorBody;
  constructor(status: number, body: ApiErrorBody) {
    super(body.detail || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
  fieldMessage(field: string): string | undefined {
    return this.body.fields?.[field]?.[0];
  }
}

function csrfToken(): string {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export async function ensureCsrf(): Promise<void> {
  if (!csrfToken()) await fetch("/api/v1/auth/csrf/", { credentials: "same-origin" });
}

/** `body` is sent as JSON; `raw` (a file) as it is, as application/octet-stream. */
export async function api<T>(
  path: string,
  options: { method?: string; body?: unknown; raw?: Blob; signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<T> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  if (method !== "GET") {
    await ensureCsrf();
    headers["X-CSRFToken"] = csrfToken();
  }
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (options.raw !== undefined) headers["Content-Type"] = "application/octet-stream";
  const response = await fetch(`/api/v1${path}`, {
    method,
    headers,
    credentials: "same-origin",
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    signal: options.signal,
  });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const data = text ? JSON.parse(text) : undefined;
  if (!response.ok) {
    throw new ApiError(response.status, data ?? { error: "error", detail: `HTTP ${response.status}`, fields: {} });
  }
  return data as T;
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** Tries `send` again while the server answers 503 (its database or queue briefly unavailable), waiting 0.5, 1, 2
 * and 4 s, and tells `onRetry` before each wait so the screen can say so; any other error, or the last 503, is
 * thrown. `send` must be safe to repeat: a 503 stored nothing, and a review carries its own id besides. */
export async function retryWhileUnavailable<T>(
  send: () => Promise<T>, onRetry: (attempt: number, attempts: number) => void, attempts = 5,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 503) || attempt >= attempts) throw error;
      onRetry(attempt + 1, attempts);
      await new Promise((resolve) => window.setTimeout(resolve, 500 * 2 ** (attempt - 1)));
    }
  }
}
