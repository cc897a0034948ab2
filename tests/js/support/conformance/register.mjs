// `node --import ./register.mjs`: registers hooks.mjs, so the conformance suite's CLI runs unmodified on Node 20.
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
