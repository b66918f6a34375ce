// A statement of a raw transaction sent in one round trip with the transaction's BEGIN (before it),
// statements whose rows are not needed (before or after it), and/or its COMMIT (after it). node-postgres sends
// one query per round trip; on a hot path (every Run's start and settlement) each would cost a round
// trip of its own, which on a busy host is as much CPU as the statement itself. The extended protocol
// runs the messages of one batch in order up to its Sync, each statement in its own snapshot, and an
// error skips the rest of the batch: a failed statement never reaches its COMMIT, and the transaction
// is left for the caller's ROLLBACK.
import { createRequire } from 'node:module';
import pg from 'pg';

// How node-postgres turns values into parameters (not in its public types).
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as { prepareValue: unknown };

/** The wire connection of node-postgres as a query's `prepare` drives it (not in its public types). */
interface WireConnection {
  parse(msg: { text: string; name?: string; types?: unknown }): void;
  bind(msg: { portal?: string; statement?: string; values?: unknown[]; binary?: boolean; valueMapper?: unknown }): void;
  describe(msg: { type: 'P'; name: string }): void;
  execute(msg: { portal: string; rows?: number }): void;
  sync(): void;
  close(msg: { type: 'S'; name: string }): void;
  submittedNamedStatements: Record<string, string>;
}

/** The parts of node-postgres's Query that this one overrides or calls. */
interface QueryInternals {
  text: string;
  name?: string;
  values?: unknown[];
  types?: unknown;
  binary?: boolean;
  portal: string;
  hasBeenParsed(connection: WireConnection): boolean;
  handleCommandComplete(msg: { command: string }, connection: WireConnection): void;
  handleError(err: Error, connection: WireConnection): void;
}
const BaseQuery = pg.Query as unknown as new (config: pg.QueryConfig & { types?: unknown }) => QueryInternals;
const baseQueryPrototype = pg.Query.prototype as unknown as { handleDataRow(this: unknown, msg: unknown): void };

/**
 * Names of the quiet statements prepared on a connection, by text. node-postgres tracks only its query's
 * own name, so these are tracked here: a name is kept once its batch succeeded; after an error the
 * batch's new texts get new names next time (whether their Parse ran or not is unknown), never reused.
 */
interface QuietNames {
  next: number;
  byText: Map<string, string>;
}
const quietNames = new WeakMap<WireConnection, QuietNames>();
/** Distinct quiet texts kept prepared per connection; past this they are parsed each time. */
const MAX_QUIET_NAMES = 64;

/**
 * A statement whose rows are dropped, on the unnamed portal, inside the batch. Prepared once per
 * connection (PostgreSQL then parses and plans it once), unless it has no parameters (BEGIN, COMMIT:
 * nothing to plan). Returns the text when this batch prepares it.
 */
function sendQuiet(connection: WireConnection, statement: QuietStatement): string | null {
  let names = quietNames.get(connection);
  if (!names) quietNames.set(connection, (names = { next: 0, byText: new Map() }));
  let name = statement.values?.length ? names.byText.get(statement.text) : '';
  let parsed: string | null = null;
  if (name === undefined) {
    name = names.byText.size < MAX_QUIET_NAMES ? `edge-q${names.next++}` : '';
    if (name) names.byText.set(statement.text, name);
    parsed = name ? statement.text : null;
  }
  if (!name || parsed) connection.parse({ text: statement.text, name, types: [] });
  connection.bind({ portal: '', statement: name, values: statement.values ?? [], valueMapper: prepareValue });
  connection.execute({ portal: '' });
  return parsed;
}

/** After a failed batch: its newly named texts are named afresh next time. */
function forgetQuiet(connection: WireConnection, texts: string[]) {
  const names = quietNames.get(connection);
  for (const text of texts) names?.byText.delete(text);
}

/** A statement of the batch that is not the query itself: its rows and completion are dropped. */
export interface QuietStatement {
  text: string;
  values?: unknown[];
}

