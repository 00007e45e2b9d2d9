"""Lines of a listing laid out as a table that fits the terminal.

Each row has aligned cells (an id, a kind, a status...), one title, and marks
after it (`[taken by bob, 5h ago]`). Every column is as wide as its widest
cell, so a long status such as `in_progress` moves the column, not the row.
On a terminal the title is cut with `…` so that the row fits its width
(marks are kept whole: they say who holds the work); with `wide`, or when
stdout is not a terminal, nothing is cut. Cells are escaped (`printable`)
before they are measured and coloured after, by `terminal.paint`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gitcoop.cli import terminal
from gitcoop.cli.terminal import Styled

GAP = "  "
MIN_TITLE = 10  # a title keeps this much; the marks after it are cut instead


@dataclass(frozen=True)
class Cell:
    text: str  # as stored; escaped when laid out (Styled text is kept as it is)
    role: str | None = None  # its colour (terminal.PALETTE)


@dataclass(frozen=True)
class Row:
    cells: Sequence[Cell]
    title: str = ""
    marks: Sequence[Styled] = field(default_factory=tuple)  # already painted
    indent: str = ""


def lay_out(rows: Sequence[Row], wide: bool = False) -> list[Styled]:
    """Each row as one line, columns aligned, fitted to the terminal unless `wide`."""
    shown = [[_escaped(cell) for cell in row.cells] for row in rows]
    widths: list[int] = []
    for cells in shown:
        for at, text in enumerate(cells):
            size = terminal.columns(text)
            if at == len(widths):
                widths.append(size)
            elif size > widths[at]:
                widths[at] = size
    room_total = None if wide else terminal.width()
    lines = []
    for row, cells in zip(rows, shown, strict=True):
        lines.append(_line(row, cells, widths, room_total))
    return lines


def _escaped(cell: Cell) -> str:
    return cell.text if isinstance(cell.text, Styled) else terminal.printable(cell.text)


def _line(row: Row, cells: list[str], widths: list[int], room_total: int | None) -> Styled:
    parts: list[str] = [row.indent]
    used = terminal.columns(row.indent)
    for at, (text, cell) in enumerate(zip(cells, row.cells, strict=True)):
        last = at == len(cells) - 1 and not row.title and not row.marks
        pad = "" if last else " " * (widths[at] - terminal.columns(text)) + GAP
        parts += [terminal.paint(Styled(text), cell.role), pad]
        used += widths[at] + len(GAP)
    marks = terminal.join(*row.marks, sep=GAP) if row.marks else Styled("")
    title = terminal.printable(row.title)
    if room_total is not None:
        marks_room = terminal.columns(marks) + len(GAP) if row.marks else 0
        room = room_total - used - marks_room
        if room < MIN_TITLE and row.marks:  # a narrow terminal: the marks give way too
            room = min(MIN_TITLE, terminal.columns(title))
            plain = terminal.SGR.sub("", marks)
            marks = Styled(terminal.cut_escaped(plain, max(room_total - used - room - 2, 1)))
        title = terminal.cut(row.title, max(room, 1))
    parts.append(Styled(title))
    if row.marks:
        parts += [GAP if row.title else "", marks]
    return Styled("".join(parts).rstrip())
