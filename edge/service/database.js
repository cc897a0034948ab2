// The inbox's SQLite tables (a SQLite-backed Durable Object) and every query on them. All calls are
// synchronous: inside the object they run one at a time, so a read followed by a write is atomic, which
// is what the Executor's compare-and-swap relies on.

const SCHEMA = `
CREATE TABLE IF NOT EXISTS approvals (
  id TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  proposal TEXT NOT NULL,
  decision TEXT,
  decided_at INTEGER,
  decided_by TEXT,
  decline_reason TEXT
);
CREATE INDEX IF NOT EXISTS approvals_by_age ON approvals (created_at DESC);
CREATE TABLE IF NOT EXISTS confirmations (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS approver_keys (
  key_id TEXT PRIMARY KEY,
  approver TEXT NOT NULL,
  spec TEXT NOT NULL,
  credential_id TEXT,
  sign_count INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE TABLE IF NOT EXISTS audit (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at INTEGER NOT NULL,
  approval_id TEXT,
  event TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_by_approval ON audit (approval_id, seq);
CREATE TABLE IF NOT EXISTS reconfirms (approval_id TEXT PRIMARY KEY, facts TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS enrollments (code TEXT PRIMARY KEY, approver TEXT NOT NULL, expires_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS enrollment_issuers (code TEXT PRIMARY KEY, issued_by TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS receipts (seq INTEGER PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS decision_reads (approval_id TEXT PRIMARY KEY, read_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS cosigners (approval_id TEXT NOT NULL, approver TEXT NOT NULL, key_id TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (approval_id, approver));
CREATE TABLE IF NOT EXISTS feed_tickets (ticket TEXT PRIMARY KEY, roles TEXT NOT NULL, expires_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS enrollment_roles (code TEXT PRIMARY KEY, roles TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS approver_roles (approver TEXT PRIMARY KEY, roles TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS key_labels (key_id TEXT PRIMARY KEY, label TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS agent_status (agent_id TEXT PRIMARY KEY, at INTEGER NOT NULL, status TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS agent_commands (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  agent_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  approver TEXT NOT NULL,
  key_id TEXT NOT NULL,
  verb TEXT NOT NULL,
  text TEXT NOT NULL,
  taken_at INTEGER,
  result TEXT
);
CREATE INDEX IF NOT EXISTS agent_commands_by_agent ON agent_commands (agent_id, seq);
CREATE TABLE IF NOT EXISTS discord_interactions (id TEXT PRIMARY KEY, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tool_call_asks (
  agent_id TEXT NOT NULL,
  digest TEXT NOT NULL,
  approval_id TEXT NOT NULL,
  asks INTEGER NOT NULL,
  PRIMARY KEY (agent_id, digest)
);
CREATE INDEX IF NOT EXISTS tool_call_asks_by_approval ON tool_call_asks (approval_id);
`;

export class Database {
  constructor(sql) {
    this.sql = sql;
    sql.exec(SCHEMA);
    // A command table made before commands had results gets the column.
    if (!this.rows("PRAGMA table_info(agent_commands)").some((column) => column.name === "result")) {
      sql.exec("ALTER TABLE agent_commands ADD COLUMN result TEXT");
    }
  }

  rows(query, ...bindings) {
    return this.sql.exec(query, ...bindings).toArray();
  }

  // ---- the Executor's confirmation store ----

  confirmationStore() {
    const get = (key) => this.rows("SELECT value FROM confirmations WHERE key = ?", key)[0]?.value ?? null;
    const put = (key, value) =>
      this.sql.exec(
        "INSERT INTO confirmations (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        key,
        value,
      );
    return {
      get,
      put,
      compareAndSwap(key, expected, next) {
        if (get(key) !== expected) return false;
        put(key, next);
        return true;
      },
    };
  }

  /** The stored confirmation record's exact text (what its version is computed from), or null. */
  confirmationText(id) {
    return this.rows("SELECT value FROM confirmations WHERE key = ?", `confirmation/${id}`)[0]?.value ?? null;
  }

  /** How many of the Executor's confirmations are in flight (an Apply started, its outcome not known yet). */
  inFlightCount() {
    return this.rows("SELECT count(*) AS n FROM confirmations WHERE key LIKE 'confirmation/%' AND json_extract(value, '$.in_flight_at') IS NOT NULL")[0]?.n ?? 0;
  }

