"""Two deliveries of one item (issue 22): only the delivery that holds the item's claim records
the decision, its events and its verdict in one transaction; one whose item was claimed since (a
redelivery, the re-drive after its lease expired) records nothing, so the audit trail never logs
one verdict while the row stores another."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

from aletheia.core.evidence import Evidence
from aletheia.core.records import CitedReference
from aletheia.core.verdicts import Verdict, VerdictStatus
from aletheia.pipeline import service
from aletheia.pipeline.audit.events import VERDICT, audit_log_for
from aletheia.pipeline.evidence.outcome import ReferenceOutcome
from aletheia.pipeline.runtime import Runtime
from aletheia.storage.models import ItemStatus, VerdictRow
from tests.unit.test_service import ScriptedVerifier, age_lease, bib, count, inline, runtime, verifier

__all__ = ["inline", "runtime", "verifier"]  # the fixtures of test_service, used here


class SlowFirstDelivery(ScriptedVerifier):
    """The first delivery of `a` waits for `release` and then finds it not found; every later one
    finds it verified at once: the two deliveries decide differently."""

    def __init__(self) -> None:
        super().__init__()
        self.started = threading.Event()
        self.release = threading.Event()

    async def __call__(self, cited: CitedReference) -> ReferenceOutcome:
        self.calls[cited.key] += 1
        if self.calls[cited.key] == 1:
            self.started.set()
            await asyncio.to_thread(self.release.wait, 10)
            status = VerdictStatus.NOT_FOUND
        else:
            status = VerdictStatus.VERIFIED
        return ReferenceOutcome(cited=cited, verdict=Verdict(status=status), evidence=Evidence(), raw=[])


def logged_verdicts(runtime: Runtime, job_id: str, key: str) -> list[str]:
    return [
        e.body["status"]
        for e in audit_log_for(runtime).entries(job_id)
        if e.event == VERDICT and e.body.get("item") == key
    ]


def test_a_delivery_that_lost_its_claim_records_nothing(runtime: Runtime, inline: Any) -> None:
    dispatcher, ctx = inline
    slow = SlowFirstDelivery()
    ctx.verifier = slow
    job_id = service.submit_bibliography(runtime, dispatcher, bib("a|real\n"))
    service.start_bibliography_job(ctx, job_id)
    item = runtime.jobs.items(job_id)[0]

    first = threading.Thread(target=service.verify_item, args=(ctx, item.id))
    first.start()
    assert slow.started.wait(10)
    # While the first delivery works, its lease expires and the re-drive hands the item on.
    age_lease(runtime, item.id)
    cutoff = datetime.now(UTC) - timedelta(seconds=runtime.settings.lease_seconds)
    assert runtime.leases.take_abandoned_items(job_id, lease_cutoff=cutoff, waiting_cutoff=None) == [item.id]
    service.verify_item(ctx, item.id)  # the second delivery claims it and records "verified"
    slow.release.set()
    first.join(10)
    assert not first.is_alive()

    assert count(runtime, VerdictRow, item_id=item.id) == 1
    (stored,) = [row.verdict["status"] for it, row in runtime.jobs.verdicts(job_id) if row is not None]
    assert stored == "verified"
    assert logged_verdicts(runtime, job_id, "a") == ["verified"]  # the loser logged nothing
    assert runtime.jobs.item(item.id).status == ItemStatus.DONE


def test_of_two_deliveries_at_once_one_verifies(
    runtime: Runtime, inline: Any, verifier: ScriptedVerifier
) -> None:
    dispatcher, ctx = inline
    job_id = service.submit_bibliography(runtime, dispatcher, bib("a|real\n"))
    service.start_bibliography_job(ctx, job_id)
    item = runtime.jobs.items(job_id)[0]
    threads = [threading.Thread(target=service.verify_item, args=(ctx, item.id)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert verifier.calls["a"] >= 1  # a delivery may take the item over from a slower one
    assert count(runtime, VerdictRow, item_id=item.id) == 1
    assert logged_verdicts(runtime, job_id, "a") == ["verified"]  # one decision logged


def test_a_claim_is_a_compare_and_set(runtime: Runtime, inline: Any) -> None:
    dispatcher, ctx = inline
    job_id = service.submit_bibliography(runtime, dispatcher, bib("a|real\n"))
    service.start_bibliography_job(ctx, job_id)
    item = runtime.jobs.items(job_id)[0]
    log = audit_log_for(runtime)
    assert runtime.jobs.claim_item(item.id) == 1
    assert runtime.jobs.claim_item(item.id) == 2  # a redelivery takes it over

    def settle(claim: int, status: str) -> bool:
        events = [("verdict", {"item": "a", "status": status})]
        return log.append_if(
            job_id,
            events,
            lambda s: runtime.jobs.settle(
                s, job_id, item.id, claim=claim, verdict={"status": status}, evidence={}, counters=None
            ),
        )

    assert not settle(1, "not_found")  # the first holder lost it: neither verdict nor event
    assert count(runtime, VerdictRow, item_id=item.id) == 0 and logged_verdicts(runtime, job_id, "a") == []
    assert settle(2, "verified")
    assert logged_verdicts(runtime, job_id, "a") == ["verified"]
    assert runtime.jobs.item(item.id).status == ItemStatus.DONE
    assert runtime.jobs.claim_item(item.id) is None  # settled
    assert not settle(2, "not_found")  # settled: a late repeat writes nothing
    assert logged_verdicts(runtime, job_id, "a") == ["verified"]
