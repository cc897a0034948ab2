// Editing a pending tool call's arguments before approving it: a form drawn from the tool's input schema as
// the upstream lists it now (a field for each top-level text, number, yes/no or one-of property), or the
// arguments as JSON. The guard reads what is sent (JSON text by the core), checks it against the schema and
// makes it a new approval whose lines it renders; the person then signs exactly that.
import { element, shown } from "./render.js";
import { guardApi } from "./guard-api.js";
import { announce, words } from "./page.js";

/** The kinds of property the form draws a field for; any other is edited as JSON. */
const FIELD_KINDS = new Set(["string", "number", "integer", "boolean"]);

/** A property's field kind: "choice" for a list of text values, the JSON type for a plain one, or null. */
function fieldKind(property) {
  if (property === null || typeof property !== "object") return null;
  if (Array.isArray(property.enum) && property.enum.length > 0 && property.enum.every((value) => typeof value === "string")) return "choice";
  return FIELD_KINDS.has(property.type) ? property.type : null;
}

/** The form's fields, one per property it can draw, each with its id and its value from the proposed arguments. */
function fieldsOf(approvalId, schema, args) {
  const properties = schema?.type === "object" && schema.properties && typeof schema.properties === "object" ? schema.properties : {};
  return Object.entries(properties)
    .map(([name, property], index) => ({ name, property, kind: fieldKind(property), id: `edit-arg-${approvalId}-${index}`, value: args[name] }))
    .filter((field) => field.kind !== null);
}

function inputFor(field) {
  const common = { id: field.id, "data-edit-arg": field.name };
  if (field.kind === "choice") {
    const select = element("select", common, ...field.property.enum.map((value) => element("option", { value, text: shown(value) })));
    if (typeof field.value === "string") select.value = field.value;
    return select;
  }
  if (field.kind === "boolean") {
    const box = element("input", { ...common, type: "checkbox" });
    box.checked = field.value === true;
    return box;
  }
  const input = element("input", { ...common, type: field.kind === "string" ? "text" : "number", autocomplete: "off", ...(field.kind === "integer" ? { step: "1" } : { step: "any" }) });
  if (field.value !== undefined && field.value !== null) input.value = String(field.value);
  return input;
}

/**
 * The arguments as the form says: the proposed ones with each drawn field's value. A number field that holds
 * no number is named, never sent as something else; an empty text or number field of a property the proposal
 * did not have leaves it out.
 */
function argumentsFromForm(box, fields, args) {
  const edited = { ...args };
  for (const field of fields) {
    const input = box.querySelector(`#${CSS.escape(field.id)}`);
    if (field.kind === "boolean") {
      edited[field.name] = input.checked;
    } else if (field.kind === "number" || field.kind === "integer") {
      if (input.value === "") {
        delete edited[field.name];
        continue;
      }
      // The browser's number field reads the number: a value it cannot read is refused here, by name.
      if (!Number.isFinite(input.valueAsNumber)) return { problem: field.name };
      edited[field.name] = input.valueAsNumber;
    } else if (input.value === "" && !(field.name in args)) {
      delete edited[field.name];
    } else {
      edited[field.name] = input.value;
    }
  }
  return { edited };
}

/** The edit box of a pending tool call: the guard's schema and arguments first, then the form and the JSON. */
export function toolCallEditBox(state, approval, { onDone, onCancel }) {
  const box = element("div", { class: "edit", "data-testid": "edit" });
  const options = state.editOptions.get(approval.approval_id);
  if (options === undefined) {
    box.append(element("p", { class: "muted", text: words(state).editLoading }));
    guardApi.editOptions(approval.approval_id).then(
      (answer) => {
        state.editOptions.set(approval.approval_id, answer.status === 200 ? answer.body : { failed: answer.body.message });
        onDone();
      },
      (error) => {
        state.editOptions.set(approval.approval_id, { failed: error.message });
        onDone();
      },
    );
  } else if (options.failed !== undefined) {
    box.append(element("p", { class: "warning", text: words(state).failed(shown(options.failed)) }));
  } else {
    const fields = fieldsOf(approval.approval_id, options.input_schema, options.arguments);
    for (const field of fields) {
      const description = typeof field.property.description === "string" ? element("span", { class: "muted agent-text", text: ` ${shown(field.property.description)}` }) : null;
      box.append(element("p", { class: "edit-field" }, element("label", { for: field.id }, element("code", { text: field.name }), description), inputFor(field)));
    }
    const jsonId = `edit-json-${approval.approval_id}`;
    const json = element("textarea", { id: jsonId, "data-edit-json": "", rows: "6", spellcheck: "false" });
    // Shown as the proposal's arguments; what the person types here is read by the guard (the core), not here.
    json.value = JSON.stringify(options.arguments, null, 2);
    const asJson = element("details", { "data-testid": "edit-json" }, element("summary", { text: words(state).editAsJson }), element("label", { for: jsonId, class: "visually-hidden", text: words(state).editAsJson }), json);
    if (fields.length === 0) asJson.open = true;
    if (state.editJsonOpen.has(approval.approval_id)) asJson.open = true;
    asJson.addEventListener("toggle", () => (asJson.open ? state.editJsonOpen.add(approval.approval_id) : state.editJsonOpen.delete(approval.approval_id)));
    const apply = element("button", { type: "button", "data-action": "edit-apply", text: words(state).editApply });
    apply.addEventListener("click", async () => {
      // The JSON, when it is open: what the person sees is what is sent.
      let body;
      if (asJson.open) {
        body = { arguments_json: json.value };
      } else {
        const read = argumentsFromForm(box, fields, options.arguments);
        if (read.problem !== undefined) return announce(words(state).editNotANumber(read.problem));
        body = { arguments: read.edited };
      }
      const answer = await guardApi.edit(approval.approval_id, body);
      if (answer.status !== 201) return announce(words(state).failed(answer.body.message));
      state.editOptions.delete(approval.approval_id);
      state.editJsonOpen.delete(approval.approval_id);
      announce(words(state).editMade);
      onCancel();
    });
    box.append(element("p", { class: "muted", text: words(state).editArgumentsHelp }), asJson, apply);
  }
  const cancel = element("button", { type: "button", class: "secondary", "data-action": "edit-cancel", text: words(state).editCancel });
  cancel.addEventListener("click", () => {
    state.editOptions.delete(approval.approval_id);
    onCancel();
  });
  box.append(cancel);
  return box;
}
