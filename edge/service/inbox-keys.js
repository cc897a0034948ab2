// The approvers' keys in the approval inbox: enrolment codes, registering a public key (by the admin, an
// enrolment code, or a key the approver already holds), revoking and renaming one. Methods of the inbox's
// Durable Object (`this` is the inbox), assigned to its prototype in inbox.js.
import { Guard, formatTime, stateVersion } from "agent-governor/guard";
import { HttpError, isPlainObject, json, onlyKeys, readJsonObject, requireText } from "./http.js";

/** Approver names never contain the key-id separator `/` or control characters, nor start or end with a space. */
const APPROVER_NAME = /^(?! )[^/\p{Cc}\p{Cf}]{1,64}(?<! )$/u;
/** A key's name under its approver (`alice/<name>`): one path segment with no white space or invisible characters. */
const KEY_NAME = /^[^/\s\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}]{1,64}$/u;
/** A key's display name: what people call the device ("Alice's laptop"). */
const KEY_LABEL = /^(?! )[^\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}]{1,64}(?<! )$/u;
const ENROLLMENT_TTL_MS = 15 * 60 * 1000;


/** What an admin signs to invite a person: their name and roles, as the guard reads them. */
export const enrollDetail = (approver, roles) => JSON.stringify({ approver, roles: [...new Set(roles)].sort() });

/** The version an `enroll` action names: this guard's enrollments (an invitation signed for another is refused). */
export const enrollmentsVersion = (audience) => stateVersion(JSON.stringify(["enrollments", audience]));

