#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'def greet(name):\n    print('\''hi'\'', name)\n\ndef main():\n    greet('\''bob'\'')\n' > $'greet.py'
