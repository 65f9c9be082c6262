"""items: an index on (job_id, status), so that whether a job still has unsettled items is one
index probe, not a scan of the job's items after every verdict (quadratic in the job's size)

Create Date: 2026-11-26 14:20:00
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.create_index("ix_items_job_status", "items", ["job_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_items_job_status", table_name="items")