export const keyMethods = {
  /**
   * An enrollment code for a person: with the admin token (who deploys the guard: the first approver of an
   * inbox), or invited by an approver with the admin role, with an `enroll` action they signed (`{ approver,
   * roles, action }`). Who invited whom is audited, and said again when the code is used.
   */
  async enroll(request, isAdmin) {
    const body = await readJsonObject(request);
    onlyKeys(body, isAdmin ? ["approver", "roles"] : ["approver", "roles", "action"]);
    const approver = approverName(body.approver, "approver");
    const roles = body.roles ?? [];
    if (!Array.isArray(roles) || roles.some((role) => role !== "admin")) {
      throw new HttpError(400, "invalid_input", "roles is a list of approver roles: only \"admin\" exists", "roles");
    }
    let issuedBy = null;
    if (!isAdmin) {
      const action = body.action;
      const signer = typeof action?.key_id === "string" ? this.db.key(action.key_id) : null;
      if (signer === null) throw new HttpError(403, "forbidden", "an invitation is signed by an admin's registered key (`action`)", "action");
      if (!this.rolesOf(signer.approver).includes("admin")) {
        throw new HttpError(403, "forbidden", `\`${signer.approver}\` is not an admin: only an approver with the admin role invites people`, "action.key_id");
      }
      if (action.detail !== enrollDetail(approver, roles)) {
        throw new HttpError(422, "change_mismatch", "the signed invitation must name exactly this person and these roles", "action.detail");
      }
      await this.takeAction("enrollments", action, ["enroll"], enrollmentsVersion(this.audience));
      issuedBy = signer.approver;
    }
    const code = crypto.randomUUID();
    const now = Date.now();
    const expiresAt = now + ENROLLMENT_TTL_MS;
    const granted = [...new Set(roles)];
    this.db.insertEnrollment(code, approver, expiresAt, granted, issuedBy);
    this.db.appendAudit(now, null, "enrollment_issued", { approver, roles: granted, by: issuedBy });
    return json({ approver, enrollment_code: code, expires_at: formatTime(expiresAt), expires_at_ms: expiresAt, roles: granted, issued_by: issuedBy }, 201);
  },

  /** An approver's keys and the version a signed key change must name. */
  approverKeys(approver) {
    const rows = this.db.approverKeys(approver);
    return { approver, roles: this.rolesOf(approver), version: keySetVersion(approver, rows), keys: rows.map(publicKeyView) };
  },

  /**
   * Registers a public key under `approver/...`: by the admin, by the approver with a one-time enrollment
   * code, or by the approver themself with an `add_key` action signed by a key they already hold.
   */
  async registerKey(approverParam, request, isAdmin) {
    const approver = approverName(approverParam, "approver");
    const body = await readJsonObject(request);
    onlyKeys(body, ["key_id", "type", "public_key", "algorithm", "credential_id", "enrollment_code", "action"]);
    const keyId = namespacedKeyId(approver, body.key_id);
    const spec =
      body.type === "webauthn"
        ? { type: "webauthn", algorithm: body.algorithm, public_key: body.public_key, rp_id: this.env.RP_ID, origins: (this.env.ORIGINS ?? "").split(",").map((origin) => origin.trim()).filter(Boolean) }
        : { type: body.type, public_key: body.public_key };
    // Who may add it is settled before anything about the key is read.
    let by = "admin";
    if (!isAdmin) {
      if (body.action !== undefined) {
        this.requireOwnKey(approver, body.action);
        if (body.action.detail !== keyDetail(spec)) {
          throw new HttpError(422, "change_mismatch", "the signed add_key must carry the new key as `detail`: `type:algorithm:public_key`", "action.detail");
        }
        by = body.action.key_id;
      } else if (body.enrollment_code !== undefined) {
        const code = requireText(body.enrollment_code, "enrollment_code", { max: 64 });
        if (!this.db.hasEnrollment(code, approver, Date.now())) {
          throw new HttpError(403, "forbidden", "the enrollment code is unknown, used, expired or for another approver", "enrollment_code");
        }
        by = "enrollment";
      } else {
        throw new HttpError(403, "forbidden", "adding a key needs the admin token, the approver's enrollment code, or an add_key action signed by one of the approver's keys", "action");
      }
    }
    // The package reads the key exactly as it will verify with it: a bad key is a typed invalid_key.
    new Guard({ keys: { [keyId]: spec } }).free();
    const credentialId = body.type === "webauthn" ? requireText(body.credential_id, "credential_id", { max: 1024 }) : null;
    if (this.db.key(keyId) !== null) throw new HttpError(409, "conflict", `key \`${keyId}\` exists; key ids are never reused`, "key_id");
    // The signed add_key or the enrollment code is used (its nonce recorded, the key set's version checked,
    // the code spent) only once all else holds: a refused key leaves them unused.
    if (body.action !== undefined && !isAdmin) {
      await this.takeAction(keyId, body.action, ["add_key"], keySetVersion(approver, this.db.approverKeys(approver)));
    }
    // Who invited them (an admin's name), read before the code is used up.
    const invitedBy = by === "enrollment" ? this.db.enrollmentIssuer(body.enrollment_code) : null;
    if (by === "enrollment" && this.db.takeEnrollment(body.enrollment_code, Date.now()) !== approver) {
      throw new HttpError(403, "forbidden", "the enrollment code is unknown, used, expired or for another approver", "enrollment_code");
    }
    const now = Date.now();
    this.db.insertKey({ keyId, approver, spec, credentialId, at: now });
    this.db.appendAudit(now, null, "key_registered", { approver, key_id: keyId, type: spec.type, by, ...(invitedBy === null ? {} : { invited_by: invitedBy }) });
    this.verifiers = null;
    return json(publicKeyView(this.db.key(keyId)), 201);
  },

  /** Revokes a key: by the admin, or by its approver with a `revoke_key` action signed by one of their keys. */
  async revokeKey(approverParam, keyParam, request, isAdmin) {
    const approver = approverName(approverParam, "approver");
    const keyId = namespacedKeyId(approver, keyParam);
    const key = this.db.key(keyId);
    if (key === null || key.approver !== approver) throw new HttpError(404, "not_found", `approver \`${approver}\` has no key \`${keyId}\``);
    let by = "admin";
    if (!isAdmin) {
      const hasBody = (request.headers.get("content-type") ?? "") !== "";
      const body = hasBody ? await readJsonObject(request) : {};
      onlyKeys(body, ["action"]);
      if (body.action === undefined) throw new HttpError(401, "unauthorized", "revoking a key needs the admin token or a revoke_key action signed by one of the approver's keys", "action");
      this.requireOwnKey(approver, body.action);
      await this.takeAction(keyId, body.action, ["revoke_key"], keySetVersion(approver, this.db.approverKeys(approver)));
      by = body.action.key_id;
    }
    const now = Date.now();
    if (!this.db.revokeKey(keyId, now)) throw new HttpError(409, "conflict", `key \`${keyId}\` is already revoked`);
    this.db.appendAudit(now, null, "key_revoked", { approver, key_id: keyId, by });
    this.verifiers = null;
    return json(publicKeyView(this.db.key(keyId)));
  },

  /**
   * Names a key (`{ action }`: a `rename_key` signed by one of the approver's keys, `detail` the new name,
   * made for the key set's version). The name is what people read; the key's id never changes.
   */
  async renameKey(approverParam, keyParam, request) {
    const approver = approverName(approverParam, "approver");
    const keyId = namespacedKeyId(approver, keyParam);
    const key = this.db.key(keyId);
    if (key === null || key.approver !== approver) throw new HttpError(404, "not_found", `approver \`${approver}\` has no key \`${keyId}\``);
    const body = await readJsonObject(request);
    onlyKeys(body, ["action"]);
    this.requireOwnKey(approver, body.action);
    const label = requireText(body.action.detail, "action.detail", { max: 64 });
    if (!KEY_LABEL.test(label)) {
      throw new HttpError(400, "invalid_input", "a key's name is 1-64 characters without control or format characters, and not starting or ending with a space", "action.detail");
    }
    await this.takeAction(keyId, body.action, ["rename_key"], keySetVersion(approver, this.db.approverKeys(approver)));
    this.db.labelKey(keyId, label);
    this.db.appendAudit(Date.now(), null, "key_renamed", { approver, key_id: keyId, label, by: body.action.key_id });
    return json(publicKeyView(this.db.key(keyId)));
  },

  /** A key change signed by the approver must be signed by one of that approver's own keys. */
  requireOwnKey(approver, action) {
    if (!isPlainObject(action)) throw new HttpError(400, "invalid_input", "the signed `action` is required", "action");
    const signer = typeof action.key_id === "string" ? this.db.key(action.key_id) : null;
    if (signer === null || signer.approver !== approver) {
      throw new HttpError(403, "forbidden", `a key change for \`${approver}\` must be signed by one of \`${approver}\`'s keys`, "action.key_id");
    }
  },
};