  /** The Executor's records of standing approvals (`mandate/{id}`), as stored. */
  mandateRecords() {
    return this.rows("SELECT value FROM confirmations WHERE key LIKE 'mandate/%'");
  }

  confirmation(id) {
    const text = this.confirmationText(id);
    return text === null ? null : JSON.parse(text);
  }

  /** Drops used-nonce entries whose action can no longer be accepted anyway (RFC 3339 UTC sorts as text). */
  forgetExpiredNonces(nowText) {
    this.sql.exec("DELETE FROM confirmations WHERE key LIKE 'action/%' AND json_extract(value, '$.deletable_after') < ?", nowText);
  }

  // ---- approvals ----

  insertApproval(id, createdAt, proposal) {
    this.sql.exec("INSERT INTO approvals (id, created_at, proposal) VALUES (?, ?, ?)", id, createdAt, JSON.stringify(proposal));
  }

  approval(id) {
    const row = this.rows("SELECT * FROM approvals WHERE id = ?", id)[0];
    return row === undefined ? null : { ...row, proposal: JSON.parse(row.proposal) };
  }

  // ---- tool calls asked through the MCP gateway ----

  /** The latest approval agent `agentId` asked for a tool call with change digest `digest`, and how often it asked. */
  toolCallAsk(agentId, digest) {
    return this.rows("SELECT approval_id, asks FROM tool_call_asks WHERE agent_id = ? AND digest = ?", agentId, digest)[0] ?? null;
  }

  /** Records that `agentId` asked for that call, as approval `approvalId`, `asks` times. */
  putToolCallAsk(agentId, digest, approvalId, asks) {
    this.sql.exec(
      "INSERT INTO tool_call_asks (agent_id, digest, approval_id, asks) VALUES (?, ?, ?, ?) ON CONFLICT (agent_id, digest) DO UPDATE SET approval_id = excluded.approval_id, asks = excluded.asks",
      agentId,
      digest,
      approvalId,
      asks,
    );
  }

  /** How many times the agent asked for the call approval `approvalId` is (1 for an approval not asked through the gateway). */
  asksFor(approvalId) {
    return this.rows("SELECT asks FROM tool_call_asks WHERE approval_id = ?", approvalId)[0]?.asks ?? 1;
  }

  /** The newest approvals, at most `limit`; with `before` (ms), only those created earlier (the next page). */
  recentApprovals(limit, before = null) {
    const rows =
      before === null
        ? this.rows("SELECT * FROM approvals ORDER BY created_at DESC, id LIMIT ?", limit)
        : this.rows("SELECT * FROM approvals WHERE created_at < ? ORDER BY created_at DESC, id LIMIT ?", before, limit);
    return rows.map((row) => ({
      ...row,
      proposal: JSON.parse(row.proposal),
    }));
  }

  /** How long the decided card was on its person's screen before they decided (their page's measure). */
  recordRead(id, readMs) {
    this.sql.exec("INSERT INTO decision_reads (approval_id, read_ms) VALUES (?, ?) ON CONFLICT (approval_id) DO NOTHING", id, readMs);
  }

  /** The approvals decided at or after `since` (proposal parsed), and each one's time on screen. */
  decidedSince(since) {
    const rows = this.rows("SELECT * FROM approvals WHERE decided_at IS NOT NULL AND decided_at >= ?", since).map((row) => ({ ...row, proposal: JSON.parse(row.proposal) }));
    const reads = new Map(this.rows("SELECT r.approval_id, r.read_ms FROM decision_reads r JOIN approvals a ON a.id = r.approval_id WHERE a.decided_at >= ?", since).map((row) => [row.approval_id, row.read_ms]));
    return { rows, reads };
  }

  /** Records a decision on a pending approval; false when it was no longer pending. */
  decide(id, decision, at, keyId, declineReason = null) {
    const cursor = this.sql.exec(
      "UPDATE approvals SET decision = ?, decided_at = ?, decided_by = ?, decline_reason = ? WHERE id = ? AND decision IS NULL",
      decision,
      at,
      keyId,
      declineReason,
      id,
    );
    return cursor.rowsWritten === 1;
  }

  /** What step 6 found when an Apply was refused because the node had moved on: current status, valid transitions. */
  setReconfirm(id, facts) {
    this.sql.exec(
      "INSERT INTO reconfirms (approval_id, facts) VALUES (?, ?) ON CONFLICT (approval_id) DO UPDATE SET facts = excluded.facts",
      id,
      JSON.stringify(facts),
    );
  }

