"""audit trail: event ids for idempotent appends, global commits covering job commits

Create Date: 2026-11-21 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        # Nullable: rows written before this migration have none (NULLs never collide in a
        # unique constraint, on PostgreSQL and SQLite alike).
        batch_op.add_column(sa.Column("event_id", sa.String(length=64), nullable=True))
        batch_op.create_unique_constraint("uq_audit_job_event", ["job_id", "event_id"])
    with op.batch_alter_table("merkle_commits", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("covered_by", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True)
        )
        batch_op.create_index(batch_op.f("ix_merkle_commits_covered_by"), ["covered_by"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("merkle_commits", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_merkle_commits_covered_by"))
        batch_op.drop_column("covered_by")
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.drop_constraint("uq_audit_job_event", type_="unique")
        batch_op.drop_column("event_id")
