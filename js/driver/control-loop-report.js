// The control loop's reports to the host: its callbacks (`onEffect`, `onJudgement`, `chat`, `telemetry`), a
// port's failure (to `onError`), and the log lines of each channel, with their telemetry records. Methods of
// the loop's driver (`this` is the driver), assigned to its prototype in control-loop-driver.js.
import { executionLogLine, otelLogRecord } from "../wasm/agent_governor_full.js";
import { governorError } from "./control-loop-config.js";
import { messageOf } from "./control-loop-text.js";

export const reportMethods = {
  notify(name, ...values) {
    const callback = this.config[name];
    if (!callback) return;
    try {
      const returned = callback(...values);
      if (returned && typeof returned.then === "function") returned.then(undefined, (error) => this.failed(name, error));
    } catch (error) {
      this.failed(name, error);
    }
  },

  failed(where, error) {
    if (where !== "onError" && this.config.onError) this.notify("onError", governorError(where, `${where}: ${messageOf(error)}`, "port_failed"));
  },

  appendLog(channel, record) {
    const time = new Date(this.now()).toISOString();
    const line = executionLogLine(time, record);
    this.write(() => this.logs.append(channel, line));
    if (this.config.telemetry) {
      const result = channel === "execution" ? this.state.last_result : undefined;
      const action = channel === "execution" ? result?.action : this.state.in_progress;
      let tool;
      if (action && channel !== "chat") {
        tool = { name: action.type, callId: action.id, changeDigest: action.digest };
        // The approval the core wrote ahead of executing this action, if it is approved.
        const approval = this.state.execution?.approval;
        if (approval && approval.digest === action.digest) {
          tool.approvedBy = approval.by;
          if (approval.request_id) tool.requestId = approval.request_id;
        }
        if (result) tool.succeeded = result.succeeded;
      }
      this.notify("telemetry", otelLogRecord(channel, record, time, tool));
    }
  },
};
