"""The launcher behind ``python -m scripts.run_<benchmark>`` (see ``scripts/__init__.py``).

The harness itself is the TypeScript CLI (``tenant-memory bench``), which uses the typed client; this
module hands it the same arguments and environment and exits with its status, so both forms behave
identically.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv):
    cli = os.path.join(ROOT, "bin", "tenant-memory.mjs")
    try:
        return subprocess.call(["node", cli, "bench", *argv])
    except FileNotFoundError:
        sys.stderr.write("benchmark launcher: Node.js (node) is required on PATH\n")
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
