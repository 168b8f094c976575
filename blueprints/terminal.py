"""Colour and width for people at a terminal; plain text for pipes, files and NO_COLOR (https://no-color.org).

rich decides: it colours only when standard output is a terminal, and honours NO_COLOR and TERM=dumb itself.
Only the words a reader must not miss are coloured; the text is the same bytes either way once colour is off.
"""

from __future__ import annotations

import shutil
import sys
from typing import Optional, TextIO

from rich.console import Console
from rich.highlighter import RegexHighlighter
from rich.theme import Theme

DEFAULT_WIDTH = 160  # tables when neither COLUMNS nor a terminal says otherwise (a pipe, a CI log)


class _PlanHighlighter(RegexHighlighter):
    base_style = "plan."
    highlights = [
        r"(?P<bad>\[(mandatory|blocking)\]|\bOVER\b|\bUNKNOWN\b|AT LEAST|\bfailed\b)",
        r"(?P<warn>\[(advisory|warning)\])",
        r"(?P<good>\bwithin\b)",
    ]


THEME = Theme({"plan.bad": "bold red", "plan.warn": "yellow", "plan.good": "green"})


def width() -> int:
    """COLUMNS when set (as POSIX shells and `shutil` read it), else the terminal's width, else 160."""
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def write_coloured(text: str, stream: Optional[TextIO] = None, force_terminal: Optional[bool] = None) -> None:
    """Write ``text`` to ``stream`` (standard output), coloured only where rich sees a terminal and no NO_COLOR."""
    console = Console(
        file=stream or sys.stdout,
        highlighter=_PlanHighlighter(),
        theme=THEME,
        soft_wrap=True,
        emoji=False,
        markup=False,
        force_terminal=force_terminal,
    )
    if not console.is_terminal or console.no_color:
        console.file.write(text)
        return
    console.print(text, end="")
