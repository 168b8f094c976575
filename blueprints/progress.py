"""Progress for long commands (every stack planned or diffed): a rich bar on a terminal, nothing else.

Off when standard error is not a terminal, so CI logs and redirected output stay clean; standard
output is never touched, so `plan --format json > plan.json` stays valid JSON.
"""

from __future__ import annotations

import sys
from typing import Iterator, Sequence, TypeVar

T = TypeVar("T")


def enabled() -> bool:
    return sys.stderr.isatty()


def progress(items: Sequence[T], what: str) -> Iterator[T]:
    """Yield ``items``, showing `what item n/N` on standard error while each is worked on."""
    if not enabled() or len(items) < 2:
        yield from items
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=len(items))
        for item in items:
            bar.update(task, description=f"{what} {item}")
            yield item
            bar.advance(task)
