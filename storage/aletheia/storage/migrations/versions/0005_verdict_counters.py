"""verdicts: the requests each reference's verification made, per source (a queued job's counters)

Create Date: 2026-11-26 13:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    with op.batch_alter_table("verdicts", schema=None) as batch_op:
        # Nullable: verdicts recorded before this migration were not counted (the summary falls
        # back to counting the answers in their evidence).
        batch_op.add_column(sa.Column("counters", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("verdicts", schema=None) as batch_op:
        batch_op.drop_column("counters")
