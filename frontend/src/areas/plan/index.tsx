// The study plan: set the interview date and a daily budget; today's list (with checkboxes and links), the days to
// the interview, and predicted readiness by topic on the day. The plan is computed by the server from the learner's
// progress each time it is read, so doing today's list moves tomorrow's.
import { useEffect, useState, type FormEvent } from "react";
import { Link } from "react-router-dom";
import { api, ApiError } from "../../lib/api";
import { useAuth } from "../../lib/auth";
import type { components } from "../../generated/api";
import "./plan.css";

type Plan = components["schemas"]["Plan"];
type SrsSettings = components["schemas"]["SrsSettings"];
type PlanDay = components["schemas"]["PlanDay"];
type Level = Plan["level"];
interface PartRef { slug: string; title: string }

const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const LEVELS: Level[] = ["core", "mid", "senior", "staff"];

function percent(value: number): string {
  return `${Math.round(value * 100)} %`;
}

function dayLabel(iso: string): string {
  const day = new Date(`${iso}T12:00:00`);
  return day.toLocaleDateString(undefined, { weekday: "short", day: "numeric", month: "short" });
}

/** The learner's day as the server counts it (flashcards' DayClock): the date in their time zone, the day turning
 * over at their rollover hour, not the browser's UTC date. */
function learnerDay({ time_zone, day_rollover_hour }: SrsSettings): string {
  const shifted = new Date(Date.now() - day_rollover_hour * 3_600_000);
  return new Intl.DateTimeFormat("en-CA", { timeZone: time_zone, year: "numeric", month: "2-digit", day: "2-digit" })
    .format(shifted);
}

function addDays(iso: string, days: number): string {
  const day = new Date(`${iso}T12:00:00`);
  day.setDate(day.getDate() + days);
  return day.toISOString().slice(0, 10);
}

/** The items of a day, each with where to do it; the key ties a checkbox to it. */
function dayItems(day: PlanDay): { key: string; label: string; to: string }[] {
  const items = day.chapters.map((chapter) => ({ key: `read:${chapter.slug}`, label: `Read “${chapter.title}” (${chapter.minutes} min)`, to: chapter.url }));
  if (day.reviews) items.unshift({ key: "reviews", label: `Review ${day.reviews} flashcard${day.reviews === 1 ? "" : "s"}`, to: "/flashcards/review" });
  if (day.cards_to_add) items.push({ key: "add", label: `Add the ${day.cards_to_add} cards of today's chapters to your flashcards`, to: "/flashcards" });
  if (day.new_cards) items.push({ key: "new", label: `Learn ${day.new_cards} new card${day.new_cards === 1 ? "" : "s"}`, to: "/flashcards/review" });
  if (day.practice) items.push({ key: "practice", label: `Practice set: ${day.practice.titles.join(", ")} (${day.practice.level})`, to: day.practice.url });
  if (day.mock_interview) items.push({ key: "mock", label: "Timed mock interview", to: "/practice/interview" });
  if (day.design_exercise) items.push({ key: `design:${day.design_exercise.slug}`, label: `Design exercise: ${day.design_exercise.title}`, to: day.design_exercise.url });
  return items;
}

function useChecked(date: string): [Set<string>, (key: string) => void] {
  const storageKey = `study-plan-done:${date}`;
  const [done, setDone] = useState<Set<string>>(() => new Set(JSON.parse(localStorage.getItem(storageKey) ?? "[]") as string[]));
  const toggle = (key: string) => {
    const next = new Set(done);
    if (next.has(key)) next.delete(key); else next.add(key);
    localStorage.setItem(storageKey, JSON.stringify([...next]));
    setDone(next);
  };
  return [done, toggle];
}

function Today({ day }: { day: PlanDay }) {
  const [done, toggle] = useChecked(day.date);
  const items = dayItems(day);
  return (
    <section className="plan-today" aria-labelledby="today-title" data-testid="plan-today">
      <h2 id="today-title">Today <span className="muted">· about {day.minutes} min</span></h2>
      {day.day_off ? <p>A day off. Rest.</p> : items.length === 0 ? <p>Nothing due today: read ahead or rest.</p> : (
        <ul className="plan-items">
          {items.map((item) => (
            <li key={item.key}>
              <label>
                <input type="checkbox" checked={done.has(item.key)} onChange={() => toggle(item.key)} aria-label={`Done: ${item.label}`} />
                <Link to={item.to}>{item.label}</Link>
              </label>
            </li>
          ))}
        </ul>
      )}
      {day.review_only && <p className="muted">The last days before the interview are for reviews only.</p>}
    </section>
  );
}

