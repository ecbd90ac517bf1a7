/**
 * diffward's jobs as a catalogue (kernel): each kind's name, queue, data schema and options (`catalogue.ts`),
 * the data shapes (`event-data.ts`, `scan-data.ts`, `repo-context.ts`), and the one way to add a job
 * (`add-job.ts`). Each kind's processor is a feature's: `src/workers/processors.ts`, keyed by the same kinds.
 */
export * from "./repo-context.js";
export * from "./event-data.js";
export * from "./scan-data.js";
export * from "./catalogue.js";
export * from "./add-job.js";
