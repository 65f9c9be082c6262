"""the mirror's Semantic Scholar papers in a partition of their own (issue 32, the fourth dump)

PostgreSQL: `mirror_records` is partitioned by source (0007); Semantic Scholar's papers dataset
would otherwise fill the default partition beside whatever else is loaded. A partition for a value
the default partition already holds cannot be created while that partition is attached, so the
default is detached, the new partition created, its rows moved, and the default attached again
(Postgres checks on attaching that it holds no row of another partition). SQLite: nothing.

Create Date: 2026-11-29 08:20:00
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"

_UPGRADE = [
    "ALTER TABLE mirror_records DETACH PARTITION mirror_records_other",
    "CREATE TABLE mirror_records_semantic_scholar PARTITION OF mirror_records "
    "FOR VALUES IN ('semantic_scholar')",
    "INSERT INTO mirror_records SELECT * FROM mirror_records_other WHERE source = 'semantic_scholar'",
    "DELETE FROM mirror_records_other WHERE source = 'semantic_scholar'",
    "ALTER TABLE mirror_records ATTACH PARTITION mirror_records_other DEFAULT",
]

_DOWNGRADE = [
    "ALTER TABLE mirror_records DETACH PARTITION mirror_records_semantic_scholar",
    "ALTER TABLE mirror_records DETACH PARTITION mirror_records_other",
    "INSERT INTO mirror_records_other SELECT * FROM mirror_records_semantic_scholar",
    "DROP TABLE mirror_records_semantic_scholar",
    "ALTER TABLE mirror_records ATTACH PARTITION mirror_records_other DEFAULT",
]


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for statement in _UPGRADE:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for statement in _DOWNGRADE:
            op.execute(statement)
