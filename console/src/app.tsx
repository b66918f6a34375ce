// The shell: sign-in when there is no session, else the navigation and the screen of the URL.
// Webhooks, for administrators only, is not linked (nor routed) for members, and API keys shows a
// member only their own keys; the API refuses members the rest anyway (403).
import { Link, Redirect, Route, Router, Switch } from 'wouter-preact';
import { useEffect } from 'preact/hooks';
import { queryClient } from './query';
import { endSession, useSession } from './session';
import { SignIn } from './pages/signin';
import { AgentsPage } from './pages/agents';
import { AgentPage } from './pages/agent';
import { RunsPage } from './pages/runs';
import { RunPage } from './pages/run';
import { SchedulesPage } from './pages/schedules';
import { ApiKeysPage } from './pages/api-keys';
import { BillingPage } from './pages/billing';
import { AnalyticsPage } from './pages/analytics';
import { BuilderPage } from './pages/builder';
import { WebhooksPage } from './pages/webhooks';

const NAV: { href: string; label: string; adminOnly?: boolean }[] = [
  { href: '/agents', label: 'Agents' },
  { href: '/runs', label: 'Runs' },
  { href: '/schedules', label: 'Schedules' },
  { href: '/builder', label: 'Builder' },
  { href: '/billing', label: 'Billing' },
  { href: '/analytics', label: 'Analytics' },
  { href: '/api-keys', label: 'API keys' },
  { href: '/webhooks', label: 'Webhooks', adminOnly: true },
];

export function App() {
  const session = useSession();
  // What one user read is never shown to the next one who signs in on this tab.
  useEffect(() => {
    if (!session) queryClient.clear();
  }, [session]);
  if (!session) return <SignIn />;
  const admin = session.role === 'admin';
  return (
    <Router base="/console">
      <header class="top">
        <strong>Cloud Extraction Service</strong>
        <nav aria-label="Main">
          {NAV.filter((n) => admin || !n.adminOnly).map((n) => (
            <Link key={n.href} href={n.href} className={(active: boolean) => (active ? 'active' : '')}>
              {n.label}
            </Link>
          ))}
        </nav>
        <span class="who">
          {session.email} ({session.role})
          <button type="button" onClick={() => endSession()}>
            Sign out
          </button>
        </span>
      </header>
      <main>
        <Switch>
          <Route path="/agents/:agentId">{(p) => <AgentPage agentId={Number(p.agentId)} />}</Route>
          <Route path="/agents" component={AgentsPage} />
          <Route path="/runs/:agentId/:runId">
            {(p) => <RunPage agentId={Number(p.agentId)} runId={Number(p.runId)} />}
          </Route>
          <Route path="/runs" component={RunsPage} />
          <Route path="/schedules" component={SchedulesPage} />
          <Route path="/builder" component={BuilderPage} />
          <Route path="/billing" component={BillingPage} />
          <Route path="/analytics" component={AnalyticsPage} />
          <Route path="/api-keys" component={ApiKeysPage} />
          {admin && <Route path="/webhooks" component={WebhooksPage} />}
          <Route path="/">
            <Redirect to="/agents" replace />
          </Route>
          <Route>
            <h1>Not found</h1>
            <p>
              This page does not exist. <Link href="/agents">Go to the Agents</Link>.
            </p>
          </Route>
        </Switch>
      </main>
    </Router>
  );
}
