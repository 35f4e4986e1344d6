import { useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { ApiError } from "../../lib/api";
import { useAuth } from "../../lib/auth";

/** Where to go after signing in or up: a same-site path from ?next=, else the start page. */
function useNext(): string {
  const [params] = useSearchParams();
  const next = params.get("next") ?? "";
  return next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}

function useFormErrors() {
  const [error, setError] = useState<ApiError | null>(null);
  return {
    error,
    setError,
    field: (name: string) => error?.fieldMessage(name),
  };
}

function Field({ name, label, type = "text", message, autoComplete }: { name: string; label: string; type?: string; message?: string; autoComplete?: string }) {
  return (
    <label className="field">
      <span>{label}</span>
      <input name={name} type={type} autoComplete={autoComplete} aria-invalid={Boolean(message)} />
      {message && <span className="field-error" role="alert">{message}</span>}
    </label>
  );
}

export function LoginPage() {
  const { login } = useAuth();
  const navigate = useNavigate();
  const next = useNext();
  const errors = useFormErrors();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    try {
      await login(String(form.get("username")), String(form.get("password")));
      navigate(next); // by default the start page: resume where you left off
    } catch (error) {
      errors.setError(error as ApiError);
    }
  };
  return (
    <form className="auth-form" onSubmit={submit}>
      <h1>Log in</h1>
      <Field name="username" label="Username" message={errors.field("username")} autoComplete="username" />
      <Field name="password" label="Password" type="password" message={errors.field("password")} autoComplete="current-password" />
      <button type="submit">Log in</button>
      <p>No account? <Link to={next === "/" ? "/signup" : `/signup?next=${encodeURIComponent(next)}`}>Sign up</Link></p>
    </form>
  );
}

export function SignupPage() {
  const { register } = useAuth();
  const navigate = useNavigate();
  const next = useNext();
  const errors = useFormErrors();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    try {
      await register(String(form.get("username")), String(form.get("password")), String(form.get("email") || ""));
      navigate(next); // by default the start page: where to start, by goal
    } catch (error) {
      errors.setError(error as ApiError);
    }
  };
  return (
    <form className="auth-form" onSubmit={submit}>
      <h1>Sign up</h1>
      <Field name="username" label="Username" message={errors.field("username")} autoComplete="username" />
      <Field name="email" label="Email (optional)" type="email" message={errors.field("email")} autoComplete="email" />
      <Field name="password" label="Password" type="password" message={errors.field("password")} autoComplete="new-password" />
      <button type="submit">Create account</button>
      <p>Have an account? <Link to={next === "/" ? "/login" : `/login?next=${encodeURIComponent(next)}`}>Log in</Link></p>
    </form>
  );
}

export function AccountPage() {
  const { user, loading, logout } = useAuth();
  const navigate = useNavigate();
  if (loading) return <p>Loading…</p>;
  if (!user) return <p>You are not signed in. <Link to="/login">Log in</Link> or <Link to="/signup">sign up</Link>.</p>;
  return (
    <section>
      <h1>Account</h1>
      <p data-testid="signed-in-as">Signed in as <strong>{user.username}</strong>{user.is_author ? " (author)" : ""}.</p>
      <ul>
        <li><Link to="/">Resume where you left off</Link></li>
        <li><Link to="/learn">Your reading progress</Link></li>
        <li><Link to="/practice">Your practice sessions</Link></li>
        <li><Link to="/flashcards/stats">Your flashcard statistics</Link> · <Link to="/flashcards/settings">settings</Link></li>
      </ul>
      <button onClick={async () => { await logout(); navigate("/"); }}>Log out</button>
    </section>
  );
}
