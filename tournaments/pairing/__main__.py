"""Pair the next round of any TRF(x) file, as the FIDE pairing programs do.

    python -m tournaments.pairing FILE.trf

Reads the file (UTF-8, else Latin-1; XXR or 142 for the rounds planned; XXC or record 152 for
the initial colour; absences for the round to pair given as extra round cells) and prints the
number of pairs, then one ``white black`` line per board by start number, ``0`` as the opponent
of the bye. The same file always gives the same output. Needs no database.
"""

from __future__ import annotations

import sys

from tournaments import trf
from tournaments.pairing import PairingError, pair_text


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    try:
        with open(args[0], "rb") as handle:
            text = trf.decode(handle.read())
    except OSError as exc:
        print(f"cannot read {args[0]}: {exc.strerror}", file=sys.stderr)
        return 1
    try:
        pairing = pair_text(text)
    except PairingError as exc:
        print(exc, file=sys.stderr)
        return 1
    sys.stdout.write(pairing.text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
