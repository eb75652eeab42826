"""Blocking functions written with Google's `firebase-functions` (PyPI) and served by `functions-framework`, called by
Hearth (issue 39). Tests/e2e/blocking_functions.py starts one `functions-framework --target <name>` per handler.

Nothing here knows about Hearth except the two lines of the strict recipe (docs/hooks.md): when the process is not
told it runs against an emulator (FIREBASE_AUTH_EMULATOR_HOST unset), firebase-functions verifies every request's JWT
(RS256, kid, issuer https://securetoken.google.com/<project>, an audience containing "run.app", expiry) against the
certificates at firebase_admin's ID_TOKEN_CERT_URI — Google's, unless pointed at Hearth's as below.

The handlers (what a real app does; the test reads what they saw from HOOK_EVENTS):
- before_create: only addresses at ALLOWED_DOMAIN may sign up (others: PERMISSION_DENIED with a message); a `role`
  custom claim ("admin" for boss@…, "member" otherwise); the display name filled in when the user has none.
- before_sign_in: addresses listed in the FLAGGED file (one a line; the billing system's list) are disabled; the IP
  addresses in BLOCKED_IPS are refused; everyone else gets session claims (the sign-in method, the tenant).
Environment: GOOGLE_CLOUD_PROJECT (the Hearth project), HEARTH_URL (strict mode: where Hearth's keys are),
ALLOWED_DOMAIN, FLAGGED (a file path), BLOCKED_IPS (comma-separated), HOOK_EVENTS (a file: one JSON line per event).
"""
import json
import os

# --- the strict recipe (docs/hooks.md): verify the JWT against Hearth's keys, not Google's ----------------------
if not os.environ.get("FIREBASE_AUTH_EMULATOR_HOST"):
    from firebase_admin import _token_gen

    _token_gen.ID_TOKEN_CERT_URI = (os.environ["HEARTH_URL"].rstrip("/")
                                    + "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")
# -----------------------------------------------------------------------------------------------------------------

from firebase_functions import https_fn, identity_fn  # noqa: E402

ALLOWED_DOMAIN = os.environ.get("ALLOWED_DOMAIN", "hearth.example")
BLOCKED_IPS = {ip for ip in os.environ.get("BLOCKED_IPS", "").split(",") if ip}


def _record(kind, event):
    """One JSON line per event the handler saw, for the test to count and inspect."""
    path = os.environ.get("HOOK_EVENTS")
    if not path:
        return
    user = event.data
    line = {"handler": kind, "event_type": event.event_type, "event_id": event.event_id, "uid": user.uid,
            "email": user.email, "email_verified": user.email_verified, "display_name": user.display_name,
            "disabled": user.disabled, "tenant_id": user.tenant_id, "custom_claims": user.custom_claims,
            "providers": sorted(info.provider_id for info in user.provider_data),
            "creation_time": user.metadata.creation_time.isoformat(),
            "last_sign_in_time": user.metadata.last_sign_in_time.isoformat() if user.metadata.last_sign_in_time else None,
            "ip_address": event.ip_address, "user_agent": event.user_agent, "locale": event.locale,
            "provider_id": event.additional_user_info.provider_id, "is_new_user": event.additional_user_info.is_new_user,
            "profile": event.additional_user_info.profile,
            "credential": None if event.credential is None else {
                "sign_in_method": event.credential.sign_in_method, "id_token": bool(event.credential.id_token),
                "access_token": bool(event.credential.access_token), "claims": event.credential.claims},
            "timestamp": event.timestamp.isoformat()}
    with open(path, "a") as handle:
        handle.write(json.dumps(line) + "\n")


def _flagged():
    path = os.environ.get("FLAGGED")
    if not path or not os.path.exists(path):
        return set()
    with open(path) as handle:
        return {line.strip().lower() for line in handle if line.strip()}


@identity_fn.before_user_created()
def before_create(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeCreateResponse | None:
    _record("before_create", event)
    email = (event.data.email or "").lower()
    if not email.endswith("@" + ALLOWED_DOMAIN):
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.PERMISSION_DENIED,
                                  f"Only {ALLOWED_DOMAIN} addresses may sign up.")
    answer: identity_fn.BeforeCreateResponse = {
        "custom_claims": {"role": "admin" if email.startswith("boss") else "member"}}
    if not event.data.display_name:
        answer["display_name"] = email.split("@")[0]
    return answer


@identity_fn.before_user_signed_in()
def before_sign_in(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeSignInResponse | None:
    _record("before_sign_in", event)
    if event.ip_address in BLOCKED_IPS:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.PERMISSION_DENIED,
                                  f"Sign-ins from {event.ip_address} are blocked.")
    if (event.data.email or "").lower() in _flagged():
        return {"disabled": True}
    return {"session_claims": {"signed_in_with": event.additional_user_info.provider_id,
                               "tenant": event.data.tenant_id or "none"}}
