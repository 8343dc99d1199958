"""`gke-tpu-plan` (and `python -m gke_tpu.plan`): the offline plan's command line (`cli.py`).

The process plans one stack and ends, so it keeps what a long-lived one would spend: the cyclic
collector stays off (the engine turns it off for the program's run anyway: see run_program), and
the process exits without tearing the interpreter down, which at 512 TPU pools would walk the
recorded plan's million objects again for nothing (a third of the plan's own time; `make bench`
shows the whole process). Its output is flushed first; nothing of the plan waits for exit hooks.
"""

import gc
import os
import sys


def run() -> None:
    """The console script's entry point."""
    gc.disable()
    from gke_tpu.plan.cli import main

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
