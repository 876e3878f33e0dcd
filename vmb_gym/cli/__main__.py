"""``python -m vmb_gym.cli`` runs the ``vmb`` command line."""

import sys

from vmb_gym.cli import main

sys.exit(main())
