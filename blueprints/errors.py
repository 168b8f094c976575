"""The one error type a user sees: a line per problem naming the file, the field and what is allowed."""

from __future__ import annotations

from typing import Sequence

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3  # the program failed on a stack: a bug, reported with its traceback
EXIT_REGISTRY = 4  # pin-images: a registry could not be read or gave an unusable answer; nothing written
# A file with hundreds of bad values would bury the first ones; the count of the rest is still given.
MAX_REPORTED = 20


def _printable(text: str) -> str:
    # One printable line whatever the input held (newlines, record separators in YAML keys...).
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class BlueprintError(Exception):
    """Bad input: unknown stack, malformed config, a request no real shape meets.

    The CLI prints each of ``lines`` as one line and exits with EXIT_BAD_INPUT. Several problems of
    one file are reported together (``BlueprintError.many``) so a user fixes them in one round.
    """

    def __init__(self, where: str, message: str, more: Sequence[str] = ()):
        self.where = where
        self.message = message
        self.messages = [message, *more]
        problems = [f"{where}: {m}" if where else m for m in self.messages]
        self.lines = [_printable(p) for p in problems[:MAX_REPORTED]]
        if len(problems) > MAX_REPORTED:
            self.lines.append(_printable(f"{where}: ...and {len(problems) - MAX_REPORTED} more problems"))
        super().__init__("\n".join(self.lines))

    @classmethod
    def many(cls, where: str, messages: Sequence[str]) -> "BlueprintError":
        return cls(where, messages[0], messages[1:])

    def prefixed(self, prefix: str) -> "BlueprintError":
        """The same problems under a stack file's name (the resolver knows fields, not files)."""
        if self.where.startswith(prefix):
            return self
        return BlueprintError.many(f"{prefix}: {self.where}" if self.where else prefix, self.messages)


class RegistryError(Exception):
    """A registry could not be read or answered with something unusable (`pin-images`): one line naming the image.

    Not bad input (the same command may work in a minute) and not a bug, so it has its own exit code."""

    def __init__(self, message: str):
        super().__init__(_printable(message))  # a registry's or resolver's text may hold control characters


def did_you_mean(value: object, allowed: Sequence[str]) -> str:
    """'; did you mean H100?' for a near-miss name, naming any look-alike character (a Cyrillic 'а' for 'a').

    Empty when nothing is close. Case is ignored first (h100 -> H100); then difflib's ratio, as Python's own
    "Did you mean" does for names; a non-ASCII letter is named by its Unicode name, since it cannot be seen.
    """
    import difflib
    import unicodedata

    text = str(value)
    foreign = sorted({c for c in text if ord(c) > 127})
    note = ""
    if foreign:
        names = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in foreign)
        note = f" ({text!r} contains {names}, which only looks like ASCII)"
    folded = {a.casefold(): a for a in allowed}
    ascii_text = "".join(unicodedata.normalize("NFKD", _CONFUSABLES.get(c, c)) for c in text)
    match = folded.get(text.casefold()) or folded.get(ascii_text.casefold())
    if match is None:
        close = difflib.get_close_matches(ascii_text.casefold(), list(folded), n=1, cutoff=0.6)
        match = folded[close[0]] if close else None
    if match is None or match == text:
        return note
    return f"; did you mean {match}?{note}"


# Letters of other scripts that render like Latin ones: the common subset of Unicode's confusables
# (https://www.unicode.org/Public/security/latest/confusables.txt, UTS #39).
_CONFUSABLES = {
    "а": "a",
    "с": "c",
    "е": "e",
    "о": "o",
    "р": "p",
    "х": "x",
    "у": "y",
    "і": "i",
    "ѕ": "s",
    "А": "A",
    "В": "B",
    "С": "C",
    "Е": "E",
    "Н": "H",
    "К": "K",
    "М": "M",
    "О": "O",
    "Р": "P",
    "Т": "T",
    "Х": "X",
    "ο": "o",
    "α": "a",
    "Ο": "O",
    "Α": "A",
    "Β": "B",
    "Ε": "E",
    "Η": "H",
}