  reconfirm(id) {
    const text = this.rows("SELECT facts FROM reconfirms WHERE approval_id = ?", id)[0]?.facts;
    return text === undefined ? null : JSON.parse(text);
  }

  // ---- approver keys ----

  keys() {
    return this.rows("SELECT approver_keys.*, key_labels.label FROM approver_keys LEFT JOIN key_labels USING (key_id) ORDER BY created_at, key_id").map((row) => ({
      ...row,
      spec: JSON.parse(row.spec),
    }));
  }

  /** A key's name as its approver chose it (shown instead of its id). */
  labelKey(keyId, label) {
    this.sql.exec("INSERT INTO key_labels (key_id, label) VALUES (?, ?) ON CONFLICT (key_id) DO UPDATE SET label = excluded.label", keyId, label);
  }

  /** One approver's keys, oldest first. */
  approverKeys(approver) {
    return this.keys().filter((row) => row.approver === approver);
  }

  key(keyId) {
    const row = this.rows("SELECT approver_keys.*, key_labels.label FROM approver_keys LEFT JOIN key_labels USING (key_id) WHERE key_id = ?", keyId)[0];
    return row === undefined ? null : { ...row, spec: JSON.parse(row.spec) };
  }

  insertKey({ keyId, approver, spec, credentialId, at }) {
    this.sql.exec(
      "INSERT INTO approver_keys (key_id, approver, spec, credential_id, created_at) VALUES (?, ?, ?, ?, ?)",
      keyId,
      approver,
      JSON.stringify(spec),
      credentialId,
      at,
    );
  }

  revokeKey(keyId, at) {
    return this.sql.exec("UPDATE approver_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL", at, keyId).rowsWritten === 1;
  }

  /** Raises a passkey's last signature counter; false when it did not advance (WebAuthn section 7.2 step 21). */
  advanceSignCount(keyId, count) {
    const row = this.rows("SELECT sign_count FROM approver_keys WHERE key_id = ?", keyId)[0];
    if (row === undefined) return false;
    const last = row.sign_count;
    if (!((last === 0 && count === 0) || count > last)) return false;
    this.sql.exec("UPDATE approver_keys SET sign_count = ? WHERE key_id = ?", count, keyId);
    return true;
  }

  // ---- enrollment codes (first-run registration of an approver's key) ----

  insertEnrollment(code, approver, expiresAt, roles = [], issuedBy = null) {
    this.sql.exec("INSERT INTO enrollments (code, approver, expires_at) VALUES (?, ?, ?)", code, approver, expiresAt);
    if (issuedBy !== null) this.sql.exec("INSERT INTO enrollment_issuers (code, issued_by) VALUES (?, ?)", code, issuedBy);
    if (roles.length > 0) this.sql.exec("INSERT INTO enrollment_roles (code, roles) VALUES (?, ?)", code, roles.join(","));
  }

  /** The roles an enrollment code grants its approver once used (the admin gives them when making the code). */
  enrollmentRoles(code) {
    const text = this.rows("SELECT roles FROM enrollment_roles WHERE code = ?", code)[0]?.roles;
    return text === undefined ? [] : text.split(",").filter(Boolean);
  }

  // ---- approvers' roles ----

  approverRoles(approver) {
    const text = this.rows("SELECT roles FROM approver_roles WHERE approver = ?", approver)[0]?.roles;
    return text === undefined ? [] : text.split(",").filter(Boolean);
  }

  grantRoles(approver, roles) {
    const next = [...new Set([...this.approverRoles(approver), ...roles])].sort();
    this.sql.exec(
      "INSERT INTO approver_roles (approver, roles) VALUES (?, ?) ON CONFLICT (approver) DO UPDATE SET roles = excluded.roles",
      approver,
      next.join(","),
    );
  }

  /** Who made enrollment code `code` (an admin approver's name), or null (the admin token). */
  enrollmentIssuer(code) {
    return this.rows("SELECT issued_by FROM enrollment_issuers WHERE code = ?", code)[0]?.issued_by ?? null;
  }

  /** Whether any approver has a key (the first one enrols with the admin token's code; later ones are invited). */
  hasApprovers() {
    return this.rows("SELECT 1 FROM approver_keys LIMIT 1").length > 0;
  }