function Calendar({ days }: { days: PlanDay[] }) {
  return (
    <section aria-labelledby="calendar-title">
      <h2 id="calendar-title">The days to the interview</h2>
      <ol className="plan-calendar" data-testid="plan-calendar">
        {days.map((day) => (
          <li key={day.date} className={day.day_off ? "off" : day.review_only ? "review-only" : ""} data-date={day.date}>
            <strong>{dayLabel(day.date)}</strong>
            {day.day_off ? <span className="muted">Day off</span> : (
              <span>
                {[day.chapters.length ? `${day.chapters.length} chapter${day.chapters.length === 1 ? "" : "s"}` : "",
                  day.reviews ? `${day.reviews} reviews` : "", day.new_cards ? `${day.new_cards} new cards` : "",
                  day.practice ? "practice" : "", day.mock_interview ? "mock interview" : "",
                  day.design_exercise ? "design exercise" : "",
                  day.review_only ? "(reviews only)" : ""].filter(Boolean).join(" · ") || "Nothing planned"}
              </span>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function Readiness({ plan }: { plan: Plan }) {
  const topics = [...plan.topics].sort((a, b) => a.readiness - b.readiness).slice(0, 15);
  return (
    <section aria-labelledby="readiness-title" data-testid="plan-readiness">
      <h2 id="readiness-title">Readiness on the day: <span data-testid="readiness-overall">{percent(plan.readiness)}</span></h2>
      <p>{plan.advice}</p>
      <p className="muted">
        Readiness of a topic is the mean of its cards' predicted recall on the interview day (FSRS, if you follow the
        plan) and your practice accuracy at the {plan.level} level. The weakest {topics.length} topics:
      </p>
      <ul className="plan-bars" aria-label="Readiness by topic">
        {topics.map((topic) => (
          <li key={topic.topic}>
            <span className="plan-bar-label">{topic.title}</span>
            <span className="plan-bar" role="img" aria-label={`${topic.title}: readiness ${percent(topic.readiness)}`}>
              <span style={{ width: `${Math.round(topic.readiness * 100)}%` }} />
            </span>
            <span className="muted">
              {percent(topic.readiness)} · recall {percent(topic.recall)} · practice {topic.accuracy === null ? "none yet" : percent(topic.accuracy)}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function PlanForm({ plan, onSaved }: { plan: Plan | null; onSaved: (plan: Plan) => void }) {
  const [parts, setParts] = useState<PartRef[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  // the plan's own day, else the learner's day from their settings (the form's dates count from it)
  const [today, setToday] = useState<string | null>(plan?.today ?? null);
  const [dayError, setDayError] = useState("");
  useEffect(() => {
    api<PartRef[]>("/parts/").then(setParts).catch(() => setParts([]));
  }, []);
  useEffect(() => {
    if (plan) return;
    api<SrsSettings>("/srs/settings/").then((srs) => setToday(learnerDay(srs))).catch((caught) => setDayError(String(caught)));
  }, [plan]);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setError(null);
    try {
      onSaved(await api<Plan>("/study-plan/", {
        method: "PUT",
        body: {
          interview_date: String(form.get("interview_date")),
          minutes_per_day: Number(form.get("minutes_per_day")),
          days_off: form.getAll("days_off").map(Number),
          level: String(form.get("level")),
          parts: form.getAll("parts").map(String),
        },
      }));
    } catch (caught) {
      setError(caught as ApiError);
    }
  };
  const message = (field: string) => error?.fieldMessage(field);
  if (dayError) return <p className="field-error" role="alert">Your day could not be read from your settings: {dayError}</p>;
  if (!today) return <p className="muted">Loading…</p>;
  return (
    <form className="plan-form" onSubmit={submit} aria-label="Study plan settings">
      <label className="field">
        <span>Interview date</span>
        <input type="date" name="interview_date" required min={addDays(today, 1)} max={addDays(today, 365)}
               defaultValue={plan?.interview_date ?? addDays(today, 14)} aria-invalid={Boolean(message("interview_date"))} />
        {message("interview_date") && <span className="field-error" role="alert">{message("interview_date")}</span>}
      </label>
      <label className="field">
        <span>Minutes a day</span>
        <input type="number" name="minutes_per_day" min={10} max={720} step={5} required defaultValue={plan?.minutes_per_day ?? 45} />
        {message("minutes_per_day") && <span className="field-error" role="alert">{message("minutes_per_day")}</span>}
      </label>
      <fieldset>
        <legend>Days off</legend>
        {WEEKDAYS.map((name, index) => (
          <label key={name} className="inline">
            <input type="checkbox" name="days_off" value={index} defaultChecked={plan?.days_off.includes(index)} /> {name}
          </label>
        ))}
        {message("days_off") && <span className="field-error" role="alert">{message("days_off")}</span>}
      </fieldset>
      <label className="field">
        <span>Level</span>
        <select name="level" defaultValue={plan?.level ?? "mid"}>
          {LEVELS.map((level) => <option key={level} value={level}>{level}</option>)}
        </select>
      </label>
      {parts.length > 0 && (
        <fieldset>
          <legend>Focus on (none ticked: everything)</legend>
          {parts.map((part) => (
            <label key={part.slug} className="inline">
              <input type="checkbox" name="parts" value={part.slug} defaultChecked={plan?.parts.includes(part.slug)} /> {part.title}
            </label>
          ))}
          {message("parts") && <span className="field-error" role="alert">{message("parts")}</span>}
        </fieldset>
      )}
      {error && !Object.keys(error.body.fields ?? {}).length && <p className="field-error" role="alert">{error.message}</p>}
      <button type="submit" className="primary">{plan ? "Update the plan" : "Make my plan"}</button>
    </form>
  );
}

export default function PlanPage() {
  const { user, loading } = useAuth();
  const [plan, setPlan] = useState<Plan | null | undefined>(undefined);
  const [editing, setEditing] = useState(false);
  const [loadError, setLoadError] = useState("");
  useEffect(() => {
    if (!user) return;
    api<Plan>("/study-plan/").then(setPlan).catch((error) => {
      if (error instanceof ApiError && error.status === 404) setPlan(null); // no plan yet: the form
      else setLoadError(String(error));
    });
  }, [user]);
  if (loading) return <p className="muted">Loading…</p>;
  if (loadError) return <p className="field-error" role="alert">The plan could not be loaded: {loadError}</p>;
  if (!user) {
    return (
      <section>
        <h1>Study plan</h1>
        <p>Plan backwards from your interview date: what to read, review and practise each day, and how ready you will be on the day.</p>
        <p>The plan lives on your account: <Link to="/login?next=/plan">log in</Link> or <Link to="/signup?next=/plan">sign up</Link>.</p>
      </section>
    );
  }
  if (plan === undefined) return <p className="muted">Loading your plan…</p>;
  const today = plan?.days.find((day) => day.date === plan.today) ?? plan?.days[0];
  return (
    <section className="plan">
      <h1>Study plan</h1>
      {plan && (
        <p className="lead" data-testid="plan-summary">
          Interview on <strong>{dayLabel(plan.interview_date)}</strong> · {plan.days.length} day{plan.days.length === 1 ? "" : "s"} ·{" "}
          {plan.minutes_per_day} min a day · {plan.level} level ·{" "}
          <a href="/api/v1/study-plan/calendar.ics" download>Add to your calendar (.ics)</a> ·{" "}
          <button type="button" onClick={() => setEditing(!editing)}>{editing ? "Close the settings" : "Change the plan"}</button>
        </p>
      )}
      {(!plan || editing) && (
        <PlanForm plan={plan} onSaved={(saved) => { setPlan(saved); setEditing(false); }} />
      )}
      {plan && plan.unread.length > 0 && (
        <p className="plan-warning" role="status">
          {plan.minutes_per_day} minutes a day do not reach {plan.unread.length} chapter{plan.unread.length === 1 ? "" : "s"}: {plan.unread.slice(0, 5).join(", ")}{plan.unread.length > 5 ? "…" : ""}.
        </p>
      )}
      {plan && plan.reviews_left > 0 && <p className="plan-warning" role="status">{plan.reviews_left} reviews would still be due on the day.</p>}
      {plan && today && <Today day={today} />}
      {plan && <Readiness plan={plan} />}
      {plan && <Calendar days={plan.days} />}
    </section>
  );
}
