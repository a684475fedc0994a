"""Pair the next round of any TRF(x) file, as the FIDE pairing programs do.

    python -m tournaments.pairing FILE.trf

Reads the file (with its XXR and XXC lines; absences for the round to pair given as extra
round cells) and prints the number of pairs, then one ``white black`` line per board by
start number, ``0`` as the opponent of the bye. Needs no database.
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
    with open(args[0], encoding="latin-1") as handle:
        text = handle.read()
    try:
        pairing = pair_text(text, trf.parse(text).rounds_played)
    except PairingError as exc:
        print(exc, file=sys.stderr)
        return 1
    sys.stdout.write(pairing.text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
