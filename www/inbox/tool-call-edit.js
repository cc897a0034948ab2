// Editing a pending tool call's arguments before approving it: a form drawn from the tool's input schema as
// the upstream lists it now (a field for each top-level text, number, yes/no or one-of property), or the
// arguments as JSON. The guard reads what is sent (JSON text by the core), checks it against the schema and
// makes it a new approval whose lines it renders; the person then signs exactly that.
import { element, shown } from "./render.js";
import { guardApi } from "./guard-api.js";
import { announce, words } from "./page.js";

/** The kinds of property the form draws a field for; any other is edited as JSON. */
const FIELD_KINDS = new Set(["string", "number", "integer", "boolean"]);

/** The most choices a one-of field lists, and the most fields drawn: a larger schema is edited as JSON. */
const MAX_CHOICES = 200;
const MAX_FIELDS = 50;

/** A property's field kind: "choice" for a list of text values, the JSON type for a plain one, or null. */
function fieldKind(property) {
  if (property === null || typeof property !== "object") return null;
  if (Array.isArray(property.enum) && property.enum.length > 0 && property.enum.length <= MAX_CHOICES && property.enum.every((value) => typeof value === "string")) return "choice";
  return FIELD_KINDS.has(property.type) ? property.type : null;
}

/** Whether `value` (a proposed argument, or undefined when the agent left it out) is what a field of `kind` shows. */
function fits(kind, value) {
  if (value === undefined) return true;
  if (kind === "choice" || kind === "string") return typeof value === "string";
  if (kind === "boolean") return typeof value === "boolean";
  return typeof value === "number" && Number.isFinite(value) && (kind !== "integer" || Number.isInteger(value));
}

/**
 * The form's fields, one per property it can draw whose proposed value (its own, never an inherited one) it
 * shows exactly, each with its id; any other property is edited as JSON.
 */
function fieldsOf(approvalId, schema, args) {
  const properties = schema?.type === "object" && schema.properties && typeof schema.properties === "object" && !Array.isArray(schema.properties) ? schema.properties : {};
  return Object.entries(properties)
    .slice(0, MAX_FIELDS)
    .map(([name, property], index) => ({ name, property, kind: fieldKind(property), id: `edit-arg-${approvalId}-${index}`, value: Object.hasOwn(args, name) ? args[name] : undefined }))
    .filter((field) => field.kind !== null && fits(field.kind, field.value));
}

function inputFor(field, touched) {
  const common = { id: field.id, "data-edit-arg": field.name };
  if (field.kind === "choice") {
    // A value the agent left out shows as no choice, and is sent only if the person picks one.
    const none = field.value === undefined ? [element("option", { value: "", text: "—" })] : [];
    const select = element("select", common, ...none, ...field.property.enum.map((value) => element("option", { value, text: shown(value) })));
    select.value = field.value ?? "";
    select.addEventListener("change", () => touched.add(field.name));
    return select;
  }
  if (field.kind === "boolean") {
    const box = element("input", { ...common, type: "checkbox" });
    box.checked = field.value === true;
    box.addEventListener("change", () => touched.add(field.name));
    return box;
  }
  const input = element("input", { ...common, type: field.kind === "string" ? "text" : "number", autocomplete: "off", ...(field.kind === "integer" ? { step: "1" } : { step: "any" }) });
  if (field.value !== undefined) input.value = String(field.value);
  input.addEventListener("input", () => touched.add(field.name));
  return input;
}

/**
 * The arguments as the form says: the proposed ones, with the value of each field the person changed (a field
 * left alone sends the proposed value, or nothing when the agent left it out). A number field that holds no
 * number is named, never sent as something else; emptied, a text or number field leaves the property out.
 */
function argumentsFromForm(box, fields, args, touched) {
  const edited = { ...args };
  for (const field of fields) {
    if (!touched.has(field.name)) continue;
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
    } else if (field.kind === "choice" && input.value === "") {
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
    // The fields the person changed, kept while the page is drawn again.
    if (!state.editTouched.has(approval.approval_id)) state.editTouched.set(approval.approval_id, new Set());
    const touched = state.editTouched.get(approval.approval_id);
    for (const field of fields) {
      const description = typeof field.property.description === "string" ? element("span", { class: "muted agent-text", text: ` ${shown(field.property.description)}` }) : null;
      box.append(element("p", { class: "edit-field" }, element("label", { for: field.id }, element("code", { text: field.name }), description), inputFor(field, touched)));
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
        const read = argumentsFromForm(box, fields, options.arguments, touched);
        if (read.problem !== undefined) return announce(words(state).editNotANumber(read.problem));
        body = { arguments: read.edited };
      }
      const answer = await guardApi.edit(approval.approval_id, body);
      if (answer.status !== 201) return announce(words(state).failed(answer.body.message));
      state.editOptions.delete(approval.approval_id);
      state.editJsonOpen.delete(approval.approval_id);
      state.editTouched.delete(approval.approval_id);
      announce(words(state).editMade);
      onCancel();
    });
    box.append(element("p", { class: "muted", text: words(state).editArgumentsHelp }), asJson, apply);
  }
  const cancel = element("button", { type: "button", class: "secondary", "data-action": "edit-cancel", text: words(state).editCancel });
  cancel.addEventListener("click", () => {
    state.editOptions.delete(approval.approval_id);
    state.editTouched.delete(approval.approval_id);
    onCancel();
  });
  box.append(cancel);
  return box;
}
