// API keys and users. Administrators: the organization's users, a user's keys, creating a key (shown
// once, with a copy button), revoking one, and adding a user. Members: their own keys, read only (the
// API lets a member list their own keys and nothing else here).
import { useQuery } from '@tanstack/react-query';
import { useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { confirmed, useAction } from '../query';
import { getSession } from '../session';
import { BusyButton, Empty, ErrorBox, Field, Table, fmtDate, valueOf } from '../ui';

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
  const users = useQuery({ queryKey: ['users'], queryFn: () => ok(api.GET('/api/v1/users')) });
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
      <NewUser />
    </>
  );
}

function Keys({ userId, manage }: { userId: number; manage: boolean }) {
  const path = { userId };
  const keysKey = ['users', userId, 'api-keys'];
  const keys = useQuery({
    queryKey: keysKey,
    queryFn: () => ok(api.GET('/api/v1/users/{userId}/api-keys', { params: { path } })),
  });
  const [description, setDescription] = useState('');
  const create = useAction(
    () => ok(api.POST('/api/v1/users/{userId}/api-keys', { params: { path }, body: { description } })),
    { invalidates: [keysKey], onSuccess: () => setDescription('') },
  );
  const revoke = useAction(
    (keyId: number) =>
      ok(api.DELETE('/api/v1/users/{userId}/api-keys/{keyId}', { params: { path: { userId, keyId } } })),
    { invalidates: [keysKey] },
  );
  const created = create.data;
  return (
    <section aria-labelledby="keys">
      <h2 id="keys">Keys</h2>
      {manage && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate(undefined);
          }}
        >
          <Field label="Description">
            <input value={description} onInput={(e) => setDescription(valueOf(e))} maxLength={200} />
          </Field>
          <BusyButton type="submit" busy={create.isPending}>
            Create API key
          </BusyButton>
        </form>
      )}
      <ErrorBox error={create.error ?? revoke.error ?? keys.error} />
      {created && <NewKey key={created.key} secret={created.key} />}
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
              render: (k) => (
                <KeyState
                  apiKey={k}
                  manage={manage}
                  busy={revoke.isPending && revoke.variables === k.id}
                  onRevoke={() => revoke.mutate(k.id)}
                />
              ),
            },
          ]}
        />
      )}
    </section>
  );
}

/** Revoked (when), active, or for an administrator a Revoke button that asks first. */
function KeyState(props: { apiKey: Schemas['ApiKey']; manage: boolean; busy: boolean; onRevoke: () => void }) {
  const k = props.apiKey;
  if (k.revokedAt) return <>revoked {fmtDate(k.revokedAt)}</>;
  if (!props.manage) return <>active</>;
  return (
    <BusyButton
      busy={props.busy}
      danger
      onClick={() =>
        confirmed(`Revoke the key ${k.prefix}…? Every client that uses it is refused from now on.`, props.onRevoke)
      }
      label={`Revoke key ${k.prefix}`}
    >
      Revoke
    </BusyButton>
  );
}

/** A key just created: shown once, with a copy button. */
function NewKey({ secret }: { secret: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    await navigator.clipboard.writeText(secret);
    setCopied(true);
  }
  return (
    <div class="notice" role="status">
      <p>The new key is shown once. Copy it now; only its digest is stored.</p>
      <p class="row">
        <code class="secret" aria-label="New API key">
          {secret}
        </code>
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy key'}
        </button>
      </p>
    </div>
  );
}

const NO_USER = { email: '', name: '', role: 'member' as 'admin' | 'member', password: '' };

function NewUser() {
  const [f, setF] = useState(NO_USER);
  const create = useAction(
    () => ok(api.POST('/api/v1/users', { body: { ...f, ...(f.password ? {} : { password: undefined }) } })),
    { invalidates: [['users']], onSuccess: () => setF(NO_USER) },
  );
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: valueOf(e) });
  return (
    <section aria-labelledby="new-user">
      <h2 id="new-user">Add a user</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate(undefined);
        }}
      >
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
        <BusyButton type="submit" busy={create.isPending}>
          Add user
        </BusyButton>
      </form>
      <ErrorBox error={create.error} />
      {create.data && (
        <p class="notice" role="status">
          User {create.data.email} added.
        </p>
      )}
    </section>
  );
}
