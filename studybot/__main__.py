"""`python -m studybot` is the `studybot` command."""

import sys

from studybot.cli import main

sys.exit(main())
