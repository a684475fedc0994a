"""Chat moderation for staff: reported chat lines (issue 13). Everything else about games is
run by the site."""

from django.contrib import admin

from .models import ChatMessage, ChatReport


@admin.register(ChatReport)
class ChatReportAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["created_at", "reporter", "author", "text", "game", "reason", "resolved"]
    list_filter = ["resolved"]
    list_editable = ["resolved"]
    list_select_related = ["reporter", "message__user"]
    readonly_fields = ["message", "reporter", "reason", "created_at"]

    @admin.display(description="written by")
    def author(self, report: ChatReport) -> str:
        return str(report.message.user)

    @admin.display(description="line")
    def text(self, report: ChatReport) -> str:
        return report.message.text

    @admin.display(description="game")
    def game(self, report: ChatReport) -> int:
        return int(report.message.game_id)


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["created_at", "game", "user", "text"]
    list_select_related = ["user"]
    search_fields = ["text", "user__username"]
    readonly_fields = ["game", "user", "text", "created_at"]