  /** Uses a one-time code: its approver when it exists and has not expired, null otherwise. */
  /** Whether `code` is a live enrollment code for `approver` (nothing is used up). */
  hasEnrollment(code, approver, now) {
    const row = this.rows("SELECT approver, expires_at FROM enrollments WHERE code = ?", code)[0];
    return row !== undefined && row.expires_at >= now && row.approver === approver;
  }

  takeEnrollment(code, now) {
    const row = this.rows("SELECT approver, expires_at FROM enrollments WHERE code = ?", code)[0];
    const roles = this.enrollmentRoles(code);
    this.sql.exec("DELETE FROM enrollments WHERE code = ? OR expires_at < ?", code, now);
    this.sql.exec("DELETE FROM enrollment_roles WHERE code NOT IN (SELECT code FROM enrollments)");
    this.sql.exec("DELETE FROM enrollment_issuers WHERE code NOT IN (SELECT code FROM enrollments)");
    if (row === undefined || row.expires_at < now) return null;
    if (roles.length > 0) this.grantRoles(row.approver, roles);
    return row.approver;
  }

  // ---- feed tickets (single use, short-lived) ----

  insertTicket(ticket, roles, expiresAt, now) {
    this.sql.exec("DELETE FROM feed_tickets WHERE expires_at < ?", now);
    this.sql.exec("INSERT INTO feed_tickets (ticket, roles, expires_at) VALUES (?, ?, ?)", ticket, roles, expiresAt);
  }

  /** Uses a ticket: its roles when it exists and has not expired, null otherwise; it is gone either way. */
  takeTicket(ticket, now) {
    const row = this.rows("SELECT roles, expires_at FROM feed_tickets WHERE ticket = ?", ticket)[0];
    this.sql.exec("DELETE FROM feed_tickets WHERE ticket = ? OR expires_at < ?", ticket, now);
    return row !== undefined && row.expires_at >= now ? row.roles : null;
  }

  // ---- receipts and the inbox's own settings ----

  lastReceipt() {
    const row = this.rows("SELECT body FROM receipts ORDER BY seq DESC LIMIT 1")[0];
    return row === undefined ? null : JSON.parse(row.body);
  }

  insertReceipt(receipt) {
    this.sql.exec("INSERT INTO receipts (seq, body) VALUES (?, ?)", receipt.seq, JSON.stringify(receipt));
  }

  /** Receipts after `since` (a seq), oldest first. */
  /** The latest receipt of change `digest` applied by an approval other than `approvalId` (null when none). */
  lastAppliedReceipt(digest, approvalId) {
    const row = this.rows(
      "SELECT body FROM receipts WHERE json_extract(body, '$.change_digest') = ? AND json_extract(body, '$.outcome') IN ('applied', 'reconciled_applied') AND json_extract(body, '$.approval_id') != ? ORDER BY seq DESC LIMIT 1",
      digest,
      approvalId,
    )[0];
    return row === undefined ? null : JSON.parse(row.body);
  }

  receipts(since, limit) {
    return this.rows("SELECT body FROM receipts WHERE seq > ? ORDER BY seq LIMIT ?", since, limit).map((row) => JSON.parse(row.body));
  }

  /** The approvals applied since `since` (the guard's milliseconds), one id per Apply, from the audit. */
  appliedSince(since) {
    return this.rows("SELECT approval_id FROM audit WHERE event = 'apply' AND at >= ? AND json_extract(detail, '$.outcome') = 'applied'", since).map((row) => row.approval_id);
  }

  /** The people who signed approval `id` before it had all the approvers its rule needs, in order. */
  cosigners(id) {
    return this.rows("SELECT approver, key_id, at FROM cosigners WHERE approval_id = ? ORDER BY at, approver", id);
  }

  /** Records `approver`'s signature of approval `id`; false when they signed it already. */
  insertCosigner(id, approver, keyId, at) {
    if (this.rows("SELECT 1 FROM cosigners WHERE approval_id = ? AND approver = ?", id, approver).length > 0) return false;
    this.sql.exec("INSERT INTO cosigners (approval_id, approver, key_id, at) VALUES (?, ?, ?, ?)", id, approver, keyId, at);
    return true;
  }

  setting(name) {
    return this.rows("SELECT value FROM settings WHERE name = ?", name)[0]?.value ?? null;
  }

  /** Sets (or replaces) setting `name`. */
  replaceSetting(name, value) {
    this.sql.exec("INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value", name, value);
  }

