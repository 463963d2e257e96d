/**
 * Log archives as GitHub Actions lays them out: one folder per job holding
 * `<step number>_<step name>.txt` per step (what gh's `run view --log` matches with
 * `<job name>/<n>_*.txt`), plus `<i>_<job name>.txt` with the whole job log at the top level.
 */
import type { SimCheckRun, SimRepo, SimWorkflowRun } from "./model.js";
import { createZip, type ZipEntry } from "./zip.js";

/** Job and step names as file names: GitHub replaces characters that cannot appear in a path. */
function safe(name: string): string {
  return name.replace(/[/\\:*?"<>|]/g, "");
}

export function jobLogText(job: SimCheckRun): string {
  return job.steps.map((s) => s.log).join("");
}

export function runLogArchive(repo: SimRepo, run: SimWorkflowRun): Buffer {
  const entries: ZipEntry[] = [];
  run.jobIds.forEach((id, i) => {
    const job = repo.checkRuns.get(id);
    if (!job) return;
    entries.push({ name: `${i}_${safe(job.name)}.txt`, data: jobLogText(job) });
    for (const step of job.steps) {
      entries.push({ name: `${safe(job.name)}/${step.number}_${safe(step.name)}.txt`, data: step.log });
    }
  });
  return createZip(entries);
}
