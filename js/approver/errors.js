// The typed errors of the approver helpers: the same shape as the core's (`name`, `code`, `path`).

/** An `AgentGovernorError` with a stable `code` and the `path` of the value at fault. */
export function typedError(code, path, message) {
  const error = new Error(message);
  error.name = "AgentGovernorError";
  error.code = code;
  error.path = path;
  return error;
}
