// API keys and users. Administrators: the organization's users, a user's keys, creating a key (shown
// once, with a copy button), revoking one, and adding a user. Members: their own keys, read only (the
// API lets a member list their own keys and nothing else here).
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { getSession } from '../session';
import { Empty, ErrorBox, Field, Table, fmtDate, useLoad, valueOf } from '../ui';

export function ApiKeysPage() {
  const session = getSession()!;
  if (session.role !== 'admin')
    return (
      <>
        <h1>API keys</h1>
        <p>Your keys. An administrator creates and revokes them.</p>
        <Keys userId={session.userId} manage={false} />
      </>
    );
  return <AdminApiKeys />;
}

function AdminApiKeys() {
  const users = useLoad(() => ok(api.GET('/api/v1/users')), []);
  const [userId, setUserId] = useState<number>(getSession()!.userId);
  return (
    <>
      <h1>API keys</h1>
      <ErrorBox error={users.error} />
      <form onSubmit={(e) => e.preventDefault()}>
        <Field label="User">
          <select value={userId} onChange={(e) => setUserId(Number(valueOf(e)))}>
            {users.data?.map((u) => (
              <option key={u.id} value={u.id}>
                {u.email} ({u.role})
              </option>
            ))}
          </select>
        </Field>
      </form>
      <Keys userId={userId} manage />
      <NewUser onCreated={users.reload} />
    </>
  );
}

function Keys({ userId, manage }: { userId: number; manage: boolean }) {
  const path = { userId };
  const keys = useLoad(() => ok(api.GET('/api/v1/users/{userId}/api-keys', { params: { path } })), [userId]);
  const [description, setDescription] = useState('');
  const [created, setCreated] = useState<Schemas['CreatedApiKey']>();
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<Error>();

  async function create(e: Event) {
    e.preventDefault();
    setError(undefined);
    setCopied(false);
    try {
      setCreated(await ok(api.POST('/api/v1/users/{userId}/api-keys', { params: { path }, body: { description } })));
      setDescription('');
      keys.reload();
    } catch (err) {
      setError(err as Error);
    }
  }
  async function revoke(keyId: number) {
    setError(undefined);
    try {
      await ok(api.DELETE('/api/v1/users/{userId}/api-keys/{keyId}', { params: { path: { userId, keyId } } }));
      keys.reload();
    } catch (err) {
      setError(err as Error);
    }
  }
  async function copy() {
    await navigator.clipboard.writeText(created!.key);
    setCopied(true);
  }
  return (
    <section aria-labelledby="keys">
      <h2 id="keys">Keys</h2>
      {manage && (
        <form onSubmit={create}>
          <Field label="Description">
            <input value={description} onInput={(e) => setDescription(valueOf(e))} maxLength={200} />
          </Field>
          <button type="submit">Create API key</button>
        </form>
      )}
      <ErrorBox error={error ?? keys.error} />
      {created && (
        <div class="notice" role="status">
          <p>The new key is shown once. Copy it now; only its digest is stored.</p>
          <p class="row">
            <code class="secret" aria-label="New API key">
              {created.key}
            </code>
            <button type="button" onClick={copy}>
              {copied ? 'Copied' : 'Copy key'}
            </button>
          </p>
        </div>
      )}
      {keys.data?.length === 0 && (
        <Empty>
          {manage ? 'This user has no API key. Create one above.' : 'You have no API key yet: ask an administrator.'}
        </Empty>
      )}
      {!!keys.data?.length && (
        <Table
          label="API keys"
          rowKey={(k) => k.id}
          rows={keys.data}
          columns={[
            { label: 'Prefix', render: (k) => <code>{k.prefix}…</code> },
            { label: 'Description', render: (k) => k.description },
            { label: 'Created', render: (k) => fmtDate(k.created) },
            { label: 'Expires', render: (k) => fmtDate(k.expiresAt) },
            { label: 'Last used', render: (k) => fmtDate(k.lastUsedAt) },
            {
              label: 'State',
              render: (k) =>
                k.revokedAt ? (
                  `revoked ${fmtDate(k.revokedAt)}`
                ) : !manage ? (
                  'active'
                ) : (
                  <button
                    type="button"
                    class="danger"
                    onClick={() => revoke(k.id)}
                    aria-label={`Revoke key ${k.prefix}`}
                  >
                    Revoke
                  </button>
                ),
            },
          ]}
        />
      )}
    </section>
  );
}

function NewUser({ onCreated }: { onCreated: () => void }) {
  const [f, setF] = useState({ email: '', name: '', role: 'member' as 'admin' | 'member', password: '' });
  const [error, setError] = useState<Error>();
  const [done, setDone] = useState<string>();
  async function create(e: Event) {
    e.preventDefault();
    setError(undefined);
    try {
      const u = await ok(api.POST('/api/v1/users', { body: { ...f, ...(f.password ? {} : { password: undefined }) } }));
      setDone(`User ${u.email} added.`);
      setF({ email: '', name: '', role: 'member', password: '' });
      onCreated();
    } catch (err) {
      setError(err as Error);
    }
  }
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: valueOf(e) });
  return (
    <section aria-labelledby="new-user">
      <h2 id="new-user">Add a user</h2>
      <form onSubmit={create}>
        <Field label="User email">
          <input type="email" required value={f.email} onInput={set('email')} />
        </Field>
        <Field label="Name">
          <input required value={f.name} onInput={set('name')} />
        </Field>
        <Field label="Role">
          <select value={f.role} onChange={set('role')}>
            <option value="member">member</option>
            <option value="admin">admin</option>
          </select>
        </Field>
        <Field label="Initial password">
          <input type="password" autocomplete="new-password" value={f.password} onInput={set('password')} />
        </Field>
        <button type="submit">Add user</button>
      </form>
      <ErrorBox error={error} />
      {done && (
        <p class="notice" role="status">
          {done}
        </p>
      )}
    </section>
  );
}
