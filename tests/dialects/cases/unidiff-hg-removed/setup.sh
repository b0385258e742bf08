#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'Nothing to keep.\nBye.\n' > $'gone.txt'
