from __future__ import annotations

from tests import factories


def test_it_returns_a_chunk_as_a_full_record(api_as, staff_user):
    """A chunk comes with its document, version, location, level and offsets (rule 1)."""
    doc = factories.make_document("Refunds are paid within 30 days.", source_id="policy/refund.txt", level="official")
    chunk = factories.chunks_of(doc)[0]
    body = api_as(staff_user).get(f"/api/v1/chunks/{chunk.chunk_id}").json()
    assert body["chunk_id"] == "policy/refund.txt:v1:0"
    assert (body["source_id"], body["version"], body["is_current"], body["index"]) == ("policy/refund.txt", 1, True, 0)
    assert body["text"] == chunk.text
    assert (body["start_offset"], body["end_offset"]) == (chunk.start, chunk.end)
    assert body["source_level"] == "official"
    assert body["display_title"] == "policy/refund.txt"
    assert body["title"] is None


def test_a_plain_text_chunk_has_no_invented_location(api_as, staff_user):
    """No section and no page: locator, section and page are null (rule 7)."""
    chunk = factories.chunks_of(factories.make_document("Plain words only."))[0]
    body = api_as(staff_user).get(f"/api/v1/chunks/{chunk.chunk_id}").json()
    assert (body["locator"], body["section"], body["page"]) == (None, None, None)


def test_an_old_version_chunk_stays_readable(api_as, staff_user):
    """After a new version, the old chunk id still resolves, marked not current (rule 15)."""
    factories.make_document("First text.", source_id="v.txt")
    factories.make_document("Second text, changed.", source_id="v.txt")
    body = api_as(staff_user).get("/api/v1/chunks/v.txt:v1:0").json()
    assert (body["version"], body["is_current"]) == (1, False)


def test_hidden_and_unknown_chunks_are_404(api_as, staff_user):
    """A chunk of a restricted document is not found, exactly like an unknown chunk id."""
    doc = factories.make_document("Salary bands.", source_id="hr/pay.txt", groups=["hr"])
    chunk = factories.chunks_of(doc)[0]
    client = api_as(staff_user)
    assert client.get(f"/api/v1/chunks/{chunk.chunk_id}").status_code == 404
    missing = client.get("/api/v1/chunks/nope:v1:0")
    assert missing.status_code == 404
    assert missing.json()["code"] == "not_found"