export interface TransactionEdges {
  /** BEGIN goes first: the statement is the transaction's first. */
  begin: boolean;
  /**
   * Statements run after BEGIN and before this one, in the same round trip, each in its own snapshot
   * (one that waits for a lock lets the next see what committed meanwhile); their rows are dropped.
   */
  before?: QuietStatement[];
  /** Statements run after this one (and before the COMMIT), in the same round trip; their rows are dropped. */
  after?: QuietStatement[];
  /** COMMIT goes after: the statement is the transaction's last. */
  commit: boolean;
}

class EdgeQuery extends BaseQuery {
  /** Completions of the batch's statements before this one (BEGIN's, the quiet ones'), still to come. */
  private pendingBefore: number;
  private ownDone = false;
  /** Quiet statements this batch prepares (forgotten if it fails). */
  private readonly quietParsed: string[] = [];

  constructor(
    config: pg.QueryConfig & { types?: unknown },
    private readonly edges: TransactionEdges,
  ) {
    super(config);
    this.pendingBefore = (edges.begin ? 1 : 0) + (edges.before?.length ?? 0);
  }

  // Always the extended protocol, which the batch needs (node-postgres sends a query without
  // parameters or name as a simple query).
  requiresPreparation() {
    return true;
  }

  prepare(connection: WireConnection) {
    // BEGIN and the quiet statements go before the query's Parse: an unnamed one of theirs would replace it.
    if (this.edges.begin) sendQuiet(connection, { text: 'BEGIN' });
    for (const statement of this.edges.before ?? []) {
      const parsed = sendQuiet(connection, statement);
      if (parsed) this.quietParsed.push(parsed);
    }
    if (!this.hasBeenParsed(connection)) {
      connection.parse({ text: this.text, name: this.name, types: this.types });
      if (this.name) connection.submittedNamedStatements[this.name] = this.text;
    }
    try {
      connection.bind({
        portal: this.portal,
        statement: this.name,
        values: this.values,
        binary: this.binary,
        valueMapper: prepareValue,
      });
    } catch (err) {
      // As node-postgres does: a value that cannot be sent fails the query (BEGIN, if sent, stays open).
      if (this.name) connection.close({ type: 'S', name: this.name });
      connection.sync();
      this.handleError(err as Error, connection);
      return;
    }
    connection.describe({ type: 'P', name: this.portal || '' });
    connection.execute({ portal: this.portal });
    // The query's portal has run to its end when these are bound (the server takes messages in order).
    for (const statement of this.edges.after ?? []) {
      const parsed = sendQuiet(connection, statement);
      if (parsed) this.quietParsed.push(parsed);
    }
    if (this.edges.commit) sendQuiet(connection, { text: 'COMMIT' });
    connection.sync();
  }

  override handleError(err: Error, connection: WireConnection) {
    forgetQuiet(connection, this.quietParsed);
    super.handleError(err, connection);
  }

  // A quiet statement's rows (it has no Describe, so no field names) are not the query's.
  handleDataRow(msg: unknown) {
    if (this.pendingBefore === 0 && !this.ownDone) baseQueryPrototype.handleDataRow.call(this, msg);
  }

  override handleCommandComplete(msg: { command: string }, connection: WireConnection) {
    if (this.pendingBefore > 0) {
      this.pendingBefore -= 1;
      return;
    }
    // After the statement's own completion, only the `after` statements' and COMMIT's can come.
    if (this.ownDone) return;
    this.ownDone = true;
    super.handleCommandComplete(msg, connection);
  }
}
/** A query for `client.query`, whose results are the statement's alone (the other statements' are dropped). */
export function edgeQuery(config: pg.QueryConfig & { types?: unknown }, edges: TransactionEdges): pg.Submittable {
  return new EdgeQuery(config, edges) as unknown as pg.Submittable;
}
