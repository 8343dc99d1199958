"""`gke-tpu-plan` (and `python -m gke_tpu.preview`): the offline plan's command line (`cli.py`).

The process plans one stack and ends, so the collector stays off and it exits without tearing
the interpreter down, which at 512 pools costs a third of the plan's time (`make bench`).
"""

import gc
import os
import signal
import sys
from types import FrameType

#: The shell's code for a process ended by SIGINT (128 + 2).
INTERRUPTED = 130


def _interrupted(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C, whatever runs then (an import, the plan, Pulumi's threads, a write): one line and
    the shell's code, as command-line tools end on it; nothing is left to tear down."""
    os.write(2, b"\ninterrupted\n")
    os._exit(INTERRUPTED)


def run() -> None:
    """The console script's entry point."""
    # First, before the imports that take most of a short plan's time.
    signal.signal(signal.SIGINT, _interrupted)
    gc.disable()
    from gke_tpu.preview.cli import main

    try:
        code = main()
    except KeyboardInterrupt:
        # Raised by code rather than sent (the handler above takes every SIGINT).
        _interrupted(signal.SIGINT, None)
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
