#!/bin/bash
# creates the tree the patch is applied to
set -e
printf -- 'a note\n' > $'notes.txt'
chmod 644 $'notes.txt'
