"""The one error type a user sees: a single line naming what is wrong and what is allowed."""

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


class BlueprintError(Exception):
    """Bad input: unknown stack, malformed config, a request no real shape meets.

    The plan command prints ``str(error)`` as one line and exits with EXIT_BAD_INPUT.
    """

    def __init__(self, where: str, message: str):
        self.where = where
        self.message = message
        text = f"{where}: {message}" if where else message
        # One printable line whatever the input held (newlines, record separators in YAML keys...).
        super().__init__("".join(c if c.isprintable() else repr(c)[1:-1] for c in text))
