// Reading progress: on the account when signed in, in localStorage otherwise; merged into the account on sign-in.
import { useCallback, useEffect, useState } from "react";
import { api } from "../../lib/api";
import { onSignIn, useAuth } from "../../lib/auth";
import type { Status } from "./types";

const STORAGE_KEY = "chapter-progress";
const CHANGED = "chapter-progress-changed";
const LAST_KEY = "last-chapter";

/** The chapter this browser opened last (a hint for "resume"; the account's progress is the record). */
export function lastChapter(): string | null {
  try {
    return localStorage.getItem(LAST_KEY);
  } catch {
    return null;
  }
}

export function rememberLastChapter(slug: string) {
  try {
    localStorage.setItem(LAST_KEY, slug);
  } catch {
    // Private mode: resume falls back to the progress alone.
  }
}

/** Where to pick up, given the chapters in reading order and the reader's progress: the chapter last opened here if
 * not yet understood, else the one being read furthest along, else the first not understood after the furthest
 * understood one. Null for someone with no progress at all. */
export function resumeChapter<T extends { slug: string }>(
  ordered: T[], progress: Record<string, Status>, last: string | null,
): { chapter: T; reason: "last" | "reading" | "next" } | null {
  const lastOne = last ? ordered.find((chapter) => chapter.slug === last) : undefined;
  if (lastOne && progress[lastOne.slug] !== "understood") return { chapter: lastOne, reason: "last" };
  let furthest = -1;
  ordered.forEach((chapter, index) => {
    if (progress[chapter.slug]) furthest = index;
  });
  if (furthest === -1) return lastOne ? { chapter: lastOne, reason: "last" } : null;
  if (progress[ordered[furthest].slug] === "reading") return { chapter: ordered[furthest], reason: "reading" };
  const next = ordered.slice(furthest + 1).find((chapter) => progress[chapter.slug] !== "understood")
    ?? ordered.find((chapter) => progress[chapter.slug] !== "understood");
  return next ? { chapter: next, reason: "next" } : null;
}

export function localProgress(): Record<string, Exclude<Status, null>> {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) || "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}

function saveLocal(progress: Record<string, Exclude<Status, null>>) {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(progress));
}

onSignIn(async () => {
  const chapters = localProgress();
  if (Object.keys(chapters).length === 0) return;
  try {
    await api("/progress/merge/", { method: "POST", body: { chapters } });
    localStorage.removeItem(STORAGE_KEY);
    window.dispatchEvent(new Event(CHANGED));
  } catch {
    // Kept locally; the next sign-in tries again.
  }
});

/** Status by chapter slug for whoever is reading, and a setter that writes to the right place. */
export function useProgress() {
  const { user, loading } = useAuth();
  const [progress, setProgress] = useState<Record<string, Status>>({});
  const [version, setVersion] = useState(0);

  useEffect(() => {
    const bump = () => setVersion((v) => v + 1);
    window.addEventListener(CHANGED, bump);
    return () => window.removeEventListener(CHANGED, bump);
  }, []);

  useEffect(() => {
    if (loading) return;
    if (!user) {
      setProgress(localProgress());
      return;
    }
    let live = true;
    api<{ chapters: Record<string, Status> }>("/progress/")
      .then((body) => live && setProgress(body.chapters))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [user, loading, version]);

  const setStatus = useCallback(
    async (slug: string, status: Status) => {
      if (user) {
        await api(`/chapters/${slug}/progress/`, { method: "PUT", body: { status } });
      } else {
        const local = localProgress();
        if (status) local[slug] = status;
        else delete local[slug];
        saveLocal(local);
      }
      setProgress((previous) => ({ ...previous, [slug]: status }));
      window.dispatchEvent(new Event(CHANGED));
    },
    [user],
  );
  return { progress, setStatus, signedIn: Boolean(user) };
}
