"""A session is dead, by cookie and by token, on every route, after logout, after expiry,
after "log out everywhere" and (the other sessions) after a password change."""
import os
import time

import pytest

from security_support import PARSE_HEADERS, Account, Server, figure, raw

pytestmark = pytest.mark.skipif(bool(os.environ.get("ONTHEMAP_E2E_BASE")), reason="starts servers of its own")


@pytest.fixture(scope="module")
def session_server():
    with Server(name="sessions") as server:
        yield server


def uses(account, session, object_id):
    """Every authenticated use of `session`, by token and by same-origin cookie: True where it worked."""
    base = account.base
    results = []
    for credentials in (account.token(session), {**account.cookie(session), "Sec-Fetch-Site": "same-origin"}):
        results.append(raw(base, "GET", "/api/pins", headers=credentials).status != 401)
        put = raw(base, "PUT", f"/parse/classes/StudentLocation/{object_id}", {"mapString": "Still here?"},
                  {**PARSE_HEADERS, **credentials})
        if put.status == 401:
            assert put.json()["code"] == 209, put
        results.append(put.status != 401)
        results.append(raw(base, "POST", "/v1/StudentLocation", {"firstName": "Z", "lastName": "Z", "mapString": "Z",
                                                                  "mediaURL": "https://z.example", "latitude": 1,
                                                                  "longitude": 1}, credentials).status != 401)
        results.append(raw(base, "POST", "/api/account/password",
                           {"current_password": "x" * 9, "new_password": "y" * 9}, credentials).status != 401)
    return results


def test_logout_all_devices_and_password_change_end_sessions(session_server):
    base = session_server.base
    user = Account(base, "Sess", "Ion")
    object_id = user.post_location().json()["objectId"]
    checks = 0

    # Logout (by token on /api, by cookie on /v1): the ended session works nowhere, and a
    # second logout says there was no live session (401, Udacity format).
    for mount, auth in (("/api", "token"), ("/v1", "cookie")):
        session = user.log_in()
        assert all(uses(user, session, object_id))
        credentials = user.token(session) if auth == "token" else {**user.cookie(session), "Sec-Fetch-Site": "same-origin"}
        response = raw(base, "DELETE", f"{mount}/session", headers=credentials)
        assert response.status == 200 and response.body.startswith(b")]}'\n"), response
        used = uses(user, session, object_id)
        checks += len(used)
        assert not any(used), f"a logged-out session still works: {used}"
        again = raw(base, "DELETE", f"{mount}/session", headers=credentials)
        assert again.status == 401 and again.body.startswith(b")]}'\n"), again

    # Log out everywhere: every session of the account ends, another account's does not.
    other = Account(base, "Other", "Person")
    sessions = [user.log_in() for _ in range(3)]
    response = raw(base, "DELETE", "/api/session?all=1", headers=user.token(sessions[0]))
    assert response.status == 200, response
    for session in sessions + [user.session]:
        used = uses(user, session, object_id)
        checks += len(used)
        assert not any(used), "a session survived 'log out everywhere'"
    assert raw(base, "GET", "/api/pins", headers=other.token()).status == 200

    # Password change: every other session ends, this one stays; the old password is refused.
    keep, lose1, lose2 = (user.log_in() for _ in range(3))
    response = raw(base, "POST", "/api/account/password",
                   {"current_password": user.password, "new_password": "another-long-pass-phrase"}, user.token(keep))
    assert response.status == 200 and response.json()["ended_sessions"] == 2, response
    for session in (lose1, lose2):
        used = uses(user, session, object_id)
        checks += len(used)
        assert not any(used), "a session survived the password change"
    assert raw(base, "GET", "/api/pins", headers=user.token(keep)).status == 200
    assert raw(base, "POST", "/api/session", {"udacity": {"username": user.email, "password": user.password}}).status == 403
    user.password = "another-long-pass-phrase"
    assert user.log_in()
    figure(f"session uses after logout / log-out-everywhere / password change {checks} / accepted 0")


def test_expired_sessions_are_refused():
    lifetime_days = 0.00004  # about 3.5 s
    with Server("--session-days", str(lifetime_days), name="sessions-expiry") as server:
        user = Account(server.base, "Short", "Lived")
        response = raw(server.base, "POST", "/api/session",
                       {"udacity": {"username": user.email, "password": user.password}})
        session = response.json()["session"]["id"]
        object_id = user.post_location().json()["objectId"]
        assert all(uses(user, session, object_id))
        time.sleep(lifetime_days * 86400 + 1.5)
        used = uses(user, session, object_id)
        assert not any(used), f"an expired session still works: {used}"
        # Still expired after a restart (expiry is stored, not only in memory).
        server.stop()
        server.start()
        used += uses(user, session, object_id)
        assert not any(used)
        figure(f"session uses after expiry {len(used)} / accepted 0")