  putSetting(name, value) {
    this.sql.exec("INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", name, value);
  }

  // ---- agents: presence and privileged commands ----

  putAgentStatus(agentId, at, status) {
    this.sql.exec(
      "INSERT INTO agent_status (agent_id, at, status) VALUES (?, ?, ?) ON CONFLICT (agent_id) DO UPDATE SET at = excluded.at, status = excluded.status",
      agentId,
      at,
      JSON.stringify(status),
    );
  }

  agentStatuses() {
    // The guard's own fields last: a report never names another agent or another time.
    return this.rows("SELECT * FROM agent_status ORDER BY agent_id").map((row) => ({ ...JSON.parse(row.status), agent_id: row.agent_id, reported_at_ms: row.at }));
  }

  /** Records a Discord interaction id; false when it was seen already. Ids older than `forgetBefore` are dropped. */
  recordDiscordInteraction(id, at, forgetBefore) {
    this.sql.exec("DELETE FROM discord_interactions WHERE at < ?", forgetBefore);
    // Synchronous inside the object: nothing runs between the look-up and the insert.
    if (this.rows("SELECT 1 FROM discord_interactions WHERE id = ?", id).length > 0) return false;
    this.sql.exec("INSERT INTO discord_interactions (id, at) VALUES (?, ?)", id, at);
    return true;
  }

  insertAgentCommand({ agentId, at, approver, keyId, verb, text }) {
    this.sql.exec(
      "INSERT INTO agent_commands (agent_id, at, approver, key_id, verb, text) VALUES (?, ?, ?, ?, ?, ?)",
      agentId,
      at,
      approver,
      keyId,
      verb,
      text,
    );
    return this.rows("SELECT * FROM agent_commands WHERE seq = last_insert_rowid()")[0];
  }

  /** Untaken commands: the oldest first (the order to carry them out); all: the newest `limit`, oldest first. */
  agentCommands(agentId, since, untakenOnly, limit) {
    if (untakenOnly) {
      return this.rows("SELECT * FROM agent_commands WHERE agent_id = ? AND seq > ? AND taken_at IS NULL ORDER BY seq LIMIT ?", agentId, since, limit);
    }
    return this.rows("SELECT * FROM agent_commands WHERE agent_id = ? AND seq > ? ORDER BY seq DESC LIMIT ?", agentId, since, limit).reverse();
  }

  agentCommand(agentId, seq) {
    return this.rows("SELECT * FROM agent_commands WHERE agent_id = ? AND seq = ?", agentId, seq)[0] ?? null;
  }

  /** Marks a command taken by its agent; false when it was taken already (a command is handed over once). */
  takeAgentCommand(agentId, seq, at) {
    return this.sql.exec("UPDATE agent_commands SET taken_at = ? WHERE agent_id = ? AND seq = ? AND taken_at IS NULL", at, agentId, seq).rowsWritten === 1;
  }

  /** Records what became of a taken command, once; false when it is not taken or has a result already. */
  recordCommandResult(agentId, seq, result) {
    return (
      this.sql.exec(
        "UPDATE agent_commands SET result = ? WHERE agent_id = ? AND seq = ? AND taken_at IS NOT NULL AND result IS NULL",
        JSON.stringify(result),
        agentId,
        seq,
      ).rowsWritten === 1
    );
  }

  // ---- audit trail ----

  appendAudit(at, approvalId, event, detail) {
    this.sql.exec("INSERT INTO audit (at, approval_id, event, detail) VALUES (?, ?, ?, ?)", at, approvalId, event, JSON.stringify(detail));
  }

  /** The audit records of approval `approvalId` of one `event`, newest first (however many others it has). */
  auditEvents(approvalId, event, limit = 1000) {
    return this.rows("SELECT * FROM audit WHERE approval_id = ? AND event = ? ORDER BY seq DESC LIMIT ?", approvalId, event, limit).map((row) => ({ ...row, detail: JSON.parse(row.detail) }));
  }

  audit(approvalId, limit) {
    const rows =
      approvalId === null
        ? this.rows("SELECT * FROM audit ORDER BY seq DESC LIMIT ?", limit)
        : this.rows("SELECT * FROM audit WHERE approval_id = ? ORDER BY seq DESC LIMIT ?", approvalId, limit);
    return rows.map((row) => ({ ...row, detail: JSON.parse(row.detail) }));
  }
}
