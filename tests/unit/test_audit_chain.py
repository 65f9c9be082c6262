"""The hash chain and Merkle tree of the audit trail: any edit, removal, reorder or insertion shows."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from aletheia.core.audit_chain import (
    GENESIS,
    AuditEntry,
    MerkleAccumulator,
    NotCanonicalError,
    canonical_json,
    canonical_ts,
    chain_hash,
    event_id,
    global_leaves,
    merkle_root,
    seal,
    verify_chain,
    verify_commit,
)

T0 = datetime(2026, 5, 7, 10, 14, 2, 117000, tzinfo=UTC)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**62), 2**62)
    | st.text(max_size=20)
    | st.floats(allow_nan=False, allow_infinity=False)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
bodies = st.dictionaries(st.text(min_size=1, max_size=8), json_values, max_size=5)
event_names = st.sampled_from(["source_consulted", "field_comparison", "verdict", "artifact_written"])


def build_chain(events: list[tuple[str, dict[str, object]]], job_id: str = "job1") -> list[AuditEntry]:
    chain: list[AuditEntry] = []
    prev = GENESIS
    for n, (name, body) in enumerate(events, 1):
        entry = seal(
            job_id=job_id, seq=n, ts=T0 + timedelta(milliseconds=n), event=name, body=body, prev_hash=prev
        )
        chain.append(entry)
        prev = entry.hash
    return chain


chains = st.lists(st.tuples(event_names, bodies), min_size=1, max_size=12).map(build_chain)


def rfc6962_root(items: list[str]) -> str:
    """The tree hash exactly as RFC 6962 defines it (recursive split at the largest power of 2)."""

    def tree(leaves: list[bytes]) -> bytes:
        if len(leaves) == 1:
            return leaves[0]
        k = 1
        while k * 2 < len(leaves):
            k *= 2
        return hashlib.sha256(b"\x01" + tree(leaves[:k]) + tree(leaves[k:])).digest()

    if not items:
        return hashlib.sha256(b"").hexdigest()
    return tree([hashlib.sha256(b"\x00" + i.encode()).digest() for i in items]).hex()


# --- canonical form -------------------------------------------------------------------------------


@given(json_values)
def test_canonical_json_survives_a_json_round_trip(value: object) -> None:
    # What a database JSON column gives back must hash like what was written.
    assert canonical_json(json.loads(json.dumps(value))) == canonical_json(value)


def test_canonical_json_is_key_order_and_whitespace_free() -> None:
    assert canonical_json({"b": 1, "a": [1.5, "é"]}) == b'{"a":[1.5,"\\u00e9"],"b":1}'
    assert canonical_json({"a": 1, "b": 2}) == canonical_json({"b": 2, "a": 1})


@pytest.mark.parametrize("bad", [math.nan, math.inf, {1: "x"}, {"a": object()}, {"a": {1, 2}}])
def test_canonical_json_refuses_what_json_cannot_say(bad: object) -> None:
    with pytest.raises(NotCanonicalError):
        canonical_json(bad)


def test_canonical_ts_is_utc_with_microseconds_and_reads_naive_as_utc() -> None:
    cest = timezone(timedelta(hours=2))
    assert canonical_ts(datetime(2026, 5, 7, 12, 14, 2, 117000, tzinfo=cest)) == "2026-05-07T10:14:02.117000Z"
    assert canonical_ts(datetime(2026, 5, 7, 10, 14, 2, 117000)) == "2026-05-07T10:14:02.117000Z"


def test_event_id_depends_on_job_kind_and_body_only() -> None:
    assert event_id("j", "verdict", {"a": 1}) == event_id("j", "verdict", {"a": 1})
    assert event_id("j", "verdict", {"a": 1}) != event_id("k", "verdict", {"a": 1})
    assert event_id("j", "verdict", {"a": 1}) != event_id("j", "source_consulted", {"a": 1})
    assert event_id("j", "verdict", {"a": 1}) != event_id("j", "verdict", {"a": 2})


# --- the chain ------------------------------------------------------------------------------------


@given(chains)
def test_an_untouched_chain_verifies(chain: list[AuditEntry]) -> None:
    assert verify_chain(chain, job_id="job1") is None


@given(chains, st.data())
def test_an_edited_body_is_found_at_its_event(chain: list[AuditEntry], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(chain) - 1))
    edited = {**chain[i].body, "tampered": data.draw(json_values)}
    chain[i] = replace(chain[i], body=edited)
    broken = verify_chain(chain)
    assert broken is not None and broken.index == i and broken.seq == i + 1


@given(chains, st.data())
def test_an_edit_with_a_recomputed_hash_breaks_the_next_link(
    chain: list[AuditEntry], data: st.DataObject
) -> None:
    # The forger recomputes the edited event's id and hash; the next event still points at the old hash.
    i = data.draw(st.integers(0, len(chain) - 1))
    old = chain[i]
    chain[i] = seal(
        job_id=old.job_id, seq=old.seq, ts=T0, event=old.event, body={"forged": True}, prev_hash=old.prev_hash
    )
    broken = verify_chain(chain)
    if i == len(chain) - 1:
        # The last event rewritten consistently: only a committed root can tell (below).
        assert broken is None
        assert (
            verify_commit([e.hash for e in chain], event_count=len(chain), root=merkle_root([old.hash]))
            is not None
        )
    else:
        assert broken is not None and broken.index == i + 1


@given(chains, st.data())
def test_a_removed_event_is_found_where_it_was(chain: list[AuditEntry], data: st.DataObject) -> None:
    assume(len(chain) >= 2)
    i = data.draw(st.integers(0, len(chain) - 2))  # the tail is the commit's job (next test)
    del chain[i]
    broken = verify_chain(chain)
    assert broken is not None and broken.index == i
    assert "missing" in broken.problem


@given(chains)
def test_a_removed_tail_is_caught_by_the_commit(chain: list[AuditEntry]) -> None:
    hashes = [e.hash for e in chain]
    root = merkle_root(hashes)
    assert verify_commit(hashes, event_count=len(chain), root=root) is None
    truncated = chain[:-1]
    assert verify_chain(truncated) is None
    bad = verify_commit([e.hash for e in truncated], event_count=len(chain), root=root)
    assert bad is not None and bad.seq == len(chain)


@given(chains, st.data())
def test_two_events_swapped_are_found_at_the_first(chain: list[AuditEntry], data: st.DataObject) -> None:
    assume(len(chain) >= 2)
    i = data.draw(st.integers(0, len(chain) - 2))
    j = data.draw(st.integers(i + 1, len(chain) - 1))
    # Swapping their seq numbers (what an UPDATE would do) and reading them back in seq order.
    a, b = chain[i], chain[j]
    chain[i], chain[j] = replace(b, seq=a.seq), replace(a, seq=b.seq)
    broken = verify_chain(chain)
    assert broken is not None and broken.index == i


@given(chains, st.data(), event_names, bodies)
def test_an_inserted_event_is_found_where_it_was_put(
    chain: list[AuditEntry], data: st.DataObject, name: str, body: dict[str, object]
) -> None:
    i = data.draw(st.integers(0, len(chain)))
    prev = chain[i - 1].hash if i else GENESIS
    forged = seal(job_id="job1", seq=i + 1, ts=T0, event=name, body=body, prev_hash=prev)
    renumbered = chain[:i] + [forged] + [replace(e, seq=e.seq + 1) for e in chain[i:]]
    broken = verify_chain(renumbered)
    if i == len(chain):
        assert broken is None  # appended at the end with a valid link: an event like any other
    else:
        assert broken is not None and broken.index == i + 1


def test_an_event_of_another_job_is_refused() -> None:
    chain = build_chain([("verdict", {"a": 1})], job_id="other")
    broken = verify_chain(chain, job_id="job1")
    assert broken is not None and "other" in broken.problem


def test_the_hash_covers_the_timestamp() -> None:
    (entry,) = build_chain([("verdict", {"a": 1})])
    moved = replace(entry, ts=canonical_ts(T0 + timedelta(seconds=1)))
    assert verify_chain([moved]) is not None
    assert chain_hash(GENESIS, entry.content()) == entry.hash


# --- Merkle -----------------------------------------------------------------------------------------


@given(st.lists(st.text(max_size=10), max_size=40))
@settings(max_examples=200)
def test_merkle_root_is_rfc6962(items: list[str]) -> None:
    assert merkle_root(items) == rfc6962_root(items)


def test_merkle_root_known_values() -> None:
    # The empty tree and a single leaf, by definition (RFC 6962 section 2.1).
    assert merkle_root([]) == hashlib.sha256(b"").hexdigest()
    assert merkle_root(["a"]) == hashlib.sha256(b"\x00a").hexdigest()


@given(st.lists(st.text(max_size=6), min_size=2, max_size=20, unique=True), st.data())
def test_merkle_root_changes_with_order_and_content(items: list[str], data: st.DataObject) -> None:
    root = merkle_root(items)
    i = data.draw(st.integers(0, len(items) - 2))
    swapped = [*items]
    swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
    assert merkle_root(swapped) != root
    assert merkle_root([*items[:i], *items[i + 1 :]]) != root


def test_global_leaves_chain_the_prior_root() -> None:
    a = merkle_root(global_leaves(None, [("job1", "r1", 3)]))
    b = merkle_root(global_leaves("f" * 64, [("job1", "r1", 3)]))
    assert a != b
    assert global_leaves(None, [])[0] == f"prior:{GENESIS}"


@given(st.lists(st.text(alphabet="0123456789abcdef", min_size=64, max_size=64), max_size=80))
def test_the_streaming_accumulator_gives_merkle_root(hashes: list[str]) -> None:
    accumulator = MerkleAccumulator()
    for h in hashes:
        accumulator.add(h)
    assert accumulator.count == len(hashes)
    assert accumulator.root() == merkle_root(hashes)