/** A valid approver name: one path segment, no `/`, no spaces or control characters. */
export function approverName(value, path) {
  const name = requireText(value, path, { max: 64 });
  if (!APPROVER_NAME.test(name)) {
    throw new HttpError(400, "invalid_input", `\`${path}\` must be 1-64 characters without \`/\` or control characters, and not start or end with a space`, path);
  }
  return name;
}

/**
 * Key ids are namespaced by their approver: `alice/laptop`. A client may send the local part (`laptop`) or the
 * full id; a full id for another approver is refused.
 */
function namespacedKeyId(approver, value) {
  const given = requireText(value, "key_id", { max: 128 });
  const slash = given.indexOf("/");
  if (slash !== -1 && (given.slice(0, slash) !== approver || given.indexOf("/", slash + 1) !== -1 || slash === given.length - 1)) {
    throw new HttpError(403, "forbidden", `key ids are namespaced by their approver: a key of \`${approver}\` is \`${approver}/<name>\``, "key_id");
  }
  const name = slash === -1 ? given : given.slice(slash + 1);
  // Whatever a path can name: a key that no URL could name could never be revoked.
  if (!KEY_NAME.test(name) || name === "." || name === "..") {
    throw new HttpError(400, "invalid_input", "a key's name must be 1-64 characters without `/`, spaces, control, format or unassigned characters", "key_id");
  }
  return `${approver}/${name}`;
}

/** The version of an approver's key set: any key added, revoked or renamed changes it. */
function keySetVersion(approver, rows) {
  return stateVersion(JSON.stringify(["keys", approver, rows.map((row) => [row.key_id, row.revoked_at, row.label ?? null])]));
}

/** What an add_key action carries as `detail`: the key it adds. */
function keyDetail(spec) {
  return `${spec.type}:${spec.algorithm ?? ""}:${spec.public_key}`;
}

export function publicKeyView(row) {
  return {
    key_id: row.key_id,
    approver: row.approver,
    type: row.spec.type,
    algorithm: row.spec.algorithm ?? null,
    public_key: row.spec.public_key,
    credential_id: row.credential_id,
    rp_id: row.spec.rp_id ?? null,
    sign_count: row.sign_count,
    created_at: formatTime(row.created_at),
    revoked_at: row.revoked_at === null ? null : formatTime(row.revoked_at),
    label: row.label ?? null,
    created_at_ms: row.created_at,
    revoked_at_ms: row.revoked_at,
  };
}
