#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'old text\n' > $'notes.txt'
