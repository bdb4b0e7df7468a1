import type { StopReport } from "./process-tree.js";

/** Pids named in a message; the count is always exact. */
const MAX_LISTED_PIDS = 20;

/**
 * "1 process <subject> left running was stopped", "3 processes ... were stopped"; without
 * /proc, where processes cannot be counted, "the processes ... were stopped".
 */
export function describeLeftoversStopped(report: StopReport, subject: string): string {
  if (report.scope === "group") return `the processes ${subject} left running were stopped`;
  const [noun, verb] = report.stopped === 1 ? ["process", "was"] : ["processes", "were"];
  return `${report.stopped} ${noun} ${subject} left running ${verb} stopped`;
}

/**
 * What could not be stopped, e.g. "2 of its processes could not be stopped and may still be
 * running (pids 41, 42)"; undefined when nothing survived. Without /proc a surviving process
 * group is named by its id.
 */
export function describeSurvivors(report: StopReport): string | undefined {
  const { survivors } = report;
  if (survivors.length === 0) return undefined;
  if (report.scope === "group") {
    return `its process group ${survivors[0]} could not be stopped and may still be running`;
  }
  const listed = survivors.slice(0, MAX_LISTED_PIDS).join(", ");
  const more = survivors.length > MAX_LISTED_PIDS ? ", ..." : "";
  const count = survivors.length;
  return `${count} of its processes could not be stopped and may still be running (pids ${listed}${more})`;
}

/** How a command that was stopped ended, as verified: "it and every process it started were killed". */
export function describeStopped(report: StopReport): string {
  const survivors = describeSurvivors(report);
  if (survivors) return survivors;
  if (report.scope === "group") {
    return "its process group was killed (processes that left the group cannot be found on this system)";
  }
  return "it and every process it started were killed";
}
