"""Runs lit from the Python that has it installed (scripts/setup.sh installs it with
`python3 -m pip`), so ctest does not depend on where pip put the `lit` script."""
import sys

from lit.main import main

sys.exit(main())
