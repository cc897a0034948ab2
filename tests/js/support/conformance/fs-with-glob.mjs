// `node:fs` with `globSync`, which Node 20 lacks and the MCP conformance suite's CLI imports: only the
// `**/<file name>` form the suite uses (every file of that name under `cwd`).
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

export * from "node:fs";
export { default } from "node:fs";

export function globSync(pattern, { cwd = process.cwd() } = {}) {
  const match = /^\*\*\/([^*?[\]{}/]+)$/.exec(pattern);
  if (!match) throw new Error(`globSync here reads only "**/<file name>", not ${JSON.stringify(pattern)}`);
  const found = [];
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === match[1]) found.push(relative(cwd, path));
    }
  };
  walk(cwd);
  return found;
}
