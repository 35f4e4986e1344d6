import { useEffect, useState } from "react";
import { Link, useParams } from "react-router-dom";
import { percent, practiceApi, type Summary as SummaryData, type TopicScore } from "./api";

function seconds(ms: number): string {
  const total = Math.round(ms / 1000);
  return `${Math.floor(total / 60)} min ${total % 60} s`;
}

function TopicList({ topics, testId }: { topics: TopicScore[]; testId: string }) {
  return (
    <ul className="topic-list" data-testid={testId}>
      {topics.map((topic) => (
        <li key={topic.topic}>
          <strong>{topic.topic}</strong> — {percent(topic.score)} over {topic.answered} answer{topic.answered === 1 ? "" : "s"}
          {topic.chapters.length > 0 && (
            <>
              {" · re-read "}
              {topic.chapters.map((chapter, index) => (
                <span key={chapter.slug}>{index > 0 && ", "}<Link to={chapter.url}>{chapter.title}</Link></span>
              ))}
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

export default function Summary() {
  const { id = "" } = useParams();
  const [summary, setSummary] = useState<SummaryData | null>(null);
  const [error, setError] = useState("");
  useEffect(() => {
    practiceApi<SummaryData>(`/practice/sessions/${id}/summary/`, { session: id }).then(setSummary).catch((caught) => setError(String(caught.message ?? caught)));
  }, [id]);
  if (!summary) return error ? <p className="error" role="alert">{error}</p> : <p>Loading…</p>;
  const interview = summary.mode === "interview";
  return (
    <section className="summary" data-testid="summary">
      <h1>{interview ? "Interview report" : "Practice summary"}</h1>
      <p className="score-line">
        Score <strong data-testid="summary-score">{percent(summary.score)}</strong> · {summary.correct} correct · {summary.answered} of {summary.total} answered
      </p>
      {interview && (
        <p data-testid="interview-time">
          Time used {seconds(summary.time_used_ms)} ({summary.seconds_per_question} s per question) · {summary.over_time} over time
          {summary.over_time > 0 && " (late answers score half)"}
        </p>
      )}
      <h2>Weakest topics</h2>
      {summary.weakest_topics.length ? <TopicList topics={summary.weakest_topics} testId="weakest-topics" />
        : <p className="muted">{summary.answered ? "None: every topic you answered scored full marks." : "Answer a question first."}</p>}
      {interview && summary.strongest_topics.length > 0 && (
        <>
          <h2>Strongest topics</h2>
          <TopicList topics={summary.strongest_topics} testId="strongest-topics" />
        </>
      )}
      <h2>By level</h2>
      <table>
        <thead><tr><th>Level</th><th>Answered</th><th>Correct</th><th>Score</th></tr></thead>
        <tbody>
          {summary.by_level.map((level) => (
            <tr key={level.level}><td>{level.level}</td><td>{level.answered}</td><td>{level.correct}</td><td>{percent(level.score)}</td></tr>
          ))}
        </tbody>
      </table>
      <h2>By topic</h2>
      <table>
        <thead><tr><th>Topic</th><th>Answered</th><th>Score</th></tr></thead>
        <tbody>
          {summary.by_topic.map((topic) => (
            <tr key={topic.topic}><td>{topic.topic}</td><td>{topic.answered}</td><td>{percent(topic.score)}</td></tr>
          ))}
        </tbody>
      </table>
      <p><Link to="/practice">Practise again</Link> · <Link to="/practice/interview">Interview mode</Link></p>
    </section>
  );
}
