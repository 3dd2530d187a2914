"""WCAG 2.2 AA with axe-core on every screen at phone and desktop size: no serious or
critical violation anywhere."""
import os

import pytest

from a11y import axe_violations, blocking, describe
from conftest import DESKTOP, PHONE

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")),
                                reason="the album screen needs the server started here, pointed at the photo stub")


def settle(page):
    """Lets transitions finish, so contrast is measured on the final colours."""
    page.js("return new Promise((resolve) => setTimeout(resolve, 350))")


def check(page, screen, found, context=None):
    for size in (PHONE, DESKTOP):
        page.viewport(size)
        settle(page)
        violations = blocking(axe_violations(page.driver, context))
        if violations:
            found.append(f"--- {screen} at {size[0]}x{size[1]}\n{describe(violations)}")
    page.viewport(DESKTOP)


def test_every_screen_has_no_serious_or_critical_violation(page, api, photo_stub):
    photo_stub.reset()
    found = []
    user = api.create_user("Axe", "Core")
    user.post_location("Nairobi, Kenya", -1.29, 36.82, "https://example.com/axe")
    pin = user.create_pin(48.8566, 2.3522)

    page.open("/#/login")
    page.visible("#login-email")
    check(page, "login", found)
    # The error line is part of the login screen a student meets.
    page.type_into("#login-email", user.email)
    page.type_into("#login-password", "wrong-password\n")
    page.visible("#login-error")
    check(page, "login with an error", found)

    page.find("#show-signup").click()
    page.visible("#signup-first")
    check(page, "sign-up", found)

    page.log_in(user)
    check(page, "map", found)
    page.js("document.querySelector('#map .leaflet-marker-icon, #map .cluster')")
    page.tab("list")
    page.until(lambda d: len(page.list_rows()) > 10, 10, "the list never filled")
    check(page, "list", found)

    page.tab("search")
    page.type_into("#search-input", "a")
    page.until(lambda d: len(page.list_rows("#search-results")) > 0, 10, "no search results")
    check(page, "search", found)

    page.tab("map")
    page.clickable("#add-location-button").click()
    page.alert()  # Replace your location?
    page.dismiss_alert("#alert-ok")
    page.visible("#add-place")
    check(page, "add location", found)
    page.type_into("#add-place", "Lagos, Nigeria")
    page.type_into("#add-link", "https://example.com/me")
    page.find("#add-find").click()
    page.visible("#add-finish", 15)
    check(page, "add location preview", found)
    page.find("#add-cancel").click()
    page.gone("#add-location")

    page.find("#account-button").click()
    page.visible("#account")
    check(page, "account", found)
    page.find("#account-close").click()
    page.gone("#account")

    page.tab("travel")
    page.until(lambda d: d.execute_script(
        "return document.getElementById('travel-map').dataset.state === 'ready'"), 15, "the travel map never became ready")
    check(page, "travel", found)
    page.find(f'.travel-pin[data-pin-id="{pin["id"]}"]').click()
    page.until(lambda d: d.execute_script(
        "const a = document.getElementById('album'); return a.dataset.settled === 'true' && a.dataset.state === 'ready'"),
        20, "the album never settled")
    check(page, "album", found)

    page.find("#album-delete-pin").click()
    page.alert()
    check(page, "confirmation", found)
    page.dismiss_alert("#alert-cancel")

    assert not found, "axe found serious or critical violations:\n" + "\n".join(found)
