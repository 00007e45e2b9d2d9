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
from itertools import zip_longest
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
    printable, measure = terminal.printable, terminal.columns
    shown: list[list[str]] = []
    sizes: list[list[int]] = []
    for row in rows:  # a listing has thousands of rows: the plain ASCII cell is the quick case
        texts = [c.text if isinstance(c.text, Styled) else printable(c.text) for c in row.cells]
        shown.append(texts)
        sizes.append([len(t) if t.isascii() and "\x1b" not in t else measure(t) for t in texts])
    widths = [max(column) for column in zip_longest(*sizes, fillvalue=0)]
    layout = _Layout(widths, None if wide else terminal.width(), terminal.colour())
    return [
        layout.line(row, cells, measured)
        for row, cells, measured in zip(rows, shown, sizes, strict=True)
    ]


class _Layout:
    """What every row of one table shares: its column widths, the room, colour or not."""

    def __init__(self, widths: list[int], room: int | None, colour: bool) -> None:
        self.widths = widths
        self.room = room
        self.colour = colour
        self.used = sum(widths) + len(GAP) * len(widths)  # where the title starts
        self.pads = [" " * n + GAP for n in range(max(widths, default=0) + 1)]

    def line(self, row: Row, cells: list[str], sizes: list[int]) -> Styled:
        pads, widths = self.pads, self.widths
        if self.colour:
            cells = [
                terminal.paint(Styled(text), cell.role) if cell.role else text
                for text, cell in zip(cells, row.cells, strict=True)
            ]
        padded = [text + pads[widths[at] - sizes[at]] for at, text in enumerate(cells)]
        marks = row.marks
        shown = "" if not marks else marks[0] if len(marks) == 1 else terminal.join(*marks, sep=GAP)
        title = terminal.printable(row.title)
        if self.room is not None:
            title, shown = self._fitted(row, title, shown)
        if marks:
            padded += [title, GAP if row.title else "", shown]
        else:
            padded.append(title)
        line = (row.indent + "".join(padded)).rstrip()
        if self.room is not None:
            line = self._cut(line)  # when the cells alone (owed's, say) overfill the terminal
        return Styled(line)

    def _cut(self, line: str) -> str:
        """A line wider than the terminal cut whole to it (its colour given up, so that no
        colour is left open)."""
        assert self.room is not None
        if terminal.columns(line) <= self.room:
            return line
        return terminal.cut_escaped(terminal.SGR.sub("", line), self.room)

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
