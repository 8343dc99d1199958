"""Where the offline plan writes: a file, a directory of manifests, or standard output (`-`).
Paths are checked before the program runs, so no plan is spent on a path it cannot write.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

#: The path that means standard output, as for most command-line tools.
STDOUT = Path("-")


class OutputError(ValueError):
    """A path the plan cannot write: one line naming the option, the path and why."""


@dataclass(frozen=True)
class Output:
    option: str
    """The command-line option, such as `--json`."""
    path: Path
    directory: bool = False
    """A directory of files (`--manifests`) rather than one file."""

    @property
    def to_stdout(self) -> bool:
        return self.path == STDOUT

    def problem(self) -> str | None:
        """Why the path cannot be written, or None. Checked before anything is written."""
        if self.to_stdout:
            return None
        what = "a directory" if self.directory else "a file"
        if self.path.exists():
            if self.path.is_dir() != self.directory:
                kind = "a directory" if self.path.is_dir() else "a file"
                return f"{self.option} {self.path}: is {kind}; name {what}"
            if not os.access(self.path, os.W_OK):
                return f"{self.option} {self.path}: cannot be written (no permission)"
            return None
        ancestor = self.path.parent
        while not ancestor.exists() and ancestor != ancestor.parent:
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            return f"{self.option} {self.path}: {ancestor} is a file, not a directory"
        if not os.access(ancestor, os.W_OK):
            return f"{self.option} {self.path}: cannot create it in {ancestor} (no permission)"
        return None

    def failed(self, error: OSError) -> OutputError:
        """The one-line error of a write that failed although the path passed its check."""
        reason = error.strerror or str(error)
        return OutputError(f"{self.option} {self.path}: cannot be written: {reason}")


def output_problems(outputs: list[Output]) -> list[str]:
    """Every problem of the outputs asked for: paths that cannot be written, and more than one
    output on standard output (they would mix)."""
    problems = [p for o in outputs if (p := o.problem()) is not None]
    on_stdout = [o.option for o in outputs if o.to_stdout]
    if len(on_stdout) > 1:
        problems.append(
            f"{' and '.join(on_stdout)} {'both' if len(on_stdout) == 2 else 'all'} name standard output "
            "(-): give all but one of them a path"
        )
    return problems


def write_text(output: Output, text: str, stdout: TextIO) -> None:
    """Write `text` to the output's file, or to `stdout` for `-`. OutputError when it fails."""
    if output.to_stdout:
        stdout.write(text)
        return
    try:
        output.path.parent.mkdir(parents=True, exist_ok=True)
        output.path.write_text(text)
    except OSError as error:
        raise output.failed(error) from None
