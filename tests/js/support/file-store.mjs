// A ConfirmationStore in one JSON file, so two processes (one after the other) share the Executor's state, as
// a restart or a run resumed elsewhere would over a real database.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

export function fileStore(path) {
  const read = () => (existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {});
  const write = (data) => {
    writeFileSync(`${path}.tmp`, JSON.stringify(data));
    renameSync(`${path}.tmp`, path);
  };
  return {
    get: (key) => read()[key] ?? null,
    put: (key, value) => write({ ...read(), [key]: value }),
    compareAndSwap(key, expected, next) {
      const data = read();
      if ((data[key] ?? null) !== expected) return false;
      write({ ...data, [key]: next });
      return true;
    },
  };
}
