"""The queue-backed service, one module per job kind; each Celery task calls exactly one function.

A job is a row state machine (docs/service.md):

    queued ──start──► running ──last item settled──► (report rendered) done
       │                 │
       └────────────────►┴──► failed  (the job cannot go on: unreadable input, no claim pipeline)

Items move pending -> running -> done | failed, and progress is always counted from the item rows.
Every step is idempotent, so a message delivered twice (late acknowledgement, a re-drive after a
crash) leaves the same rows and the same files as one delivery: item positions and verdicts are
upserts on their natural keys, a settled item is skipped, report files are rewritten only when
their content changes and recorded by (repository, path).

Steps talk to each other only through a `Dispatcher` (`send(task_name, *args)`), always after the
rows they depend on are committed. The workers' dispatcher publishes Celery messages; the
`InlineDispatcher` runs the same steps in this process: the embedded pipeline without the queue.

Where things are: `kinds` (the registry: one record per job kind and per step, from which the
routes, the inline dispatch, the re-drive rules, the summaries, report formats and exit codes are
derived), `context` (`Dispatcher`, `ServiceContext`, the shared event loop), `leases` (what a step
holds while it runs), `submission`, `enqueue`, `bibliography` (documents -> items -> verdicts),
`claims`, `claims_text`, `sweeps`, `audit` (the periodic control jobs and the weekly audit's
drift audit and link check), `reports` (the writer's summaries and files), `files` (atomic writes
recorded by path under a repository's lock), `documents` (each kind's report document, rendering
and exit code), `redrive`, `status`, `inline` (the embedded dispatcher).
`aletheia.pipeline.service` re-exports the public names.
"""
