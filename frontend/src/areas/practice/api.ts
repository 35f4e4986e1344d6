// Practice API calls: like lib/api, plus the X-Practice-Token header that anonymous sessions need.
import { levelEnumValues, questionKindEnumValues, type components } from "../../generated/api";
import { ApiError, ensureCsrf } from "../../lib/api";

export interface ChapterRef { slug: string; title: string; url: string }

export interface Choices {
  options?: string[];
  unit?: string;
  items?: string[];
  bins?: string[];
  left?: string[];
  right?: string[];
}

/** Question kinds as the API names them (the server's registry, apps/quiz/kinds); KIND_LABELS must name each. */
export type Kind = components["schemas"]["QuestionKindEnum"];
export const KINDS: Kind[] = [...questionKindEnumValues];

export interface Question {
  id: number;
  slug: string;
  kind: Kind;
  level: string;
  prompt_html: string;
  topics: string[];
  chapters: ChapterRef[];
  glossary: string[];
  choices: Choices;
}

export interface CheckResult {
  correct: boolean | null;
  score: number | null;
  feedback: Record<string, unknown>;
  answer_html: string;
  explanation: string;
}

export interface AnswerResult extends CheckResult {
  question: number;
  self_rating: string;
  duration_ms: number | null;
  over_time: boolean;
  answered: number;
  remaining: number;
  finished: boolean;
}

export interface SessionAnswer { question: number; correct: boolean; score: number; self_rating: string; duration_ms: number | null; over_time: boolean }

export interface Session {
  id: string;
  mode: "practice" | "interview";
  filters: Record<string, string[]>;
  seconds_per_question: number | null;
  created_at: string;
  finished_at: string | null;
  questions: Question[];
  answers: SessionAnswer[];
  session_token?: string | null;
}

export interface TopicScore { topic: string; answered: number; score: number; chapters: ChapterRef[] }
export interface LevelScore { level: string; answered: number; correct: number; score: number }

export interface Summary {
  session: string;
  mode: "practice" | "interview";
  total: number;
  answered: number;
  correct: number;
  score: number | null;
  finished: boolean;
  by_topic: TopicScore[];
  by_level: LevelScore[];
  weakest_topics: TopicScore[];
  strongest_topics: TopicScore[];
  seconds_per_question: number | null;
  time_used_ms: number;
  over_time: number;
}

export type Answer = Record<string, unknown>;

function csrfToken(): string {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

const tokenKey = (id: string) => `practice-token:${id}`;

export function rememberToken(id: string, token: string | null | undefined) {
  if (token) sessionStorage.setItem(tokenKey(id), token);
}

export async function practiceApi<T>(path: string, options: { method?: string; body?: unknown; session?: string } = {}): Promise<T> {
  const method = options.method ?? "GET";
  const headers: Record<string, string> = { Accept: "application/json" };
  if (method !== "GET") {
    await ensureCsrf();
    headers["X-CSRFToken"] = csrfToken();
  }
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const token = options.session ? sessionStorage.getItem(tokenKey(options.session)) : null;
  if (token) headers["X-Practice-Token"] = token;
  const response = await fetch(`/api/v1${path}`, {
    method, headers, credentials: "same-origin",
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const data = text ? JSON.parse(text) : undefined;
  if (!response.ok) throw new ApiError(response.status, data ?? { error: "error", detail: `HTTP ${response.status}`, fields: {} });
  return data as T;
}

export const KIND_LABELS: Record<Kind, string> = {
  open: "Open (self-rated)",
  single_choice: "Single choice",
  multiple_choice: "Multiple choice",
  numeric: "Numeric",
  ordering: "Ordering",
  categorize: "Categorize",
  matching: "Matching",
};

export const LEVELS: string[] = [...levelEnumValues];

export function percent(score: number | null | undefined): string {
  return score === null || score === undefined ? "–" : `${Math.round(score * 100)} %`;
}
