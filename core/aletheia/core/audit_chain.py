"""The tamper-evident audit trail, as pure functions: canonical JSON, a hash chain, Merkle roots.

Every decision event of a job is one `AuditEntry`, numbered from 1. Its hash covers the previous
event's hash and the event's own content in a canonical serialisation:

    hash(n) = sha256( hash(n-1) || "\\n" || canonical_json({job_id, seq, ts, event, event_id, body}) )

with `hash(0) = GENESIS`. Changing any byte of an event changes its hash; changing the hash too
breaks the link from the next event; so an edit, a removal, a reordering or an insertion shows at
the first event where it happened (`verify_chain`). Rewriting the whole chain from some point on
is only caught against a root committed earlier: a Merkle root over the event hashes is committed
per job when the job ends (`merkle_root`), and the job roots are committed again, chained, across
jobs (docs/reliability.md, "Audit trail").

The Merkle tree is RFC 6962's (Certificate Transparency): leaves and inner nodes are hashed with
different one-byte prefixes, so a leaf can never be passed off as an inner node, and the tree over
n leaves splits at the largest power of two below n.

Everything here is stdlib and pure, so that anyone can check a trail with this file alone.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Final

from aletheia.core.errors import AletheiaError

GENESIS: Final = "0" * 64
_LEAF_PREFIX: Final = b"\x00"
_NODE_PREFIX: Final = b"\x01"


class NotCanonicalError(ValueError, AletheiaError):
    """A value that has no canonical JSON form (NaN, infinity, a non-string key, an object)."""


def _check_json(value: Any, path: str) -> None:
    if value is None or isinstance(value, (bool, int, str)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotCanonicalError(f"{path}: {value!r} is not a JSON number")
        return
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check_json(item, f"{path}[{i}]")
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotCanonicalError(f"{path}: key {key!r} is not a string")
            _check_json(item, f"{path}.{key}")
        return
    raise NotCanonicalError(f"{path}: {type(value).__name__} is not JSON")


def canonical_json(value: Any) -> bytes:
    """The one serialisation of a JSON value that is hashed: keys sorted, no whitespace, ASCII only
    (so no Unicode normalisation or encoding question arises), finite numbers only.

    A value and the same value after a JSON round trip (a database's JSON column) serialise to the
    same bytes: Python's float repr round-trips exactly, tuples become lists either way.
    """
    _check_json(value, "$")
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    ).encode("ascii")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_hash(value: Any) -> str:
    """sha256 of a JSON value's canonical form (an event id, a verdict's or evidence's digest)."""
    return sha256_hex(canonical_json(value))


def canonical_ts(ts: datetime) -> str:
    """A timestamp as it is hashed: UTC, microseconds. A naive datetime is taken to be UTC (SQLite
    hands timestamps back naive)."""
    aware = ts if ts.tzinfo is not None else ts.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def event_id(job_id: str, event: str, body: Mapping[str, Any]) -> str:
    """The deterministic id of an event: the same decision logged twice (a task delivered twice)
    has the same id and is stored once."""
    return content_hash({"job_id": job_id, "event": event, "body": dict(body)})


@dataclass(frozen=True)
class AuditEntry:
    """One event of a job's log, as stored."""

    job_id: str
    seq: int
    ts: str  # canonical_ts()
    event: str
    event_id: str
    body: Mapping[str, Any]
    prev_hash: str
    hash: str

    def content(self) -> dict[str, Any]:
        return {
            "job_id": self.job_id,
            "seq": self.seq,
            "ts": self.ts,
            "event": self.event,
            "event_id": self.event_id,
            "body": dict(self.body),
        }


def chain_hash(prev_hash: str, content: Mapping[str, Any]) -> str:
    """The hash of an event whose content is `content`, following the event hashed `prev_hash`."""
    return sha256_hex(prev_hash.encode("ascii") + b"\n" + canonical_json(dict(content)))


def seal(
    *, job_id: str, seq: int, ts: datetime, event: str, body: Mapping[str, Any], prev_hash: str
) -> AuditEntry:
    """The entry for a new event appended after the event hashed `prev_hash`."""
    draft = AuditEntry(
        job_id=job_id,
        seq=seq,
        ts=canonical_ts(ts),
        event=event,
        event_id=event_id(job_id, event, body),
        body=body,
        prev_hash=prev_hash,
        hash="",
    )
    return replace(draft, hash=chain_hash(prev_hash, draft.content()))


@dataclass(frozen=True)
class ChainBreak:
    """The first place a log stops being what was written: `index` into the entries as given
    (ordered by seq), the seq there (None past the end), and what is wrong."""

    index: int
    seq: int | None
    problem: str


def verify_chain(entries: Iterable[AuditEntry], *, job_id: str | None = None) -> ChainBreak | None:
    """Check a job's entries, ordered by seq: numbering 1..n without gaps, each entry's link to the
    previous hash, each hash against the entry's content, each event id against its body.

    Returns the first break, or None when the chain is intact. A removed tail is invisible here
    (the chain that remains is valid): `verify_commit` checks it against a committed count and root.
    """
    prev = GENESIS
    for index, entry in enumerate(entries):
        expected_seq = index + 1
        if job_id is not None and entry.job_id != job_id:
            return ChainBreak(index, entry.seq, f"belongs to job {entry.job_id}, not {job_id}")
        if entry.seq != expected_seq:
            if entry.seq > expected_seq:
                missing = (
                    f"seq {expected_seq}"
                    if entry.seq == expected_seq + 1
                    else (f"seqs {expected_seq}..{entry.seq - 1}")
                )
                return ChainBreak(index, entry.seq, f"{missing} missing before this event (removed)")
            return ChainBreak(
                index, entry.seq, f"seq {entry.seq} out of order or repeated (expected {expected_seq})"
            )
        if entry.prev_hash != prev:
            return ChainBreak(
                index,
                entry.seq,
                "link broken: prev_hash is not the previous event's hash (edited, inserted or reordered)",
            )
        if entry.event_id != event_id(entry.job_id, entry.event, entry.body):
            return ChainBreak(index, entry.seq, "event id does not match the event's content (body edited)")
        try:
            actual = chain_hash(entry.prev_hash, entry.content())
        except NotCanonicalError as exc:
            return ChainBreak(index, entry.seq, f"content is not canonical JSON: {exc}")
        if actual != entry.hash:
            return ChainBreak(index, entry.seq, "hash does not match the event's content (edited)")
        prev = entry.hash
    return None


# --- Merkle trees (RFC 6962, section 2.1) -------------------------------------------------------


def merkle_leaf(item: str) -> bytes:
    return hashlib.sha256(_LEAF_PREFIX + item.encode("utf-8")).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(_NODE_PREFIX + left + right).digest()


def merkle_root(items: Sequence[str]) -> str:
    """The Merkle tree hash over `items` (event hashes, or job roots), in order. The empty tree's
    root is sha256 of nothing.

    Built bottom-up, pairing neighbours and carrying an odd last node up unchanged: the same tree
    as RFC 6962's recursive split at the largest power of two below n, in linear time.
    """
    if not items:
        return sha256_hex(b"")
    level = [merkle_leaf(i) for i in items]
    while len(level) > 1:
        paired = [_node(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    return level[0].hex()


class MerkleAccumulator:
    """`merkle_root` over items that arrive one at a time, in O(log n) memory: a job of a million
    events is committed without holding its hashes. Keeps the frontier of perfect subtrees (one per
    set bit of the count); the root folds them right to left, which is RFC 6962's tree."""

    def __init__(self) -> None:
        self._frontier: list[tuple[int, bytes]] = []  # (height, hash), heights strictly decreasing
        self.count = 0

    def add(self, item: str) -> None:
        height, node = 0, merkle_leaf(item)
        while self._frontier and self._frontier[-1][0] == height:
            _, left = self._frontier.pop()
            height, node = height + 1, _node(left, node)
        self._frontier.append((height, node))
        self.count += 1

    def root(self) -> str:
        if not self._frontier:
            return sha256_hex(b"")
        node = self._frontier[-1][1]
        for _, left in reversed(self._frontier[:-1]):
            node = _node(left, node)
        return node.hex()


@dataclass(frozen=True)
class CommitBreak:
    """A committed root that the stored events no longer give."""

    problem: str
    seq: int | None = None  # the first event past what remains, when events are missing


def verify_commit(hashes: Sequence[str], *, event_count: int, root: str) -> CommitBreak | None:
    """Check a commit of `root` over the first `event_count` events against the stored hashes."""
    if len(hashes) < event_count:
        return CommitBreak(
            f"{event_count - len(hashes)} event(s) after seq {len(hashes)} removed: "
            f"the commit covers {event_count} events, the log holds {len(hashes)}",
            seq=len(hashes) + 1,
        )
    actual = merkle_root(hashes[:event_count])
    if actual != root:
        return CommitBreak(
            f"Merkle root over events 1..{event_count} is {actual[:16]}…, the commit says {root[:16]}… "
            "(the chain was rewritten after it was committed)"
        )
    return None


def global_leaves(prior: str | None, job_roots: Sequence[tuple[str, str, int]]) -> list[str]:
    """The leaves of a global commit: the previous global root, then each (job id, job root, event
    count) it covers, in commit order. Chaining the prior root in makes the global commits a chain."""
    return [f"prior:{prior or GENESIS}", *(f"job:{job}:{root}:{count}" for job, root, count in job_roots)]
