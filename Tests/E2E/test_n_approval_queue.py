"""A teacher's approval queue: it follows the class while it is open, and Approve all
approves every waiting post at once (confirmed, with the count)."""
from selenium.webdriver.common.by import By

from test_n_classes import administrator, as_teacher, class_locations, post_in_class, unique_slug


def test_the_queue_updates_while_open_and_approve_all_approves_every_post(page, api):
    teacher = administrator(api)
    slug = unique_slug("queue")
    as_teacher(teacher, "POST", "/api/classes", {"slug": slug, "name": "Queue class", "join": "open", "approval": "all"})
    students = []
    for first in ("Ana", "Ben", "Cleo"):
        student = api.create_user(first, "Queue")
        as_teacher(student, "POST", f"/api/classes/{slug}/join", {})
        students.append(student)

    page.log_in(teacher)
    page.open(f"/c/{slug}/")
    page.map_ready()
    page.clickable("#moderation-button").click()
    page.visible("#moderation")
    page.clickable("#moderation-tab-waiting").click()
    page.text_in("#moderation-status", "No posts are waiting for approval.")

    # Three posts arrive while the dialog is open: the list shows them without reopening.
    for i, student in enumerate(students):
        post_in_class(student, slug, f"Lagos {i}", 6.45 + i, 3.39)
    page.until(lambda d: len(page.find_all("#moderation-list > li")) == 3, 20, "the open queue did not follow")
    for row in page.find_all("#moderation-list > li"):
        actions = [b.text for b in row.find_elements(By.CSS_SELECTOR, ".moderation-actions button")]
        assert actions == ["Approve", "Reject"], actions  # nothing acting beyond the class here
    assert all(not class_locations(s, slug) or all(p["uniqueKey"] == s.key for p in class_locations(s, slug)) for s in students)

    approve_all = page.visible("#moderation-approve-all")
    assert approve_all.text == "Approve all 3"
    approve_all.click()
    title, message = page.alert()
    assert title == "Approve all 3 posts?"
    assert "at once" in message
    page.dismiss_alert("#alert-ok")
    page.text_in("#moderation-done", "Approved 3 posts.", 20)
    page.text_in("#moderation-status", "No posts are waiting for approval.")
    assert not page.find("#moderation-approve-all").is_displayed()
    # Every student now sees all three.
    assert len(class_locations(students[0], slug)) == 3
