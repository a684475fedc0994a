# Dates as the site writes them in German (see ../en/formats.py).
DATE_FORMAT = "j. M Y"
DATETIME_FORMAT = "j. M Y, H:i e"
SHORT_DATETIME_FORMAT = "D, j. M, H:i e"
LONG_DATETIME = "D, j. M Y, H:i"
