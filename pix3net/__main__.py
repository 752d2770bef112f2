import sys

from pix3net.cli import main

sys.exit(main())
