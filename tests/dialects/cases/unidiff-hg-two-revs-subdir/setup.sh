#!/bin/bash
# creates the tree the patch is applied to
set -e
mkdir -p $'lib'
printf -- 'def f():\n    return 1\n' > $'lib/util.py'
