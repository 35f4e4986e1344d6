// The landing page: where to start by goal for a first visit, and "resume where you left off" for a returning learner.
import { useEffect, useMemo, useState } from "react";
import { Link } from "react-router-dom";
import { api, type Page } from "./lib/api";
import { useAuth } from "./lib/auth";
import { lastChapter, resumeChapter, useProgress } from "./areas/learn/progress";
import type { ChapterSummary, PartSummary } from "./areas/learn/types";

interface Goal {
  id: string;
  title: string;
  pitch: string;
  part: string; // the part whose first chapter is the way in
  then: { to: string; label: string };
}

const GOALS: Goal[] = [
  {
    id: "interview",
    title: "An interview next week",
    pitch: "The diagnosis framework and the numbers interviewers expect, then a timed mock interview graded on the server.",
    part: "interview-kit",
    then: { to: "/plan", label: "Plan the days to your interview date" },
  },
  {
    id: "job",
    title: "A job serving models",
    pitch: "From one request on one GPU to batching, caching and scaling out, with simulators of real models on real GPUs.",
    part: "one-request-one-gpu",
    then: { to: "/lab", label: "Open the simulators" },
  },
  {
    id: "curious",
    title: "Curiosity",
    pitch: "Start at the beginning: tokens, attention and why generating text has two phases. No background needed.",
    part: "inside-the-model",
    then: { to: "/learn/map", label: "See the concept map" },
  },
];

function useCurriculum() {
  const [chapters, setChapters] = useState<ChapterSummary[] | null>(null);
  useEffect(() => {
    let live = true;
    Promise.all([api<PartSummary[]>("/parts/"), api<Page<ChapterSummary>>("/chapters/?page_size=500")])
      .then(([parts, page]) => {
        if (!live) return;
        const partOrder = new Map(parts.map((part) => [part.slug, part.order]));
        const known = page.results.filter((chapter) => partOrder.has(chapter.part));
        known.sort((a, b) => (partOrder.get(a.part)! - partOrder.get(b.part)!) || a.order - b.order);
        setChapters(known);
      })
      .catch(() => live && setChapters([]));
    return () => {
      live = false;
    };
  }, []);
  return chapters;
}

export default function Home() {
  const { user } = useAuth();
  const chapters = useCurriculum();
  const { progress } = useProgress();
  useEffect(() => {
    document.title = "LLM-serving interview kit: learn how large language models are served";
  }, []);

  const resume = useMemo(() => (chapters ? resumeChapter(chapters, progress, lastChapter()) : null), [chapters, progress]);
  const understood = chapters ? chapters.filter((chapter) => progress[chapter.slug] === "understood").length : 0;
  const firstOf = (part: string) => chapters?.find((chapter) => chapter.part === part);

  return (
    <section className="home" aria-labelledby="home-title">
      <h1 id="home-title">Learn how large language models are served</h1>
      {user && <p data-testid="signed-in-as">Welcome, <strong>{user.username}</strong>.</p>}
      <p className="lead">
        Tokens, KV cache, batching, GPUs, parallelism, Kubernetes and vLLM internals — read, practise, remember, and simulate.
      </p>

      {resume && (
        <section className="resume" aria-labelledby="resume-title" data-testid="resume">
          <h2 id="resume-title">Resume where you left off</h2>
          <p>
            {resume.reason === "next" ? "Next up: " : "You were reading "}
            <Link to={`/learn/${resume.chapter.slug}`} className="resume-link">{resume.chapter.title}</Link>
            <span className="muted"> · {resume.chapter.minutes} min</span>
          </p>
          <p className="muted" data-testid="resume-progress">
            {understood} of {chapters?.length ?? 0} chapters understood · <Link to="/learn">the whole curriculum</Link> ·{" "}
            <Link to="/flashcards/review">review flashcards</Link>
          </p>
        </section>
      )}

      <section aria-labelledby="start-title" data-testid="start-here">
        <h2 id="start-title">{resume ? "Or start on a goal" : "Start here: what brings you?"}</h2>
        <ul className="goals">
          {GOALS.map((goal) => {
            const first = firstOf(goal.part);
            return (
              <li key={goal.id} className="goal" data-testid={`goal-${goal.id}`}>
                <h3>{goal.title}</h3>
                <p className="muted">{goal.pitch}</p>
                <p className="goal-actions">
                  {first ? (
                    <Link to={`/learn/${first.slug}`} className="button primary">Read “{first.title}”</Link>
                  ) : chapters === null ? (
                    <span className="muted" aria-busy="true">Finding the first chapter…</span>
                  ) : (
                    <Link to="/learn" className="button primary">Read the curriculum</Link>
                  )}
                  <Link to={goal.then.to}>{goal.then.label}</Link>
                </p>
              </li>
            );
          })}
        </ul>
      </section>

      <h2>Everything else</h2>
      <ul className="cards">
        <li><Link to="/learn">Read the curriculum</Link></li>
        <li><Link to="/practice">Practise interview questions</Link></li>
        <li><Link to="/flashcards">Review flashcards</Link></li>
        <li><Link to="/lab">Open the Inference Lab</Link></li>
      </ul>
      {!user && <p className="muted"><Link to="/signup">Sign up</Link> to keep your progress and flashcards on any device.</p>}
    </section>
  );
}
