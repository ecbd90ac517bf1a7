import type { ExtraProcessors } from "../queue/workers.js";
import { JOB } from "../queue/names.js";
import { processCommand } from "../queue/jobs/command.js";

export * from "./types.js";
export * from "../render/command-answers.js";
export * from "./decisions.js";
export * from "./check.js";
export * from "../queue/jobs/command.js";

/** The job kinds triage adds to the workers (`boot({ extraProcessors })`): the `command` job. */
export const TRIAGE_PROCESSORS: ExtraProcessors = {
  [JOB.command]: (rt, job, token) => processCommand(rt, job, token),
};
