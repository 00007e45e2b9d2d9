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
from typing import NamedTuple

from gitcoop.cli import terminal
from gitcoop.cli.terminal import Styled

GAP = "  "
MIN_TITLE = 10  # a title keeps this much; the marks after it are cut instead


class Cell(NamedTuple):
    text: str  # as stored; escaped when laid out (Styled text is kept as it is)
    role: str | None = None  # its colour (terminal.PALETTE)


class Row(NamedTuple):
    cells: Sequence[Cell]
    title: str = ""
    marks: Sequence[Styled] = ()  # already painted
    indent: str = ""


def lay_out(rows: Sequence[Row], wide: bool = False) -> list[Styled]:
    """Each row as one line, columns aligned, fitted to the terminal unless `wide`."""
    shown = [[_escaped(cell) for cell in row.cells] for row in rows]
    sizes = [[terminal.columns(text) for text in cells] for cells in shown]
    widths: list[int] = []
    for measured in sizes:
        for at, size in enumerate(measured):
            if at == len(widths):
                widths.append(size)
            elif size > widths[at]:
                widths[at] = size
    layout = _Layout(widths, None if wide else terminal.width(), terminal.colour())
    return [
        layout.line(row, cells, measured)
        for row, cells, measured in zip(rows, shown, sizes, strict=True)
    ]


def _escaped(cell: Cell) -> str:
    return cell.text if isinstance(cell.text, Styled) else terminal.printable(cell.text)


class _Layout:
    """What every row of one table shares: its column widths, the room, colour or not."""

    def __init__(self, widths: list[int], room: int | None, colour: bool) -> None:
        self.widths = widths
        self.room = room
        self.colour = colour
        self.used = sum(widths) + len(GAP) * len(widths)  # where the title starts
        self.pads = [" " * n + GAP for n in range(max(widths, default=0) + 1)]

    def line(self, row: Row, cells: list[str], sizes: list[int]) -> Styled:
        parts: list[str] = [row.indent]
        last = len(cells) - 1 if not row.title and not row.marks else -1
        for at, text in enumerate(cells):
            role = row.cells[at].role
            parts.append(terminal.paint(Styled(text), role) if self.colour and role else text)
            if at != last:
                parts.append(self.pads[self.widths[at] - sizes[at]])
        marks = terminal.join(*row.marks, sep=GAP) if row.marks else ""
        title = terminal.printable(row.title)
        if self.room is not None:
            title, marks = self._fitted(row, title, marks)
        parts.append(title)
        if row.marks:
            parts += [GAP if row.title else "", marks]
        return Styled("".join(parts).rstrip())

    def _fitted(self, row: Row, title: str, marks: str) -> tuple[str, str]:
        """The title cut to the room left; on a narrow terminal, the marks cut too."""
        assert self.room is not None
        used = self.used + terminal.columns(row.indent)
        marks_room = terminal.columns(marks) + len(GAP) if row.marks else 0
        room = self.room - used - marks_room
        if room < MIN_TITLE and row.marks:
            room = min(MIN_TITLE, terminal.columns(title))
            plain = terminal.SGR.sub("", marks)
            marks = terminal.cut_escaped(plain, max(self.room - used - room - 2, 1))
        return terminal.cut_escaped(title, max(room, 1)), marks
