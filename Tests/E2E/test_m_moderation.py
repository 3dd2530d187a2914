"""Running a community in the browser: a student reports a post, the administrator (the demo
account, the server's first) hides it, disables and re-enables its author, and hands out a
password-reset link the student uses; the author is told why their post was hidden."""
import urllib.parse

from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.common.by import By

from helpers import User

ADMIN_EMAIL, ADMIN_PASSWORD = "demo@onthemap.local", "onthemap-demo"


def sign_out(page):
    """Forgets the session and leaves the page, so the next load starts signed out."""
    page.driver.delete_all_cookies()
    page.js("localStorage.clear(); sessionStorage.clear()")
    page.driver.get("about:blank")


def answer_reason(page, text):
    page.visible(".reason-dialog #reason-input")
    page.type_into(".reason-dialog #reason-input", text)
    page.find("#reason-ok").click()
    page.gone(".reason-dialog")


def moderation_row(page, attribute, value):
    css = f'#moderation-list > li[data-{attribute}="{value}"]'
    return page.visible(css)


def test_report_hide_disable_and_reset_link(page, api):
    admin = User(api, "1000000001", ADMIN_EMAIL, ADMIN_PASSWORD, "Demo", "Student")
    author = api.create_user("Spam", "Bot")
    post = author.post_location(map_string="Spamville", media_url="https://spam.example/watches")
    reporter = api.create_user("Rita", "Reporter")

    # A student reports the post from the list.
    page.log_in(reporter)
    page.tab("list")
    page.clickable(f'#student-list > li[data-object-id="{post}"] [data-report-id]').click()
    answer_reason(page, "Selling watches")
    title, message = page.alert()
    assert title == "Reported"
    page.dismiss_alert()
    assert page.find_all("#moderation-button") == [], "a student has no Moderate button"
    sign_out(page)

    # The administrator sees it under Reported and hides it with a reason.
    page.log_in(admin)
    page.clickable("#moderation-button").click()
    page.visible("#moderation")
    row = moderation_row(page, "object-id", post)
    assert "1 report: Selling watches" in row.text
    page.screenshot("moderation-reported")
    row.find_element(By.CSS_SELECTOR, '[data-action="hide"]').click()
    answer_reason(page, "Advertising is not allowed")
    page.text_in(f'#moderation-list > li[data-object-id="{post}"]', "Hidden: Advertising is not allowed")
    assert api.count(where={"objectId": post}) == 0

    # Accounts: disabling ends the author's sessions at once; enabling brings the account back.
    session = author.session
    page.find("#moderation-tab-accounts").click()
    row = moderation_row(page, "key", author.key)
    row.find_element(By.CSS_SELECTOR, '[data-action="disable"]').click()
    page.alert()
    page.dismiss_alert()
    page.text_in(f'#moderation-list > li[data-key="{author.key}"]', "Disabled")
    assert not api.session_alive(session)
    moderation_row(page, "key", author.key).find_element(By.CSS_SELECTOR, '[data-action="enable"]').click()
    page.until(lambda d: "Disabled" not in moderation_row(page, "key", author.key).text)

    # A reset link for the author, shown to copy.
    moderation_row(page, "key", author.key).find_element(By.CSS_SELECTOR, '[data-action="reset"]').click()
    link = page.visible(f'#moderation-list > li[data-key="{author.key}"] .reset-link').get_attribute("value")
    assert urllib.parse.urlparse(link).path == "/reset.html"
    page.find("#moderation-close").click()
    sign_out(page)

    # The author sets a new password with it; the link is then spent.
    page.driver.get(link)
    page.visible("#reset-form")
    assert "#token" not in page.driver.current_url, "the token leaves the address bar"
    page.type_into("#reset-password", "a-new-pass-phrase")
    page.type_into("#reset-confirm", "a-new-pass-phrase")
    page.find("#reset-button").click()
    page.visible("#reset-done")
    page.screenshot("password-reset-done")
    page.driver.get("about:blank")  # else only the fragment changes and the page stays as it is
    page.driver.get(link)
    page.visible("#reset-form")
    page.type_into("#reset-password", "another-pass-phrase")
    page.type_into("#reset-confirm", "another-pass-phrase")
    page.find("#reset-button").click()
    page.text_in("#reset-error", "already used or expired")

    # Logging in with it, the author is told why the post was hidden.
    author.password = "a-new-pass-phrase"
    page.log_in(author)
    title, message = page.alert()
    assert title == "From the Moderators"
    assert "Spamville" in message and "Advertising is not allowed" in message
    page.dismiss_alert()
