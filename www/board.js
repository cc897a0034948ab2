// The demo task board, live: its tasks by status (the change that landed last is outlined) and every Apply
// it received, read from the local server every second.
const STATUSES = ["todo", "in_progress", "in_review", "done"];
const $ = (id) => document.getElementById(id);
let previous = null;
// The task whose status changed last: outlined until another changes.
let lastChanged = null;

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

function show(board) {
  if (previous) {
    const moved = Object.keys(board.nodes).find((node) => previous[node] !== board.nodes[node]);
    if (moved) lastChanged = moved;
  }
  const statuses = [...new Set([...STATUSES, ...Object.values(board.nodes)])];
  $("columns").replaceChildren(
    ...statuses.map((status) => {
      const tasks = Object.entries(board.nodes).filter(([, current]) => current === status);
      return element(
        "section",
        { class: "column", "data-status": status, "aria-label": status.replace("_", " ") },
        element("h2", { text: `${status.replace("_", " ")} (${tasks.length})` }),
        element(
          "ul",
          {},
          ...tasks.map(([node]) =>
            element("li", { class: node === lastChanged ? "task changed" : "task", "data-node": node, text: node }),
          ),
        ),
      );
    }),
  );
  $("applies").replaceChildren(
    ...board.applies
      .slice(-50)
      .reverse()
      .map((apply) => element("li", { text: `${new Date(apply.at).toLocaleTimeString()} · ${apply.node_id} → ${apply.confirm_status} · ${apply.confirmation_id ?? ""}` })),
  );
  previous = board.nodes;
}

async function poll() {
  try {
    const response = await fetch("/board/state", { cache: "no-store" });
    const body = await response.json();
    if (!response.ok) throw new Error(body.message);
    show(body);
    $("board-status").textContent = "";
    document.body.dataset.ready = "true";
  } catch (error) {
    $("board-status").textContent = `The board cannot be read: ${error.message}`;
  }
}

poll();
setInterval(poll, 1000);
