export type Status = "reading" | "understood" | null;

export interface PartSummary {
  slug: string;
  title: string;
  order: number;
  summary: string;
  chapter_count: number;
  understood_count: number | null;
}

export interface ChapterSummary {
  slug: string;
  title: string;
  part: string;
  order: number;
  summary: string;
  minutes: number;
  level: string;
  status: Status;
}

export interface Link {
  slug: string;
  title: string;
}

export interface KeyNumber {
  label: string;
  value: string;
  unit?: string;
  source?: string;
}

export interface ChapterDetail {
  slug: string;
  title: string;
  part: Link;
  order: number;
  summary: string;
  minutes: number;
  level: string;
  objectives: string[];
  key_numbers: KeyNumber[];
  body_html: string;
  prerequisites: Link[];
  simulators: { name: string; url: string }[];
  glossary_terms: { slug: string; term: string; definition: string }[];
  questions: { id: number; slug: string; kind: string; level: string }[];
  previous: Link | null;
  next: Link | null;
  status: Status;
}

export interface ConceptMapData {
  nodes: { slug: string; title: string; part: string; order: number; level: string; status: Status }[];
  edges: { source: string; target: string }[];
}
