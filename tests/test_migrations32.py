"""Migrations of session 32, on the database the suite runs on (SQLite, or PostgreSQL with RAG_TEST_DB=postgres).

0020: a level, access or title change keeps its author's name (the change log shows it after the account is deleted);
existing rows get their author's name, the operator's stay without one.
0021: a verdict keeps its reviewer's name the same way."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.migrating import migrate_to

BEFORE_USERNAMES = ("rag_app", "0019_level_changes_outlive_documents")
BEFORE_REVIEWER_NAMES = ("rag_app", "0020_level_changes_keep_their_authors_name")


@pytest.mark.django_db(transaction=True)
def test_0020_names_the_author_of_each_existing_change() -> None:
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("rag_app")
    apps = migrate_to([BEFORE_USERNAMES])
    try:
        LevelChange, User = apps.get_model("rag_app", "LevelChange"), apps.get_model("auth", "User")
        author = User.objects.create(username="mei")
        by_mei = LevelChange.objects.create(user=author, field="level.created", new_value="x (1)").pk
        by_operator = LevelChange.objects.create(field="level.created", new_value="y (1)").pk
        LevelChange = migrate_to(latest).get_model("rag_app", "LevelChange")
        assert dict(LevelChange.objects.values_list("pk", "username")) == {by_mei: "mei", by_operator: ""}
    finally:
        migrate_to(latest)
        apps = MigrationExecutor(connection).loader.project_state(latest).apps
        apps.get_model("rag_app", "LevelChange").objects.filter(new_value__in=["x (1)", "y (1)"]).delete()
        apps.get_model("auth", "User").objects.filter(username="mei").delete()


@pytest.mark.django_db(transaction=True)
def test_0021_names_the_reviewer_of_each_existing_verdict() -> None:
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("rag_app")
    apps = migrate_to([BEFORE_REVIEWER_NAMES])
    try:
        Answer, AnswerReview = apps.get_model("rag_app", "Answer"), apps.get_model("rag_app", "AnswerReview")
        reviewer = apps.get_model("auth", "User").objects.create(username="mei")
        answer = Answer.objects.create(question="q?", state="answered")
        by_mei = AnswerReview.objects.create(answer=answer, reviewer=reviewer, verdict="ok").pk
        by_no_one = AnswerReview.objects.create(answer=answer, verdict="wrong").pk
        AnswerReview = migrate_to(latest).get_model("rag_app", "AnswerReview")
        assert dict(AnswerReview.objects.values_list("pk", "reviewer_name")) == {by_mei: "mei", by_no_one: ""}
    finally:
        migrate_to(latest)
        apps = MigrationExecutor(connection).loader.project_state(latest).apps
        apps.get_model("rag_app", "Answer").objects.filter(question="q?").delete()
        apps.get_model("auth", "User").objects.filter(username="mei").delete()
