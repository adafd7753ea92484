// tools/eval.ts (the lead's, being edited) still imports the wiring from here: drop this file once it imports
// ../src/runtime/runtime.js.
export { openRuntime, type Runtime } from '../runtime/runtime.js';
