"""`gke-tpu-plan` (and `python -m gke_tpu.preview`): the offline plan's command line (`cli.py`).

The process plans one stack and ends, so the collector stays off and it exits without tearing
the interpreter down, which at 512 pools costs a third of the plan's time (`make bench`).
"""

import gc
import os
import sys


def run() -> None:
    """The console script's entry point."""
    gc.disable()
    from gke_tpu.preview.cli import main

    try:
        code = main()
    except KeyboardInterrupt:
        # One line and the shell's code for SIGINT (128 + 2), as command-line tools end on Ctrl-C.
        print("\ninterrupted", file=sys.stderr)
        code = 130
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
