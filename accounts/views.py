"""Account pages that differ from Django's: password reset with a rate limit, and the
language switcher that also remembers a logged-in player's choice."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.utils.translation import check_for_language
from django.views import i18n
from django.views.decorators.http import require_POST

from .services import user_set_language
from .throttle import password_reset_refusal


class PasswordResetView(auth_views.PasswordResetView):
    """Django's view; a request beyond ``PASSWORD_RESET_RATES`` gets the form back with a
    message (429, ``Retry-After``) and no email; an invalid form is a 400."""

    def form_valid(self, form: Any) -> HttpResponse:
        refusal = password_reset_refusal(self.request, form.cleaned_data["email"])
        if refusal is None:
            return super().form_valid(form)
        message, seconds = refusal
        response = self.render_to_response(self.get_context_data(form=form, refusal=message), status=429)
        response["Retry-After"] = str(seconds)
        return response

    def form_invalid(self, form: Any) -> HttpResponse:
        return self.render_to_response(self.get_context_data(form=form), status=400)


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Django's ``set_language`` (POST ``language``, ``next``; a cookie for everyone); a
    logged-in player's choice is also saved as their setting, so their emails follow it."""
    response = i18n.set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language and check_for_language(language):
        user_set_language(user=request.user, language=language)
    return response
