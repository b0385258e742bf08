#!/bin/bash
# creates the tree the patch is applied to
set -e
mkdir -p $'dir with spaces'
printf -- 'def greet(name):\n    print('\''hi'\'', name)\n\ndef main():\n    greet('\''bob'\'')\n' > $'dir with spaces/greet.py'
