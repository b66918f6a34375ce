// A statement of a raw transaction sent in one round trip with the transaction's BEGIN (before it)
// and/or its COMMIT (after it). node-postgres sends one query per round trip; on a hot path (every
// Run's start and settlement) BEGIN and COMMIT would each cost a round trip of their own, which on a
// busy host is as much CPU as the statement itself. The extended protocol runs the messages of one
// batch in order up to its Sync, and an error skips the rest of the batch: a failed statement never
// reaches its COMMIT, and the transaction is left for the caller's ROLLBACK.
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

/** A statement without parameters, on the unnamed statement and portal, inside the batch. */
function sendPlain(connection: WireConnection, text: 'BEGIN' | 'COMMIT') {
  connection.parse({ text, name: '', types: [] });
  connection.bind({ portal: '', statement: '', values: [] });
  connection.execute({ portal: '' });
}

export interface TransactionEdges {
  /** BEGIN goes first: the statement is the transaction's first. */
  begin: boolean;
  /** COMMIT goes after: the statement is the transaction's last. */
  commit: boolean;
}

class EdgeQuery extends BaseQuery {
  private pendingBegin: boolean;
  private ownDone = false;

  constructor(
    config: pg.QueryConfig & { types?: unknown },
    private readonly edges: TransactionEdges,
  ) {
    super(config);
    this.pendingBegin = edges.begin;
  }

  // Always the extended protocol, which the batch needs (node-postgres sends a query without
  // parameters or name as a simple query).
  requiresPreparation() {
    return true;
  }

  prepare(connection: WireConnection) {
    // An unnamed statement would be replaced by BEGIN's (also unnamed): BEGIN then goes before its Parse.
    const named = Boolean(this.name);
    if (this.edges.begin && !named) sendPlain(connection, 'BEGIN');
    if (!this.hasBeenParsed(connection)) {
      connection.parse({ text: this.text, name: this.name, types: this.types });
      if (this.name) connection.submittedNamedStatements[this.name] = this.text;
    }
    if (this.edges.begin && named) sendPlain(connection, 'BEGIN');
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
    if (this.edges.commit) sendPlain(connection, 'COMMIT');
    connection.sync();
  }

  override handleCommandComplete(msg: { command: string }, connection: WireConnection) {
    if (this.pendingBegin) {
      this.pendingBegin = false;
      return;
    }
    // After the statement's own completion, only COMMIT's can come.
    if (this.ownDone) return;
    this.ownDone = true;
    super.handleCommandComplete(msg, connection);
  }
}
/** A query for `client.query`, whose results are the statement's alone (BEGIN's and COMMIT's are dropped). */
export function edgeQuery(config: pg.QueryConfig & { types?: unknown }, edges: TransactionEdges): pg.Submittable {
  return new EdgeQuery(config, edges) as unknown as pg.Submittable;
}
