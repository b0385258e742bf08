#!/bin/bash
# creates the tree the patch is applied to
set -e
mkdir -p $'a1/b2'
printf -- 'note\n' > $'a1/b2/notes.txt'
