# Dates as the site writes them in English (settings.FORMAT_MODULE_PATH; Django's own formats
# fill in the rest). Templates use the names: |date:"DATE_FORMAT", "DATETIME_FORMAT",
# "SHORT_DATETIME_FORMAT"; emails use "LONG_DATETIME" through games.notifications.emails.local.
DATE_FORMAT = "j M Y"
DATETIME_FORMAT = "j M Y H:i e"
SHORT_DATETIME_FORMAT = "D j M, H:i e"
LONG_DATETIME = "D j M Y H:i"
