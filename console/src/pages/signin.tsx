// Sign-in with email and password (OAuth password grant on /oauth/token).
import { useState } from 'preact/hooks';
import { api, messageOf } from '../api/client';
import { sessionEndReason, startSession } from '../session';
import { Field, valueOf } from '../ui';

export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(sessionEndReason());
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const {
      data,
      error: err,
      response,
    } = await api.POST('/oauth/token', {
      body: { grant_type: 'password', username: email, password },
    });
    setBusy(false);
    if (!response.ok || !data) return setError(messageOf(err, response.status).message);
    startSession(data.access_token);
  }

  return (
    <main class="signin">
      <h1>Sign in to the console</h1>
      <form onSubmit={submit}>
        <Field label="Email">
          <input type="email" autocomplete="username" required value={email} onInput={(e) => setEmail(valueOf(e))} />
        </Field>
        <Field label="Password">
          <input
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(valueOf(e))}
          />
        </Field>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
