#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'Nothing to keep.\n\nThis file goes away.\n' > $'gone.txt'
