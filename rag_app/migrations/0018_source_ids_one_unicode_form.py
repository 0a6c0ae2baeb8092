# The source_id columns become SourceIdField: values are saved and looked up in Unicode NFC
# (validation.canonical_source_id). The columns themselves do not change, so the database is left as
# it is (on SQLite an AlterField would rebuild the tables for nothing). Rows stored before in another
# form are not rewritten behind anyone's back: `manage.py check --database default` names them.

import rag_app.models
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("rag_app", "0017_versions_searched_until_superseded"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="document",
                    name="source_id",
                    field=rag_app.models.SourceIdField(max_length=500, unique=True),
                ),
                migrations.AlterField(
                    model_name="documentevent",
                    name="source_id",
                    field=rag_app.models.SourceIdField(db_index=True, max_length=500),
                ),
                migrations.AlterField(
                    model_name="ingestjob",
                    name="source_id",
                    field=rag_app.models.SourceIdField(db_index=True, max_length=500),
                ),
            ],
            database_operations=[],
        ),
    ]
