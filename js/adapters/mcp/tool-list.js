// The upstream's tools as it lists them now, for a gateway that decides per call whether a name is governed,
// whitelisted or unknown: read at the first call, again when the upstream says its list changed
// (`notifications/tools/list_changed`), and again for a name not in the list, at most once every
// `relistAfterMs` (a client calling unknown names cannot make the gateway list the upstream at each call).
// Shared by the library's gateway and the edge guard's (`agent-governor/mcp/relay`).

/** How often a name not in the list makes the gateway list the upstream's tools again, at most. */
export const RELIST_AFTER_MS = 10_000;
/** The most pages of a listing read: an upstream that repeats a cursor ends the listing, not the gateway. */
export const MAX_TOOL_PAGES = 100;
/** The most tools kept from one listing. */
export const MAX_TOOLS = 10_000;

/**
 * `listPage(cursor)` answers one page of `tools/list` (`{ tools, nextCursor }`). Returns
 * `{ has(name), schema(name), names(), changed() }`.
 */
export function liveToolList(listPage, { relistAfterMs = RELIST_AFTER_MS, now = Date.now } = {}) {
  let tools = null;
  let listedAt = null;
  let stale = true;
  let listing = null;

  async function list() {
    const found = new Map();
    let cursor;
    for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
      const answer = await listPage(cursor);
      for (const tool of answer?.tools ?? []) {
        if (found.size >= MAX_TOOLS) break;
        if (typeof tool?.name === "string") found.set(tool.name, tool);
      }
      cursor = answer?.nextCursor;
      if (cursor === undefined || found.size >= MAX_TOOLS) break;
    }
    tools = found;
    listedAt = now();
    stale = false;
  }

  /** Lists again, once for every caller waiting at the same time. */
  function refresh() {
    listing ??= list().finally(() => {
      listing = null;
    });
    return listing;
  }

  return {
    /** Whether the upstream has tool `name` now (listing again when the list changed, or for an unknown name within the bound). */
    async has(name) {
      if (stale || tools === null) await refresh();
      if (tools.has(name)) return true;
      if (listedAt !== null && now() - listedAt < relistAfterMs) return false;
      await refresh();
      return tools.has(name);
    },
    /** Lists the upstream's tools again now. */
    refresh,
    /** Tool `name`'s input schema as last listed, or null. */
    schema: (name) => tools?.get(name)?.inputSchema ?? null,
    /** The names as last listed (empty before the first listing). */
    names: () => [...(tools?.keys() ?? [])],
    /** The upstream said its list changed: the next question lists it again. */
    changed() {
      stale = true;
    },
  };
}
